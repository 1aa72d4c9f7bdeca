#include "vmcore/module_list.h"

#include <algorithm>
#include <set>

namespace btaudit {

namespace {

constexpr int kMaxModules = 4096;
constexpr std::uint32_t kMaxSymbols = 1 << 20;  // of all modules together: each costs a read of its name

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

}  // namespace

std::vector<LoadedModule> read_modules(MemorySource& m, KernelTypes& t, std::uint64_t head,
                                       std::vector<std::string>& problems) {
  std::vector<LoadedModule> out;
  auto list = t.member("module", "list");
  auto name = t.member("module", "name");
  auto kallsyms = t.member("module", "kallsyms");
  auto num_orcs = t.member("module", "arch.num_orcs");
  auto orc_ip = t.member("module", "arch.orc_unwind_ip");
  auto orc = t.member("module", "arch.orc_unwind");
  // <= 6.3: core_layout.base/text_size; 6.4+: mem[MOD_TEXT].base/size.
  auto base = t.member("module", "core_layout.base");
  auto text_size = t.member("module", "core_layout.text_size");
  if (!base) {
    base = t.member("module", "mem.base");
    text_size = t.member("module", "mem.size");
  }
  auto symtab = t.member("mod_kallsyms", "symtab");
  auto num_symtab = t.member("mod_kallsyms", "num_symtab");
  auto strtab = t.member("mod_kallsyms", "strtab");
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
    if (kallsyms && symtab && num_symtab && strtab) {
      if (auto ks = m.read_u64(mod + kallsyms->offset); ks && *ks) {
        auto st = m.read_u64(*ks + symtab->offset);
        auto ns = m.read_u32(*ks + num_symtab->offset);
        auto str = m.read_u64(*ks + strtab->offset);
        if (st && ns && str && *ns > symbols_left) {
          problems.push_back("module " + lm.name + ": " + std::to_string(*ns) + " symbols, past the bound of " +
                             std::to_string(kMaxSymbols) + " for all modules: its symbols not read");
        } else if (st && ns && str) {
          symbols_left -= *ns;
          std::vector<std::uint8_t> syms(std::size_t{*ns} * 24);
          if (m.read_exact(*st, syms)) {
            for (std::uint32_t k = 0; k < *ns; ++k) {
              std::uint32_t st_name = 0;
              std::uint64_t value = 0, size = 0;
              std::memcpy(&st_name, syms.data() + k * 24, 4);
              std::memcpy(&value, syms.data() + k * 24 + 8, 8);
              std::memcpy(&size, syms.data() + k * 24 + 16, 8);
              if (value < lm.text_begin || value >= lm.text_end || st_name == 0) continue;
              lm.symbols.push_back({read_cstring(m, *str + st_name, 128), value, size});
            }
          }
        }
      }
    }
    std::sort(lm.symbols.begin(), lm.symbols.end(),
              [](const ModuleSymbol& x, const ModuleSymbol& y) { return x.address < y.address; });
    out.push_back(std::move(lm));
    next = m.read_u64(*next);
  }
  if (!next) problems.push_back("the module list breaks off (unreadable entry)");
  return out;
}

}  // namespace btaudit
