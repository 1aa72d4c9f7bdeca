// A kernel symbol as every part of btaudit sees it: vmlinux's or a module's,
// from DWARF-less ELF tables, the kernel's own kallsyms or a module's symtab
// in a dump. The one symbol struct (the call-site checker, the walk's
// symbolization and the debuginfo lookups all speak it), and its borrowed form.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace btaudit {

struct Symbol {
  std::string name;
  std::uint64_t address = 0;  // in the address space of whoever answered (link or runtime)
  std::uint64_t size = 0;     // kallsyms answers: the distance to the next symbol; ELF answers: st_size
  std::string module;         // "" for vmlinux
};

// A Symbol whose name is borrowed, for bulk tables: vmlinux's 130,000 ELF symbols by
// name, whose names stay in libelf's string table or a profile's mapped bytes (the
// table's owner keeps those alive). Lookups hand out Symbols.
struct SymbolView {
  std::string_view name;
  std::uint64_t address = 0;
  std::uint64_t size = 0;
};

}  // namespace btaudit
