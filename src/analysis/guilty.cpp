#include "analysis/guilty.h"

#include "analysis/frame_roles.h"

namespace btaudit {

std::optional<std::size_t> find_guilty_frame(const Report& report) {
  for (const Trace& t : report.traces) {
    if (!t.primary) continue;
    // Reliable frames first; a trace with no reliable frame at all (guess
    // unwinder) falls back to frames that were not proven stale.
    for (int pass = 0; pass < 2; ++pass) {
      for (std::size_t i = t.first_frame; i < t.first_frame + t.frame_count; ++i) {
        const Frame& f = report.frames[i];
        if (!f.function || is_reporting_machinery(*f.function)) continue;
        if (pass == 0 && f.verdict != Verdict::Reliable) continue;
        if (pass == 1 && f.verdict == Verdict::Stale) continue;
        return i;
      }
    }
    return std::nullopt;  // only the first primary trace speaks for the crash
  }
  return std::nullopt;
}

}  // namespace btaudit
