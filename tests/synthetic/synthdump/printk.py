"""The kernel log of a synthetic dump, as 5.10+ keeps it: a printk_ringbuffer
(descriptor ring of prb_desc + printk_info, text data ring of [id][text]
blocks), reached through the kernel's prb pointer, with the VMCOREINFO
lines that describe its layout (log_buf_vmcoreinfo_setup()). Offsets are
those of the 64-bit kernel structs."""

import struct

PRINTK_BASE = 0xFFFF888000300000
DESC_FINALIZED = 2  # desc_finalized, in the top two bits of state_var
INFO_SIZE, DESC_SIZE = 88, 24

LAYOUT = {
    "OFFSET(printk_ringbuffer.desc_ring)": 0,
    "OFFSET(printk_ringbuffer.text_data_ring)": 48,
    "OFFSET(prb_desc_ring.count_bits)": 0,
    "OFFSET(prb_desc_ring.descs)": 8,
    "OFFSET(prb_desc_ring.infos)": 16,
    "OFFSET(prb_desc_ring.head_id)": 24,
    "OFFSET(prb_desc_ring.tail_id)": 32,
    "SIZE(prb_desc)": DESC_SIZE,
    "OFFSET(prb_desc.state_var)": 0,
    "OFFSET(prb_desc.text_blk_lpos)": 8,
    "OFFSET(prb_data_blk_lpos.begin)": 0,
    "OFFSET(prb_data_blk_lpos.next)": 8,
    "SIZE(printk_info)": INFO_SIZE,
    "OFFSET(printk_info.seq)": 0,
    "OFFSET(printk_info.ts_nsec)": 8,
    "OFFSET(printk_info.text_len)": 16,
    "OFFSET(printk_info.caller_id)": 20,
    "OFFSET(prb_data_ring.size_bits)": 0,
    "OFFSET(prb_data_ring.data)": 8,
}


def write_ring(m, lines, caller_pid):
    """Puts one record per line into a ring at PRINTK_BASE and points prb at it;
    returns the VMCOREINFO lines to add."""
    count_bits = max(4, len(lines).bit_length())
    count = 1 << count_bits
    blocks = [8 + ((len(text.encode()) + 7) & ~7) for text in lines]
    size_bits = max(12, sum(blocks).bit_length())
    ring, descs = PRINTK_BASE, PRINTK_BASE + 0x100
    infos = descs + DESC_SIZE * count
    data = (infos + INFO_SIZE * count + 4095) & ~4095
    mem = bytearray(data - ring + (1 << size_bits))

    def put(addr, fmt, *values):
        struct.pack_into(fmt, mem, addr - ring, *values)

    put(ring, "<IxxxxQQqq", count_bits, descs, infos, len(lines) - 1, 0)  # desc_ring: head_id, tail_id
    put(ring + 48, "<IxxxxQ", size_bits, data)  # text_data_ring
    lpos = 0
    for i, (text, block) in enumerate(zip(lines, blocks)):
        raw = text.encode()
        put(descs + DESC_SIZE * i, "<QQQ", i | DESC_FINALIZED << 62, lpos, lpos + block)
        put(infos + INFO_SIZE * i, "<QQHxxI", i, 100_000_000_000 + 1000 * i, len(raw), caller_pid)
        put(data + lpos, "<Q", i)
        mem[data + lpos + 8 - ring:data + lpos + 8 - ring + len(raw)] = raw
        lpos += block
    m.regions[ring] = mem
    m.put_u64(m.sym("prb"), ring)
    return {"SYMBOL(prb)": f"{m.sym('prb'):x}", **LAYOUT}
