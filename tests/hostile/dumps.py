"""Dumps for the hostile tests: synthetic ones made here with tests/synthetic's
generator (always), the lab's when present, and the places in them worth
breaking: every ELF and kdump-compressed header field btaudit or libkdumpfile
reads, every structure boundary to cut at, and the offsets of notes, bitmaps
and page descriptors."""

import os
import shutil
import struct
import sys

SYNTHETIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "synthetic")
sys.path.insert(0, SYNTHETIC)

from elf_vmcore import ElfVmcore  # noqa: E402
from scenarios import SCENARIOS  # noqa: E402
from synthdump.kernel_image import KernelImage  # noqa: E402
from synthdump.machine import Machine  # noqa: E402

U64_MAX = (1 << 64) - 1


def synthetic_machine(kernel, scenario="irq_over_idle", cpus=2):
    m = Machine(KernelImage(kernel, 0), cpus)
    SCENARIOS[scenario][0](m)
    return m


def write_synthetic(kernel, path, paged=False, compressed=False, scenario="irq_over_idle", plant=None):
    """A synthetic dump of `scenario`; `plant(m)` may change the machine before it is written."""
    m = synthetic_machine(kernel, scenario)
    if plant:
        plant(m)
    m.write(path, paged, compressed)
    return m


class Patch:
    """A copy of a dump to break in place, one change at a time, each undone before the next."""

    def __init__(self, source, copy):
        shutil.copyfile(source, copy)
        self.path = copy
        self.size = os.path.getsize(copy)

    def read(self, offset, size):
        with open(self.path, "rb") as f:
            f.seek(offset)
            return f.read(size)

    def apply(self, changes):
        """changes: [(offset, bytes)]; returns the old bytes to give to undo()."""
        old = []
        with open(self.path, "r+b") as f:
            for offset, data in changes:
                f.seek(offset)
                old.append((offset, f.read(len(data))))
                f.seek(offset)
                f.write(data)
        return old

    def undo(self, old):
        self.apply(list(reversed(old)))


# ---- ELF --------------------------------------------------------------------

def elf_layout(path):
    """Program headers [(index, type, offset, filesz, header offset)], notes [(name, type,
    header offset, desc offset, descsz)], and where the program headers are."""
    d = ElfVmcore(path)
    phdrs = [(i, p_type, off, filesz, d.phoff + 56 * i) for i, p_type, off, _v, _p, filesz in d.segments]
    notes = [(name.encode("latin-1"), ntype, head, desc, size) for _s, name, ntype, head, desc, size in d.notes]
    return d.phoff, phdrs, notes


def elf_mutations(path):
    """(label, changes, must_equal): must_equal when libkdumpfile and btaudit ignore the field."""
    size = os.path.getsize(path)
    phoff, phdrs, notes = elf_layout(path)
    out = []

    def field(label, offset, fmt, values, same=False):
        for v in values:
            out.append((f"{label}={v:#x}", [(offset, struct.pack(fmt.upper(), v & ((1 << (8 * struct.calcsize(fmt))) - 1)))],
                        same))

    field("e_ident[EI_CLASS]", 4, "<B", [0, 1, 3])
    field("e_ident[EI_DATA]", 5, "<B", [0, 2])
    field("e_type", 16, "<H", [0, 1, 2, 3, 0xFFFF])
    field("e_version", 20, "<I", [0, 0xFFFFFFFF], same=True)
    field("e_entry", 24, "<Q", [U64_MAX], same=True)
    field("e_phoff", 32, "<Q", [0, 1, 63, size - 1, size, 1 << 32, 1 << 63, U64_MAX])
    field("e_shoff", 40, "<Q", [1, 64, size - 1, size, 1 << 63, U64_MAX])
    field("e_flags", 48, "<I", [0xFFFFFFFF], same=True)
    field("e_phentsize", 54, "<H", [0, 1, 32, 55, 57, 64, 0xFFFF])
    field("e_phnum", 56, "<H", [0, 1, len(phdrs) + 1, 0x7FFF, 0xFFFF])
    field("e_shentsize", 58, "<H", [0, 1, 63, 0xFFFF])
    field("e_shnum", 60, "<H", [1, 0x7FFF, 0xFFFF])
    field("e_shstrndx", 62, "<H", [1, 0xFFFF])
    # Section headers that exist: at the ELF header, then past the end, with each entry size.
    for shentsize in (0, 64):
        out.append((f"section headers at 64, e_shnum 2, e_shentsize {shentsize}",
                    [(40, struct.pack("<Q", 64)), (58, struct.pack("<HHH", shentsize, 2, 1))], False))
    out.append(("PN_XNUM with section 0 at the program headers",
                [(40, struct.pack("<Q", phoff)), (56, struct.pack("<H", 0xFFFF)), (58, struct.pack("<H", 64))], False))
    for i, p_type, off, filesz, at in phdrs[:4] + phdrs[-1:]:
        kind = {1: "PT_LOAD", 4: "PT_NOTE"}.get(p_type, str(p_type))
        field(f"{kind} {i} p_offset", at + 8, "<Q", [size - 1, size, 1 << 63, U64_MAX - 7])
        field(f"{kind} {i} p_filesz", at + 32, "<Q", [0, size, 1 << 40, U64_MAX])
        field(f"{kind} {i} p_memsz", at + 40, "<Q", [0, U64_MAX])
        field(f"{kind} {i} p_vaddr", at + 16, "<Q", [0, U64_MAX - 4095])
        field(f"{kind} {i} p_paddr", at + 24, "<Q", [U64_MAX])
        field(f"{kind} {i} p_align", at + 48, "<Q", [0, U64_MAX], same=True)
        field(f"{kind} {i} p_type", at, "<I", [4 if p_type == 1 else 1, 0x6474E550])
    for k, (name, ntype, head, desc, descsz) in enumerate(notes):
        label = f"note {k} ({name.decode('latin-1')}, type {ntype})"
        field(f"{label} n_namesz", head, "<I", [0, 0xFFFFFFFF, 1 << 20])
        field(f"{label} n_descsz", head + 4, "<I", [0, 1, descsz + 4, 0xFFFFFFFF])
        if name == b"VMCOREINFO":
            out.append((f"{label}: no line ends", [(desc, b"X" * descsz)], False))
            out.append((f"{label}: every byte NUL", [(desc, b"\0" * descsz)], False))
            out.append((f"{label}: '=' everywhere", [(desc, b"=" * descsz)], False))
        elif name == b"CORE" and ntype == 1:
            out.append((f"{label}: registers all ones", [(desc + 112, b"\xff" * 27 * 8)], False))
    return out


def elf_cuts(path):
    """Every structure boundary of an ELF dump, and one byte either side."""
    size = os.path.getsize(path)
    phoff, phdrs, notes = elf_layout(path)
    cuts = {0, 1, 4, 5, 16, 63, 64, phoff, size - 1}
    for _i, _t, off, filesz, at in phdrs:
        cuts |= {at, at + 55, off, off + 1, off + filesz - 1, off + filesz // 2}
    for _n, _t, head, desc, descsz in notes:
        cuts |= {head, head + 11, desc, desc + descsz - 1}
    return sorted(c for c in cuts if 0 <= c < size)


# ---- kdump-compressed ---------------------------------------------------------

def diskdump_layout(path):
    with open(path, "rb") as f:
        h = f.read(464)
        block, sub_blocks, bitmap_blocks = struct.unpack_from("<iiI", h, 428)
        f.seek(block)
        sub = f.read(112)
    note_off, note_size = struct.unpack_from("<QQ", sub, 48)
    bitmaps = (1 + sub_blocks) * block
    descs = bitmaps + bitmap_blocks * block
    return block, bitmaps, bitmap_blocks, descs, note_off, note_size


def diskdump_pages(path):
    """The page descriptors: [(file offset of the descriptor, data offset, size, flags)]."""
    block, bitmaps, bitmap_blocks, descs, _no, _ns = diskdump_layout(path)
    half = bitmap_blocks // 2 * block
    with open(path, "rb") as f:
        f.seek(bitmaps + half)
        second = f.read(half)
        pages = sum(bin(b).count("1") for b in second)
        f.seek(descs)
        table = f.read(24 * pages)
    return [(descs + 24 * i, *struct.unpack_from("<qII", table, 24 * i)) for i in range(pages)]


def diskdump_mutations(path):
    size = os.path.getsize(path)
    block, bitmaps, bitmap_blocks, descs, note_off, note_size = diskdump_layout(path)
    out = []

    def field(label, offset, fmt, values, same=False):
        for v in values:
            out.append((f"{label}={v:#x}", [(offset, struct.pack(fmt.upper(), v & ((1 << (8 * struct.calcsize(fmt))) - 1)))],
                        same))

    field("header_version", 8, "<i", [-1, 0, 1, 2, 3, 5, 7, 0x7FFFFFFF])
    field("block_size", 428, "<i", [0, 1, 4095, 4097, 8192, 1 << 18, 1 << 19, -1])
    field("sub_hdr_size", 432, "<i", [-1, 0, 2, 0x7FFFFFFF])
    field("bitmap_blocks", 436, "<I", [0, 1, bitmap_blocks + 2, 0xFFFFFFFF])
    field("max_mapnr", 440, "<I", [0, 0xFFFFFFFF])
    field("nr_cpus", 460, "<i", [-1, 0x7FFFFFFF])
    # What libkdumpfile takes for a 32-bit header: a page size at offset 416 (the timestamp's microseconds).
    out.append(("32-bit layout: block_size 4096 at 416", [(416, struct.pack("<iiI", 4096, 0, 1))], False))
    sub = block
    field("sub phys_base", sub, "<Q", [U64_MAX])
    field("sub split", sub + 12, "<i", [1])
    field("sub offset_vmcoreinfo", sub + 32, "<Q", [size, U64_MAX])
    field("sub size_vmcoreinfo", sub + 40, "<Q", [size, 1 << 40, U64_MAX])
    field("sub offset_note", sub + 48, "<Q", [0, size - 1, size, U64_MAX])
    field("sub size_note", sub + 56, "<Q", [0, 1, note_size + 4, 1 << 40, U64_MAX])
    field("sub offset_eraseinfo", sub + 64, "<Q", [U64_MAX])
    field("sub size_eraseinfo", sub + 72, "<Q", [1 << 40])
    field("sub start_pfn_64", sub + 80, "<Q", [U64_MAX])
    field("sub max_mapnr_64", sub + 96, "<Q", [0, U64_MAX])
    out.append(("split with start_pfn past end_pfn",
                [(sub + 12, struct.pack("<i", 1)), (sub + 80, struct.pack("<QQ", 1 << 40, 1))], False))
    half = bitmap_blocks // 2 * block
    out.append(("second bitmap all ones", [(bitmaps + half, b"\xff" * half)], False))
    out.append(("first bitmap all ones", [(bitmaps, b"\xff" * half)], False))
    out.append(("second bitmap empty", [(bitmaps + half, b"\0" * half)], False))
    pages = diskdump_pages(path)
    for which, (at, _off, psize, flags) in (("first", pages[0]), ("middle", pages[len(pages) // 2]), ("last", pages[-1])):
        field(f"{which} page descriptor offset", at, "<q", [-1, 0, size, 1 << 62])
        field(f"{which} page descriptor size", at + 8, "<I", [0, block + 1, 1 << 18, 0xFFFFFFFF])
        field(f"{which} page descriptor flags", at + 12, "<I", [0, 0x2, 0x4, 0x20, 0xFFFFFFFF])
    if note_size:
        field("first note n_namesz", note_off, "<I", [0xFFFFFFFF])
        field("first note n_descsz", note_off + 4, "<I", [0xFFFFFFFF, note_size])
    return out


def diskdump_cuts(path):
    size = os.path.getsize(path)
    block, bitmaps, bitmap_blocks, descs, note_off, note_size = diskdump_layout(path)
    cuts = {0, 8, 463, 464, block - 1, block, block + 56, block + 111, bitmaps, bitmaps + bitmap_blocks * block // 2,
            descs - 1, descs, descs + 24, size - 1}
    if note_size:
        cuts |= {note_off, note_off + 12, note_off + note_size - 1}
    pages = diskdump_pages(path)
    for at, off, psize, _flags in pages[:2] + pages[len(pages) // 2:len(pages) // 2 + 1] + pages[-2:]:
        cuts |= {at + 23, off, off + psize - 1}
    return sorted(c for c in cuts if 0 <= c < size)
