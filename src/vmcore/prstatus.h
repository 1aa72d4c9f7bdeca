// The registers in an x86-64 NT_PRSTATUS note's descriptor (struct
// elf_prstatus): shared by the diskdump sub-header reader and the crash
// extension, which gets the notes from crash's own table.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>

namespace btaudit {

struct PrstatusRegs {
  int pid = 0;                                // pr_pid (QEMU: vCPU index + 1)
  std::map<std::string, std::uint64_t> regs;  // "rip", "rsp", ... (user_regs_struct names)
};

// Nothing when the descriptor is too short to hold pr_reg.
std::optional<PrstatusRegs> parse_prstatus_desc(std::span<const std::uint8_t> desc);

// A whole note (Elf64_Nhdr, name, descriptor), bounds-checked: nothing unless
// it is a "CORE" NT_PRSTATUS note that fits in `note`.
std::optional<PrstatusRegs> parse_prstatus_note(std::span<const std::uint8_t> note);

}  // namespace btaudit
