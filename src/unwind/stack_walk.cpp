#include "unwind/stack_walk.h"

#include <set>

namespace btaudit {

namespace {

// struct pt_regs on x86-64.
constexpr std::uint64_t kPtRegsSize = 168;
constexpr std::uint64_t kIpOff = 128, kSpOff = 152, kBpOff = 32, kR10Off = 56, kR13Off = 16, kDiOff = 112, kDxOff = 96;
constexpr std::uint64_t kIretFrameOffset = 128;  // pt_regs starts this far below an iret frame

struct Regs {
  enum Kind { None, Initial, Memory } kind = None;
  std::uint64_t addr = 0;  // Memory: where the pt_regs is
  bool full = false;
};

constexpr std::uint64_t page_up(std::uint64_t a) { return (a + 4095) & ~std::uint64_t{4095}; }

class Unwinder {
 public:
  Unwinder(MemorySource& m, const WalkInput& in, WalkResult& out) : m_(m), in_(in), out_(out) {
    ip_ = reg("rip").value_or(0);
    sp_ = reg("rsp").value_or(0);
    bp_ = reg("rbp").value_or(0);
    regs_.kind = Regs::Initial;
    regs_.full = true;
    signal_ = true;
    if (!stack_of(sp_)) {
      // Overflowed into a guard page: the kernel tries the next page up (unwind_orc.c).
      if (stack_of(page_up(sp_))) {
        out_.problems.push_back("the stack pointer is in a guard page below a stack (stack overflow)");
      } else {
        done_ = true;
        out_.problems.push_back("the stack pointer is on no known stack: nothing can be unwound");
      }
    }
  }

  bool done() const { return done_; }
  // The state unwind_start() gives a task that is not running: no registers,
  // ip is a return address (so ORC is looked up at ip - 1).
  void start_blocked() {
    regs_.kind = Regs::None;
    signal_ = false;
  }
  // The slot the next reliable return address must be read from (kernel: unwind_get_return_address_ptr).
  std::optional<std::uint64_t> return_address_slot() const {
    if (done_) return std::nullopt;
    if (regs_.kind == Regs::Memory) return regs_.addr + kIpOff;
    if (regs_.kind == Regs::Initial) return std::nullopt;
    return sp_ - 8;
  }
  std::optional<std::uint64_t> entry_regs() const {
    return regs_.kind == Regs::Memory ? std::optional<std::uint64_t>(regs_.addr) : std::nullopt;
  }
  std::uint64_t ip() const { return ip_; }
  bool frame_pointer_kernel() const { return in_.frame_pointer_kernel; }

  void next() {
    if (done_) return;
    const std::uint64_t orig_ip = ip_;
    auto orc = in_.orc ? in_.orc->find(signal_ ? ip_ : ip_ - 1) : std::nullopt;
    OrcEntry e;
    if (!orc && frame_pointer_kernel() && bp_ == 0) {
      done_ = true;  // the first frame of the stack saved no frame pointer: the chain ends
      return;
    }
    if (!orc && frame_pointer_kernel() && (bp_ & 1)) {
      // ENCODE_FRAME_POINTER (4.10+): entry code sets RBP to its pt_regs + 1 before
      // calling C, so that the frame unwinder finds the interrupted registers there.
      e.sp_reg = OrcReg::Bp;
      e.sp_offset = -1;
      e.bp_reg = OrcReg::Undefined;
      e.type = OrcType::Regs;
    } else if (!orc) {
      // No ORC data (BPF, JIT, a bad address): the kernel's frame-pointer fallback;
      // on a kernel without ORC tables (CONFIG_UNWINDER_FRAME_POINTER) the unwinder itself.
      e.sp_reg = OrcReg::Bp;
      e.sp_offset = 16;
      e.bp_reg = OrcReg::PrevSp;
      e.bp_offset = -16;
      e.type = OrcType::Call;
      if (!frame_pointer_kernel()) error("no ORC entry", orig_ip);
      if (failed_) return;
    } else {
      e = *orc;
    }
    if (e.type == OrcType::EndOfStack) {
      done_ = true;
      return;
    }
    if (e.type == OrcType::Undefined || (e.sp_reg == OrcReg::Undefined)) return fail("undefined ORC entry", orig_ip);
    std::uint64_t sp = 0;
    bool indirect = false;
    switch (e.sp_reg) {
      case OrcReg::Sp: sp = sp_ + static_cast<std::uint64_t>(std::int64_t{e.sp_offset}); break;
      case OrcReg::Bp: sp = bp_ + static_cast<std::uint64_t>(std::int64_t{e.sp_offset}); break;
      case OrcReg::SpIndirect:
        sp = sp_;
        indirect = true;
        break;
      case OrcReg::BpIndirect:
        sp = bp_ + static_cast<std::uint64_t>(std::int64_t{e.sp_offset});
        indirect = true;
        break;
      case OrcReg::R10:
        if (!get_reg(kR10Off, sp)) return fail("missing R10 value", orig_ip);
        break;
      case OrcReg::R13:
        if (!get_reg(kR13Off, sp)) return fail("missing R13 value", orig_ip);
        break;
      case OrcReg::Di:
        if (!get_reg(kDiOff, sp)) return fail("missing DI value", orig_ip);
        break;
      case OrcReg::Dx:
        if (!get_reg(kDxOff, sp)) return fail("missing DX value", orig_ip);
        break;
      default: return fail("unknown ORC sp_reg", orig_ip);
    }
    if (indirect) {
      auto v = deref(sp);
      if (!v) return fail("cannot read the indirect stack pointer", orig_ip);
      sp = *v;
      if (e.sp_reg == OrcReg::SpIndirect) sp += static_cast<std::uint64_t>(std::int64_t{e.sp_offset});
    }
    const std::uint64_t prev_sp = sp_;
    const auto prev_stack = stack_of(sp_);
    switch (e.type) {
      case OrcType::Call: {
        auto ip = deref(sp - 8);
        if (!ip) return fail("cannot read the return address", orig_ip);
        ip_ = *ip;
        sp_ = sp;
        regs_ = Regs{};
        prev_regs_ = Regs{};
        signal_ = false;
        break;
      }
      case OrcType::Regs: {
        auto ip = deref(sp + kIpOff, kPtRegsSize - kIpOff);
        auto nsp = deref(sp + kSpOff);
        if (!ip || !nsp || !on_stack(sp, kPtRegsSize)) return fail("can't access registers", orig_ip);
        ip_ = *ip;
        sp_ = *nsp;
        regs_ = Regs{Regs::Memory, sp, true};
        prev_regs_ = Regs{};
        signal_ = true;
        break;
      }
      case OrcType::RegsPartial: {
        auto ip = deref(sp);
        auto nsp = deref(sp + (kSpOff - kIpOff));
        if (!ip || !nsp) return fail("can't access iret registers", orig_ip);
        ip_ = *ip;
        sp_ = *nsp;
        if (regs_.full) prev_regs_ = regs_;
        regs_ = Regs{Regs::Memory, sp - kIretFrameOffset, false};
        signal_ = true;
        break;
      }
      default: return fail("unknown ORC type", orig_ip);
    }
    switch (e.bp_reg) {
      case OrcReg::Undefined: {
        std::uint64_t v = 0;
        if (get_reg(kBpOff, v)) bp_ = v;
        break;
      }
      case OrcReg::PrevSp: {
        auto v = deref(sp + static_cast<std::uint64_t>(std::int64_t{e.bp_offset}));
        if (!v) return fail("cannot read the saved frame pointer", orig_ip);
        bp_ = *v;
        break;
      }
      case OrcReg::Bp: {
        auto v = deref(bp_ + static_cast<std::uint64_t>(std::int64_t{e.bp_offset}));
        if (!v) return fail("cannot read the saved frame pointer", orig_ip);
        bp_ = *v;
        break;
      }
      default: return fail("unknown ORC bp_reg", orig_ip);
    }
    // Bad ORC data must not make the walk loop: on one stack SP only grows.
    const auto now_stack = stack_of(sp_);
    if (prev_stack && now_stack && prev_stack->begin == now_stack->begin && sp_ <= prev_sp)
      return fail("stack going in the wrong direction", orig_ip);
    if (++steps_ > in_.max_frames) return fail("frame budget exhausted", orig_ip);
  }

 private:
  std::optional<std::uint64_t> reg(const std::string& name) const {
    auto it = in_.regs.find(name);
    if (it == in_.regs.end()) return std::nullopt;
    return it->second;
  }
  std::optional<WalkStack> stack_of(std::uint64_t a) const {
    for (const WalkStack& s : in_.stacks)
      if (a >= s.begin && a < s.end) return s;
    return std::nullopt;
  }
  bool on_stack(std::uint64_t a, std::uint64_t len) const {
    auto s = stack_of(a);
    return s && a + len <= s->end;
  }
  // Reads a word only from one of this CPU's stacks (the kernel's stack_access_ok).
  std::optional<std::uint64_t> deref(std::uint64_t a, std::uint64_t len = 8) {
    if (!on_stack(a, len < 8 ? 8 : len)) return std::nullopt;
    return m_.read_u64(a);
  }
  bool get_reg(std::uint64_t off, std::uint64_t& v) {
    const Regs& r = regs_.kind != Regs::None ? regs_ : prev_regs_;
    if (r.kind == Regs::Initial) {
      static const std::map<std::uint64_t, const char*> names = {
          {kBpOff, "rbp"}, {kR10Off, "r10"}, {kR13Off, "r13"}, {kDiOff, "rdi"}, {kDxOff, "rdx"}};
      auto n = names.find(off);
      if (n == names.end()) return false;
      auto val = reg(n->second);
      if (!val) return false;
      v = *val;
      return true;
    }
    if (r.kind != Regs::Memory) return false;
    if (!r.full && off < kIpOff) {  // an iret frame holds only ip, cs, flags, sp, ss
      if (prev_regs_.kind != Regs::Memory) return false;
      auto val = deref(prev_regs_.addr + off);
      if (!val) return false;
      v = *val;
      return true;
    }
    auto val = deref(r.addr + off);
    if (!val) return false;
    v = *val;
    return true;
  }
  void error(const std::string& what, std::uint64_t ip) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(ip));
    out_.problems.push_back("unwinder: " + what + " at " + buf);
  }
  void fail(const std::string& what, std::uint64_t ip) {
    error(what, ip);
    failed_ = true;
    done_ = true;
  }

  MemorySource& m_;
  const WalkInput& in_;
  WalkResult& out_;
  std::uint64_t ip_ = 0, sp_ = 0, bp_ = 0;
  Regs regs_, prev_regs_;
  bool signal_ = false, done_ = false, failed_ = false;
  std::size_t steps_ = 0;
};

std::string label(const WalkStack& s) { return s.kind == "exception" ? s.name : s.kind; }

const WalkStack* find_stack(const WalkInput& in, std::uint64_t a) {
  for (const WalkStack& s : in.stacks)
    if (a >= s.begin && a < s.end) return &s;
  return nullptr;
}

}  // namespace

WalkResult walk_stacks(MemorySource& m, const WalkInput& in) {
  WalkResult out;
  Unwinder u(m, in, out);
  std::uint64_t stack = 0;
  if (in.blocked_scan_from) {
    // The unwinder already stands on the sleeping task's first frame: its return
    // address is the word just below rsp, which the scan below reaches.
    u.start_blocked();
    stack = *in.blocked_scan_from & ~7ULL;
  } else {
    auto rip = in.regs.find("rip");
    if (rip != in.regs.end()) {
      WalkFrame f;
      f.address = rip->second;
      f.from_regs = true;
      f.reliable = true;
      out.frames.push_back(f);
    }
    // The registers' own frame: the first unwinder step leaves the interrupted context.
    u.next();
    auto sp_it = in.regs.find("rsp");
    stack = sp_it == in.regs.end() ? 0 : (sp_it->second & ~7ULL);
  }
  std::set<std::string> visited;
  for (int hop = 0; stack && hop < 16; ++hop) {
    const WalkStack* info = find_stack(in, stack);
    if (!info) {
      // A stack pointer in a guard page (overflow): the kernel retries at the next page.
      stack = page_up(stack);
      info = find_stack(in, stack);
    }
    if (!info || !visited.insert(label(*info)).second) break;  // each stack type once, as the kernel's visit mask
    const std::uint64_t words = (info->end - stack) / 8;
    std::vector<std::uint8_t> buf(words * 8);
    const std::size_t got = m.read(stack, buf);
    for (std::uint64_t i = 0; i * 8 + 8 <= got && out.frames.size() < in.max_frames; ++i) {
      const std::uint64_t slot = stack + i * 8;
      std::uint64_t word = 0;
      std::memcpy(&word, buf.data() + i * 8, 8);
      if (!in.is_kernel_text(word)) continue;
      auto ret_p = u.return_address_slot();
      auto regs = u.entry_regs();
      if (regs && slot == *regs + kIpOff) {
        // The kernel prints regs->ip on the RIP: line of the regs, not as a trace entry.
        WalkFrame f{word, slot, true, true, info->kind, info->name};
        out.frames.push_back(f);
      } else {
        const bool reliable = ret_p && slot == *ret_p;
        out.frames.push_back(WalkFrame{word, slot, reliable, false, info->kind, info->name});
        if (!reliable) continue;
      }
      u.next();
    }
    if (out.frames.size() >= in.max_frames) {
      out.problems.push_back("the walk stopped at " + std::to_string(in.max_frames) +
                             " frames (a fixed bound): the stacks' other words were not scanned");
      break;
    }
    // Follow the backlink to the stack this one interrupted.
    std::uint64_t next = 0, slot = 0;
    if (info->kind == "irq") {
      slot = info->end - 8;
      next = m.read_u64(slot).value_or(0);
    } else if (info->kind == "exception") {
      slot = info->end - kPtRegsSize + kSpOff;
      next = m.read_u64(slot).value_or(0);
    }
    if (!next) break;
    const WalkStack* to = find_stack(in, next);
    if (!to) to = find_stack(in, page_up(next));  // an overflowed stack: its SP is in the guard page
    out.transitions.push_back({label(*info), to ? label(*to) : std::string("unknown"), slot, next});
    if (!to) {
      out.problems.push_back("the backlink leads to no known stack");
      break;
    }
    stack = next & ~7ULL;
  }
  return out;
}

}  // namespace btaudit
