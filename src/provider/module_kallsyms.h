// A loaded module's symbols as the kernel looks addresses up in them
// (kernel/module/kallsyms.c find_kallsyms_symbol(), 6.14; the same rule since
// 2.6): the module's own ELF symtab as it sits in memory (mod->kallsyms, the
// core symbols once init is done), scanned in symtab order. The name is the
// first symbol with the highest value at or below the address; the size is
// the distance to the lowest value above it, or to the end of the module's
// text (init text for an init address). Undefined, unnamed and mapping
// symbols (is_mapping_symbol(): "$*", ".L*", "L0*") are skipped. st_size
// plays no part: the kernel prints labcrash_recurse+0x67/0x80 for a
// function whose st_size is 0x75.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/symbol.h"

namespace btaudit {

struct ModuleSymtabEntry {
  std::string name;
  std::uint64_t value = 0;
  std::uint16_t shndx = 0;  // 0: SHN_UNDEF
};

struct ModuleKallsyms {
  std::string module;
  std::vector<ModuleSymtabEntry> symtab;  // in symtab order, index 0 included
  std::uint64_t text_begin = 0, text_end = 0;
  std::uint64_t init_text_begin = 0, init_text_end = 0;  // empty once init is done

  bool holds(std::uint64_t a) const {
    return (a >= text_begin && a < text_end) || (a >= init_text_begin && a < init_text_end);
  }
};

// is_mapping_symbol() of include/linux/module_symbol.h (6.4+; before, arm's "$a", "$t", "$d", "$x" only).
bool is_mapping_symbol(const std::string& name);

// find_kallsyms_symbol(), for an address the module holds.
std::optional<Symbol> module_kallsyms_lookup(const ModuleKallsyms& mod, std::uint64_t address);

}  // namespace btaudit
