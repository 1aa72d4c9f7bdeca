// A frame read from a function's machine code, for the addresses ORC leaves undefined: objtool
// skips the functions marked STACK_FRAME_NON_STANDARD (kernel/kexec_core.c's __crash_kexec,
// whose crash_setup_regs() takes the registers every kdump capture starts from; KVM's and EFI's
// entry glue) and gives their whole range an undefined entry, so the kernel's unwinder, and a
// walk from the registers kdump saved there, stops at once.
//
// The depth is what objtool itself computes for the functions it does not skip
// (tools/objtool/check.c, validate_branch() and update_cfi_state()): every path from the entry,
// where RSP points at the return address, followed through the function's branches, each
// instruction's push, pop, adjustment or frame-pointer move applied. The answer is given only
// when every path to the address agrees on the depth and each step was understood (paths that
// differ only on what RBP holds keep the RBP facts they share); any doubt (an unknown write to
// RSP, paths whose depths disagree anywhere, an undecodable byte, a path longer than the budget)
// gives none, and the walk falls back to the stack scan as before.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>

#include "disasm/x86_decoder.h"

namespace btaudit {

struct CodeFrame {
  std::int64_t depth = 0;  // bytes from RSP at the address up to the return address's slot
  // Where the caller's RBP is saved, counted down from the caller's SP (the slot below the
  // return address is -16), when the function pushed RBP and has not restored it there.
  std::optional<std::int64_t> saved_bp;
};

struct CodeFrameQuery {
  std::span<const std::uint8_t> code;  // the whole function's bytes
  std::uint64_t start = 0;             // its first byte's address
  std::uint64_t ip = 0;
  // ip is where the CPU stopped (registers: the depth at the instruction starting there), or
  // else a return address (the depth after the call that ends there).
  bool exact = true;
  // Calls that never return (objtool's noreturn list): their fall-through is not followed.
  std::function<bool(std::uint64_t target)> is_noreturn;
};

std::optional<CodeFrame> frame_from_code(const CodeFrameQuery& q, const X86Decoder& decoder);

// Whether a kernel function never returns, by objtool's list of them (tools/objtool/noreturns.h,
// 6.7+; check.c's global_noreturns before): calls to them end a path.
bool objtool_noreturn(std::string_view function);

}  // namespace btaudit
