#include "unwind/dump_walk.h"

#include <algorithm>

#include "provider/return_address.h"
#include "unwind/code_frame.h"
#include "unwind/nmi_stop.h"
#include "unwind/orc_loader.h"
#include "unwind/stack_walk.h"
#include "vmcore/irq_state.h"

namespace btaudit {

namespace {

std::optional<std::uint64_t> runtime_symbol(SymbolProvider& symbols, const char* name, std::int64_t kaslr) {
  auto s = symbols.find(name);
  if (!s) return std::nullopt;
  return s->address + static_cast<std::uint64_t>(kaslr);
}

void take(StackWalk& w, WalkResult&& r) {
  w.segments = std::move(r.segments);
  w.frames = std::move(r.frames);
  w.transitions = std::move(r.transitions);
  for (auto& p : r.problems) w.problems.push_back(std::move(p));
}

}  // namespace

KernelText::KernelText(SymbolProvider& symbols, std::int64_t kaslr, const std::vector<LoadedModule>& modules)
    : stext_(runtime_symbol(symbols, "_stext", kaslr)),
      etext_(runtime_symbol(symbols, "_etext", kaslr)),
      // Init text counts too: the boot CPU's idle task keeps start_kernel's frames
      // forever, and the kernel prints them.
      sinittext_(runtime_symbol(symbols, "_sinittext", kaslr)),
      einittext_(runtime_symbol(symbols, "_einittext", kaslr)),
      modules_(modules) {}

bool KernelText::in_vmlinux(std::uint64_t a) const {
  return (stext_ && etext_ && a >= *stext_ && a < *etext_) ||
         (sinittext_ && einittext_ && a >= *sinittext_ && a < *einittext_);
}

const LoadedModule* KernelText::module_at(std::uint64_t a) const {
  for (const LoadedModule& mod : modules_)
    if (mod.kallsyms.holds(a)) return &mod;
  return nullptr;
}

bool KernelText::contains(std::uint64_t a) const { return in_vmlinux(a) || module_at(a) != nullptr; }

DumpWalk walk_dump(MemorySource& m, SymbolProvider& symbols, TypeProvider& types, const KernelLayout& layout,
                   const std::vector<std::map<std::string, std::uint64_t>>& regs_by_cpu,
                   const std::vector<std::string>& reg_source_by_cpu, const std::vector<bool>& nmi_stopped_by_cpu,
                   const std::vector<TaskInfo>& blocked) {
  DumpWalk out;
  const std::int64_t kaslr = layout.kaslr;
  if (auto head = runtime_symbol(symbols, "modules", kaslr)) out.modules = read_modules(m, types, *head, out.problems);
  const LoadedOrc orc = load_orc(m, symbols, types, kaslr, out.modules, out.problems);
  out.unwinder = orc.unwinder;
  out.orc_version = orc.unwinder == KernelUnwinder::Orc ? orc.version : 0;
  out.orc_entries = orc.table.size();
  const KernelText text(symbols, kaslr, out.modules);
  const auto is_text = [&text](std::uint64_t a) { return text.contains(a); };
  // Where ORC's entry is undefined (a function objtool skipped: __crash_kexec, where every kdump
  // capture's registers were taken), the frame the function's machine code gives: its bounds as
  // kallsyms gives them, its bytes as the dump holds them. vmlinux's functions only.
  const X86Decoder decoder;
  const auto shift = static_cast<std::uint64_t>(kaslr);
  const auto noreturn = [&symbols, shift](std::uint64_t target) {
    auto s = symbols.kallsyms_at(target - shift);
    return s && s->address == target - shift && objtool_noreturn(s->name);
  };
  const CodeFrames code_frames = [&](std::uint64_t ip, bool exact) -> std::optional<CodeFrame> {
    constexpr std::uint64_t kMaxFunctionBytes = 64 << 10;
    if (!text.in_vmlinux(ip)) return std::nullopt;
    auto f = symbols.kallsyms_at(symbol_lookup_address(ip, exact) - shift);
    if (!f || f->size == 0 || f->size > kMaxFunctionBytes) return std::nullopt;
    std::vector<std::uint8_t> code(f->size);
    if (m.read(f->address + shift, code) != code.size()) return std::nullopt;
    return frame_from_code({code, f->address + shift, ip, exact, noreturn}, decoder);
  };

  // The handler kdump's stopping NMI runs on the other CPUs (arch/x86/kernel/reboot.c, 2.6.19 on).
  std::optional<Symbol> stop_handler = symbols.find("crash_nmi_callback");
  std::vector<std::optional<std::uint64_t>> sps;
  for (const auto& r : regs_by_cpu) {
    auto it = r.find("rsp");
    sps.push_back(it == r.end() ? std::nullopt : std::optional<std::uint64_t>(it->second));
  }
  for (CpuState& state : read_irq_state(m, layout, sps, reg_source_by_cpu)) {
    StackWalk cw;
    cw.unwinder = orc.unwinder;
    WalkInput in;
    if (static_cast<std::size_t>(state.cpu) < regs_by_cpu.size()) in.regs = regs_by_cpu[state.cpu];
    in.stacks = state.stacks;
    in.orc = &orc.table;
    in.is_kernel_text = is_text;
    in.unwinder = orc.unwinder;
    in.code_frames = code_frames;
    const auto cpu = static_cast<std::size_t>(state.cpu);
    const bool stopped = cpu < nmi_stopped_by_cpu.size() && nmi_stopped_by_cpu[cpu];
    const auto nmi = std::find_if(state.stacks.begin(), state.stacks.end(),
                                  [](const StackRange& r) { return frame_stack_kind(r) == StackKind::Nmi; });
    std::optional<WalkResult> from_handler;
    if (in.regs.empty()) {
      cw.problems.push_back("no registers for this CPU: not walked");
    } else if (stopped && stop_handler && stop_handler->size && nmi != state.stacks.end()) {
      const std::uint64_t handler = stop_handler->address + shift;
      from_handler = walk_from_nmi_stop(m, {in, *nmi, handler, handler + stop_handler->size});
      if (!from_handler)
        cw.problems.push_back(
            "kdump's NMI stopped this CPU, but no return address into crash_nmi_callback on its NMI stack "
            "leads the unwinder to the saved registers: the walk starts at the registers the NMI interrupted");
    }
    if (from_handler)
      take(cw, std::move(*from_handler));
    else if (!in.regs.empty())
      take(cw, walk_stacks(m, in));
    cw.state = std::move(state);
    out.cpus.push_back(std::move(cw));
  }

  // Switched-out tasks: thread.sp points at the inactive_task_frame that
  // __switch_to_asm pushed; its ret_addr (in __schedule) is the first frame.
  const auto frame_size = types.type_size("inactive_task_frame");
  const auto ret_addr = types.member("inactive_task_frame", "ret_addr");
  const auto saved_bp = types.member("inactive_task_frame", "bp");
  for (const TaskInfo& t : blocked) {
    StackWalk cw;
    cw.unwinder = orc.unwinder;
    cw.state.cpu = -1;
    cw.state.task = t.task;
    cw.state.pid = t.pid;
    cw.state.comm = t.comm;
    cw.state.sp = t.thread_sp;
    cw.state.registers_from = "the inactive_task_frame at task->thread.sp (switched out)";
    const StackRange task_stack{StackKind::Task, "", t.stack, t.stack + layout.thread_size};
    cw.state.stacks.push_back(task_stack);
    cw.state.sp_stack = task_stack.contains(t.thread_sp) ? "task" : "unknown";
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
        in.stacks.push_back(task_stack);
        in.orc = &orc.table;
        in.is_kernel_text = is_text;
        in.blocked_scan_from = t.thread_sp;
        // (Verified against the kernel's own prints of hung tasks on ORC, frame-pointer and
        // guess kernels: the 6.18 labs and their variants.)
        in.unwinder = orc.unwinder;
        in.code_frames = code_frames;
        take(cw, walk_stacks(m, in));
      }
    }
    out.tasks.push_back(std::move(cw));
  }
  return out;
}

}  // namespace btaudit
