#include "provider/kallsyms.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <numeric>

namespace btaudit {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// scripts/kallsyms.c may_be_linker_script_provide_symbol(): names a linker
// script may define with PROVIDE(), which lose a tie against any other alias.
bool linker_script_provided(std::string_view n) {
  if (n.size() < 8 || !starts_with(n, "__")) return false;
  const std::string_view rest = n.substr(2);
  return starts_with(rest, "start_") || starts_with(rest, "stop_") || starts_with(rest, "end_") ||
         ends_with(n, "_start") || ends_with(n, "_end");
}

bool is_weak(char type) { return type == 'w' || type == 'W'; }

std::size_t leading_underscores(std::string_view n) {
  std::size_t i = 0;
  while (i < n.size() && n[i] == '_') ++i;
  return i;
}

}  // namespace

char nm_type(const ElfSymbolFacts& s) {
  using K = ElfSymbolFacts::Kind;
  using B = ElfSymbolFacts::Binding;
  using W = ElfSymbolFacts::Where;
  if (s.kind == K::Section || s.kind == K::File) return 0;  // nm lists them only with -a
  if (s.where == W::Undefined) return s.binding == B::Weak ? (s.kind == K::Object ? 'v' : 'w') : 'U';
  if (s.where == W::Common) return 'C';
  if (s.kind == K::Ifunc) return 'i';
  if (s.binding == B::Weak) return s.kind == K::Object ? 'V' : 'W';
  if (s.binding == B::Unique) return 'u';
  char c = 0;
  if (s.where == W::Absolute) {
    c = 'a';
  } else if (!s.alloc) {
    c = 'n';  // .comment, .debug_*: 'n' or 'N', dropped by kallsyms either way
  } else if (s.exec) {
    c = 't';
  } else if (s.nobits) {
    c = 'b';
  } else {
    c = s.write ? 'd' : 'r';
  }
  return s.binding == B::Global ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
}

bool kallsyms_keeps(std::string_view name, char type) {
  // scripts/mksysmap: "/ [aNUw] /d", then scripts/kallsyms is_ignored_symbol(): 'u', 'n', and 'A'
  // but for four ia64/parisc names.
  if (std::strchr("aNUwun", type)) return false;
  if (type == 'A' && name != "__kernel_syscall_via_break" && name != "__kernel_syscall_via_epc" &&
      name != "__kernel_sigtramp" && name != "__gp")
    return false;
  if (name.empty()) return false;
  // mksysmap's ignored prefixes (arm/mips locals, local labels, EFI stub and KVM namespaces, CFI
  // type ids, modversions CRCs, export tables), suffixes and names.
  static constexpr std::string_view kPrefixes[] = {"$",
                                                   ".L",
                                                   "__efistub_",
                                                   "__pi_$",
                                                   "__pi_.L",
                                                   "__kvm_nvhe_$",
                                                   "__kvm_nvhe_.L",
                                                   "__kcfi_typeid_",
                                                   "__kvm_nvhe___kcfi_typeid_",
                                                   "__pi___kcfi_typeid_",
                                                   "__crc_",
                                                   "__kstrtab_",
                                                   "__kstrtabns_"};
  for (std::string_view p : kPrefixes)
    if (starts_with(name, p)) return false;
  // lld's "__<alnum>Thunk_" veneers (mksysmap: / __[[:alnum:]]*Thunk_/d).
  if (starts_with(name, "__")) {
    for (std::size_t i = 2; i < name.size(); ++i) {
      if (starts_with(name.substr(i), "Thunk_")) return false;
      if (!std::isalnum(static_cast<unsigned char>(name[i]))) break;
    }
  }
  for (std::string_view s : {"_from_arm", "_from_thumb", "_veneer"})
    if (ends_with(name, s)) return false;
  if (name == "L0" || name == "_SDA_BASE_" || name == "_SDA2_BASE_") return false;
  if (name.find(".long_branch.") != std::string_view::npos || name.find(".plt_branch.") != std::string_view::npos)
    return false;
  return true;
}

void KallsymsTable::find_ranges() {
  KallsymsRanges& r = ranges_;
  r.stext = r.etext = r.sinittext = r.einittext = r.end = 0;
  for (const KallsymsEntry& e : entries_) {
    if (e.name == "_stext")
      r.stext = e.address;
    else if (e.name == "_etext")
      r.etext = e.address;
    else if (e.name == "_sinittext")
      r.sinittext = e.address;
    else if (e.name == "_einittext")
      r.einittext = e.address;
    else if (e.name == "_end")
      r.end = e.address;
  }
}

KallsymsTable KallsymsTable::from_kernel(std::vector<KallsymsEntry> entries, std::optional<bool> all_symbols) {
  KallsymsTable t;
  t.entries_ = std::move(entries);
  t.find_ranges();
  // Without CONFIG_KALLSYMS_ALL, nothing outside the text ranges but __start_*/__stop_* is
  // kept: _end, at the image's end, is there exactly when all symbols are.
  t.ranges_.all = all_symbols.value_or(t.ranges_.end != 0);
  return t;
}

KallsymsTable KallsymsTable::from_elf(const std::vector<ElfSymbolFacts>& symbols, bool all_symbols) {
  KallsymsTable t;
  t.ranges_.all = all_symbols;
  // nm -n: by address, then by name (strcoll in the C locale the kernel's Makefile sets).
  std::vector<std::size_t> order(symbols.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (symbols[a].address != symbols[b].address) return symbols[a].address < symbols[b].address;
    return symbols[a].name < symbols[b].name;
  });
  for (std::size_t i : order) {
    const char type = nm_type(symbols[i]);
    if (type == 0 || !kallsyms_keeps(symbols[i].name, type)) continue;
    t.entries_.push_back({symbols[i].address, type, symbols[i].name});
  }
  t.find_ranges();
  if (!all_symbols) {
    // symbol_valid(): the text ranges (inclusive of their end symbols), __start_/__stop_ anywhere,
    // and nothing else at _etext's or _einittext's address (it may move between link passes).
    const auto valid = [&](const KallsymsEntry& e) {
      if (starts_with(e.name, "__start_") || starts_with(e.name, "__stop_")) return true;
      const KallsymsRanges& r = t.ranges_;
      const bool in_text = e.address >= r.stext && e.address <= r.etext;
      const bool in_init = e.address >= r.sinittext && e.address <= r.einittext;
      if (!in_text && !in_init) return false;
      return !((e.address == r.etext && e.name != "_etext") || (e.address == r.einittext && e.name != "_einittext"));
    };
    std::erase_if(t.entries_, [&](const KallsymsEntry& e) { return !valid(e); });
  }
  // compare_symbols(); the entries are in nm -n order, which a stable sort keeps as the last key.
  std::stable_sort(t.entries_.begin(), t.entries_.end(), [](const KallsymsEntry& a, const KallsymsEntry& b) {
    if (a.address != b.address) return a.address < b.address;
    if (is_weak(a.type) != is_weak(b.type)) return is_weak(b.type);
    const bool pa = linker_script_provided(a.name), pb = linker_script_provided(b.name);
    if (pa != pb) return pb;
    return leading_underscores(a.name) < leading_underscores(b.name);
  });
  t.find_ranges();
  return t;
}

std::optional<Symbol> KallsymsTable::lookup(std::uint64_t a) const {
  return kallsyms_lookup(
      entries_.size(), [&](std::size_t i) { return entries_[i].address; },
      [&](std::size_t i) -> std::string_view { return entries_[i].name; }, ranges_, a);
}

std::optional<std::uint64_t> KallsymsTable::address_of(std::string_view name) const {
  for (const KallsymsEntry& e : entries_)
    if (e.name == name) return e.address;
  return std::nullopt;
}

void KallsymsTable::relocate(std::int64_t delta) {
  for (KallsymsEntry& e : entries_)
    if (e.type != 'A' && e.type != 'a') e.address += static_cast<std::uint64_t>(delta);
  find_ranges();
}

}  // namespace btaudit
