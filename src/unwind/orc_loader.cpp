#include "unwind/orc_loader.h"

#include <array>

namespace btaudit {

namespace {

struct VersionProbe {
  MemorySource& m;
  SymbolProvider& symbols;
  TypeProvider& types;
  std::int64_t kaslr;
  std::optional<std::uint64_t> at(const char* name) {
    auto s = symbols.find(name);
    if (!s) return std::nullopt;
    return s->address + static_cast<std::uint64_t>(kaslr);
  }
};

// `.orc_header` (b9f174c811e3, 6.4, backported to 6.3.10): a 20-byte SHA-1 of orc_types.h's
// ORC_REG_/ORC_TYPE_ defines and struct orc_entry (scripts/orc_hash.sh), between
// __start_orc_header and __stop_orc_header. Known hashes (as drgn's orc_info.c lists them):
struct HeaderHash {
  int version;
  std::array<std::uint8_t, 20> hash;
};
constexpr HeaderHash kHeaderHashes[] = {
    // ffb1b4a41016 "x86/unwind/orc: Add 'signal' field to ORC metadata" (6.3)
    {2, {0xdb, 0x84, 0xae, 0xd4, 0x10, 0x3b, 0x31, 0xdd, 0x51, 0xe0,
         0x17, 0xf8, 0xf7, 0x97, 0x83, 0xca, 0x98, 0x5c, 0x2c, 0x51}},
    // fb799447ae29 "x86,objtool: Split UNWIND_HINT_EMPTY in two" (6.4 - 7.0; the Linux 6.14 and 6.18 labs)
    {3, {0xfe, 0x5d, 0x32, 0xbf, 0x58, 0x1b, 0xd6, 0x3b, 0x2c, 0xa9,
         0xa5, 0xc6, 0x5b, 0xa5, 0xa6, 0x25, 0xea, 0xb3, 0xfe, 0x24}},
    // 7.1's hash (1735858caa4b) is not listed: such a kernel is told by orc_fp_entry below.
};

std::optional<int> by_header_hash(VersionProbe& p) {
  auto begin = p.at("__start_orc_header");
  auto end = p.at("__stop_orc_header");
  if (!begin || !end || *end - *begin != 20) return std::nullopt;
  std::array<std::uint8_t, 20> hash{};
  if (!p.m.read_exact(*begin, hash)) return std::nullopt;
  for (const HeaderHash& h : kHeaderHashes)
    if (h.hash == hash) return h.version;
  return std::nullopt;  // an unknown hash: a later version, or a stable tree's added register
}

// unwind_orc.c's orc_fp_entry (since ee9f8fce9964, 5.2) is {CALL, sp_reg BP, sp_offset 16,
// bp_reg PREV_SP, bp_offset -16}: its bp_reg (the high nibble of byte 4 in every version) is
// PREV_SP's number, 8 with 7.1's numbering and 1 before (crash d0ee428, "Linux 7.1 and later").
std::optional<int> by_fallback_entry(VersionProbe& p) {
  auto entry = p.at("orc_fp_entry");
  if (!entry) return std::nullopt;
  auto byte = p.m.read_value<std::uint8_t>(*entry + 4);
  if (!byte) return std::nullopt;
  if ((*byte >> 4) == orc_prev_sp_number(4)) return 4;
  return std::nullopt;
}

// struct orc_entry's members (crash's x86_64_ORC_init()): `signal` without `end` from 6.4,
// both in 6.3, `end` alone before.
std::optional<int> by_dwarf_members(VersionProbe& p) {
  const bool has_signal = p.types.member("orc_entry", "signal").has_value();
  const bool has_end = p.types.member("orc_entry", "end").has_value();
  if (has_signal && !has_end) return 3;
  if (has_signal) return 2;
  return 1;
}

struct VersionRule {
  const char* name;
  std::optional<int> (*probe)(VersionProbe&);
};
constexpr VersionRule kVersionRules[] = {
    {".orc_header hash", by_header_hash},
    {"orc_fp_entry.bp_reg == PREV_SP (8)", by_fallback_entry},
    {"orc_entry DWARF members", by_dwarf_members},
};

}  // namespace

OrcVersion orc_version_of(MemorySource& m, SymbolProvider& symbols, TypeProvider& types, std::int64_t kaslr) {
  VersionProbe p{m, symbols, types, kaslr};
  for (const VersionRule& rule : kVersionRules)
    if (auto v = rule.probe(p)) return {*v, rule.name};
  return {};
}

LoadedOrc load_orc(MemorySource& m, SymbolProvider& symbols, TypeProvider& types, std::int64_t kaslr,
                   const std::vector<LoadedModule>& modules, std::vector<std::string>& problems) {
  LoadedOrc out;
  const OrcVersion v = orc_version_of(m, symbols, types, kaslr);
  out.version = v.version;
  out.version_rule = v.rule;
  VersionProbe probe{m, symbols, types, kaslr};
  auto at = [&](const char* name) { return probe.at(name); };
  auto ip_start = at("__start_orc_unwind_ip");
  auto ip_stop = at("__stop_orc_unwind_ip");
  auto orc_start = at("__start_orc_unwind");
  if (ip_start && ip_stop && orc_start && *ip_stop > *ip_start) {
    if (!out.table.add_sorted_lazily(m, *ip_start, *orc_start, (*ip_stop - *ip_start) / 4, out.version))
      problems.push_back("vmlinux's ORC tables are not in the dump: frame-pointer fallback only");
  } else if (types.member("unwind_state", "sp") && !types.member("unwind_state", "bp")) {
    // Each unwinder has its own struct unwind_state: ORC's holds sp and bp, the frame-pointer
    // one's bp and no sp, the guess one's a bare sp.
    out.unwinder = KernelUnwinder::Guess;
    problems.push_back(
        "no ORC symbols in vmlinux and unwind_state holds no frame pointer: the kernel's guess unwinder "
        "(CONFIG_UNWINDER_GUESS) vouches for no word, and neither does the walk");
  } else {
    out.unwinder = KernelUnwinder::FramePointer;
    problems.push_back("no ORC symbols in vmlinux: walked with frame pointers, as CONFIG_UNWINDER_FRAME_POINTER");
  }
  for (const LoadedModule& mod : modules)
    if (mod.num_orcs && mod.orc_ip && mod.orc_entries)
      if (!out.table.add(m, mod.orc_ip, mod.orc_entries, mod.num_orcs, out.version, mod.text_begin, mod.text_end))
        problems.push_back("module " + mod.name + ": ORC tables not in the dump");
  return out;
}

}  // namespace btaudit
