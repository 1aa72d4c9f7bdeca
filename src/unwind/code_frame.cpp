#include "unwind/code_frame.h"

#include <algorithm>
#include <array>
#include <unordered_map>
#include <vector>

namespace btaudit {

namespace {

// The stack's state before an instruction, relative to the function's entry.
struct CfiState {
  std::int64_t depth = 0;                // bytes pushed since the entry (RSP = entry RSP - depth)
  std::optional<std::int64_t> bp_saved;  // depth right after `push rbp`, while RBP's value sits there
  std::optional<std::int64_t> bp_frame;  // depth at `mov rbp, rsp`, while RBP still holds it
  bool operator==(const CfiState&) const = default;
};

// Every path is walked once per address; a function of more instructions than this is not read.
constexpr std::size_t kMaxInstructions = 1 << 16;
// A frame deeper than this is a misreading, not a kernel function's frame (its stack is 16 KiB).
constexpr std::int64_t kMaxDepth = 1 << 14;

// The state after `d`, or nullopt when its effect on RSP is not known.
std::optional<CfiState> apply(const DecodedInsn& d, CfiState s) {
  switch (d.stack) {
    case StackOp::None: break;
    case StackOp::Adjust: s.depth -= d.sp_delta; break;
    case StackOp::PushBp:
      s.depth -= d.sp_delta;
      s.bp_saved = s.depth;
      break;
    case StackOp::PopBp:
      s.depth -= d.sp_delta;
      s.bp_saved.reset();
      s.bp_frame.reset();
      break;
    case StackOp::SetBpFromSp: s.bp_frame = s.depth; break;
    case StackOp::SetSpFromBp:
      if (!s.bp_frame) return std::nullopt;
      s.depth = *s.bp_frame;
      break;
    case StackOp::Leave:
      if (!s.bp_frame) return std::nullopt;
      s.depth = *s.bp_frame - 8;
      s.bp_saved.reset();
      s.bp_frame.reset();
      break;
    case StackOp::Unknown: return std::nullopt;
  }
  if (d.writes_bp) s.bp_frame.reset();
  if (s.depth < 0 || s.depth > kMaxDepth) return std::nullopt;
  return s;
}

// Where two paths meet with the same depth but disagree on where RBP stands (one set RBP from
// RSP, the other did not), what both guarantee: the RBP facts they share. The depth, which gives
// the return address, must agree; RBP is only a help for the caller's frame.
CfiState meet(const CfiState& a, const CfiState& b) {
  CfiState m = a;
  if (a.bp_saved != b.bp_saved) m.bp_saved.reset();
  if (a.bp_frame != b.bp_frame) m.bp_frame.reset();
  return m;
}

CodeFrame frame_of(const CfiState& s) {
  CodeFrame f;
  f.depth = s.depth;
  // RBP was pushed when `bp_saved` bytes were on the stack: it sits that far below the return
  // address's slot, which is 8 below the caller's SP.
  if (s.bp_saved) f.saved_bp = -8 - *s.bp_saved;
  return f;
}

}  // namespace

bool objtool_noreturn(std::string_view function) {
  // tools/objtool/noreturns.h (Linux 6.7 and later), the x86-64 kernel's entries; sorted.
  static constexpr std::array<std::string_view, 31> kNoreturn = {
      "__fortify_panic",
      "__kunit_abort",
      "__module_put_and_kthread_exit",
      "__reiserfs_panic",
      "__stack_chk_fail",
      "__tdx_hypercall_failed",
      "__ubsan_handle_builtin_unreachable",
      "__x64_sys_exit",
      "__x64_sys_exit_group",
      "arch_cpu_idle_dead",
      "btrfs_assertfail",
      "cpu_bringup_and_idle",
      "cpu_startup_entry",
      "do_exit",
      "do_group_exit",
      "do_task_dead",
      "ex_handler_msr_mce",
      "hlt_play_dead",
      "hv_ghcb_terminate",
      "kthread_complete_and_exit",
      "kthread_exit",
      "kunit_try_catch_throw",
      "machine_real_restart",
      "make_task_dead",
      "nmi_panic_self_stop",
      "panic",
      "panic_smp_self_stop",
      "rest_init",
      "rewind_stack_and_make_dead",
      "sev_es_terminate",
      "snp_abort",
  };
  static_assert(std::is_sorted(kNoreturn.begin(), kNoreturn.end()));
  return std::binary_search(kNoreturn.begin(), kNoreturn.end(), function);
}

std::optional<CodeFrame> frame_from_code(const CodeFrameQuery& q, const X86Decoder& decoder) {
  const std::uint64_t end = q.start + q.code.size();
  if (q.ip < q.start || q.ip > end) return std::nullopt;
  // The state before each instruction reached. A path that reaches an instruction again with
  // another depth is a disagreement (no answer); with other RBP facts, the instruction is read
  // again with the facts both share, so each address is read at most three times.
  std::unordered_map<std::uint64_t, CfiState> seen;
  std::vector<std::pair<std::uint64_t, CfiState>> work{{q.start, CfiState{}}};
  std::vector<std::uint64_t> calls_to_ip;  // the calls whose return address is q.ip
  std::size_t steps = 0;
  while (!work.empty()) {
    auto [addr, state] = work.back();
    work.pop_back();
    for (;;) {
      if (addr < q.start || addr >= end) break;  // a tail call, or past the function's last byte
      if (auto it = seen.find(addr); it != seen.end()) {
        if (it->second.depth != state.depth) return std::nullopt;  // paths that disagree: no answer at all
        const CfiState shared = meet(it->second, state);
        if (shared == it->second) break;
        it->second = state = shared;
      } else {
        seen.emplace(addr, state);
      }
      if (++steps > kMaxInstructions) return std::nullopt;
      const auto d = decoder.decode(q.code.subspan(addr - q.start), addr);
      if (!d) return std::nullopt;
      const std::uint64_t next = addr + d->length;
      // A return address: the state after the call that ends there is the state at that call.
      const bool is_call = d->flow == FlowKind::CallDirect || d->flow == FlowKind::CallIndirect;
      if (!q.exact && is_call && next == q.ip) calls_to_ip.push_back(addr);
      const auto after = apply(*d, state);
      if (!after) {
        // An RSP this reading cannot follow. At the address itself, the state before it is what
        // is asked; anywhere else, what follows on this path is not known, and a path that is
        // not known may reach the address: no answer.
        if (addr == q.ip && q.exact) break;
        return std::nullopt;
      }
      state = *after;
      if (d->flow == FlowKind::Return || d->flow == FlowKind::Trap || d->flow == FlowKind::JumpIndirect) break;
      if (d->flow == FlowKind::JumpDirect) {
        if (!d->target) break;
        addr = *d->target;
        continue;
      }
      if (d->flow == FlowKind::CondJump && d->target) work.emplace_back(*d->target, state);
      if (d->flow == FlowKind::CallDirect && d->target && q.is_noreturn && q.is_noreturn(*d->target)) break;
      addr = next;
    }
  }
  // The state at the address (or at each call returning there), once every path is in.
  std::optional<CfiState> at_ip;
  if (q.exact) {
    if (auto it = seen.find(q.ip); it != seen.end()) at_ip = it->second;
  }
  for (const std::uint64_t call : calls_to_ip) {
    const CfiState& s = seen.at(call);
    if (at_ip && at_ip->depth != s.depth) return std::nullopt;
    at_ip = at_ip ? meet(*at_ip, s) : s;
  }
  if (!at_ip) return std::nullopt;
  return frame_of(*at_ip);
}

}  // namespace btaudit
