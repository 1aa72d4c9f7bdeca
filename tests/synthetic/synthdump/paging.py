"""Physical memory as a kdump /proc/vmcore shows it, with x86-64 4-level page
tables: the kernel image where the kernel text mapping puts it (phys_base 0),
direct-map memory at its physical address, and everything else (VMAP'd
stacks, the CPU entry area) on pages of its own that only the page tables
reach. Each PT_LOAD then names a physical range with its direct-map (or
kernel text) address, so libkdumpfile has to walk init_top_pgt to read a
VMAP'd stack, as on a real dump."""

import struct

PAGE = 4096
START_KERNEL_MAP = 0xFFFFFFFF80000000
PAGE_OFFSET = 0xFFFF888000000000
SCRATCH = 0x40000000  # physical pages for VMAP'd memory and the page tables
PTE_FLAGS = 0x63  # present, writable, accessed, dirty
ADDR_MASK = 0x000FFFFFFFFFF000


def linear_phys(vaddr):
    """The physical address of a kernel-text or direct-map address; None for others."""
    if START_KERNEL_MAP <= vaddr < START_KERNEL_MAP + (1 << 30):  # KERNEL_IMAGE_SIZE; modules lie above
        return vaddr - START_KERNEL_MAP
    if PAGE_OFFSET <= vaddr < PAGE_OFFSET + (1 << 46):
        return vaddr - PAGE_OFFSET
    return None


class PhysicalMemory:
    def __init__(self):
        self.pages = {}  # physical page address -> bytearray
        self.mappings = []  # (virtual page, physical page)
        self.next_free = SCRATCH

    def _allocate(self):
        phys = self.next_free
        self.next_free += PAGE
        self.pages[phys] = bytearray(PAGE)
        return phys

    def place(self, vaddr, data):
        """Puts data (page aligned) at vaddr: on its linear physical pages, or new ones."""
        for off in range(0, len(data), PAGE):
            page = data[off:off + PAGE].ljust(PAGE, b"\0")
            phys = linear_phys(vaddr + off)
            if phys is None:
                phys = self._allocate()
            self.pages[phys] = bytearray(page)
            self.mappings.append((vaddr + off, phys))

    def build_page_tables(self, pgd_vaddr):
        """Writes the tables for every placed page, rooted at the (already placed) pgd page."""
        pgd = linear_phys(pgd_vaddr)
        for vaddr, phys in self.mappings:
            table = pgd
            for shift in (39, 30, 21):
                slot = table + 8 * ((vaddr >> shift) & 511)
                entry = self._word(slot)
                if not entry & 1:
                    entry = self._allocate() | PTE_FLAGS
                    self._set_word(slot, entry)
                table = entry & ADDR_MASK
            self._set_word(table + 8 * ((vaddr >> 12) & 511), phys | PTE_FLAGS)

    def _word(self, phys):
        return struct.unpack_from("<Q", self.pages[phys & ~(PAGE - 1)], phys % PAGE)[0]

    def _set_word(self, phys, value):
        struct.pack_into("<Q", self.pages[phys & ~(PAGE - 1)], phys % PAGE, value)

    def segments(self, kernel_lo, kernel_hi):
        """(vaddr, paddr, bytes) of each physically contiguous run, as /proc/vmcore
        lists them: the kernel image at its text address, the rest at its direct-map one."""
        out = []
        text_phys = range(linear_phys(kernel_lo), linear_phys(kernel_hi))
        for phys in sorted(self.pages):
            in_text = phys in text_phys
            if out and out[-1][1] + len(out[-1][2]) == phys and out[-1][3] == in_text:
                out[-1][2].extend(self.pages[phys])
                continue
            vaddr = kernel_lo + (phys - text_phys.start) if in_text else PAGE_OFFSET + phys
            out.append([vaddr, phys, bytearray(self.pages[phys]), in_text])
        return [(v, p, bytes(d)) for v, p, d, _ in out]
