// x86-64 instruction decoding through Zydis: just what call-site checks
// need (length, whether it is a call or jump, a direct target, the text).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace btaudit {

enum class FlowKind { Other, CallDirect, CallIndirect, JumpDirect, JumpIndirect, CondJump, Return, Trap };

struct DecodedInsn {
  std::uint8_t length = 0;
  FlowKind flow = FlowKind::Other;
  std::optional<std::uint64_t> target;  // for direct calls and jumps
  std::uint64_t rel_offset = 0;         // byte offset of the relative displacement (for relocations)
  bool nop = false;                     // a NOP of any length (0x90, 0f 1f /0, ...): padding
};

class X86Decoder {
 public:
  X86Decoder();
  // Decodes one instruction at `address` from `bytes`; nullopt when the bytes are not an instruction.
  std::optional<DecodedInsn> decode(std::span<const std::uint8_t> bytes, std::uint64_t address) const;
  // Intel-syntax text of the instruction at `address`.
  std::string format(std::span<const std::uint8_t> bytes, std::uint64_t address) const;

 private:
  struct State;
  std::shared_ptr<const State> state_;
};

}  // namespace btaudit
