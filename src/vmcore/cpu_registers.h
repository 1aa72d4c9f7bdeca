// One CPU's registers at dump time, by the names of struct user_regs_struct
// ("rip", "rsp", "rbp", ...), whoever read them: libkdumpfile, the
// diskdump sub-header, or crash's NT_PRSTATUS table.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace btaudit {

struct CpuRegisters {
  int cpu = 0;
  std::map<std::string, std::uint64_t> regs;
  std::optional<std::uint64_t> get(const std::string& name) const {
    auto it = regs.find(name);
    if (it == regs.end()) return std::nullopt;
    return it->second;
  }
};

}  // namespace btaudit
