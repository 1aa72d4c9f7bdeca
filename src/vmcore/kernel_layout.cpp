#include "vmcore/kernel_layout.h"

#include "provider/debuginfo_error.h"

namespace btaudit {

namespace {

std::optional<std::uint64_t> symbol(SymbolProvider& info, const std::string& name) {
  auto s = info.find(name);
  if (!s) return std::nullopt;
  return s->address;
}

}  // namespace

KernelLayout detect_layout(SymbolProvider& info, TypeProvider& types, std::int64_t kaslr, const std::string& vmlinux) {
  KernelLayout l;
  l.kaslr = kaslr;
  auto pco = symbol(info, "__per_cpu_offset");
  if (!pco) throw DebugInfoError(vmlinux + ": no __per_cpu_offset symbol (not an SMP x86-64 kernel?)");
  l.per_cpu_offset_array = *pco + static_cast<std::uint64_t>(kaslr);
  if (auto n = symbol(info, "nr_cpu_ids")) l.nr_cpu_ids = *n + static_cast<std::uint64_t>(kaslr);
  if (auto n = symbol(info, "crash_notes")) l.crash_notes = *n + static_cast<std::uint64_t>(kaslr);

  l.per_cpu = {symbol(info, "__per_cpu_start").value_or(0), kaslr};
  // Every per-CPU symbol below is taken at its runtime value (vmcore/per_cpu_symbol.h).
  auto per_cpu = [&](const std::string& name) -> std::optional<std::uint64_t> {
    auto s = symbol(info, name);
    if (!s) return std::nullopt;
    return l.per_cpu.runtime(*s);
  };
  auto pcpu_hot = per_cpu("pcpu_hot");
  auto hardirq_ptr = per_cpu("hardirq_stack_ptr");
  auto inuse = per_cpu("hardirq_stack_inuse");
  auto irq_stack_ptr = per_cpu("irq_stack_ptr");
  auto irq_count = per_cpu("irq_count");
  if (pcpu_hot) {
    l.era = IrqEra::PcpuHot;
    l.era_name = "pcpu_hot.hardirq_stack_ptr + pcpu_hot.hardirq_stack_inuse (6.2-6.14)";
    auto ptr = types.member("pcpu_hot", "hardirq_stack_ptr");
    auto use = types.member("pcpu_hot", "hardirq_stack_inuse");
    auto cur = types.member("pcpu_hot", "current_task");
    if (!ptr || !cur) throw DebugInfoError(vmlinux + ": struct pcpu_hot has no hardirq_stack_ptr/current_task");
    l.irq_stack_ptr_var = *pcpu_hot + ptr->offset;
    if (use) l.inuse_var = *pcpu_hot + use->offset;
    l.current_task_var = *pcpu_hot + cur->offset;
    l.irq_stack_top_adjust = 8;
  } else if (hardirq_ptr && inuse) {
    l.era = symbol(info, "__per_cpu_hot_start") ? IrqEra::PerCpuHot : IrqEra::HardirqPtrInuse;
    l.era_name = l.era == IrqEra::PerCpuHot ? "cache-hot hardirq_stack_ptr + hardirq_stack_inuse (6.15+)"
                                            : "hardirq_stack_ptr + hardirq_stack_inuse (5.12-6.1)";
    l.irq_stack_ptr_var = *hardirq_ptr;
    l.inuse_var = *inuse;
    l.irq_stack_top_adjust = 8;  // 951c2a51ae75: the pointer is the top minus one word
  } else if (hardirq_ptr) {
    l.era = IrqEra::HardirqPtrIrqCount;
    l.era_name = "hardirq_stack_ptr + irq_count (5.2-5.11)";
    l.irq_stack_ptr_var = *hardirq_ptr;
    l.irq_count_var = irq_count;
  } else if (irq_stack_ptr) {
    l.era = IrqEra::IrqStackPtr;
    l.era_name = "irq_stack_ptr + irq_count (2.6.30-5.1)";
    l.irq_stack_ptr_var = *irq_stack_ptr;
    l.irq_count_var = irq_count;
  } else {
    throw DebugInfoError(vmlinux + ": no per-CPU IRQ stack pointer (pcpu_hot, hardirq_stack_ptr, irq_stack_ptr)");
  }
  if (l.era != IrqEra::PcpuHot) {
    auto cur = per_cpu("current_task");
    if (!cur) throw DebugInfoError(vmlinux + ": no current_task per-CPU variable");
    l.current_task_var = *cur;
  }
  if (!l.per_cpu.zero_based()) l.era_name += "; per-CPU symbols section-based, moved by KASLR";
  if (!l.inuse_var && !l.irq_count_var)
    l.fallbacks.push_back("no irq_count/hardirq_stack_inuse: in-use state not reported");

  if (auto s = types.type_size("irq_stack")) {
    l.irq_stack_size = *s;
  } else if (auto u = types.member("irq_stack_union", "irq_stack")) {
    l.irq_stack_size = u->size;
  }
  // THREAD_SIZE: init_stack's ELF size where the linker script gives it one;
  // else the IRQ stack's (both are PAGE_SIZE << (2 + KASAN_STACK_ORDER) on
  // x86-64 since 3.15). union thread_union is not looked up: it is rarely
  // defined in a CU, and a failed lookup reads all of vmlinux's DWARF.
  if (auto s = info.find("init_stack"); s && s->size) l.thread_size = s->size;
  if (l.thread_size == 0 && l.irq_stack_size) {
    l.thread_size = l.irq_stack_size;
    l.fallbacks.push_back("THREAD_SIZE taken as the IRQ stack's size (init_stack has no ELF size)");
  }
  if (l.thread_size == 0) {
    l.thread_size = 16384;
    l.fallbacks.push_back("THREAD_SIZE taken as 16 KiB: neither init_stack nor struct irq_stack gives it");
  }
  if (l.irq_stack_size == 0) {
    l.irq_stack_size = l.thread_size;
    l.fallbacks.push_back("no struct irq_stack in DWARF: IRQ stack size taken as THREAD_SIZE");
  }
  auto pid = types.member("task_struct", "pid");
  auto comm = types.member("task_struct", "comm");
  auto stack = types.member("task_struct", "stack");
  if (!pid || !comm || !stack) throw DebugInfoError(vmlinux + ": task_struct.pid/comm/stack missing from DWARF");
  l.task_pid = *pid;
  l.task_comm = *comm;
  l.task_stack = *stack;

  // Exception (IST) stacks, 5.2+: a per-CPU pointer to struct cea_exception_stacks.
  if (auto cea = per_cpu("cea_exception_stacks")) {
    l.cea_exception_stacks_var = *cea;
    const std::pair<const char*, const char*> names[] = {
        {"DF_stack", "#DF"}, {"NMI_stack", "NMI"},  {"DB_stack", "#DB"},   {"MCE_stack", "#MC"},
        {"VC_stack", "#VC"}, {"VC2_stack", "#VC2"}, {"DB1_stack", "#DB1"}, {"DB2_stack", "#DB2"}};
    for (auto [member, name] : names)
      if (auto m = types.member("cea_exception_stacks", member); m && m->size)
        l.exception_stacks.push_back({name, m->offset, m->size});
    if (l.exception_stacks.empty())
      l.fallbacks.push_back("struct cea_exception_stacks not in DWARF: exception stacks unknown");
  } else if (auto orig = per_cpu("orig_ist")) {
    // <=5.1: per-CPU orig_ist.ist[k] holds the top of IST stack k+1 (DOUBLEFAULT_STACK=1 .. MCE_STACK=4;
    // removed in 5.2 by "x86/cpu: Remove orig_ist array"). #DB's stack is DEBUG_STKSZ, twice the others,
    // so the per-CPU exception_stacks[3 * EXCEPTION_STKSZ + DEBUG_STKSZ] gives EXCEPTION_STKSZ as its
    // size / 5 (4 KiB, or 8 KiB after the 7fae4c24a2b8 backports).
    l.orig_ist_var = *orig;
    std::uint64_t stksz = 4096;
    if (auto es = info.find("exception_stacks"); es && es->size && es->size % 5 == 0)
      stksz = es->size / 5;
    else
      l.fallbacks.push_back("no sized exception_stacks symbol: exception stacks taken as 4 KiB (#DB 8 KiB)");
    const std::pair<const char*, std::uint64_t> stacks[] = {{"#DF", 1}, {"NMI", 1}, {"#DB", 2}, {"#MC", 1}};
    std::uint64_t slot = 0;
    for (auto [name, pages] : stacks) {
      l.exception_stacks.push_back({name, slot, stksz * pages});
      slot += 8;
    }
  } else {
    l.fallbacks.push_back("neither cea_exception_stacks nor orig_ist: exception stacks not located");
  }
  return l;
}

}  // namespace btaudit
