// Loaded modules read from the dump (the kernel's "modules" list): name, text
// ranges, the module's own symtab as kallsyms looks names up in it, and ORC
// tables, with struct offsets from the kernel's types.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memory/memory_source.h"
#include "provider/module_kallsyms.h"
#include "provider/type_provider.h"

namespace btaudit {

struct LoadedModule {
  std::string name;
  std::uint64_t text_begin = 0, text_end = 0;
  std::uint64_t num_orcs = 0, orc_ip = 0, orc_entries = 0;
  ModuleKallsyms kallsyms;  // mod->kallsyms: the core symbols once init is done
};

// Reads at most 4096 modules; problems (unreadable entries) are appended to `problems`.
std::vector<LoadedModule> read_modules(MemorySource& m, TypeProvider& types, std::uint64_t modules_list_head,
                                       std::vector<std::string>& problems);

}  // namespace btaudit
