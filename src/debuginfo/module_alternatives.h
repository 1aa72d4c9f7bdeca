// A module's alternatives table. A .ko is relocatable: the s32 offsets of its .altinstructions
// entries are 0 in the file, and .rela.altinstructions says what each one points at (a section
// symbol of .text or .altinstr_replacement, plus an addend). The kernel's module loader applies
// them before apply_alternatives(); here they are applied to a copy of the table at the
// addresses libdwfl gave the module's sections, so that the table decodes as vmlinux's does.
#pragma once
#include <gelf.h>

#include <cstdint>
#include <optional>
#include <string>

#include "debuginfo/kernel_alternatives.h"

namespace btaudit {

struct ModuleAlternatives {
  KernelAlternatives table;
  // The table was read, or the module has none (nothing in it is rewritten at boot); false when
  // one is there and could not be read.
  bool known = false;
  std::string source;  // how it was read, or why not
};

// `elf`: the module as libdwfl placed it (section headers' sh_addr, plus `bias`); `layout`: struct
// alt_instr from vmlinux's DWARF, if any; [low, high): the module's address range. Bounded: a
// table over 16 MiB, or relocations not of the PC-relative kinds a table holds, leave it unknown.
ModuleAlternatives read_module_alternatives(Elf* elf, GElf_Addr bias, const std::optional<AltInstrLayout>& layout,
                                            std::uint64_t low, std::uint64_t high);

}  // namespace btaudit
