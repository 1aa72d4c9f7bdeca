// What the call-site checker needs to know about kernel code, whatever holds
// it: the vmlinux/module files through libdwfl, or a dump's memory (module
// text as the kernel loaded it, no .ko needed).
#pragma once
#include <cstdint>
#include <optional>
#include <span>

#include "model/symbol.h"

namespace btaudit {

class CodeSource {
 public:
  virtual ~CodeSource() = default;
  virtual std::size_t read_code(std::uint64_t address, std::span<std::uint8_t> out) = 0;
  virtual std::optional<Symbol> symbol_at(std::uint64_t address) = 0;
  // Unrelocated code (a module .ko): the symbol a relocation at `address` names.
  virtual std::optional<Symbol> relocation_target(std::uint64_t address) = 0;
};

}  // namespace btaudit
