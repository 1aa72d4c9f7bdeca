"""The synthetic dumps' scenarios. Each plants the stacks of a crash on a
Machine and returns what a correct walk of each CPU shows: the stacks in
walk order with the SP each is scanned from, the backlinks followed, the
RIP lines (CPU registers, then each pt_regs), the IRQ state, and the
problems the walk must report (none unless listed)."""

from synthdump import contexts as ctx
from synthdump.stacks import STALE


class Expect:
    def __init__(self, walk, transitions=(), rips=(), sp_stack="task", in_use=False, problems=()):
        self.walk = walk  # [(Stack, first scanned address)]
        self.transitions = list(transitions)  # [(from, to, slot, value)]
        self.rips = list(rips)  # functions of the RIP lines, in walk order
        self.sp_stack = sp_stack
        self.in_use = in_use  # hardirq_stack_inuse, or irq_count != -1 (True/False), or an irq_count value
        self.problems = list(problems)  # substrings each reported problem must match, in order


def ret(m, caller, callee, nth=0):
    return m.image.return_address(caller, callee, nth)


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
    backlink = irq.stack.get(irq.stack.top - 8)
    rbp = irq.chain(ctx.irq_handlers(first) + ctx.PANIC_PATH, rbp)
    ctx.set_regs(c0, crashed_in_kexec(m), irq, rbp)
    m.set_irq_state(c0, True)
    e0 = Expect([(irq.stack, irq.sp), (t.stack, backlink)], [("irq", "task", irq.stack.top - 8, backlink)],
                ["__crash_kexec", "native_safe_halt"], "irq", True)
    _task, b, rbp, _ = process_cpu(m, c1)
    ctx.set_regs(c1, ret(m, "lab_wait", "crash_save_cpu"), b, rbp)
    e1 = Expect([(b.stack, b.sp)], rips=["lab_wait"])
    return {0: e0, 1: e1}


SCENARIOS = {"irq_over_idle": irq_over_idle}
