#include "text/report_markers.h"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "model_printers.h"
#include "text/scan.h"

using namespace btaudit;

BOOST_AUTO_TEST_SUITE(report_markers)

BOOST_AUTO_TEST_CASE(matches_headers_at_line_start_with_their_kind) {
  auto m = match_start("BUG: KASAN: use-after-free in consume_skb+0x3b/0x2f0");
  BOOST_REQUIRE(m);
  BOOST_TEST(m->kind == ReportKind::Kasan);
  BOOST_TEST((m->join == JoinPolicy::Standalone));
  auto w =
      match_start("WARNING: CPU: 1 PID: 6694 at net/bridge/netfilter/ebtables.c:2063 compat_copy_entries+0xd9/0x1a0");
  BOOST_REQUIRE(w);
  BOOST_TEST(w->kind == ReportKind::Warning);
  BOOST_TEST(!match_start("systemd[1]: Started Journal Service."));
}

BOOST_AUTO_TEST_CASE(finds_a_header_glued_behind_another_line) {
  // Another CPU's unterminated line, then the header with its own timestamp.
  auto m = match_start(
      "syz-executor7: vmalloc: allocation failure: 34359738352 bytes[   76.471107] BUG: unable to handle "
      "kernel paging request at ffffffffa4493138");
  BOOST_REQUIRE(m);
  BOOST_TEST(m->kind == ReportKind::PageFault);
  BOOST_TEST(m->header.starts_with("BUG: unable to handle kernel paging request"));
}

BOOST_AUTO_TEST_CASE(finds_old_lockdep_banners_in_brackets) {
  auto m = match_start("[ BUG: bad unlock balance detected! ]");
  BOOST_REQUIRE(m);
  BOOST_TEST(m->header.starts_with("BUG: bad unlock balance detected!"));
  BOOST_TEST(match_start("[ INFO: possible irq lock inversion dependency detected ]").has_value());
}

BOOST_AUTO_TEST_CASE(words_inside_other_words_do_not_start_reports) {
  BOOST_TEST(!match_start("ODEBUG: free active (active state 0) object type: work_struct"));
  BOOST_TEST(!match_start("usb 1-1: DEBUG: endpoint 2 stalled"));
}

BOOST_AUTO_TEST_CASE(segment_related_gpf_is_a_report) {
  auto m = match_start("segment-related general protection fault: beec [#2] PREEMPT SMP KASAN PTI");
  BOOST_REQUIRE(m);
  BOOST_TEST(m->kind == ReportKind::GeneralProtectionFault);
}

BOOST_AUTO_TEST_CASE(benign_messages_that_borrow_report_words) {
  BOOST_TEST(!match_start("WARNING: The mand mount option has been deprecated and"));
  BOOST_TEST(!match_start("WARNING: fbcon: Driver 'vkmsdrmfb' missed to adjust virtual screen size (0x0 vs. 128x16)"));
  BOOST_TEST(
      !match_start("WARNING: `SYZ.1.261' USES WIRELESS EXTENSIONS WHICH WILL STOP WORKING FOR WI-FI 7 HARDWARE"));
  BOOST_TEST(!match_start("INFO: lockdep is turned off."));
  BOOST_TEST(!match_start("INFO: NMI handler (perf_event_nmi_handler) took too long to run: 1.234 msecs"));
  BOOST_TEST(!match_start("Oops: efitime: can't read time!"));
  BOOST_TEST(!match_start("INFO: Generating a skipfile based on /lava-1436678/0/tests/skipfile"));
  BOOST_TEST(match_start("Oops: 0000 [#1] SMP").has_value());
}

BOOST_AUTO_TEST_CASE(a_bare_info_line_is_a_header_cut_short) {
  auto m = match_start("INFO:");
  BOOST_REQUIRE(m);
  BOOST_TEST((m->join == JoinPolicy::FollowUp));
}

BOOST_AUTO_TEST_CASE(slub_history_lines_continue_an_open_report) {
  auto m = match_start("INFO: Freed in fasync_free_rcu+0x14/0x20 age=624 cpu=0 pid=3");
  BOOST_REQUIRE(m);
  BOOST_TEST((m->join == JoinPolicy::Continuation));
  auto b = match_start("BUG kmalloc-8 (Tainted: G    B         ): Object already free");
  BOOST_REQUIRE(b);
  BOOST_TEST((b->join == JoinPolicy::Standalone));
}

BOOST_AUTO_TEST_CASE(messages_printed_before_their_warning_are_banners) {
  auto r = match_start("refcount_t: increment on 0; use-after-free.");
  BOOST_REQUIRE(r);
  BOOST_TEST((r->join == JoinPolicy::Soft));
  auto l = match_start("list_del corruption. prev->next should be ffff880014bfe018, but was 2f30363030617369");
  BOOST_REQUIRE(l);
  BOOST_TEST((l->join == JoinPolicy::Soft));
}

BOOST_AUTO_TEST_CASE(end_of_panic_line_starts_nothing) {
  BOOST_TEST(!match_start("---[ end Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000009 ]---"));
  BOOST_TEST((match_end("---[ end Kernel panic - not syncing: Fatal exception ]---") == EndMarker::EndKernelPanic));
}

BOOST_AUTO_TEST_CASE(assertions_without_warn_banner) {
  BOOST_TEST(match_start("RTNL: assertion failed at drivers/net/bonding/bond_main.c (4048)").has_value());
  BOOST_TEST(
      match_start("sysctl table check failed: net/netfilter/nf_conntrack_max .3.19.1 Missing strategy").has_value());
}

BOOST_AUTO_TEST_CASE(consequential_panics) {
  BOOST_TEST(is_consequential_panic("Kernel panic - not syncing: Fatal exception"));
  BOOST_TEST(!is_consequential_panic("Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)"));
}

// The shortcuts of match_start against the code they replaced, on generated lines: report
// words, the benign messages, their pieces cut short, case changed, and random bytes.
namespace {

// is_benign_start as it was before it dispatched by first byte (the reference).
bool reference_contains_nocase(std::string_view s, std::string_view lower_needle) {
  if (lower_needle.size() > s.size()) return false;
  for (std::size_t i = 0; i + lower_needle.size() <= s.size(); ++i) {
    std::size_t k = 0;
    while (k < lower_needle.size() && (s[i + k] | 0x20) == lower_needle[k]) ++k;
    if (k == lower_needle.size()) return true;
  }
  return false;
}

bool reference_is_benign_start(std::string_view s) {
  constexpr std::string_view kBenignPrefixes[] = {
      "INFO: lockdep is turned off",
      "INFO: Stall ended before state dump start",
      "INFO: NMI handler",
      "INFO: recovery required on readonly filesystem",
      "INFO: no syscalls can create resource",
      "INFO: sys_",
      "BUG: no syscalls can create resource",
      "WARNING: /etc/ssh/moduli does not exist",
      "WARNING: workqueue cpumask: online intersect > possible intersect",
      "WARNING: The mand mount option",
      "WARNING: the mand mount option",
      "WARNING: Unsupported flag value",
      "WARNING: Unprivileged eBPF is enabled",
      "WARNING: fbcon: Driver '",
      "WARNING: See https",
      "WARNING: kernel not compiled with CPU_SRSO",
  };
  for (auto p : kBenignPrefixes)
    if (s.starts_with(p)) return true;
  if (s.starts_with("irq ")) {
    std::string_view t = s.substr(4);
    while (!t.empty() && t[0] >= '0' && t[0] <= '9') t.remove_prefix(1);
    return !t.starts_with(": nobody cared");
  }
  if (s.starts_with("Booting the kernel"))
    return scan::contains(s, "Parsing ELF") || scan::contains(s, "Decompressing Linux") ||
           scan::contains(s, "Unknown parameter '");
  if (s.starts_with("fatal error: "))
    return scan::contains(s, "ALSA") || s.starts_with("fatal error: cannot create timer");
  if (s.starts_with("INFO:") && !scan::trim(s.substr(5)).empty()) {
    constexpr std::string_view kInfoReports[] = {"INFO: possible ",
                                                 "INFO: inconsistent lock state",
                                                 "INFO: trying to register non-static key",
                                                 "INFO: suspicious RCU usage",
                                                 "INFO: SOFTIRQ-safe",
                                                 "INFO: task ",
                                                 "INFO: rcu",
                                                 "INFO: Freed in ",
                                                 "INFO: Allocated in ",
                                                 "INFO: Slab 0x",
                                                 "INFO: Object 0x"};
    bool known = false;
    for (auto k : kInfoReports) known = known || s.starts_with(k);
    if (!known) return true;
  }
  if (s.starts_with("Oops: ") && !scan::contains(s, "[#")) return true;
  if (s.starts_with("INFO: ") && scan::contains(s, " took too long")) return true;
  if (s.starts_with("WARNING: ") && (reference_contains_nocase(s, " uses wireless extensions") ||
                                     reference_contains_nocase(s, " uses deprecated v2 capabilities")))
    return true;
  return false;
}

// start_words as it was before its first-byte test.
std::string_view reference_start_words(std::string_view text) {
  constexpr std::string_view kPrefixes[] = {"watchdog: ", "NMI watchdog: ", "rcu: ", "kernel: "};
  std::string_view s = scan::trim_left(text);
  for (int i = 0; i < 2 && !s.empty(); ++i) {
    bool stripped = false;
    for (auto p : kPrefixes) {
      if (s.size() > p.size() && s[0] == p[0] && scan::consume(s, p)) {
        stripped = true;
        break;
      }
    }
    if (!stripped) break;
  }
  return s;
}

// Lines made of pieces that the rules, the benign checks and the prefixes look for.
class LineMaker {
 public:
  explicit LineMaker(unsigned seed) : rng_(seed) {}
  std::string next() {
    static const std::vector<std::string> kPieces = {
        "INFO:",
        "INFO: ",
        "INFO: lockdep is turned off",
        "INFO: Stall ended before state dump start",
        "INFO: NMI handler",
        "INFO: recovery required on readonly filesystem",
        "INFO: sys_",
        "INFO: task ",
        "INFO: rcu",
        "INFO: possible ",
        "INFO: Slab 0x",
        "INFO: Object 0x",
        "INFO: Freed in ",
        "INFO: SOFTIRQ-safe",
        "INFO: no syscalls can create resource",
        "BUG: no syscalls can create resource",
        "BUG: ",
        "BUG:",
        "BUG: KASAN: ",
        "Booting the kernel",
        "Parsing ELF",
        "Decompressing Linux",
        "Unknown parameter '",
        "WARNING: ",
        "WARNING:",
        "WARNING: /etc/ssh/moduli does not exist",
        "WARNING: The mand mount option",
        "WARNING: the mand mount option",
        "WARNING: Unsupported flag value",
        "WARNING: Unprivileged eBPF is enabled",
        "WARNING: fbcon: Driver '",
        "WARNING: See https",
        "WARNING: kernel not compiled with CPU_SRSO",
        "WARNING: workqueue cpumask: online intersect > possible intersect",
        " uses wireless extensions",
        " USES WIRELESS EXTENSIONS",
        " uses deprecated v2 capabilities",
        " uses ",
        " USES ",
        " took too long",
        "irq ",
        "16",
        ": nobody cared",
        "fatal error: ",
        "fatal error: cannot create timer",
        "ALSA",
        "Oops: ",
        "Oops[#",
        "[#1]",
        "[#",
        "watchdog: ",
        "NMI watchdog: ",
        "rcu: ",
        "kernel: ",
        "kernel BUG at ",
        "Kernel panic - not syncing: ",
        "general protection fault",
        "do_syscall_64+0x3b/0x90",
        "__x64_sys_ioctl",
        "RIP: 0010:foo+0x1/0x2",
        "RTNL: assertion failed",
        "list_del corruption",
        "unreferenced object 0x",
        "====================",
        "------------[ cut here ]------------",
        "panic: ",
        "SYZFAIL:",
        " ",
        "  ",
        "\t",
        "x",
        "w",
        "N",
        "r",
        "k",
        "I",
        "W",
        "B",
        "i",
        "f",
        "O",
        "v2",
        std::string(1, '\0'),
        std::string(1, '\x12'),
        "\xff",
        "rust_kernel: panicked",
        "int3: ",
        "stack segment: ",
        "trusty: panic"};
    std::string line;
    const int pieces = 1 + static_cast<int>(rng_() % 4);
    for (int i = 0; i < pieces; ++i) {
      std::string piece = kPieces[rng_() % kPieces.size()];
      if (rng_() % 4 == 0) piece.resize(rng_() % (piece.size() + 1));  // cut short
      line += piece;
    }
    if (rng_() % 8 == 0) {  // flip the case of one byte, or put a random one in
      const std::size_t at = line.empty() ? 0 : rng_() % line.size();
      if (!line.empty()) line[at] = rng_() % 2 ? static_cast<char>(line[at] ^ 0x20) : static_cast<char>(rng_());
    }
    return line;
  }

 private:
  std::mt19937 rng_;
};

}  // namespace

BOOST_AUTO_TEST_CASE(benign_start_by_first_byte_decides_as_every_check_in_turn) {
  LineMaker make(14);
  int benign = 0;
  for (int i = 0; i < 300000; ++i) {
    const std::string line = make.next();
    const bool want = reference_is_benign_start(line);
    benign += want ? 1 : 0;
    BOOST_TEST_REQUIRE(markers_detail::is_benign_start(line) == want, line);
  }
  BOOST_TEST(benign > 1000);  // both answers are made often
  BOOST_TEST(benign < 299000);
}

BOOST_AUTO_TEST_CASE(start_words_first_byte_test_strips_as_before) {
  LineMaker make(15);
  for (int i = 0; i < 300000; ++i) {
    const std::string line = make.next();
    const std::string_view got = markers_detail::start_words(line);
    const std::string_view want = reference_start_words(line);
    BOOST_TEST_REQUIRE((got.data() == want.data() && got.size() == want.size()), line);
  }
}

BOOST_AUTO_TEST_CASE(lines_that_open_no_rule_by_their_first_two_bytes_match_none) {
  LineMaker make(16);
  int skipped = 0;
  for (int i = 0; i < 300000; ++i) {
    const std::string line = make.next();
    if (line.empty() || markers_detail::may_open_rule(line)) continue;
    ++skipped;
    BOOST_TEST_REQUIRE(!markers_detail::match_rules(line).has_value(), line);
  }
  // Every two bytes, after a byte that opens a rule and after one that opens none.
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      for (const std::string_view tail : {"", "UG: KASAN: x", "NFO: task x", "ARNING: x", "rq 1: nobody cared"}) {
        std::string line{static_cast<char>(a), static_cast<char>(b)};
        line += tail;
        if (markers_detail::may_open_rule(line)) continue;
        BOOST_TEST_REQUIRE(!markers_detail::match_rules(line).has_value(), line);
      }
    }
  }
  BOOST_TEST(skipped > 1000);  // the generator makes lines the shortcut is for
}

// match_start with a LineScanner's word starts returns early for a line with none (most lines);
// it must say what the search of the whole line (the overload without a scan) says.
BOOST_AUTO_TEST_CASE(scanned_lines_without_word_starts_match_as_searched_ones) {
  const LineScanner scanner(embeddable_words(), {});
  LineMaker make(17);
  int without_words = 0;
  for (int i = 0; i < 300000; ++i) {
    std::string line = make.next();
    if (i % 2 == 0) line = " do_syscall_64+0x3b/0x90 " + line;  // word starts after the line's first bytes
    const LineScan scan = scanner.scan(line);
    without_words += scan.word_count == 0 && !scan.more_words ? 1 : 0;
    const auto got = match_start(line, scan);
    const auto want = match_start(line);
    BOOST_TEST_REQUIRE(got.has_value() == want.has_value(), line);
    if (want) {
      BOOST_TEST_REQUIRE((got->kind == want->kind && got->join == want->join), line);
      BOOST_TEST_REQUIRE((got->header.data() == want->header.data() && got->header.size() == want->header.size()),
                         line);
    }
  }
  BOOST_TEST(without_words > 10000);
  BOOST_TEST(without_words < 290000);
}

namespace {

// match_end before its first-byte test: the trim, then each end line's prefix in turn.
EndMarker reference_match_end(std::string_view text) {
  const std::string_view s = scan::trim_left(text);
  if (s.starts_with("---[ end trace")) return EndMarker::EndTrace;
  if (s.starts_with("---[ end Kernel panic")) return EndMarker::EndKernelPanic;
  if (s.starts_with("Kernel Offset: ")) return EndMarker::KernelOffset;
  if (s.starts_with("kmemleak: Kernel memory leak detector disabled")) return EndMarker::EndTrace;
  return EndMarker::None;
}

}  // namespace

// match_end answers most lines from their first byte; it must answer every line as the trim and
// compares did: each end line and its cuts behind every mix of indentation bytes (and '\n',
// which is none), then every first byte before each of them, then the generator's lines.
BOOST_AUTO_TEST_CASE(end_lines_by_first_byte_match_as_before) {
  const std::vector<std::string> ends = {"---[ end trace 0000000000000000 ]---",
                                         "---[ end Kernel panic - not syncing: Fatal exception ]---",
                                         "Kernel Offset: 0x1000000 from 0xffffffff81000000",
                                         "kmemleak: Kernel memory leak detector disabled",
                                         "kernel BUG at x",
                                         "-",
                                         "K"};
  std::vector<std::string> lines = {""};
  const std::string pads[] = {"", " ", "\t", "\r", "\f", "\v", "\n", "  ", " \t", "\t\v ", "x"};
  for (const std::string& e : ends)
    for (std::size_t cut = 0; cut <= e.size(); ++cut)
      for (const std::string& p : pads) lines.push_back(p + e.substr(0, cut));
  for (int c = 0; c < 256; ++c)
    for (const std::string& e : ends) {
      lines.push_back(std::string(1, static_cast<char>(c)) + e);
      lines.push_back(std::string(1, static_cast<char>(c)) + e.substr(1));
    }
  LineMaker make(18);
  for (int i = 0; i < 100000; ++i) lines.push_back(make.next());
  int ends_found = 0;
  for (const std::string& line : lines) {
    const EndMarker want = reference_match_end(line);
    ends_found += want != EndMarker::None ? 1 : 0;
    BOOST_TEST_REQUIRE((match_end(line) == want), line);
  }
  BOOST_TEST(ends_found > 100);
}

// The parser asks match_start and match_end only what a line's first byte (first_byte_roles) and
// its scan leave open: a line whose first byte after the indentation has no kMayStart and whose
// scan found no word start must match no start, one without kMayEnd no end, one without
// kMayBootLine no line of a boot. Every first byte
// before every rule's prefix and end line (and their cuts), behind indentation or none, and the
// generator's lines.
BOOST_AUTO_TEST_CASE(first_byte_roles_skip_only_lines_that_match_nothing) {
  const LineScanner scanner(embeddable_words(), {});
  std::vector<std::string> tails = {"",
                                    "---[ end trace 0 ]---",
                                    "Kernel Offset: 0x1",
                                    "kmemleak: Kernel memory leak detector disabled",
                                    "watchdog: BUG: soft lockup - CPU#0 stuck",
                                    "NMI watchdog: Watchdog detected hard LOCKUP on cpu 1",
                                    "rcu: INFO: rcu_sched self-detected stall",
                                    "kernel: BUG: x",
                                    "BUG: KASAN: use-after-free in f",
                                    "INFO: task x:1 blocked",
                                    "general protection fault: 0000 [#1]",
                                    "====================",
                                    "------------[ cut here ]------------",
                                    "Unable to handle kernel paging request",
                                    "irq 16: nobody cared",
                                    "[ INFO: possible recursive locking detected ]",
                                    "x BUG: y"};
  for (const auto& row : markers_detail::kBootLoaderLines) tails.emplace_back(row.example);
  std::vector<std::string> lines;
  const std::string pads[] = {"", " ", "\t", "  "};
  for (const std::string& t : tails)
    for (std::size_t cut = 0; cut <= t.size(); cut += 1 + cut / 8)
      for (int c = 0; c < 256; ++c)
        for (const std::string& p : pads) {
          lines.push_back(p + std::string(1, static_cast<char>(c)) + t.substr(0, cut));
          lines.push_back(p + std::string(1, static_cast<char>(c)) + t.substr(std::min<std::size_t>(1, cut), cut));
        }
  LineMaker make(19);
  for (int i = 0; i < 100000; ++i) lines.push_back(make.next());
  int skipped = 0;
  for (const std::string& line : lines) {
    const std::uint8_t roles = first_byte_roles(scan::trim_left(line));
    const LineScan seen = scanner.scan(line);
    // The parser's test (log_parser.cpp, route): die()'s counter at the end is a third way in.
    if (!(roles & markers_detail::kMayStart) && seen.word_count == 0 && !seen.more_words &&
        !markers_detail::ends_like_die_header(scan::trim_left(line))) {
      ++skipped;
      BOOST_TEST_REQUIRE(!match_start(line).has_value(), line);
    }
    if (!(roles & markers_detail::kMayEnd)) BOOST_TEST_REQUIRE((match_end(line) == EndMarker::None), line);
    if (!(roles & markers_detail::kMayBootLine)) {
      const std::string_view t = scan::trim_left(line);
      BOOST_TEST_REQUIRE(!markers_detail::boot_loader_line(t), line);
      BOOST_TEST_REQUIRE(!(t.starts_with("Linux version ") || t.starts_with("Kernel Offset: ")), line);
    }
  }
  BOOST_TEST(skipped > 100000);
}

BOOST_AUTO_TEST_SUITE_END()
