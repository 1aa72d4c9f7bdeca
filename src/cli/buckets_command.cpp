// `btaudit buckets` (the top buckets of a database or of NDJSON outputs) and
// `btaudit merge` (NDJSON outputs of many runs into one bucket summary).
#include <boost/program_options.hpp>
#include <iostream>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "input/bucket_ndjson.h"
#include "input/input_error.h"
#include "model/bucket.h"
#include "render/bucket_render.h"
#include "store/report_store.h"

namespace btaudit {

namespace po = boost::program_options;

namespace {

// Every bucket of the named NDJSON files, merged. Throws InputError.
std::vector<Bucket> merged_buckets(const std::vector<std::string>& files) {
  BucketTable table;
  for (const std::string& f : files) read_bucket_ndjson(f, table);
  return table.sorted();
}

}  // namespace

int run_buckets(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string db_path;
  std::string by = "signature";
  std::string format = "text";
  std::size_t top = 20;
  po::options_description opts("btaudit buckets [options] (--db FILE | NDJSON-FILE...)");
  opts.add_options()("help,h", "show this help")("db", po::value(&db_path), "a database written by batch --db")(
      "by", po::value(&by)->default_value("signature"), "group by signature (buckets), kind or function")(
      "top", po::value(&top)->default_value(20), "rows to show (0: all)")(
      "format,f", po::value(&format)->default_value("text"), "text or json (NDJSON)");
  po::variables_map vm;
  if (!parse_command_line("buckets", args, opts, files, vm)) return kExitUsage;
  if (vm.count("help")) {
    std::cout << opts << "\nNDJSON files: batch reports, batch --buckets summaries, merge outputs.\n";
    return kExitOk;
  }
  if (db_path.empty() == files.empty()) {
    std::cerr << "btaudit buckets: give either --db FILE or NDJSON files\n";
    return kExitUsage;
  }
  if (by != "signature" && by != "kind" && by != "function") {
    std::cerr << "btaudit buckets: unknown --by '" << by << "' (use signature, kind or function)\n";
    return kExitUsage;
  }
  if (format != "text" && format != "json") {
    std::cerr << "btaudit buckets: unknown --format '" << format << "' (use text or json)\n";
    return kExitUsage;
  }
  std::vector<Bucket> buckets;
  try {
    if (!db_path.empty()) {
      buckets = stored_buckets(db_path);
    } else {
      buckets = merged_buckets(files);
    }
  } catch (const std::exception& e) {
    std::cerr << "btaudit buckets: " << e.what() << "\n";
    return kExitInputError;
  }
  const bool json = format == "json";
  std::string out;
  if (by == "signature") {
    if (json) {
      if (top != 0 && buckets.size() > top) buckets.resize(top);
      out = render_buckets_ndjson(buckets);
    } else {
      out = render_bucket_table(buckets, top);
    }
  } else {
    std::vector<BucketGroup> groups =
        group_buckets(buckets, by == "kind" ? BucketGrouping::Kind : BucketGrouping::Function);
    if (json) {
      if (top != 0 && groups.size() > top) groups.resize(top);
      out = render_groups_ndjson(groups, by);
    } else {
      out = render_group_table(groups, by, top);
    }
  }
  std::cout << out;
  return kExitOk;
}

int run_merge(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string output = "-";
  po::options_description opts("btaudit merge [options] NDJSON-FILE... ('-': standard input)");
  opts.add_options()("help,h", "show this help")("output,o", po::value(&output)->default_value("-"),
                                                 "where the merged bucket summary goes");
  po::variables_map vm;
  if (!parse_command_line("merge", args, opts, files, vm)) return kExitUsage;
  if (vm.count("help")) {
    std::cout << opts
              << "\nInputs: batch NDJSON reports, batch --buckets summaries, merge outputs, analyze --format json.\n"
                 "The result equals the bucket summary of one batch run over all their inputs.\n";
    return kExitOk;
  }
  if (files.empty()) {
    std::cerr << "btaudit merge: no input given\n";
    return kExitUsage;
  }
  try {
    const std::vector<Bucket> buckets = merged_buckets(files);
    OutputFile out(output);
    out.write(render_buckets_ndjson(buckets));
    out.close();
  } catch (const std::exception& e) {
    std::cerr << "btaudit merge: " << e.what() << "\n";
    return kExitInputError;
  }
  return kExitOk;
}

}  // namespace btaudit
