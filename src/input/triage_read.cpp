#include "input/triage_read.h"

#include <sys/stat.h>

#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "input/input_error.h"
#include "input/read_input.h"
#include "input/report_json_read.h"

namespace btaudit {

namespace {

using nlohmann::json;

constexpr std::int64_t kSecondsPerDay = 86400;

// Per signature: what the bucket table does not keep.
struct Extra {
  std::map<std::int64_t, std::uint64_t> days;
  std::string example_path;  // the (input, line) of example_json: the earliest, as Bucket::merge picks
  std::uint32_t example_line = 0;
  std::string example_json;
  std::string walk_json;  // the CPU walk of a dump-backed example
  std::string dump;
};

class TriageReader {
 public:
  void read_file(const std::string& path);
  TriagePage finish(std::string source);

 private:
  void add_report(const json& r, std::int64_t fallback_day, const json* dump_doc);
  void add_bucket_line(const json& j, std::int64_t day);
  std::int64_t day_of_input(const std::string& input, std::int64_t fallback);

  BucketTable table_;
  std::map<std::string, Extra> extra_;
  std::map<std::string, std::optional<std::int64_t>> input_days_;
};

std::int64_t TriageReader::day_of_input(const std::string& input, std::int64_t fallback) {
  auto [it, fresh] = input_days_.try_emplace(input);
  if (fresh && !input.empty() && input != "-") it->second = file_day(input);
  return it->second.value_or(fallback);
}

void TriageReader::add_report(const json& r, std::int64_t fallback_day, const json* dump_doc) {
  Bucket b;
  b.signature = r.at("signature").get<std::string>();
  b.title = r.value("title", std::string());
  b.kind = r.value("kind", std::string());
  if (const auto g = r.find("guilty");
      g != r.end() && g->is_object() && g->contains("function") && g->at("function").is_string())
    b.guilty_function = g->at("function").get<std::string>();
  b.count = 1;
  const json& input = r.at("input");
  b.first_input = b.last_input = b.example_input = input.value("path", std::string());
  b.example_line = input.value("first_line", 0u);
  for (const json& f : r.at("frames")) {
    if (!f.value("printed_unreliable", false)) continue;
    ++b.unreliable_frames;
    if (f.value("verdict", std::string()) == "stale") ++b.stale_frames;
  }
  table_.add(b);
  Extra& e = extra_[b.signature];
  std::string dump;
  if (dump_doc) dump = dump_doc->at("dump").value("path", std::string());
  ++e.days[day_of_input(dump.empty() ? b.example_input : dump, fallback_day)];
  if (!e.example_json.empty() && std::tie(e.example_path, e.example_line) <= std::tie(b.example_input, b.example_line))
    return;
  e.example_path = b.example_input;
  e.example_line = b.example_line;
  e.example_json = r.dump();
  e.walk_json.clear();
  e.dump = dump;
  if (!dump_doc || !r.contains("cpu") || !r.at("cpu").is_number()) return;
  for (const json& cpu : dump_doc->at("cpus"))
    if (cpu.contains("cpu") && cpu.at("cpu") == r.at("cpu")) e.walk_json = cpu.dump();
}

void TriageReader::add_bucket_line(const json& j, std::int64_t day) {
  Bucket b;
  b.signature = j.at("signature").get<std::string>();
  b.title = j.value("title", std::string());
  b.kind = j.value("kind", std::string());
  if (const auto g = j.find("guilty_function"); g != j.end() && g->is_string())
    b.guilty_function = g->get<std::string>();
  b.count = j.at("count").get<std::uint64_t>();
  b.first_input = j.value("first_input", std::string());
  b.last_input = j.value("last_input", std::string());
  const json& example = j.at("example");
  b.example_input = example.value("path", std::string());
  b.example_line = example.value("line", 0u);
  b.unreliable_frames = j.value("unreliable_frames", std::uint64_t{0});
  b.stale_frames = j.value("stale_frames", std::uint64_t{0});
  if (b.count == 0 || b.signature.empty()) throw std::invalid_argument("a bucket without signature or count");
  table_.add(b);
  extra_[b.signature].days[day] += b.count;
}

void TriageReader::read_file(const std::string& path) {
  const InputBuffer input = load_input(path);
  const std::string_view text = input.view();
  const std::int64_t day = file_day(path).value_or(0);
  std::size_t pos = 0;
  std::uint64_t line_no = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    try {
      const json j = json::parse(line);
      if (j.contains("reports") && j.at("reports").is_array()) {  // an analyze or vmcore document
        const json* dump_doc = j.contains("dump") && j.contains("cpus") ? &j : nullptr;
        for (const json& r : j.at("reports")) add_report(r, day, dump_doc);
      } else if (j.contains("frames")) {
        add_report(j, day, nullptr);
      } else if (j.contains("count")) {
        add_bucket_line(j, day);
      } else {
        throw InputError(path, "line " + std::to_string(line_no) + ": neither a report nor a bucket");
      }
    } catch (const json::exception& e) {
      throw InputError(
          path, "line " + std::to_string(line_no) + ": not a btaudit report or bucket (" + std::string(e.what()) + ")");
    } catch (const std::invalid_argument& e) {
      throw InputError(path, "line " + std::to_string(line_no) + ": " + e.what());
    }
  }
}

TriagePage TriageReader::finish(std::string source) {
  TriagePage page;
  page.source = std::move(source);
  page.reports = table_.reports();
  for (Bucket& b : table_.sorted()) {
    TriageBucket tb;
    Extra& e = extra_[b.signature];
    tb.days.assign(e.days.begin(), e.days.end());
    // The bucket's example is the earliest report; a bucket line may name one not read here.
    if (!e.example_json.empty() && e.example_path == b.example_input && e.example_line == b.example_line) {
      tb.example = report_from_json_text(e.example_json);
      if (!e.walk_json.empty()) tb.dump_walk = report_from_json_text(e.walk_json);
      tb.dump = e.dump;
    }
    tb.bucket = std::move(b);
    page.buckets.push_back(std::move(tb));
  }
  return page;
}

}  // namespace

std::optional<std::int64_t> file_day(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  const std::int64_t s = st.st_mtim.tv_sec;
  return s >= 0 ? s / kSecondsPerDay : (s - kSecondsPerDay + 1) / kSecondsPerDay;
}

TriagePage read_triage_ndjson(const std::vector<std::string>& paths) {
  TriageReader reader;
  for (const std::string& p : paths) reader.read_file(p);
  return reader.finish(paths.size() == 1 ? paths[0] : std::to_string(paths.size()) + " NDJSON files");
}

}  // namespace btaudit
