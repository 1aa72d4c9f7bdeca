"""The synthetic kernel's ELF file, read for the dump generator: its allocated
sections (copied into the dump as a real dump holds the kernel image), its
symbols, the synth_layout table of offsets, and return addresses found by
decoding the direct calls in its text."""

import struct

SHT_SYMTAB = 2
SHT_NOBITS = 8
SHF_ALLOC = 2
KERNEL_SPACE = 0xFFFF800000000000

# synth_layout[] in synthkernel.c, in order.
LAYOUT_FIELDS = (
    "era", "thread_size", "irq_stack_size", "exception_stksz",
    "task_stack", "task_pid", "task_comm",
    "cea_size", "cea_df", "cea_nmi",
    "pcpu_hot_current_task", "pcpu_hot_hardirq_stack_ptr", "pcpu_hot_hardirq_stack_inuse",
    "module_list", "module_name", "module_text_base", "module_text_size",
    "module_num_orcs", "module_orc_unwind_ip", "module_orc_unwind", "module_kallsyms",
    "kallsyms_symtab", "kallsyms_num_symtab", "kallsyms_strtab", "module_size", "irq_stack_gap",
    "orc_version",
)


class KernelImage:
    """Addresses it gives and takes are runtime ones: link address + kaslr for
    the kernel image (zero-based per-CPU symbols are offsets and never move;
    section-based ones, 6.15+, are image addresses and move with it)."""

    def __init__(self, path, kaslr=0):
        self.path = path
        self.kaslr = 0
        with open(path, "rb") as f:
            self.data = f.read()
        if self.data[:4] != b"\x7fELF" or self.data[4] != 2:
            raise ValueError(f"{path}: not an ELF64 file")
        shoff, = struct.unpack_from("<Q", self.data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", self.data, 0x3A)
        raw = [struct.unpack_from("<IIQQQQIIQQ", self.data, shoff + i * shentsize) for i in range(shnum)]
        names = raw[shstrndx]
        self.sections = []
        for (name, stype, flags, addr, offset, size, link, _info, _align, _entsize) in raw:
            sname = self._cstr(names[4] + name)
            self.sections.append({"name": sname, "type": stype, "flags": flags, "addr": addr,
                                  "offset": offset, "size": size, "link": link})
        self.symbols = {}
        for sec in self.sections:
            if sec["type"] != SHT_SYMTAB:
                continue
            strtab = self.sections[sec["link"]]["offset"]
            for i in range(sec["size"] // 24):
                name, _info, _other, shndx, value, size = struct.unpack_from("<IBBHQQ", self.data, sec["offset"] + i * 24)
                if name and shndx:
                    self.symbols.setdefault(self._cstr(strtab + name), (value, size))
        values = struct.unpack_from(f"<{len(LAYOUT_FIELDS)}Q", self.read(self.sym("synth_layout"), 8 * len(LAYOUT_FIELDS)))
        self.layout = dict(zip(LAYOUT_FIELDS, values))
        self.era = self.layout["era"]
        self.kaslr = kaslr
        banner = self.read(self.sym("linux_banner"), self.symbols["linux_banner"][1]).decode(errors="replace")
        self.release = banner.split()[2]  # "Linux version <release> ..."

    def _cstr(self, off):
        return self.data[off:self.data.index(b"\0", off)].decode()

    def sym(self, name):
        value = self.symbols[name][0]
        return value + self.kaslr if value >= KERNEL_SPACE else value

    def has(self, name):
        return name in self.symbols

    def section(self, name):
        return next(s for s in self.sections if s["name"] == name)

    def read(self, addr, size):
        """Bytes at a runtime address, from the section that holds them."""
        addr -= self.kaslr if addr >= KERNEL_SPACE else 0
        for s in self.sections:
            if s["flags"] & SHF_ALLOC and s["type"] != SHT_NOBITS and s["addr"] <= addr and addr + size <= s["addr"] + s["size"]:
                off = s["offset"] + addr - s["addr"]
                return self.data[off:off + size]
        raise KeyError(f"{addr:#x}: not in a section with contents")

    def kernel_sections(self):
        """(address, bytes) of every allocated section at a kernel address; .bss as zeros."""
        out = []
        for s in self.sections:
            if not s["flags"] & SHF_ALLOC or s["addr"] < KERNEL_SPACE or not s["size"]:
                continue
            body = bytes(s["size"]) if s["type"] == SHT_NOBITS else self.data[s["offset"]:s["offset"] + s["size"]]
            out.append((s["addr"] + self.kaslr, body))
        return out

    def percpu_template(self):
        s = self.section(".data..percpu")
        return self.data[s["offset"]:s["offset"] + s["size"]]

    def function_at(self, addr):
        """The function symbol holding addr (sized symbols, and the 16-byte __pfx_ padding
        symbols add_pfx_symbols.py gives eras 4 and 5 without a size)."""
        addr -= self.kaslr
        for name, (value, size) in self.symbols.items():
            size = size or (16 if name.startswith("__pfx_") else 0)
            if size and value <= addr < value + size and value >= KERNEL_SPACE:
                return name
        return None

    def kallsyms_size(self, name):
        """What the kernel prints as a function's size: the distance to the next symbol
        (kernel/kallsyms.c get_symbol_pos), padding symbols included."""
        start = self.symbols[name][0]
        following = [v for v, _size in self.symbols.values() if start < v <= self.symbols["_etext"][0]]
        return (min(following) if following else self.symbols["_etext"][0]) - start

    def function_bytes(self, name):
        addr = self.sym(name)
        return addr, self.read(addr, self.symbols[name][1])

    def return_address(self, caller, callee, nth=0):
        """The address after the nth direct call from caller to callee: what
        that call pushes. Decodes only E8 rel32 whose target is callee, so a
        chance E8 byte elsewhere cannot match."""
        addr, code = self.function_bytes(caller)
        target = self.sym(callee)
        found = []
        for i in range(len(code) - 4):
            if code[i] == 0xE8:
                rel, = struct.unpack_from("<i", code, i + 1)
                if addr + i + 5 + rel == target:
                    found.append(addr + i + 5)
        if len(found) <= nth:
            raise KeyError(f"{caller} has no call #{nth} to {callee}")
        return found[nth]

    def address_after(self, name, pattern):
        """The address right after a byte pattern in a function (e.g. after "sti; hlt")."""
        addr, code = self.function_bytes(name)
        i = code.find(pattern)
        if i < 0:
            raise KeyError(f"{name}: pattern {pattern.hex()} not found")
        return addr + i + len(pattern)

    def check_frame_pointer_prologue(self, name):
        """The ORC rows of FP_FUNCTION() assume "push %rbp; mov %rsp,%rbp" at the start."""
        _addr, code = self.function_bytes(name)
        if code[:4] != b"\x55\x48\x89\xe5":
            raise ValueError(f"{self.path}: {name} does not start with push %rbp; mov %rsp,%rbp")
