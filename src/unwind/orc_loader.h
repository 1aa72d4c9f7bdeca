// The ORC tables of a kernel in memory: vmlinux's (sorted at boot, between
// __start_orc_unwind_ip and __stop_orc_unwind_ip) and each loaded module's,
// in the format version orc_entry's DWARF members give (orc_table.h). A
// vmlinux without ORC symbols is a frame-pointer kernel
// (CONFIG_UNWINDER_FRAME_POINTER), or a guess one (CONFIG_UNWINDER_GUESS) when
// its struct unwind_state says so.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "memory/memory_source.h"
#include "model/walked_stack.h"
#include "provider/symbol_provider.h"
#include "provider/type_provider.h"
#include "unwind/orc_table.h"
#include "vmcore/module_list.h"

namespace btaudit {

// The ORC format version of a kernel and the rule that told it (the rows of kVersionRules in
// orc_loader.cpp, first answer wins): the `.orc_header` hash, the kernel's own frame-pointer
// fallback entry (orc_fp_entry, whose bp_reg is PREV_SP: 8 from 7.1 on), orc_entry's DWARF
// members. `kaslr` moves link addresses to runtime ones.
struct OrcVersion {
  int version = 1;
  const char* rule = "";
};
OrcVersion orc_version_of(MemorySource& m, SymbolProvider& symbols, TypeProvider& types, std::int64_t kaslr);

struct LoadedOrc {
  OrcTable table;
  int version = 0;
  const char* version_rule = "";
  // Without ORC symbols: frame pointers (CONFIG_UNWINDER_FRAME_POINTER), or none at all
  // (CONFIG_UNWINDER_GUESS) when struct unwind_state is unwind_guess.c's, a bare `sp`
  // (arch/x86/include/asm/unwind.h).
  KernelUnwinder unwinder = KernelUnwinder::Orc;
};

// `symbols` answers with link addresses, `kaslr` moves them to runtime ones.
// Problems (tables not in the dump) are appended to `problems`. vmlinux's table is read from
// `m` as lookups reach it (OrcTable::add_sorted_lazily): `m` must outlive the table.
LoadedOrc load_orc(MemorySource& m, SymbolProvider& symbols, TypeProvider& types, std::int64_t kaslr,
                   const std::vector<LoadedModule>& modules, std::vector<std::string>& problems);

}  // namespace btaudit
