// The tasks of a dump, read through the kernel's own lists: every process on
// init_task.tasks and every thread of each on its thread group, with what a
// sleeping task's walk needs (its stack and the frame the scheduler left at
// task->thread.sp). Offsets come from DWARF; every loop is capped.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memory/memory_source.h"
#include "provider/symbol_provider.h"
#include "provider/type_provider.h"
#include "vmcore/kernel_layout.h"

namespace btaudit {

struct TaskInfo {
  std::uint64_t task = 0;  // address of the task_struct
  int pid = 0;
  std::string comm;
  std::uint64_t stack = 0;      // task->stack (THREAD_SIZE bytes)
  std::uint64_t thread_sp = 0;  // task->thread.sp: its inactive_task_frame while switched out
  std::optional<bool> on_cpu;   // task->on_cpu (SMP kernels)
};

struct TaskList {
  std::vector<TaskInfo> tasks;
  std::vector<std::string> problems;
};

// Throws DebugInfoError when vmlinux lacks init_task or task_struct's list members.
TaskList read_task_list(MemorySource& m, SymbolProvider& symbols, TypeProvider& types, const KernelLayout& layout);

}  // namespace btaudit
