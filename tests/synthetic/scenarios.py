"""The synthetic dumps' scenarios. Each plants the stacks of a crash on a
Machine and returns what a correct walk of each CPU shows: the stacks in
walk order with the SP each is scanned from, the backlinks followed, the
RIP lines (CPU registers, then each pt_regs), the IRQ state, and the
problems the walk must report (none unless listed)."""

from synthdump import contexts as ctx
from synthdump.stacks import REGS_IP, RELIABLE

# A stack's label -> the frame's stack and exception name in btaudit's JSON, and its trace marker.
FRAME_STACK = {"task": ("task", None, "TASK"), "irq": ("irq", None, "IRQ"), "NMI": ("nmi", "NMI", "NMI"),
               "#DF": ("exception", "#DF", "#DF")}


class Expect:
    def __init__(self, walk, transitions=(), rips=(), sp_stack="task", in_use=False, problems=(), reasons=None):
        self.reasons = reasons or {}  # planted value -> the reason its frame must carry
        self.walk = walk  # [(Stack, first scanned address)]
        self.transitions = list(transitions)  # [(from, to, slot, value)]
        self.rips = list(rips)  # functions of the RIP lines, in walk order
        self.sp_stack = sp_stack
        self.in_use = in_use  # hardirq_stack_inuse, or irq_count != -1 (True/False), or an irq_count value
        self.problems = list(problems)  # substrings each reported problem must match, in order

    def frames(self, m):
        """The walk's frames, in order: every text word planted from each stack's first
        scanned address up (pt_regs' RIPs are RIP lines, not frames)."""
        out = []
        for stack, start in self.walk:
            for slot in sorted(stack.planted):
                value, what = stack.planted[slot]
                if slot < start or what == REGS_IP:
                    continue
                kind, exc, _marker = FRAME_STACK[stack.label()]
                fn, fn_at, module = m.symbolize(value - 1)  # %pB: a return address names its call's function
                out.append({"function": fn, "offset": value - fn_at, "module": module,
                            "reliable": what == RELIABLE, "stack": kind, "exception": exc, "slot": slot})
        return out

    def printed_trace(self, m):
        """The Call Trace lines the kernel prints for this walk (5.16+ markers)."""
        lines, marker = [], None
        for stack, _start in self.walk:
            lines += [f" </{marker}>"] if marker else []
            marker = FRAME_STACK[stack.label()][2]
            lines.append(f" <{marker}>")
            for f in self.frames(m):
                if f["slot"] < stack.base or f["slot"] >= stack.top:
                    continue
                module = f" [{f['module']}]" if f["module"] else ""
                lines.append(f" {'' if f['reliable'] else '? '}{f['function']}+{f['offset']:#x}/"
                             f"{m.function_size(f['function']):#x}{module}")
        return lines + [f" </{marker}>"]


def ret(m, caller, callee, nth=0):
    return m.return_address(caller, callee, nth)


def crashed_in_kexec(m):
    return ret(m, "__crash_kexec", "crash_save_cpu")


def process_cpu(m, cpu, pid=97, comm="sh", inner=("lab_write", "lab_wait")):
    """A CPU whose registers are those of a process waiting in lab_wait."""
    task = m.new_task(pid, comm)
    m.set_current(cpu, task)
    b = m.builder(task.stack)
    rbp, fn = ctx.process_in_syscall(m, b, inner)
    return task, b, rbp, fn


def irq_over_idle(m):
    """CPU 0: the idle task (init_task on init_stack) halted, an interrupt on
    the IRQ stack panics. CPU 1: a process in a system call, on its task stack."""
    c0, c1 = m.cpus
    idle = m.new_task(0, "swapper/0", idle_of=0)
    m.set_current(c0, idle)
    t = m.builder(idle.stack)
    rbp, _ = ctx.idle(m, t)
    irq, rbp, first = ctx.interrupt(m, c0, t, ctx.halted_ip(m), rbp)
    backlink = irq.stack.get(irq.stack.end - 8)
    rbp = irq.chain(ctx.irq_handlers(first) + ctx.PANIC_PATH, rbp)
    ctx.set_regs(c0, crashed_in_kexec(m), irq, rbp)
    m.set_irq_state(c0, True)
    e0 = Expect([(irq.stack, irq.sp), (t.stack, backlink)], [("irq", "task", irq.stack.end - 8, backlink)],
                ["__crash_kexec"] + (["native_safe_halt"] if m.regs_visible else []), "irq", True)
    _task, b, rbp, _ = process_cpu(m, c1)
    ctx.set_regs(c1, ret(m, "lab_wait", "crash_save_cpu"), b, rbp)
    e1 = Expect([(b.stack, b.sp)], rips=["lab_wait"])
    return {0: e0, 1: e1}


def panic_in_irq_over_process(m, cpu):
    """A process interrupted in lab_wait; the interrupt handler panics on the
    IRQ stack. Returns the IRQ-stack builder, the task builder and the backlink."""
    _task, t, rbp, _ = process_cpu(m, cpu)
    irq, rbp, first = ctx.interrupt(m, cpu, t, ret(m, "lab_wait", "crash_save_cpu"), rbp)
    rbp = irq.chain(ctx.irq_handlers(first) + ctx.PANIC_PATH, rbp)
    ctx.set_regs(cpu, crashed_in_kexec(m), irq, rbp)
    m.set_irq_state(cpu, True)
    return irq, t, irq.stack.get(irq.stack.end - 8)


def idle_cpu(m, cpu, pid=0):
    """A second CPU in its idle task, on its task stack."""
    task = m.new_task(pid, f"swapper/{cpu.index}")
    m.set_current(cpu, task)
    b = m.builder(task.stack)
    rbp, _ = ctx.idle(m, b)
    ctx.set_regs(cpu, ctx.halted_ip(m), b, rbp)
    return Expect([(b.stack, b.sp)], rips=["native_safe_halt"])


def nested_panic(m, softirq):
    """A second interrupt while the first one's handler (or the softirqs run at
    its exit) is on the IRQ stack: the stack is in use (irq_count 1 /
    hardirq_stack_inuse), so the second entry leaves its pt_regs on the IRQ
    stack itself, does not switch, and its handler panics."""
    c0, c1 = m.cpus
    _task, t, rbp, _ = process_cpu(m, c0)
    irq, rbp, first = ctx.interrupt(m, c0, t, ret(m, "lab_wait", "crash_save_cpu"), rbp, softirq=softirq)
    backlink = irq.stack.get(irq.stack.end - 8)
    names = ctx.softirq_handlers(first) if softirq else ctx.irq_handlers(first) + ["lab_irq_spin"]
    rbp = irq.chain(names, rbp)
    irq, rbp, first = ctx.interrupt(m, c0, irq, m.image.sym(names[-1]) + 4, rbp, nested=True)
    rbp = irq.chain(ctx.irq_handlers(first) + ctx.PANIC_PATH, rbp)
    ctx.set_regs(c0, crashed_in_kexec(m), irq, rbp)
    m.set_irq_state(c0, True, count=1)
    e0 = Expect([(irq.stack, irq.sp), (t.stack, backlink)], [("irq", "task", irq.stack.end - 8, backlink)],
                ["__crash_kexec", names[-1], "lab_wait"], "irq", 1 if m.era <= 2 else True)
    return {0: e0, 1: idle_cpu(m, c1)}


def nested_irq(m):
    return nested_panic(m, softirq=False)


def irq_over_softirq(m):
    return nested_panic(m, softirq=True)


def nmi_over_irq(m):
    """CPU 0 panics in an interrupt over a process; CPU 1, stuck in an IRQ
    handler over its idle task, is stopped by the crash NMI: NMI stack ->
    pt_regs -> IRQ stack -> backlink -> task stack."""
    c0, c1 = m.cpus
    irq0, t0, backlink0 = panic_in_irq_over_process(m, c0)
    e0 = Expect([(irq0.stack, irq0.sp), (t0.stack, backlink0)], [("irq", "task", irq0.stack.end - 8, backlink0)],
                ["__crash_kexec", "lab_wait"], "irq", True)
    idle = m.new_task(0, "swapper/1")
    m.set_current(c1, idle)
    t = m.builder(idle.stack)
    rbp, _ = ctx.idle(m, t)
    irq, rbp, first = ctx.interrupt(m, c1, t, ctx.halted_ip(m), rbp)
    backlink = irq.stack.get(irq.stack.end - 8)
    rbp = irq.chain(ctx.irq_handlers(first), rbp)
    rbp = irq.call("__handle_irq_event_percpu", "lab_irq_spin", rbp)
    spin_ip = m.image.sym("lab_irq_spin") + 4
    nmi_stack = c1.exception_stacks["NMI"]
    nmi, rbp, fn = ctx.exception_entry(m, nmi_stack, "asm_exc_nmi", "exc_nmi", spin_ip, irq.sp, rbp)
    rbp = nmi.chain([fn, "default_do_nmi", "nmi_handle", "crash_nmi_callback"], rbp)
    ctx.set_regs(c1, ret(m, "crash_nmi_callback", "crash_save_cpu"), nmi, rbp)
    m.set_irq_state(c1, True)
    next_sp = nmi_stack.top - 168 + 152  # pt_regs->sp of the regs at the NMI stack's top
    e1 = Expect([(nmi.stack, nmi.sp), (irq.stack, irq.sp), (t.stack, backlink)],
                [("NMI", "irq", next_sp, irq.sp), ("irq", "task", irq.stack.end - 8, backlink)],
                ["crash_nmi_callback", "lab_irq_spin", "native_safe_halt"], "NMI", True)
    return {0: e0, 1: e1}


def double_fault(m):
    """A runaway recursion double-faults: #DF stack -> its pt_regs -> the task stack."""
    c0, c1 = m.cpus
    _task, t, rbp, _ = process_cpu(m, c0, inner=("lab_write", "lab_recurse", "lab_recurse", "lab_recurse"))
    fault_ip = ret(m, "lab_recurse", "lab_recurse") - 5  # the call whose push faulted
    fault_sp = t.sp
    df_stack = c0.exception_stacks["#DF"]
    df, rbp, fn = ctx.exception_entry(m, df_stack, "asm_exc_double_fault", "exc_double_fault", fault_ip, t.sp, rbp)
    rbp = df.chain([fn, "panic", "__crash_kexec"], rbp)
    ctx.set_regs(c0, crashed_in_kexec(m), df, rbp)
    next_sp = df_stack.top - 168 + 152
    e0 = Expect([(df.stack, df.sp), (t.stack, fault_sp)], [("#DF", "task", next_sp, fault_sp)],
                ["__crash_kexec", "lab_recurse"], "#DF")
    return {0: e0, 1: idle_cpu(m, c1)}


def stack_overflow(m):
    """A runaway recursion fills the task stack; the next frame's locals land in
    the guard page below it and the fault becomes a #DF: its pt_regs->sp is in
    the guard page, and the walk goes on at the stack's bottom, as the kernel
    retries at the next page."""
    c0, c1 = m.cpus
    _task, t, rbp, _ = process_cpu(m, c0, inner=("lab_write", "lab_recurse"))
    while t.sp - 24 >= t.stack.base:
        rbp = t.call("lab_recurse", "lab_recurse", rbp)
    fault_sp = t.stack.base - 16
    fault_ip = ret(m, "lab_recurse", "lab_recurse") - 5
    df_stack = c0.exception_stacks["#DF"]
    df, rbp, fn = ctx.exception_entry(m, df_stack, "asm_exc_double_fault", "exc_double_fault", fault_ip, fault_sp,
                                      rbp)
    rbp = df.chain([fn, "panic", "__crash_kexec"], rbp)
    ctx.set_regs(c0, crashed_in_kexec(m), df, rbp)
    next_sp = df_stack.top - 168 + 152
    e0 = Expect([(df.stack, df.sp), (t.stack, t.stack.base)], [("#DF", "task", next_sp, fault_sp)],
                ["__crash_kexec", "lab_recurse"], "#DF")
    return {0: e0, 1: idle_cpu(m, c1)}


def irq_in_module(m):
    """The interrupt handler is a module's: its frames on the IRQ stack are
    found with the module's ORC and named by the module's kallsyms."""
    c0, c1 = m.cpus
    m.add_module("labmod", [("labmod_irq_handler", ["labmod_report"]), ("labmod_report", ["panic"])])
    _task, t, rbp, _ = process_cpu(m, c0)
    irq, rbp, first = ctx.interrupt(m, c0, t, ret(m, "lab_wait", "crash_save_cpu"), rbp)
    backlink = irq.stack.get(irq.stack.end - 8)
    rbp = irq.chain(ctx.irq_handlers(first), rbp)
    rbp = irq.call("__handle_irq_event_percpu", "lab_irq_handler", rbp)  # action->handler(): labmod_irq_handler
    rbp = irq.chain(["labmod_irq_handler", "labmod_report", "panic", "__crash_kexec"], rbp)
    ctx.set_regs(c0, crashed_in_kexec(m), irq, rbp)
    m.set_irq_state(c0, True)
    e0 = Expect([(irq.stack, irq.sp), (t.stack, backlink)], [("irq", "task", irq.stack.end - 8, backlink)],
                ["__crash_kexec", "lab_wait"], "irq", True)
    return {0: e0, 1: idle_cpu(m, c1)}


def panic_log(m):
    """irq_over_process with the kernel's log in the dump: the panic report
    and its Call Trace, printed as the walk finds the stacks. `vmcore log`
    must give the lines back and `analyze` must match every printed frame
    from panic() down with the walk."""
    c0, c1 = m.cpus
    irq, t, backlink = panic_in_irq_over_process(m, c0)
    e0 = Expect([(irq.stack, irq.sp), (t.stack, backlink)], [("irq", "task", irq.stack.end - 8, backlink)],
                ["__crash_kexec", "lab_wait"], "irq", True)
    why = "Kernel panic - not syncing: synthetic: panic in an interrupt handler"
    lines = [why, f"CPU: 0 PID: 97 Comm: sh Not tainted {m.vmcoreinfo()['OSRELEASE']} #1",
             "Hardware name: synthetic machine", "Call Trace:", *e0.printed_trace(m), "Kernel Offset: disabled",
             f"---[ end {why} ]---"]
    m.write_log(lines, caller_pid=97)
    return {0: e0, 1: idle_cpu(m, c1), "log": lines}


def function_pointer(m):
    """6.2+ call padding: a callback pointer left in a local is a function's first
    byte, which %pB names after the padding before it -- the kernel prints
    "? __pfx_lab_wait+0x10/0x10" -- and which no call precedes: function_start."""
    c0, c1 = m.cpus
    task = m.new_task(97, "sh")
    m.set_current(c0, task)
    b = m.builder(task.stack)
    b.pt_regs(ctx.USER_IP, ctx.USER_SP, 0, user=True)
    pointer = m.image.sym("lab_wait")
    names = ["entry_SYSCALL_64", "do_syscall_64", "ksys_write", "vfs_write", "lab_write", "lab_wait"]
    rbp = b.chain(names, 0, {"vfs_write": [pointer]})
    ctx.set_regs(c0, ret(m, "lab_wait", "crash_save_cpu"), b, rbp)
    return {0: Expect([(b.stack, b.sp)], rips=["lab_wait"], reasons={pointer: "function_start"}), 1: idle_cpu(m, c1)}


def stale_backlink(m):
    """An interrupt came and went: the IRQ stack keeps its frames and its top
    word (never cleared), but the CPU is back on its task stack and the
    in-use state says free. Nothing on the IRQ stack may be walked."""
    c0, c1 = m.cpus
    irq, _t, _backlink = panic_in_irq_over_process(m, c0)
    _task, b, rbp, _ = process_cpu(m, c0, pid=98, comm="later")  # the task running now
    ctx.set_regs(c0, ret(m, "lab_wait", "crash_save_cpu"), b, rbp)
    m.set_irq_state(c0, False)
    e0 = Expect([(b.stack, b.sp)], rips=["lab_wait"])
    return {0: e0, 1: idle_cpu(m, c1)}


def corrupted_backlink(m):
    """The IRQ stack's top word points into no stack: the walk stops there,
    says so, and does not crash."""
    c0, c1 = m.cpus
    irq, _t, _backlink = panic_in_irq_over_process(m, c0)
    bogus = 0xFFFF8880DEAD0000
    irq.stack.put(irq.stack.end - 8, bogus)
    # The last IRQ-stack frame is still found; its caller's registers are behind the bad word.
    # (ORC finds them through the word at SP, ENTER_IRQ_STACK's UNWIND_HINT_REGS indirect; a
    # frame-pointer kernel through its encoded RBP; asm_call_irq_on_stack's frame through RBP.)
    problems = ["unwinder: can't access registers"] if m.era <= 2 and not (m.fp_kernel or m.call_on_stack) else []
    problems.append("the backlink leads to no known stack")
    e0 = Expect([(irq.stack, irq.sp)], [("irq", "unknown", irq.stack.end - 8, bogus)], ["__crash_kexec"], "irq",
                True, problems)
    return {0: e0, 1: idle_cpu(m, c1)}


def frame_loop(m):
    """Saved frame pointers that form a loop (lab_write's points back down to
    lab_wait's frame): the unwinder stops at the wrong-direction step instead of
    hanging, and every word above is printed with '?'."""
    c0, c1 = m.cpus
    _task, b, rbp, _ = process_cpu(m, c0)
    lab_write_rbp = b.stack.get(rbp)
    b.stack.put(lab_write_rbp, rbp)  # lab_write's saved RBP -> lab_wait's frame
    ctx.set_regs(c0, ret(m, "lab_wait", "crash_save_cpu"), b, rbp)
    b.stack.mark_stale_above(lab_write_rbp + 8)  # vfs_write's return slot is the last one reached
    e0 = Expect([(b.stack, b.sp)], rips=["lab_wait"], problems=["unwinder: stack going in the wrong direction"])
    return {0: e0, 1: idle_cpu(m, c1)}


def cpu_without_note(m):
    """Three CPUs, the middle one without a register note (offline, or it did
    not answer the crash NMI): the third CPU's registers are its own, not the
    second's, and the second is reported unwalked."""
    c0, c1, c2 = m.cpus
    irq, t, backlink = panic_in_irq_over_process(m, c0)
    e0 = Expect([(irq.stack, irq.sp), (t.stack, backlink)], [("irq", "task", irq.stack.end - 8, backlink)],
                ["__crash_kexec", "lab_wait"], "irq", True)
    m.set_current(c1, m.new_task(55, "hung"))
    e1 = Expect([], sp_stack="unknown", problems=["no registers for this CPU: not walked"])
    return {0: e0, 1: e1, 2: idle_cpu(m, c2), "notes": ["registers placed by the kernel's per-CPU crash_notes"]}


# name -> (the function that plants it, options: "kaslr" moves the kernel image
# by that KERNELOFFSET, "truncate" cuts the written dump (in half, or to that many bytes), "cpus" (2),
# "paged" (/proc/vmcore's layout with page tables), "compressed" (kdump-compressed),
# "kdump": False (empty crash_notes, as when QEMU dumps the guest), "vmcoreinfo_note": False (no
# VMCOREINFO in the file, as QEMU writes without a vmcoreinfo device: the kernel's copy in its memory)).
SCENARIOS = {
    "irq_over_idle": (irq_over_idle, {}),
    "irq_over_idle_kaslr": (irq_over_idle, {"kaslr": 0x2A000000}),
    "irq_over_idle_paged": (irq_over_idle, {"paged": True}),
    "nmi_over_irq_paged": (nmi_over_irq, {"paged": True, "kaslr": 0x1C000000}),
    "nmi_over_irq_compressed": (nmi_over_irq, {"compressed": True}),
    "nested_irq_compressed_qemu": (nested_irq, {"compressed": True, "kdump": False}),
    "nested_irq_compressed_qemu_no_vmcoreinfo": (nested_irq, {"compressed": True, "kdump": False,
                                                             "vmcoreinfo_note": False, "kaslr": 0x12000000}),
    "nmi_over_irq_paged_no_vmcoreinfo": (nmi_over_irq, {"paged": True, "kaslr": 0x1C000000, "vmcoreinfo_note": False}),
    "nested_irq": (nested_irq, {}),
    "irq_over_softirq": (irq_over_softirq, {}),
    "nmi_over_irq": (nmi_over_irq, {}),
    "double_fault": (double_fault, {}),
    "stack_overflow": (stack_overflow, {}),
    "panic_log": (panic_log, {}),
    "irq_in_module": (irq_in_module, {}),
    "irq_in_module_paged": (irq_in_module, {"paged": True, "kaslr": 0x6000000}),
    "function_pointer": (function_pointer, {}),
    "stale_backlink": (stale_backlink, {}),
    "corrupted_backlink": (corrupted_backlink, {}),
    "frame_loop": (frame_loop, {}),
    "cpu_without_note": (cpu_without_note, {"cpus": 3}),
    "truncated": (irq_over_idle, {"truncate": True}),
    "truncated_compressed": (irq_over_idle, {"truncate": True, "compressed": True}),
    "truncated_compressed_header": (irq_over_idle, {"truncate": 300, "compressed": True}),
}
