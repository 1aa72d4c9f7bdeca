"""Kernel stacks built word by word, top down, as the code that ran would have
left them: frame-pointer frames (return address, saved RBP, locals), pt_regs
of interrupts, and stale text addresses in locals. Every text address planted
is recorded with what the kernel's trace would make of it, so a scenario's
expected walk is what was planted, not what btaudit computes."""

import struct

RELIABLE, STALE, REGS_IP = "reliable", "stale", "regs"
PT_REGS_SIZE = 168
PT_REGS = ("r15", "r14", "r13", "r12", "bp", "bx", "r11", "r10", "r9", "r8", "ax", "cx", "dx", "si", "di",
           "orig_ax", "ip", "cs", "flags", "sp", "ss")


class Stack:
    """One stack area: [base, base + size), its bytes, and the text words planted on it."""

    def __init__(self, kind, name, base, size):
        self.kind, self.name, self.base, self.size = kind, name, base, size
        self.top = base + size
        self.end = self.top  # where the kernel's stack ends: top - 64 for <=4.8's IRQ stack
        self.data = bytearray(size)
        self.planted = {}  # slot -> (value, RELIABLE | STALE | REGS_IP)

    def label(self):
        return self.name or self.kind

    def put(self, addr, value, what=None):
        if not self.base <= addr <= self.top - 8:
            raise ValueError(f"{addr:#x} is not on the {self.label()} stack")
        struct.pack_into("<Q", self.data, addr - self.base, value)
        if what:
            self.planted[addr] = (value, what)
        else:
            self.planted.pop(addr, None)

    def get(self, addr):
        return struct.unpack_from("<Q", self.data, addr - self.base)[0]

    def mark_stale_above(self, slot):
        """After an unwinder failure the kernel prints every later word with '?'."""
        for a, (v, what) in list(self.planted.items()):
            if a > slot and what == RELIABLE:
                self.planted[a] = (v, STALE)


class Builder:
    """Pushes onto one stack from a given stack pointer, as calls and entries do."""

    def __init__(self, code, stack, sp=None):
        """code: what resolves return addresses (the Machine: kernel and module text)."""
        self.code, self.stack = code, stack
        self.sp = stack.end if sp is None else sp

    def push(self, value, what=None):
        self.sp -= 8
        self.stack.put(self.sp, value, what)
        return self.sp

    def ret(self, caller, callee, nth=0):
        return self.code.return_address(caller, callee, nth)

    def call(self, caller, callee, rbp, stale=(), nth=0):
        """caller calls callee: the return address, then callee's frame (saved
        RBP, then its locals: each `stale` word is text left by an older call).
        Returns callee's RBP."""
        self.push(self.ret(caller, callee, nth), RELIABLE)
        frame = self.push(rbp)
        for word in stale:
            self.push(word, STALE)
        self.push(0)  # a local that is no text address
        return frame

    def chain(self, names, rbp, stale=None):
        """names[0] calls names[1] calls ...; returns the innermost RBP."""
        stale = stale or {}
        for caller, callee in zip(names, names[1:]):
            rbp = self.call(caller, callee, rbp, stale.get(callee, ()))
        return rbp

    def pt_regs(self, ip, sp, bp, user=False, ip_what=REGS_IP):
        """An interrupt or exception frame: hardware aligns RSP to 16 and pushes
        the iret frame, the entry code the rest of struct pt_regs. ip_what: how a
        trace shows regs->ip (a RIP line, or a '?' word where the unwinder cannot
        find the regs)."""
        self.sp &= ~15
        regs = {"ip": ip, "sp": sp, "bp": bp, "cs": 0x33 if user else 0x10, "ss": 0x2B if user else 0x18,
                "flags": 0x246, "orig_ax": 0xFFFFFFFFFFFFFFFF}
        self.sp -= PT_REGS_SIZE
        for i, name in enumerate(PT_REGS):
            self.stack.put(self.sp + 8 * i, regs.get(name, 0), ip_what if name == "ip" and not user else None)
        return self.sp
