// The ELF notes of a kdump-compressed (diskdump) file, read from its
// sub-header: libkdumpfile 0.5.1 exposes no CPU registers for the files
// QEMU writes with -z (converted by makedumpfile -R), so btaudit reads the
// NT_PRSTATUS notes there itself, bounds-checking every field.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace btaudit {

struct PrstatusNote {
  int pid = 0;                                // pr_pid (QEMU: vCPU index + 1)
  std::map<std::string, std::uint64_t> regs;  // "rip", "rsp", ... (user_regs_struct names)
};

// Empty when the file is not a diskdump or carries no notes; never throws.
std::vector<PrstatusNote> read_diskdump_prstatus(const std::string& path);

}  // namespace btaudit
