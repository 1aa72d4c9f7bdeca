// How long an ELF vmcore says it is: the end of its furthest PT_LOAD or
// PT_NOTE. A /proc/vmcore copy cut short (a full disk, an interrupted copy)
// still opens in libkdumpfile, which then reads the missing pages as absent
// one by one; comparing this with the file's size names the cause at once.
#pragma once
#include <cstdint>
#include <optional>

namespace btaudit {

// Nothing when fd is not an ELF64 file. When the program headers are cut
// themselves, the end of the last one that could be read.
std::optional<std::uint64_t> elf_dump_extent(int fd);

}  // namespace btaudit
