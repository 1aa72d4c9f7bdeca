#include "analysis/walk_verdicts.h"

#include "analysis/call_site_verdict.h"
#include "analysis/frame_roles.h"
#include "debuginfo/debuginfo_code_source.h"
#include "provider/return_address.h"

namespace btaudit {

namespace {

Verdict verdict_of(Reason r) {
  switch (r) {
    case Reason::StaleByOrc:
    case Reason::StaleByFramePointer:
    case Reason::AfterStackEnd:
    case Reason::FunctionStart: return Verdict::Stale;
    case Reason::AfterUnwindError: return Verdict::Plausible;
    default: return Verdict::Unknown;
  }
}

// Where a frame's code is for the call-site checker: vmlinux frames in the
// debuginfo's layout (link addresses), module frames at runtime addresses.
struct Located {
  bool in_module = false;
  std::uint64_t address = 0;  // the return address
  Symbol function;            // the symbol holding address - 1, same address space
  std::uint64_t runtime_start = 0;
};

std::optional<Located> locate(const StackFrame& f, DumpSymbols& symbols) {
  auto printed = kallsyms_print(symbols, f.pc, f.from_regs);
  if (!printed) return std::nullopt;
  Located l;
  l.in_module = !printed->symbol.module.empty();
  l.runtime_start = printed->symbol.address;
  l.function = printed->symbol;
  l.address = f.pc;
  if (!l.in_module) {
    const auto shift = static_cast<std::uint64_t>(symbols.kaslr());
    l.address -= shift;
    l.function.address -= shift;
  }
  return l;
}

}  // namespace

void symbolize_walk(StackWalk& walk, SymbolProvider& symbols) {
  for (StackFrame& f : walk.frames) {
    auto printed = kallsyms_print(symbols, f.pc, f.from_regs);
    if (!printed) continue;
    f.function = printed->symbol.name;
    f.offset = printed->offset;
    f.size = printed->symbol.size;
    if (!printed->symbol.module.empty()) f.module = printed->symbol.module;
  }
}

void judge_walk(StackWalk& walk, KernelDebugInfo& info, DumpSymbols& symbols, DumpCodeSource& code,
                const CheckBudget& budget) {
  CheckDeadline deadline(budget);
  for (StackFrame& f : walk.frames) {
    if (f.reliable()) {
      f.verdict = Verdict::Reliable;
      continue;
    }
    // "__pfx_f+0x10/0x10": the word is f's first byte, which only padding precedes.
    if (f.function && f.function->starts_with("__pfx_") && f.offset == f.size) f.reason = Reason::FunctionStart;
    f.verdict = verdict_of(f.reason);
  }
  DebugInfoCodeSource file(info);
  CallSiteChecker file_checker(file);
  CallSiteChecker dump_checker(code);
  const auto shift = static_cast<std::uint64_t>(symbols.kaslr());
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::vector<std::optional<Located>> where(walk.frames.size());
  std::size_t above = kNone;  // nearest earlier frame on this stack that is not stale
  // The frames a call before this one may have led to: those not stale since the nearest one the
  // walk is sure of (a reliable frame, or the RIP of registers: where a CPU or an exception
  // stopped), that one included, nearest first. A plausible word between may be a stale one, so
  // the call's callee may be any of them (the guess unwinder's walks are all plausible words).
  constexpr std::size_t kMaxCallees = 8;
  std::vector<std::size_t> callees;
  const auto same_place = [&](std::size_t a, const StackFrame& f) {
    return walk.frames[a].stack == f.stack && walk.frames[a].exception == f.exception;
  };
  for (std::size_t i = 0; i < walk.frames.size(); ++i) {
    StackFrame& f = walk.frames[i];
    if (!callees.empty() && !same_place(callees.front(), f)) callees.clear();
    if (f.from_regs) {  // a RIP of registers: not a trace entry, and no call before it
      where[i] = locate(f, symbols);
      callees.assign(1, i);
      continue;
    }
    if (above != kNone && !same_place(above, f)) above = kNone;
    const auto keep = [&](bool sure) {
      above = i;
      if (sure) callees.clear();
      callees.insert(callees.begin(), i);
      if (callees.size() > kMaxCallees) callees.pop_back();
    };
    where[i] = locate(f, symbols);
    if (!where[i]) continue;
    const Located& at = *where[i];
    FrameDebugInfo d;
    d.address = at.address;
    d.lookup_address = symbol_lookup_address(at.address, false);
    if (!at.in_module) info.describe_source(d.lookup_address, d);
    f.debug = std::move(d);
    if (!deadline.admit()) {
      f.debug->note =
          "not checked: the time budget ran out; the dump rules' reason: " + std::string(reason_code(f.reason));
      f.reason = Reason::UncheckedBudget;
      if (f.verdict != Verdict::Stale) keep(f.reliable());
      continue;
    }
    CallSiteChecker& checker = at.in_module ? dump_checker : file_checker;
    CallSiteFinding finding = checker.find_call(at.address, at.function);
    // An undecided finding names no call site ("none" would say the machine code has no call).
    if (finding.decided) f.debug->call_site = finding.site;
    if (!finding.decided) {
      f.debug->note = finding.note;
      if (f.verdict != Verdict::Stale) keep(f.reliable());
      continue;
    }
    Reach reach = Reach::Unknown;
    const std::size_t nearest = callees.empty() ? kNone : callees.front();
    if (finding.site.kind == CallKind::Direct && nearest != kNone) {
      // vmlinux frames: as for printed traces, the target by name in vmlinux's layout.
      std::optional<Symbol> tsym;
      if (!at.in_module && finding.site.target)
        tsym = info.function(finding.site.target->substr(0, finding.site.target->find('+')), "");
      bool unknown = false;
      reach = Reach::No;
      for (const std::size_t c : callees) {
        const StackFrame& up = walk.frames[c];
        Reach r = Reach::Unknown;
        if (where[c] && !(up.function && is_entry_code(*up.function))) {
          const std::uint64_t callee_runtime = where[c]->runtime_start;
          if (at.in_module) {
            if (finding.target_address) r = checker.reaches(*finding.target_address, callee_runtime);
          } else if (tsym) {
            r = checker.reaches(tsym->address, callee_runtime - shift);
          }
        }
        if (r == Reach::Yes) {
          reach = Reach::Yes;
          break;
        }
        unknown |= r == Reach::Unknown;
      }
      if (reach == Reach::No && unknown) reach = Reach::Unknown;
    }
    const bool asm_frame = f.function && (is_chain_terminal(*f.function) || is_entry_code(*f.function));
    const CallSiteEvidence evidence{finding, reach,
                                    nearest != kNone && where[nearest] ? where[nearest]->function.name : std::string(),
                                    f.function && f.size != 0 && f.offset == f.size};
    if (apply_call_site_evidence(f.reliable(), asm_frame, f.verdict, f.reason, *f.debug, evidence)) keep(f.reliable());
  }
  if (auto t = deadline.truncation()) walk.truncated.push_back(std::move(*t));
}

}  // namespace btaudit
