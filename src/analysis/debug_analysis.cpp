#include "analysis/debug_analysis.h"

#include <charconv>
#include <map>
#include <utility>

#include "analysis/call_site_check.h"
#include "analysis/call_site_verdict.h"
#include "analysis/frame_roles.h"
#include "analysis/vmlinux_match.h"
#include "debuginfo/debuginfo_code_source.h"
#include "debuginfo/kernel_profile.h"
#include "provider/return_address.h"

namespace btaudit {

namespace {

struct Resolved {
  std::uint64_t address = 0;  // in the debuginfo layout
  Symbol function;
};

// Where a printed frame's return address is in the debuginfo's layout.
std::optional<Resolved> resolve(KernelDebugInfo& info, const Frame& f, const std::optional<std::int64_t>& kaslr,
                                int& size_mismatches) {
  const std::string module = f.module.value_or("");
  if (f.function && f.offset) {
    auto sym = info.function(*f.function, module, f.size);
    if (!sym) return std::nullopt;
    // vmlinux: the size kallsyms computes must be the printed one, exactly. A module's .ko
    // (or an image kallsyms does not cover): sizes run past st_size by padding and __pfx_.
    auto ks = module.empty() ? info.kallsyms_at(sym->address) : std::nullopt;
    if (ks && ks->address == sym->address) {
      if (f.size && ks->size != *f.size) ++size_mismatches;
    } else if (f.size && !module_size_fits(*f.size, sym->size)) {
      ++size_mismatches;
    }
    return Resolved{sym->address + *f.offset, *sym};
  }
  if (f.address && module.empty() && kaslr) {
    const std::uint64_t a = *f.address - static_cast<std::uint64_t>(*kaslr);
    auto sym = info.symbol_at(symbol_lookup_address(a, false));
    if (!sym) return std::nullopt;
    return Resolved{a, *sym};
  }
  return std::nullopt;
}

// The call-site answers a session keeps beyond one report (and a batch run
// shares between its sessions): vmlinux's own addresses only, whose code and
// symbols come from the file alone. A module's addresses depend on where this
// session placed the module, so their answers stay with the report's checker.
class KernelCallSiteMemo final : public CallSiteMemo {
 public:
  explicit KernelCallSiteMemo(KernelDebugInfo& info) : info_(info) {}
  // Both kinds of answer outlive the run too, in the kernel profile (its call_site_answers and
  // reach_answers): they are decoded from the file alone, and following a call through
  // x64_sys_call's switch decodes thousands of instructions on every run that meets a syscall's
  // frames. The profile first, then the run's shared answers.
  std::optional<CallSiteFinding> call(std::uint64_t ret, const std::optional<Symbol>& function) override {
    if (!kept(ret, function)) return std::nullopt;
    KernelAnswers::CallSiteKey k = key(ret, function);
    if (const KernelProfile* p = info_.profile()) {
      if (auto it = p->call_site_answers.find(k); it != p->call_site_answers.end()) return it->second;
    }
    std::optional<CallSiteFinding> known = info_.kernel_answers().call_site(k);
    if (known) keep_in_profile(std::move(k), *known);  // another session's answer: this profile keeps it too
    return known;
  }
  void keep_call(std::uint64_t ret, const std::optional<Symbol>& function, const CallSiteFinding& f) override {
    if (!kept(ret, function) || (f.target_address && !info_.holds_kernel_address(*f.target_address))) return;
    KernelAnswers::CallSiteKey k = key(ret, function);
    info_.kernel_answers().put_call_site(k, f);
    keep_in_profile(std::move(k), f);
  }
  std::optional<Reach> reach(std::uint64_t target, std::uint64_t callee) override {
    if (!kept(target, callee)) return std::nullopt;
    if (const KernelProfile* p = info_.profile()) {
      if (auto it = p->reach_answers.find({target, callee}); it != p->reach_answers.end()) return it->second;
    }
    const std::optional<Reach> known = info_.kernel_answers().reach(target, callee);
    if (known) keep_in_profile(target, callee, *known);  // another session's answer: this profile keeps it too
    return known;
  }
  void keep_reach(std::uint64_t target, std::uint64_t callee, Reach r) override {
    if (!kept(target, callee)) return;
    info_.kernel_answers().put_reach(target, callee, r);
    keep_in_profile(target, callee, r);
  }

 private:
  void keep_in_profile(std::uint64_t target, std::uint64_t callee, Reach r) {
    KernelProfile* p = info_.profile();
    if (!p || p->reach_answers.size() >= KernelAnswers::kMaxAnswers) return;  // bounded like the run's own
    if (p->reach_answers.emplace(std::make_pair(target, callee), r).second) info_.profile_changed();
  }
  void keep_in_profile(KernelAnswers::CallSiteKey stored, const CallSiteFinding& f) {
    KernelProfile* p = info_.profile();
    if (!p || p->call_site_answers.size() >= KernelAnswers::kMaxAnswers) return;
    if (p->call_site_answers.emplace(std::move(stored), f).second) info_.profile_changed();
  }
  bool kept(std::uint64_t a, std::uint64_t b) const {
    return info_.holds_kernel_address(a) && info_.holds_kernel_address(b);
  }
  bool kept(std::uint64_t ret, const std::optional<Symbol>& function) const {
    return info_.holds_kernel_address(ret) && (!function || info_.holds_kernel_address(function->address));
  }
  static KernelAnswers::CallSiteKey key(std::uint64_t ret, const std::optional<Symbol>& function) {
    if (!function) return {ret, ~std::uint64_t{0}, {}};
    return {ret, function->address, function->name};
  }
  KernelDebugInfo& info_;
};

// "f+0xoff/0xsize" as the kernel's %pB prints a vmlinux return address.
std::optional<std::string> kallsyms_text(KernelDebugInfo& info, std::uint64_t address) {
  auto s = info.kallsyms_at(symbol_lookup_address(address, false));
  if (!s) return std::nullopt;
  // (to_chars, not snprintf: every checked frame of a batch is printed so, and snprintf's format
  // parsing cost ten times the digits.)
  std::string text = std::move(s->name);
  char buf[48];
  char* p = buf;
  *p++ = '+';
  *p++ = '0';
  *p++ = 'x';
  p = std::to_chars(p, buf + sizeof buf, address - s->address, 16).ptr;
  *p++ = '/';
  *p++ = '0';
  *p++ = 'x';
  p = std::to_chars(p, buf + sizeof buf, s->size, 16).ptr;
  text.append(buf, p);
  return text;
}

// KASLR from the frames that print both an absolute address and a symbol:
// each gives address - (symbol + offset); the most common value must be
// backed by at least two frames (or by the kernel's own "Kernel Offset:").
void infer_kaslr(Report& r, KernelDebugInfo& info) {
  std::map<std::int64_t, int> votes;
  for (const Frame& f : r.frames) {
    if (!f.address || !f.function || !f.offset || f.module) continue;
    auto sym = info.function(*f.function, "", f.size);
    if (!sym) continue;
    votes[static_cast<std::int64_t>(*f.address - (sym->address + *f.offset))]++;
  }
  std::int64_t best = 0;
  int count = 0;
  for (auto [offset, n] : votes)
    if (n > count) best = offset, count = n;
  if (r.kaslr_offset) {
    // Given beforehand: the dump's own (kaslr_source "dump"), else the report's "Kernel Offset:" line.
    if (r.kaslr_source.empty()) r.kaslr_source = "kernel_offset_line";
    r.kaslr_agreeing_frames = votes.count(*r.kaslr_offset) ? votes[*r.kaslr_offset] : 0;
    if (count > 0 && best != *r.kaslr_offset)
      r.debug_warnings.push_back(r.kaslr_source == "dump"
                                     ? "frames suggest a kernel offset different from the dump's (VMCOREINFO)"
                                     : "frames suggest a kernel offset different from the printed Kernel Offset line");
    return;
  }
  if (count >= 2 || (count == 1 && votes.size() == 1 && r.frames.size() == 1)) {
    r.kaslr_offset = best;
    r.kaslr_source = "frames";
    r.kaslr_agreeing_frames = count;
  } else if (!votes.empty()) {
    r.debug_warnings.push_back("frames disagree on the kernel offset: not inferred");
  }
}

// A frame whose call site was never looked at: its text verdict stands, said so.
void mark_unchecked(Frame& f) {
  f.debug->note = "not checked: the time budget ran out; the text rules' reason: " + std::string(reason_code(f.reason));
  f.reason = Reason::UncheckedBudget;
}

}  // namespace

CheckDeadline::CheckDeadline(const CheckBudget& budget)
    : budget_(budget), at_(std::chrono::steady_clock::now() + budget.per_report) {
  if (budget.shared_deadline && *budget.shared_deadline < at_) {
    at_ = *budget.shared_deadline;
    shared_first_ = true;
  }
}

bool CheckDeadline::admit() {
  ++checks_;
  if (std::chrono::steady_clock::now() <= at_) return true;
  ++unchecked_;
  return false;
}

std::optional<Truncation> CheckDeadline::truncation() const {
  if (unchecked_ == 0) return std::nullopt;
  const auto ms = shared_first_ ? budget_.shared : budget_.per_report;
  return Truncation{"call-site checks",
                    checks_,
                    checks_ - unchecked_,
                    static_cast<std::uint64_t>(ms.count()),
                    "ms",
                    shared_first_ ? "--dump-budget-ms" : "--check-budget-ms"};
}

void apply_debuginfo(Report& r, KernelDebugInfo& info, const CheckBudget& budget) {
  CheckDeadline deadline(budget);
  if (auto release = info.release(); release && r.kernel && *release != *r.kernel)
    r.debug_warnings.push_back(info.vmlinux_path() + " is release " + *release + " but the report is from " +
                               *r.kernel);
  // 5.14+ kernels with CONFIG_STACKTRACE_BUILD_ID print their build id on the CPU: line.
  if (auto id = info.build_id(); id && r.kernel_build_id && build_ids_differ(*r.kernel_build_id, *id))
    r.debug_warnings.push_back(info.vmlinux_path() + " is build " + *id + " but the report's kernel printed build " +
                               *r.kernel_build_id + ": its lines and call sites are another build's");
  infer_kaslr(r, info);
  DebugInfoCodeSource code(info);
  KernelCallSiteMemo memo(info);
  CallSiteChecker checker(code, &memo);

  int size_mismatches = 0;
  int resolved_count = 0;
  std::vector<std::optional<Resolved>> where(r.frames.size());
  for (std::size_t i = 0; i < r.frames.size(); ++i) {
    Frame& f = r.frames[i];
    where[i] = resolve(info, f, r.kaslr_offset, size_mismatches);
    if (!where[i]) continue;
    ++resolved_count;
    FrameDebugInfo d;
    d.address = where[i]->address;
    d.lookup_address = symbol_lookup_address(d.address, false);
    info.describe_source(d.lookup_address, d);
    if (!f.module) d.kallsyms = kallsyms_text(info, d.address);
    f.debug = std::move(d);
  }
  if (r.rip && r.rip->function && r.rip->offset) {
    if (auto sym = info.function(*r.rip->function, r.rip->module.value_or(""), r.rip->size)) {
      FrameDebugInfo d;
      d.address = sym->address + *r.rip->offset;
      d.lookup_address = d.address;  // the faulting instruction itself
      info.describe_source(d.lookup_address, d);
      r.rip_debug = std::move(d);
    }
  }
  if (size_mismatches > 0 && size_mismatches * 4 >= resolved_count)
    r.debug_warnings.push_back(std::to_string(size_mismatches) + " of " + std::to_string(resolved_count) +
                               " frames have a function size that differs from " + info.vmlinux_path() +
                               ": the debuginfo does not match this kernel build");

  // Call-site checks, top (most recent) frame first, so that "the frame above"
  // is the nearest earlier frame on the same stack that is not stale.
  for (const Trace& t : r.traces) {
    constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::size_t above = kNone;  // nearest earlier frame on this stack that is not stale
    const std::size_t end = std::min<std::size_t>(r.frames.size(), std::size_t{t.first_frame} + t.frame_count);
    for (std::size_t i = t.first_frame; i < end; ++i) {
      Frame& f = r.frames[i];
      if (above != kNone && (r.frames[above].stack != f.stack || r.frames[above].exception != f.exception))
        above = kNone;
      if (!where[i] || !f.debug) continue;
      if (!deadline.admit()) {
        mark_unchecked(f);
        if (f.verdict != Verdict::Stale) above = i;
        continue;
      }
      CallSiteFinding finding = checker.find_call(where[i]->address, where[i]->function);
      // An undecided finding names no call site ("none" would say the machine code has no call).
      if (finding.decided) f.debug->call_site = finding.site;
      if (!finding.decided) {
        f.debug->note = finding.note;
        if (f.verdict != Verdict::Stale) above = i;
        continue;
      }
      Reach reach = Reach::Unknown;
      if (finding.site.kind == CallKind::Direct && above != kNone && where[above] &&
          !(r.frames[above].function && is_entry_code(*r.frames[above].function))) {
        const std::uint64_t callee = where[above]->function.address;
        if (finding.site.target) {
          auto tsym =
              info.function(finding.site.target->substr(0, finding.site.target->find('+')), f.module.value_or(""));
          if (!tsym && f.module) tsym = info.function(*finding.site.target, "");
          if (tsym) reach = checker.reaches(tsym->address, callee);
        }
      }
      // Entry and start-up assembly pushes return addresses by hand
      // (secondary_startup_64's lretq): their call sites prove nothing.
      const bool asm_frame = f.function && (is_chain_terminal(*f.function) || is_entry_code(*f.function));
      const CallSiteEvidence evidence{finding, reach, above != kNone ? where[above]->function.name : std::string(),
                                      f.offset && f.size && *f.size != 0 && *f.offset == *f.size};
      if (apply_call_site_evidence(!f.printed_unreliable, asm_frame, f.verdict, f.reason, *f.debug, evidence))
        above = i;
    }
  }
  if (auto t = deadline.truncation()) r.truncated.push_back(std::move(*t));
}

}  // namespace btaudit
