#include "unwind/stack_walk.h"

#include <set>

#include "unwind/unwinder.h"

namespace btaudit {

namespace {

// A scanned word the unwinder did not vouch for: why, from the unwinder's state.
Reason scan_reason(const Unwinder& u, KernelUnwinder kernel) {
  if (kernel == KernelUnwinder::Guess) return Reason::GuessUnwinder;
  if (u.failed()) return Reason::AfterUnwindError;
  if (u.done()) return Reason::AfterStackEnd;
  return u.frame_pointer_kernel() ? Reason::StaleByFramePointer : Reason::StaleByOrc;
}

Reason reliable_reason(Trust t, bool blocked_start) {
  switch (t) {
    case Trust::Registers: return blocked_start ? Reason::SchedulerFrame : Reason::CpuRegisters;
    case Trust::Orc: return Reason::Orc;
    case Trust::FramePointer: return Reason::FramePointer;
    case Trust::PtRegs: return Reason::PtRegs;
    case Trust::Backlink: return Reason::Backlink;
    case Trust::MachineCode: return Reason::MachineCodeFrame;
    case Trust::NmiStopHandler: return Reason::NmiStopHandler;
    case Trust::Scan: break;
  }
  return Reason::ScannedTextAddress;
}

StackFrame frame_on(const StackRange& r, std::uint32_t segment) {
  StackFrame f;
  f.segment = segment;
  f.stack = frame_stack_kind(r);
  if (r.kind == StackKind::Exception) f.exception = r.name;
  return f;
}

}  // namespace

StackKind frame_stack_kind(const StackRange& r) {
  if (r.kind == StackKind::Exception && r.name == "NMI") return StackKind::Nmi;
  return r.kind;
}

WalkResult walk_stacks(MemorySource& m, const WalkInput& in) {
  WalkResult out;
  StackAccess access(m, in.stacks, in.regs);
  Unwinder u(access, in.orc, in.unwinder != KernelUnwinder::Orc, in.max_frames, out.problems);
  const bool guess = in.unwinder == KernelUnwinder::Guess;
  if (in.code_frames) u.read_code_frames(in.code_frames);
  std::uint64_t stack = 0;
  const bool blocked = in.blocked_scan_from.has_value();
  if (blocked) {
    // The unwinder already stands on the sleeping task's first frame: its return
    // address is the word just below rsp, which the scan below reaches.
    u.start_blocked();
    if (guess) u.stop();
    stack = *in.blocked_scan_from & ~7ULL;
  } else {
    u.start_from_registers();
    if (auto rip = in.regs.find("rip"); rip != in.regs.end()) {
      StackFrame f;
      f.pc = rip->second;
      f.from_regs = true;
      f.trust = Trust::Registers;
      f.reason = Reason::CpuRegisters;
      if (const StackRange* r = access.stack_of(in.regs.count("rsp") ? in.regs.at("rsp") : 0)) {
        f.stack = frame_stack_kind(*r);
        if (r->kind == StackKind::Exception) f.exception = r->name;
      }
      out.frames.push_back(f);
    }
    // The registers' own frame: the first unwinder step leaves the interrupted context. (The guess
    // unwinder takes none: it only scans.)
    if (guess)
      u.stop();
    else
      u.next();
    auto sp_it = in.regs.find("rsp");
    stack = sp_it == in.regs.end() ? 0 : (sp_it->second & ~7ULL);
  }
  bool first_reliable = true;
  std::set<std::string> visited;
  SegmentEntry entry = SegmentEntry::Start;
  for (int hop = 0; stack && hop < 16; ++hop) {
    const StackRange* info = access.stack_of(stack);
    if (!info) {
      // A stack pointer in a guard page (overflow): the kernel retries at the next page.
      stack = page_up(stack);
      info = access.stack_of(stack);
      entry = SegmentEntry::GuardPage;
    }
    if (!info || !visited.insert(info->label()).second) break;  // each stack type once, as the kernel's visit mask
    const auto segment = static_cast<std::uint32_t>(out.segments.size());
    out.segments.push_back({*info, entry, stack});
    const std::uint64_t words = (info->end - stack) / 8;
    std::vector<std::uint8_t> buf(words * 8);
    const std::size_t got = m.read(stack, buf);
    for (std::uint64_t i = 0; i * 8 + 8 <= got && out.frames.size() < in.max_frames; ++i) {
      const std::uint64_t slot = stack + i * 8;
      std::uint64_t word = 0;
      std::memcpy(&word, buf.data() + i * 8, 8);
      if (!in.is_kernel_text(word)) continue;
      StackFrame f = frame_on(*info, segment);
      f.pc = word;
      f.slot = slot;
      const auto ret_p = u.return_address_slot();
      const auto regs = u.entry_regs();
      if (regs && slot == *regs + pt_regs::kIp) {
        // The kernel prints regs->ip on the RIP: line of the regs, not as a trace entry.
        f.from_regs = true;
        f.regs = *regs;
        f.trust = Trust::PtRegs;
        f.reason = Reason::PtRegs;
        out.frames.push_back(f);
      } else if (ret_p && slot == *ret_p) {
        f.trust = u.state().trust;
        f.reason = reliable_reason(f.trust, blocked && first_reliable);
        first_reliable = false;
        out.frames.push_back(f);
      } else {
        f.trust = Trust::Scan;
        f.reason = scan_reason(u, in.unwinder);
        out.frames.push_back(f);
        continue;
      }
      u.next();
    }
    if (out.frames.size() >= in.max_frames) {
      out.problems.push_back("the walk stopped at " + std::to_string(in.max_frames) +
                             " frames (a fixed bound): the stacks' other words were not scanned");
      break;
    }
    // Follow the backlink to the stack this one interrupted.
    const BacklinkOutcome link = backlink_step(*info, access);
    if (link.kind == StepOutcome::NotApplicable) break;
    out.transitions.push_back(link.transition);
    if (link.kind == StepOutcome::Error) {
      out.problems.push_back("the backlink leads to no known stack");
      break;
    }
    stack = link.transition.value & ~7ULL;
    entry = SegmentEntry::Backlink;
  }
  return out;
}

}  // namespace btaudit
