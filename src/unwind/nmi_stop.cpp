#include "unwind/nmi_stop.h"

#include <array>
#include <cstring>
#include <vector>

#include "unwind/unwind_step.h"
#include "vmcore/prstatus.h"

namespace btaudit {

namespace {

// struct pt_regs' words (arch/x86/include/asm/ptrace.h), named as NT_PRSTATUS names them: the
// first words of pr_reg (vmcore/prstatus.h).
static_assert(kPtRegsWordCount * 8 == pt_regs::kSize);

// An NMI stack is a few pages (EXCEPTION_STKSZ); a larger range is a misread layout.
constexpr std::uint64_t kMaxNmiStack = 64 << 10;
// Candidates tried, highest first: the live one is the highest; deeper ones are earlier calls'.
constexpr int kMaxCandidates = 8;

std::uint64_t word_at(std::span<const std::uint8_t> b, std::size_t off) {
  std::uint64_t v = 0;
  std::memcpy(&v, b.data() + off, 8);
  return v;
}

}  // namespace

std::optional<std::uint64_t> find_saved_pt_regs(std::span<const std::uint8_t> stack, std::uint64_t stack_begin,
                                                const std::map<std::string, std::uint64_t>& regs) {
  if (!regs.count("rip") || !regs.count("rsp") || stack.size() < pt_regs::kSize) return std::nullopt;
  std::array<std::optional<std::uint64_t>, kPtRegsWordCount> want;
  for (std::size_t i = 0; i < kPtRegsWordCount; ++i)
    if (auto it = regs.find(std::string(kPrstatusRegNames[i])); it != regs.end()) want[i] = it->second;
  for (std::size_t off = (stack.size() - pt_regs::kSize) & ~std::size_t{7};; off -= 8) {
    bool same = true;
    for (std::size_t i = 0; i < want.size() && same; ++i) same = !want[i] || word_at(stack, off + i * 8) == *want[i];
    if (same) return stack_begin + off;
    if (off < 8) break;
  }
  return std::nullopt;
}

std::optional<WalkResult> walk_from_nmi_stop(MemorySource& m, const NmiStopQuery& q) {
  if (q.nmi.end <= q.nmi.begin || q.nmi.end - q.nmi.begin > kMaxNmiStack || q.handler >= q.handler_end)
    return std::nullopt;
  std::vector<std::uint8_t> stack(q.nmi.end - q.nmi.begin);
  if (m.read(q.nmi.begin, stack) != stack.size()) return std::nullopt;
  const auto regs_at = find_saved_pt_regs(stack, q.nmi.begin, q.base.regs);
  if (!regs_at) return std::nullopt;
  int tried = 0;
  for (std::uint64_t off = *regs_at - q.nmi.begin; off >= 8 && tried < kMaxCandidates;) {
    off -= 8;
    const std::uint64_t slot = q.nmi.begin + off;
    const std::uint64_t word = word_at(stack, off);
    // The handler's first byte is a function pointer (nmi_handle()'s a->handler), not a return.
    if (word <= q.handler || word >= q.handler_end) continue;
    ++tried;
    // The unwinder stands where the handler's call returns to, as on a switched-out task's
    // first frame: the scan starts at the slot, and the pt_regs must be reached from there.
    WalkInput in = q.base;
    in.regs = {{"rip", word}, {"rsp", slot + 8}};
    // A frame-pointer kernel's callee pushed the handler's frame pointer just below its return
    // address (push %rbp first, as every function there begins): the chain goes on from it.
    if (q.base.unwinder == KernelUnwinder::FramePointer && off >= 8) in.regs["rbp"] = word_at(stack, off - 8);
    in.blocked_scan_from = slot;
    WalkResult r = walk_stacks(m, in);
    bool reached = false;
    for (const StackFrame& f : r.frames) reached = reached || (f.from_regs && f.regs == *regs_at);
    if (!reached || r.frames.empty() || r.frames.front().slot != slot) continue;
    r.frames.front().trust = Trust::NmiStopHandler;
    r.frames.front().reason = Reason::NmiStopHandler;
    return r;
  }
  return std::nullopt;
}

}  // namespace btaudit
