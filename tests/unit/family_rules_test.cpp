// One test per report family that syzkaller's Linux table (pkg/report/linux.go, report.go) or the
// kernel's own reporters define and that the visible corpora barely exercise: each log is written
// from the rule (the kernel's printk format, syzkaller's title template), not copied from a sample.
// Also the per-boot facts and the line-end classes of the front end.
#include <boost/test/unit_test.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "analysis/analyze_report.h"
#include "analysis/demangle.h"
#include "text/log_parser.h"

using namespace btaudit;

namespace {

std::vector<Report> analyzed(const std::string& log) {
  auto reports = parse_log(log, "t");
  for (Report& r : reports) analyze_report(r);
  return reports;
}

std::string first_title(const std::string& log) {
  const auto reports = analyzed(log);
  return reports.empty() ? "<no report>" : reports[0].title;
}

std::string file(const std::string& rel) {
  std::ifstream in(std::string(BTAUDIT_SOURCE_DIR) + "/" + rel, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(family_rules)

// rust/kernel/lib.rs: pr_emerg!("{}\n", info) prints "panicked at FILE:LINE:COL:" then the
// message; BUG() follows. syzkaller: "%[message] in %[first frame past rust_begin_unwind]".
BOOST_AUTO_TEST_CASE(rust_panic_is_titled_by_its_message_and_first_rust_frame) {
  const std::string log =
      "[   60.0][ T2148] rust_kernel: panicked at rust/kernel/page.rs:60:5:\n"
      "[   60.0][ T2148] attempt to multiply with overflow\n"
      "[   60.1][ T2148] ------------[ cut here ]------------\n"
      "[   60.1][ T2148] kernel BUG at rust/helpers/bug.c:7!\n"
      "[   60.1][ T2148] Oops: invalid opcode: 0000 [#1] PREEMPT SMP KASAN PTI\n"
      "[   60.1][ T2148] RIP: 0010:rust_helper_BUG+0x8/0x10\n"
      "[   60.2][ T2148] Call Trace:\n"
      "[   60.2][ T2148]  <TASK>\n"
      "[   60.2][ T2148]  _RNvCscSpY9Juk0HT_7___rustc17rust_begin_unwind+0x15b/0x160\n"
      "[   60.2][ T2148]  _RNvNtCs1234_4core9panicking5panic+0x10/0x20\n"
      "[   60.2][ T2148]  "
      "_RNvXs1_CsAbc_8mydriverNtB5_6DriverNtNtCsXyz_6kernel10miscdevice10MiscDevice4mmap+0x44/0xfb0\n"
      "[   60.2][ T2148]  __mmap_region+0x10/0x20\n"
      "[   60.2][ T2148]  </TASK>\n";
  const auto reports = analyzed(log);
  BOOST_REQUIRE_EQUAL(reports.size(), 1U);
  BOOST_TEST(reports[0].title ==
             "attempt to multiply with overflow in <mydriver::Driver as kernel::miscdevice::MiscDevice>::mmap");
}

BOOST_AUTO_TEST_CASE(int3_trap_is_named_by_its_crash_site) {  // x86 do_int3 -> die("int3")
  BOOST_TEST(first_title("[  1.0] int3: 0000 [#1] PREEMPT SMP KASAN\n"
                         "[  1.0] CPU: 0 PID: 1 Comm: syz Not tainted 6.1.0 #1\n"
                         "[  1.0] RIP: 0010:bpf_prog_run+0x5/0x10\n"
                         "[  1.1] Call Trace:\n"
                         "[  1.1]  <TASK>\n"
                         "[  1.1]  bpf_test_run+0x1/0x2\n"
                         "[  1.1]  </TASK>\n") == "int3 in bpf_prog_run");
}

BOOST_AUTO_TEST_CASE(boot_banner_alone_is_an_unexpected_reboot) {
  BOOST_TEST(first_title("[  1.0] syz-executor: running\nBooting the kernel.\n") == "unexpected kernel reboot");
  // The same words echoed inside a mount option are not a reboot.
  BOOST_TEST(first_title("[  1.0] fuse: Unknown parameter 'Decompressing Linux... Parsing ELF... done. Booting the "
                         "kernel.'\n") == "<no report>");
}

BOOST_AUTO_TEST_CASE(go_runtime_failures_of_the_fuzzers_programs) {  // report.go commonOopses
  BOOST_TEST(first_title("fatal error: runtime: out of memory\n\ngoroutine 1 [running]:\n") == "go runtime error");
  BOOST_TEST(first_title("fatal error: cannot create timer\n") == "<no report>");
  BOOST_TEST(first_title("panic: runtime error: index out of range [3] with length 3\n") ==
             "panic: runtime error: index out of range [NUM] with length NUM");
}

BOOST_AUTO_TEST_CASE(hung_task_in_io_wait_wording) {  // kernel/hung_task.c, both wordings
  for (std::string words : {"blocked for more than", "blocked in I/O wait for more than"}) {
    BOOST_TEST(first_title("[  1.0] INFO: task syz:123 " + words +
                           " 143 seconds.\n"
                           "[  1.0] Call Trace:\n"
                           "[  1.0]  __schedule+0x1/0x2\n"
                           "[  1.0]  schedule+0x1/0x2\n"
                           "[  1.0]  io_schedule+0x1/0x2\n"
                           "[  1.0]  ext4_sync_file+0x1/0x2\n") == "INFO: task hung in ext4_sync_file");
  }
}

BOOST_AUTO_TEST_CASE(irq_nobody_cared_is_a_report_with_its_trace) {  // kernel/irq/spurious.c
  const auto reports = analyzed(
      "[  445.8] [     C15] irq 26: nobody cared (try booting with the \"irqpoll\" option)\n"
      "[  445.8] [     C15] CPU: 15 PID: 0 Comm: swapper/15 Not tainted 6.8.0 #1\n"
      "[  445.8] [     C15] Call Trace:\n"
      "[  445.8] [     C15]  <IRQ>\n"
      "[  445.8] [     C15]  dump_stack_lvl+0x1/0x2\n"
      "[  445.8] [     C15]  __report_bad_irq+0x1/0x2\n"
      "[  445.8] [     C15]  note_interrupt+0x1/0x2\n"
      "[  445.8] [     C15]  </IRQ>\n"
      "[  445.8] [     C15] handlers:\n"
      "[  445.8] [     C15] Disabling IRQ #26\n");
  BOOST_REQUIRE_EQUAL(reports.size(), 1U);
  BOOST_TEST(reports[0].title == "irq: nobody cared");
  BOOST_TEST(reports[0].frames.size() == 3U);
  BOOST_TEST(analyzed("[  1.0] irq 9: using MSI\n").empty());
}

BOOST_AUTO_TEST_CASE(buffer_head_helper_is_skipped_for_the_file_system) {  // linuxStackParams skip
  BOOST_TEST(first_title("[  1.0] WARNING: CPU: 0 PID: 1 at fs/buffer.c:1 mark_buffer_dirty+0x1/0x2\n"
                         "[  1.0] RIP: 0010:mark_buffer_dirty+0x1/0x2\n"
                         "[  1.0] Call Trace:\n"
                         "[  1.0]  ext4_commit_super+0x1/0x2\n") == "WARNING in ext4_commit_super");
}

BOOST_AUTO_TEST_CASE(demangling_as_titles_show_names) {
  BOOST_TEST(demangle_symbol("_Z8fakeNameiii").value_or("") == "fakeName");
  BOOST_TEST(demangle_symbol("_ZN5Outer5Inner6methodEv").value_or("") == "Outer::Inner::method");
  BOOST_TEST(demangle_symbol("_ZN4core9panicking5panic17h0123456789abcdefE").value_or("") == "core::panicking::panic");
  BOOST_TEST(demangle_symbol("_RNvCscSpY9Juk0HT_7___rustc17rust_begin_unwind").value_or("") ==
             "__rustc::rust_begin_unwind");
  BOOST_TEST(demangle_symbol("_RNvNtCs1234_6kernel5print11call_printk").value_or("") == "kernel::print::call_printk");
  BOOST_TEST(!demangle_symbol("do_syscall_64").has_value());
  BOOST_TEST(!demangle_symbol("_RB9999_").has_value());  // a backref past the symbol: not read
}

// A boot's "Kernel Offset:" (printed once, at the panic) and release hold for every report of
// that boot; a later boot's reports do not inherit them.
BOOST_AUTO_TEST_CASE(boot_facts_apply_to_every_report_of_that_boot) {
  const auto reports = analyzed(
      "[    0.0] Linux version 6.1.0-57-cloud-amd64 (debian-kernel@lists.debian.org)\n"
      "[   10.0] WARNING: CPU: 0 PID: 1 at net/core/dev.c:12 dev_watchdog+0x1/0x2\n"
      "[   10.0] RIP: 0010:dev_watchdog+0x1/0x2\n"
      "[   10.0] Call Trace:\n"
      "[   10.0]  call_timer_fn+0x1/0x2\n"
      "[   10.1] ---[ end trace 0000000000000000 ]---\n"
      "[   20.0] BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
      "[   20.0] RIP: 0010:foo+0x1/0x2\n"
      "[   20.0] Call Trace:\n"
      "[   20.0]  bar+0x1/0x2\n"
      "[   20.1] Kernel panic - not syncing: Fatal exception\n"
      "[   20.1] Kernel Offset: 0x1a000000 from 0xffffffff81000000\n"
      "[    0.0] Linux version 6.2.0 (builder)\n"
      "[    5.0] WARNING: CPU: 0 PID: 1 at net/core/dev.c:12 dev_watchdog+0x1/0x2\n"
      "[    5.0] RIP: 0010:dev_watchdog+0x1/0x2\n"
      "[    5.0] Call Trace:\n"
      "[    5.0]  call_timer_fn+0x1/0x2\n");
  BOOST_REQUIRE_EQUAL(reports.size(), 3U);
  BOOST_TEST(reports[0].kaslr_offset.value_or(0) == 0x1a000000);
  BOOST_TEST(reports[1].kaslr_offset.value_or(0) == 0x1a000000);
  BOOST_TEST(!reports[2].kaslr_offset.has_value());
  BOOST_TEST(reports[0].kernel.value_or("") == "6.1.0-57-cloud-amd64");
  BOOST_TEST(reports[2].kernel.value_or("") == "6.2.0");
}

// Issue 13 class 4: every line terminator is one line end (LF, CRLF, CR alone, mixed, a stray CR).
BOOST_AUTO_TEST_CASE(cr_only_and_mixed_line_ends_read_as_lf) {
  const std::string lf = file("tests/fixtures/line_ends/lf.txt");
  BOOST_REQUIRE(!lf.empty());
  const auto want = analyzed(lf);
  BOOST_REQUIRE(!want.empty());
  for (const char* rel : {"tests/fixtures/line_ends/cronly.txt", "tests/fixtures/line_ends/mixed_eol.txt"}) {
    const auto got = analyzed(file(rel));
    BOOST_TEST_CONTEXT(rel) {
      BOOST_REQUIRE_EQUAL(got.size(), want.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        BOOST_TEST(got[i].title == want[i].title);
        BOOST_TEST(got[i].corrupted == want[i].corrupted);
        BOOST_REQUIRE_EQUAL(got[i].frames.size(), want[i].frames.size());
        for (std::size_t k = 0; k < got[i].frames.size(); ++k)
          BOOST_TEST(got[i].frames[k].function.value_or("") == want[i].frames[k].function.value_or(""));
      }
    }
  }
  // Generated: the LF log with each terminator swapped for CR, CRLF, LFCR-free mixes.
  std::string cr = lf, crlf;
  for (char& c : cr)
    if (c == '\n') c = '\r';
  for (char c : lf) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  for (const std::string& v : {cr, crlf}) {
    const auto got = analyzed(v);
    BOOST_REQUIRE_EQUAL(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) BOOST_TEST(got[i].frames.size() == want[i].frames.size());
  }
}

// A shipper that turns printk's padding into a tab and drops the separator (issue 11's class):
// the header, its crash site and its frames are read as on a plain console.
BOOST_AUTO_TEST_CASE(tab_inside_the_timestamp_and_no_separator) {
  const auto reports = analyzed(
      "<4>[\t68764.975944]------------[ cut here ]------------\n"
      "<4>[\t68764.975944]WARNING: CPU: 1 PID: 796 at net/core/dev.c:5281 dev_watchdog+0x24f/0x260\n"
      "<4>[\t68764.975960]RIP: 0010:dev_watchdog+0x24f/0x260\n"
      "<4>[\t68764.975970]Call Trace:\n"
      "<4>[\t68764.975971] <IRQ>\n"
      "<4>[\t68764.975972] ? __warn+0x81/0x130\n"
      "<4>[\t68764.975973] call_timer_fn+0x24/0x140\n"
      "<4>[\t68764.975975] </IRQ>\n");
  BOOST_REQUIRE_EQUAL(reports.size(), 1U);
  BOOST_TEST(reports[0].title == "WARNING in dev_watchdog");
  BOOST_TEST(reports[0].frames.size() == 2U);
  BOOST_TEST(!reports[0].corrupted);
}

// 2.6.2x frames printed as "[func+dec/dec]" then the %pS form (format_table.h): a trace, and
// the title's function read from it.
BOOST_AUTO_TEST_CASE(symbol_bracket_trace_of_2_6_2x) {
  const auto reports = analyzed(
      "[  100.000001] WARNING: at fs/ext4/inode.c:123 ext4_da_writepages+0x1a/0x2b()\n"
      "[  100.000003] Call Trace:\n"
      "[  100.000004]  [warn_slowpath_common+135/192] ? warn_slowpath_common+0x87/0xc0\n"
      "[  100.000006]  [ext4_da_writepages+631/1568] ext4_da_writepages+0x277/0x620\n"
      "[  100.000007]  [do_writepages+33/64] do_writepages+0x21/0x40\n");
  BOOST_REQUIRE_EQUAL(reports.size(), 1U);
  BOOST_TEST(reports[0].frames.size() == 3U);
  BOOST_TEST(reports[0].title == "WARNING in ext4_da_writepages");
}

// Two CPUs' reports printed at once (caller ids tell their lines apart): each keeps its own
// frames and title, and neither is corrupted by the other.
BOOST_AUTO_TEST_CASE(interleaved_reports_of_two_cpus_keep_their_identity) {
  const auto reports = analyzed(
      "[   10.000000][    C0] BUG: KASAN: use-after-free in foo_read+0x10/0x20\n"
      "[   10.000001][    C1] ------------[ cut here ]------------\n"
      "[   10.000002][    C0] Read of size 8 at addr ffff888012345678 by task syz/100\n"
      "[   10.000003][    C1] WARNING: CPU: 1 PID: 200 at net/core/sock.c:10 sk_free+0x1/0x2\n"
      "[   10.000004][    C0] Call Trace:\n"
      "[   10.000005][    C1] RIP: 0010:sk_free+0x1/0x2\n"
      "[   10.000006][    C0]  <TASK>\n"
      "[   10.000007][    C1] Call Trace:\n"
      "[   10.000008][    C0]  dump_stack_lvl+0x1/0x2\n"
      "[   10.000009][    C1]  <TASK>\n"
      "[   10.000010][    C0]  kasan_report+0x1/0x2\n"
      "[   10.000011][    C1]  tcp_close+0x1/0x2\n"
      "[   10.000012][    C0]  foo_read+0x10/0x20\n"
      "[   10.000013][    C1]  </TASK>\n"
      "[   10.000014][    C0]  vfs_read+0x1/0x2\n"
      "[   10.000015][    C0]  </TASK>\n");
  BOOST_REQUIRE_EQUAL(reports.size(), 2U);
  BOOST_TEST(reports[0].title == "KASAN: use-after-free Read in foo_read");
  BOOST_TEST(reports[0].frames.size() == 4U);
  BOOST_TEST(!reports[0].corrupted);
  BOOST_TEST(reports[1].title == "WARNING in sk_free");
  BOOST_TEST(reports[1].frames.size() == 1U);
  BOOST_TEST(!reports[1].corrupted);
}

// A clean refcount WARN is titled by its first frame past the refcount helpers, not "corrupted";
// a WARN cut before its trace names no function.
BOOST_AUTO_TEST_CASE(refcount_warn_clean_and_truncated_warn) {
  BOOST_TEST(first_title("[   50.1][ T3000] refcount_t: underflow; use-after-free.\n"
                         "[   50.1][ T3000] WARNING: CPU: 0 PID: 3000 at lib/refcount.c:28 "
                         "refcount_warn_saturate+0x1ae/0x1f0\n"
                         "[   50.1][ T3000] RIP: 0010:refcount_warn_saturate+0x1ae/0x1f0\n"
                         "[   50.1][ T3000] Call Trace:\n"
                         "[   50.1][ T3000]  <TASK>\n"
                         "[   50.1][ T3000]  ? __warn+0x163/0x4e0\n"
                         "[   50.1][ T3000]  sock_put+0x5c/0x70\n"
                         "[   50.1][ T3000]  tcp_v4_rcv+0x1b2/0x3a0\n"
                         "[   50.1][ T3000]  </TASK>\n") == "WARNING: refcount bug in sock_put");
  const auto cut = analyzed(
      "[   50.1] WARNING: CPU: 0 PID: 3000 at net/ipv4/tcp.c:28 tcp_close+0x1ae/0x1f0\n"
      "[   50.1] Modules linked in:\n");
  BOOST_REQUIRE_EQUAL(cut.size(), 1U);
  BOOST_TEST(cut[0].title == "WARNING in corrupted");
  BOOST_TEST(cut[0].corrupted);
}

BOOST_AUTO_TEST_SUITE_END()
