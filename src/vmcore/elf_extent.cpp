#include "vmcore/elf_extent.h"

#include <elf.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace btaudit {

namespace {

constexpr std::uint64_t kMaxPhdrs = 1u << 20;  // far more than any dump has

template <typename T>
bool read_at(int fd, std::uint64_t off, T& v) {
  return ::pread(fd, &v, sizeof v, static_cast<off_t>(off)) == static_cast<ssize_t>(sizeof v);
}

}  // namespace

std::optional<std::uint64_t> elf_dump_extent(int fd) {
  Elf64_Ehdr eh;
  if (!read_at(fd, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_phentsize != sizeof(Elf64_Phdr))
    return std::nullopt;
  std::uint64_t count = eh.e_phnum;
  if (count == PN_XNUM) {  // more headers than e_phnum holds: the count is in section 0's sh_info
    Elf64_Shdr sh0;
    if (eh.e_shoff == 0 || !read_at(fd, eh.e_shoff, sh0)) return std::nullopt;
    count = sh0.sh_info;
  }
  if (count == 0 || count > kMaxPhdrs) return std::nullopt;
  std::uint64_t end = eh.e_phoff + count * sizeof(Elf64_Phdr);
  for (std::uint64_t i = 0; i < count; ++i) {
    Elf64_Phdr ph;
    if (!read_at(fd, eh.e_phoff + i * sizeof ph, ph)) return end;  // the headers themselves are cut
    if ((ph.p_type == PT_LOAD || ph.p_type == PT_NOTE) && ph.p_filesz && ph.p_offset + ph.p_filesz > end)
      end = ph.p_offset + ph.p_filesz;
  }
  return end;
}

}  // namespace btaudit
