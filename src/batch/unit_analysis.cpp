#include "batch/unit_analysis.h"

#include <exception>

#include "analysis/analyze_report.h"
#include "batch/mbox.h"
#include "input/input_error.h"
#include "render/json_writer.h"
#include "text/log_parser.h"

namespace btaudit {

std::string_view to_string(SkipKind k) {
  switch (k) {
    case SkipKind::None: return "none";
    case SkipKind::Unreadable: return "unreadable";
    case SkipKind::NotRegular: return "not a regular file";
    case SkipKind::Binary: return "binary";
    case SkipKind::LongLine: return "huge line";
    case SkipKind::Truncated: return "truncated";
    case SkipKind::Corrupt: return "corrupt";
    case SkipKind::TooLarge: return "too large";
  }
  return "none";
}

namespace {

SkipKind classify(const InputError& e) {
  const std::string_view what = e.what();
  if (what.find("truncated") != std::string_view::npos) return SkipKind::Truncated;
  if (what.find("corrupt") != std::string_view::npos) return SkipKind::Corrupt;
  if (what.find("too large") != std::string_view::npos || what.find("limit") != std::string_view::npos)
    return SkipKind::TooLarge;
  if (what.find("is a directory") != std::string_view::npos) return SkipKind::NotRegular;
  return SkipKind::Unreadable;
}

// A mail's reports carry line numbers of the mailbox file, not of the mail body.
void shift_lines(Report& r, std::uint32_t by) {
  r.input.first_line += by;
  r.input.last_line += by;
  for (Frame& f : r.frames) f.line += by;
  for (Trace& t : r.traces) t.line += by;
  for (StackSection& s : r.sections) s.line += by;
}

// Adds "mail": {...} to a rendered report object.
void append_mail(std::string& json, const Mail& mail, std::uint32_t index) {
  if (json.empty() || json.back() != '}') return;
  json.pop_back();
  json += ",\"mail\":";
  JsonWriter w(json);
  w.begin_object();
  w.field("index", index);
  w.field("message_id", mail.message_id);
  w.field("subject", mail.subject);
  w.field("reencoded", mail.reencoded);
  w.end_object();
  json.push_back('}');
}

}  // namespace

InputIdentity identity_of(const InputUnit& unit) { return {unit.path, unit.bytes, unit.mtime_ns}; }

InputOutcome outcome_of(const UnitResult& result) {
  InputOutcome o;
  o.input = identity_of(result.unit);
  if (result.skip != SkipKind::None) o.skip_kind = std::string(to_string(result.skip));
  o.skip_reason = result.skip_reason;
  o.reports = result.reports;
  return o;
}

UnitResult analyze_unit(const InputUnit& unit, std::uint64_t seq, const UnitLimits& limits, const ReportHook& enrich) {
  UnitResult result;
  result.seq = seq;
  result.unit = unit;
  result.unit.stat_now();
  if (result.unit.error) {
    result.skip = result.unit.error->find("regular") != std::string::npos ? SkipKind::NotRegular : SkipKind::Unreadable;
    result.skip_reason = *result.unit.error;
    return result;
  }
  const std::string name = unit.path == "-" ? std::string("<stdin>") : unit.path;
  try {
    const InputBuffer input = load_input(unit.path, limits.input);
    const std::string_view data = input.view();
    result.bytes = data.size();
    if (auto why = screen_input(data, limits.screen)) {
      result.skip = why->starts_with("binary") ? SkipKind::Binary : SkipKind::LongLine;
      result.skip_reason = std::move(*why);
      return result;
    }
    std::uint32_t seq_in_unit = 0;
    if (is_mbox(data)) {
      const std::vector<Mail> mails = split_mbox(data);
      result.mails = static_cast<std::uint32_t>(mails.size());
      for (std::uint32_t i = 0; i < mails.size(); ++i) {
        const Mail& mail = mails[i];
        parse_log(
            mail.body, name,
            [&](Report&& r) {
              shift_lines(r, mail.body_line - 1);
              analyze_report(r);
              if (enrich) enrich(r);
              result.reports.push_back(make_record(r, seq_in_unit++));
              append_mail(result.reports.back().json, mail, i + 1);
            },
            limits.parser);
      }
    } else {
      parse_log(
          data, name,
          [&](Report&& r) {
            analyze_report(r);
            if (enrich) enrich(r);
            result.reports.push_back(make_record(r, seq_in_unit++));
          },
          limits.parser);
    }
    if (input.read_failed())
      throw InputError(unit.path, "read failed while it was being analyzed (an I/O error, or the file was truncated)");
  } catch (const InputError& e) {
    result.skip = classify(e);
    std::string_view why = e.what();
    if (why.starts_with(e.path() + ": ")) why.remove_prefix(e.path().size() + 2);
    result.skip_reason = why;
    result.reports.clear();
  } catch (const std::bad_alloc&) {
    result.skip = SkipKind::TooLarge;
    result.skip_reason = "out of memory while analyzing";
    result.reports.clear();
  }
  return result;
}

}  // namespace btaudit
