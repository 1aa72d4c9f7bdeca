// Checks a dump file's headers before libkdumpfile sees them. libkdumpfile
// 0.5.1 is a reader, not a validator: it reads program headers with whatever
// e_phentsize says (0: a segfault), maps notes of any size the sub-header
// claims (2^40: a bus error past the end of the file), copies a compressed page
// of up to 256 KiB into a one-page buffer, and opens a file cut short without
// a word. So every size, count and offset it trusts is checked here against
// the format's definition and the file's size:
//
// - ELF (ELF64, little-endian, ET_CORE: what /proc/vmcore and QEMU write):
//   e_phentsize/e_shentsize, e_phnum (PN_XNUM through section 0), the program
//   and section header tables, every PT_LOAD and PT_NOTE inside the file,
//   every note inside its PT_NOTE, the section-name table inside the file and
//   NUL-terminated, the Xen notes' sizes.
// - kdump-compressed (makedumpfile's diskdump_mod.h, x86_64 layout): which
//   header layout libkdumpfile will pick (it tries the 32-bit one first),
//   block_size, sub_hdr_size, bitmap_blocks and max_mapnr, the sub-header and
//   its VMCOREINFO, note and eraseinfo extents, the notes inside their area,
//   the bitmaps, and every page descriptor (inside the file, a compressed
//   page no larger than a block).
//
// A file that is neither is left to libkdumpfile, which names what it is not.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace btaudit {

// The bytes the check reads: a file descriptor, or memory (tests, the fuzzer).
class DumpBytes {
 public:
  virtual ~DumpBytes() = default;
  virtual std::uint64_t size() const = 0;
  // Fills `out` from `offset`; false when the file holds fewer bytes there.
  virtual bool read(std::uint64_t offset, std::span<std::uint8_t> out) const = 0;
};

struct DumpHeaderProblem {
  bool truncated = false;  // the headers describe more bytes than the file holds
  std::string what;        // one line, without the file's name
};

// Bounds on what a header may ask for, beyond which it is corrupt, not large.
struct DumpHeaderLimits {
  std::uint64_t max_note_bytes = std::uint64_t{64} << 20;  // a PT_NOTE or note area (8192 CPUs need ~3.5 MiB)
  std::uint64_t max_headers = std::uint64_t{1} << 20;      // program or section headers
  std::uint64_t max_name_table_bytes = std::uint64_t{16} << 20;
};

std::optional<DumpHeaderProblem> check_dump_headers(const DumpBytes& file, const DumpHeaderLimits& limits = {});

// Checks the dump open at `fd`; throws DumpError "PATH: what" when its headers are unusable.
void check_dump_file(int fd, const std::string& path);

}  // namespace btaudit
