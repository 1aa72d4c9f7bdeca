// Each CPU's IRQ-stack state in a dump: its current task, the IRQ stack's
// range, the backlink word at its top (irq_stack_end[-1], the interrupted
// stack pointer), the in-use flag or irq_count, and which stack its SP is on.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memory/memory_source.h"
#include "model/walked_stack.h"
#include "vmcore/kernel_layout.h"

namespace btaudit {

// One CpuState per CPU (model/walked_stack.h).
std::vector<CpuState> read_irq_state(MemorySource& memory, const KernelLayout& layout,
                                     const std::vector<std::optional<std::uint64_t>>& sp_by_cpu,
                                     const std::vector<std::string>& reg_source_by_cpu);

}  // namespace btaudit
