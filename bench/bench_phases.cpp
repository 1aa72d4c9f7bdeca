// Splits `btaudit analyze` time into its phases (read + decompress, parse,
// analyze, render JSON, render text) on one input, so that a slowdown in the
// end-to-end benchmark (run-bench.sh) can be pinned on a stage.
// Usage: btaudit_bench_phases FILE
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "analysis/analyze_report.h"
#include "input/input_error.h"
#include "input/read_input.h"
#include "render/report_json.h"
#include "render/report_text.h"
#include "text/log_parser.h"

namespace {

using Clock = std::chrono::steady_clock;

// Prints the time since `start` for one phase and restarts the clock.
void lap(const char* phase, Clock::time_point& start, double megabytes) {
  const auto now = Clock::now();
  const double s = std::chrono::duration<double>(now - start).count();
  std::printf("  %-16s %8.3f s %10.1f MB/s\n", phase, s, megabytes / s);
  start = Clock::now();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: btaudit_bench_phases FILE\n");
    return 64;
  }
  auto start = Clock::now();
  std::string text;
  try {
    text = btaudit::read_input(argv[1]);
  } catch (const btaudit::InputError& e) {
    std::fprintf(stderr, "btaudit_bench_phases: %s\n", e.what());
    return 2;
  }
  const double mb = static_cast<double>(text.size()) / (1024.0 * 1024.0);
  std::printf("phases of btaudit analyze on %.1f MB:\n", mb);
  lap("read", start, mb);
  std::vector<btaudit::Report> reports = btaudit::parse_log(text, argv[1]);
  lap("parse", start, mb);
  for (btaudit::Report& r : reports) btaudit::analyze_report(r);
  lap("analyze", start, mb);
  const std::string json = btaudit::render_json(reports);
  lap("render json", start, mb);
  std::size_t text_bytes = 0;
  for (const btaudit::Report& r : reports) text_bytes += btaudit::render_text(r, btaudit::TextStyle{}).size();
  lap("render text", start, mb);
  std::printf(
      "  %zu reports, %zu frames, %.1f MB of JSON, %.1f MB of text\n", reports.size(),
      [&] {
        std::size_t n = 0;
        for (const auto& r : reports) n += r.frames.size();
        return n;
      }(),
      static_cast<double>(json.size()) / 1048576.0, static_cast<double>(text_bytes) / 1048576.0);
  return 0;
}
