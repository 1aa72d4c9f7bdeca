#include "analysis/guilty.h"

#include "analysis/frame_roles.h"
#include "analysis/title_engine.h"

namespace btaudit {

namespace {

using guilty_detail::base_is;

// The frame the title rules named, found among the parsed frames: the first
// frame the unwinder vouched for with that name, else any frame with it.
std::optional<std::size_t> frame_named(const Report& report, std::string_view name) {
  const bool name_has_dot = name.find('.', 1) != std::string_view::npos;
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < report.frames.size(); ++i) {
      const Frame& f = report.frames[i];
      if (!f.function || !base_is(*f.function, name, name_has_dot)) continue;
      if (pass == 0 && f.printed_unreliable) continue;
      return i;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::size_t> find_guilty_frame(const Report& report) {
  return find_guilty_frame(report, title_from_rules(report.text));
}

std::optional<std::size_t> find_guilty_frame(const Report& report, const std::optional<RuleTitle>& rules) {
  if (rules && !rules->frame.empty()) {  // base_is wants a name
    if (auto i = frame_named(report, rules->frame)) return i;
  }
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
