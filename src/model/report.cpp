#include "model/report.h"

namespace btaudit {

std::string_view to_string(Arch a) {
  switch (a) {
    case Arch::X86_64: return "x86_64";
    case Arch::I386: return "i386";
    case Arch::Arm64: return "arm64";
    case Arch::Arm: return "arm";
    case Arch::PowerPC: return "powerpc";
    case Arch::S390: return "s390";
    case Arch::RiscV: return "riscv";
    case Arch::Mips: return "mips";
    case Arch::Sparc64: return "sparc64";
    case Arch::Parisc: return "parisc";
    case Arch::M68k: return "m68k";
    case Arch::Unknown: return "unknown";
  }
  return "unknown";
}

std::string signature_hex(std::uint64_t signature) {
  // "%016llx" by hand: snprintf's format parsing cost a thousand instructions a report.
  std::string hex(16, '0');
  for (std::size_t i = 16; i-- > 0; signature >>= 4) hex[i] = "0123456789abcdef"[signature & 0xf];
  return hex;
}

}  // namespace btaudit
