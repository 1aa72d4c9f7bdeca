// What the call-site checker needs to know about kernel code, whatever holds
// it: the vmlinux/module files through libdwfl, or a dump's memory (module
// text as the kernel loaded it, no .ko needed).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "model/symbol.h"

namespace btaudit {

// A place boot-time patching may rewrite: one entry of x86's alternatives table
// (.altinstructions, struct alt_instr in arch/x86/include/asm/alternative.h). apply_alternatives()
// writes the `replacement_length` bytes at `replacement` over the `length` bytes at `address` and
// pads them with NOPs, on a CPU with the feature (without it, `when_absent`: ALT_NOT). Relative
// branches of the replacement are moved so that they keep their targets (apply_relocation), so
// decoding the replacement where it lies gives the targets it has once patched in.
struct CodePatch {
  std::uint64_t address = 0;
  std::uint8_t length = 0;
  std::uint64_t replacement = 0;
  std::uint8_t replacement_length = 0;
  std::uint16_t feature = 0;  // X86_FEATURE_* number: word * 32 + bit
  bool when_absent = false;
  // ALT_FLAG_DIRECT_CALL (6.x paravirt): the replacement's call is pointed at boot at what a
  // pv_ops pointer holds, not at the target its bytes name.
  bool target_from_pointer = false;
};

class CodeSource {
 public:
  virtual ~CodeSource() = default;
  virtual std::size_t read_code(std::uint64_t address, std::span<std::uint8_t> out) = 0;
  virtual std::optional<Symbol> symbol_at(std::uint64_t address) = 0;
  // Unrelocated code (a module .ko): the symbol a relocation at `address` names.
  virtual std::optional<Symbol> relocation_target(std::uint64_t address) = 0;
  // The patches whose original bytes hold `address`. None where the code read is already the
  // code that ran (a dump's memory) or no table was read.
  virtual std::vector<CodePatch> patches_holding(std::uint64_t /*address*/) { return {}; }
  // Whether patches_holding answers for the code at `address` from a table that was read: then a
  // place it names no patch for is not rewritten at boot by an alternative.
  virtual bool patches_known(std::uint64_t /*address*/) { return false; }
};

}  // namespace btaudit
