"""Rewrites a kdump-compressed dump with its pages compressed another way, as the other tools
write them: makedumpfile -l (LZO, the default of Fedora's and RHEL's kdump), -p (snappy), -z
(zstd), and QEMU's dump-guest-memory -l / -s (virsh dump --format kdump-lzo / kdump-snappy).

The format (makedumpfile's diskdump_mod.h, read from its definition): a disk_dump_header
block (its status says the compression: DUMP_DH_COMPRESSED_ZLIB 0x1, _LZO 0x2, _SNAPPY 0x4,
_ZSTD 0x20), the kdump_sub_header blocks, two page bitmaps, one page_desc {offset, size,
flags, page_flags} per page the second bitmap sets, then the pages' data. A page is stored
compressed when that is shorter than the page, else as it is (flags 0); descriptors that
shared one page's data (the zero page) share the new data too.

The compressors are the libraries libkdumpfile itself links (liblzo2, libsnappy, libzstd),
called through ctypes: no Python package beyond the standard library.
"""
import ctypes, ctypes.util, struct, zlib

FLAGS = {'zlib': 0x1, 'lzo': 0x2, 'snappy': 0x4, 'zstd': 0x20}
PAGE_DESC = struct.Struct('<qIIQ')


def _lib(name, soname):
    path = ctypes.util.find_library(name) or soname
    return ctypes.CDLL(path)


class Compressors:
    def __init__(self):
        self.lzo = _lib('lzo2', 'liblzo2.so.2')
        self.snappy = _lib('snappy', 'libsnappy.so.1')
        self.zstd = _lib('zstd', 'libzstd.so.1')
        self.zstd.ZSTD_compress.restype = ctypes.c_size_t
        self.zstd.ZSTD_isError.restype = ctypes.c_uint
        # LZO1X_1_MEM_COMPRESS: 16384 dictionary pointers.
        self.lzo_work = ctypes.create_string_buffer(16384 * ctypes.sizeof(ctypes.c_void_p))

    def compress(self, how, raw):
        cap = len(raw) + len(raw) // 16 + 64 + 3 + 4096
        out = ctypes.create_string_buffer(cap)
        if how == 'zlib':
            return zlib.compress(raw)
        if how == 'lzo':
            n = ctypes.c_size_t(cap)
            rc = self.lzo.lzo1x_1_compress(raw, ctypes.c_size_t(len(raw)), out, ctypes.byref(n), self.lzo_work)
            if rc != 0:
                raise RuntimeError(f'lzo1x_1_compress: {rc}')
            return out.raw[:n.value]
        if how == 'snappy':
            n = ctypes.c_size_t(cap)
            rc = self.snappy.snappy_compress(raw, ctypes.c_size_t(len(raw)), out, ctypes.byref(n))
            if rc != 0:
                raise RuntimeError(f'snappy_compress: {rc}')
            return out.raw[:n.value]
        if how == 'zstd':
            n = self.zstd.ZSTD_compress(out, ctypes.c_size_t(cap), raw, ctypes.c_size_t(len(raw)), 1)
            if self.zstd.ZSTD_isError(ctypes.c_size_t(n)):
                raise RuntimeError('ZSTD_compress failed')
            return out.raw[:n]
        raise ValueError(how)


def recompress(src, dst, how, compressors=None):
    """Writes src (kdump-compressed, zlib or uncompressed pages) to dst with its pages in `how`."""
    c = compressors or Compressors()
    data = open(src, 'rb').read()
    if data[:8] != b'KDUMP   ':
        raise ValueError(f'{src}: not a kdump-compressed dump')
    version, = struct.unpack_from('<i', data, 8)
    status, block, sub_blocks, bitmap_blocks, max_mapnr = struct.unpack_from('<IiiII', data, 424)
    if version >= 6:
        max_mapnr_64, = struct.unpack_from('<Q', data, block + 8 + 4 + 4 + 8 * 9)
        max_mapnr = max_mapnr_64 or max_mapnr
    bitmap2 = (1 + sub_blocks + bitmap_blocks // 2) * block
    bits = data[bitmap2:bitmap2 + bitmap_blocks // 2 * block]
    count = sum(bin(b).count('1') for b in bits[:(max_mapnr + 7) // 8])
    descs_at = (1 + sub_blocks + bitmap_blocks) * block
    data_at = descs_at + count * PAGE_DESC.size
    out_descs, out_data, done = bytearray(), bytearray(), {}
    for i in range(count):
        off, size, flags, page_flags = PAGE_DESC.unpack_from(data, descs_at + i * PAGE_DESC.size)
        if off not in done:
            body = data[off:off + size]
            raw = zlib.decompress(body) if flags & FLAGS['zlib'] else body
            if flags & ~FLAGS['zlib']:
                raise ValueError(f'{src}: page {i} is compressed by flags {flags:#x}, not zlib')
            packed = c.compress(how, raw)
            new = (packed, FLAGS[how]) if len(packed) < len(raw) else (raw, 0)
            done[off] = (data_at + len(out_data), len(new[0]), new[1])
            out_data += new[0]
        noff, nsize, nflags = done[off]
        out_descs += PAGE_DESC.pack(noff, nsize, nflags, page_flags)
    head = bytearray(data[:descs_at])
    struct.pack_into('<I', head, 424, (status & ~sum(FLAGS.values())) | FLAGS[how])
    with open(dst, 'wb') as f:
        f.write(head)
        f.write(out_descs)
        f.write(out_data)
    return count
