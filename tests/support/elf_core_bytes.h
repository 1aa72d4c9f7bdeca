// Dump files built byte by byte from the format definitions (<elf.h>), for the
// unit tests and the fuzz targets: an ELF core as /proc/vmcore writes it, with
// one NT_PRSTATUS note, a VMCOREINFO note and two pages of memory.
#pragma once
#include <elf.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace btaudit::test {

template <typename T>
void put(std::vector<std::uint8_t>& b, std::size_t at, T v) {
  if (b.size() < at + sizeof v) b.resize(at + sizeof v);
  std::memcpy(b.data() + at, &v, sizeof v);
}

inline void put_note(std::vector<std::uint8_t>& b, std::size_t at, const std::string& name, std::uint32_t type,
                     std::uint32_t descsz) {
  put<std::uint32_t>(b, at, static_cast<std::uint32_t>(name.size() + 1));
  put<std::uint32_t>(b, at + 4, descsz);
  put<std::uint32_t>(b, at + 8, type);
  std::memcpy(b.data() + at + 12, name.c_str(), name.size() + 1);
}

inline std::size_t align4(std::size_t n) { return (n + 3) & ~std::size_t{3}; }

// An ELF core as /proc/vmcore writes it: a PT_NOTE (one NT_PRSTATUS, VMCOREINFO), two PT_LOADs.
struct ElfCore {
  std::vector<std::uint8_t> bytes;
  std::size_t notes_at = 0, notes_size = 0, loads_at = 0;
};

inline ElfCore elf_core(const std::string& vmcoreinfo = "OSRELEASE=6.1.0\nPAGESIZE=4096\n") {
  ElfCore c;
  auto& b = c.bytes;
  b.assign(64 + 3 * sizeof(Elf64_Phdr), 0);
  std::memcpy(b.data(), ELFMAG, SELFMAG);
  b[EI_CLASS] = ELFCLASS64;
  b[EI_DATA] = ELFDATA2LSB;
  b[EI_VERSION] = EV_CURRENT;
  put<std::uint16_t>(b, 16, ET_CORE);
  put<std::uint16_t>(b, 18, EM_X86_64);
  put<std::uint32_t>(b, 20, EV_CURRENT);
  put<std::uint64_t>(b, 32, 64);  // e_phoff
  put<std::uint16_t>(b, 52, 64);  // e_ehsize
  put<std::uint16_t>(b, 54, sizeof(Elf64_Phdr));
  put<std::uint16_t>(b, 56, 3);
  c.notes_at = b.size();
  const std::string& info = vmcoreinfo;
  std::size_t at = c.notes_at;
  b.resize(at + 12 + align4(5) + 336 + 12 + align4(11) + align4(info.size()), 0);
  put_note(b, at, "CORE", NT_PRSTATUS, 336);
  at += 12 + align4(5) + 336;
  put_note(b, at, "VMCOREINFO", 0, static_cast<std::uint32_t>(info.size()));
  std::memcpy(b.data() + at + 12 + align4(11), info.data(), info.size());
  c.notes_size = b.size() - c.notes_at;
  c.loads_at = (b.size() + 4095) / 4096 * 4096;
  b.resize(c.loads_at + 2 * 4096, 0xcc);
  const auto phdr = [&](int i, std::uint32_t type, std::uint64_t off, std::uint64_t size, std::uint64_t vaddr) {
    const std::size_t p = 64 + i * sizeof(Elf64_Phdr);
    put<std::uint32_t>(b, p, type);
    put<std::uint64_t>(b, p + 8, off);
    put<std::uint64_t>(b, p + 16, vaddr);
    put<std::uint64_t>(b, p + 24, vaddr - 0xffff888000000000ULL);
    put<std::uint64_t>(b, p + 32, size);
    put<std::uint64_t>(b, p + 40, size);
  };
  phdr(0, PT_NOTE, c.notes_at, c.notes_size, 0xffff888000000000ULL);
  phdr(1, PT_LOAD, c.loads_at, 4096, 0xffff888000100000ULL);
  phdr(2, PT_LOAD, c.loads_at + 4096, 4096, 0xffff888000200000ULL);
  return c;
}

}  // namespace btaudit::test
