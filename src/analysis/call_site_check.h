// Proves or refutes a return address from the machine code: it must sit
// right after a call instruction, and a direct call must be able to lead
// (through tail calls, thunks and trampolines) to the frame above it.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "disasm/x86_decoder.h"
#include "model/debug_info.h"
#include "provider/code_source.h"

namespace btaudit {

enum class Reach { Yes, No, Unknown };

struct CallSiteFinding {
  CallSite site;                                // kind None: the instruction before is not a call
  std::optional<std::uint64_t> target_address;  // a direct call's decoded target (relocated code only)
  bool decided = false;                         // false when the bytes could not be read or decoded
  std::string note;                             // how it was decided, or why it could not be
};

// Answers are remembered for the checker's life (one report, or one dump's
// reports): a stack holds the same return address many times (a recursion, a
// hostile stack page full of one word), and one answer can cost a tenth of a
// second (x64_sys_call's switch of tail calls, a symbol lookup each).
class CallSiteChecker {
 public:
  explicit CallSiteChecker(CodeSource& code) : code_(code) {}

  // The instruction that ends exactly at `return_address`. `function` is the
  // symbol holding return_address - 1, used for a forward sweep from its start.
  CallSiteFinding find_call(std::uint64_t return_address, const std::optional<Symbol>& function);

  // Whether a direct call to `target` can reach the function starting at `callee`
  // (the frame above), following tail calls up to a small depth.
  Reach reaches(std::uint64_t target, std::uint64_t callee);

 private:
  CallSiteFinding decode_call(std::uint64_t return_address, const std::optional<Symbol>& function);
  Reach follow_tail_calls(std::uint64_t target, std::uint64_t callee);
  bool is_indirect_trampoline(const std::string& name) const;
  CodeSource& code_;
  X86Decoder decoder_;
  std::map<std::pair<std::uint64_t, std::uint64_t>, CallSiteFinding> calls_;  // (return address, function start)
  std::map<std::pair<std::uint64_t, std::uint64_t>, Reach> reached_;          // (target, callee)
};

}  // namespace btaudit
