#include "vmcore/cpu_walk.h"

#include <algorithm>

namespace btaudit {

namespace {

std::optional<std::uint64_t> runtime_symbol(KernelDebugInfo& info, const std::string& name, std::int64_t kaslr) {
  auto s = info.function(name, "");
  if (!s) return std::nullopt;
  return s->address + static_cast<std::uint64_t>(kaslr);
}

int orc_version_of(KernelTypes& types) {
  const bool has_signal = types.member("orc_entry", "signal").has_value();
  const bool has_end = types.member("orc_entry", "end").has_value();
  if (has_signal && !has_end) return 3;
  if (has_signal) return 2;
  return 1;
}

}  // namespace

DumpWalk walk_dump(MemorySource& m, KernelDebugInfo& info, KernelTypes& types, const KernelLayout& layout,
                   const std::vector<std::map<std::string, std::uint64_t>>& regs_by_cpu,
                   const std::vector<std::string>& reg_source_by_cpu, const std::vector<TaskInfo>& blocked) {
  DumpWalk out;
  const std::int64_t kaslr = layout.kaslr;
  // Modules: text ranges, symbols, ORC.
  if (auto head = runtime_symbol(info, "modules", kaslr)) out.modules = read_modules(m, types, *head, out.problems);
  // ORC: vmlinux's sorted tables in memory, then each module's.
  OrcTable orc;
  out.orc_version = orc_version_of(types);
  auto ip_start = runtime_symbol(info, "__start_orc_unwind_ip", kaslr);
  auto ip_stop = runtime_symbol(info, "__stop_orc_unwind_ip", kaslr);
  auto orc_start = runtime_symbol(info, "__start_orc_unwind", kaslr);
  const bool frame_pointer_kernel = !(ip_start && ip_stop && orc_start && *ip_stop > *ip_start);
  if (!frame_pointer_kernel) {
    if (!orc.add(m, *ip_start, *orc_start, (*ip_stop - *ip_start) / 4, out.orc_version))
      out.problems.push_back("vmlinux's ORC tables are not in the dump: frame-pointer fallback only");
  } else {
    out.problems.push_back("no ORC symbols in vmlinux: walked with frame pointers, as CONFIG_UNWINDER_FRAME_POINTER");
  }
  for (const LoadedModule& mod : out.modules)
    if (mod.num_orcs && mod.orc_ip && mod.orc_entries)
      if (!orc.add(m, mod.orc_ip, mod.orc_entries, mod.num_orcs, out.orc_version, mod.text_begin, mod.text_end))
        out.problems.push_back("module " + mod.name + ": ORC tables not in the dump");
  out.orc_entries = orc.size();

  auto stext = runtime_symbol(info, "_stext", kaslr);
  auto etext = runtime_symbol(info, "_etext", kaslr);
  // Init text counts too: the boot CPU's idle task keeps start_kernel's frames
  // forever, and the kernel prints them.
  auto sinit = runtime_symbol(info, "_sinittext", kaslr);
  auto einit = runtime_symbol(info, "_einittext", kaslr);
  auto in_vmlinux_text = [&](std::uint64_t a) {
    return (stext && etext && a >= *stext && a < *etext) || (sinit && einit && a >= *sinit && a < *einit);
  };
  auto is_text = [&](std::uint64_t a) {
    if (in_vmlinux_text(a)) return true;
    for (const LoadedModule& mod : out.modules)
      if (a >= mod.text_begin && a < mod.text_end) return true;
    return false;
  };
  auto symbolize = [&](const WalkFrame& f) {
    SymbolizedFrame s{f, std::nullopt, 0, 0, std::nullopt};
    if (in_vmlinux_text(f.address)) {
      // %pB: a return address names the function holding the byte before it.
      const std::uint64_t link = f.address - static_cast<std::uint64_t>(kaslr);
      auto sym = info.kallsyms_at(f.from_regs ? link : link - 1);
      if (sym) {
        s.function = sym->name;
        s.offset = link - sym->address;
        s.size = sym->size;
      }
      return s;
    }
    for (const LoadedModule& mod : out.modules) {
      if (f.address < mod.text_begin || f.address >= mod.text_end) continue;
      s.module = mod.name;
      const std::uint64_t look = f.from_regs ? f.address : f.address - 1;
      auto it = std::upper_bound(mod.symbols.begin(), mod.symbols.end(), look,
                                 [](std::uint64_t a, const ModuleSymbol& sym) { return a < sym.address; });
      if (it != mod.symbols.begin()) {
        --it;
        s.function = it->name;
        s.offset = f.address - it->address;
        s.size = it->size;
      }
      return s;
    }
    return s;
  };

  std::vector<std::optional<std::uint64_t>> sps;
  for (const auto& r : regs_by_cpu) {
    auto it = r.find("rsp");
    sps.push_back(it == r.end() ? std::nullopt : std::optional<std::uint64_t>(it->second));
  }
  for (CpuIrqState& state : read_irq_state(m, layout, sps, reg_source_by_cpu)) {
    CpuWalk cw;
    WalkInput in;
    if (static_cast<std::size_t>(state.cpu) < regs_by_cpu.size()) in.regs = regs_by_cpu[state.cpu];
    for (const StackRange& r : state.stacks) in.stacks.push_back({r.kind, r.name, r.begin, r.end});
    in.orc = &orc;
    in.is_kernel_text = is_text;
    in.frame_pointer_kernel = frame_pointer_kernel;
    if (in.regs.empty()) {
      cw.problems.push_back("no registers for this CPU: not walked");
    } else {
      WalkResult w = walk_stacks(m, in);
      for (const WalkFrame& f : w.frames) cw.frames.push_back(symbolize(f));
      cw.transitions = std::move(w.transitions);
      for (auto& p : w.problems) cw.problems.push_back(std::move(p));
    }
    cw.state = std::move(state);
    out.cpus.push_back(std::move(cw));
  }

  // Switched-out tasks: thread.sp points at the inactive_task_frame that
  // __switch_to_asm pushed; its ret_addr (in __schedule) is the first frame.
  const auto frame_size = types.type_size("inactive_task_frame");
  const auto ret_addr = types.member("inactive_task_frame", "ret_addr");
  const auto saved_bp = types.member("inactive_task_frame", "bp");
  for (const TaskInfo& t : blocked) {
    CpuWalk cw;
    cw.state.cpu = -1;
    cw.state.task = t.task;
    cw.state.pid = t.pid;
    cw.state.comm = t.comm;
    cw.state.sp = t.thread_sp;
    cw.state.registers_from = "the inactive_task_frame at task->thread.sp (switched out)";
    const StackRange task_stack{"task", "", t.stack, t.stack + layout.thread_size};
    cw.state.stacks.push_back(task_stack);
    cw.state.sp_stack = t.thread_sp >= task_stack.begin && t.thread_sp < task_stack.end ? "task" : "unknown";
    if (!frame_size || !ret_addr || !saved_bp) {
      cw.problems.push_back("vmlinux has no struct inactive_task_frame (a kernel before 4.9): not walked");
    } else if (cw.state.sp_stack != "task" || t.thread_sp + *frame_size > task_stack.end) {
      cw.problems.push_back("task->thread.sp is not on the task's stack: not walked");
    } else {
      WalkInput in;
      const auto rip = m.read_u64(t.thread_sp + ret_addr->offset);
      const auto rbp = m.read_u64(t.thread_sp + saved_bp->offset);
      if (!rip || !rbp) {
        cw.problems.push_back("the task's inactive_task_frame is not in the dump: not walked");
      } else {
        in.regs = {{"rip", *rip}, {"rsp", t.thread_sp + *frame_size}, {"rbp", *rbp}};
        in.stacks.push_back({task_stack.kind, task_stack.name, task_stack.begin, task_stack.end});
        in.orc = &orc;
        in.is_kernel_text = is_text;
        in.blocked_scan_from = t.thread_sp;
        // (Verified against the kernel's own prints on ORC kernels; on a frame-pointer
        // kernel the first frame's '?' mark may differ from unwind_frame.c's.)
        in.frame_pointer_kernel = frame_pointer_kernel;
        WalkResult w = walk_stacks(m, in);
        for (const WalkFrame& f : w.frames) cw.frames.push_back(symbolize(f));
        for (auto& p : w.problems) cw.problems.push_back(std::move(p));
      }
    }
    out.tasks.push_back(std::move(cw));
  }
  return out;
}

}  // namespace btaudit
