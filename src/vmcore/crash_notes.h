// Each CPU's registers from the kernel's own per-CPU note buffers
// (crash_notes, filled by crash_save_cpu() when a kdump kernel takes over).
// The dump file's NT_PRSTATUS notes are copies of the same buffers, but only
// of the non-empty ones, in CPU order: when a CPU was offline or did not
// answer the crash NMI it has no note, and every later CPU's note would be
// taken for the CPU before it.
#pragma once
#include <cstddef>
#include <vector>

#include "memory/memory_source.h"
#include "vmcore/cpu_registers.h"
#include "vmcore/kernel_layout.h"

namespace btaudit {

// One entry per CPU whose buffer holds a note, in CPU order. Empty when vmlinux
// has no crash_notes or no buffer holds a note (a dump QEMU took without kdump):
// then the order of the file's notes is all there is to go by.
std::vector<CpuRegisters> read_crash_notes(MemorySource& m, const KernelLayout& layout, std::size_t ncpus);

}  // namespace btaudit
