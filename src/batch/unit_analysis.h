// One batch input from bytes to report records: read (decompressing), screen
// out what is not a text log, split mailboxes into mails, parse, analyze, render.
// Stateless: any worker thread may run it on any input.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "batch/input_screen.h"
#include "batch/input_walk.h"
#include "batch/report_record.h"
#include "input/read_input.h"
#include "text/log_parser.h"

namespace btaudit {

// Why an input was skipped, as counted in the run's summary.
enum class SkipKind { None, Unreadable, NotRegular, Binary, LongLine, Truncated, Corrupt, TooLarge };
std::string_view to_string(SkipKind k);

struct UnitResult {
  std::uint64_t seq = 0;  // position in the walk
  InputUnit unit;
  SkipKind skip = SkipKind::None;
  std::string skip_reason;  // one line, for people
  std::uint64_t bytes = 0;  // bytes analyzed (decompressed)
  std::uint32_t mails = 0;  // mails, when the input was a mailbox
  std::vector<ReportRecord> reports;
};

struct UnitLimits {
  InputLimits input;
  ScreenLimits screen;
  ParserLimits parser;
};

// Runs after the text analysis of each report, before it is rendered (batch
// --vmlinux: symbolization and call-site checks). May be empty.
using ReportHook = std::function<void(Report&)>;

// What the store keeps of a result (model/report_record.h); the reports are viewed, not copied.
InputIdentity identity_of(const InputUnit& unit);
InputOutcome outcome_of(const UnitResult& result);

UnitResult analyze_unit(const InputUnit& unit, std::uint64_t seq, const UnitLimits& limits,
                        const ReportHook& enrich = {});

}  // namespace btaudit
