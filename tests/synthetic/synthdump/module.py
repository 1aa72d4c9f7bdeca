"""A loaded module, made by the generator at module addresses: frame-pointer
functions assembled here (push %rbp; mov %rsp,%rbp; call ...; pop %rbp; ret),
their ORC rows in the era's format, kallsyms (an Elf64_Sym table and its
strings) and a struct module linked into the kernel's "modules" list, laid
out with the offsets the synthetic kernel's DWARF has (synth_layout)."""

import struct

MODULES_VADDR = 0xFFFFFFFFC0000000
PAGE = 4096
# ORC registers by name; their numbers and the CALL type's per format version (orc_table.h):
# v4 (7.1+) renumbered the registers.
SP, BP, PREV_SP, UNDEFINED = "SP", "BP", "PREV_SP", "UNDEFINED"
REGISTER_NUMBERS = {1: {SP: 5, BP: 4, PREV_SP: 1, UNDEFINED: 0}, 4: {SP: 3, BP: 4, PREV_SP: 8, UNDEFINED: 0}}


def orc_row(version, sp_off, bp_off, sp_reg, bp_reg, call=True):
    call_type = 2 if version >= 3 else 0
    numbers = REGISTER_NUMBERS[4 if version >= 4 else 1]
    return struct.pack("<hhH", sp_off, bp_off,
                       numbers[sp_reg] | numbers[bp_reg] << 4 | ((call_type if call else 0) << 8))


class Module:
    def __init__(self, machine, name, functions):
        """functions: [(name, [callees])]; a callee is another of its functions or a kernel symbol."""
        self.name = name
        self.base = MODULES_VADDR
        self.functions = {}
        self.returns = {}
        sizes = [16 * ((4 + 5 * len(callees) + 2 + 15) // 16) for _, callees in functions]
        at = self.base
        for (fname, _), size in zip(functions, sizes):
            self.functions[fname] = (at, size)
            at += size
        text = bytearray()
        for fname, callees in functions:
            pc, size = self.functions[fname]
            code = bytearray(b"\x55\x48\x89\xe5")  # push %rbp; mov %rsp,%rbp
            for callee in callees:
                target = self.functions[callee][0] if callee in self.functions else machine.sym(callee)
                ret = pc + len(code) + 5
                code += b"\xe8" + struct.pack("<i", target - ret)
                self.returns.setdefault((fname, callee), ret)
            code += b"\x5d\xc3"  # pop %rbp; ret
            text += code.ljust(size, b"\xcc")
        self.text = bytes(text)
        self.text_size = len(text)
        self._build_data(machine)

    def _build_data(self, m):
        """The data page after the text: struct module, kallsyms, symbols, strings, ORC."""
        l = m.layout
        data_at = self.base + PAGE * ((self.text_size + PAGE - 1) // PAGE)
        data = bytearray(2 * PAGE)
        mod, kallsyms, symtab = data_at, data_at + 0x400, data_at + 0x440
        names = list(self.functions)
        strtab = symtab + 24 * (len(names) + 1)
        strings = b"\0" + b"".join(n.encode() + b"\0" for n in names)
        orc_ip = (strtab + len(strings) + 7) & ~7
        version = l["orc_version"]
        rows = [] if m.fp_kernel else [
            (addr + off, orc_row(version, *row)) for addr, _ in self.functions.values()
            for off, row in ((0, (8, 0, SP, UNDEFINED)), (1, (16, -16, SP, PREV_SP)), (4, (16, -16, BP, PREV_SP)))]
        if rows:
            rows.append((self.base + self.text_size, orc_row(version, 0, 0, UNDEFINED, UNDEFINED, call=False)))
        orc = orc_ip + 4 * len(rows)

        def put(addr, raw):
            data[addr - data_at:addr - data_at + len(raw)] = raw

        put(mod + l["module_name"], self.name.encode() + b"\0")
        put(mod + l["module_text_base"], struct.pack("<Q", self.base))
        put(mod + l["module_text_size"], struct.pack("<I", self.text_size))
        put(mod + l["module_num_orcs"], struct.pack("<I", len(rows)))
        put(mod + l["module_orc_unwind_ip"], struct.pack("<Q", orc_ip if rows else 0))
        put(mod + l["module_orc_unwind"], struct.pack("<Q", orc if rows else 0))
        put(mod + l["module_kallsyms"], struct.pack("<Q", kallsyms))
        put(kallsyms + l["kallsyms_symtab"], struct.pack("<Q", symtab))
        put(kallsyms + l["kallsyms_num_symtab"], struct.pack("<I", len(names) + 1))
        put(kallsyms + l["kallsyms_strtab"], struct.pack("<Q", strtab))
        name_off = 1
        for i, fname in enumerate(names, 1):  # symbol 0 is the null symbol
            addr, size = self.functions[fname]
            put(symtab + 24 * i, struct.pack("<IBBHQQ", name_off, 0x12, 0, 1, addr, size))  # STB_GLOBAL STT_FUNC
            name_off += len(fname) + 1
        put(strtab, strings)
        for i, (ip, row) in enumerate(rows):
            put(orc_ip + 4 * i, struct.pack("<i", ip - (orc_ip + 4 * i)))
            put(orc + 6 * i, row)
        # Linked in as the only module: modules <-> mod->list.
        head, link = m.sym("modules"), mod + l["module_list"]
        put(link, struct.pack("<QQ", head, head))
        m.put_u64(head, link)
        m.put_u64(head + 8, link)
        m.regions[self.base] = bytearray(self.text.ljust(data_at - self.base, b"\xcc"))
        m.regions[data_at] = data

    def function_at(self, addr):
        for fname, (start, size) in self.functions.items():
            if start <= addr < start + size:
                return fname, start
        return None
