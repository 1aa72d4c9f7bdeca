// The build ids that name a kernel's debuginfo on a debuginfod server, read
// from the files a machine has for a release: the kernel image
// (boot/vmlinuz-<release>, an x86 bzImage whose payload is the compressed
// vmlinux; or an uncompressed ELF vmlinux) and the modules under
// lib/modules/<release>, which keep their .note.gnu.build-id when stripped.
// Every offset and size read from a file is checked; a payload is unpacked
// only as far as vmlinux's notes (and never past a size cap).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace btaudit {

struct BuildIdResult {
  std::optional<std::string> build_id;  // lowercase hex
  std::string problem;                  // why there is none, when there is none
};

// NT_GNU_BUILD_ID of an ELF64 image held in memory (a prefix is enough when it holds the notes).
std::optional<std::string> elf_image_build_id(std::string_view image);

// The build id of vmlinux inside a kernel image file (bzImage or ELF).
BuildIdResult kernel_image_build_id(const std::string& path, std::uint64_t max_unpacked = std::uint64_t{1} << 30);

// The build id of an ELF file (a module, a vmlinux), and whether it carries DWARF.
struct ElfFileFacts {
  std::optional<std::string> build_id;
  bool has_dwarf = false;
};
std::optional<ElfFileFacts> elf_file_facts(const std::string& path);

}  // namespace btaudit
