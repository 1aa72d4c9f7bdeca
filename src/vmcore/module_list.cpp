#include "vmcore/module_list.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace btaudit {

namespace {

constexpr int kMaxModules = 4096;
constexpr std::uint32_t kMaxSymbols = 1 << 20;  // of all modules together: each costs a read of its name
constexpr std::size_t kElfSymSize = 24;         // Elf64_Sym
constexpr std::uint64_t kModInitText = 4;       // enum mod_mem_type (6.4+): MOD_TEXT 0 ... MOD_INIT_TEXT 4

std::string read_cstring(MemorySource& m, std::uint64_t addr, std::size_t max) {
  std::string s;
  std::uint8_t buf[64];
  while (s.size() < max) {
    const std::size_t n = m.read(addr + s.size(), std::span(buf, std::min<std::size_t>(sizeof buf, max - s.size())));
    if (n == 0) break;
    for (std::size_t i = 0; i < n; ++i) {
      if (!buf[i]) return s;
      s.push_back(static_cast<char>(buf[i]));
    }
  }
  return s;
}

// Where a module keeps its symbols: struct mod_kallsyms behind module.kallsyms
// (4.6+, 8244062ef1e5), or symtab/num_symtab/strtab in struct module itself before.
struct SymtabLayout {
  std::optional<MemberInfo> kallsyms, symtab, num_symtab, strtab;
};

SymtabLayout symtab_layout(TypeProvider& t) {
  SymtabLayout l;
  l.kallsyms = t.member("module", "kallsyms");
  const std::string holder = l.kallsyms ? "mod_kallsyms" : "module";
  l.symtab = t.member(holder, "symtab");
  l.num_symtab = t.member(holder, "num_symtab");
  l.strtab = t.member(holder, "strtab");
  return l;
}

// `symbols_left` is shared by every module of the list: a dump's module list can claim any count.
std::vector<ModuleSymtabEntry> read_symtab(MemorySource& m, const SymtabLayout& l, std::uint64_t mod,
                                           const std::string& module, std::uint64_t& symbols_left,
                                           std::vector<std::string>& problems) {
  std::vector<ModuleSymtabEntry> out;
  if (!l.symtab || !l.num_symtab || !l.strtab) return out;
  std::uint64_t holder = mod;
  if (l.kallsyms) {
    auto ks = m.read_u64(mod + l.kallsyms->offset);
    if (!ks || !*ks) return out;
    holder = *ks;
  }
  auto st = m.read_u64(holder + l.symtab->offset);
  auto ns = m.read_u32(holder + l.num_symtab->offset);
  auto str = m.read_u64(holder + l.strtab->offset);
  if (!st || !ns || !str) return out;
  if (*ns > symbols_left) {
    problems.push_back("module " + module + ": " + std::to_string(*ns) + " symbols, past the bound of " +
                       std::to_string(kMaxSymbols) + " for all modules: its symbols not read");
    return out;
  }
  symbols_left -= *ns;
  std::vector<std::uint8_t> syms(std::size_t{*ns} * kElfSymSize);
  if (!m.read_exact(*st, syms)) return out;
  out.reserve(*ns);
  for (std::uint32_t k = 0; k < *ns; ++k) {
    const std::uint8_t* e = syms.data() + k * kElfSymSize;
    std::uint32_t st_name = 0;
    std::uint16_t shndx = 0;
    std::uint64_t value = 0;
    std::memcpy(&st_name, e, 4);
    std::memcpy(&shndx, e + 6, 2);
    std::memcpy(&value, e + 8, 8);
    out.push_back({st_name ? read_cstring(m, *str + st_name, 128) : std::string(), value, shndx});
  }
  return out;
}

}  // namespace

std::vector<LoadedModule> read_modules(MemorySource& m, TypeProvider& t, std::uint64_t head,
                                       std::vector<std::string>& problems) {
  std::vector<LoadedModule> out;
  auto list = t.member("module", "list");
  auto name = t.member("module", "name");
  auto num_orcs = t.member("module", "arch.num_orcs");
  auto orc_ip = t.member("module", "arch.orc_unwind_ip");
  auto orc = t.member("module", "arch.orc_unwind");
  // <= 6.3: core_layout/init_layout .base/.text_size; 6.4+: mem[MOD_TEXT], mem[MOD_INIT_TEXT] .base/.size.
  auto base = t.member("module", "core_layout.base");
  auto text_size = t.member("module", "core_layout.text_size");
  auto init_base = t.member("module", "init_layout.base");
  auto init_size = t.member("module", "init_layout.text_size");
  if (!base) {
    base = t.member("module", "mem.base");
    text_size = t.member("module", "mem.size");
    const auto mem_size = t.type_size("module_memory");
    init_base = init_size = std::nullopt;
    if (base && text_size && mem_size) {
      init_base = MemberInfo{base->offset + kModInitText * *mem_size, base->size};
      init_size = MemberInfo{text_size->offset + kModInitText * *mem_size, text_size->size};
    }
  }
  const SymtabLayout symtab = symtab_layout(t);
  if (!list || !name || !base || !text_size) {
    problems.push_back("struct module layout not in DWARF: modules not read");
    return out;
  }
  auto next = m.read_u64(head);
  std::set<std::uint64_t> visited;
  std::uint64_t symbols_left = kMaxSymbols;
  for (int i = 0; next && *next != head; ++i) {
    if (i == kMaxModules || !visited.insert(*next).second) {
      problems.push_back(i == kMaxModules
                             ? "the module list holds more than " + std::to_string(kMaxModules) +
                                   " entries (a fixed bound): stopped"
                             : std::string("the module list loops without coming back to its head: stopped"));
      break;
    }
    const std::uint64_t mod = *next - list->offset;
    LoadedModule lm;
    lm.name = read_cstring(m, mod + name->offset, name->size);
    auto b = m.read_u64(mod + base->offset);
    auto ts = m.read_u32(mod + text_size->offset);
    if (b && ts) {
      lm.text_begin = *b;
      lm.text_end = *b + *ts;
    }
    if (num_orcs && orc_ip && orc) {
      if (auto n = m.read_u32(mod + num_orcs->offset)) lm.num_orcs = *n;
      lm.orc_ip = m.read_u64(mod + orc_ip->offset).value_or(0);
      lm.orc_entries = m.read_u64(mod + orc->offset).value_or(0);
    }
    lm.kallsyms.module = lm.name;
    lm.kallsyms.text_begin = lm.text_begin;
    lm.kallsyms.text_end = lm.text_end;
    if (init_base && init_size) {
      auto ib = m.read_u64(mod + init_base->offset);
      auto is = m.read_u32(mod + init_size->offset);
      if (ib && *ib && is) {
        lm.kallsyms.init_text_begin = *ib;
        lm.kallsyms.init_text_end = *ib + *is;
      }
    }
    lm.kallsyms.symtab = read_symtab(m, symtab, mod, lm.name, symbols_left, problems);
    out.push_back(std::move(lm));
    next = m.read_u64(*next);
  }
  if (!next) problems.push_back("the module list breaks off (unreadable entry)");
  return out;
}

}  // namespace btaudit
