"""Reads and patches an x86-64 ELF vmcore (a /proc/vmcore copy or QEMU's
dump-guest-memory) the way the hostile tests need it: its program headers and
notes with their file offsets, VMCOREINFO, and kernel virtual addresses
turned into file offsets through the dump's own page tables (4-level, as
VMCOREINFO's init_top_pgt and phys_base give them). Python standard library
only; written from the ELF and x86-64 paging definitions, not from btaudit."""

import mmap
import struct

PT_LOAD, PT_NOTE = 1, 4
NT_PRSTATUS = 1
START_KERNEL_MAP = 0xFFFFFFFF80000000
PRSTATUS_REGS = 112  # offsetof(struct elf_prstatus, pr_reg) on x86-64
USER_REGS = ["r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8", "rax", "rcx", "rdx", "rsi",
             "rdi", "orig_rax", "rip", "cs", "eflags", "rsp", "ss"]


class ElfVmcore:
    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            self.header = f.read(64)
            if self.header[:4] != b"\x7fELF" or self.header[4] != 2:
                raise ValueError(f"{path}: not an ELF64 file")
            self.phoff, = struct.unpack_from("<Q", self.header, 32)
            self.phnum, = struct.unpack_from("<H", self.header, 56)
            f.seek(self.phoff)
            table = f.read(56 * self.phnum)
            self.segments = []  # (index, type, offset, vaddr, paddr, filesz)
            for i in range(self.phnum):
                p_type, _flags, off, vaddr, paddr, filesz, _memsz, _align = struct.unpack_from("<IIQQQQQQ", table, 56 * i)
                self.segments.append((i, p_type, off, vaddr, paddr, filesz))
            self.notes = []  # (segment index, name, type, header file offset, desc file offset, descsz)
            for i, p_type, off, _v, _p, filesz in self.segments:
                if p_type != PT_NOTE:
                    continue
                f.seek(off)
                data = f.read(filesz)
                pos = 0
                while pos + 12 <= len(data):
                    namesz, descsz, ntype = struct.unpack_from("<III", data, pos)
                    desc = pos + 12 + ((namesz + 3) & ~3)
                    if desc + descsz > len(data):
                        break
                    name = data[pos + 12:pos + 12 + namesz].rstrip(b"\0").decode("latin-1")
                    self.notes.append((i, name, ntype, off + pos, off + desc, descsz))
                    pos = desc + ((descsz + 3) & ~3)
        self.vmcoreinfo = {}
        for _i, name, _t, _h, desc, size in self.notes:
            if name == "VMCOREINFO":
                for line in self.read(desc, size).decode("latin-1").splitlines():
                    key, _, value = line.partition("=")
                    self.vmcoreinfo[key] = value

    def read(self, offset, size):
        with open(self.path, "rb") as f:
            f.seek(offset)
            return f.read(size)

    def write(self, offset, data):
        with open(self.path, "r+b") as f:
            f.seek(offset)
            f.write(data)

    def prstatus_notes(self):
        return [n for n in self.notes if n[1] == "CORE" and n[2] == NT_PRSTATUS]

    def register_offset(self, cpu, reg):
        """The file offset of a register in the cpu-th NT_PRSTATUS note."""
        return self.prstatus_notes()[cpu][4] + PRSTATUS_REGS + 8 * USER_REGS.index(reg)

    def phys_offset(self, paddr):
        for _i, p_type, off, _vaddr, seg_paddr, filesz in self.segments:
            if p_type == PT_LOAD and seg_paddr <= paddr < seg_paddr + filesz:
                return off + paddr - seg_paddr
        return None

    def _phys_u64(self, paddr):
        off = self.phys_offset(paddr)
        return None if off is None else struct.unpack("<Q", self.read(off, 8))[0]

    def virt_to_phys(self, vaddr):
        """Through the kernel's page tables (init_top_pgt), 4-level, 1 GiB and 2 MiB pages included."""
        if self.vmcoreinfo.get("NUMBER(pgtable_l5_enabled)", "0") != "0":
            raise ValueError(f"{self.path}: 5-level paging is not handled here")
        phys_base = int(self.vmcoreinfo.get("NUMBER(phys_base)", "0"))
        pgd = int(self.vmcoreinfo["SYMBOL(init_top_pgt)"], 16) - START_KERNEL_MAP + phys_base
        table = pgd
        for level, shift in enumerate((39, 30, 21, 12)):
            entry = self._phys_u64(table + 8 * ((vaddr >> shift) & 511))
            if entry is None or not entry & 1:
                return None
            frame = entry & 0x000FFFFFFFFFF000
            if level in (1, 2) and entry & 0x80:  # a huge page
                return (frame & ~((1 << shift) - 1)) + (vaddr & ((1 << shift) - 1))
            table = frame
        return table + (vaddr & 0xFFF)

    def virt_offset(self, vaddr):
        paddr = self.virt_to_phys(vaddr)
        return None if paddr is None else self.phys_offset(paddr)


def symbol_address(vmlinux, name):
    """A symbol's link address in vmlinux's .symtab (ELF64)."""
    with open(vmlinux, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        return _symbol_in(data, vmlinux, name)


def _symbol_in(data, vmlinux, name):
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum, _shstrndx = struct.unpack_from("<HHH", data, 58)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    want = name.encode() + b"\0"
    for sh_name, sh_type, _f, _a, off, size, link, _info, _al, entsize in sections:
        if sh_type != 2:  # SHT_SYMTAB
            continue
        strtab_off = sections[link][4]
        for k in range(size // entsize):
            st_name, _info, _other, _shndx, value, _size = struct.unpack_from("<IBBHQQ", data, off + k * entsize)
            if st_name and data[strtab_off + st_name:strtab_off + st_name + len(want)] == want:
                return value
    raise KeyError(f"{vmlinux}: no symbol {name}")
