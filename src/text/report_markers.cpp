#include "text/report_markers.h"

#include <array>
#include <vector>

#include "text/scan.h"

namespace btaudit {

namespace {

using scan::consume;

struct Rule {
  std::string_view prefix;
  ReportKind kind;
  JoinPolicy join;
};

// Ordered: the first matching prefix wins, so specific prefixes come before
// general ones ("BUG: KASAN:" before "BUG: ").
constexpr Rule kRules[] = {
    // Banners.
    {"------------[ cut here ]------------", ReportKind::Other, JoinPolicy::Soft},
    {"------------ cut here ------------", ReportKind::Other, JoinPolicy::Soft},
    // Sanitizer and lockdep banners are '=' rules of varying length (>= 20).
    {"====================", ReportKind::Other, JoinPolicy::Soft},
    // Sanitizers.
    {"BUG: KASAN: ", ReportKind::Kasan, JoinPolicy::Standalone},
    {"BUG: KMSAN: ", ReportKind::Kmsan, JoinPolicy::Standalone},
    {"BUG: KCSAN: ", ReportKind::Kcsan, JoinPolicy::Standalone},
    {"BUG: KFENCE: ", ReportKind::Kfence, JoinPolicy::Standalone},
    {"KASAN: ", ReportKind::Kasan, JoinPolicy::FollowUp},
    {"UBSAN: ", ReportKind::Ubsan, JoinPolicy::Standalone},
    {"unreferenced object 0x", ReportKind::MemoryLeak, JoinPolicy::Standalone},
    // Lockdep.
    {"WARNING: possible circular locking dependency detected", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"WARNING: possible recursive locking detected", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"WARNING: inconsistent lock state", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"WARNING: possible irq lock inversion dependency detected", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"WARNING: bad unlock balance detected!", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"WARNING: held lock freed!", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"WARNING: lock held when returning to user space!", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"WARNING: nested lock was not taken", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"WARNING: suspicious RCU usage", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"WARNING: ", ReportKind::Warning, JoinPolicy::Standalone},
    {"INFO: possible circular locking dependency detected", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"INFO: possible recursive locking detected", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"INFO: inconsistent lock state", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"INFO: possible irq lock inversion dependency detected", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"INFO: trying to register non-static key", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"INFO: suspicious RCU usage", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"[ INFO: possible recursive locking detected ]", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"[ INFO: possible circular locking dependency detected ]", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"[ INFO: inconsistent lock state ]", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"[ INFO: suspicious RCU usage. ]", ReportKind::Lockdep, JoinPolicy::Standalone},
    // Hangs and stalls.
    {"INFO: task ", ReportKind::HungTask, JoinPolicy::Standalone},
    {"INFO: rcu_", ReportKind::RcuStall, JoinPolicy::Standalone},
    {"INFO: rcu detected stall", ReportKind::RcuStall, JoinPolicy::Standalone},
    {"BUG: soft lockup", ReportKind::SoftLockup, JoinPolicy::Standalone},
    {"BUG: workqueue lockup", ReportKind::HungTask, JoinPolicy::Standalone},
    {"Watchdog detected hard LOCKUP", ReportKind::HardLockup, JoinPolicy::Standalone},
    {"NMI backtrace for cpu ", ReportKind::NmiBacktrace, JoinPolicy::Backtrace},
    // Faults.
    {"BUG: kernel NULL pointer dereference", ReportKind::NullPointerDereference, JoinPolicy::Standalone},
    {"BUG: unable to handle kernel NULL pointer dereference", ReportKind::NullPointerDereference, JoinPolicy::Standalone},
    {"BUG: unable to handle kernel paging request", ReportKind::PageFault, JoinPolicy::Standalone},
    {"BUG: unable to handle page fault", ReportKind::PageFault, JoinPolicy::Standalone},
    {"BUG: unable to handle kernel", ReportKind::PageFault, JoinPolicy::Standalone},
    {"BUG: kernel tried to execute NX-protected page", ReportKind::PageFault, JoinPolicy::Standalone},
    {"BUG: stack guard page was hit", ReportKind::StackOverflow, JoinPolicy::Standalone},
    {"BUG: sleeping function called from invalid context", ReportKind::AtomicSleep, JoinPolicy::Standalone},
    {"BUG: scheduling while atomic", ReportKind::AtomicSleep, JoinPolicy::Standalone},
    {"BUG: Bad page state", ReportKind::BadPage, JoinPolicy::Standalone},
    {"BUG: Bad page map", ReportKind::BadPage, JoinPolicy::Standalone},
    {"BUG: Bad rss-counter", ReportKind::BadPage, JoinPolicy::Standalone},
    {"BUG: ", ReportKind::Bug, JoinPolicy::Standalone},
    {"kernel BUG at ", ReportKind::KernelBug, JoinPolicy::Standalone},
    {"Kernel BUG at ", ReportKind::KernelBug, JoinPolicy::Standalone},
    {"list_add corruption", ReportKind::ListCorruption, JoinPolicy::Standalone},
    {"list_del corruption", ReportKind::ListCorruption, JoinPolicy::Standalone},
    {"Unable to handle kernel NULL pointer dereference", ReportKind::NullPointerDereference, JoinPolicy::Standalone},
    {"Unable to handle kernel paging request", ReportKind::PageFault, JoinPolicy::Standalone},
    {"Unable to handle kernel ", ReportKind::PageFault, JoinPolicy::Standalone},
    {"Internal error: ", ReportKind::Oops, JoinPolicy::FollowUp},
    {"Unhandled fault", ReportKind::Oops, JoinPolicy::Standalone},
    {"Oops: ", ReportKind::Oops, JoinPolicy::FollowUp},
    {"Oops[#", ReportKind::Oops, JoinPolicy::FollowUp},
    {"Oops - ", ReportKind::Oops, JoinPolicy::FollowUp},
    {"general protection fault", ReportKind::GeneralProtectionFault, JoinPolicy::FollowUp},
    {"invalid opcode: ", ReportKind::InvalidOpcode, JoinPolicy::FollowUp},
    {"double fault: ", ReportKind::DoubleFault, JoinPolicy::FollowUp},
    {"PANIC: double fault", ReportKind::DoubleFault, JoinPolicy::Standalone},
    {"divide error: ", ReportKind::DivideError, JoinPolicy::FollowUp},
    {"stack segment: ", ReportKind::Oops, JoinPolicy::FollowUp},
    {"kernel stack overflow", ReportKind::StackOverflow, JoinPolicy::Standalone},
    {"refcount_t: ", ReportKind::Refcount, JoinPolicy::FollowUp},
    // Panics.
    {"Kernel panic - not syncing: ", ReportKind::Panic, JoinPolicy::Consequence},
    {"kernel panic - not syncing: ", ReportKind::Panic, JoinPolicy::Consequence},
};

// Subsystem prefixes (pr_fmt) that stand before some start lines.
constexpr std::string_view kPrefixes[] = {"watchdog: ", "NMI watchdog: ", "rcu: ", "kernel: "};

// Index of the rules by first character: most lines fail here without a compare.
struct RuleIndex {
  std::array<std::vector<const Rule*>, 128> by_first{};
  RuleIndex() {
    for (const Rule& r : kRules) by_first[static_cast<unsigned char>(r.prefix[0]) & 0x7f].push_back(&r);
  }
};

const RuleIndex& rule_index() {
  static const RuleIndex index;  // immutable after construction
  return index;
}

}  // namespace

bool is_consequential_panic(std::string_view header) {
  const std::size_t colon = header.find("not syncing: ");
  if (colon == std::string_view::npos) return false;
  const std::string_view reason = header.substr(colon + 13);
  constexpr std::string_view kConsequences[] = {
      "Fatal exception", "panic_on_warn set", "hung_task: blocked tasks", "softlockup: hung tasks",
      "Hard LOCKUP", "hard LOCKUP", "Fatal machine check", "Fatal hardware error", "rcu_sched self-detected",
      "RCU Stall", "panic_on_oops", "Oops", "Attempted to kill the idle task", "Aiee, killing interrupt handler",
      "Watchdog detected hard LOCKUP", "corrupted stack end detected", "Kernel stack overflow", "bad mode",
      "kernel stack overflow",
  };
  for (auto c : kConsequences)
    if (reason.starts_with(c)) return true;
  return false;
}

std::optional<StartMarker> match_start(std::string_view text) {
  std::string_view s = scan::trim_left(text);
  for (int i = 0; i < 2 && !s.empty(); ++i) {
    bool stripped = false;
    for (auto p : kPrefixes) {
      if (s.size() > p.size() && s[0] == p[0] && consume(s, p)) {
        stripped = true;
        break;
      }
    }
    if (!stripped) break;
  }
  if (s.empty()) return std::nullopt;
  const unsigned char c = static_cast<unsigned char>(s[0]);
  if (c >= 128) return std::nullopt;
  for (const Rule* r : rule_index().by_first[c]) {
    if (s.starts_with(r->prefix)) return StartMarker{r->kind, r->join, s};
  }
  return std::nullopt;
}

EndMarker match_end(std::string_view text) {
  std::string_view s = scan::trim_left(text);
  if (s.starts_with("---[ end trace")) return EndMarker::EndTrace;
  if (s.starts_with("---[ end Kernel panic")) return EndMarker::EndKernelPanic;
  if (s.starts_with("Kernel Offset: ")) return EndMarker::KernelOffset;
  return EndMarker::None;
}

}  // namespace btaudit
