// The registers in an x86-64 NT_PRSTATUS note's descriptor (struct
// elf_prstatus): shared by the diskdump sub-header reader and the crash
// extension, which gets the notes from crash's own table.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace btaudit {

// pr_reg's words in order (struct user_regs_struct). The first 21, r15 .. ss, are struct
// pt_regs' words in the same order: the kernel copies a pt_regs into them (ELF_CORE_COPY_REGS).
inline constexpr std::string_view kPrstatusRegNames[] = {
    "r15", "r14",      "r13", "r12", "rbp",    "rbx", "r11", "r10",     "r9",      "r8", "rax", "rcx", "rdx", "rsi",
    "rdi", "orig_rax", "rip", "cs",  "rflags", "rsp", "ss",  "fs_base", "gs_base", "ds", "es",  "fs",  "gs"};
inline constexpr std::size_t kPtRegsWordCount = 21;

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
