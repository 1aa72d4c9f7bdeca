"""Writes a kdump-compressed dump, the format makedumpfile -c and QEMU's
dump-guest-memory -z produce (header version 6): disk_dump_header,
kdump_sub_header with the ELF notes and VMCOREINFO, the two page bitmaps,
one page_desc per dumped page, then each page, zlib-compressed. The file
holds physical pages only, so every kernel virtual address is read through
the page tables (paging.py)."""

import struct
import zlib

SIGNATURE = b"KDUMP   "
HEADER_VERSION = 6
DUMP_DH_COMPRESSED_ZLIB = 0x1
PAGE_DESC = struct.Struct("<qIIQ")  # offset, size, flags, page_flags


def utsname(release):
    fields = [b"Linux", b"synthetic", release.encode(), b"#1 SMP", b"x86_64", b""]
    return b"".join(f.ljust(65, b"\0") for f in fields)


def write_diskdump(path, pages, notes, vmcoreinfo_text, release, nr_cpus, block=4096):
    """pages: {physical address: 4 KiB bytes}; notes: the ELF notes (NT_PRSTATUS..., VMCOREINFO)."""
    max_mapnr = max(pages) // block + 1
    bitmap_bytes = (max_mapnr + 7) // 8
    bitmap_blocks = 2 * ((bitmap_bytes + block - 1) // block)  # the 1st and the 2nd bitmap
    # kdump_sub_header's fields, then the ELF notes and VMCOREINFO in its blocks (offsets are absolute).
    vmcoreinfo = vmcoreinfo_text.encode()
    note_off = block + 256
    vmcoreinfo_off = note_off + len(notes)
    sub_hdr_blocks = (256 + len(notes) + len(vmcoreinfo) + block - 1) // block
    sub = bytearray(block * sub_hdr_blocks)
    struct.pack_into("<QiiQQqQqQqQQQQ", sub, 0, 0, 31, 0, 0, max_mapnr, vmcoreinfo_off, len(vmcoreinfo), note_off,
                     len(notes), 0, 0, 0, max_mapnr, max_mapnr)
    sub[note_off - block:note_off - block + len(notes)] = notes
    sub[vmcoreinfo_off - block:vmcoreinfo_off - block + len(vmcoreinfo)] = vmcoreinfo

    header = bytearray(block)
    header[0:8] = SIGNATURE
    struct.pack_into("<i", header, 8, HEADER_VERSION)
    header[12:12 + 390] = utsname(release)
    struct.pack_into("<IiiIIIIIIi", header, 424, 0, block, sub_hdr_blocks, bitmap_blocks, max_mapnr, len(pages), 0,
                     len(pages), 0, nr_cpus)

    bitmap = bytearray(bitmap_blocks // 2 * block)
    for phys in pages:
        pfn = phys // block
        bitmap[pfn // 8] |= 1 << (pfn % 8)
    descs_at = block * (1 + sub_hdr_blocks + bitmap_blocks)
    data_at = descs_at + PAGE_DESC.size * len(pages)
    descs, data = bytearray(), bytearray()
    for phys in sorted(pages):
        body = zlib.compress(bytes(pages[phys]))
        descs += PAGE_DESC.pack(data_at + len(data), len(body), DUMP_DH_COMPRESSED_ZLIB, 0)
        data += body
    with open(path, "wb") as f:
        f.write(header + sub + bitmap + bitmap)  # every page in memory is dumped: the two bitmaps agree
        f.write(descs)
        f.write(data)
