#include "vmcore/irq_state.h"

#include <algorithm>
#include <cstdio>

namespace btaudit {

namespace {

constexpr std::uint64_t kMaxCpus = 8192;

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%#llx", static_cast<unsigned long long>(v));
  return buf;
}

// "at 0x... (__per_cpu_offset[1] 0x... + <what> 0x...)": enough to see at once whether the
// per-CPU base, the symbol's relocation or the memory is wrong when a new era breaks a walk.
std::string per_cpu_where(std::uint64_t cpu, std::uint64_t base, const char* what, std::uint64_t var,
                          const KernelLayout& l) {
  return "at " + hex(base + var) + " (__per_cpu_offset[" + std::to_string(cpu) + "] " + hex(base) + " + " + what + " " +
         hex(var) + (l.per_cpu.zero_based() ? ", zero-based per-CPU symbols" : ", section-based per-CPU symbols") + ")";
}

std::string read_comm(MemorySource& m, std::uint64_t addr, std::uint64_t size) {
  std::vector<std::uint8_t> buf(std::min<std::uint64_t>(size, 64));
  const std::size_t n = m.read(addr, buf);
  std::string s;
  for (std::size_t i = 0; i < n && buf[i]; ++i) s.push_back(buf[i] >= 0x20 && buf[i] < 0x7f ? char(buf[i]) : '?');
  return s;
}

}  // namespace

std::vector<CpuState> read_irq_state(MemorySource& m, const KernelLayout& l,
                                     const std::vector<std::optional<std::uint64_t>>& sp_by_cpu,
                                     const std::vector<std::string>& reg_source_by_cpu) {
  std::uint64_t ncpus = sp_by_cpu.size();
  if (l.nr_cpu_ids) {
    if (auto n = m.read_u32(l.nr_cpu_ids); n && *n > 0 && *n <= kMaxCpus) ncpus = std::max<std::uint64_t>(ncpus, *n);
  }
  std::vector<CpuState> out;
  for (std::uint64_t cpu = 0; cpu < ncpus && cpu < kMaxCpus; ++cpu) {
    CpuState s;
    s.cpu = static_cast<int>(cpu);
    s.sp = cpu < sp_by_cpu.size() ? sp_by_cpu[cpu] : std::nullopt;
    s.registers_from = cpu < reg_source_by_cpu.size() ? reg_source_by_cpu[cpu] : "no register note for this CPU";
    auto base = m.read_u64(l.per_cpu_offset_array + cpu * 8);
    if (!base) {
      s.problems.push_back("__per_cpu_offset[" + std::to_string(cpu) + "] at " + hex(l.per_cpu_offset_array + cpu * 8) +
                           " is not in the dump");
      out.push_back(std::move(s));
      continue;
    }
    // Current task and its stack.
    if (auto task = m.read_u64(*base + l.current_task_var)) {
      s.task = *task;
      if (auto pid = m.read_u32(*task + l.task_pid.offset)) s.pid = static_cast<int>(*pid);
      s.comm = read_comm(m, *task + l.task_comm.offset, l.task_comm.size);
      if (auto stack = m.read_u64(*task + l.task_stack.offset))
        s.stacks.push_back({StackKind::Task, "", *stack, *stack + l.thread_size});
      else
        s.problems.push_back("task_struct.stack of task " + hex(*task) + " not readable at " +
                             hex(*task + l.task_stack.offset));
    } else {
      s.problems.push_back("current task pointer not readable " +
                           per_cpu_where(cpu, *base, "current_task", l.current_task_var, l));
    }
    // IRQ stack.
    auto ptr = m.read_u64(*base + l.irq_stack_ptr_var);
    if (ptr && *ptr) {
      const std::uint64_t end = *ptr + l.irq_stack_top_adjust;
      // Up to 4.8 irq_stack_ptr sat 64 bytes below the stack's top (removed by 4950d6d48a0c), so it
      // is not page aligned; the stack is then [ptr + 64 - IRQ_STACK_SIZE, ptr), as crash decides it.
      const bool gap = l.era == IrqEra::IrqStackPtr && (*ptr & 0xfff) != 0 && l.irq_stack_size > 64;
      StackRange irq{StackKind::Irq, "", end - (gap ? l.irq_stack_size - 64 : l.irq_stack_size), end};
      s.irq_stack = irq;
      s.stacks.push_back(irq);
      s.backlink = m.read_u64(end - 8);
    } else if (ptr) {
      s.problems.push_back("IRQ stack pointer is 0 " + per_cpu_where(cpu, *base, "its symbol", l.irq_stack_ptr_var, l) +
                           " (CPU never brought up?)");
    } else {
      s.problems.push_back("IRQ stack pointer not readable " +
                           per_cpu_where(cpu, *base, "its symbol", l.irq_stack_ptr_var, l));
    }
    if (l.inuse_var) {
      std::uint8_t b = 0;
      if (m.read(*base + *l.inuse_var, std::span(&b, 1)) == 1) s.in_use = b != 0;
    }
    if (l.irq_count_var) {
      if (auto c = m.read_u32(*base + *l.irq_count_var)) s.irq_count = static_cast<std::int32_t>(*c);
    }
    // Exception stacks.
    if (l.cea_exception_stacks_var) {
      if (auto cea = m.read_u64(*base + *l.cea_exception_stacks_var); cea && *cea) {
        for (const ExceptionStackLayout& e : l.exception_stacks)
          s.stacks.push_back({StackKind::Exception, e.name, *cea + e.offset, *cea + e.offset + e.size});
      } else {
        s.problems.push_back("exception stacks not located: cea_exception_stacks " +
                             std::string(cea ? "is 0 " : "not readable ") +
                             per_cpu_where(cpu, *base, "cea_exception_stacks", *l.cea_exception_stacks_var, l));
      }
    } else if (l.orig_ist_var) {
      for (const ExceptionStackLayout& e : l.exception_stacks)
        if (auto top = m.read_u64(*base + *l.orig_ist_var + e.offset); top && *top > e.size)
          s.stacks.push_back({StackKind::Exception, e.name, *top - e.size, *top});
    }
    if (s.sp) {
      for (const StackRange& r : s.stacks) {
        if (r.contains(*s.sp)) {
          s.sp_stack = r.label();
          break;
        }
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace btaudit
