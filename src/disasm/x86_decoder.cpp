#include "disasm/x86_decoder.h"

#include <Zydis/Zydis.h>

#include <memory>

namespace btaudit {

namespace {

bool is_reg(const ZydisDecodedOperand& op, ZydisRegister r) {
  return op.type == ZYDIS_OPERAND_TYPE_REGISTER && op.reg.value == r;
}

bool writes_reg(const ZydisDecodedInstruction& insn, const ZydisDecodedOperand* ops, ZydisRegister r) {
  for (std::size_t i = 0; i < insn.operand_count; ++i)
    if (is_reg(ops[i], r) && (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)) return true;
  return false;
}

// The stack operation of one instruction (StackOp). A push or pop moves RSP by its operand's
// width; other writes to RSP count only in the forms compilers emit for a frame.
void classify_stack(const ZydisDecodedInstruction& insn, const ZydisDecodedOperand* ops, DecodedInsn& d) {
  const auto visible = insn.operand_count_visible;
  const auto width = static_cast<std::int64_t>(insn.operand_width / 8);
  switch (insn.mnemonic) {
    case ZYDIS_MNEMONIC_CALL:
    case ZYDIS_MNEMONIC_RET: return;  // a call's push is popped by the callee's return; a return ends the path
    case ZYDIS_MNEMONIC_PUSH:
      d.stack = visible > 0 && is_reg(ops[0], ZYDIS_REGISTER_RBP) ? StackOp::PushBp : StackOp::Adjust;
      d.sp_delta = -width;
      return;
    case ZYDIS_MNEMONIC_POP:
      if (visible > 0 && is_reg(ops[0], ZYDIS_REGISTER_RSP)) break;  // pop rsp
      d.stack = visible > 0 && is_reg(ops[0], ZYDIS_REGISTER_RBP) ? StackOp::PopBp : StackOp::Adjust;
      d.sp_delta = width;
      return;
    case ZYDIS_MNEMONIC_PUSHFQ:
    case ZYDIS_MNEMONIC_PUSHF:
      d.stack = StackOp::Adjust;
      d.sp_delta = -width;
      return;
    case ZYDIS_MNEMONIC_POPFQ:
    case ZYDIS_MNEMONIC_POPF:
      d.stack = StackOp::Adjust;
      d.sp_delta = width;
      return;
    case ZYDIS_MNEMONIC_LEAVE: d.stack = StackOp::Leave; return;
    case ZYDIS_MNEMONIC_ADD:
    case ZYDIS_MNEMONIC_SUB:
      if (visible == 2 && is_reg(ops[0], ZYDIS_REGISTER_RSP) && ops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
        const auto imm = static_cast<std::int64_t>(ops[1].imm.value.s);
        d.stack = StackOp::Adjust;
        d.sp_delta = insn.mnemonic == ZYDIS_MNEMONIC_ADD ? imm : -imm;
        return;
      }
      break;
    case ZYDIS_MNEMONIC_LEA:
      if (visible == 2 && is_reg(ops[0], ZYDIS_REGISTER_RSP) && ops[1].mem.base == ZYDIS_REGISTER_RSP &&
          ops[1].mem.index == ZYDIS_REGISTER_NONE) {
        d.stack = StackOp::Adjust;
        d.sp_delta = ops[1].mem.disp.value;
        return;
      }
      break;
    case ZYDIS_MNEMONIC_MOV:
      if (visible == 2 && is_reg(ops[0], ZYDIS_REGISTER_RBP) && is_reg(ops[1], ZYDIS_REGISTER_RSP)) {
        d.stack = StackOp::SetBpFromSp;
        return;
      }
      if (visible == 2 && is_reg(ops[0], ZYDIS_REGISTER_RSP) && is_reg(ops[1], ZYDIS_REGISTER_RBP)) {
        d.stack = StackOp::SetSpFromBp;
        return;
      }
      break;
    default: break;
  }
  if (writes_reg(insn, ops, ZYDIS_REGISTER_RSP)) d.stack = StackOp::Unknown;
  if (writes_reg(insn, ops, ZYDIS_REGISTER_RBP) || writes_reg(insn, ops, ZYDIS_REGISTER_EBP)) d.writes_bp = true;
}

}  // namespace

struct X86Decoder::State {
  ZydisDecoder decoder{};
  ZydisFormatter formatter{};
};

X86Decoder::X86Decoder() {
  auto s = std::make_shared<State>();
  ZydisDecoderInit(&s->decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
  ZydisFormatterInit(&s->formatter, ZYDIS_FORMATTER_STYLE_INTEL);
  state_ = std::move(s);
}

std::optional<DecodedInsn> X86Decoder::decode(std::span<const std::uint8_t> bytes, std::uint64_t address) const {
  ZydisDecodedInstruction insn;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&state_->decoder, bytes.data(), bytes.size(), &insn, ops)))
    return std::nullopt;
  DecodedInsn d;
  d.length = insn.length;
  const bool relative =
      insn.operand_count_visible > 0 && ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[0].imm.is_relative;
  if (relative) {
    ZyanU64 target = 0;
    if (ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&insn, &ops[0], address, &target))) d.target = target;
    d.rel_offset = insn.raw.imm[0].offset;
  }
  switch (insn.mnemonic) {
    case ZYDIS_MNEMONIC_CALL: d.flow = relative ? FlowKind::CallDirect : FlowKind::CallIndirect; break;
    case ZYDIS_MNEMONIC_JMP: d.flow = relative ? FlowKind::JumpDirect : FlowKind::JumpIndirect; break;
    case ZYDIS_MNEMONIC_RET: d.flow = FlowKind::Return; break;
    case ZYDIS_MNEMONIC_UD2:
    case ZYDIS_MNEMONIC_INT3: d.flow = FlowKind::Trap; break;
    case ZYDIS_MNEMONIC_NOP: d.nop = true; break;
    default:
      if (insn.meta.category == ZYDIS_CATEGORY_COND_BR && relative) d.flow = FlowKind::CondJump;
      break;
  }
  classify_stack(insn, ops, d);
  return d;
}

std::string X86Decoder::format(std::span<const std::uint8_t> bytes, std::uint64_t address) const {
  ZydisDecodedInstruction insn;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&state_->decoder, bytes.data(), bytes.size(), &insn, ops))) return "(bad)";
  char buf[160];
  if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&state_->formatter, &insn, ops, insn.operand_count_visible, buf,
                                                    sizeof buf, address, nullptr)))
    return "(bad)";
  std::string text(buf);
  for (char& c : text) c = static_cast<char>(c >= 'A' && c <= 'F' ? c + 32 : c);  // 0xFFFF... reads better lower case
  return text;
}

}  // namespace btaudit
