// `btaudit report (--db FILE | NDJSON...) -o report.html`: the triage page of a
// batch run. This file reads the store or the NDJSON into the page's model;
// render/triage_html.h turns the model into the page.
#include <boost/program_options.hpp>
#include <chrono>
#include <iostream>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "input/report_json_read.h"
#include "input/triage_read.h"
#include "render/triage_html.h"
#include "store/report_store.h"

namespace btaudit {

namespace po = boost::program_options;

namespace {

TriagePage page_from_store(const std::string& db_path) {
  TriagePage page;
  page.source = db_path;
  std::map<std::string, StoredBucketHistory> history = stored_bucket_history(db_path);
  for (Bucket& b : stored_buckets(db_path)) {
    TriageBucket tb;
    page.reports += b.count;
    if (auto it = history.find(b.signature); it != history.end()) {
      tb.days = std::move(it->second.days);
      if (!it->second.example_json.empty()) tb.example = report_from_json_text(it->second.example_json);
    }
    tb.bucket = std::move(b);
    page.buckets.push_back(std::move(tb));
  }
  return page;
}

std::int64_t today() {
  using namespace std::chrono;
  return floor<days>(system_clock::now()).time_since_epoch().count();
}

}  // namespace

int run_report(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string db_path;
  std::string output = "-";
  po::options_description opts("btaudit report [options] (--db FILE | NDJSON-FILE...)");
  opts.add_options()("help,h", "show this help")("db", po::value(&db_path), "a database written by batch --db")(
      "output,o", po::value(&output)->default_value("-"), "the HTML file to write ('-': standard output)");
  po::variables_map vm;
  if (!parse_command_line("report", args, opts, files, vm)) return kExitUsage;
  if (vm.count("help")) {
    std::cout << opts
              << "\nOne self-contained HTML page (no network): the buckets sortable by count, last seen, kind and\n"
                 "guilty function, a filter box, reports per day, and per bucket its example trace with verdicts,\n"
                 "reasons, sources and, for reports from a dump (vmcore --format json), the stack picture.\n"
                 "NDJSON files: batch reports, batch --buckets summaries, merge outputs, analyze and vmcore JSON.\n";
    return kExitOk;
  }
  if (db_path.empty() == files.empty()) {
    std::cerr << "btaudit report: give either --db FILE or NDJSON files\n";
    return kExitUsage;
  }
  TriagePage page;
  try {
    page = db_path.empty() ? read_triage_ndjson(files) : page_from_store(db_path);
  } catch (const std::exception& e) {
    std::cerr << "btaudit report: " << e.what() << "\n";
    return kExitInputError;
  }
  page.generated_day = today();
  try {
    OutputFile out(output);
    out.write(render_triage_html(page));
    out.close();
  } catch (const std::exception& e) {
    std::cerr << "btaudit report: " << e.what() << "\n";
    return kExitInputError;
  }
  return kExitOk;
}

}  // namespace btaudit
