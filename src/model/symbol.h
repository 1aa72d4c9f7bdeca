// A kernel symbol as every part of btaudit sees it: vmlinux's or a module's,
// from DWARF-less ELF tables, the kernel's own kallsyms or a module's symtab
// in a dump. The one symbol struct (the call-site checker, the walk's
// symbolization and the debuginfo lookups all speak it).
#pragma once
#include <cstdint>
#include <string>

namespace btaudit {

struct Symbol {
  std::string name;
  std::uint64_t address = 0;  // in the address space of whoever answered (link or runtime)
  std::uint64_t size = 0;     // kallsyms answers: the distance to the next symbol; ELF answers: st_size
  std::string module;         // "" for vmlinux
};

}  // namespace btaudit
