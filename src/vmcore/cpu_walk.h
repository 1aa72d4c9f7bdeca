// Puts the pieces of a dump walk together for every CPU: registers, the
// CPU's stacks (task, IRQ, exception), ORC tables of vmlinux and modules
// read from memory, kernel-text ranges, and symbols for every frame.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "debuginfo/kernel_debuginfo.h"
#include "debuginfo/kernel_types.h"
#include "unwind/stack_walk.h"
#include "vmcore/irq_state.h"
#include "vmcore/kernel_layout.h"
#include "vmcore/module_list.h"
#include "vmcore/task_list.h"

namespace btaudit {

struct SymbolizedFrame {
  WalkFrame frame;
  std::optional<std::string> function;
  std::uint64_t offset = 0, size = 0;
  std::optional<std::string> module;
};

struct CpuWalk {
  CpuIrqState state;
  std::vector<SymbolizedFrame> frames;
  std::vector<WalkTransition> transitions;
  std::vector<std::string> problems;
};

struct DumpWalk {
  std::vector<CpuWalk> cpus;
  // Tasks that were switched out (not running on a CPU), walked from the frame
  // the scheduler left; state.cpu is -1, state.task/pid/comm name the task.
  std::vector<CpuWalk> tasks;
  std::vector<LoadedModule> modules;
  std::vector<std::string> problems;
  int orc_version = 0;
  std::size_t orc_entries = 0;
};

// `blocked` (optional): tasks to walk from their inactive_task_frame as well.
DumpWalk walk_dump(MemorySource& m, KernelDebugInfo& info, KernelTypes& types, const KernelLayout& layout,
                   const std::vector<std::map<std::string, std::uint64_t>>& regs_by_cpu,
                   const std::vector<std::string>& reg_source_by_cpu, const std::vector<TaskInfo>& blocked = {});

}  // namespace btaudit
