#include "analysis/text_verdicts.h"

#include "analysis/frame_roles.h"

namespace btaudit {

namespace {

bool never_guesses(Arch a) { return a == Arch::Arm64 || a == Arch::Arm || a == Arch::RiscV; }

bool same_location(const Frame& a, const Frame& b) {
  if (a.function && b.function) return *a.function == *b.function && a.offset == b.offset;
  return a.address && b.address && *a.address == *b.address;
}

void judge_trace(Report& r, std::size_t first, std::size_t count) {
  const std::size_t end = first + count;
  // Index of the last reliable frame at or after each position, and of the first reliable frame.
  std::size_t first_reliable = end;
  std::size_t last_reliable = end;
  for (std::size_t i = first; i < end; ++i) {
    if (!r.frames[i].printed_unreliable) {
      if (first_reliable == end) first_reliable = i;
      last_reliable = i;
    }
  }
  // The same for every reliable frame of the trace: worked out once, not per frame.
  const Reason reliable_reason = never_guesses(r.arch) ? Reason::ExactUnwinder : Reason::Unwinder;
  // Whether the live chain has already reached the bottom of the stack the frame is on.
  bool chain_ended = false;
  StackKind chain_stack = StackKind::Unknown;

  for (std::size_t i = first; i < end; ++i) {
    Frame& f = r.frames[i];
    if (f.stack != chain_stack) {
      chain_stack = f.stack;
      chain_ended = false;
    }
    if (!f.printed_unreliable) {
      f.verdict = Verdict::Reliable;
      f.reason = reliable_reason;
      // Once ended, the chain stays ended until the stack changes: the name need not be looked up.
      if (!chain_ended && f.function && is_chain_terminal(*f.function)) chain_ended = true;
      continue;
    }
    const bool reliable_later = last_reliable != end && last_reliable > i;
    // +0x0, or (6.2+ call padding) "__pfx_f+0x10/0x10": %pB names the padding before f
    // when the word is f's own address, so the word is a function pointer either way.
    const bool padding_end =
        f.function && f.function->starts_with("__pfx_") && f.offset && f.size && *f.offset == *f.size;
    if ((f.function && f.offset && *f.offset == 0) || padding_end) {
      f.verdict = Verdict::Stale;
      f.reason = Reason::FunctionStart;
    } else if (i > first && first_reliable != end && same_location(f, r.frames[i - 1])) {
      // (Only where the unwinder vouched for some frame of the trace: it would have printed a
      // recursion's repeated return address without '?'. A trace it vouched for nothing of --
      // the frame-pointer unwinder started from a stack overflow's regs, whose SP is in the
      // guard page, never finds its first frame -- prints the recursion all with '?'.)
      f.verdict = Verdict::Stale;
      f.reason = Reason::DuplicateOfAbove;
    } else if (chain_ended) {
      f.verdict = Verdict::Stale;
      f.reason = Reason::AfterChainEnd;
    } else if (i < first_reliable && f.function && is_reporting_machinery(*f.function) && first_reliable != end) {
      f.verdict = Verdict::Plausible;
      f.reason = Reason::ReportingPath;
    } else if (r.old_address_format && f.function && is_entry_code(*f.function)) {
      // Frame-pointer era: entry code sets up no frame, so the unwinder hops over a real caller.
      f.verdict = Verdict::Plausible;
      f.reason = Reason::EntryCode;
    } else if (reliable_later) {
      f.verdict = Verdict::Stale;
      f.reason = Reason::SkippedByUnwinder;
    } else if (first_reliable != end) {
      f.verdict = Verdict::Plausible;
      f.reason = Reason::AfterUnwinderStopped;
    } else {
      f.verdict = Verdict::Unknown;
      f.reason = Reason::NoReliableFrames;
    }
  }
}

}  // namespace

void assign_text_verdicts(Report& report) {
  for (const Trace& t : report.traces) judge_trace(report, t.first_frame, t.frame_count);
}

}  // namespace btaudit
