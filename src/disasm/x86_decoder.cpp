#include "disasm/x86_decoder.h"

#include <Zydis/Zydis.h>

#include <memory>

namespace btaudit {

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
