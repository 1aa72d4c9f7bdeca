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
    case Arch::Unknown: return "unknown";
  }
  return "unknown";
}

std::string describe(const Truncation& t) {
  const std::string option = t.option.empty() ? std::string(", a fixed bound") : ", " + t.option;
  if (t.unit == "bytes")
    return t.what + ": " + std::to_string(t.seen) + (t.seen == 1 ? " line" : " lines") + " cut to " +
           std::to_string(t.limit) + " bytes" + option;
  if (t.unit == "ms")
    return t.what + ": " + std::to_string(t.kept) + " of " + std::to_string(t.seen) + " done within " +
           std::to_string(t.limit) + " ms" + option;
  return t.what + ": " + std::to_string(t.kept) + " of " + std::to_string(t.seen) + " kept (limit " +
         std::to_string(t.limit) + option + ")";
}

}  // namespace btaudit
