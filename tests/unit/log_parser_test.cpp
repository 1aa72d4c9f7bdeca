#include "text/log_parser.h"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "model_printers.h"

using namespace btaudit;

namespace {

// A report's console lines as one text, joined by '\n'.
std::string joined(const Report& r) {
  std::string out;
  for (std::size_t i = 0; i < r.text.size(); ++i) {
    if (i > 0) out.push_back('\n');
    out.append(r.text[i]);
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(log_parser)

BOOST_AUTO_TEST_CASE(refcount_message_belongs_to_the_warning_after_it) {
  const auto reports = parse_log(
      "[   10.000000] ------------[ cut here ]------------\n"
      "[   10.000001] refcount_t: increment on 0; use-after-free.\n"
      "[   10.000002] WARNING: CPU: 1 PID: 7 at lib/refcount.c:25 refcount_warn_saturate+0x13d/0x1a0\n"
      "[   10.000003] Call Trace:\n"
      "[   10.000004]  cdev_get+0x9a/0x110\n",
      "t");
  BOOST_REQUIRE_EQUAL(reports.size(), 1u);
  BOOST_TEST(reports[0].kind == ReportKind::Warning);
  BOOST_TEST(reports[0].input.first_line == 2u);  // the message is the report's first line
}

BOOST_AUTO_TEST_CASE(kmemleak_object_joins_its_bug_line) {
  const auto reports = parse_log(
      "BUG: memory leak\n"
      "unreferenced object 0xffff88810b5d1d00 (size 32):\n"
      "  comm \"syz-executor\", pid 7, jiffies 4294944870 (age 13.860s)\n"
      "  backtrace:\n"
      "    [<ffffffff8155c4b2>] kmalloc include/linux/slab.h:552 [inline]\n",
      "t");
  BOOST_REQUIRE_EQUAL(reports.size(), 1u);
  BOOST_TEST(reports[0].header == "BUG: memory leak");
}

BOOST_AUTO_TEST_CASE(hard_lockup_message_of_an_old_warning_is_one_report) {
  const auto reports = parse_log(
      "WARNING: at kernel/watchdog.c:245 watchdog_overflow_callback+0x9c/0xd0()\n"
      "Hardware name: Bochs\n"
      "Watchdog detected hard LOCKUP on cpu 0\n"
      "Pid: 0, comm: swapper/0 Not tainted 3.8.9-200.fc18.x86_64 #1\n"
      "Call Trace:\n"
      " <NMI>  [<ffffffff8105f76f>] warn_slowpath_common+0x7f/0xc0\n",
      "t");
  BOOST_REQUIRE_EQUAL(reports.size(), 1u);
  BOOST_TEST(reports[0].kind == ReportKind::Warning);
}

BOOST_AUTO_TEST_CASE(keeps_the_reports_console_lines_for_title_rules) {
  const auto reports = parse_log(
      "[    1.000000] unrelated boot line\n"
      "[    2.000000] BUG: soft lockup - CPU#0 stuck for 22s! [syz:1]\n"
      "[    2.000001] RIP: 0010:foo+0x1/0x2\n",
      "t");
  BOOST_REQUIRE_EQUAL(reports.size(), 1u);
  BOOST_TEST(joined(reports[0]) == "BUG: soft lockup - CPU#0 stuck for 22s! [syz:1]\nRIP: 0010:foo+0x1/0x2");
}

BOOST_AUTO_TEST_CASE(unreliable_frames_are_left_out_of_timestamped_text) {
  const auto reports = parse_log(
      "[    2.000000] WARNING: CPU: 0 PID: 1 at a.c:1 foo+0x1/0x2\n"
      "[    2.000001]  ? __warn+0x1/0x2\n"
      "[    2.000002]  bar+0x1/0x2\n",
      "t");
  BOOST_REQUIRE_EQUAL(reports.size(), 1u);
  BOOST_TEST(joined(reports[0]).find("__warn") == std::string::npos);
  BOOST_TEST(joined(reports[0]).find(" bar+0x1/0x2") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_following_double_fault_does_not_cut_the_text) {
  // syzkaller lets "PANIC: double fault" follow a report: the first report's text goes on.
  const auto reports = parse_log(
      "[    1.0] BUG: unable to handle kernel paging request at 000000fe840fc4b9\n"
      "[    1.1] PANIC: double fault, error_code: 0x0\n"
      "[    1.2] RIP: 0010:lookup_object+0x11/0x80\n",
      "t");
  BOOST_REQUIRE_EQUAL(reports.size(), 2u);
  BOOST_TEST(joined(reports[0]).find("RIP: 0010:lookup_object") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(another_report_cuts_a_console_reports_text) {
  const auto reports = parse_log(
      "[    1.0] PANIC: double fault, error_code: 0x0\n"
      "[    1.1] BUG: unable to handle kernel paging request at ffff888216edd110\n"
      "[    1.2] RIP: 0010:__udp6_lib_lookup+0x10e/0x3e0\n",
      "t");
  BOOST_REQUIRE_EQUAL(reports.size(), 2u);
  BOOST_TEST(joined(reports[0]).find("RIP:") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(allocation_failure_stack_ends_a_console_reports_text) {
  const auto reports = parse_log(
      "[    1.0] WARNING: CPU: 1 PID: 1 at lib/debugobjects.c:291 debug_print_object+0x166/0x220\n"
      "[    1.1] syz-executor3: vmalloc: allocation failure: 0 bytes, mode:0x14000c0(GFP_KERNEL)\n"
      "[    1.2] RIP: 0010:debug_print_object+0x166/0x220\n",
      "t");
  BOOST_REQUIRE_GE(reports.size(), 1u);
  BOOST_TEST(joined(reports[0]).find("RIP:") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(user_space_echo_does_not_split_a_task_context_report) {
  const auto reports = parse_log(
      "[  554.8][T11919] WARNING: CPU: 0 PID: 11919 at kernel/rcu/srcutree.c:653 cleanup_srcu_struct+0x37c/0x520\n"
      "2024/06/11 12:53:40 SYZFATAL: failed to recv *flatrpc.HostMessageRaw: EOF\n"
      "[  555.0][T11919] Call Trace:\n"
      "[  555.1][T11919]  kvm_put_kvm+0x8df/0xb80\n",
      "t");
  BOOST_REQUIRE_EQUAL(reports.size(), 1u);
  BOOST_TEST(reports[0].frames.size() == 1u);
}

BOOST_AUTO_TEST_CASE(slub_history_stays_in_its_report) {
  const auto reports = parse_log(
      "BUG kmalloc-64 (Not tainted): Poison overwritten\n"
      "INFO: Allocated in hotkey_init+0x1/0x2 age=14 cpu=1 pid=1333\n"
      " __slab_alloc+0x1/0x2\n"
      "INFO: Freed in hotkey_exit+0x50/0xb0 [thinkpad_acpi] age=14 cpu=1 pid=1333\n"
      "INFO: Slab 0xf4d5ea20 objects=17 used=17 fp=0x  (null) flags=0x40000080\n",
      "t");
  BOOST_TEST(reports.size() == 1u);
}

BOOST_AUTO_TEST_CASE(swapped_kernel_bug_and_invalid_opcode_are_one_report) {
  const auto reports = parse_log(
      "invalid opcode: 0000 [#1] SMP PTI\n"
      "kernel BUG at arch/x86/kvm/mmu/mmu.c:3722!\n"
      "Call Trace:\n"
      " kvm_mmu_page_fault+0x1/0x2\n",
      "t");
  BOOST_TEST(reports.size() == 1u);
}

BOOST_AUTO_TEST_CASE(text_is_bounded) {
  std::string log = "[    1.0] BUG: soft lockup - CPU#0 stuck for 22s! [syz:1]\n";
  for (int i = 0; i < 3000; ++i) log += "[    1.1]  foo+0x1/0x2\n";
  ParserLimits limits;
  limits.max_text_lines = 100;
  const auto reports = parse_log(log, "t", limits);
  BOOST_REQUIRE_GE(reports.size(), 1u);
  const std::string text = joined(reports[0]);
  BOOST_TEST(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) < 100u);
}

// The text lines are reserved ahead and grown in steps (keep_text): every kept line, in order,
// around each step and at limits below, at and above them. Generated: reports of n lines.
BOOST_AUTO_TEST_CASE(text_lines_kept_in_order_across_growth_and_limits) {
  for (const std::size_t n : {1u, 2u, 127u, 128u, 129u, 511u, 512u, 513u, 1600u}) {
    for (const std::size_t limit : {1u, 2u, 100u, 127u, 128u, 129u, 512u, 1500u, 4000u}) {
      std::string log = "BUG: soft lockup - CPU#0 stuck for 22s! [syz:1]\n";
      for (std::size_t i = 1; i < n; ++i) log += " f" + std::to_string(i) + "+0x1/0x2\n";
      ParserLimits limits;
      limits.max_text_lines = limit;
      limits.max_frames = 8192;
      const auto reports = parse_log(log, "t", limits);
      BOOST_TEST_CONTEXT("lines " << n << ", limit " << limit) {
        BOOST_REQUIRE_EQUAL(reports.size(), 1u);
        const Report& r = reports[0];
        BOOST_REQUIRE_EQUAL(r.text.size(), std::min(n, limit));
        BOOST_TEST(r.text[0] == "BUG: soft lockup - CPU#0 stuck for 22s! [syz:1]");
        for (std::size_t i = 1; i < r.text.size(); ++i) {
          if (r.text[i] != " f" + std::to_string(i) + "+0x1/0x2") {
            BOOST_TEST(r.text[i] == " f" + std::to_string(i) + "+0x1/0x2");
            break;
          }
        }
        BOOST_TEST(r.frames.size() == n - 1);
      }
    }
  }
}

// kmemleak's own error (logspec linux_boot_007): a report of its own, ended by
// "detector disabled"; the object dump after it is not part of the failing call.
BOOST_AUTO_TEST_CASE(kmemleak_insert_error_ends_before_the_object_dump) {
  const auto reports = parse_log(
      "[    4.305250] kmemleak: Cannot insert 0xf6808000 into the object search tree (overlaps existing)\n"
      "[    4.306044] CPU: 3 PID: 29 Comm: kdevtmpfs Not tainted 5.10.234-rc1 #1\n"
      "[    4.329928] Call Trace:\n"
      "[    4.329928]  dump_stack+0x6d/0x8b\n"
      "[    4.329928]  create_object.isra.0.cold+0x10/0x74\n"
      "[    4.329928]  kmemleak_alloc+0x1f/0x30\n"
      "[    4.329928] kmemleak: Kernel memory leak detector disabled\n"
      "[    4.329928] kmemleak: Object 0xf65d6000 (size 10649600):\n"
      "[    4.329928] kmemleak:   backtrace:\n"
      "[    4.329928]      kmemleak_alloc_phys+0x2d/0x40\n"
      "[    4.329928]      setup_arch+0x862/0xa22\n",
      "kmemleak.log");
  BOOST_REQUIRE_EQUAL(reports.size(), 1u);
  BOOST_TEST(reports[0].frames.size() == 3u);
  BOOST_TEST(reports[0].input.last_line < 8u);  // the object dump (lines 8-11) is left out
}

// Past --max-frames a report keeps counting: its frames, traces and sections stay
// consistent with what it kept, and Report::truncated says what was left out.
void expect_consistent(const Report& r) {
  for (const Trace& t : r.traces) BOOST_TEST(std::size_t{t.first_frame} + t.frame_count <= r.frames.size());
  for (const StackSection& s : r.sections) {
    BOOST_TEST(std::size_t{s.first_frame} + s.frame_count <= r.frames.size());
    BOOST_TEST(s.trace < r.traces.size());
  }
}

const Truncation* truncation(const Report& r, const std::string& what) {
  for (const Truncation& t : r.truncated)
    if (t.what == what) return &t;
  return nullptr;
}

const std::string kWarn = "WARNING: CPU: 0 PID: 1 at kernel/x.c:1 f+0x1/0x2\n";

BOOST_AUTO_TEST_CASE(frames_past_the_limit_are_counted_not_kept) {
  for (const std::size_t frames : {10u, 99u, 100u, 101u, 5000u}) {
    std::string log = kWarn + "Call Trace:\n";
    for (std::size_t i = 0; i < frames; ++i) log += (i % 7 == 3 ? " <IRQ>\n" : "") + std::string(" g+0x1/0x2\n");
    ParserLimits limits;
    limits.max_frames = 100;
    const auto reports = parse_log(log, "t", limits);
    BOOST_TEST_CONTEXT(frames << " frames") {
      BOOST_REQUIRE_EQUAL(reports.size(), 1u);
      const Report& r = reports[0];
      BOOST_TEST(r.frames.size() == std::min<std::size_t>(frames, 100));
      BOOST_TEST(r.traces.at(0).frame_count == r.frames.size());
      expect_consistent(r);
      const Truncation* t = truncation(r, "frames");
      BOOST_TEST((t != nullptr) == (frames > 100));
      if (t) BOOST_TEST((t->seen == frames && t->kept == 100 && t->option == "--max-frames"));
      BOOST_TEST(!r.corrupted);
    }
  }
}

BOOST_AUTO_TEST_CASE(traces_past_the_limit_are_counted_and_markers_cost_nothing) {
  std::string log = kWarn;
  for (int i = 0; i < 3000; ++i) log += "Call Trace:\n <IRQ>\n </IRQ>\n <NMI>\n g+0x1/0x2\n";
  ParserLimits limits;
  limits.max_frames = 1000;
  const auto reports = parse_log(log, "t", limits);
  BOOST_REQUIRE_EQUAL(reports.size(), 1u);
  const Report& r = reports[0];
  BOOST_TEST(r.traces.size() == 1000u);
  BOOST_TEST(r.frames.size() == 1000u);
  BOOST_TEST(r.sections.size() == 1000u);  // one per trace: the markers before a frame rename one section
  BOOST_TEST(r.sections.at(0).stack == StackKind::Nmi);
  expect_consistent(r);
  BOOST_REQUIRE(truncation(r, "traces") != nullptr);
  BOOST_TEST(truncation(r, "traces")->seen == 3000u);
  BOOST_TEST(truncation(r, "frames")->seen == 3000u);
}

BOOST_AUTO_TEST_CASE(modules_registers_and_long_lines_are_counted) {
  std::string modules = "Modules linked in:";
  for (int i = 0; i < 5000; ++i) modules += " m" + std::to_string(i);
  std::string regs;
  for (int i = 0; i < 40; ++i) regs += "RAX: 0000000000000001 RBX: 0000000000000002 RCX: 0000000000000003\n";
  const std::string log = kWarn + modules + "\n" + regs + "Call Trace:\n g+0x1/0x2 " + std::string(100000, 'y') + "\n";
  const auto reports = parse_log(log, "t");
  BOOST_REQUIRE_EQUAL(reports.size(), 1u);
  const Report& r = reports[0];
  BOOST_TEST(r.modules.size() == 4096u);
  BOOST_TEST(truncation(r, "modules")->seen == 5000u);
  std::size_t kept = 0;
  for (const RegisterSet& block : r.registers) kept += block.values.size();
  BOOST_TEST(kept == 64u);
  BOOST_TEST(truncation(r, "registers")->seen == 120u);
  BOOST_REQUIRE(truncation(r, "long lines") != nullptr);
  BOOST_TEST(truncation(r, "long lines")->seen == 1u);
  BOOST_TEST(truncation(r, "long lines")->limit == ParserLimits{}.max_line_bytes);
}

// parse_log reads a big log in windows that end at a '\n' (so that the pages behind
// can be let go) and switches to the "\r\n"-aware splitter at the window holding the
// first '\r'. Whatever the window boundaries, the reports are those of feeding the
// lines one by one: a log of more than three windows, its line lengths varied so the
// boundaries land everywhere in a report, LF line ends, then CRLF, then bare CR.
BOOST_AUTO_TEST_CASE(windowed_parse_equals_feeding_line_by_line) {
  const std::string block[] = {
      "------------[ cut here ]------------",
      "WARNING: CPU: 1 PID: 796 at fs/inode.c:330 drop_nlink+0x3e/0x50",
      "Modules linked in: e1000",
      "CPU: 1 PID: 796 Comm: syz-executor Not tainted 6.1.0 #1",
      "RIP: 0010:drop_nlink+0x3e/0x50",
      "Call Trace:",
      " <TASK>",
      " vfs_unlink+0x1b2/0x3b0",
      " ? do_unlinkat+0x1a0/0x300",
      " do_syscall_64+0x5d/0x90",
      " </TASK>",
      "---[ end trace 0000000000000000 ]---",
  };
  std::string log;
  std::vector<std::string> lines;
  const auto add = [&](std::string line, std::string_view end) {
    log += line;
    log += end;
    lines.push_back(std::move(line));
  };
  for (std::size_t n = 0; log.size() < (std::size_t{30} << 20); ++n) {
    const std::string_view end = log.size() < (std::size_t{20} << 20) ? "\n" : (n % 2 ? "\r\n" : "\r");
    add("[" + std::to_string(n) + ".000000] noise " + std::string(n % 61, 'z'), end);
    for (const std::string& l : block) add("[" + std::to_string(n) + ".000001] " + l, end);
  }
  std::vector<Report> windowed;
  std::size_t progress_calls = 0;
  std::size_t last = 0;  // offsets: Boost.Test would compare char pointers as C strings
  parse_log(
      log, "t", [&](Report&& r) { windowed.push_back(std::move(r)); }, ParserLimits{},
      [&](const char* upto) {
        const auto at = static_cast<std::size_t>(upto - log.data());
        BOOST_TEST(at > last);
        BOOST_TEST((at == log.size() || log[at - 1] == '\n'));
        last = at;
        ++progress_calls;
      });
  std::vector<Report> fed;
  LogParser parser("t", [&](Report&& r) { fed.push_back(std::move(r)); });
  for (const std::string& l : lines) parser.feed(l);
  parser.finish();
  BOOST_TEST(progress_calls >= 3u);
  BOOST_TEST(last == log.size());
  BOOST_REQUIRE_EQUAL(windowed.size(), fed.size());
  for (std::size_t i = 0; i < fed.size(); ++i) {
    BOOST_TEST_CONTEXT("report " << i) {
      BOOST_TEST(windowed[i].title == fed[i].title);
      BOOST_TEST(windowed[i].frames.size() == fed[i].frames.size());
      BOOST_TEST(windowed[i].input.first_line == fed[i].input.first_line);
      BOOST_TEST(joined(windowed[i]) == joined(fed[i]));
    }
  }
}

// Console prefixes a kernel line comes with: the report rules below hold under each.
std::vector<std::string> kernel_prefixes() {
  return {"[   95.884027] ", "[   95.884027][ T1824] ", "[   95.884027][    C1] ", "<4>[   95.884027] "};
}

BOOST_AUTO_TEST_CASE(a_follow_up_header_after_the_trace_began_is_another_report) {
  // Follow-ups ("Oops:", "general protection fault:" after "BUG: unable to handle") come between
  // a header and its trace; after "Call Trace:" another CPU's oops is starting (syzkaller 142).
  const std::vector<std::string> follow_ups = {"general protection fault: 0000 [#1] SMP KASAN",
                                               "Oops: 0000 [#1] PREEMPT SMP", "invalid opcode: 0000 [#1] SMP",
                                               "divide error: 0000 [#1] SMP", "stack segment: 0000 [#1] SMP"};
  for (const auto& p : {std::string("[   95.884027] "), std::string("<4>[   95.884027] "), std::string()}) {
    for (const auto& f : follow_ups) {
      BOOST_TEST_CONTEXT("prefix '" << p << "', follow-up '" << f << "'") {
        const auto reports =
            parse_log(p + "WARNING: CPU: 1 PID: 18244 at kernel/fork.c:340 __switch_to+0x10bd/0x13c0\n" + p +
                          "CPU: 1 PID: 18244 Comm: syz-executor5 Not tainted 4.15.0-rc4+ #231\n" + p + "Call Trace:\n" +
                          p + f + "\n" + p + "RIP: 0010:native_write_cr4+0x4/0x10\n",
                      "t");
        BOOST_TEST(reports.size() == 2u);
        // Before the trace the same header still joins the report it follows.
        const auto joined_reports =
            parse_log(p + "BUG: unable to handle kernel NULL pointer dereference at 0000000000000010\n" + p + f + "\n" +
                          p + "RIP: 0010:native_write_cr4+0x4/0x10\n",
                      "t");
        BOOST_TEST(joined_reports.size() == 1u);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(lines_without_a_timestamp_are_not_a_timestamped_reports_text) {
  // A fuzzer's program listing or user space on the same serial console: not the kernel's
  // (syzkaller keeps the lines of the report's console context; report 158).
  const std::vector<std::string> foreign = {
      "2017/08/31 09:09:03 executing program 2:",
      "mmap(&(0x7f0000000000/0xfff000)=nil, 0xfff000, 0x3, 0x32, 0xffffffffffffffff, 0x0)",
      "r3 = socket$inet(0x2, 0x2, 0x0)"};
  for (const auto& p : kernel_prefixes()) {
    BOOST_TEST_CONTEXT("prefix '" << p << "'") {
      std::string log = p + "WARNING: CPU: 0 PID: 28200 at lib/refcount.c:152 refcount_inc+0x47/0x50\n";
      for (int i = 0; i < 8; ++i) log += foreign[static_cast<std::size_t>(i) % foreign.size()] + "\n";
      log += p + "Call Trace:\n" + p + " dev_activate+0x7d3/0xaa0\n";
      const auto reports = parse_log(log, "t");
      BOOST_REQUIRE_GE(reports.size(), 1u);
      const std::string text = joined(reports[0]);
      BOOST_TEST(text.find("executing program") == std::string::npos);
      BOOST_TEST(text.find("socket$inet") == std::string::npos);
      BOOST_TEST(text.find("dev_activate+0x7d3/0xaa0") != std::string::npos);
    }
  }
  // Without timestamps every line is the console's: all are kept.
  const auto bare =
      parse_log("WARNING: CPU: 0 PID: 1 at lib/refcount.c:152 refcount_inc+0x47/0x50\nsome line\nCall Trace:\n", "t");
  BOOST_REQUIRE_EQUAL(bare.size(), 1u);
  BOOST_TEST(joined(bare[0]).find("some line") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(filesystem_messages_holding_warning_start_no_report) {
  const std::vector<std::string> lines = {
      "XFS (loop4): WARNING: Reset corrupted AGFL on AG 0. 1 blocks leaked. Please unmount and run xfs_repair.",
      "XFS (sda1): WARNING: something", "EXT4-fs (loop0): WARNING: mounting fs with errors, running e2fsck",
      "EXT4-fs warning (device sda1): ext4_dx_add_entry: WARNING: directory index full", "EXT4-FS (loop2): WARNING: x"};
  for (const auto& p : kernel_prefixes())
    for (const auto& l : lines) BOOST_TEST_CONTEXT("'" << p << l << "'") {
        BOOST_TEST(parse_log(p + l + "\n", "t").empty());
      }
  // The kernel's own WARNING still starts one, whatever came before it on the line.
  BOOST_TEST(parse_log("[    1.0] WARNING: CPU: 0 PID: 1 at fs/xfs/xfs_alloc.c:10 xfs_alloc+0x1/0x2\n", "t").size() ==
             1u);
}

BOOST_AUTO_TEST_CASE(a_user_space_general_protection_fault_is_no_report) {
  // arch/x86/kernel/traps.c show_signal(): "<comm>[<pid>] general protection fault ip:.. sp:.. error:..".
  const std::vector<std::string> user = {
      "traps: syz-executor229[3615] general protection fault ip:7feb96eb56a1 sp:20000fd0 error:0 in "
      "syz-executor2295634012[7feb96e75000+84000]",
      "traps: a.out[1] general protection fault ip:401000 sp:7ffd1c2c0f00 error:0",
      "syzkaller login: [   36.852785][ T3615] traps: x[3615] general protection fault ip:1 sp:2 error:0 in x[1+2]"};
  for (const auto& p : kernel_prefixes())
    for (const auto& l : user) BOOST_TEST_CONTEXT("'" << p << l << "'") {
        BOOST_TEST(parse_log(p + l + "\n", "t").empty());
      }
  const std::vector<std::string> kernel = {"general protection fault: 0000 [#1] PREEMPT SMP KASAN",
                                           "general protection fault, probably for non-canonical address "
                                           "0xdffffc0000000001: 0000 [#1] PREEMPT SMP KASAN"};
  for (const auto& p : kernel_prefixes())
    for (const auto& l : kernel) BOOST_TEST_CONTEXT("'" << p << l << "'") {
        BOOST_TEST(parse_log(p + l + "\n", "t").size() == 1u);
      }
}

BOOST_AUTO_TEST_CASE(a_log_that_opens_with_a_boot_shows_no_reboot) {
  const std::string decompressor = "Decompressing Linux... Parsing ELF... Performing relocations... done.\n";
  const std::string modern = "Booting the kernel (entry_offset: 0x0000000000000000).\n";
  const std::string kernel_line = "[    0.000000] Linux version 6.8.0 (gcc) #1 SMP\n";
  // 6.x's banner before any kernel line: the log's own first boot (syzkaller report 724).
  BOOST_TEST(parse_log(decompressor + modern + kernel_line, "t").empty());
  // After a running kernel's lines it is a reboot.
  const auto rebooted = parse_log("[  100.000000] foo: bar\n" + decompressor + modern + kernel_line, "t");
  BOOST_REQUIRE_EQUAL(rebooted.size(), 1u);
  BOOST_TEST(rebooted[0].header.starts_with("Booting the kernel"));
  // The older banner is a reboot wherever it stands, as syzkaller's header has it (report 127).
  BOOST_TEST(
      parse_log("tkill(r8, 0x13)\nDecompressing Linux... Parsing ELF... done.\nBooting the kernel.\n" + kernel_line,
                "t")
          .size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_one_line_report_before_cut_here_is_the_warnings_message) {
  // mtrr/cleanup.c prints "WARNING: strange, CPU MTRRs all blank?" and then WARN_ON(1); 4.x x86
  // WARN(cond, fmt) printed its message before the banner (fs/dcache.c's "BUG: Dentry ... still in use").
  const std::vector<std::string> messages = {
      "WARNING: strange, CPU MTRRs all blank?",
      "BUG: Dentry ffff888119d8a000{i=0,n=.index}  still in use (1) [unmount of ramfs ramfs]"};
  for (const auto& p : kernel_prefixes()) {
    for (const auto& m : messages) {
      BOOST_TEST_CONTEXT("'" << p << m << "'") {
        const std::string log = p + m + "\n" + p + "------------[ cut here ]------------\n" + p +
                                "WARNING: CPU: 0 PID: 367 at fs/dcache.c:1616 umount_check+0x18d/0x1d0\n" + p +
                                "Call Trace:\n" + p + " d_walk+0x1/0x2\n";
        const auto reports = parse_log(log, "t");
        BOOST_REQUIRE_EQUAL(reports.size(), 1u);
        BOOST_TEST(reports[0].input.first_line == 1u);
        BOOST_TEST(reports[0].frames.size() == 1u);
        BOOST_TEST(joined(reports[0]).find(m) == 0u);
      }
    }
  }
  // A sanitizer's "=====" rule is no WARN banner: a one-line report before it stays its own.
  const auto apart = parse_log(
      "[ 72.1] INFO: rcu_sched detected expedited stalls on CPUs/tasks: {\n"
      "[ 72.2] =====================================================\n"
      "[ 72.3] BUG: KMSAN: uninit-value in __perf_event_task_sched_in+0x2b6/0xca0\n"
      "[ 72.4]  __perf_event_task_sched_in+0x2b6/0xca0\n",
      "t");
  BOOST_TEST(apart.size() == 2u);
  // Another context's line is no message of this warning.
  const auto other = parse_log(
      "[ 1.0][ T1] WARNING: strange, CPU MTRRs all blank?\n"
      "[ 1.1][ T2] ------------[ cut here ]------------\n"
      "[ 1.2][ T2] WARNING: CPU: 0 PID: 2 at fs/dcache.c:1616 umount_check+0x18d/0x1d0\n",
      "t");
  BOOST_TEST(other.size() == 2u);
}

BOOST_AUTO_TEST_CASE(untimestamped_lines_inside_a_timestamped_report_are_not_its_silence) {
  // decodecode's disassembly after "Code:" (lkp-tests' dmesg fixtures), or user space on the
  // console: not the kernel's lines, so they neither end the trace nor close the report.
  std::string decode = "All code\n========\n";
  for (int i = 0; i < 40; ++i) decode += "   " + std::to_string(i) + ":\t48 f7 fe             \tidiv   %rsi\n";
  decode += "\nCode starting with the faulting instruction\n===========================================\n";
  for (const auto& p : kernel_prefixes()) {
    BOOST_TEST_CONTEXT("prefix '" << p << "'") {
      const std::string log = p + "BUG: sleeping function called from invalid context at arch/x86/mm/fault.c:1351\n" +
                              p + "Call Trace:\n" + p + " dump_stack+0x7d/0xa3\n" + p +
                              " asm_exc_page_fault+0x1b/0x20\n" + p + "RIP: 0010:kasan_record_aux_stack+0x64/0x74\n" +
                              p + "Code: 48 f7 fe 8b 47 24 <8b> 40 08\n" + decode + p +
                              "RSP: 0000:ffff88811f29fce8 EFLAGS: 00010046\n" + p + " ? sem_more_checks+0x6c/0x6c\n" +
                              p + " call_rcu+0xbe/0x96f\n";
      const auto reports = parse_log(log, "t");
      BOOST_REQUIRE_EQUAL(reports.size(), 1u);
      BOOST_TEST(reports[0].frames.size() == 4u);
    }
  }
  // A paste that wrapped a long "Modules linked in:" line: the continuation is still read.
  const auto wrapped = parse_log(
      "[110417.280426] WARNING: at mm/page_alloc.c:2204 __alloc_pages_nodemask+0x231/0x8f0()\n"
      "[110417.280431] Modules linked in: vfat fat usb_storage\n"
      "joydev parport snd_timer\n"
      "[110417.280525] Pid: 3, comm: ksoftirqd/0 Not tainted 3.3.7-1.fc16.x86_64 #1\n"
      "[110417.280528] Call Trace:\n"
      "[110417.280535]  [<ffffffff81057adf>] warn_slowpath_common+0x7f/0xc0\n",
      "t");
  BOOST_REQUIRE_EQUAL(wrapped.size(), 1u);
  BOOST_TEST(wrapped[0].modules.size() == 6u);
}

BOOST_AUTO_TEST_CASE(a_symbolizers_inline_expansion_of_a_header_is_one_report) {
  // syzkaller's symbolizer repeats a header line once per inlined function of the frame it names.
  const std::vector<std::string> inlined = {"ip6_dst_store include/net/ip6_fib.h:176 [inline]",
                                            "atomic_read arch/x86/include/asm/atomic.h:26 [inline]",
                                            "virt_spin_lock arch/x86/include/asm/qspinlock.h:62 [inline]"};
  for (const std::string head : {"BUG: KASAN: use-after-free in ", "WARNING: CPU: 0 PID: 1 at lib/ref_tracker.c:88 "}) {
    for (const std::string tail : {"", " at addr ffff88004f0f1938"}) {
      for (std::size_t levels = 1; levels <= inlined.size(); ++levels) {
        std::string log;
        for (std::size_t i = 0; i < levels; ++i) log += head + inlined[i] + tail + "\n";
        log += head + "tcp_v6_connect+0x1dfd/0x20f0 net/ipv6/tcp_ipv6.c:271" + tail + "\n";
        log += "Call Trace:\n tcp_v6_connect+0x1dfd/0x20f0 net/ipv6/tcp_ipv6.c:271\n";
        BOOST_TEST_CONTEXT(log) {
          const auto reports = parse_log(log, "t");
          BOOST_REQUIRE_EQUAL(reports.size(), 1u);
          BOOST_TEST(reports[0].frames.size() == 1u);
        }
      }
    }
  }
  // Two headers that differ otherwise stay two reports.
  BOOST_TEST(
      parse_log("BUG: KASAN: use-after-free in f+0x1/0x2\nBUG: KASAN: use-after-free in g+0x1/0x2\n", "t").size() ==
      2u);
  BOOST_TEST(
      parse_log("BUG: KASAN: use-after-free in f [inline]\nBUG: KASAN: double-free in g+0x1/0x2\n", "t").size() == 2u);
}

BOOST_AUTO_TEST_CASE(arms_stack_dump_before_its_backtrace_keeps_the_report_open) {
  // arm's __die(): "Stack: (0x... to 0x...)" then dump_mem rows, hundreds on a stack overflow.
  std::string log =
      "Internal error: kernel stack overflow: 0 [#1] PREEMPT SMP ARM\nStack: (0xe0728008 to 0xe072a000)\n";
  for (int i = 0; i < 300; ++i)
    log += "8040: 80471bd8 80470060 e07280c0 e07280bc 00000000 00000000 85f71c00 00000004\n";
  log += "Backtrace:\n[<80856b28>] (should_fail_ex) from [<80470044>] (should_fail_alloc_page+0x68/0x78)\n";
  const auto reports = parse_log(log, "t");
  BOOST_REQUIRE_EQUAL(reports.size(), 1u);
  BOOST_TEST(!reports[0].frames.empty());
}

// Reports leave in the order they started, whatever order they ended in: contexts (printk
// caller ids) that print at once set reports aside, and a boot's reports wait for its facts
// in groups. Generated: 2..6 contexts, their lines interleaved in many seeded orders, and
// boots of up to 40 reports (more than one group of waiting reports).
BOOST_AUTO_TEST_CASE(reports_leave_in_the_order_they_started_however_contexts_interleave) {
  std::uint32_t seed = 12345;
  const auto next = [&seed]() {
    seed = seed * 1664525U + 1013904223U;
    return seed >> 8;
  };
  for (int contexts = 2; contexts <= 6; ++contexts) {
    for (int round = 0; round < 60; ++round) {
      // Each context's lines, in its own order: one to three reports, each a header and a
      // trace of three frames. A context's second report ends its first while reports of
      // other contexts that started earlier are still open.
      std::vector<std::vector<std::string>> own(static_cast<std::size_t>(contexts));
      std::size_t total = 0;
      std::vector<std::vector<std::size_t>> header_at(own.size());  // the positions of a context's headers
      for (int c = 0; c < contexts; ++c) {
        const std::string id = "[ T" + std::to_string(100 + c) + "] ";
        auto& l = own[static_cast<std::size_t>(c)];
        const int reports = 1 + static_cast<int>(next() % 3);
        for (int r = 0; r < reports; ++r) {
          header_at[static_cast<std::size_t>(c)].push_back(l.size());
          l.push_back(id + "WARNING: CPU: 0 PID: " + std::to_string(100 + c) + " at fs/f" + std::to_string(c) +
                      ".c:1 f" + std::to_string(c) + "+0x1/0x2");
          l.push_back(id + "Call Trace:");
          for (int f = 0; f < 3; ++f) l.push_back(id + " g" + std::to_string(c) + "_" + std::to_string(f) + "+0x1/0x2");
        }
        total += l.size();
      }
      std::vector<std::size_t> taken(own.size(), 0);
      std::string log;
      int line = 0;
      std::vector<int> starts;
      for (std::size_t left = total; left > 0; --left) {
        std::size_t c = next() % own.size();
        while (taken[c] == own[c].size()) c = (c + 1) % own.size();
        ++line;
        const auto& heads = header_at[c];
        if (std::find(heads.begin(), heads.end(), taken[c]) != heads.end()) starts.push_back(line);
        log += "[   " + std::to_string(line) + ".000000]" + own[c][taken[c]++] + "\n";
      }
      BOOST_TEST_CONTEXT("contexts " << contexts << " round " << round << "\n" << log) {
        const auto reports = parse_log(log, "t");
        BOOST_REQUIRE_EQUAL(reports.size(), starts.size());
        for (std::size_t i = 0; i < reports.size(); ++i)
          BOOST_TEST(reports[i].input.first_line == static_cast<std::uint32_t>(starts[i]));
      }
    }
  }
  for (int count : {1, 15, 16, 17, 40}) {
    std::string log;
    for (int i = 0; i < count; ++i)
      log += "[ " + std::to_string(i + 1) + ".0] BUG: soft lockup - CPU#0 stuck for 22s!\n";
    const auto reports = parse_log(log, "t");
    BOOST_REQUIRE_EQUAL(reports.size(), static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) BOOST_TEST(reports[static_cast<std::size_t>(i)].input.first_line == i + 1U);
  }
}

BOOST_AUTO_TEST_SUITE_END()
