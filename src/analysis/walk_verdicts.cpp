#include "analysis/walk_verdicts.h"

#include <algorithm>
#include <array>

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

// Where a frame's code is. The call-site checker reads it at runtime addresses, from the dump's
// memory (the code as patched at boot for the CPU that ran it); vmlinux frames are also
// described in the debuginfo's layout (link addresses), as the output prints them.
struct Located {
  bool in_module = false;
  std::uint64_t address = 0;       // the return address, at runtime
  Symbol function;                 // the symbol holding address - 1, at runtime
  std::uint64_t link_address = 0;  // vmlinux frames: address less the KASLR offset (else address)
};

std::optional<Located> locate(const StackFrame& f, DumpSymbols& symbols) {
  auto printed = kallsyms_print(symbols, f.pc, f.from_regs);
  if (!printed) return std::nullopt;
  Located l;
  l.in_module = !printed->symbol.module.empty();
  l.function = printed->symbol;
  l.address = f.pc;
  l.link_address = l.in_module ? f.pc : f.pc - static_cast<std::uint64_t>(symbols.kaslr());
  return l;
}

// A module frame's address where the session placed the module's debuginfo (the .ko given with
// --modules or under the debug directory), for its file:line: the same function, whose ELF size
// fits the size the dump's kallsyms gives it (module_size_fits), else none.
std::optional<std::uint64_t> module_place(KernelDebugInfo& info, const Located& at) {
  auto sym = info.function(at.function.name, at.function.module, at.function.size);
  if (!sym || !module_size_fits(at.function.size, sym->size)) return std::nullopt;
  return sym->address + (at.address - at.function.address);
}

// What rewrote a vmlinux call site at boot, from what vmlinux's file holds there: an
// alternative of its table, else the patching the file's instruction is made for.
std::string rewritten_by(KernelDebugInfo& info, std::uint64_t link_at, const CallSiteFinding& in_file) {
  if (auto patches = info.code_patches(link_at); !patches.empty()) return describe_patch(patches.front());
  if (!in_file.decided || in_file.site.kind == CallKind::None)
    return "boot-time patching (no call ends there in the file)";
  const std::string& insn = in_file.site.insn;
  const char* what = "boot-time patching";
  if (insn.starts_with("call ["))
    what = "paravirt patching";  // "call *pv_ops+N(%rip)", made direct or inline at boot
  else if (in_file.site.target && in_file.site.target->starts_with("__SCT__"))
    what = "static_call patching";
  else if (in_file.site.target && in_file.site.target->starts_with("__x86_indirect_thunk_"))
    what = "retpoline patching";
  return std::string(what) + " (the file holds \"" + insn + "\")";
}

// Whether boot-time patching may turn the file's call `in_file` into something else: the site of
// an alternative, a paravirt call through pv_ops ("call [...]"), a static call's trampoline call,
// ftrace's call at a function's entry.
bool boot_may_remove(KernelDebugInfo& info, const CallSiteFinding& in_file) {
  if (in_file.site.patched_by || (in_file.site.address && !info.code_patches(*in_file.site.address).empty()))
    return true;
  if (in_file.site.insn.starts_with("call [")) return true;
  const std::string target = in_file.site.target.value_or("");
  return target.starts_with("__SCT__") || target == "__fentry__" || target == "mcount";
}

// A vmlinux call site read in the dump's text, told in the file's terms. Where the bytes of the
// call are the file's, the file's finding is the answer (its addresses and operands in the
// debuginfo's layout). Where the file's alternatives table gave the same call, the table's
// finding names the ALTERNATIVE the boot chose. Elsewhere the boot rewrote the site (a
// paravirt call made direct, a retpoline thunk for "call *%rax", the copy routine this CPU's
// features chose): the dump's call stands, its address moved to the file's layout. Bytes the
// boot did not write are not read as code. A call of the file's that the dump's text lacks was
// patched away only where boot-time patching writes calls (an alternative's site, a paravirt
// call, a static call, ftrace's __fentry__); anywhere else the text was changed after boot, by
// a kprobe's int3 or an optimized kprobe's jmp over the call, a live patch or a stray write, and
// the file's call is the instruction that made the return address. Bytes that decode to nothing
// leave the file's reading too.
void tell_against_file(CallSiteFinding& found, std::uint64_t ret, std::uint64_t shift, KernelDebugInfo& info,
                       CodeSource& dump, CodeSource& file, CallSiteChecker& file_checker, const Symbol& link_function) {
  CallSiteFinding in_file = file_checker.find_call(ret - shift, link_function);
  if (!found.decided) {
    if (in_file.decided) found = std::move(in_file);
    return;
  }
  const bool file_call = in_file.decided && in_file.site.kind != CallKind::None;
  if (file_call && found.site.kind == CallKind::None && !boot_may_remove(info, in_file)) {
    constexpr std::uint8_t kInt3 = 0xCC;
    std::array<std::uint8_t, 1> first{};
    const bool breakpoint =
        in_file.site.address && dump.read_code(*in_file.site.address + shift, first) == 1 && first[0] == kInt3;
    found = std::move(in_file);
    found.note += breakpoint ? "; the dump's text holds a breakpoint (int3) where this call starts: a kprobe's"
                             : "; the dump's text differs from the file's call here, where no boot-time patching "
                               "writes: changed after boot (an optimized kprobe, a live patch)";
    return;
  }
  if (found.site.kind == CallKind::None && in_file.decided && !file_call) {
    found = std::move(in_file);  // no call in either: the file's words for it
    found.site.read_in_dump = true;
    return;
  }
  if (found.site.address) *found.site.address -= shift;
  if (found.target_address) *found.target_address -= shift;
  found.site.read_in_dump = true;
  if (found.site.kind == CallKind::None) {
    if (file_call)
      found.note += "; vmlinux's file holds \"" + in_file.site.insn + "\" here, which the boot patched away";
    return;
  }
  const std::uint64_t link_at = found.site.address.value_or(ret - shift);
  if (file_call && in_file.site.address == link_at && !in_file.site.patched_by) {
    std::array<std::uint8_t, 16> ran{}, linked{};
    const std::size_t n = std::min<std::size_t>(ran.size(), ret - shift - link_at);
    if (dump.read_code(link_at + shift, std::span(ran).first(n)) == n &&
        file.read_code(link_at, std::span(linked).first(n)) == n && ran == linked) {
      found = std::move(in_file);  // the file's own bytes, as the dump ran them
      found.site.read_in_dump = true;
      return;
    }
  }
  // The alternative the boot chose, among those the table has for the site (its own words for
  // the call: an inline retpoline's, a pv_ops direct call's).
  for (CallSiteFinding& alt : file_checker.patched_calls(ret - shift))
    if (alt.site.address == link_at && alt.site.insn.starts_with(found.site.insn)) {
      found = std::move(alt);
      found.site.read_in_dump = true;
      return;
    }
  found.site.patched_by = rewritten_by(info, link_at, in_file);
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
  CallSiteChecker file_checker(file);  // vmlinux's file: what the dump's text is told against
  CallSiteChecker checker(code);
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
    d.address = at.link_address;
    d.lookup_address = symbol_lookup_address(at.link_address, false);
    if (!at.in_module)
      info.describe_source(d.lookup_address, d);
    else if (auto placed = module_place(info, at))
      info.describe_source(symbol_lookup_address(*placed, false), d);
    f.debug = std::move(d);
    if (!deadline.admit()) {
      f.debug->note =
          "not checked: the time budget ran out; the dump rules' reason: " + std::string(reason_code(f.reason));
      f.reason = Reason::UncheckedBudget;
      if (f.verdict != Verdict::Stale) above = i;
      continue;
    }
    CallSiteFinding finding;
    if (at.in_module) {
      finding = checker.find_call(at.address, at.function);
      finding.site.read_in_dump = finding.decided;  // a module's text is only in the dump
    } else {
      Symbol link_function = at.function;
      link_function.address -= shift;
      if (code.reads_dump(at.address - 1)) {
        finding = checker.find_call(at.address, at.function);
        tell_against_file(finding, at.address, shift, info, code, file, file_checker, link_function);
      } else {  // text the dump lacks (init text, freed at boot; a page left out): the file's
        finding = file_checker.find_call(at.link_address, link_function);
      }
    }
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
      const std::uint64_t callee = where[above]->function.address;
      if (at.in_module) {
        if (finding.target_address) reach = checker.reaches(*finding.target_address, callee);
      } else if (finding.site.target) {
        // vmlinux frames: as for printed traces, the target by name, moved to where it ran.
        auto tsym = info.function(finding.site.target->substr(0, finding.site.target->find('+')), "");
        if (tsym) reach = checker.reaches(tsym->address + shift, callee);
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
