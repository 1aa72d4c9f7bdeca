// Loaded modules read from the dump (the kernel's "modules" list): name, core
// text range, kallsyms symbols and ORC tables, with struct offsets from DWARF.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "debuginfo/kernel_types.h"
#include "memory/memory_source.h"

namespace btaudit {

struct ModuleSymbol {
  std::string name;
  std::uint64_t address = 0;
  std::uint64_t size = 0;
};

struct LoadedModule {
  std::string name;
  std::uint64_t text_begin = 0, text_end = 0;
  std::uint64_t num_orcs = 0, orc_ip = 0, orc_entries = 0;
  std::vector<ModuleSymbol> symbols;  // text symbols, sorted by address
};

// Reads at most 4096 modules; problems (unreadable entries) are appended to `problems`.
std::vector<LoadedModule> read_modules(MemorySource& m, KernelTypes& types, std::uint64_t modules_list_head,
                                       std::vector<std::string>& problems);

}  // namespace btaudit
