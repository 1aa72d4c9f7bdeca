// Proves or refutes a return address from the machine code: it must sit
// right after a call instruction, and a direct call must be able to lead
// (through tail calls, thunks and trampolines) to the frame above it.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "disasm/x86_decoder.h"
#include "model/debug_info.h"
#include "provider/code_source.h"

namespace btaudit {

// Answers kept beyond one checker: what a longer-lived owner (a debuginfo
// session, or every session of a batch run) already knows about call sites.
// An implementation decides which addresses it keeps: only those whose answer
// depends on the code's file alone, never on where a session loaded a module.
class CallSiteMemo {
 public:
  virtual ~CallSiteMemo() = default;
  // function: find_call's, the symbol holding return_address - 1 as the report named it.
  virtual std::optional<CallSiteFinding> call(std::uint64_t return_address, const std::optional<Symbol>& function) = 0;
  virtual void keep_call(std::uint64_t return_address, const std::optional<Symbol>& function,
                         const CallSiteFinding& f) = 0;
  virtual std::optional<Reach> reach(std::uint64_t target, std::uint64_t callee) = 0;
  virtual void keep_reach(std::uint64_t target, std::uint64_t callee, Reach r) = 0;
};

// Answers are remembered for the checker's life (one report, or one dump's
// reports), and in `memo` when one is given: a stack holds the same return
// address many times (a recursion, a hostile stack page full of one word), one
// answer can cost a tenth of a second (x64_sys_call's switch of tail calls, a
// symbol lookup each), and a batch of reports of one kernel asks the same
// questions report after report.
// "the ALTERNATIVE at 0x... (CPU feature 9:4 absent)": how a call site names the patch that wrote it.
std::string describe_patch(const CodePatch& patch);

class CallSiteChecker {
 public:
  explicit CallSiteChecker(CodeSource& code, CallSiteMemo* memo = nullptr) : code_(code), memo_(memo) {}

  // The instruction that ends exactly at `return_address`. `function` is the
  // symbol holding return_address - 1, used for a forward sweep from its start.
  CallSiteFinding find_call(std::uint64_t return_address, const std::optional<Symbol>& function);

  // Whether a direct call to `target` can reach the function starting at `callee`
  // (the frame above), following tail calls up to a small depth.
  Reach reaches(std::uint64_t target, std::uint64_t callee);

  // The calls ending at `return_address` that the code's boot-time patches would write, one per
  // patch that writes one (an ALTERNATIVE_2 site has two), in the table's order.
  std::vector<CallSiteFinding> patched_calls(std::uint64_t return_address);

 private:
  CallSiteFinding decode_call(std::uint64_t return_address, const std::optional<Symbol>& function);
  // decode_call's answer from the file's bytes alone.
  CallSiteFinding decode_file_call(std::uint64_t return_address, const std::optional<Symbol>& function);
  // The call that `patch`, applied at boot, ends at `return_address`, if it writes one there.
  std::optional<CallSiteFinding> patched_call(const CodePatch& patch, std::uint64_t return_address);
  // Names a direct call's target in `out` (its symbol; Indirect when it is a trampoline).
  void name_direct_target(CallSiteFinding& out, std::uint64_t target);
  Reach follow_tail_calls(std::uint64_t target, std::uint64_t callee);
  bool is_indirect_trampoline(const std::string& name) const;
  CodeSource& code_;
  CallSiteMemo* memo_;  // not owned; may be null
  X86Decoder decoder_;
  std::map<std::pair<std::uint64_t, std::uint64_t>, CallSiteFinding> calls_;  // (return address, function start)
  std::map<std::pair<std::uint64_t, std::uint64_t>, Reach> reached_;          // (target, callee)
};

}  // namespace btaudit
