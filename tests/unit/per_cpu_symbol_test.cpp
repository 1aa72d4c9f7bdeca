// Per-CPU symbol addressing in both x86-64 eras (src/vmcore/per_cpu_symbol.h): a CPU's copy
// of a static per-CPU variable is the symbol's runtime value plus __per_cpu_offset[cpu], and
// only section-based (6.15+) symbols move with KASLR. Each case is laid out the way the
// kernel lays it out: setup_per_cpu_areas() sets __per_cpu_offset[cpu] to the distance from
// the (runtime) __per_cpu_start to that CPU's copy.
#include "vmcore/per_cpu_symbol.h"

#include <boost/test/unit_test.hpp>
#include <cstdint>

using namespace btaudit;

namespace {

// Values from real kernels: 6.14's pcpu_hot and 6.18.2's current_task (lab vmlinux files).
constexpr std::uint64_t kZeroBasedPcpuHot = 0x2b080;
constexpr std::uint64_t kSectionPerCpuStart = 0xffffffff82127000ULL;
constexpr std::uint64_t kSectionCurrentTask = 0xffffffff8213b018ULL;
constexpr std::uint64_t kCpuArea = 0xffff88807fa00000ULL;  // a CPU's copy of the per-CPU area

struct Era {
  const char* name;
  std::uint64_t per_cpu_start;  // link value of __per_cpu_start
  std::uint64_t symbol;         // link value of the variable
};

constexpr Era kEras[] = {
    {"zero-based (2.6.30-6.14)", 0, kZeroBasedPcpuHot},
    {"section-based (6.15+)", kSectionPerCpuStart, kSectionCurrentTask},
};
constexpr std::int64_t kKaslrOffsets[] = {0, 0x3ce00000, 0x1000000};

// What the kernel computes: __per_cpu_offset[cpu] = area - __per_cpu_start (runtime), and the
// variable's copy = &var (runtime) + __per_cpu_offset[cpu].
std::uint64_t kernel_address(const Era& e, std::int64_t kaslr) {
  const bool moves = e.per_cpu_start != 0;
  const std::uint64_t shift = moves ? static_cast<std::uint64_t>(kaslr) : 0;
  const std::uint64_t per_cpu_offset = kCpuArea - (e.per_cpu_start + shift);
  return e.symbol + shift + per_cpu_offset;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(per_cpu_symbol)

BOOST_AUTO_TEST_CASE(every_era_and_kaslr_offset_reaches_the_cpus_copy) {
  for (const Era& e : kEras) {
    for (std::int64_t kaslr : kKaslrOffsets) {
      BOOST_TEST_CONTEXT(e.name << ", KASLR " << std::hex << kaslr) {
        const PerCpuSymbols p{e.per_cpu_start, kaslr};
        const std::uint64_t per_cpu_start_runtime = p.runtime(e.per_cpu_start);
        const std::uint64_t per_cpu_offset = kCpuArea - per_cpu_start_runtime;
        BOOST_TEST(p.runtime(e.symbol) + per_cpu_offset == kernel_address(e, kaslr));
        BOOST_TEST(p.runtime(e.symbol) - per_cpu_start_runtime == e.symbol - e.per_cpu_start);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(zero_based_symbols_never_move_with_kaslr) {
  const PerCpuSymbols p{0, 0x3ce00000};
  BOOST_TEST(p.zero_based());
  BOOST_TEST(p.runtime(kZeroBasedPcpuHot) == kZeroBasedPcpuHot);
  BOOST_TEST(p.runtime(0) == 0u);
}

BOOST_AUTO_TEST_CASE(section_based_symbols_move_with_kaslr) {
  const PerCpuSymbols p{kSectionPerCpuStart, 0x3ce00000};
  BOOST_TEST(!p.zero_based());
  BOOST_TEST(p.runtime(kSectionCurrentTask) == kSectionCurrentTask + 0x3ce00000);
}

BOOST_AUTO_TEST_CASE(a_kernel_without_per_cpu_start_is_decided_by_each_symbol) {
  // __per_cpu_start missing from the symbols (reported as 0): a kernel-image address is
  // still relocated, a small offset still is not.
  const PerCpuSymbols p{0, 0x200000};
  BOOST_TEST(p.runtime(kSectionCurrentTask) == kSectionCurrentTask + 0x200000);
  BOOST_TEST(p.runtime(kZeroBasedPcpuHot) == kZeroBasedPcpuHot);
}

BOOST_AUTO_TEST_CASE(a_negative_kaslr_offset_wraps_as_the_kernel_adds_it) {
  const PerCpuSymbols p{kSectionPerCpuStart, -0x1000000};
  BOOST_TEST(p.runtime(kSectionCurrentTask) == kSectionCurrentTask - 0x1000000);
}

BOOST_AUTO_TEST_SUITE_END()
