// kallsyms as the kernel computes it (provider/kallsyms.h, kernel_kallsyms.h,
// module_kallsyms.h, return_address.h), one rule per test, on symbol tables
// and memory the tests write. The rules' sources are in the headers; the
// real-kernel check (every lookup of a real vmlinux, kernel table against the
// ELF emulation) is in debuginfo_test.cpp.
#include "provider/kallsyms.h"

#include <boost/test/unit_test.hpp>
#include <random>

#include "planted_memory.h"
#include "provider/kernel_kallsyms.h"
#include "provider/module_kallsyms.h"
#include "provider/return_address.h"

namespace {

using namespace btaudit;
using B = ElfSymbolFacts::Binding;
using K = ElfSymbolFacts::Kind;
using W = ElfSymbolFacts::Where;

constexpr std::uint64_t kStext = 0xffffffff81000000;

ElfSymbolFacts func(const std::string& name, std::uint64_t address, B binding = B::Global) {
  ElfSymbolFacts f;
  f.name = name;
  f.address = address;
  f.binding = binding;
  f.kind = K::Function;
  f.exec = true;
  return f;
}

ElfSymbolFacts object(const std::string& name, std::uint64_t address, bool write = true, bool nobits = false) {
  ElfSymbolFacts f;
  f.name = name;
  f.address = address;
  f.kind = K::Object;
  f.write = write;
  f.nobits = nobits;
  return f;
}

// A small vmlinux: text from _stext to _etext, init text, data in between, and _end.
std::vector<ElfSymbolFacts> small_vmlinux() {
  return {func("_stext", kStext, B::Global),
          func("__pfx_start_thread", kStext, B::Local),
          func("start_thread", kStext + 0x10),
          func("__pfx_kthread", kStext + 0x80, B::Local),
          func("kthread", kStext + 0x90, B::Local),
          func("__pfx_panic", kStext + 0x200, B::Local),
          func("panic", kStext + 0x210),
          func("__pfx_do_exit", kStext + 0x5a0, B::Local),
          func("do_exit", kStext + 0x5b0),
          func("do_exit.cold", kStext + 0x700, B::Local),
          func("_etext", kStext + 0x800),
          object("jiffies", kStext + 0x1000),
          func("_sinittext", kStext + 0x2000),
          func("start_kernel", kStext + 0x2000),
          func("_einittext", kStext + 0x2400),
          object("_end", kStext + 0x4000)};
}

std::string name_at(const KallsymsTable& t, std::uint64_t a) {
  auto s = t.lookup(a);
  return s ? s->name : std::string("(none)");
}

// A FakeSymbols-like provider over one table, for kallsyms_print.
class TableSymbols final : public SymbolProvider {
 public:
  explicit TableSymbols(KallsymsTable t) : t_(std::move(t)) {}
  std::optional<Symbol> find(std::string_view, std::string_view) override { return std::nullopt; }
  std::optional<Symbol> kallsyms_at(std::uint64_t a) override { return t_.lookup(a); }

 private:
  KallsymsTable t_;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(kallsyms)

// ---- nm's type letter (the first filter works on it) ----

BOOST_AUTO_TEST_CASE(nm_letters_follow_section_and_binding) {
  BOOST_TEST(nm_type(func("f", 1)) == 'T');
  BOOST_TEST(nm_type(func("f", 1, B::Local)) == 't');
  BOOST_TEST(nm_type(object("d", 1)) == 'D');
  BOOST_TEST(nm_type(object("r", 1, false)) == 'R');
  BOOST_TEST(nm_type(object("b", 1, true, true)) == 'B');
  auto local_bss = object("b", 1, true, true);
  local_bss.binding = B::Local;
  BOOST_TEST(nm_type(local_bss) == 'b');
}

BOOST_AUTO_TEST_CASE(nm_letters_of_weak_undefined_absolute_and_special_symbols) {
  auto weak = func("w", 1, B::Weak);
  BOOST_TEST(nm_type(weak) == 'W');
  auto weak_object = object("v", 1);
  weak_object.binding = B::Weak;
  BOOST_TEST(nm_type(weak_object) == 'V');
  auto undefined = func("u", 0);
  undefined.where = W::Undefined;
  BOOST_TEST(nm_type(undefined) == 'U');
  undefined.binding = B::Weak;
  BOOST_TEST(nm_type(undefined) == 'w');
  auto absolute = object("a", 5);
  absolute.where = W::Absolute;
  BOOST_TEST(nm_type(absolute) == 'A');
  absolute.binding = B::Local;
  BOOST_TEST(nm_type(absolute) == 'a');
  auto section = func(".text", kStext);
  section.kind = K::Section;
  BOOST_TEST(nm_type(section) == 0);
  auto file = func("main.c", 0);
  file.kind = K::File;
  BOOST_TEST(nm_type(file) == 0);
  auto ifunc = func("memcpy", 1);
  ifunc.kind = K::Ifunc;
  BOOST_TEST(nm_type(ifunc) == 'i');
  auto debug = object("x", 1);
  debug.alloc = false;
  BOOST_TEST(nm_type(debug) == 'N');
  auto common = object("c", 1);
  common.where = W::Common;
  BOOST_TEST(nm_type(common) == 'C');
  auto unique = object("u", 1);
  unique.binding = B::Unique;
  BOOST_TEST(nm_type(unique) == 'u');
}

// ---- which symbols kallsyms keeps (mksysmap, scripts/kallsyms is_ignored_symbol) ----

BOOST_AUTO_TEST_CASE(mksysmap_and_kallsyms_drop_these_types) {
  for (char t : std::string("aNUwun")) BOOST_TEST(!kallsyms_keeps("sym", t), "type " << t);
  BOOST_TEST(!kallsyms_keeps("sym", 'A'));
  BOOST_TEST(kallsyms_keeps("__gp", 'A'));  // ia64's, kept on purpose
  for (char t : std::string("TtDdRrBbWVi")) BOOST_TEST(kallsyms_keeps("sym", t), "type " << t);
}

BOOST_AUTO_TEST_CASE(mksysmap_drops_these_names) {
  for (const char* n :
       {"$x", "$d.1", ".LBB12_3", ".Ltmp0", "__efistub_memcpy", "__kvm_nvhe_$x", "__kcfi_typeid_f", "__crc_printk",
        "__kstrtab_printk", "__kstrtabns_printk", "__ARMV7PILongThunk_f", "__AArch64ADRPThunk_f", "f_from_arm",
        "f_from_thumb", "f_veneer", "L0", "_SDA_BASE_", "x.long_branch.y", "x.plt_branch.y"})
    BOOST_TEST(!kallsyms_keeps(n, 't'), n);
}

BOOST_AUTO_TEST_CASE(padding_clones_and_boundaries_are_ordinary_symbols) {
  for (const char* n : {"__pfx_kthread", "__cfi_kthread", "do_exit.cold", "tcp_v4_rcv.part.0", "f.isra.0",
                        "f.constprop.0", "_stext", "__start_orc_unwind", "__x86_return_thunk"})
    BOOST_TEST(kallsyms_keeps(n, 't'), n);
}

// ---- which addresses and which entries: the text ranges ----

BOOST_AUTO_TEST_CASE(without_all_symbols_only_text_ranges_and_section_bounds_stay) {
  auto syms = small_vmlinux();
  syms.push_back(object("__start_orc_unwind", kStext + 0x3000, false));
  syms.push_back(object("rodata_thing", kStext + 0x3008, false));
  const KallsymsTable t = KallsymsTable::from_elf(syms);
  BOOST_TEST(!t.address_of("jiffies").has_value());
  BOOST_TEST(!t.address_of("rodata_thing").has_value());
  BOOST_TEST(!t.address_of("_end").has_value());
  BOOST_TEST(t.address_of("__start_orc_unwind").has_value());  // __start_/__stop_ always
  BOOST_TEST(t.address_of("_etext").has_value());              // the end symbols themselves stay
  BOOST_TEST(t.address_of("start_kernel").has_value());
  BOOST_TEST(!t.all_symbols());
}

BOOST_AUTO_TEST_CASE(other_names_at_etext_are_dropped_as_they_may_move_between_link_passes) {
  auto syms = small_vmlinux();
  syms.push_back(func("__entry_text_end", kStext + 0x800, B::Local));
  const KallsymsTable t = KallsymsTable::from_elf(syms);
  BOOST_TEST(!t.address_of("__entry_text_end").has_value());
  BOOST_TEST(name_at(t, kStext + 0x7ff) == "do_exit.cold");
}

BOOST_AUTO_TEST_CASE(with_all_symbols_data_stays_and_the_last_symbol_runs_to_end) {
  const KallsymsTable t = KallsymsTable::from_elf(small_vmlinux(), true);
  BOOST_TEST(t.address_of("jiffies").has_value());
  BOOST_TEST(t.all_symbols());
  BOOST_TEST(t.covers(kStext + 0x1004));  // is_kernel(): [_stext, _end)
  BOOST_TEST(name_at(t, kStext + 0x1004) == "jiffies");
}

BOOST_AUTO_TEST_CASE(addresses_outside_text_are_not_kallsyms_addresses) {
  const KallsymsTable t = KallsymsTable::from_elf(small_vmlinux());
  BOOST_TEST(!t.covers(kStext - 1));
  BOOST_TEST(!t.covers(kStext + 0x800));  // _etext itself is past the text
  BOOST_TEST(!t.covers(kStext + 0x1000));
  BOOST_TEST(t.covers(kStext + 0x2100));  // init text
  BOOST_TEST(!t.lookup(kStext + 0x1000).has_value());
  BOOST_TEST(!t.lookup(0xffffffffc0000000).has_value());  // a module address
}

// ---- names and sizes (get_symbol_pos) ----

BOOST_AUTO_TEST_CASE(size_is_the_distance_to_the_next_symbol_padding_symbols_included) {
  const KallsymsTable t = KallsymsTable::from_elf(small_vmlinux());
  auto panic = t.lookup(kStext + 0x210 + 0x335);
  BOOST_REQUIRE(panic);
  BOOST_TEST(panic->name == "panic");
  BOOST_TEST(panic->address == kStext + 0x210);
  // The next symbol is __pfx_do_exit, 16 bytes before do_exit: what 6.2+ kernels print.
  BOOST_TEST(panic->size == 0x390u);
}

BOOST_AUTO_TEST_CASE(a_pointer_to_a_functions_first_byte_is_named_after_its_padding) {
  // The kernel prints "? __pfx_kthread+0x10/0x10" for a stale word equal to kthread.
  TableSymbols symbols(KallsymsTable::from_elf(small_vmlinux()));
  auto printed = kallsyms_print(symbols, kStext + 0x90, /*exact_pc=*/false);
  BOOST_REQUIRE(printed);
  BOOST_TEST(printed->symbol.name == "__pfx_kthread");
  BOOST_TEST(printed->offset == 0x10u);
  BOOST_TEST(printed->symbol.size == 0x10u);
  // The same address as a RIP (a function entered, not returned to) is kthread+0x0.
  auto rip = kallsyms_print(symbols, kStext + 0x90, /*exact_pc=*/true);
  BOOST_REQUIRE(rip);
  BOOST_TEST(rip->symbol.name == "kthread");
  BOOST_TEST(rip->offset == 0u);
}

BOOST_AUTO_TEST_CASE(a_return_address_after_a_noreturn_call_names_the_caller) {
  // do_exit ends with a call to a noreturn function: its return address is
  // do_exit.cold's first byte, and %pB names do_exit+size/size.
  auto syms = small_vmlinux();
  TableSymbols symbols(KallsymsTable::from_elf(syms));
  auto printed = kallsyms_print(symbols, kStext + 0x700, false);
  BOOST_REQUIRE(printed);
  BOOST_TEST(printed->symbol.name == "do_exit");
  BOOST_TEST(printed->offset == printed->symbol.size);
}

BOOST_AUTO_TEST_CASE(cold_clones_are_symbols_of_their_own) {
  const KallsymsTable t = KallsymsTable::from_elf(small_vmlinux());
  auto cold = t.lookup(kStext + 0x744);
  BOOST_REQUIRE(cold);
  BOOST_TEST(cold->name == "do_exit.cold");
  BOOST_TEST(cold->size == 0x100u);  // to _etext: the last text symbol
}

BOOST_AUTO_TEST_CASE(the_last_init_symbol_runs_to_einittext) {
  const KallsymsTable t = KallsymsTable::from_elf(small_vmlinux());
  auto s = t.lookup(kStext + 0x2300);
  BOOST_REQUIRE(s);
  BOOST_TEST(s->name == "start_kernel");
  // _einittext is the next symbol: the same size either way; without it, the section end.
  BOOST_TEST(s->size == 0x400u);
}

BOOST_AUTO_TEST_CASE(aliases_name_the_first_by_kallsyms_order) {
  auto syms = small_vmlinux();
  const std::uint64_t a = kStext + 0x400;
  syms.push_back(func("zzz_global", a));
  syms.push_back(func("__weak_one", a, B::Weak));
  syms.push_back(func("__start_table", a, B::Global));
  syms.push_back(func("__two_underscores", a, B::Global));
  syms.push_back(func("_one_underscore", a, B::Global));
  syms.push_back(func("aaa_global", a, B::Local));
  const KallsymsTable t = KallsymsTable::from_elf(syms);
  // Non-weak, not linker-provided, fewest underscores, then nm -n's name order.
  BOOST_TEST(name_at(t, a + 4) == "aaa_global");
  std::vector<std::string> order;
  for (const KallsymsEntry& e : t.entries())
    if (e.address == a) order.push_back(e.name);
  const std::vector<std::string> expected = {"aaa_global",        "zzz_global",    "_one_underscore",
                                             "__two_underscores", "__start_table", "__weak_one"};
  BOOST_TEST(order == expected, boost::test_tools::per_element());
  // The alias run's size is to the next distinct address.
  BOOST_TEST(t.lookup(a)->size == 0x1a0u);  // to __pfx_do_exit at +0x5a0
}

BOOST_AUTO_TEST_CASE(a_weak_definition_loses_to_a_strong_alias) {
  auto syms = small_vmlinux();
  syms.push_back(func("arch_cpu_idle", kStext + 0x500, B::Weak));
  syms.push_back(func("default_idle", kStext + 0x500));
  const KallsymsTable t = KallsymsTable::from_elf(syms);
  BOOST_TEST(name_at(t, kStext + 0x500) == "default_idle");
}

BOOST_AUTO_TEST_CASE(the_kernel_table_decides_all_symbols_by_end) {
  std::vector<KallsymsEntry> entries = {
      {kStext, 'T', "_stext"}, {kStext + 0x10, 'T', "f"}, {kStext + 0x40, 'T', "_etext"}};
  BOOST_TEST(!KallsymsTable::from_kernel(entries).all_symbols());
  entries.push_back({kStext + 0x1000, 'B', "_end"});
  const KallsymsTable t = KallsymsTable::from_kernel(entries);
  BOOST_TEST(t.all_symbols());
  BOOST_TEST(t.lookup(kStext + 0x20)->size == 0x30u);
}

BOOST_AUTO_TEST_CASE(relocation_moves_addresses_but_not_absolute_per_cpu_entries) {
  std::vector<KallsymsEntry> entries = {{0x0, 'A', "fixed_percpu_data"},
                                        {0x1000, 'A', "cpu_debug_store"},
                                        {kStext, 'T', "_stext"},
                                        {kStext + 0x10, 'T', "f"},
                                        {kStext + 0x40, 'T', "_etext"}};
  KallsymsTable t = KallsymsTable::from_kernel(entries);
  t.relocate(0x2a000000);
  BOOST_TEST((t.address_of("fixed_percpu_data") == std::optional<std::uint64_t>(0)));
  BOOST_TEST((t.address_of("f") == std::optional<std::uint64_t>(kStext + 0x2a000010)));
  BOOST_TEST(name_at(t, kStext + 0x2a000011) == "f");
  BOOST_TEST(!t.lookup(kStext + 0x11).has_value());
}

BOOST_AUTO_TEST_SUITE_END()

// ---- the kernel's compressed table, decoded from memory ----

namespace {

constexpr std::uint64_t kTables = 0xffffffff82000000;

// Writes kallsyms_* the way scripts/kallsyms lays them out: a token table in
// which most bytes stand for themselves and a few for longer tokens, names as
// length-prefixed token indices, and addresses in the given format.
struct KallsymsWriter {
  enum class Format { Relative, AbsolutePercpu, Addresses };
  std::vector<KallsymsEntry> entries;
  Format format = Format::Relative;
  std::uint64_t base = kStext;
  std::map<std::string, std::uint8_t> tokens = {{"kallsyms", 0x80}, {"_start", 0x81}, {"Tpa", 0x82}};

  std::vector<std::uint8_t> compress(const std::string& typed_name) const {
    std::vector<std::uint8_t> out;
    for (std::size_t i = 0; i < typed_name.size();) {
      bool long_token = false;
      for (const auto& [tok, idx] : tokens) {
        if (typed_name.compare(i, tok.size(), tok) == 0) {
          out.push_back(idx);
          i += tok.size();
          long_token = true;
          break;
        }
      }
      if (!long_token) out.push_back(static_cast<std::uint8_t>(typed_name[i++]));
    }
    return out;
  }

  KernelKallsymsLayout write(SyntheticMemory& m, bool truncate_names = false) const {
    test::Image img(kTables);
    KernelKallsymsLayout l;
    l.num_syms = kTables;
    img.u32(l.num_syms, static_cast<std::uint32_t>(entries.size()));
    std::uint64_t at = kTables + 0x100;
    if (format == Format::Addresses) {
      l.addresses = at;
      for (std::size_t i = 0; i < entries.size(); ++i) img.u64(at + 8 * i, entries[i].address);
      at += 8 * entries.size();
    } else {
      l.offsets = at;
      for (std::size_t i = 0; i < entries.size(); ++i) {
        const KallsymsEntry& e = entries[i];
        std::int32_t off = 0;
        if (format == Format::Relative)
          off = static_cast<std::int32_t>(e.address - base);
        else if (e.type == 'A')
          off = static_cast<std::int32_t>(e.address);  // positive: an absolute per-CPU offset
        else
          off = static_cast<std::int32_t>(-static_cast<std::int64_t>(e.address - base) - 1);
        img.s32(at + 4 * i, off);
      }
      at += 4 * entries.size();
      l.relative_base = at;
      img.u64(at, base);
      at += 8;
    }
    // Token table: index b is the byte b itself, except the long tokens.
    std::vector<std::string> token(256);
    for (int b = 0; b < 256; ++b) token[b] = std::string(1, static_cast<char>(b ? b : ' '));
    for (const auto& [tok, idx] : tokens) token[idx] = tok;
    l.token_table = at;
    std::vector<std::uint16_t> index(256);
    std::uint64_t pos = 0;
    for (int b = 0; b < 256; ++b) {
      index[b] = static_cast<std::uint16_t>(pos);
      img.str(at + pos, token[b]);
      pos += token[b].size() + 1;
    }
    at += pos + 8;
    l.token_index = at;
    for (int b = 0; b < 256; ++b) img.u16(at + 2 * b, index[b]);
    at += 512;
    l.names = at;
    std::vector<std::uint8_t> names;
    for (const KallsymsEntry& e : entries) {
      auto c = compress(std::string(1, e.type) + e.name);
      if (c.size() >= 0x80) {
        names.push_back(static_cast<std::uint8_t>(0x80 | (c.size() & 0x7f)));
        names.push_back(static_cast<std::uint8_t>(c.size() >> 7));
      } else {
        names.push_back(static_cast<std::uint8_t>(c.size()));
      }
      names.insert(names.end(), c.begin(), c.end());
    }
    if (truncate_names) names.resize(names.size() / 2);
    img.put(at, names.data(), names.size());
    img.map_into(m);
    return l;
  }
};

std::vector<KallsymsEntry> text_entries() {
  return {{kStext, 'T', "_stext"},
          {kStext + 0x10, 'T', "kallsyms_lookup"},
          {kStext + 0x80, 't', "__pfx_pa_start"},
          {kStext + 0x90, 'T', "pa_start"},
          {kStext + 0x200, 'T', "_etext"}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernel_kallsyms)

BOOST_AUTO_TEST_CASE(relative_offsets_decode_to_the_kernels_own_table) {
  SyntheticMemory m;
  KallsymsWriter w;
  w.entries = text_entries();
  std::string problem;
  auto t = read_kernel_kallsyms(m, w.write(m), problem);
  BOOST_REQUIRE_MESSAGE(t, problem);
  BOOST_TEST(t->entries().size() == 5u);
  BOOST_TEST(t->entries()[1].name == "kallsyms_lookup");  // a long token expanded
  BOOST_TEST(t->entries()[2].type == 't');
  BOOST_TEST(t->lookup(kStext + 0x95)->name == "pa_start");  // "Tpa" token: the type is part of the first token
  BOOST_TEST(t->lookup(kStext + 0x20)->size == 0x70u);
}

BOOST_AUTO_TEST_CASE(absolute_percpu_offsets_decode_both_halves) {
  SyntheticMemory m;
  KallsymsWriter w;
  w.format = KallsymsWriter::Format::AbsolutePercpu;
  w.entries = text_entries();
  w.entries.insert(w.entries.begin(), {{0x0, 'A', "fixed_percpu_data"}, {0x1000, 'A', "cpu_debug_store"}});
  std::string problem;
  auto t = read_kernel_kallsyms(m, w.write(m), problem);
  BOOST_REQUIRE_MESSAGE(t, problem);
  BOOST_TEST((t->address_of("cpu_debug_store") == std::optional<std::uint64_t>(0x1000)));
  BOOST_TEST(t->entries()[1].type == 'A');
  BOOST_TEST((t->address_of("pa_start") == std::optional<std::uint64_t>(kStext + 0x90)));
  BOOST_TEST(t->lookup(kStext + 0x91)->name == "pa_start");
}

BOOST_AUTO_TEST_CASE(old_absolute_addresses_decode) {
  SyntheticMemory m;
  KallsymsWriter w;
  w.format = KallsymsWriter::Format::Addresses;
  w.entries = text_entries();
  std::string problem;
  auto t = read_kernel_kallsyms(m, w.write(m), problem);
  BOOST_REQUIRE_MESSAGE(t, problem);
  BOOST_TEST(t->lookup(kStext + 0x11)->name == "kallsyms_lookup");
}

BOOST_AUTO_TEST_CASE(a_big_symbol_takes_a_two_byte_length) {
  SyntheticMemory m;
  KallsymsWriter w;
  w.entries = text_entries();
  const std::string longname(200, 'x');  // 201 tokens with its type: 6.1+'s two-byte length
  w.entries.insert(w.entries.begin() + 2, {kStext + 0x40, 't', longname});
  std::string problem;
  auto t = read_kernel_kallsyms(m, w.write(m), problem);
  BOOST_REQUIRE_MESSAGE(t, problem);
  BOOST_TEST(t->lookup(kStext + 0x41)->name == longname);
  BOOST_TEST(t->lookup(kStext + 0x91)->name == "pa_start");  // and the stream stays in step after it
}

// The dump's table is searched without expanding every name (KernelKallsyms::lookup):
// over generated tables of every address format, with aliases, big names, init text and
// (in some) _end, every address answers as the fully decoded table answers.
BOOST_AUTO_TEST_CASE(a_lookup_without_expanding_every_name_answers_as_the_decoded_table) {
  std::mt19937 rng(14);
  for (int round = 0; round < 60; ++round) {
    KallsymsWriter w;
    w.format = static_cast<KallsymsWriter::Format>(round % 3);
    std::uint64_t at = kStext;
    if (w.format == KallsymsWriter::Format::AbsolutePercpu)
      w.entries = {{0x0, 'A', "fixed_percpu_data"}, {0x1000, 'A', "cpu_debug_store"}};
    w.entries.push_back({at, 'T', "_stext"});
    for (int i = 0; i < 40; ++i) {
      at += rng() % 3 == 0 ? 0 : 1 + rng() % 48;  // aliases every few entries
      const std::string name = rng() % 9 == 0 ? std::string(130 + rng() % 100, 'q') : "kallsyms_f" + std::to_string(i);
      w.entries.push_back(KallsymsEntry{at, rng() % 2 ? 'T' : 't', name});
    }
    w.entries.push_back({at += 16, 'T', "_etext"});
    w.entries.push_back({at += 0x100, 'T', "_sinittext"});
    w.entries.push_back({at += 0x20, 't', "init_f"});
    w.entries.push_back({at += 0x20, 'T', "_einittext"});
    if (round % 2) w.entries.push_back({at += 0x400, 'B', "_end"});
    SyntheticMemory m;
    const KernelKallsymsLayout layout = w.write(m);
    std::string problem;
    auto lazy = KernelKallsyms::read(m, layout, problem);
    BOOST_REQUIRE_MESSAGE(lazy, problem);
    auto decoded = read_kernel_kallsyms(m, layout, problem);
    BOOST_REQUIRE(decoded);
    BOOST_REQUIRE_EQUAL(lazy->size(), decoded->entries().size());
    for (std::size_t i = 0; i < lazy->size(); ++i) {
      BOOST_REQUIRE_EQUAL(lazy->entry(i).name, decoded->entries()[i].name);
      BOOST_REQUIRE_EQUAL(lazy->entry(i).type, decoded->entries()[i].type);
    }
    BOOST_TEST(lazy->ranges().all == decoded->all_symbols());
    for (std::uint64_t a = kStext - 8; a < at + 0x40; ++a) {
      BOOST_REQUIRE_EQUAL(lazy->covers(a), decoded->covers(a));
      const auto want = decoded->lookup(a);
      const auto got = lazy->lookup(a);
      BOOST_REQUIRE_EQUAL(got.has_value(), want.has_value());
      if (got) {
        BOOST_REQUIRE_EQUAL(got->name, want->name);
        BOOST_REQUIRE_EQUAL(got->address, want->address);
        BOOST_REQUIRE_EQUAL(got->size, want->size);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(truncated_names_are_a_problem_not_a_crash) {
  SyntheticMemory m;
  KallsymsWriter w;
  w.entries = text_entries();
  std::string problem;
  BOOST_TEST(!read_kernel_kallsyms(m, w.write(m, true), problem).has_value());
  BOOST_TEST(problem.find("kallsyms_names") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(unsorted_addresses_are_not_a_kallsyms_table) {
  SyntheticMemory m;
  KallsymsWriter w;
  w.entries = text_entries();
  std::swap(w.entries[1].address, w.entries[3].address);
  std::string problem;
  BOOST_TEST(!read_kernel_kallsyms(m, w.write(m), problem).has_value());
  BOOST_TEST(problem.find("sorted") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_table_without_stext_is_refused) {
  SyntheticMemory m;
  KallsymsWriter w;
  w.entries = {{kStext + 0x10, 'T', "f"}, {kStext + 0x20, 'T', "g"}};
  std::string problem;
  BOOST_TEST(!read_kernel_kallsyms(m, w.write(m), problem).has_value());
  BOOST_TEST(problem.find("_stext") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_implausible_count_or_unmapped_tables_are_refused) {
  SyntheticMemory m;
  test::Image img(kTables, 16);
  img.u32(kTables, 0xffffffff).map_into(m);
  KernelKallsymsLayout l;
  l.num_syms = kTables;
  l.offsets = kTables + 0x1000;  // not mapped
  l.relative_base = kTables + 8;
  std::string problem;
  BOOST_TEST(!read_kernel_kallsyms(m, l, problem).has_value());
  img.u32(kTables, 3).map_into(m);
  BOOST_TEST(!read_kernel_kallsyms(m, l, problem).has_value());
  BOOST_TEST(problem.find("kallsyms_offsets") != std::string::npos);
  l.offsets.reset();
  BOOST_TEST(!read_kernel_kallsyms(m, l, problem).has_value());
}

BOOST_AUTO_TEST_SUITE_END()

// ---- a module's symbols (kernel/module/kallsyms.c find_kallsyms_symbol) ----

namespace {

constexpr std::uint64_t kMod = 0xffffffffc0400000;

ModuleKallsyms labcrash() {
  ModuleKallsyms m;
  m.module = "labcrash";
  m.text_begin = kMod;
  m.text_end = kMod + 0x1000;
  m.symtab = {{"", 0, 0},  // symtab[0], the null symbol
              {"__pfx_labcrash_recurse", kMod + 0x70, 2},
              {"labcrash_recurse", kMod + 0x80, 2},  // st_size 0x75: not what the kernel prints
              {"__pfx_labcrash_write", kMod + 0x100, 2},
              {"labcrash_write", kMod + 0x110, 2},
              {"printk", 0, 0},                       // undefined: an import
              {"$x", kMod + 0x120, 2},                // a mapping symbol
              {"", kMod + 0x130, 2},                  // unnamed
              {"labcrash_count", kMod + 0x2000, 4}};  // data, past the text
  return m;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(module_kallsyms)

BOOST_AUTO_TEST_CASE(size_runs_to_the_next_symbol_whatever_st_size_says) {
  auto s = module_kallsyms_lookup(labcrash(), kMod + 0x80 + 0x67);
  BOOST_REQUIRE(s);
  BOOST_TEST(s->name == "labcrash_recurse");
  BOOST_TEST(s->address == kMod + 0x80);
  BOOST_TEST(s->size == 0x80u);  // labcrash_recurse+0x67/0x80, as the kernel printed
  BOOST_TEST(s->module == "labcrash");
}

BOOST_AUTO_TEST_CASE(mapping_unnamed_and_undefined_symbols_are_skipped) {
  auto s = module_kallsyms_lookup(labcrash(), kMod + 0x138);
  BOOST_REQUIRE(s);
  BOOST_TEST(s->name == "labcrash_write");  // not "$x", not the unnamed one
  BOOST_TEST(s->size == 0x1000u - 0x110u);  // at worst, the end of the module's text
  BOOST_TEST(is_mapping_symbol("$d"));
  BOOST_TEST(is_mapping_symbol(".L123"));
  BOOST_TEST(is_mapping_symbol("L0"));
  BOOST_TEST(!is_mapping_symbol("Labcrash"));
}

BOOST_AUTO_TEST_CASE(the_first_symbol_in_symtab_order_wins_a_tie) {
  ModuleKallsyms m = labcrash();
  m.symtab.push_back({"labcrash_recurse_alias", kMod + 0x80, 2});
  BOOST_TEST(module_kallsyms_lookup(m, kMod + 0x90)->name == "labcrash_recurse");
  std::swap(m.symtab[2], m.symtab.back());
  BOOST_TEST(module_kallsyms_lookup(m, kMod + 0x90)->name == "labcrash_recurse_alias");
}

BOOST_AUTO_TEST_CASE(a_data_symbol_inside_the_text_range_ends_a_function) {
  ModuleKallsyms m = labcrash();
  m.symtab.push_back({"jump_table", kMod + 0xf0, 3});
  BOOST_TEST(module_kallsyms_lookup(m, kMod + 0x90)->size == 0x70u);
}

BOOST_AUTO_TEST_CASE(init_text_is_bounded_by_its_own_end) {
  ModuleKallsyms m = labcrash();
  m.init_text_begin = kMod + 0x10000;
  m.init_text_end = kMod + 0x10100;
  m.symtab.push_back({"labcrash_init", kMod + 0x10000, 5});
  auto s = module_kallsyms_lookup(m, kMod + 0x10010);
  BOOST_REQUIRE(s);
  BOOST_TEST(s->name == "labcrash_init");
  BOOST_TEST(s->size == 0x100u);
}

BOOST_AUTO_TEST_CASE(addresses_the_module_does_not_hold_or_below_its_symbols) {
  BOOST_TEST(!module_kallsyms_lookup(labcrash(), kMod - 1).has_value());
  BOOST_TEST(!module_kallsyms_lookup(labcrash(), kMod + 0x1000).has_value());
  BOOST_TEST(!module_kallsyms_lookup(labcrash(), kMod + 0x10).has_value());  // before the first symbol
  BOOST_TEST(!module_kallsyms_lookup(ModuleKallsyms{}, kMod).has_value());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(return_address)

BOOST_AUTO_TEST_CASE(return_addresses_look_up_the_byte_before_registers_the_byte_itself) {
  BOOST_TEST(symbol_lookup_address(0x1000, false) == 0xfffu);
  BOOST_TEST(symbol_lookup_address(0x1000, true) == 0x1000u);
}

BOOST_AUTO_TEST_CASE(the_offset_is_from_the_real_address) {
  TableSymbols symbols(KallsymsTable::from_elf(small_vmlinux()));
  auto p = kallsyms_print(symbols, kStext + 0x210 + 0x335, false);
  BOOST_REQUIRE(p);
  BOOST_TEST(p->offset == 0x335u);
  BOOST_TEST(!kallsyms_print(symbols, kStext + 0x1000, false).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
