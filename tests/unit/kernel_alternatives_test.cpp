// The alternatives table (debuginfo/kernel_alternatives.h): entries of every struct alt_instr
// layout x86 kernels have had, decoded from bytes the test lays out; and on the real lab kernels
// (4.19, 5.10, Debian's 6.1, 6.14, 6.18 and the clang-built 6.18, whichever are here), the table
// read through the kernel's DWARF, the same entries through the layout table, and every call an
// ALTERNATIVE writes at boot found as a call site by the checker.
#include "debuginfo/kernel_alternatives.h"

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "analysis/call_site_check.h"
#include "debuginfo/debuginfo_code_source.h"
#include "debuginfo/kernel_debuginfo.h"
#include "lab_kernels.h"

namespace {

using namespace btaudit;

constexpr std::uint64_t kTable = 0xffffffff83a00000;
constexpr std::uint64_t kTextStart = 0xffffffff81000000;
constexpr std::uint64_t kTextEnd = 0xffffffff84000000;

struct Entry {
  std::uint64_t instr = 0, repl = 0;
  std::uint8_t instrlen = 0, replacementlen = 0;
  std::uint16_t cpuid = 0;
  std::uint16_t flags = 0;  // ft_flags' high half (6.3+ layouts only)
};

// The table's bytes as the kernel's assembler lays them out in `l`.
std::vector<std::uint8_t> table_of(const AltInstrLayout& l, const std::vector<Entry>& entries) {
  std::vector<std::uint8_t> t(entries.size() * l.size, 0xee);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    std::uint8_t* e = t.data() + i * l.size;
    const std::uint64_t at = kTable + i * l.size;
    const auto instr = static_cast<std::int32_t>(static_cast<std::int64_t>(entries[i].instr - (at + l.instr_offset)));
    const auto repl = static_cast<std::int32_t>(static_cast<std::int64_t>(entries[i].repl - (at + l.repl_offset)));
    std::memcpy(e + l.instr_offset, &instr, 4);
    std::memcpy(e + l.repl_offset, &repl, 4);
    if (l.feature_size == 4) {
      const std::uint32_t ft = entries[i].cpuid | std::uint32_t{entries[i].flags} << 16;
      std::memcpy(e + l.feature, &ft, 4);
    } else {
      std::memcpy(e + l.feature, &entries[i].cpuid, 2);
    }
    e[l.instrlen] = entries[i].instrlen;
    e[l.replacementlen] = entries[i].replacementlen;
  }
  return t;
}

class LayoutTypes final : public TypeProvider {
 public:
  explicit LayoutTypes(std::map<std::string, MemberInfo> members, std::uint64_t size)
      : members_(std::move(members)), size_(size) {}
  std::optional<std::uint64_t> type_size(const std::string& name) override {
    return name == "alt_instr" ? std::optional(size_) : std::nullopt;
  }
  std::optional<MemberInfo> member(const std::string& type, const std::string& m) override {
    if (type != "alt_instr") return std::nullopt;
    auto it = members_.find(m);
    return it == members_.end() ? std::nullopt : std::optional(it->second);
  }

 private:
  std::map<std::string, MemberInfo> members_;
  std::uint64_t size_;
};

// Every replacement that is a direct call (E8 rel32) from its first byte: the address after it
// must be a call site, from the file's bytes or from the table's (patched_by). Counts them, and
// reports the first ten missed.
struct CallReplacements {
  std::size_t calls = 0, by_table = 0, missed = 0;
};
CallReplacements call_replacements_found(KernelDebugInfo& info, const KernelAlternatives& alt) {
  DebugInfoCodeSource code(info);
  CallSiteChecker checker(code);
  CallReplacements r;
  for (const CodePatch& p : alt.patches()) {
    std::uint8_t first = 0;
    if (p.replacement_length < 5 || info.read_code(p.replacement, std::span(&first, 1)) != 1 || first != 0xe8) continue;
    ++r.calls;
    const CallSiteFinding f = checker.find_call(p.address + 5, info.symbol_at(p.address));
    if (!f.decided || f.site.kind == CallKind::None) {
      if (++r.missed <= 10)
        BOOST_ERROR(std::hex << "no call site after the ALTERNATIVE at 0x" << p.address << " (feature " << std::dec
                             << p.feature << "): " << f.note);
      continue;
    }
    r.by_table += f.site.patched_by.has_value();
  }
  return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernel_alternatives)

BOOST_AUTO_TEST_CASE(entries_of_every_layout_decode_to_the_same_patches) {
  const std::uint64_t f = 0xffffffff81234500;
  const std::uint64_t r = 0xffffffff83e00000;
  const std::vector<Entry> entries = {
      {f + 0x40, r + 0x10, 5, 5, 9 * 32 + 4, 0},  // sorted after the next one
      {f, r, 6, 5, 3 * 32 + 16, 0},               // ALTERNATIVE_2: two entries of one site
      {f, r + 5, 6, 6, 18 * 32 + 10, 0},
      {f + 0x80, r + 0x20, 3, 4, 1, 0},     // a replacement longer than its original: refused
      {0xffffffff80001000, r, 5, 5, 1, 0},  // an original outside the kernel's text
  };
  for (const AltInstrLayout& l : known_alt_instr_layouts()) {
    BOOST_TEST_CONTEXT(l.size << "-byte entries") {
      const auto t = table_of(l, entries);
      const KernelAlternatives alt(t, kTable, l, kTextStart, kTextEnd);
      BOOST_TEST(alt.size() == 3u);
      BOOST_TEST(alt.skipped() == 2u);
      const auto& p = alt.patches();
      BOOST_TEST(p[0].address == f);
      BOOST_TEST(p[0].replacement == r);  // table order kept within one site
      BOOST_TEST(p[1].replacement == r + 5);
      BOOST_TEST(p[1].feature == 18 * 32 + 10);
      BOOST_TEST(p[2].address == f + 0x40);
      BOOST_TEST(p[2].length == 5);
      BOOST_TEST(p[2].replacement_length == 5);
      BOOST_TEST(p[2].feature == 9 * 32 + 4);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_site_is_held_from_its_first_byte_to_its_last) {
  const AltInstrLayout l = known_alt_instr_layouts().front();
  const std::uint64_t f = 0xffffffff81234500;
  const auto t = table_of(l, {{f, 0xffffffff83e00000, 6, 5, 1, 0},
                              {f, 0xffffffff83e00005, 6, 2, 2, 0},
                              {f + 6, 0xffffffff83e00010, 5, 5, 3, 0}});
  const KernelAlternatives alt(t, kTable, l, kTextStart, kTextEnd);
  BOOST_TEST(alt.holding(f - 1).empty());
  BOOST_TEST(alt.holding(f).size() == 2u);
  BOOST_TEST(alt.holding(f + 5).size() == 2u);
  BOOST_TEST(alt.holding(f + 6).size() == 1u);
  BOOST_TEST(alt.holding(f + 6).front().feature == 3);
  BOOST_TEST(alt.holding(f + 11).empty());
}

BOOST_AUTO_TEST_CASE(the_feature_words_inverse_and_direct_call_flags_are_read_in_each_era) {
  const std::uint64_t f = 0xffffffff81234500;
  for (const AltInstrLayout& l : known_alt_instr_layouts()) {
    std::vector<Entry> e = {{f, 0xffffffff83e00000, 5, 5, 9 * 32 + 4, 0}};
    if (l.feature_size == 4)
      e.push_back({f + 8, 0xffffffff83e00008, 6, 5, 3 * 32 + 16, 1 | 2});  // ALT_FLAG_NOT | ALT_FLAG_DIRECT_CALL
    else
      e.push_back({f + 8, 0xffffffff83e00008, 6, 5, (3 * 32 + 16) | 0x8000, 0});  // the u16's inverse bit
    const auto t = table_of(l, e);
    const KernelAlternatives alt(t, kTable, l, kTextStart, kTextEnd);
    BOOST_TEST_CONTEXT(l.size << "-byte entries") {
      BOOST_REQUIRE(alt.size() == 2u);
      BOOST_TEST(!alt.patches()[0].when_absent);
      BOOST_TEST(alt.patches()[1].when_absent);
      BOOST_TEST(alt.patches()[1].feature == 3 * 32 + 16);
      BOOST_TEST(alt.patches()[1].target_from_pointer == (l.feature_size == 4));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_table_that_is_not_whole_entries_leaves_the_tail_unread) {
  const AltInstrLayout l = known_alt_instr_layouts().front();
  auto t = table_of(l, {{0xffffffff81234500, 0xffffffff83e00000, 5, 5, 1, 0}});
  t.resize(t.size() + l.size / 2, 0xff);
  const KernelAlternatives alt(t, kTable, l, kTextStart, kTextEnd);
  BOOST_TEST(alt.size() == 1u);
}

BOOST_AUTO_TEST_CASE(the_dwarf_layout_is_taken_only_when_its_members_are_the_kernels) {
  const std::map<std::string, MemberInfo> v614 = {{"instr_offset", {0, 4}},
                                                  {"repl_offset", {4, 4}},
                                                  {"ft_flags", {8, 4}},
                                                  {"instrlen", {12, 1}},
                                                  {"replacementlen", {13, 1}}};
  LayoutTypes ok(v614, 14);
  const auto l = alt_instr_layout(ok);
  BOOST_REQUIRE(l.has_value());
  BOOST_TEST(l->size == 14u);
  BOOST_TEST(l->feature_size == 4u);
  auto wide = v614;
  wide["instrlen"] = {12, 2};  // not a u8
  LayoutTypes bad(wide, 14);
  BOOST_TEST(!alt_instr_layout(bad).has_value());
  auto out = v614;
  out["replacementlen"] = {14, 1};  // past the struct's end
  LayoutTypes past(out, 14);
  BOOST_TEST(!alt_instr_layout(past).has_value());
  const std::map<std::string, MemberInfo> v419 = {{"instr_offset", {0, 4}},
                                                  {"repl_offset", {4, 4}},
                                                  {"cpuid", {8, 2}},
                                                  {"instrlen", {10, 1}},
                                                  {"replacementlen", {11, 1}}};
  LayoutTypes old(v419, 13);
  BOOST_TEST(alt_instr_layout(old)->feature_size == 2u);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(alternatives_real)

BOOST_AUTO_TEST_CASE(every_call_an_alternative_writes_at_boot_is_a_call_site_on_real_kernels) {
  auto kernels = btaudit::testing::lab_kernels();
  for (std::string& k : btaudit::testing::clang_lab_kernels()) kernels.push_back(std::move(k));
  if (kernels.empty()) {
    BOOST_TEST_MESSAGE("no lab vmlinux on this machine: skipped");
    std::exit(77);
  }
  for (const std::string& path : kernels) {
    BOOST_TEST_CONTEXT(path) {
      auto info = KernelDebugInfo::open(path, DebugInfoOptions{});
      const KernelAlternatives& alt = info->alternatives();
      BOOST_TEST_MESSAGE(path << ": " << alt.size() << " alternatives (" << info->alternatives_source() << ")");
      BOOST_TEST(info->alternatives_source().find("DWARF") != std::string::npos);
      BOOST_TEST(alt.size() > 100u);
      BOOST_TEST(alt.skipped() == 0u);
      // The layout table agrees with the DWARF: the known layout of the same size reads the
      // same entries from the same bytes.
      const auto start = info->function("__alt_instructions", "");
      const auto end = info->function("__alt_instructions_end", "");
      BOOST_REQUIRE(start && end);
      std::vector<std::uint8_t> table(end->address - start->address);
      BOOST_REQUIRE(info->read_code(start->address, table) == table.size());
      std::size_t same_size = 0;
      for (const AltInstrLayout& l : known_alt_instr_layouts()) {
        if (table.size() % l.size != 0) continue;
        const KernelAlternatives again(table, start->address, l, start->address - (std::uint64_t{1} << 30),
                                       end->address + (std::uint64_t{1} << 30));
        if (again.skipped() != 0 || again.size() != alt.size()) continue;
        ++same_size;
        for (std::size_t i = 0; i < alt.size(); ++i) {
          const CodePatch &a = alt.patches()[i], &b = again.patches()[i];
          BOOST_REQUIRE(a.address == b.address && a.replacement == b.replacement && a.length == b.length &&
                        a.replacement_length == b.replacement_length && a.feature == b.feature);
        }
      }
      BOOST_TEST(same_size >= 1u);
      const CallReplacements r = call_replacements_found(*info, alt);
      BOOST_TEST_MESSAGE(path << ": " << r.calls << " replacements are calls; " << r.by_table
                              << " found through the table only, " << r.missed << " missed");
      BOOST_TEST(r.missed == 0u);
    }
  }
}

// Modules are relocatable: their tables hold zeros until the relocations are applied. The Debian
// 6.1 kernel's debug modules that carry one (about one in twenty-five): every entry lands inside
// its module, and every replacement that is a call from its first byte (after relocation, its
// target named by the relocation) is found as a call site at the address after it.
BOOST_AUTO_TEST_CASE(every_call_a_module_alternative_writes_at_boot_is_a_call_site) {
  const std::string vmlinux = "/usr/lib/debug/boot/vmlinux-6.1.0-57-cloud-amd64";
  const std::string tree = "/usr/lib/debug/lib/modules/6.1.0-57-cloud-amd64";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(vmlinux, ec) || !std::filesystem::is_directory(tree, ec)) {
    BOOST_TEST_MESSAGE("no Debian 6.1 debug vmlinux and modules: skipped");
    std::exit(77);
  }
  // The modules with a table, found by their section names (read here with libelf's own walk
  // rather than through btaudit), at most 40 of them for the run's time.
  std::vector<std::filesystem::path> with_table;
  for (const auto& e : std::filesystem::recursive_directory_iterator(tree, ec)) {
    if (with_table.size() >= 40) break;
    if (!e.is_regular_file() || e.path().extension() != ".ko") continue;
    const std::string bytes = [&] {
      std::ifstream in(e.path(), std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(in), {});
    }();
    if (bytes.find(std::string_view(".rela.altinstructions\0", 22)) != std::string::npos)
      with_table.push_back(e.path());
  }
  BOOST_TEST_MESSAGE(with_table.size() << " modules with .altinstructions");
  BOOST_REQUIRE(with_table.size() >= 5u);
  std::size_t entries = 0, calls = 0, missed = 0, by_table = 0;
  for (const auto& path : with_table) {
    BOOST_TEST_CONTEXT(path.string()) {
      DebugInfoOptions options;
      options.module_paths = {path.string()};
      auto info = KernelDebugInfo::open(vmlinux, options);
      const std::string name = path.stem().string();
      BOOST_REQUIRE(info->load_module(name));
      const ModuleAlternatives& alt = info->module_alternatives(name);
      BOOST_TEST(alt.known, alt.source);
      BOOST_TEST(alt.table.size() > 0u);
      BOOST_TEST(alt.table.skipped() == 0u);
      entries += alt.table.size();
      const CallReplacements r = call_replacements_found(*info, alt.table);
      calls += r.calls;
      by_table += r.by_table;
      missed += r.missed;
    }
  }
  BOOST_TEST_MESSAGE(entries << " entries, " << calls << " replacements are calls, " << by_table
                             << " found through the table only, " << missed << " missed");
  BOOST_TEST(by_table > 0u);  // the calls the file alone does not hold
  BOOST_TEST(missed == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
