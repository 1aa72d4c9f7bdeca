// The dump header checks on dumps built here, byte by byte, from the format
// definitions (<elf.h>; makedumpfile's diskdump_mod.h): a sound ELF core and a
// sound kdump-compressed file pass, every cut of either is named, and every
// field is swept through values that libkdumpfile 0.5.1 would trust.
#include "vmcore/dump_header_check.h"

#include <elf.h>

#include <boost/test/unit_test.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "support/elf_core_bytes.h"

using namespace btaudit;
using btaudit::test::elf_core;
using btaudit::test::ElfCore;
using btaudit::test::put;
using btaudit::test::put_note;

namespace {

class MemoryBytes final : public DumpBytes {
 public:
  explicit MemoryBytes(std::vector<std::uint8_t> bytes) : bytes_(std::move(bytes)) {}
  std::uint64_t size() const override { return bytes_.size(); }
  bool read(std::uint64_t offset, std::span<std::uint8_t> out) const override {
    if (offset > bytes_.size() || bytes_.size() - offset < out.size()) return false;
    std::memcpy(out.data(), bytes_.data() + offset, out.size());
    return true;
  }

 private:
  std::vector<std::uint8_t> bytes_;
};

// A kdump-compressed file of version 6 with two pages, one of them zlib-compressed.
struct Diskdump {
  std::vector<std::uint8_t> bytes;
  std::size_t descs_at = 0, notes_at = 0;
};

Diskdump diskdump() {
  constexpr std::size_t kBlock = 4096;
  Diskdump d;
  auto& b = d.bytes;
  b.assign(kBlock * 4, 0);
  std::memcpy(b.data(), "KDUMP   ", 8);
  put<std::int32_t>(b, 8, 6);         // header_version
  put<std::int32_t>(b, 416, 12345);   // timestamp.tv_usec: not a page size
  put<std::uint32_t>(b, 424, 1);      // status: zlib
  put<std::int32_t>(b, 428, kBlock);  // block_size
  put<std::int32_t>(b, 432, 1);       // sub_hdr_size
  put<std::uint32_t>(b, 436, 2);      // bitmap_blocks: two bitmaps of one block
  put<std::uint32_t>(b, 440, 1000);   // max_mapnr
  d.notes_at = kBlock + 512;          // inside the sub-header's block
  put_note(b, d.notes_at, "CORE", NT_PRSTATUS, 336);
  put<std::uint64_t>(b, kBlock + 48, d.notes_at);  // offset_note
  put<std::uint64_t>(b, kBlock + 56, 12 + 8 + 336);
  put<std::uint64_t>(b, kBlock + 96, 1000);  // max_mapnr_64
  b[2 * kBlock] = 0x05;                      // first bitmap: pages 0 and 2
  b[3 * kBlock] = 0x05;                      // second bitmap: pages 0 and 2 are in the file
  d.descs_at = 4 * kBlock;
  const std::size_t data = d.descs_at + 2 * 24;
  b.resize(data + kBlock + 100, 0);
  put<std::int64_t>(b, d.descs_at, static_cast<std::int64_t>(data));
  put<std::uint32_t>(b, d.descs_at + 8, kBlock);  // uncompressed
  put<std::int64_t>(b, d.descs_at + 24, static_cast<std::int64_t>(data + kBlock));
  put<std::uint32_t>(b, d.descs_at + 32, 100);
  put<std::uint32_t>(b, d.descs_at + 36, 1);  // zlib
  return d;
}

std::optional<DumpHeaderProblem> check(const std::vector<std::uint8_t>& bytes) {
  return check_dump_headers(MemoryBytes(bytes));
}

std::string what(const std::vector<std::uint8_t>& bytes) {
  const auto p = check(bytes);
  return p ? p->what : std::string("(sound)");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(dump_header_check)

BOOST_AUTO_TEST_CASE(sound_dumps_pass) {
  BOOST_TEST(what(elf_core().bytes) == "(sound)");
  BOOST_TEST(what(diskdump().bytes) == "(sound)");
}

BOOST_AUTO_TEST_CASE(every_cut_of_an_elf_core_is_named) {
  const ElfCore c = elf_core();
  for (std::size_t size = SELFMAG; size < c.bytes.size(); ++size) {
    const std::vector<std::uint8_t> cut(c.bytes.begin(), c.bytes.begin() + static_cast<std::ptrdiff_t>(size));
    BOOST_TEST_CONTEXT("cut at " << size) {
      const auto p = check(cut);
      BOOST_REQUIRE(p.has_value());
      BOOST_TEST(p->truncated);
      BOOST_TEST(p->what.find("truncated: the file has " + std::to_string(size) + " bytes") == 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(every_cut_of_a_diskdump_is_named) {
  const Diskdump d = diskdump();
  for (std::size_t size = 8; size < d.bytes.size(); size += size < 5000 ? 1 : 7) {
    const std::vector<std::uint8_t> cut(d.bytes.begin(), d.bytes.begin() + static_cast<std::ptrdiff_t>(size));
    BOOST_TEST_CONTEXT("cut at " << size) BOOST_TEST(check(cut)->truncated);
  }
}

BOOST_AUTO_TEST_CASE(header_entry_sizes_other_than_the_formats_are_corrupt) {
  for (std::uint16_t size = 0; size < 200; ++size) {
    ElfCore c = elf_core();
    put<std::uint16_t>(c.bytes, 54, size);
    BOOST_TEST_CONTEXT("e_phentsize " << size) {
      if (size == sizeof(Elf64_Phdr))
        BOOST_TEST(what(c.bytes) == "(sound)");
      else
        BOOST_TEST(what(c.bytes).find("e_phentsize is " + std::to_string(size)) != std::string::npos);
    }
    // Section headers that only give the counts (e_shoff set, e_shnum 0) need e_shentsize too.
    put<std::uint16_t>(c.bytes, 54, sizeof(Elf64_Phdr));
    put<std::uint64_t>(c.bytes, 40, 64);
    put<std::uint16_t>(c.bytes, 58, size);
    BOOST_TEST_CONTEXT("e_shentsize " << size) {
      if (size != sizeof(Elf64_Shdr)) BOOST_TEST(what(c.bytes).find("e_shentsize") != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(the_class_byte_order_and_type_of_x86_64_cores_only) {
  const struct {
    std::size_t at;
    std::uint8_t value;
    const char* says;
  } cases[] = {{EI_CLASS, ELFCLASS32, "ELF class 1"},
               {EI_DATA, ELFDATA2MSB, "big-endian"},
               {16, ET_EXEC, "not a core file"},
               {16, ET_DYN, "not a core file"}};
  for (const auto& k : cases) {
    ElfCore c = elf_core();
    c.bytes[k.at] = k.value;
    BOOST_TEST_CONTEXT(k.says) BOOST_TEST(what(c.bytes).find(k.says) != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(program_headers_past_the_file_or_past_any_file) {
  for (int header = 0; header < 3; ++header) {
    for (const std::uint64_t filesz : {std::uint64_t{1} << 20, std::uint64_t{1} << 40, ~std::uint64_t{0}}) {
      ElfCore c = elf_core();
      put<std::uint64_t>(c.bytes, 64 + header * sizeof(Elf64_Phdr) + 32, filesz);
      BOOST_TEST_CONTEXT("header " << header << " p_filesz " << filesz) {
        const auto p = check(c.bytes);
        BOOST_REQUIRE(p.has_value());
        // A size no file can have is corruption; one a longer file could have, a cut.
        BOOST_TEST(p->truncated == (filesz < (std::uint64_t{1} << 48)));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(every_note_stays_inside_its_segment) {
  const ElfCore good = elf_core();
  // Sizes past the note area (412 bytes): a smaller one only moves where the next note starts.
  for (const std::uint32_t size : {0x1000u, 0xffffffu, 0xffffffffu}) {
    for (const std::size_t field : {0u, 4u}) {  // n_namesz, n_descsz of the first note
      ElfCore c = elf_core();
      put<std::uint32_t>(c.bytes, c.notes_at + field, size);
      BOOST_TEST_CONTEXT((field ? "n_descsz " : "n_namesz ") << size)
      BOOST_TEST(what(c.bytes).find("runs past its end") != std::string::npos);
    }
  }
  BOOST_TEST(what(good.bytes) == "(sound)");
}

// libkdumpfile sizes its read cache and its page-table walks by VMCOREINFO's PAGESIZE while it
// opens the file: x86_64's is 4096, and any other value, in the ELF note or in a kdump
// sub-header's copy, in any of the text's PAGESIZE lines, is refused before it gets there.
BOOST_AUTO_TEST_CASE(a_vmcoreinfo_page_size_other_than_x86_64s_is_corrupt) {
  const std::vector<std::string> values{"0",       "1",     "2048",  "4095",  "4097",   "8192",   "65536",
                                        "2097152", "-4096", "04096", "4096 ", "4096\r", "0x1000", ""};
  const auto texts = [](const std::string& value) {
    const std::string line = "PAGESIZE=" + value + "\n";
    return std::vector<std::string>{"OSRELEASE=6.1.0\n" + line, line + "OSRELEASE=6.1.0\n",
                                    "OSRELEASE=6.1.0\nPAGESIZE=4096\n" + line, line + "PAGESIZE=4096\n"};
  };
  for (const std::string& value : values) {
    for (const std::string& text : texts(value)) {
      BOOST_TEST_CONTEXT("VMCOREINFO " << text) {
        const std::string elf = what(elf_core(text).bytes);
        BOOST_TEST(elf.find("the VMCOREINFO note of PT_NOTE segment 0 says PAGESIZE=") != std::string::npos);
        BOOST_TEST(elf.find('\n') == std::string::npos);
        Diskdump d = diskdump();
        constexpr std::size_t kText = 4096 + 512;  // in the sub-header's block, past its 112 bytes
        std::memcpy(d.bytes.data() + kText, text.data(), text.size());
        put<std::uint64_t>(d.bytes, 4096 + 32, kText);
        put<std::uint64_t>(d.bytes, 4096 + 40, text.size());
        BOOST_TEST(what(d.bytes).find("the sub-header's VMCOREINFO says PAGESIZE=") != std::string::npos);
      }
    }
  }
  for (const std::string& text : {std::string("OSRELEASE=6.1.0\nPAGESIZE=4096\n"), std::string("OSRELEASE=6.1.0\n"),
                                  std::string("PAGESIZE=4096\nPAGESIZE=4096"), std::string("XPAGESIZE=8192\n")})
    BOOST_TEST_CONTEXT("VMCOREINFO " << text) BOOST_TEST(what(elf_core(text).bytes) == "(sound)");
}

BOOST_AUTO_TEST_CASE(header_counts_past_the_file) {
  for (const std::uint16_t phnum : {std::uint16_t{0x7fff}, std::uint16_t{PN_XNUM}}) {
    ElfCore c = elf_core();
    put<std::uint16_t>(c.bytes, 56, phnum);
    BOOST_TEST_CONTEXT("e_phnum " << phnum) BOOST_TEST(check(c.bytes).has_value());
  }
}

BOOST_AUTO_TEST_CASE(diskdump_block_sizes_libkdumpfile_accepts_only) {
  std::vector<std::int64_t> blocks{-1, 0, 1, 4095, 4097, 12288, 1 << 19};
  for (std::int64_t k = 1; k <= (1 << 18); k *= 2) blocks.push_back(k);
  for (const std::int64_t block : blocks) {
    Diskdump d = diskdump();
    put<std::int32_t>(d.bytes, 428, static_cast<std::int32_t>(block));
    BOOST_TEST_CONTEXT("block_size " << block) {
      const auto p = check(d.bytes);
      // 4096 is the block the file was written with; a larger power of two moves every
      // structure past the end of this small file; anything else is no page size.
      if (block == 4096)
        BOOST_TEST(!p.has_value());
      else
        BOOST_TEST(p.has_value());
    }
  }
}

BOOST_AUTO_TEST_CASE(diskdump_sub_header_areas_inside_the_file) {
  for (const std::size_t field : {40u, 56u, 72u}) {  // size_vmcoreinfo, size_note, size_eraseinfo
    for (const std::uint64_t size : {std::uint64_t{1} << 20, std::uint64_t{1} << 40, ~std::uint64_t{0}}) {
      Diskdump d = diskdump();
      put<std::uint64_t>(d.bytes, 4096 + field, size);
      BOOST_TEST_CONTEXT("sub-header field at " << field << " = " << size) BOOST_TEST(check(d.bytes).has_value());
    }
  }
}

BOOST_AUTO_TEST_CASE(a_compressed_page_larger_than_a_block_is_corrupt) {
  for (std::uint32_t size = 4000; size < 4200; size += 8) {
    Diskdump d = diskdump();
    put<std::uint32_t>(d.bytes, d.descs_at + 24 + 8, size);
    d.bytes.resize(d.bytes.size() + 4200, 0);
    BOOST_TEST_CONTEXT("compressed size " << size) {
      if (size > 4096)
        BOOST_TEST(what(d.bytes).find("more than a block") != std::string::npos);
      else
        BOOST_TEST(what(d.bytes) == "(sound)");
    }
  }
}

BOOST_AUTO_TEST_CASE(a_header_libkdumpfile_would_read_as_32_bit_is_refused) {
  Diskdump d = diskdump();
  put<std::int32_t>(d.bytes, 416, 8192);  // a page size where the 32-bit layout has block_size
  BOOST_TEST(what(d.bytes).find("32-bit diskdump header") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(more_pages_in_the_bitmap_than_descriptors_in_the_file) {
  Diskdump d = diskdump();
  std::memset(d.bytes.data() + 3 * 4096, 0xff, 4096);  // every page of the second bitmap
  const auto p = check(d.bytes);
  BOOST_REQUIRE(p.has_value());
  BOOST_TEST(p->what.find("by its page descriptors") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
