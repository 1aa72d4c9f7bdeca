#include "vmcore/dump_extent.h"

#include <elf.h>
#include <unistd.h>

#include <bit>
#include <cstring>
#include <vector>

namespace btaudit {

namespace {

constexpr std::uint64_t kMaxPhdrs = 1u << 20;  // far more than any dump has

template <typename T>
bool read_at(int fd, std::uint64_t off, T& v) {
  return ::pread(fd, &v, sizeof v, static_cast<off_t>(off)) == static_cast<ssize_t>(sizeof v);
}

std::optional<DumpExtent> elf_extent(int fd, const Elf64_Ehdr& eh) {
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr)) return std::nullopt;
  std::uint64_t count = eh.e_phnum;
  if (count == PN_XNUM) {  // more headers than e_phnum holds: the count is in section 0's sh_info
    Elf64_Shdr sh0;
    if (eh.e_shoff == 0 || !read_at(fd, eh.e_shoff, sh0)) return std::nullopt;
    count = sh0.sh_info;
  }
  if (count == 0 || count > kMaxPhdrs) return std::nullopt;
  DumpExtent x{eh.e_phoff + count * sizeof(Elf64_Phdr), "ELF program headers"};
  for (std::uint64_t i = 0; i < count; ++i) {
    Elf64_Phdr ph;
    if (!read_at(fd, eh.e_phoff + i * sizeof ph, ph)) return x;  // the headers themselves are cut
    if ((ph.p_type == PT_LOAD || ph.p_type == PT_NOTE) && ph.p_filesz && ph.p_offset + ph.p_filesz > x.end)
      x.end = ph.p_offset + ph.p_filesz;
  }
  return x;
}

// makedumpfile's disk_dump_header fields (diskdump_mod.h), at fixed offsets on x86-64.
constexpr std::uint64_t kBlockSizeAt = 428, kSubHdrSizeAt = 432, kBitmapBlocksAt = 436, kHeaderSize = 464;

// One page_desc {i64 offset; u32 size; u32 flags; u64 page_flags} per bit set in
// the second bitmap, in page order, right after the bitmaps; the last one ends the file.
std::optional<DumpExtent> diskdump_extent(int fd) {
  std::int32_t block = 0, sub_hdr = 0;
  std::uint32_t bitmap_blocks = 0;
  // A cut header is reported here: libkdumpfile 0.5.1 crashes in kdump_free() after failing to read one.
  if (!read_at(fd, kBlockSizeAt, block) || !read_at(fd, kSubHdrSizeAt, sub_hdr) ||
      !read_at(fd, kBitmapBlocksAt, bitmap_blocks))
    return DumpExtent{kHeaderSize, "kdump-compressed header"};
  if (block <= 0 || block > (1 << 20) || sub_hdr < 0 || bitmap_blocks == 0) return std::nullopt;
  const std::uint64_t bs = static_cast<std::uint64_t>(block);
  const std::uint64_t half = std::uint64_t{bitmap_blocks} / 2 * bs;
  const std::uint64_t second = bs * (1 + static_cast<std::uint64_t>(sub_hdr)) + half;
  const std::uint64_t descs = second + half;
  DumpExtent x{descs, "page descriptors"};
  std::uint64_t pages = 0;
  std::vector<std::uint8_t> chunk(1 << 16);
  for (std::uint64_t off = 0; off < half; off += chunk.size()) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), half - off));
    const ssize_t got = ::pread(fd, chunk.data(), want, static_cast<off_t>(second + off));
    if (got <= 0) return x;  // the bitmap itself is cut
    for (ssize_t i = 0; i < got; ++i) pages += static_cast<std::uint64_t>(std::popcount(chunk[i]));
    if (static_cast<std::size_t>(got) < want) return x;
  }
  x.end = descs + pages * 24;
  struct {
    std::int64_t offset;
    std::uint32_t size, flags;
    std::uint64_t page_flags;
  } last{};
  static_assert(sizeof last == 24);
  if (pages && read_at(fd, descs + (pages - 1) * 24, last) && last.offset > 0)
    x.end = std::max(x.end, static_cast<std::uint64_t>(last.offset) + last.size);
  return x;
}

}  // namespace

std::optional<DumpExtent> dump_extent(int fd) {
  char magic[8] = {};
  if (::pread(fd, magic, sizeof magic, 0) < SELFMAG) return std::nullopt;
  if (std::memcmp(magic, ELFMAG, SELFMAG) == 0) {
    Elf64_Ehdr eh;
    if (!read_at(fd, 0, eh)) return DumpExtent{sizeof eh, "ELF header"};
    return elf_extent(fd, eh);
  }
  if (std::memcmp(magic, "KDUMP   ", 8) == 0) return diskdump_extent(fd);
  return std::nullopt;
}

}  // namespace btaudit
