// Where a static per-CPU variable of vmlinux lives on a CPU, for every x86-64 era.
//
//   2.6.30 - 6.14  zero-based: the .data..percpu output section is linked at 0
//                  (3e5d8f978435 "x86: make percpu symbols zerobased on SMP",
//                  PERCPU_VADDR(..., 0) in arch/x86/kernel/vmlinux.lds.S). A symbol's
//                  value is its offset in the per-CPU area; KASLR does not move it
//                  (the relocs tool and kallsyms --absolute-percpu treat it as absolute).
//   6.15+          section-based: PERCPU_SECTION() links .data..percpu at its place in
//                  the image (Brian Gerst's "x86/percpu/64: Use relative percpu offsets"
//                  series, with the percpu hot section). The symbol is an ordinary kernel
//                  address, moved by the KASLR offset like any other, and
//                  __per_cpu_offset[cpu] is the distance from the (relocated) template to
//                  that CPU's copy.
// In both, the address on a CPU is the symbol's runtime value + __per_cpu_offset[cpu];
// only the runtime value differs. The era shows in the symbol itself: a zero-based one is
// a small offset, a section-based one a kernel-image address, so each symbol is relocated
// by what it is, and a kernel whose __per_cpu_start is missing from the symbols still works. Dynamic per-CPU pointers
// read from memory (crash_notes, struct module's percpu) are already runtime values in both eras.
#pragma once
#include <cstdint>

namespace btaudit {

struct PerCpuSymbols {
  // Link address of __per_cpu_start: 0 in zero-based kernels (reported, not relied on).
  std::uint64_t per_cpu_start = 0;
  std::int64_t kaslr = 0;

  // Lowest address of the x86-64 kernel half; per-CPU offsets of zero-based kernels are
  // far below it (the per-CPU area is at most a few MiB).
  static constexpr std::uint64_t kKernelHalf = 0xffff800000000000ULL;

  bool zero_based() const { return per_cpu_start < kKernelHalf; }

  // The value to add __per_cpu_offset[cpu] to, for a per-CPU symbol linked at `link`.
  std::uint64_t runtime(std::uint64_t link) const {
    return link >= kKernelHalf ? link + static_cast<std::uint64_t>(kaslr) : link;
  }
};

}  // namespace btaudit
