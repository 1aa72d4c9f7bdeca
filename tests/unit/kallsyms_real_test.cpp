// kallsyms' rules held against real kernels: for every symbol of a real
// vmlinux's own kallsyms table (the compressed kallsyms_* arrays the kernel
// looks addresses up in), the table btaudit builds from the ELF symbols by
// scripts/kallsyms' filters and order names the same symbol with the same
// size, at the symbol's first byte and inside it. Runs on whichever of the lab
// kernels are on this machine (Debian 6.1, 6.14 and 6.18 built from source,
// with CONFIG_CALL_PADDING's __pfx_ symbols); exits 77 when none is. Text
// addresses only: what stack traces print. (For data, kernels up to about 6.9
// also left scripts/kallsyms' own kallsyms_* arrays out of the table, which
// the ELF rules, written from 6.14, keep: on 6.1 linux_banner's size differs.)
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "debuginfo/kernel_debuginfo.h"
#include "lab_kernels.h"

namespace {

using namespace btaudit;

using btaudit::testing::clang_lab_kernels;
using btaudit::testing::lab_kernels;

}  // namespace

BOOST_AUTO_TEST_SUITE(kallsyms_real)

BOOST_AUTO_TEST_CASE(the_elf_emulation_equals_the_kernels_own_table_on_real_kernels) {
  auto kernels = lab_kernels();
  for (std::string& k : clang_lab_kernels()) kernels.push_back(std::move(k));
  if (kernels.empty()) {
    BOOST_TEST_MESSAGE("no lab vmlinux on this machine: skipped");
    std::exit(77);
  }
  for (const std::string& path : kernels) {
    auto info = KernelDebugInfo::open(path, DebugInfoOptions{});
    const KallsymsTable& own = info->kallsyms();
    BOOST_TEST_MESSAGE(path << ": " << own.entries().size() << " symbols from " << info->kallsyms_source());
    BOOST_REQUIRE_MESSAGE(info->kallsyms_source().find("kallsyms tables") != std::string::npos,
                          path << ": the kernel's own table did not decode: " << info->kallsyms_source());
    const KallsymsTable elf = info->elf_kallsyms(own.all_symbols());
    const KallsymsTable text = info->elf_kallsyms(false);  // covers() of this one: the text ranges only
    std::size_t compared = 0, differ = 0, pfx = 0;
    for (const KallsymsEntry& e : own.entries()) {
      if (!own.covers(e.address) || !text.covers(e.address)) continue;
      for (std::uint64_t a : {e.address, e.address + 1}) {
        auto x = own.lookup(a), y = elf.lookup(a);
        ++compared;
        if (x && x->name.starts_with("__pfx_")) ++pfx;
        const bool same = x && y && x->name == y->name && x->address == y->address && x->size == y->size;
        if (!same && ++differ <= 10)
          BOOST_ERROR(path << ": at " << std::hex << a << " the kernel says " << (x ? x->name : "-") << "/"
                           << (x ? x->size : 0) << ", the ELF rules " << (y ? y->name : "-") << "/"
                           << (y ? y->size : 0));
      }
    }
    BOOST_TEST_MESSAGE(path << ": " << compared << " lookups compared (" << pfx << " in __pfx_ padding), " << differ
                            << " differ");
    BOOST_TEST(differ == 0u);
    BOOST_TEST(compared > 10000u);
  }
}

// A trace names a static function that several files define by its name and the size kallsyms
// prints: function() picks the one of that size. A session remembers its answers (a batch asks
// about the same functions in report after report), by name and size both: asked about every
// size of such a name, it names each size's own function, and two sessions asked in opposite
// orders give the same answers.
BOOST_AUTO_TEST_CASE(a_static_name_asked_with_each_of_its_sizes_gets_each_sizes_own_function) {
  const auto kernels = lab_kernels();
  if (kernels.empty()) {
    BOOST_TEST_MESSAGE("no lab vmlinux on this machine: skipped");
    std::exit(77);
  }
  using Definitions = std::vector<std::pair<std::uint64_t, std::uint64_t>>;  // address, kallsyms size
  for (const std::string& path : kernels) {
    auto forward = KernelDebugInfo::open(path, DebugInfoOptions{});
    auto backward = KernelDebugInfo::open(path, DebugInfoOptions{});
    const KallsymsTable& own = forward->kallsyms();
    std::map<std::string, Definitions> by_name;  // text symbols
    for (const KallsymsEntry& e : own.entries()) {
      if (e.type != 't' && e.type != 'T') continue;
      if (auto k = own.lookup(e.address); k && k->address == e.address && k->name == e.name)
        by_name[e.name].emplace_back(e.address, k->size);
    }
    std::size_t names = 0;
    std::size_t functions = 0;
    for (const auto& [name, defs] : by_name) {
      std::set<std::uint64_t> sizes;
      for (const auto& d : defs) sizes.insert(d.second);
      if (defs.size() < 2 || sizes.size() != defs.size()) continue;
      ++names;
      // Functions: 16 bytes or more of kallsyms size. (A label inside assembly, such as the
      // `off` of 6.14's and 6.18's entry code, 4 bytes, is not always an ELF symbol of that
      // name where kallsyms has it: function() may answer another of the name.)
      const bool function_sized = *sizes.begin() >= 16;
      functions += function_sized ? 1 : 0;
      for (std::size_t i = 0; i < defs.size(); ++i) {
        const auto& [address, size] = defs[i];
        const auto f = forward->function(name, "", size);
        const auto& [b_address, b_size] = defs[defs.size() - 1 - i];
        const auto b = backward->function(name, "", b_size);
        BOOST_TEST_CONTEXT(path << ": " << name << " of size 0x" << std::hex << size) {
          BOOST_REQUIRE(f.has_value());
          BOOST_REQUIRE(b.has_value());
          if (function_sized) {
            BOOST_TEST(f->address == address);
            BOOST_TEST(b->address == b_address);
          }
        }
      }
      // The same questions again, in the other order: the same answers.
      for (std::size_t i = 0; i < defs.size(); ++i) {
        const std::uint64_t size = defs[i].second;
        BOOST_TEST_CONTEXT(path << ": " << name << " of size 0x" << std::hex << size << ", again") {
          BOOST_TEST(forward->function(name, "", size)->address == backward->function(name, "", size)->address);
          BOOST_TEST(forward->function(name, "")->address == backward->function(name, "")->address);
        }
      }
      if (functions == 40) break;
    }
    BOOST_TEST_MESSAGE(path << ": " << names << " names defined more than once with one size each, " << functions
                            << " of them functions");
    BOOST_TEST(functions >= 10u);
  }
}

BOOST_AUTO_TEST_SUITE_END()
