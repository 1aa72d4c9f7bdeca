// libFuzzer target for the whole text path of `btaudit analyze`: console text
// -> parse_log -> analyze_report -> render_json / render_text.
//
// Besides ASan/UBSan findings it checks the two promises the renderers rely
// on, so that a broken index shows up here rather than as garbage output:
// every index a report holds points inside it, and the JSON document is
// always valid JSON (console logs hold arbitrary bytes).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analyze_report.h"
#include "render/report_json.h"
#include "render/report_text.h"
#include "text/log_parser.h"

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz_analyze: invariant broken: %s\n", what);
  std::abort();
}

void check_indices(const btaudit::Report& r) {
  const std::size_t frames = r.frames.size();
  if (r.guilty && *r.guilty >= frames) fail("guilty frame index out of range");
  for (const btaudit::Trace& t : r.traces)
    if (std::size_t{t.first_frame} + t.frame_count > frames) fail("trace frame range out of range");
  for (const btaudit::StackSection& s : r.sections) {
    if (std::size_t{s.first_frame} + s.frame_count > frames) fail("section frame range out of range");
    if (!r.traces.empty() && s.trace >= r.traces.size()) fail("section trace index out of range");
  }
  for (const btaudit::Frame& f : r.frames)
    if (!r.traces.empty() && f.trace >= r.traces.size()) fail("frame trace index out of range");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<btaudit::Report> reports = btaudit::parse_log(text, "fuzz.log");
  for (btaudit::Report& r : reports) {
    btaudit::analyze_report(r);
    check_indices(r);
  }
  const std::string json = btaudit::render_json(reports);
  if (!nlohmann::json::accept(json)) fail("render_json produced invalid JSON");
  for (const btaudit::Report& r : reports) {
    // Both styles: colour changes the code path, not only the bytes.
    const std::string plain = btaudit::render_text(r, btaudit::TextStyle{false});
    const std::string colour = btaudit::render_text(r, btaudit::TextStyle{true});
    if (plain.empty() || colour.empty()) fail("render_text produced nothing for a report");
  }
  return 0;
}
