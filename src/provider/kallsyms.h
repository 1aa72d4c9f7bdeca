// vmlinux's kallsyms as the kernel computes it, so that btaudit names and
// sizes every address exactly as the kernel printed it (%pS, %pB). Each rule
// is a row with its source (Linux 6.14 unless said otherwise):
//
//   which symbols   scripts/mksysmap drops nm types a N U w and names $*, .L*,
//                   __crc_*, __kstrtab_*, __kstrtabns_*, __kcfi_typeid_*, ...;
//                   scripts/kallsyms drops types u n A, and without --all-symbols
//                   (CONFIG_KALLSYMS_ALL) keeps only [_stext, _etext] and
//                   [_sinittext, _einittext] plus __start_* / __stop_* anywhere,
//                   minus other names at _etext's and _einittext's address.
//                   The call-padding symbols __pfx_* (6.2+, objtool --prefix for
//                   CONFIG_CALL_PADDING) are ordinary text symbols: they stay.
//   their order     scripts/kallsyms compare_symbols(): address, then non-weak
//                   before weak (W), then names a linker script may PROVIDE last,
//                   then fewer leading underscores first, then nm -n's order
//                   (the name, in the C locale the kernel build sets).
//   name of an      kernel/kallsyms.c get_symbol_pos(): the last entry at or
//   address         below it, moved back to the first of its aliases.
//   size            the distance to the next entry with a higher address, or,
//                   for the last one, to _einittext (init text), _end
//                   (CONFIG_KALLSYMS_ALL) or _etext.
//   which addresses is_ksym_addr(): [_stext, _end) with CONFIG_KALLSYMS_ALL,
//                   else [_stext, _etext) and [_sinittext, _einittext).
//
// A table is built either from the kernel's own compressed tables (exact,
// provider/kernel_kallsyms.h) or from vmlinux's ELF symbols by the same
// filters and order (kernels without kallsyms tables: the synthetic ones).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/symbol.h"

namespace btaudit {

struct KallsymsEntry {
  std::uint64_t address = 0;
  char type = 't';  // nm's type letter
  std::string name;
};

// An ELF symbol as the facts nm decides its type letter from.
struct ElfSymbolFacts {
  std::string name;
  std::uint64_t address = 0;
  enum class Binding { Local, Global, Weak, Unique } binding = Binding::Global;
  enum class Kind { NoType, Object, Function, Section, File, Ifunc, Other } kind = Kind::NoType;
  enum class Where { Section, Undefined, Absolute, Common } where = Where::Section;
  // Of the section it is defined in (Where::Section).
  bool alloc = true, write = false, exec = false, nobits = false;
};

// nm's letter for a symbol (binutils bfd's decode_section_type, nm's
// print_symbol_info), or 0 for the symbols nm does not list (section and file symbols).
char nm_type(const ElfSymbolFacts& s);

// mksysmap's sed script plus scripts/kallsyms' is_ignored_symbol: whether
// kallsyms ever sees this name and type.
bool kallsyms_keeps(std::string_view name, char type);

// The addresses that bound what kallsyms answers for, and whether it holds all
// symbols (CONFIG_KALLSYMS_ALL): what a lookup needs besides the entries.
struct KallsymsRanges {
  std::uint64_t stext = 0, etext = 0, sinittext = 0, einittext = 0, end = 0;
  bool all = false;
  // is_ksym_addr().
  bool covers(std::uint64_t address) const {
    if (all && end) return address >= stext && address < end;
    return (address >= stext && address < etext) || (address >= sinittext && address < einittext);
  }
};

// %pS's symbol for an address over any address-sorted entry store: `count` entries,
// `address_at(i)` and `name_at(i)` reading entry i (a decoded table, or a profile's
// stored arrays read in place). kernel/kallsyms.c get_symbol_pos(): the last entry at
// or below the address, moved back to the first of its aliases; its size is the
// distance to the next higher address, or past the last one to _einittext (init
// text), _end (CONFIG_KALLSYMS_ALL) or _etext.
template <typename AddressAt, typename NameAt>
std::optional<Symbol> kallsyms_lookup(std::size_t count, AddressAt address_at, NameAt name_at, const KallsymsRanges& r,
                                      std::uint64_t a) {
  if (count == 0 || !r.covers(a)) return std::nullopt;
  std::size_t lo = 0, hi = count;  // the first entry above a
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (a < address_at(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  if (lo == 0) return std::nullopt;
  std::size_t low = lo - 1;
  const std::uint64_t start = address_at(low);
  while (low > 0 && address_at(low - 1) == start) --low;
  std::size_t next = lo;  // entries after lo - 1 are all above a, hence above start
  std::uint64_t end = 0;
  if (next < count) {
    end = address_at(next);
  } else if (a >= r.sinittext && a < r.einittext) {
    end = r.einittext;
  } else {
    end = r.all && r.end ? r.end : r.etext;
  }
  Symbol s;
  s.name = std::string(name_at(low));
  s.address = start;
  s.size = end > start ? end - start : 0;
  return s;
}

class KallsymsTable {
 public:
  KallsymsTable() = default;
  // The kernel's own table, in its order (provider/kernel_kallsyms.h decodes it).
  // `all_symbols`: nullopt decides CONFIG_KALLSYMS_ALL from the table itself.
  static KallsymsTable from_kernel(std::vector<KallsymsEntry> entries, std::optional<bool> all_symbols = {});
  // vmlinux's ELF symbols through mksysmap's and scripts/kallsyms' filters and order.
  static KallsymsTable from_elf(const std::vector<ElfSymbolFacts>& symbols, bool all_symbols = false);

  // %pS's symbol for an address (name, start and kallsyms size), or nothing
  // outside the addresses kallsyms answers for.
  std::optional<Symbol> lookup(std::uint64_t address) const;
  // is_ksym_addr().
  bool covers(std::uint64_t address) const { return ranges_.covers(address); }
  // The first entry of a name (name lookups are rare: a linear search).
  std::optional<std::uint64_t> address_of(std::string_view name) const;

  const std::vector<KallsymsEntry>& entries() const { return entries_; }
  bool all_symbols() const { return ranges_.all; }
  const KallsymsRanges& ranges() const { return ranges_; }
  bool empty() const { return entries_.empty(); }

  // Every address moves by `delta` (KASLR: link to runtime addresses). Absolute
  // entries (per-CPU offsets of the absolute-percpu era) are not addresses and stay.
  void relocate(std::int64_t delta);

 private:
  void find_ranges();
  std::vector<KallsymsEntry> entries_;
  KallsymsRanges ranges_;
};

}  // namespace btaudit
