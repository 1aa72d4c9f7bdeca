// x86-64 instruction decoding through Zydis: just what call-site checks
// need (length, whether it is a call or jump, a direct target, the text), and
// what an instruction does to RSP, for a frame read from machine code
// (unwind/code_frame.h).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace btaudit {

enum class FlowKind { Other, CallDirect, CallIndirect, JumpDirect, JumpIndirect, CondJump, Return, Trap };

// What an instruction does to RSP (and to RBP as a frame pointer), as objtool's decoder
// classifies stack operations (tools/objtool/arch/x86/decode.c).
enum class StackOp {
  None,         // RSP unchanged (a call's push is undone by the callee's return)
  Adjust,       // RSP += sp_delta: push, pop, pushf, popf, add/sub rsp with an immediate, lea rsp, [rsp + d]
  PushBp,       // push rbp: an Adjust of -8 that saves RBP at the new RSP
  PopBp,        // pop rbp: an Adjust of +8 that restores RBP
  SetBpFromSp,  // mov rbp, rsp: RBP becomes a frame pointer
  SetSpFromBp,  // mov rsp, rbp
  Leave,        // leave: mov rsp, rbp then pop rbp
  Unknown,      // another write to RSP (and rsp, imm; mov rsp, reg; enter; ...): its value is not known
};

struct DecodedInsn {
  std::uint8_t length = 0;
  FlowKind flow = FlowKind::Other;
  std::optional<std::uint64_t> target;  // for direct calls and jumps
  std::uint64_t rel_offset = 0;         // byte offset of the relative displacement (for relocations)
  bool nop = false;                     // a NOP of any length (0x90, 0f 1f /0, ...): padding
  StackOp stack = StackOp::None;
  std::int64_t sp_delta = 0;  // Adjust, PushBp, PopBp: what is added to RSP
  bool writes_bp = false;     // writes RBP other than as StackOp says (RBP used as a general register)
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
