#include "vmcore/dump_header_check.h"

#include <elf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <string_view>
#include <vector>

#include "vmcore/dump_error.h"

namespace btaudit {

namespace {

// No dump file is this large: an extent ending beyond it is a corrupt number, not a cut file.
constexpr std::uint64_t kNoFileIsThatLarge = std::uint64_t{1} << 48;

// makedumpfile's diskdump_mod.h, as libkdumpfile 0.5.1 reads it (diskdump.c).
constexpr std::uint64_t kDiskdumpHeaderSize = 464;  // sizeof(struct disk_dump_header_64): what the probe reads
constexpr std::uint64_t kSubHeaderSize = 112;       // sizeof(struct kdump_sub_header_64)
constexpr std::uint64_t kPageDescSize = 24;         // struct page_desc {i64 offset; u32 size, flags; u64 page_flags}
constexpr std::uint32_t kCompressedFlags = 0x1 | 0x2 | 0x4 | 0x20;  // DUMP_DH_COMPRESSED_{ZLIB,LZO,SNAPPY,ZSTD}
constexpr std::int64_t kMinBlock = 1 << 12, kMaxBlock = 1 << 18;    // MIN_PAGE_SIZE, MAX_PAGE_SIZE
// Xen's dumpcore notes (libkdumpfile notes.c): descriptors it reads without checking their size.
constexpr std::uint32_t kXenDumpcoreHeader = 0x2000001, kXenDumpcoreFormatVersion = 0x2000003;

template <typename T>
T load(std::span<const std::uint8_t> b, std::size_t at) {
  T v{};
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

std::uint32_t byteswap32(std::uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xff00) | ((v << 8) & 0xff0000) | (v << 24);
}

std::string num(std::uint64_t v) { return std::to_string(v); }

// A walk over one file's headers: the furthest byte they describe, and the first problem.
class HeaderCheck {
 public:
  HeaderCheck(const DumpBytes& file, const DumpHeaderLimits& limits) : file_(file), limits_(limits) {}

  // Records that `what` occupies [offset, offset + length). False when the file
  // cannot hold it (then nothing there may be read): a number past any real file
  // is corruption; otherwise the file was cut, reported once every extent is known.
  bool need(std::uint64_t offset, std::uint64_t length, std::string_view what) {
    if (length > kNoFileIsThatLarge || offset > kNoFileIsThatLarge - length) {
      corrupt(std::string(what) + " at offset " + num(offset) + ", " + num(length) +
              " bytes long, lies past the end of any file");
      return false;
    }
    const std::uint64_t end = offset + length;
    if (end <= file_.size()) return true;
    if (end > cut_end_) {
      cut_end_ = end;
      cut_by_ = what;
    }
    return false;
  }

  bool read(std::uint64_t offset, std::vector<std::uint8_t>& out, std::uint64_t length, std::string_view what) {
    if (!need(offset, length, what)) return false;
    out.resize(static_cast<std::size_t>(length));
    if (file_.read(offset, out)) return true;
    corrupt(std::string(what) + ": the file could not be read at offset " + num(offset));
    return false;
  }

  void corrupt(const std::string& what) {
    if (!problem_) problem_ = DumpHeaderProblem{false, "corrupt dump header: " + what};
  }
  void unsupported(const std::string& what) {
    if (!problem_) problem_ = DumpHeaderProblem{false, "not an x86_64 Linux dump: " + what};
  }
  bool failed() const { return problem_.has_value(); }

  std::optional<DumpHeaderProblem> result() const {
    if (problem_) return problem_;
    if (cut_end_ > 0)
      return DumpHeaderProblem{true, "truncated: the file has " + num(file_.size()) + " bytes; by its " + cut_by_ +
                                         ", it needs at least " + num(cut_end_)};
    return std::nullopt;
  }

  // What libkdumpfile takes from VMCOREINFO while it opens the file, before btaudit reads a
  // byte: PAGESIZE sizes its read cache and its page-table walks. The kernel writes PAGE_SIZE
  // there (VMCOREINFO_PAGESIZE, kernel/crash_core.c, kernel/vmcore_info.c since 6.9), and x86_64's
  // is 4096 (arch/x86/include/asm/page_types.h). Every PAGESIZE line is read: a text may repeat one.
  void check_vmcoreinfo(std::span<const std::uint8_t> bytes, const std::string& where) {
    std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    constexpr std::string_view kKey = "PAGESIZE=";
    while (!text.empty()) {
      const std::size_t end = std::min(text.find('\n'), text.size());
      const std::string_view line = text.substr(0, end);
      text.remove_prefix(std::min(end + 1, text.size()));
      if (!line.starts_with(kKey) || line.substr(kKey.size()) == "4096") continue;
      std::string shown(line.substr(0, 40));
      for (char& ch : shown)
        if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f) ch = '?';
      std::string message = where;
      message.append(" says ").append(shown).append("; x86_64 pages are 4096 bytes");
      corrupt(message);
      return;
    }
  }

  const DumpBytes& file() const { return file_; }
  const DumpHeaderLimits& limits() const { return limits_; }

  // Every note of an ELF note area must lie inside it, and the Xen notes
  // libkdumpfile reads without a size check must be large enough.
  void check_notes(std::span<const std::uint8_t> notes, const std::string& where) {
    std::size_t pos = 0;
    for (std::uint64_t index = 0; notes.size() - pos >= 12; ++index) {
      const auto namesz = load<std::uint32_t>(notes, pos);
      const auto descsz = load<std::uint32_t>(notes, pos + 4);
      const auto type = load<std::uint32_t>(notes, pos + 8);
      const std::uint64_t name_at = pos + 12;
      const std::uint64_t desc_at = name_at + ((std::uint64_t{namesz} + 3) & ~std::uint64_t{3});
      const std::uint64_t next = desc_at + ((std::uint64_t{descsz} + 3) & ~std::uint64_t{3});
      if (desc_at + descsz > notes.size()) {
        corrupt("note " + num(index) + " of " + where + " runs past its end (name " + num(namesz) + " bytes, data " +
                num(descsz) + " bytes, " + num(notes.size() - pos) + " bytes left)");
        return;
      }
      const std::string_view name(reinterpret_cast<const char*>(notes.data()) + name_at, namesz);
      if (name == "VMCOREINFO" || name == std::string_view("VMCOREINFO\0", 11))
        check_vmcoreinfo(notes.subspan(desc_at, descsz), "the VMCOREINFO note of " + where);
      if ((name == ".note.Xen" || name == std::string_view(".note.Xen\0", 10)) &&
          ((type == kXenDumpcoreHeader && descsz < 32) || (type == kXenDumpcoreFormatVersion && descsz < 8))) {
        corrupt("Xen note " + num(index) + " of " + where + " has " + num(descsz) +
                " bytes of data, too few for its type");
        return;
      }
      pos = static_cast<std::size_t>(std::min<std::uint64_t>(next, notes.size()));
    }
  }

 private:
  const DumpBytes& file_;
  const DumpHeaderLimits& limits_;
  std::optional<DumpHeaderProblem> problem_;
  std::uint64_t cut_end_ = 0;
  std::string cut_by_;
};

// ---- ELF ------------------------------------------------------------------

void check_elf_sections(HeaderCheck& c, const Elf64_Ehdr& eh, std::uint64_t shnum) {
  std::vector<std::uint8_t> table;
  if (!c.read(eh.e_shoff, table, shnum * sizeof(Elf64_Shdr), "ELF section header table")) return;
  const auto section = [&](std::uint64_t i) { return load<Elf64_Shdr>(table, i * sizeof(Elf64_Shdr)); };
  for (std::uint64_t i = 0; i < shnum; ++i) {
    const Elf64_Shdr sh = section(i);
    if (sh.sh_type != SHT_NOBITS && sh.sh_size > 0 && !c.need(sh.sh_offset, sh.sh_size, "ELF section " + num(i)))
      return;
  }
  // libkdumpfile reads the name table whatever its type, then compares names with strcmp.
  const std::uint64_t names_index = eh.e_shstrndx;
  if (names_index == 0 || names_index >= shnum) return;
  const Elf64_Shdr names = section(names_index);
  if (names.sh_size == 0) return;
  if (names.sh_size > c.limits().max_name_table_bytes) {
    c.corrupt("the section-name table claims " + num(names.sh_size) + " bytes");
    return;
  }
  std::vector<std::uint8_t> strtab;
  if (!c.read(names.sh_offset, strtab, names.sh_size, "ELF section-name table")) return;
  if (strtab.back() != 0) {
    c.corrupt("the section-name table does not end with a NUL byte");
    return;
  }
  for (std::uint64_t i = 0; i < shnum; ++i) {
    const Elf64_Shdr sh = section(i);
    if (sh.sh_name >= strtab.size()) continue;
    const std::string_view name(reinterpret_cast<const char*>(strtab.data()) + sh.sh_name);
    if (name.starts_with(".xen_") || name == ".note.Xen")
      c.unsupported("a Xen domain dump (section " + std::string(name) + "); btaudit reads Linux kernel dumps");
  }
}

void check_elf(HeaderCheck& c) {
  std::vector<std::uint8_t> header;
  if (!c.read(0, header, sizeof(Elf64_Ehdr), "ELF header")) return;
  if (header[EI_CLASS] != ELFCLASS64)
    return c.unsupported("ELF class " + num(header[EI_CLASS]) + " (x86_64 dumps are ELF64, class 2)");
  if (header[EI_DATA] != ELFDATA2LSB) return c.unsupported("a big-endian ELF file");
  const auto eh = load<Elf64_Ehdr>(header, 0);
  if (eh.e_type != ET_CORE) return c.corrupt("ELF type " + num(eh.e_type) + ", not a core file (ET_CORE, 4)");
  std::uint64_t phnum = eh.e_phnum;
  std::uint64_t shnum = eh.e_shnum;
  // As libkdumpfile reads them: past 0xfffe headers, the counts are in section header 0.
  if (eh.e_shoff != 0 && (shnum == 0 || phnum == PN_XNUM)) {
    if (eh.e_shentsize != sizeof(Elf64_Shdr))
      return c.corrupt("e_shentsize is " + num(eh.e_shentsize) + ", not " + num(sizeof(Elf64_Shdr)) +
                       " (section header 0 holds the header counts)");
    std::vector<std::uint8_t> sh0;
    if (!c.read(eh.e_shoff, sh0, sizeof(Elf64_Shdr), "ELF section header 0")) return;
    const auto first = load<Elf64_Shdr>(sh0, 0);
    if (shnum == 0) shnum = first.sh_size;
    if (shnum > 0 && phnum == PN_XNUM) phnum = first.sh_info;
  }
  if (phnum > c.limits().max_headers) return c.corrupt(num(phnum) + " program headers");
  if (shnum > c.limits().max_headers) return c.corrupt(num(shnum) + " section headers");
  if (phnum > 0 && eh.e_phentsize != sizeof(Elf64_Phdr))
    return c.corrupt("e_phentsize is " + num(eh.e_phentsize) + ", not " + num(sizeof(Elf64_Phdr)) +
                     " (the size of an ELF64 program header)");
  if (shnum > 0 && eh.e_shentsize != sizeof(Elf64_Shdr))
    return c.corrupt("e_shentsize is " + num(eh.e_shentsize) + ", not " + num(sizeof(Elf64_Shdr)));
  if (shnum > 0 && eh.e_shoff == 0) return c.corrupt(num(shnum) + " section headers at offset 0, over the ELF header");

  std::vector<std::uint8_t> table;
  if (phnum > 0 && !c.read(eh.e_phoff, table, phnum * sizeof(Elf64_Phdr), "ELF program headers")) return;
  for (std::uint64_t i = 0; i < phnum && !c.failed(); ++i) {
    const auto ph = load<Elf64_Phdr>(table, i * sizeof(Elf64_Phdr));
    if ((ph.p_type != PT_LOAD && ph.p_type != PT_NOTE) || ph.p_filesz == 0) continue;
    if (!c.need(ph.p_offset, ph.p_filesz, "ELF program headers") || ph.p_type != PT_NOTE) continue;
    const std::string what = "PT_NOTE segment " + num(i);
    if (ph.p_filesz > c.limits().max_note_bytes) {
      c.corrupt(what + " claims " + num(ph.p_filesz) + " bytes of notes");
      break;
    }
    std::vector<std::uint8_t> notes;
    if (c.read(ph.p_offset, notes, ph.p_filesz, what)) c.check_notes(notes, what);
  }
  if (shnum > 0 && !c.failed()) check_elf_sections(c, eh, shnum);
}

// ---- kdump-compressed ------------------------------------------------------

// libkdumpfile's try_header(): a page size it accepts and a bitmap that covers max_mapnr.
std::optional<std::string> header_rejection(std::int32_t block, std::uint32_t bitmap_blocks, std::uint32_t max_mapnr) {
  if (block < kMinBlock || block > kMaxBlock || !std::has_single_bit(static_cast<std::uint32_t>(block)))
    return "block_size " + std::to_string(block) + " is not a power of two from 4096 to 262144";
  if (std::uint64_t{8} * bitmap_blocks * static_cast<std::uint64_t>(block) < max_mapnr)
    return "a bitmap of " + num(bitmap_blocks) + " blocks cannot cover max_mapnr " + num(max_mapnr) + " pages";
  return std::nullopt;
}

bool accepted(std::span<const std::uint8_t> h, std::size_t block_at, std::size_t bitmap_at, std::size_t mapnr_at,
              bool swap) {
  const auto field = [&](std::size_t at) {
    const auto v = load<std::uint32_t>(h, at);
    return swap ? byteswap32(v) : v;
  };
  return !header_rejection(static_cast<std::int32_t>(field(block_at)), field(bitmap_at), field(mapnr_at));
}

// Bits set in [first, end) of an LSB-first bitmap stored at `at`: one page descriptor each.
std::optional<std::uint64_t> count_pages(HeaderCheck& c, std::uint64_t at, std::uint64_t first, std::uint64_t end) {
  std::uint64_t pages = 0;
  std::vector<std::uint8_t> chunk;
  constexpr std::uint64_t kChunkBits = std::uint64_t{1} << 22;
  for (std::uint64_t bit = first & ~std::uint64_t{7}; bit < end; bit += kChunkBits) {
    const std::uint64_t bits = std::min(kChunkBits, end - bit);
    if (!c.read(at + bit / 8, chunk, (bits + 7) / 8, "page bitmap")) return std::nullopt;
    for (std::uint64_t i = 0; i < chunk.size(); ++i) {
      std::uint8_t byte = chunk[i];
      const std::uint64_t b0 = bit + i * 8;
      if (b0 < first) byte &= static_cast<std::uint8_t>(0xff << (first - b0));
      if (b0 + 8 > end) byte &= static_cast<std::uint8_t>(0xff >> (b0 + 8 - end));
      pages += static_cast<std::uint64_t>(std::popcount(byte));
    }
  }
  return pages;
}

void check_page_descriptors(HeaderCheck& c, std::uint64_t at, std::uint64_t pages, std::uint64_t block) {
  if (!c.need(at, pages * kPageDescSize, "page descriptors")) return;
  std::vector<std::uint8_t> chunk;
  constexpr std::uint64_t kChunk = 1 << 16;  // descriptors per read
  for (std::uint64_t first = 0; first < pages && !c.failed(); first += kChunk) {
    const std::uint64_t n = std::min(kChunk, pages - first);
    if (!c.read(at + first * kPageDescSize, chunk, n * kPageDescSize, "page descriptors")) return;
    for (std::uint64_t i = 0; i < n; ++i) {
      const auto offset = load<std::int64_t>(chunk, i * kPageDescSize);
      const auto size = load<std::uint32_t>(chunk, i * kPageDescSize + 8);
      const auto flags = load<std::uint32_t>(chunk, i * kPageDescSize + 12);
      // libkdumpfile reads a compressed page into a buffer of one block.
      if ((flags & kCompressedFlags) && size > block)
        return c.corrupt("page descriptor " + num(first + i) + ": a compressed page of " + num(size) +
                         " bytes, more than a block (" + num(block) + ")");
      if (offset < 0)
        return c.corrupt("page descriptor " + num(first + i) + ": negative offset " + std::to_string(offset));
      if (!c.need(static_cast<std::uint64_t>(offset), size, "page data") && c.failed()) return;
    }
  }
}

void check_diskdump(HeaderCheck& c) {
  std::vector<std::uint8_t> h;
  if (!c.read(0, h, kDiskdumpHeaderSize, "kdump-compressed header")) return;
  // libkdumpfile tries the 32-bit layout first, in both byte orders, then the 64-bit one.
  if (accepted(h, 416, 424, 428, false) || accepted(h, 416, 424, 428, true))
    return c.unsupported("the header reads as a 32-bit diskdump header, which libkdumpfile would take");
  if (!accepted(h, 428, 436, 440, false)) {
    if (accepted(h, 428, 436, 440, true)) return c.unsupported("a big-endian kdump-compressed header");
    return c.corrupt(
        *header_rejection(load<std::int32_t>(h, 428), load<std::uint32_t>(h, 436), load<std::uint32_t>(h, 440)));
  }
  const auto version = load<std::int32_t>(h, 8);
  const auto block = static_cast<std::uint64_t>(load<std::int32_t>(h, 428));
  const auto sub_blocks = load<std::int32_t>(h, 432);
  std::uint64_t bitmap_blocks = load<std::uint32_t>(h, 436);
  std::uint64_t max_pfn = load<std::uint32_t>(h, 440);
  if (version < 0) return c.corrupt("header_version " + std::to_string(version));
  if (sub_blocks < 0) return c.corrupt("sub_hdr_size " + std::to_string(sub_blocks));

  std::uint64_t start_pfn = 0, end_pfn = ~std::uint64_t{0};
  if (version >= 1) {
    std::vector<std::uint8_t> sub;
    if (!c.read(block, sub, kSubHeaderSize, "kdump sub-header")) return;
    const auto split = load<std::int32_t>(sub, 12);
    const auto area = [&](std::size_t off_at, std::size_t size_at, const std::string& what) {
      const auto off = load<std::uint64_t>(sub, off_at), size = load<std::uint64_t>(sub, size_at);
      if (size > c.limits().max_note_bytes) c.corrupt("the sub-header's " + what + " claims " + num(size) + " bytes");
      return size > 0 && c.need(off, size, what) && !c.failed();
    };
    if (version >= 3 && area(32, 40, "VMCOREINFO")) {
      std::vector<std::uint8_t> text;
      if (c.read(load<std::uint64_t>(sub, 32), text, load<std::uint64_t>(sub, 40), "VMCOREINFO"))
        c.check_vmcoreinfo(text, "the sub-header's VMCOREINFO");
    }
    if (version >= 4 && area(48, 56, "ELF notes")) {
      std::vector<std::uint8_t> notes;
      if (c.read(load<std::uint64_t>(sub, 48), notes, load<std::uint64_t>(sub, 56), "ELF notes"))
        c.check_notes(notes, "the sub-header's notes");
    }
    if (version >= 5) area(64, 72, "eraseinfo");
    if (c.failed()) return;
    if (version >= 2 && split) {
      start_pfn = load<std::uint64_t>(sub, 16);
      end_pfn = load<std::uint64_t>(sub, 24);
    }
    if (version >= 6) {
      if (split) {
        start_pfn = load<std::uint64_t>(sub, 80);
        end_pfn = load<std::uint64_t>(sub, 88);
      }
      max_pfn = load<std::uint64_t>(sub, 96);
    }
  }
  // read_bitmap(): both bitmaps follow the sub-header; a dump of every page uses
  // the second one (the first half of bitmap_blocks), descriptors follow both.
  const std::uint64_t bitmaps_at = (1 + static_cast<std::uint64_t>(sub_blocks)) * block;
  const std::uint64_t descriptors_at = bitmaps_at + bitmap_blocks * block;
  if (!c.need(bitmaps_at, bitmap_blocks * block, "page bitmaps")) return;
  std::uint64_t used_at = bitmaps_at;
  std::uint64_t used_bits = bitmap_blocks * block * 8;
  if (max_pfn <= used_bits / 2) {
    bitmap_blocks /= 2;
    used_at += bitmap_blocks * block;
    used_bits = bitmap_blocks * block * 8;
  }
  const auto pages = count_pages(c, used_at, start_pfn, std::min(used_bits, end_pfn));
  if (pages) check_page_descriptors(c, descriptors_at, *pages, block);
}

class FdBytes final : public DumpBytes {
 public:
  FdBytes(int fd, std::uint64_t size) : fd_(fd), size_(size) {}
  std::uint64_t size() const override { return size_; }
  bool read(std::uint64_t offset, std::span<std::uint8_t> out) const override {
    std::size_t got = 0;
    while (got < out.size()) {
      const ssize_t n = ::pread(fd_, out.data() + got, out.size() - got, static_cast<off_t>(offset + got));
      if (n <= 0) return false;
      got += static_cast<std::size_t>(n);
    }
    return true;
  }

 private:
  int fd_;
  std::uint64_t size_;
};

}  // namespace

std::optional<DumpHeaderProblem> check_dump_headers(const DumpBytes& file, const DumpHeaderLimits& limits) {
  std::array<std::uint8_t, 8> magic{};
  if (!file.read(0, std::span(magic).first(SELFMAG))) return std::nullopt;
  HeaderCheck c(file, limits);
  if (std::memcmp(magic.data(), ELFMAG, SELFMAG) == 0) {
    check_elf(c);
  } else if (file.read(0, magic) &&
             (std::memcmp(magic.data(), "KDUMP   ", 8) == 0 || std::memcmp(magic.data(), "DISKDUMP", 8) == 0)) {
    check_diskdump(c);
  }
  return c.result();
}

void check_dump_file(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;  // a pipe or device: libkdumpfile says what it makes of it
  if (auto problem = check_dump_headers(FdBytes(fd, static_cast<std::uint64_t>(st.st_size))))
    throw DumpError(path + ": " + problem->what);
}

}  // namespace btaudit
