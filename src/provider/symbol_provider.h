// Where kernel symbols come from, whatever holds them: vmlinux's ELF tables
// through libdwfl (debuginfo/), the kernel's own compressed kallsyms in a dump
// or in vmlinux (provider/kernel_kallsyms.h), a loaded module's symtab in a
// dump (provider/module_kallsyms.h), or a fake in a unit test.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "model/symbol.h"

namespace btaudit {

class SymbolProvider {
 public:
  virtual ~SymbolProvider() = default;
  // A symbol by name in vmlinux ("" module) or a module, sized as its symbol
  // table says (st_size): what layout detection asks ("init_stack", "pcpu_hot", ...).
  virtual std::optional<Symbol> find(std::string_view name, std::string_view module = {}) = 0;
  // kallsyms' answer for an address: the symbol %pS names, sized as the
  // kernel sizes it (the distance to the next symbol; provider/kallsyms.h).
  virtual std::optional<Symbol> kallsyms_at(std::uint64_t address) = 0;
};

}  // namespace btaudit
