// The ORC tables of a kernel in memory: vmlinux's (sorted at boot, between
// __start_orc_unwind_ip and __stop_orc_unwind_ip) and each loaded module's,
// in the format version orc_entry's DWARF members give (orc_table.h). A
// vmlinux without ORC symbols is a frame-pointer kernel
// (CONFIG_UNWINDER_FRAME_POINTER).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "memory/memory_source.h"
#include "provider/symbol_provider.h"
#include "provider/type_provider.h"
#include "unwind/orc_table.h"
#include "vmcore/module_list.h"

namespace btaudit {

// v3 (6.4+): orc_entry has `signal` and no `end`; v2 (6.3): both; v1: `end` only.
int orc_version_of(TypeProvider& types);

struct LoadedOrc {
  OrcTable table;
  int version = 0;
  bool frame_pointer_kernel = false;
};

// `symbols` answers with link addresses, `kaslr` moves them to runtime ones.
// Problems (tables not in the dump) are appended to `problems`.
LoadedOrc load_orc(MemorySource& m, SymbolProvider& symbols, TypeProvider& types, std::int64_t kaslr,
                   const std::vector<LoadedModule>& modules, std::vector<std::string>& problems);

}  // namespace btaudit
