// The CU index (debuginfo/cu_index.h) answers "which CU holds this address" as
// libdwfl does (elfutils 0.188, libdwfl/cu.c addrarange): on generated aranges
// against a second, linear statement of the same rules, and on real DWARF (the
// kernel-like image the suite builds and every lab vmlinux on this machine)
// against libdwfl itself, CU and source line alike, since a session with a
// profile takes both from the index and never asks libdwfl.
#include "debuginfo/cu_index.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "lab_kernels.h"

namespace {

using namespace btaudit;

struct Arange {
  std::uint64_t start, length, cu;
};

// The rules read straight off libdwfl's comments, one run at a time: the address
// belongs to the last run starting at or below it; the last run reaches up to the
// last arange's end, inclusive.
std::optional<std::uint64_t> linear_cu_at(const std::vector<Arange>& aranges, std::uint64_t address) {
  std::optional<std::uint64_t> found;
  for (std::size_t i = 0; i < aranges.size(); ++i) {
    const bool run_start = i == 0 || aranges[i].cu != aranges[i - 1].cu;
    if (run_start && aranges[i].start <= address) found = aranges[i].cu;
  }
  if (aranges.empty()) return std::nullopt;
  const Arange& last = aranges.back();
  if (address > last.start + last.length) {
    // Beyond the end: only an earlier run whose successor starts above the address keeps it.
    std::size_t last_run = aranges.size() - 1;
    while (last_run > 0 && aranges[last_run - 1].cu == last.cu) --last_run;
    if (address >= aranges[last_run].start) return std::nullopt;
  }
  return found;
}

// cu_at's answer as a number (kNone when there is none), printable by Boost.Test.
constexpr std::uint64_t kNone = ~std::uint64_t{0};
std::uint64_t cu(const CuIndex& index, std::uint64_t address) { return index.cu_at(address).value_or(kNone); }

CuIndex index_of(const std::vector<Arange>& aranges) {
  CuIndex::Builder b;
  for (const Arange& a : aranges) b.add(a.start, a.length, a.cu);
  return std::move(b).finish();
}

// Aranges as libdw gives them: sorted by address, runs of one CU, gaps, zero-length ones.
std::vector<Arange> generated_aranges(std::mt19937_64& rng) {
  std::vector<Arange> out;
  std::uint64_t at = 0xffffffff81000000 + rng() % 64;
  std::uint64_t cu = 0x0b;
  const int n = static_cast<int>(rng() % 40);
  for (int i = 0; i < n; ++i) {
    if (rng() % 3 != 0) cu = 0x0b + (rng() % 8) * 0x1000;  // often back to a CU seen before
    const std::uint64_t length = rng() % 5 == 0 ? 0 : 1 + rng() % 200;
    out.push_back({at, length, cu});
    // A gap now and then. Runs never start at one address: libdwfl's binary search then
    // picks among them by where it lands, which the linear statement does not model
    // (real aranges have such ties only as zero-length ones; the libdwfl test covers those).
    at += std::max<std::uint64_t>(length, 1) + (rng() % 4 == 0 ? rng() % 50 : 0);
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cu_index)

BOOST_AUTO_TEST_CASE(every_address_around_generated_aranges_gets_libdwfls_cu) {
  std::mt19937_64 rng(14);
  std::size_t checked = 0;
  for (int round = 0; round < 400; ++round) {
    const auto aranges = generated_aranges(rng);
    const CuIndex index = index_of(aranges);
    const std::uint64_t from = aranges.empty() ? 0xffffffff81000000 : aranges.front().start - 3;
    const std::uint64_t to = aranges.empty() ? from + 8 : aranges.back().start + aranges.back().length + 3;
    for (std::uint64_t a = from; a <= to; ++a, ++checked)
      BOOST_REQUIRE_MESSAGE(index.cu_at(a) == linear_cu_at(aranges, a), "round " << round << " address " << a);
  }
  BOOST_TEST(checked > 100000U);
}

BOOST_AUTO_TEST_CASE(gaps_belong_to_the_cu_before_them_and_the_last_end_is_inside) {
  // Two aranges of CU 1 with a gap, then CU 2: the gap is CU 1's, as libdwfl's comment says.
  const CuIndex index = index_of({{100, 10, 1}, {120, 10, 1}, {200, 50, 2}});
  BOOST_TEST(index.runs().size() == 2U);
  BOOST_TEST(cu(index, 99) == kNone);
  BOOST_TEST(cu(index, 100) == 1U);
  BOOST_TEST(cu(index, 115) == 1U);
  BOOST_TEST(cu(index, 199) == 1U);
  BOOST_TEST(cu(index, 249) == 2U);
  BOOST_TEST(cu(index, 250) == 2U);  // addr > addr + length: the end is in
  BOOST_TEST(cu(index, 251) == kNone);
  BOOST_TEST(cu(CuIndex{}, 100) == kNone);
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

// Kernel images to compare on: the suite's kernel-like image and the lab kernels present.
std::vector<std::string> images() {
  std::vector<std::string> out{BTAUDIT_MINIKERNEL};
  for (std::string& k : btaudit::testing::lab_kernels()) out.push_back(std::move(k));
  return out;
}

struct DwflDeleter {
  void operator()(Dwfl* d) const { dwfl_end(d); }
};

std::string line_of(Dwarf_Line* line) {
  if (!line) return "-";
  int lineno = 0;
  int col = 0;
  dwarf_lineno(line, &lineno);
  dwarf_linecol(line, &col);
  const char* file = dwarf_linesrc(line, nullptr, nullptr);
  return std::string(file ? file : "?") + ":" + std::to_string(lineno) + ":" + std::to_string(col);
}

std::string line_of(Dwfl_Line* line) {
  if (!line) return "-";
  int lineno = 0;
  int col = 0;
  const char* file = dwfl_lineinfo(line, nullptr, &lineno, &col, nullptr, nullptr);
  return std::string(file ? file : "?") + ":" + std::to_string(lineno) + ":" + std::to_string(col);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cu_index_real)

BOOST_AUTO_TEST_CASE(a_kernels_index_answers_as_libdwfl_with_cu_and_source_line) {
  static const Dwfl_Callbacks callbacks = {
      .find_elf = dwfl_build_id_find_elf,
      .find_debuginfo = dwfl_standard_find_debuginfo,
      .section_address = dwfl_offline_section_address,
      .debuginfo_path = nullptr,
  };
  for (const std::string& path : images()) {
    std::unique_ptr<Dwfl, DwflDeleter> dwfl(dwfl_begin(&callbacks));
    BOOST_REQUIRE(dwfl);
    Dwfl_Module* mod = dwfl_report_offline(dwfl.get(), "kernel", path.c_str(), -1);
    BOOST_REQUIRE_MESSAGE(mod, path << ": " << dwfl_errmsg(-1));
    dwfl_report_end(dwfl.get(), nullptr, nullptr);
    Dwarf_Addr bias = 0;
    Dwarf* dwarf = dwfl_module_getdwarf(mod, &bias);
    BOOST_REQUIRE(dwarf);
    const auto index = CuIndex::from_aranges(dwarf);
    BOOST_REQUIRE(index.has_value());
    BOOST_REQUIRE(!index->runs().empty());
    // Each run's first byte, the bytes around it and the last end, for a sample of runs,
    // and addresses spread over the module (gaps and code without DWARF included).
    std::vector<std::uint64_t> addresses;
    std::mt19937_64 rng(61);
    const auto& runs = index->runs();
    for (std::size_t i = 0; i < runs.size(); i += 1 + runs.size() / 400)
      for (std::int64_t d : {-1, 0, 1, 7}) addresses.push_back(runs[i].start + bias + static_cast<std::uint64_t>(d));
    for (std::int64_t d : {-1, 0, 1}) addresses.push_back(index->last_end() + bias + static_cast<std::uint64_t>(d));
    Dwarf_Addr low = 0, high = 0;
    dwfl_module_info(mod, nullptr, &low, &high, nullptr, nullptr, nullptr, nullptr);
    for (int i = 0; i < 1500; ++i) addresses.push_back(low + rng() % (high - low));
    std::size_t with_cu = 0, with_line = 0;
    for (const std::uint64_t a : addresses) {
      Dwarf_Addr b = 0;
      Dwarf_Die* theirs = dwfl_module_addrdie(mod, a, &b);
      const auto ours = index->cu_at(a - bias);
      BOOST_REQUIRE_MESSAGE(ours.has_value() == (theirs != nullptr), path << " at " << std::hex << a);
      if (!theirs) continue;
      ++with_cu;
      BOOST_REQUIRE_EQUAL(*ours, dwarf_dieoffset(theirs));
      Dwarf_Die cu;
      BOOST_REQUIRE(dwarf_offdie(dwarf, *ours, &cu));
      const std::string line = line_of(dwarf_getsrc_die(&cu, a - bias));
      BOOST_REQUIRE_EQUAL(line, line_of(dwfl_module_getsrc(mod, a)));
      if (line != "-") ++with_line;
    }
    BOOST_TEST_MESSAGE(path << ": " << runs.size() << " runs, " << addresses.size() << " addresses, " << with_cu
                            << " in a CU, " << with_line << " with a line");
    BOOST_TEST(with_line > 0U);
  }
}

// A clang-built kernel's .debug_aranges names its assembler's CUs only: libdwfl finds no CU for
// most of its code. Every address inside a CU's own ranges (DW_AT_ranges, low/high pc; found
// here by walking every CU, the index's oracle) gets that CU, and the line table of most gives a
// line. Skipped without a clang lab kernel (BTAUDIT_CLANG_VMLINUXES).
BOOST_AUTO_TEST_CASE(a_clang_kernels_cus_without_aranges_are_found_by_their_ranges) {
  const auto kernels = btaudit::testing::clang_lab_kernels();
  if (kernels.empty()) {
    BOOST_TEST_MESSAGE("no clang-built lab kernel (BTAUDIT_CLANG_VMLINUXES): skipped");
    return;
  }
  for (const std::string& path : kernels) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    BOOST_REQUIRE(fd >= 0);
    Dwarf* dwarf = dwarf_begin(fd, DWARF_C_READ);
    BOOST_REQUIRE(dwarf);
    // The oracle: every CU's ranges.
    struct Range {
      Dwarf_Addr start, end;
      Dwarf_Off cu;
    };
    std::vector<Range> ranges;
    Dwarf_CU* cu = nullptr;
    Dwarf_Die cudie;
    Dwarf_Half version = 0;
    std::uint8_t unit_type = 0;
    while (dwarf_get_units(dwarf, cu, &cu, &version, &unit_type, &cudie, nullptr) == 0) {
      Dwarf_Addr base = 0, start = 0, end = 0;
      for (std::ptrdiff_t at = 0; (at = dwarf_ranges(&cudie, at, &base, &start, &end)) > 0;)
        if (end > start) ranges.push_back({start, end, dwarf_dieoffset(&cudie)});
    }
    BOOST_REQUIRE(ranges.size() > 1000U);
    const auto index = CuIndex::from_aranges(dwarf);
    BOOST_REQUIRE(index.has_value());
    std::mt19937_64 rng(18);
    std::size_t sampled = 0, with_line = 0;
    for (int i = 0; i < 3000; ++i) {
      const Range& r = ranges[rng() % ranges.size()];
      const Dwarf_Addr a = r.start + rng() % (r.end - r.start);
      const auto ours = index->cu_at(a);
      BOOST_REQUIRE_MESSAGE(ours.has_value(), path << " at " << std::hex << a);
      BOOST_REQUIRE_EQUAL(*ours, r.cu);
      ++sampled;
      Dwarf_Die found;
      if (dwarf_offdie(dwarf, *ours, &found) && dwarf_getsrc_die(&found, a)) ++with_line;
    }
    BOOST_TEST_MESSAGE(path << ": " << ranges.size() << " CU ranges, " << sampled << " addresses in their CU, "
                            << with_line << " with a line");
    BOOST_TEST(with_line > sampled * 9 / 10);
    dwarf_end(dwarf);
    ::close(fd);
  }
}

BOOST_AUTO_TEST_SUITE_END()
