#include "batch/report_record.h"

#include "render/report_json.h"

namespace btaudit {

ReportRecord make_record(const Report& report, std::uint32_t seq) {
  ReportRecord rec;
  rec.input = report.input.path;
  rec.seq = seq;
  rec.signature = signature_hex(report.signature);
  rec.title = report.title;
  rec.kind = std::string(to_string(report.kind));
  if (report.guilty && *report.guilty < report.frames.size())
    rec.guilty_function = report.frames[*report.guilty].function;
  rec.first_line = report.input.first_line;
  rec.last_line = report.input.last_line;
  rec.frames = static_cast<std::uint32_t>(report.frames.size());
  for (const Frame& f : report.frames) {
    if (!f.printed_unreliable) continue;
    ++rec.unreliable_frames;
    if (f.verdict == Verdict::Stale) ++rec.stale_frames;
  }
  rec.corrupted = report.corrupted;
  JsonWriter w(rec.json);
  write_report_json(w, report);
  return rec;
}

}  // namespace btaudit
