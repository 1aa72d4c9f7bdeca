#include "model/report.h"

#include <cstdio>

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
    case Arch::Unknown: return "unknown";
  }
  return "unknown";
}

std::string signature_hex(std::uint64_t signature) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(signature));
  return buf;
}

}  // namespace btaudit
