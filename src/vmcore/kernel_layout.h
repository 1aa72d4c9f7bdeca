// Where a kernel keeps each CPU's IRQ-stack state, decided from which symbols
// and DWARF members exist (never from version strings), with every fallback
// logged. Eras (../shared/docs/kernel-facts.md, section 1):
//   irq_stack_ptr + irq_count              2.6.30 - 5.1
//   hardirq_stack_ptr + irq_count          5.2 - 5.11  (758a2e312228)
//   hardirq_stack_ptr + hardirq_stack_inuse 5.12 - 6.1 (951c2a51ae75, e7f890017971)
//   pcpu_hot.hardirq_stack_ptr/_inuse      6.2 - 6.14  (d7b6d709a76a)
//   cache-hot per-CPU variables again      6.15+       (c6a0918072ea)
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "provider/symbol_provider.h"
#include "provider/type_provider.h"
#include "vmcore/per_cpu_symbol.h"

namespace btaudit {

enum class IrqEra { IrqStackPtr, HardirqPtrIrqCount, HardirqPtrInuse, PcpuHot, PerCpuHot };

struct ExceptionStackLayout {
  std::string name;          // "#DF", "NMI", "#DB", "#MC", "#VC", "#VC2"
  std::uint64_t offset = 0;  // in struct cea_exception_stacks; <=5.1: of the stack's top in struct orig_ist
  std::uint64_t size = 0;
};

struct KernelLayout {
  IrqEra era = IrqEra::HardirqPtrInuse;
  std::string era_name;
  std::int64_t kaslr = 0;                  // runtime = link address + kaslr
  std::uint64_t per_cpu_offset_array = 0;  // runtime address of __per_cpu_offset[]
  std::uint64_t nr_cpu_ids = 0;            // runtime address of nr_cpu_ids
  std::uint64_t crash_notes = 0;           // runtime address of the crash_notes pointer (0: none)
  PerCpuSymbols per_cpu;                   // zero-based (<=6.14) or section-based (6.15+) symbols
  // The *_var fields below are per-CPU symbols' runtime values (per_cpu.runtime()):
  // add __per_cpu_offset[cpu] to reach a CPU's copy.
  std::uint64_t irq_stack_ptr_var = 0;         // the top-of-IRQ-stack pointer
  std::uint64_t irq_stack_top_adjust = 0;      // bytes from the stored pointer to the stack's end
  std::optional<std::uint64_t> inuse_var;      // hardirq_stack_inuse (bool)
  std::optional<std::uint64_t> irq_count_var;  // irq_count (int, -1 = free)
  std::uint64_t current_task_var = 0;
  std::uint64_t irq_stack_size = 0;
  std::uint64_t thread_size = 0;
  MemberInfo task_pid, task_comm, task_stack;
  std::optional<std::uint64_t> cea_exception_stacks_var;
  std::optional<std::uint64_t> orig_ist_var;  // <=5.1: per-CPU struct orig_ist, each IST stack's top
  std::vector<ExceptionStackLayout> exception_stacks;
  std::vector<std::string> fallbacks;  // each default taken because the kernel's own data was missing
};

// `symbols` answers with vmlinux's link addresses; `vmlinux` names it in errors.
// Throws DebugInfoError when vmlinux lacks what every era has (__per_cpu_offset, a task pointer).
KernelLayout detect_layout(SymbolProvider& symbols, TypeProvider& types, std::int64_t kaslr,
                           const std::string& vmlinux);

}  // namespace btaudit
