#include "analysis/crosscheck.h"

#include <cstdio>

namespace btaudit {

namespace {

std::string name_of(const Frame& f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(f.offset.value_or(0)));
  return f.function.value_or("?") + buf;
}

std::string stack_of(const Frame& f) {
  if (f.stack == StackKind::Exception || f.stack == StackKind::Nmi) return f.exception.value_or("exception");
  return std::string(to_string(f.stack));
}

std::string stack_of(const StackFrame& f) {
  if (f.exception) return *f.exception;
  return std::string(to_string(f.stack));
}

bool is_panic(const std::optional<std::string>& f) { return f && (*f == "panic" || *f == "vpanic"); }

// How the kernel produced the trace (arch/x86/kernel/dumpstack.c show_trace_log_lvl()):
//   from the current frame: dump_stack(), and panic()'s own trace. The unwinder and the
//     scan start where the printer stood, as the dump's walk from the panicking CPU's
//     registers sees the same chain from panic() down.
//   from a pt_regs: show_regs() of the die/oops path and of a WARN's trap. The unwinder
//     starts at the regs; since 6.x's __unwind_start() steps over the regs frame at once,
//     the scan starts at the printer's own frame (get_stack_pointer() of current) while
//     the unwinder's first return address is the interrupted function's caller: every
//     word below the regs -- the die path's frames, regs->ip's slot -- prints with '?' by
//     design, and those frames were overwritten when the die path went on to panic().
//     (Kernels that keep the regs frame, 6.1 among them, start the scan at regs->sp and
//     print none of them.) The pt_regs may be the CPU's registers themselves: kdump's
//     crash_kexec() called from oops_end() saves the oops' registers in crash_notes.
//     The frame-pointer unwinder (unwind_frame.c) takes regs->sp as the first frame to print
//     from and unwinds until it stands on that frame's stack: when regs->sp lies on no stack
//     (a stack overflow's, in the guard page) it never does, runs to the end first, and every
//     frame of the trace prints with '?' although the frame-pointer chain holds them.
struct Convention {
  bool from_regs = false;
  std::size_t regs_frame = 0;  // the walk's RIP frame of the pt_regs the trace was printed from
  // A frame-pointer kernel's trace from regs whose SP was in a guard page: nothing printed reliable.
  bool first_frame_on_no_stack = false;
};

Convention convention_of(const Report& r, std::size_t first, std::size_t count, const StackWalk& walk) {
  Convention c;
  if (!r.rip || !r.rip->function || !r.rip->offset) return c;
  for (std::size_t i = first; i < first + count; ++i)
    if (is_panic(r.frames[i].function)) return c;  // panic()'s dump_stack(): the current frame
  for (std::size_t k = 0; k < walk.frames.size(); ++k) {
    const StackFrame& f = walk.frames[k];
    // A pt_regs on the stack, or the CPU's own registers when they are that pt_regs: a kdump
    // capture that oops_end() started keeps the oops' registers in crash_notes.
    const bool regs = f.from_regs && (f.regs || k == 0);
    if (regs && f.function == r.rip->function && f.offset == *r.rip->offset && f.module == r.rip->module) {
      c.from_regs = true;
      c.regs_frame = k;
      // Where the regs' SP led: the walk's first stack for the CPU's own registers, else the
      // stack it went on to from the regs' one (the backlink is the regs' SP on an IST stack).
      const std::size_t next = f.regs ? std::size_t{f.segment} + 1 : 0;
      c.first_frame_on_no_stack = walk.unwinder == KernelUnwinder::FramePointer && next < walk.segments.size() &&
                                  walk.segments[next].entry == SegmentEntry::GuardPage;
      return c;
    }
  }
  return c;
}

}  // namespace

Crosscheck crosscheck(const Report& r, std::size_t report_index, const StackWalk& walk) {
  Crosscheck c;
  c.report = report_index;
  c.cpu = walk.state.cpu;
  // The last primary trace is the one this CPU's stack can still show (a
  // WARN or hung-task report that then panicked: the panic's own trace).
  std::size_t first = 0, count = r.frames.size();
  for (const Trace& t : r.traces)
    if (t.primary && t.frame_count) {
      first = t.first_frame;
      count = t.frame_count;
    }
  // A panic's own trace: the frames above panic() were overwritten when panic went on.
  std::size_t begin = first;
  c.scope = "the whole printed trace";
  for (std::size_t i = first; i < first + count; ++i)
    if (is_panic(r.frames[i].function)) {
      begin = i;
      c.scope = "the printed frames from panic() down (those above it were overwritten when panic went on)";
      break;
    }
  const Convention conv = convention_of(r, first, count, walk);
  if (conv.from_regs) {
    const StackFrame& rf = walk.frames[conv.regs_frame];
    char buf[64];
    std::snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(rf.offset));
    c.convention = "pt_regs: printed by show_regs() from the registers of " + rf.function.value_or("?") + buf;
  } else {
    c.convention = "current: printed from the printer's own frame (dump_stack)";
  }
  bool above_regs = false;  // a printed frame was found above the pt_regs the trace was printed from
  std::size_t w = 0;
  for (std::size_t i = begin; i < first + count; ++i) {
    const Frame& p = r.frames[i];
    if (!p.function || !p.offset) continue;
    ++c.printed_frames;
    // panic's own offset changes as it goes on (it printed from one call, loops in another).
    const bool any_offset = is_panic(p.function);
    std::size_t found = walk.frames.size();
    for (std::size_t k = w; k < walk.frames.size(); ++k) {
      const StackFrame& s = walk.frames[k];
      // regs->ip's slot is a '?' entry of a trace printed from those regs (the scan had no regs to skip).
      const bool regs_ip = conv.from_regs && k == conv.regs_frame && p.printed_unreliable;
      if ((s.from_regs && !regs_ip) || !s.function || *s.function != *p.function) continue;
      if (!any_offset && s.offset != *p.offset) continue;
      found = k;
      break;
    }
    const bool below_regs = conv.from_regs && !above_regs && (found == walk.frames.size() || found <= conv.regs_frame);
    if (found == walk.frames.size()) {
      if (below_regs) {
        c.explained.push_back({i, name_of(p),
                               "below the pt_regs the trace was printed from: a frame of the die path, overwritten "
                               "when it went on to panic"});
        ++c.matched_frames;
      } else {
        c.mismatches.push_back({i, name_of(p), "not found on the stack at dump time, in order"});
      }
      continue;
    }
    w = found + 1;
    if (conv.from_regs && found > conv.regs_frame) above_regs = true;
    const StackFrame& s = walk.frames[found];
    const bool walk_reliable = s.reliable();
    bool ok = true;
    if (!any_offset && walk_reliable == p.printed_unreliable) {
      if (below_regs && p.printed_unreliable) {
        c.explained.push_back({i, name_of(p),
                               "printed with '?' by design: below the pt_regs the trace was printed from, where the "
                               "unwinder, started at the regs, never looks"});
      } else if (conv.first_frame_on_no_stack && p.printed_unreliable) {
        c.explained.push_back({i, name_of(p),
                               "printed with '?' by design: the frame-pointer unwinder, started at regs whose SP is "
                               "in a guard page, found its first frame on no stack and ran to the end"});
      } else {
        c.mismatches.push_back({i, name_of(p),
                                std::string("printed ") + (p.printed_unreliable ? "with" : "without") +
                                    " '?', the walk finds it " + (walk_reliable ? "reliable" : "unreliable")});
        ok = false;
      }
    }
    if (p.size && s.function && *p.size != s.size) {
      char sizes[64];
      std::snprintf(sizes, sizeof sizes, "printed size 0x%llx, kallsyms in the dump gives 0x%llx",
                    static_cast<unsigned long long>(*p.size), static_cast<unsigned long long>(s.size));
      c.mismatches.push_back({i, name_of(p), sizes});
      ok = false;
    }
    if (stack_of(p) != stack_of(s)) {
      c.mismatches.push_back({i, name_of(p), "printed on the " + stack_of(p) + " stack, found on the " + stack_of(s)});
      ok = false;
    }
    if (ok) ++c.matched_frames;
  }
  return c;
}

}  // namespace btaudit
