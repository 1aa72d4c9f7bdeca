#include "analysis/call_site_check.h"

#include <array>
#include <cstdio>
#include <set>
#include <vector>

namespace btaudit {

namespace {

constexpr std::uint64_t kMaxSweepBytes = 64 * 1024;  // functions longer than this are checked backwards
constexpr std::size_t kMaxSweepInsns = 20000;
constexpr int kMaxTailDepth = 3;
constexpr std::size_t kMaxVisited = 64;
// The most NOP bytes an ALTERNATIVE pads its original with: a replacement is one instruction or a
// few (at most 15 bytes each), and a padded call site is a short call ("call *%rsi", 2 bytes)
// standing for a longer one (a retpoline thunk's 5, "lfence; call *%rsi"'s 5).
constexpr std::uint64_t kMaxAlternativePadding = 13;
// A direct call's length (E8 rel32), the shortest call a replacement patched in at boot makes.
constexpr std::uint64_t kCallRel32Length = 5;
// The instructions before the return address the sweep remembers, for padding.
constexpr std::size_t kRecentInsns = 16;
constexpr std::uint64_t kMaxTailScanBytes = 64 * 1024;  // x64_sys_call is one big switch of tail calls

bool is_call(FlowKind f) { return f == FlowKind::CallDirect || f == FlowKind::CallIndirect; }

}  // namespace

bool CallSiteChecker::is_indirect_trampoline(const std::string& n) const {
  // Calls through these go wherever a register, a patched site or a table says.
  return n.starts_with("__x86_indirect_thunk_") || n.starts_with("__x86_indirect_call_thunk_") ||
         n.starts_with("__x86_indirect_jump_thunk_") || n.starts_with("__SCT__") || n.starts_with("__static_call") ||
         n.starts_with("ftrace_") || n == "__fentry__" || n == "mcount" || n.starts_with("paravirt_") ||
         n.starts_with("_paravirt_") || n.starts_with("__raw_callee_save_") || n.starts_with("kretprobe_trampoline") ||
         n.starts_with("__kretprobe_trampoline") || n.starts_with("__bpf_prog_") || n.starts_with("bpf_dispatcher_") ||
         n.starts_with("__cfi_");
}

namespace {
// "jmp __x86_return_thunk" is how a retbleed-mitigated function returns.
bool is_return_thunk(const std::string& n) {
  return n == "__x86_return_thunk" || n == "zen_untrain_ret" || n == "srso_return_thunk" ||
         n == "srso_alias_return_thunk" || n == "retbleed_return_thunk" || n == "entry_untrain_ret" ||
         n.starts_with("__x86_return_skl") || n == "call_depth_return_thunk";
}
}  // namespace

std::string describe_patch(const CodePatch& p) {
  char where[96];
  std::snprintf(where, sizeof where, "the ALTERNATIVE at 0x%llx (CPU feature %u:%u%s)",
                static_cast<unsigned long long>(p.address), p.feature / 32U, p.feature % 32U,
                p.when_absent ? " absent" : "");
  return where;
}

CallSiteFinding CallSiteChecker::find_call(std::uint64_t ret, const std::optional<Symbol>& function) {
  const auto key = std::make_pair(ret, function ? function->address : ~std::uint64_t{0});
  if (auto it = calls_.find(key); it != calls_.end()) return it->second;
  std::optional<CallSiteFinding> known = memo_ ? memo_->call(ret, function) : std::nullopt;
  if (!known) {
    known = decode_call(ret, function);
    if (memo_) memo_->keep_call(ret, function, *known);
  }
  return calls_.emplace(key, std::move(*known)).first->second;
}

Reach CallSiteChecker::reaches(std::uint64_t target, std::uint64_t callee) {
  const auto key = std::make_pair(target, callee);
  if (auto it = reached_.find(key); it != reached_.end()) return it->second;
  std::optional<Reach> known = memo_ ? memo_->reach(target, callee) : std::nullopt;
  if (!known) {
    known = follow_tail_calls(target, callee);
    if (memo_) memo_->keep_reach(target, callee, *known);
  }
  return reached_.emplace(key, *known).first->second;
}

CallSiteFinding CallSiteChecker::decode_call(std::uint64_t ret, const std::optional<Symbol>& function) {
  CallSiteFinding file = decode_file_call(ret, function);
  if (file.decided && file.site.kind != CallKind::None) return file;
  // No call in the file's bytes: the code that ran may have one, written at boot by an
  // ALTERNATIVE whose original holds the byte before the return address.
  if (auto patched = patched_calls(ret); !patched.empty()) return std::move(patched.front());
  if (file.after_padded_original && code_.patches_known(ret - 1)) {
    // The table was read and no replacement writes a call ending here: the NOPs are padding
    // of another kind (a loop's alignment), and the file's bytes are the code that ran.
    file.after_padded_original = false;
    file.note += "; no alternative writes a call here";
  }
  return file;
}

std::vector<CallSiteFinding> CallSiteChecker::patched_calls(std::uint64_t ret) {
  std::vector<CallSiteFinding> out;
  for (const CodePatch& p : code_.patches_holding(ret - 1))
    if (auto patched = patched_call(p, ret)) out.push_back(std::move(*patched));
  return out;
}

std::optional<CallSiteFinding> CallSiteChecker::patched_call(const CodePatch& p, std::uint64_t ret) {
  const std::uint64_t end = ret - p.address;                        // where in the patched bytes the call must end
  if (end == 0 || end > p.replacement_length) return std::nullopt;  // past the replacement: its NOP padding
  std::array<std::uint8_t, 256> bytes{};
  const std::size_t got = code_.read_code(p.replacement, std::span(bytes).first(p.replacement_length));
  if (got < end) return std::nullopt;
  std::uint64_t pos = 0;
  while (pos < end) {
    // Decoded where the replacement lies: apply_relocation() keeps the targets of its relative
    // branches when it copies them (those into the block itself stay relative to it).
    auto d = decoder_.decode(std::span(bytes).subspan(pos, got - pos), p.replacement + pos);
    if (!d || d->length == 0) return std::nullopt;
    pos += d->length;
    if (pos != end) continue;
    if (!is_call(d->flow)) return std::nullopt;
    CallSiteFinding out;
    out.decided = true;
    const std::uint64_t start = pos - d->length;
    out.site.address = p.address + start;
    out.site.insn = decoder_.format(std::span(bytes).subspan(start, got - start), p.replacement + start);
    const std::string where = describe_patch(p);
    out.site.patched_by = where;
    out.note =
        std::string("call written at boot by ") + where + ": the file holds the original, .altinstructions the call";
    if (d->flow == FlowKind::CallIndirect || p.target_from_pointer || !d->target) {
      out.site.kind = CallKind::Indirect;  // a pv_ops call's target is what its pointer held at boot
      return out;
    }
    // A module's replacement is unrelocated: its call's relocation names the target.
    if (auto reloc = code_.relocation_target(p.replacement + start + d->rel_offset)) {
      out.site.kind = is_indirect_trampoline(reloc->name) ? CallKind::Indirect : CallKind::Direct;
      out.site.target = reloc->name;
      out.site.insn = "call " + reloc->name;
      return out;
    }
    std::uint64_t target = *d->target;
    if (target >= p.replacement && target - p.replacement < p.replacement_length) {
      // A call into the block itself. An inline retpoline (4.x's RETPOLINE_CALL) calls a label
      // that overwrites its return address with a register and returns: the call goes where
      // the register says. RSB stuffing (FILL_RETURN_BUFFER) calls labels whose return
      // addresses are dropped, never returned to: the call goes to its label.
      bool returns = false;
      for (std::uint64_t at = 0; at < got;) {
        auto i = decoder_.decode(std::span(bytes).subspan(at, got - at), p.replacement + at);
        if (!i || i->length == 0) break;
        returns |= i->flow == FlowKind::Return || i->flow == FlowKind::JumpIndirect;
        at += i->length;
      }
      target = target - p.replacement + p.address;  // the label where the block is written
      if (returns) {
        name_direct_target(out, target);
        out.site.kind = CallKind::Indirect;
        out.site.target.reset();
        out.target_address.reset();
        out.site.insn += " (an inline retpoline: to where a register says)";
        return out;
      }
    }
    out.site.kind = CallKind::Direct;
    name_direct_target(out, target);
    return out;
  }
  return std::nullopt;
}

void CallSiteChecker::name_direct_target(CallSiteFinding& out, std::uint64_t target) {
  out.target_address = target;
  if (auto sym = code_.symbol_at(target)) {
    out.site.target = sym->address == target ? sym->name : sym->name + "+" + std::to_string(target - sym->address);
    if (is_indirect_trampoline(sym->name)) out.site.kind = CallKind::Indirect;
    out.site.insn = "call " + *out.site.target;
  }
}

CallSiteFinding CallSiteChecker::decode_file_call(std::uint64_t ret, const std::optional<Symbol>& function) {
  CallSiteFinding out;
  std::optional<std::uint64_t> insn_start;

  // 1. Forward sweep from the function's start: instruction boundaries are then exact.
  if (function && function->address < ret && ret - function->address <= kMaxSweepBytes) {
    const std::uint64_t len = ret - function->address;
    std::vector<std::uint8_t> bytes(len + 16);
    const std::size_t got = code_.read_code(function->address, bytes);
    if (got >= len) {
      bytes.resize(got);
      std::uint64_t pos = 0;
      std::uint64_t prev = 0;
      std::size_t count = 0;
      bool ok = true;
      // The last instructions' starts and whether each is a NOP or a call (a ring).
      struct Recent {
        std::uint64_t start = 0;
        std::uint8_t length = 0;
        bool nop = false;
        bool call = false;
      };
      std::array<Recent, kRecentInsns> recent{};
      std::size_t decoded = 0;
      while (pos < len && count++ < kMaxSweepInsns) {
        auto d = decoder_.decode(std::span(bytes).subspan(pos), function->address + pos);
        if (!d || d->length == 0) {
          ok = false;
          break;
        }
        recent[decoded++ % kRecentInsns] = Recent{pos, d->length, d->nop, is_call(d->flow)};
        prev = pos;
        pos += d->length;
      }
      if (ok && pos == len) {
        insn_start = function->address + prev;
        out.note = "forward sweep from " + function->name;
        // ALTERNATIVE (arch/x86/include/asm/alternative.h) pads an original shorter than its
        // replacement with NOPs, and boot-time patching writes the replacement over both: a call
        // followed only by NOPs up to the return address is a call site in memory (5.8-5.11's
        // asm_call_on_stack: "call *%rsi" padded for the retpoline thunk's call).
        // Only inside the function: NOPs that align the next function after a call to a noreturn
        // function end this one, and a word there is the next function's address.
        const bool inside = function->size == 0 || len < function->size;
        std::size_t back = 0;
        while (inside && back < decoded && back < kRecentInsns && recent[(decoded - 1 - back) % kRecentInsns].nop &&
               len - recent[(decoded - 1 - back) % kRecentInsns].start <= kMaxAlternativePadding)
          ++back;
        if (inside && back > 0 && back < decoded && back < kRecentInsns) {
          const Recent& call = recent[(decoded - 1 - back) % kRecentInsns];
          if (call.call && len - call.start - call.length <= kMaxAlternativePadding) {
            out.decided = true;
            out.site.kind = CallKind::Indirect;
            out.site.address = function->address + call.start;
            out.site.insn = decoder_.format(std::span(bytes).subspan(call.start), function->address + call.start);
            out.note = "call site patched at boot: the file's call is padded with NOPs to its alternative's length";
            return out;
          }
          // The other way round: the file's original is the shorter instruction and the
          // replacement, written over it and its NOPs at boot, a call (copy_user_generic's
          // ALTERNATIVE("rep movsb", "call rep_movs_alternative", ALT_NOT(X86_FEATURE_FSRM)) on a
          // CPU without FSRM). The file has no call here, and the finding says that memory may
          // have one: decode_call then asks the alternatives table (CodeSource::patches_holding),
          // and this stands where no table answers (a module's code, a vmlinux without one).
          if (!call.call && !call.nop && len - call.start >= kCallRel32Length &&
              len - call.start <= kMaxAlternativePadding)
            out.after_padded_original = true;
        }
      } else if (ok && pos > len) {
        // The return address falls inside an instruction of the file. When
        // that instruction is a call, boot-time patching (paravirt,
        // alternatives) has rewritten it into a shorter call in memory.
        auto spanning = decoder_.decode(std::span(bytes).subspan(prev), function->address + prev);
        out.decided = true;
        if (spanning && is_call(spanning->flow)) {
          out.site.kind = CallKind::Indirect;
          out.site.address = function->address + prev;
          out.site.insn = decoder_.format(std::span(bytes).subspan(prev), function->address + prev);
          out.note = "call site patched at boot: the return address falls inside the file's longer call";
        } else {
          out.site.kind = CallKind::None;
          out.site.insn = "(no instruction ends at the return address)";
          out.note = "forward sweep from " + function->name + ": the address is inside an instruction";
        }
        return out;
      }
    }
  }

  // 2. Backwards: any decoding that ends exactly at ret and is a call. A
  //    direct call (E8 rel32) is preferred: it is what compilers emit most.
  std::array<std::uint8_t, 32> window{};
  const std::uint64_t base = ret - 16;
  const std::size_t got = code_.read_code(base, window);
  if (got < 16) {
    out.note = "no code bytes at this address in the debuginfo";
    return out;
  }
  if (!insn_start) {
    for (int k : {5, 6, 2, 3, 4, 7, 8, 9, 10, 11, 12, 13, 14, 15}) {
      auto d = decoder_.decode(std::span(window).subspan(16 - k, got - (16 - k)), ret - k);
      if (d && d->length == k && is_call(d->flow)) {
        insn_start = ret - k;
        out.note = "backward decode";
        break;
      }
    }
  }
  out.decided = true;
  if (!insn_start) {
    out.site.kind = CallKind::None;
    out.site.insn = "(no call ends here)";
    if (out.note.empty()) out.note = "backward decode: no call instruction ends at the return address";
    return out;
  }
  const std::size_t off = static_cast<std::size_t>(*insn_start - base);
  auto d = decoder_.decode(std::span(window).subspan(off, got - off), *insn_start);
  out.site.address = insn_start;
  out.site.insn = decoder_.format(std::span(window).subspan(off, got - off), *insn_start);
  if (!d || !is_call(d->flow)) {
    out.site.kind = CallKind::None;
    return out;
  }
  if (d->flow == FlowKind::CallIndirect) {
    out.site.kind = CallKind::Indirect;
    return out;
  }
  out.site.kind = CallKind::Direct;
  // Unrelocated module code: the relocation names the target.
  if (auto reloc = code_.relocation_target(*insn_start + d->rel_offset)) {
    out.site.target = reloc->name;
    out.site.insn = "call " + reloc->name;
    if (is_indirect_trampoline(reloc->name)) out.site.kind = CallKind::Indirect;
    return out;
  }
  if (d->target) name_direct_target(out, *d->target);
  return out;
}

Reach CallSiteChecker::follow_tail_calls(std::uint64_t target, std::uint64_t callee) {
  if (target == callee) return Reach::Yes;
  std::set<std::uint64_t> visited;
  std::vector<std::pair<std::uint64_t, int>> work{{target, 0}};
  bool unknown = false;
  while (!work.empty() && visited.size() < kMaxVisited) {
    auto [addr, depth] = work.back();
    work.pop_back();
    if (!visited.insert(addr).second) continue;
    auto sym = code_.symbol_at(addr);
    if (!sym) {
      unknown = true;
      continue;
    }
    if (sym->address == callee) return Reach::Yes;
    // With call-depth tracking a call lands in the padding before a function.
    if (sym->name.starts_with("__pfx_") && sym->address + sym->size == callee) return Reach::Yes;
    if (is_return_thunk(sym->name)) continue;
    if (is_indirect_trampoline(sym->name)) return Reach::Unknown;
    if (depth >= kMaxTailDepth) continue;
    const std::uint64_t start = sym->address;
    const std::uint64_t size = std::min<std::uint64_t>(sym->size ? sym->size : 256, kMaxTailScanBytes);
    std::vector<std::uint8_t> bytes(size + 16);
    const std::size_t got = code_.read_code(start, bytes);
    std::uint64_t pos = addr - start;
    std::size_t count = 0;
    while (pos < size && pos < got && count++ < kMaxSweepInsns) {
      auto d = decoder_.decode(std::span(bytes).subspan(pos, got - pos), start + pos);
      if (!d || d->length == 0) break;
      if ((d->flow == FlowKind::JumpDirect || d->flow == FlowKind::CondJump) && d->target &&
          (*d->target < start || *d->target >= start + (sym->size ? sym->size : size))) {
        if (*d->target == callee) return Reach::Yes;  // checked at once: a switch may hold hundreds
        work.emplace_back(*d->target, depth + 1);     // a tail call into another function
      } else if (d->flow == FlowKind::JumpIndirect) {
        unknown = true;  // an indirect tail call can go anywhere
      }
      pos += d->length;
    }
  }
  return unknown ? Reach::Unknown : Reach::No;
}

}  // namespace btaudit
