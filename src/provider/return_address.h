// The one place for "return address - 1". A return address is the byte after
// a call, which may be the first byte of the next function (a call to a
// noreturn function ends its caller): the kernel's %pB, the stack dumper's
// format since 2.6.38 (0f77a8d37825), looks up address - 1 and prints the
// offset from the real address, so the caller is named. Registers (a RIP of
// the CPU or of a pt_regs) point at the instruction itself and are looked up
// as they are (%pS). btaudit follows the same rule for names, sizes, source
// lines and call sites.
#pragma once
#include <cstdint>
#include <optional>

#include "provider/symbol_provider.h"

namespace btaudit {

// The address to look up for a code address.
constexpr std::uint64_t symbol_lookup_address(std::uint64_t pc, bool exact_pc) { return exact_pc ? pc : pc - 1; }

// What the kernel prints for a code address: the symbol holding it and the offset into it.
struct PrintedAddress {
  Symbol symbol;
  std::uint64_t offset = 0;
};

inline std::optional<PrintedAddress> kallsyms_print(SymbolProvider& symbols, std::uint64_t pc, bool exact_pc) {
  auto s = symbols.kallsyms_at(symbol_lookup_address(pc, exact_pc));
  if (!s) return std::nullopt;
  return PrintedAddress{*s, pc - s->address};
}

}  // namespace btaudit
