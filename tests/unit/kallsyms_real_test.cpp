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

BOOST_AUTO_TEST_SUITE_END()
