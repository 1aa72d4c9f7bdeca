#include "text/report_markers.h"

#include <boost/test/unit_test.hpp>

#include "model_printers.h"

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

BOOST_AUTO_TEST_SUITE_END()
