"""What the kernel's code leaves on the stacks, era by era: a process in a
system call, an idle task, an interrupt entry (with the era's stack switch
and backlink), softirqs at IRQ exit, NMI and double-fault entries. Each
returns the innermost RBP and the name of the function that owns it, so
calls can go on from there."""

from .stacks import REGS_IP, RELIABLE, STALE

IRQ_HANDLER_PATH = ["handle_edge_irq", "handle_irq_event", "__handle_irq_event_percpu"]
PANIC_PATH = ["lab_irq_handler", "panic", "__crash_kexec"]
USER_IP, USER_SP = 0x7F0000001234, 0x7FFC00001000


def process_in_syscall(m, b, inner=("lab_write", "lab_wait")):
    """User pt_regs at the stack's top, entry_SYSCALL_64 down to `inner`, with
    stale return addresses of calls that already returned (printed with '?')."""
    img = m.image
    b.pt_regs(USER_IP, USER_SP, 0, user=True)
    stale = {
        "vfs_write": [img.return_address("__x64_sys_fcntl", "do_fcntl"),
                      img.return_address("exit_to_user_mode_prepare", "do_fcntl")],
        "do_syscall_64": [img.return_address("do_syscall_64", "exit_to_user_mode_prepare")],
    }
    names = ["entry_SYSCALL_64", "do_syscall_64", "ksys_write", "vfs_write", *inner]
    return b.chain(names, 0, stale), names[-1]


def idle(m, b):
    names = ["secondary_startup_64", "start_secondary", "cpu_startup_entry", "do_idle", "default_idle_call",
             "native_safe_halt"]
    return b.chain(names, 0, {"do_idle": [m.image.return_address("do_idle", "default_idle_call")]}), names[-1]


def halted_ip(m):
    return m.image.address_after("native_safe_halt", b"\xfb\xf4")  # after "sti; hlt"


def regs_ip(m):
    return REGS_IP if m.regs_visible else STALE


def entry_rbp(m, regs, rbp):
    """The RBP an entry stub hands to C: with frame pointers and no ORC,
    ENCODE_FRAME_POINTER makes it the pt_regs' address + 1 (4.10+)."""
    return regs | 1 if m.encoded_fp else rbp


def interrupt(m, cpu, b, ip, rbp, nested=False, softirq=False):
    """An interrupt at ip with RBP rbp on b's stack: pt_regs there, then the
    era's switch to the IRQ stack (unless nested: the IRQ stack is already
    in use and the handler stays on it). With softirq, the hardirq part has
    returned and the IRQ exit path runs softirqs on the IRQ stack.
    Returns (builder, rbp, function that owns rbp)."""
    img = m.image
    regs = b.pt_regs(ip, b.sp, rbp, ip_what=regs_ip(m))
    if m.call_on_stack and not nested and not softirq:
        # 5.8-5.11: asm_call_irq_on_stack saves RBP, stores its RSP in the IRQ
        # stack's top word and calls the handler there: the backlink is its frame.
        frame = b.call("asm_common_interrupt", "common_interrupt", entry_rbp(m, regs, rbp))
        b.push(m.return_address("common_interrupt", "asm_call_irq_on_stack"), RELIABLE)
        helper = b.push(frame)
        irq = m.builder(cpu.irq_stack)
        irq.push(helper)
        return irq, helper, "asm_call_irq_on_stack"
    if m.era <= 2:
        # ENTER_IRQ_STACK: the old RSP (the pt_regs pointer) at the IRQ stack's
        # top word, pushed again as that same word when switching; a nested
        # entry pushes it where it is (irq_count > 0).
        irq = b if nested else m.builder(cpu.irq_stack)
        irq.push(regs)
        frame = irq.call("common_interrupt", "do_IRQ", entry_rbp(m, regs, rbp))
        if softirq:  # do_IRQ calls irq_exit after handle_irq returned
            frame = irq.call("do_IRQ", "irq_exit", frame, [img.return_address("do_IRQ", "handle_irq")])
            return irq, frame, "irq_exit"
        return irq, frame, "do_IRQ"
    frame = b.call("asm_common_interrupt", "common_interrupt", entry_rbp(m, regs, rbp))
    if nested:
        # hardirq_stack_inuse: common_interrupt calls the handler on this stack.
        return b, b.call("common_interrupt", "__common_interrupt", frame, nth=1), "__common_interrupt"
    # call_on_irqstack(): the word at hardirq_stack_ptr gets common_interrupt's
    # RSP, then RSP = hardirq_stack_ptr and the calls push right below it.
    irq = m.builder(cpu.irq_stack)
    irq.push(b.sp)
    if softirq:  # __common_interrupt returned; its return address is residue in irq_exit_rcu's frame
        old = img.return_address("common_interrupt", "__common_interrupt")
        return irq, irq.call("common_interrupt", "irq_exit_rcu", frame, [old]), "irq_exit_rcu"
    return irq, irq.call("common_interrupt", "__common_interrupt", frame), "__common_interrupt"


def irq_handlers(first):
    """The calls from the IRQ stack's first function down to __handle_irq_event_percpu."""
    if first == "asm_call_irq_on_stack":
        return [first] + IRQ_HANDLER_PATH
    return ([first, "handle_irq"] if first == "do_IRQ" else [first]) + IRQ_HANDLER_PATH


def softirq_handlers(first):
    return ([first] if first == "irq_exit" else [first, "__irq_exit_rcu"]) + [
        "__do_softirq", "net_rx_action", "lab_softirq_fn"]


def exception_entry(m, stack, asm_entry, handler, ip, sp, rbp):
    """An IST exception (NMI, #DF): the CPU switched to the IST stack, whose
    top holds pt_regs of the interrupted context; the entry calls the handler."""
    b = m.builder(stack)
    regs = b.pt_regs(ip, sp, rbp, ip_what=regs_ip(m))
    return b, b.call(asm_entry, handler, entry_rbp(m, regs, rbp)), handler


def set_regs(cpu, ip, b, rbp):
    cpu.regs = {"rip": ip, "rsp": b.sp, "rbp": rbp}
