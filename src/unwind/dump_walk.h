// Puts the pieces of a dump walk together: each CPU's registers and stacks
// (vmcore/irq_state.h), the switched-out tasks' saved frames, vmlinux's and
// the modules' ORC tables (orc_loader.h) and kernel text ranges, and walks
// every context (stack_walk.h). The frames come out unsymbolized and
// unjudged: analysis/ names and judges them.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "memory/memory_source.h"
#include "model/walked_stack.h"
#include "provider/symbol_provider.h"
#include "provider/type_provider.h"
#include "vmcore/kernel_layout.h"
#include "vmcore/module_list.h"
#include "vmcore/task_list.h"

namespace btaudit {

// What the kernel treats as text (__kernel_text_address()): vmlinux's text and
// init text, and each module's text and init text, at runtime addresses.
class KernelText {
 public:
  KernelText(SymbolProvider& symbols, std::int64_t kaslr, const std::vector<LoadedModule>& modules);
  bool contains(std::uint64_t a) const;
  bool in_vmlinux(std::uint64_t a) const;
  // The module whose text holds `a`, or null.
  const LoadedModule* module_at(std::uint64_t a) const;

 private:
  std::optional<std::uint64_t> stext_, etext_, sinittext_, einittext_;
  const std::vector<LoadedModule>& modules_;
};

struct DumpWalk {
  std::vector<StackWalk> cpus;
  // Tasks that were switched out (not running on a CPU), walked from the frame
  // the scheduler left; state.cpu is -1, state.task/pid/comm name the task.
  std::vector<StackWalk> tasks;
  std::vector<LoadedModule> modules;
  std::vector<std::string> problems;
  KernelUnwinder unwinder = KernelUnwinder::Orc;
  int orc_version = 0;  // 0: no ORC
  std::size_t orc_entries = 0;
};

// `symbols` answers with vmlinux's link addresses; `nmi_stopped_by_cpu`: the CPUs kdump's NMI
// stopped, whose registers are what the NMI interrupted (their walk starts at the NMI handler's
// frame on the NMI stack where it is found: unwind/nmi_stop.h); `blocked` (optional): tasks
// to walk from their inactive_task_frame as well.
DumpWalk walk_dump(MemorySource& m, SymbolProvider& symbols, TypeProvider& types, const KernelLayout& layout,
                   const std::vector<std::map<std::string, std::uint64_t>>& regs_by_cpu,
                   const std::vector<std::string>& reg_source_by_cpu, const std::vector<bool>& nmi_stopped_by_cpu,
                   const std::vector<TaskInfo>& blocked = {});

}  // namespace btaudit
