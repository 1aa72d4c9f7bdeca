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
  // The frame a call before this one should lead to: the nearest earlier frame on this stack not
  // judged stale, or the RIP of the registers the stack's walk (or an exception) started from,
  // where the CPU stopped. A word whose call cannot lead there is not that frame's caller.
  std::size_t above = kNone;
  for (std::size_t i = 0; i < walk.frames.size(); ++i) {
    StackFrame& f = walk.frames[i];
    if (above != kNone && (walk.frames[above].stack != f.stack || walk.frames[above].exception != f.exception))
      above = kNone;
    where[i] = locate(f, symbols);
    if (f.from_regs) {  // a RIP of registers: not a trace entry, and no call before it
      above = where[i] ? i : kNone;
      continue;
    }
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
      if (f.verdict != Verdict::Stale) above = i;
      continue;
    }
    CallSiteChecker& checker = at.in_module ? dump_checker : file_checker;
    CallSiteFinding finding = checker.find_call(at.address, at.function);
    // An undecided finding names no call site ("none" would say the machine code has no call).
    if (finding.decided) f.debug->call_site = finding.site;
    if (!finding.decided) {
      f.debug->note = finding.note;
      if (f.verdict != Verdict::Stale) above = i;
      continue;
    }
    Reach reach = Reach::Unknown;
    const StackFrame* up = above != kNone ? &walk.frames[above] : nullptr;
    if (finding.site.kind == CallKind::Direct && up && where[above] &&
        !(up->function && is_entry_code(*up->function))) {
      const std::uint64_t callee_runtime = where[above]->runtime_start;
      if (at.in_module) {
        if (finding.target_address) reach = checker.reaches(*finding.target_address, callee_runtime);
      } else if (finding.site.target) {
        // vmlinux frames: as for printed traces, the target by name in vmlinux's layout.
        auto tsym = info.function(finding.site.target->substr(0, finding.site.target->find('+')), "");
        if (tsym) reach = checker.reaches(tsym->address, callee_runtime - shift);
      }
    }
    const bool asm_frame = f.function && (is_chain_terminal(*f.function) || is_entry_code(*f.function));
    const CallSiteEvidence evidence{finding, reach, up && where[above] ? where[above]->function.name : std::string(),
                                    f.function && f.size != 0 && f.offset == f.size};
    if (apply_call_site_evidence(f.reliable(), asm_frame, f.verdict, f.reason, *f.debug, evidence)) above = i;
  }
  if (auto t = deadline.truncation()) walk.truncated.push_back(std::move(*t));
}

}  // namespace btaudit
