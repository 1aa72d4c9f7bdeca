// How long a dump file says it is, from its own headers: an ELF vmcore's
// furthest PT_LOAD or PT_NOTE, a kdump-compressed file's last page. A copy
// cut short (a full disk, an interrupted copy) still opens in libkdumpfile,
// which then reads the missing pages as absent one by one; comparing this
// with the file's size names the cause at once.
#pragma once
#include <cstdint>
#include <optional>

namespace btaudit {

struct DumpExtent {
  std::uint64_t end = 0;          // at least this many bytes
  const char* described_by = "";  // what says so: "ELF program headers", "page descriptors", ...
};

// Nothing when fd is neither an ELF64 nor a kdump-compressed file, or its
// headers are unusable. When the headers are cut themselves, the end of the
// last one that could be read.
std::optional<DumpExtent> dump_extent(int fd);

}  // namespace btaudit
