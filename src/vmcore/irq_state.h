// Each CPU's IRQ-stack state in a dump: its current task, the IRQ stack's
// range, the backlink word at its top (irq_stack_end[-1], the interrupted
// stack pointer), the in-use flag or irq_count, and which stack its SP is on.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memory/memory_source.h"
#include "vmcore/kernel_layout.h"

namespace btaudit {

struct StackRange {
  std::string kind;  // "task", "irq", "exception"
  std::string name;  // "#DF", "NMI", ... for exception stacks
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  bool contains(std::uint64_t a) const { return a >= begin && a < end; }
};

struct CpuIrqState {
  int cpu = 0;
  std::optional<std::uint64_t> task;
  std::optional<int> pid;
  std::optional<std::string> comm;
  std::optional<std::uint64_t> sp;
  std::string registers_from;  // "NT_PRSTATUS note" or why there are none
  std::optional<StackRange> irq_stack;
  std::optional<std::uint64_t> backlink;  // *(irq stack end - 8)
  std::optional<bool> in_use;             // hardirq_stack_inuse
  std::optional<std::int32_t> irq_count;  // irq_count (-1: free)
  std::vector<StackRange> stacks;         // every stack this CPU owns (task, irq, exception)
  std::string sp_stack = "unknown";       // which of them holds sp
  std::vector<std::string> problems;
};

std::vector<CpuIrqState> read_irq_state(MemorySource& memory, const KernelLayout& layout,
                                        const std::vector<std::optional<std::uint64_t>>& sp_by_cpu,
                                        const std::vector<std::string>& reg_source_by_cpu);

}  // namespace btaudit
