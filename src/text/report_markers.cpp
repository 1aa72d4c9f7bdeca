#include "text/report_markers.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "text/scan.h"
#include "text/word_starts.h"

namespace btaudit {

namespace {

using scan::consume;

// Who prints a rule's line: the kernel's printk (with its prefix of time and caller id), or
// something else on the same console whose lines come without it (StartMarker::other_program).
enum class Printer : std::uint8_t { Kernel, OtherProgram };

struct Rule {
  std::string_view prefix;
  ReportKind kind;
  JoinPolicy join;
  Printer printer = Printer::Kernel;
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
    {"BUG kmalloc-", ReportKind::Bug,
     JoinPolicy::Standalone},  // SLUB debug: "BUG kmalloc-8 (...): Object already free"
    {"UBSAN: ", ReportKind::Ubsan, JoinPolicy::Standalone},
    // kmemleak: syzkaller's consoles print "BUG: memory leak" first; the object line belongs to it.
    {"unreferenced object 0x", ReportKind::MemoryLeak, JoinPolicy::FollowUp},
    // kmemleak's own error (kmemleak_warn + dump_stack): it then disables itself.
    {"kmemleak: Cannot insert ", ReportKind::Other, JoinPolicy::Standalone},
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
    {"INFO: SOFTIRQ-safe -> SOFTIRQ-unsafe lock order detected", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"[ INFO: possible recursive locking detected ]", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"[ INFO: possible circular locking dependency detected ]", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"[ INFO: inconsistent lock state ]", ReportKind::Lockdep, JoinPolicy::Standalone},
    {"[ INFO: suspicious RCU usage. ]", ReportKind::Lockdep, JoinPolicy::Standalone},
    // Hangs and stalls.
    {"INFO: task ", ReportKind::HungTask, JoinPolicy::Standalone},
    {"INFO: rcu_", ReportKind::RcuStall, JoinPolicy::Standalone},
    {"INFO: rcu detected stall", ReportKind::RcuStall, JoinPolicy::Standalone},
    // SLUB debug's object history: part of the "BUG kmalloc-64 (...)" or KASAN report above it,
    // a report of its own when that report's first lines were lost.
    {"INFO: Freed in ", ReportKind::Bug, JoinPolicy::Continuation},
    {"INFO: Allocated in ", ReportKind::Bug, JoinPolicy::Continuation},
    {"INFO: Slab 0x", ReportKind::Bug, JoinPolicy::Continuation},
    {"INFO: Object 0x", ReportKind::Bug, JoinPolicy::Continuation},
    // A bare "INFO:" is a report header cut short; other "INFO:" lines are not the kernel's
    // (firmware, test harnesses) or are checked as benign below.
    {"INFO:", ReportKind::Bug, JoinPolicy::FollowUp},
    {"BUG: soft lockup", ReportKind::SoftLockup, JoinPolicy::Standalone},
    {"BUG: workqueue lockup", ReportKind::HungTask, JoinPolicy::Standalone},
    // Old kernels print it as the message of a "WARNING: at kernel/watchdog.c" header.
    {"Watchdog detected hard LOCKUP", ReportKind::HardLockup, JoinPolicy::FollowUp},
    {"NMI backtrace for cpu ", ReportKind::NmiBacktrace, JoinPolicy::Backtrace},
    // Faults.
    {"BUG: kernel NULL pointer dereference", ReportKind::NullPointerDereference, JoinPolicy::Standalone},
    {"BUG: unable to handle kernel NULL pointer dereference", ReportKind::NullPointerDereference,
     JoinPolicy::Standalone},
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
    {"BUG:", ReportKind::Bug, JoinPolicy::Standalone},
    {"kernel BUG at ", ReportKind::KernelBug, JoinPolicy::Standalone},
    {"Kernel BUG at ", ReportKind::KernelBug, JoinPolicy::Standalone},
    // Printed just before the WARNING or "kernel BUG at lib/list_debug.c" that reports them.
    {"list_add corruption", ReportKind::ListCorruption, JoinPolicy::Soft},
    {"list_del corruption", ReportKind::ListCorruption, JoinPolicy::Soft},
    {"Unable to handle kernel NULL pointer dereference", ReportKind::NullPointerDereference, JoinPolicy::Standalone},
    {"Unable to handle kernel paging request", ReportKind::PageFault, JoinPolicy::Standalone},
    {"Unable to handle kernel ", ReportKind::PageFault, JoinPolicy::Standalone},
    {"Internal error: ", ReportKind::Oops, JoinPolicy::FollowUp},
    {"Unhandled fault", ReportKind::Oops, JoinPolicy::Standalone},
    {"Oops: ", ReportKind::Oops, JoinPolicy::FollowUp},
    {"Oops[#", ReportKind::Oops, JoinPolicy::FollowUp},
    {"Oops - ", ReportKind::Oops, JoinPolicy::FollowUp},
    // openrisc's die(): "%s#: %04lx" (arch/openrisc/kernel/traps.c).
    {"Oops#: ", ReportKind::Oops, JoinPolicy::FollowUp},
    {"general protection fault", ReportKind::GeneralProtectionFault, JoinPolicy::FollowUp},
    {"invalid opcode: ", ReportKind::InvalidOpcode, JoinPolicy::FollowUp},
    {"double fault: ", ReportKind::DoubleFault, JoinPolicy::FollowUp},
    {"PANIC: double fault", ReportKind::DoubleFault, JoinPolicy::Standalone},
    {"divide error: ", ReportKind::DivideError, JoinPolicy::FollowUp},
    {"divide_error: ", ReportKind::DivideError, JoinPolicy::FollowUp},  // spelling of 5.8-5.9
    {"Alignment trap: ", ReportKind::Oops, JoinPolicy::Standalone},
    {"VFS: Close: file count is 0", ReportKind::Bug, JoinPolicy::Standalone},
    {"VFS: Busy inodes after unmount", ReportKind::Bug, JoinPolicy::Standalone},
    {"unregister_netdevice: waiting for ", ReportKind::Refcount, JoinPolicy::FollowUp},
    // Trusty, the secure-world OS beside the kernel, writes to the same UART.
    {"trusty: panic", ReportKind::Panic, JoinPolicy::Standalone, Printer::OtherProgram},
    // syzkaller's executor prints these on the console; its corpora treat them as reports.
    {"SYZFAIL:", ReportKind::Other, JoinPolicy::Standalone, Printer::OtherProgram},
    {"SYZFATAL:", ReportKind::Other, JoinPolicy::Standalone, Printer::OtherProgram},
    {"stack segment: ", ReportKind::Oops, JoinPolicy::FollowUp},
    // 4.9-5.x x86 handle_stack_overflow(): "BUG: stack guard page was hit at ..." then die(message)'s
    // header, "kernel stack overflow (double-fault): 0000 [#1] SMP" (or "(page fault)", from
    // mm/fault.c): one report. (6.x prints "stack guard page: 0000 [#1]" instead.)
    {"kernel stack overflow (", ReportKind::StackOverflow, JoinPolicy::FollowUp},
    {"kernel stack overflow", ReportKind::StackOverflow, JoinPolicy::Standalone},
    // kernel/cfi.c report_cfi_failure() (4.19's CONFIG_CFI_CLANG, kCFI from 6.1): "CFI failure at
    // %pS (target: %pS; expected type: 0x%08x)" or "(no target information)". The trap then dies
    // ("invalid opcode:", arm64's "Internal error: Oops - CFI:"), follow-ups of this report, or
    // with CONFIG_CFI_PERMISSIVE warns: __warn's "WARNING: CPU: ... at" line joins it too
    // (LogParser::route_start).
    {"CFI failure at ", ReportKind::CfiFailure, JoinPolicy::Standalone},
    // WARN_ONCE's message: the "WARNING: ... at lib/refcount.c" line follows.
    {"refcount_t: ", ReportKind::Refcount, JoinPolicy::Soft},
    // Assertions that print a stack without WARN's banner (ASSERT_RTNL before 4.x, sysctl_check).
    {"RTNL: assertion failed", ReportKind::Warning, JoinPolicy::Standalone},
    {"sysctl table check failed", ReportKind::Warning, JoinPolicy::Standalone},
    // x86 do_int3: "int3: 0000 [#1] SMP" (an unexpected breakpoint), then the oops lines.
    {"int3: ", ReportKind::Oops, JoinPolicy::FollowUp},
    // Rust's panic handler: location, message, then BUG() (whose report joins this one).
    {"rust_kernel: panicked", ReportKind::Panic, JoinPolicy::Standalone},
    // kernel/irq/spurious.c: "irq 16: nobody cared (try booting with the "irqpoll" option)".
    {"irq ", ReportKind::Bug, JoinPolicy::Standalone},
    // The boot decompressor's last line: the machine rebooted.
    {"Booting the kernel", ReportKind::Other, JoinPolicy::Standalone, Printer::OtherProgram},
    // Go runtime failures of the fuzzer's own programs on the console.
    {"fatal error: ", ReportKind::Other, JoinPolicy::Standalone, Printer::OtherProgram},
    {"panic: ", ReportKind::Other, JoinPolicy::Standalone, Printer::OtherProgram},
    // Panics.
    {"Kernel panic - not syncing: ", ReportKind::Panic, JoinPolicy::Consequence},
    {"kernel panic - not syncing: ", ReportKind::Panic, JoinPolicy::Consequence},
};

// Subsystem prefixes (pr_fmt) that stand before some start lines.
constexpr std::string_view kPrefixes[] = {"watchdog: ", "NMI watchdog: ", "rcu: ", "kernel: "};

// A line's first eight bytes as one word, zero past its end (both sides of a compare
// are made this way, so the byte order does not matter).
std::uint64_t head_word(std::string_view s) {
  std::uint64_t w = 0;
  std::memcpy(&w, s.data(), std::min<std::size_t>(s.size(), sizeof w));
  return w;
}

// Index of the rules by first character: most lines fail here without a compare. Lines
// that share a first character with a rule are common (register rows, "INFO:", "BUG:"
// lines), and so are rules sharing one ("BUG: ..." and "INFO: ..."): each rule's first
// eight bytes are compared as one word before the rest is.
struct IndexedRule {
  std::uint64_t head = 0;  // head_word of the prefix's first eight bytes
  std::uint64_t mask = 0;  // the bytes of head that the prefix fills
  const Rule* rule = nullptr;
};
// A pair of bytes as an index into a 64K-entry table.
constexpr std::size_t pair_index(char a, char b) {
  return static_cast<std::size_t>(static_cast<unsigned char>(a)) << 8 | static_cast<unsigned char>(b);
}

// The rules' first two bytes, one bit per byte pair: a line whose first two bytes open no
// rule (a frame's "do_", "__", "kasan_") matches none, which one lookup tells. Made at
// compile time: it is read for every line, where a function-local static's guard and call
// cost more than the lookup.
constexpr std::array<std::uint64_t, 1024> kRulePairs = [] {
  std::array<std::uint64_t, 1024> bits{};
  for (const Rule& r : kRules) {
    const std::size_t i = pair_index(r.prefix[0], r.prefix[1]);  // every prefix has two bytes or more
    bits[i / 64] |= std::uint64_t{1} << (i % 64);
  }
  return bits;
}();

// False when no rule's prefix starts with s's first two bytes.
bool opens_rule(std::string_view s) {
  if (s.size() < 2) return false;
  const std::size_t i = pair_index(s[0], s[1]);
  return (kRulePairs[i / 64] >> (i % 64)) & 1;
}

struct RuleIndex {
  std::array<std::vector<IndexedRule>, 128> by_first{};
  RuleIndex() {
    for (const Rule& r : kRules) {
      IndexedRule ir;
      ir.head = head_word(r.prefix);
      const std::size_t n = std::min<std::size_t>(r.prefix.size(), 8);
      ir.mask = n == 8 ? ~std::uint64_t{0} : head_word(std::string_view("\xff\xff\xff\xff\xff\xff\xff", n));
      ir.rule = &r;
      by_first[static_cast<unsigned char>(r.prefix[0]) & 0x7f].push_back(ir);
    }
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
      "Fatal exception",
      "panic_on_warn set",
      "hung_task: blocked tasks",
      "softlockup: hung tasks",
      "Hard LOCKUP",
      "hard LOCKUP",
      "Fatal machine check",
      "Fatal hardware error",
      "rcu_sched self-detected",
      "RCU Stall",
      "panic_on_oops",
      "Oops",
      "Attempted to kill the idle task",
      "Aiee, killing interrupt handler",
      "Watchdog detected hard LOCKUP",
      "corrupted stack end detected",
      "Kernel stack overflow",
      "bad mode",
      "kernel stack overflow",
  };
  for (auto c : kConsequences)
    if (reason.starts_with(c)) return true;
  return false;
}

namespace {

// Whether s holds " uses " followed by one of `tails`, every letter compared without case
// (the bytes of s are or-ed with 0x20, as the needles are lower case). The phrases that
// is_benign_start looks for share that word: the line is walked once, not once per phrase.
bool contains_uses_nocase(std::string_view s, std::initializer_list<std::string_view> tails) {
  constexpr std::string_view kHead = " uses ";
  for (std::size_t i = 0; i + kHead.size() <= s.size(); ++i) {
    if ((s[i] | 0x20) != ' ') continue;
    std::size_t k = 1;
    while (k < kHead.size() && (s[i + k] | 0x20) == kHead[k]) ++k;
    if (k < kHead.size()) continue;
    const std::string_view rest = s.substr(i + kHead.size());
    for (const std::string_view t : tails) {
      if (t.size() > rest.size()) continue;
      std::size_t j = 0;
      while (j < t.size() && (rest[j] | 0x20) == t[j]) ++j;
      if (j == t.size()) return true;
    }
  }
  return false;
}

// The "INFO:" lines that are no report: s starts with "INFO:".
bool is_benign_info(std::string_view s) {
  const std::string_view rest = s.substr(5);
  constexpr std::string_view kBenign[] = {
      " lockdep is turned off",
      " Stall ended before state dump start",
      " NMI handler",
      " recovery required on readonly filesystem",
      " no syscalls can create resource",
      " sys_",
  };
  for (auto p : kBenign)
    if (scan::starts(rest, p)) return true;
  // Only a bare "INFO:" (the rest of a header lost) is left to the generic rule.
  if (!scan::trim(rest).empty()) {
    constexpr std::string_view kInfoReports[] = {" possible ",
                                                 " inconsistent lock state",
                                                 " trying to register non-static key",
                                                 " suspicious RCU usage",
                                                 " SOFTIRQ-safe",
                                                 " task ",
                                                 " rcu",
                                                 " Freed in ",
                                                 " Allocated in ",
                                                 " Slab 0x",
                                                 " Object 0x"};
    bool known = false;
    for (auto k : kInfoReports) known = known || rest.starts_with(k);
    if (!known) return true;
  }
  // "INFO: NMI handler (perf_event_nmi_handler) took too long to run: 1.2 msecs"
  return scan::starts(rest, " ") && scan::contains(rest, " took too long");
}

bool is_build_tool_warning(std::string_view rest) {
  for (const markers_detail::BuildToolForm& f : markers_detail::kBuildToolForms) {
    switch (f.shape) {
      case markers_detail::BuildToolForm::Shape::Prefix:
        if (rest.starts_with(f.text)) return true;
        break;
      case markers_detail::BuildToolForm::Shape::Holds:
        if (scan::contains(rest, f.text)) return true;
        break;
      case markers_detail::BuildToolForm::Shape::QuotedSymbol:
        if (rest.size() > 2 && rest[0] == '"' && scan::trim(rest).ends_with(f.text) &&
            rest.find("\" [") != std::string_view::npos)
          return true;
        break;
      case markers_detail::BuildToolForm::Shape::MissingFile: {
        const std::string_view t = scan::trim(rest);
        if (t.size() > f.text.size() && t.ends_with(f.text) &&
            t.substr(0, t.size() - f.text.size()).find(' ') == std::string_view::npos)
          return true;
        break;
      }
    }
  }
  return false;
}

// The "WARNING: " lines that are no report: s starts with "WARNING: ".
bool is_benign_warning(std::string_view s) {
  const std::string_view rest = s.substr(9);
  constexpr std::string_view kBenign[] = {
      "/etc/ssh/moduli does not exist",
      "workqueue cpumask: online intersect > possible intersect",
      "The mand mount option",
      "the mand mount option",
      "Unsupported flag value",
      "Unprivileged eBPF is enabled",
      "fbcon: Driver '",
      "See https",
      "kernel not compiled with CPU_SRSO",
  };
  for (auto p : kBenign)
    if (scan::starts(rest, p)) return true;
  if (is_build_tool_warning(rest)) return true;
  // "WARNING: foo uses wireless extensions which will stop working ..." (some consoles upper-case it all)
  return contains_uses_nocase(s, {"wireless extensions", "deprecated v2 capabilities"});
}

// The die() headers that print "Oops: " and no counter: m68k's die_if_kernel, "%s: %08x"
// (arch/m68k/kernel/traps.c: "Oops: 00000000", the line whole), and microblaze's and nios2's
// die, "Oops: %s, sig: %ld" (arch/microblaze/kernel/exceptions.c, arch/nios2/kernel/traps.c).
bool oops_without_counter(std::string_view s) {
  const std::string_view rest = scan::trim_right(s.substr(6));
  if (rest.size() == 8 && std::all_of(rest.begin(), rest.end(), [](char c) { return scan::is_hex(c); })) return true;
  std::size_t n = rest.size();
  const std::size_t digits = markers_detail::digits_before(rest, n);
  return digits != 0 && digits < 10 && n > 7 && rest.substr(0, n).ends_with(", sig: ");
}

}  // namespace

namespace markers_detail {

// Lines that look like report starts but are not failures: informational
// messages of subsystems and user space that borrow the kernel's words.
// Only lines that already matched a rule are checked. Every check starts with a
// prefix of the line: its first byte picks the few that can hold.
bool is_benign_start(std::string_view s) {
  if (s.empty()) return false;
  switch (s[0]) {
    case 'I': return s.starts_with("INFO:") && is_benign_info(s);
    case 'W': return s.starts_with("WARNING: ") && is_benign_warning(s);
    case 'B':
      if (s.starts_with("BUG: no syscalls can create resource")) return true;
      // The words echoed back inside another message (a mount option) are not a reboot.
      if (s.starts_with("Booting the kernel"))
        return scan::contains(s, "Parsing ELF") || scan::contains(s, "Decompressing Linux") ||
               scan::contains(s, "Unknown parameter '");
      return false;
    case 'i':
      // "irq N: nobody cared" is a report; other "irq ..." lines are driver chatter.
      if (s.starts_with("irq ")) {
        std::string_view t = s.substr(4);
        while (!t.empty() && t[0] >= '0' && t[0] <= '9') t.remove_prefix(1);
        return !t.starts_with(": nobody cared");
      }
      return false;
    case 'f':
      if (s.starts_with("fatal error: "))
        return scan::contains(s, "ALSA") || s.starts_with("fatal error: cannot create timer");
      return false;
    case 'g':
      // x86's show_signal() for a user-space fault: "<comm>[<pid>] general protection fault
      // ip:.. sp:.. error:.. in <vma>" (arch/x86/kernel/traps.c); the kernel's own is
      // "general protection fault: 0000 [#1]" or "..., probably for non-canonical address".
      return s.starts_with("general protection fault ip:");
    case 'O':
      // An oops line counts its oopses ("Oops: 0000 [#1] SMP"), or is one of the die() headers
      // that do not (oops_without_counter); drivers print "Oops: efitime: can't read time!" and
      // the like as plain messages.
      return s.starts_with("Oops: ") && !scan::contains(s, "[#") && !oops_without_counter(s);
    default: return false;
  }
}

}  // namespace markers_detail

namespace {

using markers_detail::is_benign_start;

std::optional<StartMarker> match_rules(std::string_view s) {
  const unsigned char c = static_cast<unsigned char>(s[0]);
  if (c >= 128) return std::nullopt;
  const std::vector<IndexedRule>& rules = rule_index().by_first[c];
  if (rules.empty()) return std::nullopt;  // most lines: frames, registers, prose
  const std::uint64_t head = head_word(s);
  for (const IndexedRule& ir : rules) {
    const Rule* r = ir.rule;
    if ((head & ir.mask) == ir.head && s.starts_with(r->prefix)) {
      if (is_benign_start(s)) return std::nullopt;
      return StartMarker{r->kind, r->join, s, r->printer == Printer::OtherProgram};
    }
  }
  return std::nullopt;
}

// Start words that the kernel prints at the beginning of a message but that
// reach the console glued behind other text: another CPU's unterminated line
// ("...bytes[   76.471107] BUG: unable to handle"), a login prompt, a lost-messages
// note, lockdep's old "[ INFO: ... ]" banners, x86's "segment-related general
// protection fault". Only these are looked for inside a line.
constexpr std::string_view kEmbeddable[] = {
    "BUG: ",
    "WARNING: ",
    "INFO: ",
    "general protection fault",
    "kernel BUG at ",
    "Kernel panic - not syncing",
    "divide error: ",
    "invalid opcode: ",
    "UBSAN: ",
    "Unable to handle kernel ",
    "Internal error: ",
    "Unhandled fault: ",
    "stack segment: ",
    "PANIC: double fault",
    "SYZFAIL:",
    "SYZFATAL:",
};

// The embeddable word at position i of s, if one starts there: sets `found` to what match_rules
// makes of the line from there (nothing for a benign line) and returns true, which ends the
// search; false when no word starts at i. i >= 1, i + 4 < s.size(), s[i - 1] no identifier byte.
bool embedded_at(std::string_view s, std::size_t i, std::optional<StartMarker>& found) {
  // The words by first byte: candidates are common ("skb_", "do_", "kfree") and most
  // first bytes open one word, so a candidate costs one comparison, not sixteen.
  static const std::array<std::vector<std::string_view>, 256> by_first = [] {  // immutable after construction
    std::array<std::vector<std::string_view>, 256> index;
    for (auto e : kEmbeddable) index[static_cast<unsigned char>(e[0])].push_back(e);
    return index;
  }();
  if (s[i - 1] == '-' && s[i] != 'g') return false;  // only "segment-related general protection fault"
  const std::string_view rest = s.substr(i);
  for (auto e : by_first[static_cast<unsigned char>(rest[0])]) {
    if (e[1] == rest[1] && rest.starts_with(e)) {
      found = match_rules(rest);
      return true;
    }
  }
  return false;
}

// "---[ end Kernel panic - not syncing: ... ]---" closes a report, it starts none.
bool never_embeds(std::string_view s) { return scan::starts(s, "---[ end ") || s.size() < 6; }

// Looks for an embeddable start word after the first one, from position `from` of s on
// (from >= 0). Words are tried at word boundaries only, so "DEBUG:" never reads as "BUG:".
std::optional<StartMarker> search_embedded(std::string_view s, std::size_t from) {
  // Both immutable after construction.
  static const WordStartFinder finder = [] {
    std::string firsts;
    for (auto e : kEmbeddable) firsts.push_back(e[0]);
    return WordStartFinder(firsts);
  }();
  // The words' first two bytes, one bit per byte pair: a candidate ("do_", "skb_") is
  // dropped by one lookup when no word starts with its two bytes.
  static const std::bitset<65536> pairs = [] {
    std::bitset<65536> set;
    for (auto e : kEmbeddable) set.set(pair_index(e[0], e[1]));
    return set;
  }();
  std::optional<StartMarker> found;
  if (from + 6 > s.size()) return found;  // no position left before s.size() - 4
  // The finder reports positions >= 1 of the view it is given: the view starts at `from`.
  const std::string_view t = s.substr(from);
  finder.find(t, t.size() - 4, [&](std::size_t j) {
    const std::size_t i = from + j;
    if (!pairs[pair_index(s[i], s[i + 1])]) return false;  // i + 4 < s.size()
    return embedded_at(s, i, found);
  });
  return found;
}

std::optional<StartMarker> match_embedded(std::string_view s) {
  if (never_embeds(s)) return std::nullopt;
  return search_embedded(s, 0);
}

// The same, from the word starts a LineScanner found in `text`, of which s is the tail:
// its positions are text's, and those before s's second byte are not s's to try.
std::optional<StartMarker> match_embedded(std::string_view s, std::string_view text, const LineScan& found_words) {
  if (never_embeds(s)) return std::nullopt;
  const auto off = static_cast<std::size_t>(s.data() - text.data());
  std::optional<StartMarker> found;
  for (std::size_t k = 0; k < found_words.word_count; ++k) {
    if (found_words.words[k] <= off) continue;
    const std::size_t i = found_words.words[k] - off;
    if (i + 4 >= s.size()) return found;  // the positions only grow
    if (embedded_at(s, i, found)) return found;
  }
  if (!found_words.more_words) return found;
  // More starts than the scan kept (a hostile line): the rest are searched for here.
  const std::size_t last = found_words.words[LineScan::kMaxWords - 1];
  return search_embedded(s, last > off ? last - off : 0);
}

// The line without its indentation and subsystem prefixes ("watchdog: "), where start words stand.
std::string_view start_words(std::string_view text) { return markers_detail::start_words_inline(text); }

}  // namespace

namespace markers_detail {

// Made at compile time from the rules (kRulePairs): match_start's test of every line reads it in line.
const std::array<std::uint64_t, 1024> kRulePairBits = kRulePairs;

// From the rules, the subsystem prefixes and match_end_lines' lines, at compile time.
constexpr std::array<std::uint8_t, 256> kRoles = [] {
  std::array<std::uint8_t, 256> roles{};
  for (const Rule& r : kRules) roles[static_cast<unsigned char>(r.prefix[0])] |= kMayStart;
  for (const std::string_view p : kPrefixes) roles[static_cast<unsigned char>(p[0])] |= kMayStart;
  for (const char c : {'-', 'K', 'k'}) roles[static_cast<unsigned char>(c)] |= kMayEnd;
  for (const BootLoaderLine& row : kBootLoaderLines) roles[static_cast<unsigned char>(row.prefix[0])] |= kMayBootLine;
  for (const char c : {'L', 'K'}) roles[static_cast<unsigned char>(c)] |= kMayBootLine;  // Linux version, Kernel Offset
  roles['['] |= kMayBootLine;  // coreboot's level before its banner (boot_loader_line)
  return roles;
}();
const std::array<std::uint8_t, 256> kFirstByteRoles = kRoles;

std::string_view strip_subsystem_prefixes(std::string_view s) {
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
  return s;
}

std::string_view start_words(std::string_view text) { return btaudit::start_words(text); }

bool may_open_rule(std::string_view s) { return opens_rule(s); }

std::optional<StartMarker> match_rules(std::string_view s) { return btaudit::match_rules(s); }

}  // namespace markers_detail

std::span<const std::string_view> embeddable_words() { return kEmbeddable; }

namespace {

// Filesystems that print "WARNING:" inside their own messages: "EXT4-fs (sda1): warning: ...",
// "EXT4-fs warning (device loop0): ...", "XFS (loop4): WARNING: Reset corrupted AGFL ..."
// (fs/ext4/super.c __ext4_msg/__ext4_warning, fs/xfs/xfs_message.c). No report starts there
// (syzkaller's WARNING suppressions, pkg/report/linux.go: `EXT4-[Ff][Ss](?: \(.*\))?:`,
// `XFS \(\w+\): WARNING`). `before` is the line up to the marker.
bool filesystem_message(std::string_view before, const StartMarker& m) {
  if (!m.header.starts_with("WARNING")) return false;
  if (scan::contains(before, "EXT4-fs") || scan::contains(before, "EXT4-FS")) return true;
  const std::size_t xfs = before.rfind("XFS (");
  if (xfs == std::string_view::npos) return false;
  std::string_view rest = before.substr(xfs + 5);
  std::size_t n = 0;
  while (n < rest.size() && scan::is_ident(rest[n])) ++n;
  return n > 0 && rest.substr(n) == "): ";
}

// The last word of `before` (the text before a start word), when it ends in ": ": a runner's
// prefix (a CI job's elapsed time) or indentation may stand before it.
std::string_view last_word(std::string_view before) {
  if (!before.ends_with(": ")) return {};
  const std::size_t space = before.find_last_of(" \t", before.size() - 2);
  return space == std::string_view::npos ? before : before.substr(space + 1);
}

// A kmod tool's message (markers_detail::kKmodTools), in every log of a kernel's
// modules_install or an initramfs build.
bool kmod_tool(std::string_view before) {
  const std::string_view word = last_word(before);
  if (word.size() < 2) return false;
  const std::string_view name = word.substr(0, word.size() - 2);
  return std::find(std::begin(markers_detail::kKmodTools), std::end(markers_detail::kKmodTools), name) !=
         std::end(markers_detail::kKmodTools);
}

// A diagnostic's source location, the GNU convention for a tool's message about a file
// ("Formatting Error Messages", GNU Coding Standards: "sourcefile:lineno:column: message"):
// coccinelle's reports ("drivers/x.c:12:3-9: WARNING: ..."), checkpatch --emacs/--terse
// ("drivers/x.c:12: WARNING: ..."). The line opens (behind its indentation) with a path (a '/' or
// a '.' in it), a line number, and a column or a range of them. The kernel's WARN() and BUG()
// print their location after the start word; its one location before it follows a word: ALSA's
// verbose printk, "ALSA sound/core/pcm_lib.c:154: BUG: stream = 1, ..." (sound/core/misc.c),
// which abrt and telemetrics-client take for a report, and so does btaudit.
bool source_location(std::string_view before) {
  const std::string_view word = scan::trim_left(before);
  if (word.size() < 2 || word.find_first_of(" \t") != word.size() - 1) return false;
  const std::string_view s = word.substr(0, word.size() - 2);
  const auto digits = [](std::string_view t) {
    return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  const std::size_t line_at = s.find(':');
  if (line_at == std::string_view::npos) return false;
  const std::string_view path = s.substr(0, line_at);
  if (path.find_first_of("/.") == std::string_view::npos) return false;
  const std::string_view numbers = s.substr(line_at + 1);  // "line" or "line:column" or "line:col-col"
  const std::size_t column_at = numbers.find(':');
  if (column_at == std::string_view::npos) return digits(numbers);
  const std::string_view column = numbers.substr(column_at + 1);
  const std::size_t dash = column.find('-');
  return digits(numbers.substr(0, column_at)) &&
         (dash == std::string_view::npos ? digits(column)
                                         : digits(column.substr(0, dash)) && digits(column.substr(dash + 1)));
}

// A marker found inside a line whose earlier text says it is no report.
std::optional<StartMarker> unless_suppressed(std::string_view text, std::optional<StartMarker> m) {
  if (!m || m->header.data() <= text.data() || m->header.data() > text.data() + text.size()) return m;
  const std::string_view before = text.substr(0, static_cast<std::size_t>(m->header.data() - text.data()));
  if (filesystem_message(before, *m) || kmod_tool(before) || source_location(before)) return std::nullopt;
  return m;
}

}  // namespace

namespace markers_detail {

std::optional<StartMarker> match_start_from(std::string_view text, std::string_view s, const LineScan& found_words) {
  if (opens_rule(s))
    if (auto m = btaudit::match_rules(s)) return unless_suppressed(text, m);
  // No word start in the line: match_embedded would find nothing to try.
  if (found_words.word_count != 0 || found_words.more_words)
    if (auto m = match_embedded(s, text, found_words)) return unless_suppressed(text, m);
  if (ends_like_die_header(s)) return die_header(s);
  return std::nullopt;
}

namespace {
// parisc's "comm (pid N): message (code N)": the message, or "" without the task and pid.
std::string_view parisc_die_message(std::string_view s) {
  const std::size_t pid = s.find(" (pid ");
  if (pid == std::string_view::npos || pid == 0 || pid > 15) return {};  // TASK_COMM_LEN
  std::size_t close = pid + 6;
  while (close < s.size() && scan::is_digit(s[close])) ++close;
  if (close == pid + 6 || !s.substr(close).starts_with("): ")) return {};
  const std::size_t from = close + 3;
  const std::size_t code = s.rfind(" (code ");
  return code < from ? std::string_view{} : s.substr(from, code - from);
}

// Every die string opens with a letter ("Oops", "Kernel ...", "Unhandled kernel unaligned access").
bool opens_with_letter(std::string_view message) {
  return !message.empty() && ((message[0] >= 'A' && message[0] <= 'Z') || (message[0] >= 'a' && message[0] <= 'z'));
}
}  // namespace

std::optional<StartMarker> die_header(std::string_view s) {
  const bool counter = ends_with_die_counter(s);
  if (!counter && !ends_with_die_code(s)) return std::nullopt;
  if (!counter) {
    const std::string_view message = parisc_die_message(s);
    if (!opens_with_letter(message)) return std::nullopt;
    return StartMarker{ReportKind::Oops, JoinPolicy::FollowUp,
                       s.substr(static_cast<std::size_t>(message.data() - s.data()))};
  }
  // The message: up to the counter's "[#", less the space riscv, csky and sparc print before it.
  std::string_view message = s.substr(0, s.rfind("[#"));
  // sparc's "comm(pid): " before it: a task name of at most 15 bytes (TASK_COMM_LEN), its pid.
  const std::size_t close = message.find("): ");
  if (close != std::string_view::npos && close <= 15 + 1 + 10) {
    const std::size_t open = message.rfind('(', close);
    if (open != std::string_view::npos && open >= 1 && open + 1 < close &&
        std::all_of(message.begin() + static_cast<std::ptrdiff_t>(open + 1),
                    message.begin() + static_cast<std::ptrdiff_t>(close), [](char c) { return scan::is_digit(c); }))
      message.remove_prefix(close + 3);
  }
  if (!message.empty() && message.back() == ' ') message.remove_suffix(1);
  if (!opens_with_letter(message)) return std::nullopt;
  const bool bug = message.starts_with("Kernel BUG") || message.starts_with("Kernel bug");
  // The header from the die string on: the task is the report's comm and pid (the "CPU: ... Comm:"
  // line says it again), as a subsystem prefix is no part of the header.
  return StartMarker{bug ? ReportKind::KernelBug : ReportKind::Oops, JoinPolicy::FollowUp,
                     s.substr(static_cast<std::size_t>(message.data() - s.data()))};
}

}  // namespace markers_detail

// match_rules is called only when the line's first two bytes open a rule (opens_rule):
// no rule can match another line, and the call costs more than the lookup.
std::optional<StartMarker> match_start(std::string_view text) {
  const std::string_view s = start_words(text);
  if (s.empty()) return std::nullopt;
  if (opens_rule(s))
    if (auto m = match_rules(s)) return unless_suppressed(text, m);
  if (auto m = match_embedded(s)) return unless_suppressed(text, m);
  return markers_detail::die_header(s);
}

namespace markers_detail {

EndMarker match_end_lines(std::string_view s) {
  if (scan::starts(s, "---[ end trace")) return EndMarker::EndTrace;
  if (scan::starts(s, "---[ end Kernel panic")) return EndMarker::EndKernelPanic;
  if (scan::starts(s, "Kernel Offset: ")) return EndMarker::KernelOffset;
  // The last line of a kmemleak error; the object dump that follows describes
  // the colliding object, not the failing call.
  if (scan::starts(s, "kmemleak: Kernel memory leak detector disabled")) return EndMarker::EndTrace;
  return EndMarker::None;
}

const BootLoaderLine* boot_loader_line(std::string_view text) {
  // coreboot 4.19+ may open each line with its level, "[%-5s]  " ("[NOTE ]  coreboot-... starting",
  // CONFIG_CONSOLE_USE_LOGLEVEL_PREFIX, src/console/printk.c; KernelCI's Chromebooks print it).
  if (text.size() > 9 && text[0] == '[' && text[6] == ']' && text[7] == ' ' && text[8] == ' ') text.remove_prefix(9);
  if (text.empty()) return nullptr;
  for (const BootLoaderLine& row : kBootLoaderLines)
    if (row.prefix[0] == text[0] && text.starts_with(row.prefix)) return &row;
  return nullptr;
}

}  // namespace markers_detail

}  // namespace btaudit
