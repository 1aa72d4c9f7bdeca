// What the call-site checker needs to know about kernel code, whatever holds
// it: the vmlinux/module files through libdwfl today, a vmcore's memory
// (with runtime-patched code) later.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace btaudit {

struct CodeSymbol {
  std::string name;
  std::uint64_t address = 0;
  std::uint64_t size = 0;
};

class CodeSource {
 public:
  virtual ~CodeSource() = default;
  virtual std::size_t read_code(std::uint64_t address, std::span<std::uint8_t> out) = 0;
  virtual std::optional<CodeSymbol> symbol_at(std::uint64_t address) = 0;
  // Unrelocated code (a module .ko): the symbol a relocation at `address` names.
  virtual std::optional<CodeSymbol> relocation_target(std::uint64_t address) = 0;
};

}  // namespace btaudit
