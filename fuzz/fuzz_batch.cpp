// libFuzzer target for the parsers batch adds in front of the text analyzer and
// behind it: input screening, mailbox splitting (each mail then parsed and
// rendered as batch does), and the NDJSON reader of `merge` and `buckets`.
// Oracles: sanitizers; every mail body is a slice of the input or a decoding of
// one (never larger); every rendered record is valid JSON; a bucket table read
// back never counts more reports than it was given lines.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "analysis/analyze_report.h"
#include "batch/input_screen.h"
#include "batch/mbox.h"
#include "batch/report_record.h"
#include "input/bucket_ndjson.h"
#include "input/input_error.h"
#include "text/log_parser.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  btaudit::ScreenLimits limits;
  limits.max_line_bytes = 4096;
  (void)btaudit::screen_input(text, limits);

  if (btaudit::is_mbox(text)) {
    for (const btaudit::Mail& mail : btaudit::split_mbox(text)) {
      check(mail.body.size() <= size);
      check(mail.body_line >= 1);
      btaudit::parse_log(mail.body, "fuzz.mbox", [](btaudit::Report&& r) {
        btaudit::analyze_report(r);
        const btaudit::ReportRecord rec = btaudit::make_record(r, 0);
        check(nlohmann::json::accept(rec.json));
        check(rec.stale_frames <= rec.unreliable_frames);
      });
    }
  }

  btaudit::BucketTable table;
  try {
    const auto stats = btaudit::read_bucket_ndjson_text(text, "fuzz.ndjson", table);
    const std::uint64_t lines = static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    check(stats.bucket_lines <= lines);
  } catch (const btaudit::InputError&) {
    // malformed NDJSON is an error naming the line: fine
  }
  return 0;
}
