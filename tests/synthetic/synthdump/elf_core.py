"""Writes an x86-64 ELF vmcore as the kernel's /proc/vmcore presents one:
ET_CORE, one PT_NOTE with an NT_PRSTATUS note per CPU and the VMCOREINFO
note, and one PT_LOAD per segment with its kernel virtual and physical
address. libkdumpfile reads a kernel virtual address straight from the
PT_LOAD whose p_vaddr range holds it, and walks the page tables otherwise
(see paging.py)."""

import struct

PT_LOAD, PT_NOTE = 1, 4
NT_PRSTATUS = 1
EM_X86_64 = 62
PAGE = 4096

# struct user_regs_struct order in elf_prstatus.pr_reg.
PR_REGS = ("r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8", "rax", "rcx", "rdx", "rsi", "rdi",
           "orig_rax", "rip", "cs", "rflags", "rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs", "gs")


def note(name, ntype, desc):
    n = name.encode() + b"\0"
    pad = lambda b: b + bytes(-len(b) % 4)
    return struct.pack("<III", len(n), len(desc), ntype) + pad(n) + pad(desc)


def prstatus(pid, regs):
    """struct elf_prstatus on x86-64: 336 bytes, pr_pid at 32, pr_reg at 112."""
    desc = bytearray(336)
    struct.pack_into("<i", desc, 32, pid)
    defaults = {"cs": 0x10, "ss": 0x18, "rflags": 0x46}
    for i, r in enumerate(PR_REGS):
        struct.pack_into("<Q", desc, 112 + 8 * i, regs.get(r, defaults.get(r, 0)))
    return note("CORE", NT_PRSTATUS, bytes(desc))


def vmcoreinfo(lines):
    text = "".join(f"{k}={v}\n" for k, v in lines.items())
    return note("VMCOREINFO", 0, text.encode())


def write_core(path, segments, notes):
    """segments: [(vaddr, paddr, bytes)], page aligned; notes: encoded notes."""
    note_blob = b"".join(notes)
    phnum = 1 + len(segments)
    ehsize, phentsize = 64, 56
    offset = ehsize + phnum * phentsize
    headers = [struct.pack("<IIQQQQQQ", PT_NOTE, 0, offset, 0, 0, len(note_blob), 0, 0)]
    offset += len(note_blob)
    offset += -offset % PAGE
    body_offsets = []
    for vaddr, paddr, data in segments:
        headers.append(struct.pack("<IIQQQQQQ", PT_LOAD, 7, offset, vaddr, paddr, len(data), len(data), PAGE))
        body_offsets.append(offset)
        offset += len(data) + (-len(data) % PAGE)
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    eh = ident + struct.pack("<HHIQQQIHHHHHH", 4, EM_X86_64, 1, 0, ehsize, 0, 0, ehsize, phentsize, phnum, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(eh)
        f.write(b"".join(headers))
        f.write(note_blob)
        for (_vaddr, _paddr, data), off in zip(segments, body_offsets):
            f.seek(off)
            f.write(data)
        f.truncate(offset)
