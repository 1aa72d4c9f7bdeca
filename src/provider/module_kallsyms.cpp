#include "provider/module_kallsyms.h"

namespace btaudit {

bool is_mapping_symbol(const std::string& n) {
  if (n.size() >= 2 && n[0] == '.' && n[1] == 'L') return true;
  if (n.size() >= 2 && n[0] == 'L' && n[1] == '0') return true;
  return !n.empty() && n[0] == '$';
}

std::optional<Symbol> module_kallsyms_lookup(const ModuleKallsyms& mod, std::uint64_t a) {
  if (!mod.holds(a) || mod.symtab.empty()) return std::nullopt;
  const bool init = a >= mod.init_text_begin && a < mod.init_text_end;
  std::uint64_t nextval = init ? mod.init_text_end : mod.text_end;  // at worst, the end of the module's text
  std::size_t best = 0;
  std::uint64_t bestval = mod.symtab[0].value;
  // ELF starts real symbols at 1.
  for (std::size_t i = 1; i < mod.symtab.size(); ++i) {
    const ModuleSymtabEntry& s = mod.symtab[i];
    if (s.shndx == 0 || s.name.empty() || is_mapping_symbol(s.name)) continue;
    if (s.value <= a && s.value > bestval) {
      best = i;
      bestval = s.value;
    }
    if (s.value > a && s.value < nextval) nextval = s.value;
  }
  if (best == 0) return std::nullopt;
  Symbol out;
  out.name = mod.symtab[best].name;
  out.address = bestval;
  out.size = nextval - bestval;
  out.module = mod.module;
  return out;
}

}  // namespace btaudit
