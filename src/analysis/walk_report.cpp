#include "analysis/walk_report.h"

#include "analysis/debug_analysis.h"
#include "analysis/text_verdicts.h"

namespace btaudit {

namespace {

void set_stack(Frame& f, const WalkFrame& w) {
  if (w.stack == "task")
    f.stack = StackKind::Task;
  else if (w.stack == "irq")
    f.stack = StackKind::Irq;
  else if (w.stack == "entry")
    f.stack = StackKind::Entry;
  else if (w.stack == "exception") {
    f.stack = w.stack_name == "NMI" ? StackKind::Nmi : StackKind::Exception;
    f.exception = w.stack_name;
  }
}

}  // namespace

Report report_from_walk(const CpuWalk& walk, KernelDebugInfo* debuginfo, const CheckBudget& budget) {
  Report r;
  r.kind = ReportKind::Other;
  r.arch = Arch::X86_64;
  r.cpu = walk.state.cpu;
  r.pid = walk.state.pid;
  r.comm = walk.state.comm;
  r.title = "stacks of CPU " + std::to_string(walk.state.cpu);
  Trace t;
  t.label = "walk of CPU " + std::to_string(walk.state.cpu);
  for (const SymbolizedFrame& s : walk.frames) {
    if (s.frame.from_regs) {
      if (!r.rip && s.function) {
        CodeLocation loc;
        loc.function = s.function;
        loc.offset = s.offset;
        loc.size = s.size;
        loc.module = s.module;
        loc.address = s.frame.address;
        r.rip = loc;
      }
      continue;
    }
    Frame f;
    f.function = s.function;
    if (s.function) {
      f.offset = s.offset;
      f.size = s.size;
    }
    f.module = s.module;
    f.address = s.frame.address;
    f.printed_unreliable = !s.frame.reliable;
    f.slot = s.frame.slot;
    set_stack(f, s.frame);
    r.frames.push_back(std::move(f));
  }
  t.frame_count = static_cast<std::uint32_t>(r.frames.size());
  r.traces.push_back(t);
  assign_text_verdicts(r);
  if (debuginfo) {
    // The walk's addresses are runtime ones; debuginfo resolves frames by name and offset.
    for (Frame& f : r.frames) f.address.reset();
    apply_debuginfo(r, *debuginfo, budget);
    for (std::size_t i = 0; i < r.frames.size(); ++i) {
      std::size_t k = 0;
      for (const SymbolizedFrame& s : walk.frames)
        if (!s.frame.from_regs && k++ == i) r.frames[i].address = s.frame.address;
    }
  }
  return r;
}

}  // namespace btaudit
