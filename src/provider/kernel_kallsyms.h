// The kernel's own compressed symbol table (the kallsyms_* arrays
// scripts/kallsyms writes into vmlinux's .rodata), decoded from any memory that
// holds it: a dump, or vmlinux's file. It is exactly what the kernel looked
// names up in, so names, aliases and sizes come out as the kernel printed them.
// Formats (kernel/kallsyms.c):
//   kallsyms_addresses[]                              absolute addresses (before 4.6, or !BASE_RELATIVE)
//   kallsyms_offsets[] + kallsyms_relative_base       4.6+ (2213e9a66bb8); until 6.14 with
//                                                     KALLSYMS_ABSOLUTE_PERCPU (x86-64 SMP) a
//                                                     negative offset is base - 1 - offset and a
//                                                     positive one an absolute per-CPU offset;
//                                                     6.15+ (and without it) unsigned offsets from the base
//   kallsyms_names: a length byte, 6.1+ two when the first has 0x80 set (73bbb94466fd),
//   then that many indices into kallsyms_token_index/kallsyms_token_table; the
//   expansion's first character is the nm type.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memory/memory_source.h"
#include "provider/kallsyms.h"

namespace btaudit {

// Where the kallsyms_* objects are in the memory being read.
struct KernelKallsymsLayout {
  std::uint64_t num_syms = 0;
  std::uint64_t names = 0;
  std::uint64_t token_table = 0;
  std::uint64_t token_index = 0;
  std::optional<std::uint64_t> offsets;  // with relative_base (4.6+)
  std::optional<std::uint64_t> relative_base;
  std::optional<std::uint64_t> addresses;  // before 4.6
};

// The tables as the kernel uses them: addresses decoded when read, each name
// expanded from its tokens only when a lookup lands on it (kallsyms_expand_symbol()).
// A dump's table is read this way: a walk asks about a few hundred addresses of
// 130,000, and expanding every name first was a third of a warm `vmcore bt`.
class KernelKallsyms {
 public:
  // nullopt (and `problem` set) when the tables cannot be read or are not an
  // address-sorted table of non-empty names that holds _stext and _etext.
  static std::optional<KernelKallsyms> read(MemorySource& memory, const KernelKallsymsLayout& layout,
                                            std::string& problem);
  std::size_t size() const { return addresses_.size(); }
  std::optional<Symbol> lookup(std::uint64_t address) const;  // KallsymsTable::lookup's answer
  bool covers(std::uint64_t address) const { return ranges_.covers(address); }
  const KallsymsRanges& ranges() const { return ranges_; }
  KallsymsEntry entry(std::size_t i) const;
  KallsymsTable table() const;  // every name expanded

 private:
  // The symbols that bound the text (KallsymsRanges), told apart in one pass over an entry.
  enum class RangeName { None, Stext, Etext, Sinittext, Einittext, End };
  std::string expand(std::size_t i) const;    // the nm type letter, then the name
  RangeName range_name(std::size_t i) const;  // without expanding it whole
  std::vector<std::uint64_t> addresses_;
  std::vector<bool> absolute_;         // absolute per-CPU entries (type 'A')
  std::vector<std::uint32_t> starts_;  // where each entry's length byte is in names_
  std::vector<std::uint8_t> names_;    // kallsyms_names, as far as the entries reach
  std::array<std::string, 256> tokens_;
  KallsymsRanges ranges_;
};

// Every entry decoded: KernelKallsyms::read(...)->table().
std::optional<KallsymsTable> read_kernel_kallsyms(MemorySource& memory, const KernelKallsymsLayout& layout,
                                                  std::string& problem);

}  // namespace btaudit
