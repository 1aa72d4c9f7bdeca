// Tests generated from the trace-form table (src/text/format_table.h): every row's example
// parses to the row's fields, alone, behind every console prefix a log pipeline adds, inside
// a report, and (for the forms that allow them) with a module name and a '?' added.
#include "text/format_table.h"

#include <boost/test/unit_test.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analyze_report.h"
#include "model_printers.h"
#include "text/line_cleaner.h"
#include "text/log_parser.h"
#include "text/report_markers.h"
#include "text/trace_line.h"

using namespace btaudit;
using namespace btaudit::format_table;

namespace {

// Checks one parsed line against a row (`module`/`unreliable` may be overridden by a variant).
void check_row(const TraceForm& row, std::string_view line, std::string_view module, bool unreliable) {
  BOOST_TEST_CONTEXT(row.id << ": \"" << line << "\"") {
    const auto tl = parse_trace_line(line);
    BOOST_REQUIRE(tl.has_value());
    if (row.fields & kMarker) {
      BOOST_REQUIRE(!tl->markers.empty());
      BOOST_TEST(to_string(tl->markers.front().stack) == to_string(row.marker));
      BOOST_TEST(tl->markers.front().open == row.marker_opens);
    } else {
      BOOST_TEST(tl->markers.empty());
    }
    const bool want_frame = !row.function.empty() || (row.fields & kAddress);
    BOOST_REQUIRE(tl->frame.has_value() == want_frame);
    if (!want_frame) return;
    const Frame& f = *tl->frame;
    BOOST_TEST(f.function.value_or("") == std::string(row.function));
    if (row.fields & kOffset) BOOST_TEST(f.offset.value_or(~0ULL) == row.offset);
    if (row.fields & kSize) BOOST_TEST(f.size.value_or(~0ULL) == row.size);
    if (!(row.fields & kSize)) BOOST_TEST(!f.size.has_value());
    BOOST_TEST(f.module.value_or("") == std::string(module));
    if (row.fields & kAddress) BOOST_TEST(f.address.value_or(0) == row.address);
    BOOST_TEST(f.printed_unreliable == unreliable);
    BOOST_TEST(f.build_id.has_value() == bool(row.fields & kBuildId));
  }
}

// The prefixes a console, dmesg, syslog or /dev/kmsg put before a kernel line.
const std::vector<std::string> kPrefixes = {
    "",
    "[  123.456789] ",
    "[\t123.456789]",
    "[  123.456789]\t",
    "<4>[  123.456789] ",
    "[  123.456789] [ T1234] ",
    "[  123.456789][    C1] ",
    "[Mon Jan  1 00:00:00 2024] ",
    "4,1234,123456789,-;",
    "4,1234,123456789,-,caller=T12;",
    "Jan  1 00:00:00 host kernel: ",
    "<4>Jan  1 00:00:00 host kernel: [  123.456789] ",
    "<4>1 2024-01-01T00:00:00.123456+00:00 host kernel - - - ",
    "2024-01-01T00:00:00+0000 host kernel: ",
};

// The one report `lines` make behind every console prefix, with LF and CRLF ends, analyzed and
// handed to `check` inside a test context naming the form.
template <class Check>
void for_each_console_form(const std::vector<std::string>& lines, Check check) {
  for (const std::string& prefix : kPrefixes)
    for (const std::string_view eol : {"\n", "\r\n"}) {
      std::string log;
      for (const std::string& l : lines) log += prefix + l + std::string(eol);
      auto reports = parse_log(log, "t");
      BOOST_TEST_CONTEXT(lines.front() << " behind \"" << prefix << "\", " << (eol.size() == 2 ? "CRLF" : "LF")) {
        BOOST_REQUIRE_EQUAL(reports.size(), 1u);
        analyze_report(reports[0]);
        check(reports[0]);
      }
    }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(format_table)

BOOST_AUTO_TEST_CASE(every_row_example_parses_to_its_fields) {
  for (const TraceForm& row : kTraceForms) check_row(row, row.example, row.module, row.fields & kUnreliable);
}

BOOST_AUTO_TEST_CASE(every_row_behind_every_console_prefix) {
  for (const TraceForm& row : kTraceForms) {
    for (const std::string& prefix : kPrefixes) {
      // A form without leading space loses nothing; one with it keeps its indentation
      // except where the prefix's separator is a tab or absent (the same bytes either way).
      const std::string raw = prefix + std::string(row.example);
      const CleanLine clean = clean_line(raw, 1);
      BOOST_TEST_CONTEXT("prefix \"" << prefix << "\"") {
        check_row(row, clean.text, row.module, row.fields & kUnreliable);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(every_symbolic_row_with_a_module_added) {
  for (const TraceForm& row : kTraceForms) {
    // Forms whose line ends with "+0xoff/0xsize": the kernel appends " [mod]" there (%pS/%pB).
    const std::string_view ex = row.example;
    if (!(row.fields & kSize) || (row.fields & kModule) || ex.back() == ')' || ex.back() == ']' ||
        ex.find(" from ") != std::string_view::npos || ex.find(" lib/") != std::string_view::npos)
      continue;
    check_row(row, std::string(ex) + " [synthmod]", "synthmod", row.fields & kUnreliable);
  }
}

BOOST_AUTO_TEST_CASE(every_row_inside_a_report_gives_its_frame) {
  for (const TraceForm& row : kTraceForms) {
    if (row.function.empty()) continue;
    const std::string log =
        std::string("[   10.000000] BUG: unable to handle kernel NULL pointer dereference at 0000000000000008\n") +
        "[   10.000001] Call Trace:\n" + "[   10.000002] " + std::string(row.example) + "\n" + "[   10.000003] " +
        std::string(row.example) + "\n";
    const auto reports = parse_log(log, "t.log");
    BOOST_TEST_CONTEXT(row.id) {
      BOOST_REQUIRE(reports.size() == 1U);
      BOOST_REQUIRE(reports[0].frames.size() == 2U);
      BOOST_TEST(reports[0].frames[0].function.value_or("") == std::string(row.function));
    }
  }
}

BOOST_AUTO_TEST_CASE(rows_cover_x86_from_2_6_18_to_today) {
  // The x86 eras: 2.6.18 brackets, 2.6.25 '?', 2.6.28 %pS modules and inline markers,
  // 4.10 bare symbols, 5.14 build ids, 5.16 <TASK>: each has a row.
  for (std::string_view era : {"2.6.18", "2.6.25", "2.6.28", "4.10", "5.14", "5.16"}) {
    bool found = false;
    for (const TraceForm& row : kTraceForms)
      found = found || ((row.arch == "x86_64" || row.arch == "i386") && row.introduced.starts_with(era));
    BOOST_TEST(found, "no x86 row introduced in " << era);
  }
}

BOOST_AUTO_TEST_CASE(every_header_form_starts_its_report_kind) {
  for (const HeaderForm& row : kHeaderForms) {
    for (const std::string& prefix : kPrefixes) {
      const std::string raw = prefix + std::string(row.example);
      const CleanLine clean = clean_line(raw, 1);
      BOOST_TEST_CONTEXT(row.id << " behind \"" << prefix << "\"") {
        const auto m = match_start(clean.text);
        BOOST_REQUIRE(m.has_value());
        BOOST_TEST(to_string(m->kind) == to_string(row.kind));
      }
    }
  }
}

// kernel/cfi.c report_cfi_failure() prints "CFI failure at SITE (target: ...)", then the trap
// handler reports the same failure: x86's die() ("invalid opcode:", 6.11's "Oops: invalid
// opcode:"), arm64's die() ("Internal error: Oops - CFI:"), or with CONFIG_CFI_PERMISSIVE
// __warn()'s WARNING of the same call site. Each is one report of kind cfi_failure, behind
// every prefix and either line end; a CFI line that nothing follows is a report of its own,
// titled by the site it names.
BOOST_AUTO_TEST_CASE(a_cfi_failure_and_the_trap_that_reports_it_are_one_report) {
  const std::vector<std::string> follow_ups = {
      "invalid opcode: 0000 [#1] PREEMPT SMP PTI",
      "Oops: invalid opcode: 0000 [#1] PREEMPT SMP NOPTI",
      "Internal error: Oops - CFI: 00000000f2008228 [#1] PREEMPT SMP",
      "WARNING: CPU: 0 PID: 48 at int80_emulation+0x67/0xb0",
      "",  // nothing: the CFI line alone
  };
  for (const std::string& follow_up : follow_ups)
    for (const std::string& prefix : kPrefixes)
      for (const std::string_view eol : {"\n", "\r\n"}) {
        std::vector<std::string> lines = {
            "CFI failure at int80_emulation+0x67/0xb0 (target: sys_ni_posix_timers+0x0/0x70; expected type: "
            "0xb02b34d9)"};
        if (!follow_up.empty()) {
          lines.push_back(follow_up);
          lines.insert(lines.end(),
                       {"CPU: 0 PID: 48 Comm: init Tainted: G N 6.7.0-rc4 #1", "RIP: 0010:int80_emulation+0x67/0xb0",
                        "Call Trace:", " <TASK>", " ? __warn+0x7d/0x130", " ? int80_emulation+0x67/0xb0",
                        " asm_int80_emulation+0x1a/0x20", " </TASK>"});
        }
        std::string log;
        for (const std::string& l : lines) log += prefix + l + std::string(eol);
        auto reports = parse_log(log, "t");
        BOOST_TEST_CONTEXT("\"" << follow_up << "\" behind \"" << prefix << "\", "
                                << (eol.size() == 2 ? "CRLF" : "LF")) {
          BOOST_REQUIRE_EQUAL(reports.size(), 1u);
          analyze_report(reports[0]);
          BOOST_TEST(to_string(reports[0].kind) == to_string(ReportKind::CfiFailure));
          BOOST_REQUIRE(reports[0].warn_site.has_value());
          BOOST_TEST(reports[0].warn_site->function.value_or("") == "int80_emulation");
          BOOST_TEST(reports[0].input.last_line == lines.size());
          if (follow_up.empty()) BOOST_TEST(reports[0].title == "CFI failure in int80_emulation");
          BOOST_TEST(reports[0].title.ends_with(" in int80_emulation"), reports[0].title);
        }
      }
}

// 4.9-5.x x86 prints a stack overflow as "BUG: stack guard page was hit at ..." and then die()'s
// header with handle_stack_overflow's message (the stack-overflow-* rows): one report, whose
// frames are the trace's and whose title names a function (as for syzkaller's report 614),
// the same behind every prefix, with either message and either line end.
BOOST_AUTO_TEST_CASE(a_stack_overflow_die_header_joins_the_guard_page_line) {
  std::optional<std::string> title;
  for (const std::string_view message : {"double-fault", "page fault"})
    for (const std::string& prefix : kPrefixes)
      for (const std::string_view eol : {"\n", "\r\n"}) {
        const std::vector<std::string> lines = {
            "BUG: stack guard page was hit at ffffc900190cfff8 (stack is ffffc900190d0000..ffffc900190d7fff)",
            "kernel stack overflow (" + std::string(message) + "): 0000 [#1] PREEMPT SMP KASAN",
            "CPU: 1 PID: 10931 Comm: syz-executor.2 Not tainted 5.13.0-syzkaller #0",
            "RIP: 0010:netdev_next_lower_dev_rcu+0x8/0xb0",
            "RSP: 0018:ffffc900190d0000 EFLAGS: 00010212",
            "Call Trace:",
            " bond_get_lowest_level_rcu+0x12d/0x2e0",
            " ? unblock_netpoll_tx+0x20/0x20",
            " bond_get_stats+0xf5/0x4d0",
            " dev_get_stats+0xa5/0x2b0",
            " rtnl_fill_stats+0x44/0x150",
            " rtnl_newlink+0x64/0xa0",
            " rtnetlink_rcv_msg+0x413/0xb80",
            " netlink_rcv_skb+0x153/0x420",
            " __sys_sendmsg+0xe5/0x1b0",
            " do_syscall_64+0x3a/0xb0",
            " entry_SYSCALL_64_after_hwframe+0x44/0xae",
        };
        std::string log;
        for (const std::string& l : lines) log += prefix + l + std::string(eol);
        auto reports = parse_log(log, "t");
        BOOST_TEST_CONTEXT(message << " behind \"" << prefix << "\", " << (eol.size() == 2 ? "CRLF" : "LF")) {
          BOOST_REQUIRE_EQUAL(reports.size(), 1u);
          analyze_report(reports[0]);
          BOOST_TEST(to_string(reports[0].kind) == to_string(ReportKind::StackOverflow));
          BOOST_TEST(reports[0].frames.size() == 11u);
          BOOST_TEST(reports[0].title.starts_with("BUG: stack guard page was hit in "));
          BOOST_TEST(!reports[0].title.ends_with(" corrupted"));
          if (!title) title = reports[0].title;
          BOOST_TEST(reports[0].title == *title);
        }
      }
}

// sparc64's die_if_kernel() after show_regs() (arch/sparc/kernel/traps_64.c, process_64.c): the
// header "comm(pid): message [#n]", the "TPC: <%pS>" crash site, show_stack()'s "Call Trace:" from
// the trapped function's caller, then its own "Caller[...]" walk. One report behind every prefix
// and line end, titled by the crash site (no trace holds it), both walks kept as traces; after
// unhandled_fault()'s "Unable to handle kernel NULL pointer dereference" the die header joins it.
BOOST_AUTO_TEST_CASE(a_sparc64_die_report_is_titled_by_its_trapped_function) {
  const std::vector<std::string> die = {
      "CPU: 1 PID: 2345 Comm: insmod Tainted: G           O      6.1.0-sparc64-smp #1 Debian 6.1.20-1",
      "TSTATE: 0000004480001603 TPC: 0000000010134008 TNPC: 000000001013400c Y: 00000000    Tainted: G           O",
      "TPC: <bad_init+0x8/0x20 [bad]>",
      "g0: 0000000000000000 g1: 0000000000000000 g2: 0000000000000000 g3: 0000000000000000",
      "o4: 0000000000000000 o5: 0000000000000000 sp: fff000000e3db3d1 ret_pc: 0000000000427a44",
      "RPC: <do_one_initcall+0x24/0x1c0>",
      "i4: 0000000000000000 i5: 0000000000000000 i6: fff000000e3db481 i7: 00000000004e9c54",
      "I7: <do_init_module+0x44/0x1e0>",
      "Call Trace:",
      "[<0000000000427a44>] do_one_initcall+0x24/0x1c0",
      "[<00000000004e9c54>] do_init_module+0x44/0x1e0",
      "[<0000000000406274>] linux_sparc_syscall+0x34/0x44",
      "Caller[0000000000427a44]: do_one_initcall+0x24/0x1c0",
      "Caller[00000000004e9c54]: do_init_module+0x44/0x1e0",
      "Caller[0000000000406274]: linux_sparc_syscall+0x34/0x44",
      "Caller[0000000000000000]: 0x0",
      "Instruction DUMP:  01000000  9de3bf50 <00000000> 81cfe008  01000000",
  };
  struct Case {
    std::vector<std::string> head;
    std::string_view title;
    ReportKind kind;
  };
  const std::vector<Case> cases = {
      {{"insmod(2345): Kernel illegal instruction [#1]"},
       "Kernel illegal instruction [#NUM] in bad_init",
       ReportKind::Oops},
      {{"Unable to handle kernel NULL pointer dereference", "tsk->{mm,active_mm}->context = 0000000000000a55",
        "tsk->{mm,active_mm}->pgd = fff000023c6d4000", "insmod(2345): Oops [#1]"},
       "BUG: unable to handle kernel NULL pointer dereference in bad_init",
       ReportKind::NullPointerDereference},
  };
  for (const Case& c : cases) {
    std::vector<std::string> lines = c.head;
    lines.insert(lines.end(), die.begin(), die.end());
    for_each_console_form(lines, [&c](const Report& r) {
      BOOST_TEST(r.title == std::string(c.title));
      BOOST_TEST(to_string(r.kind) == to_string(c.kind));
      BOOST_TEST(to_string(r.arch) == "sparc64");
      BOOST_TEST(!r.corrupted);
      BOOST_REQUIRE(r.rip.has_value());
      BOOST_TEST(r.rip->function.value_or("") == "bad_init");
      BOOST_TEST(r.rip->address.value_or(0) == 0x10134008U);
      BOOST_REQUIRE_EQUAL(r.traces.size(), 2u);
      BOOST_TEST(r.traces[0].label == "Call Trace");
      BOOST_TEST(r.traces[0].frame_count == 3u);
      BOOST_TEST(r.traces[1].label == "Caller");
      BOOST_TEST(r.traces[1].frame_count == 4u);
      BOOST_TEST(r.frames[r.traces[1].first_frame].address.value_or(0) == 0x427a44U);
    });
  }
}

// parisc's die_if_kernel() (arch/parisc/kernel/traps.c): the header "comm (pid N): message (code N)",
// show_regs()'s " IAOQ[0]: %pS" crash site, then "Backtrace:" from the trapped function's caller
// (parisc_show_stack's first unwind step). One report behind every prefix and line end, titled
// by the crash site; the form it prints for a user-space fault (" at <address>" after the code)
// is no report.
BOOST_AUTO_TEST_CASE(a_parisc_die_report_is_titled_by_its_trapped_function) {
  const std::vector<std::string> lines = {
      "      _______________________________ ",
      "     < Your System ate a SPARC! Gah! >",
      "modprobe (pid 1234): Kernel Fault (code 15)",
      "CPU: 0 PID: 1234 Comm: modprobe Not tainted 6.1.0-parisc64 #1 Debian 6.1.20-1",
      "PSW: 00001000000001101111111100001111 Not tainted",
      "r00-03  000000ff0806ff0f 0000000040d5f4e0 000000004024a1b4 000000005f1c0760",
      "IASQ: 0000000000000000 0000000000000000 IAOQ: 0000000040262d60 0000000040262d64",
      " IIR: 0f401096    ISR: 0000000000000000  IOR: 0000000000000000",
      " IAOQ[0]: bad_init+0x20/0x48 [bad]",
      " IAOQ[1]: bad_init+0x24/0x48 [bad]",
      " RP(r2): do_one_initcall+0x94/0x2f0",
      "Backtrace:",
      " [<000000004024a1b4>] do_one_initcall+0x94/0x2f0",
      " [<0000000040312c68>] do_init_module+0x78/0x2b8",
      " [<0000000040303fc4>] syscall_exit+0x0/0x10",
      "",
  };
  for_each_console_form(lines, [](const Report& r) {
    BOOST_TEST(r.title == "Kernel Fault (code NUM) in bad_init");
    BOOST_TEST(r.header == "Kernel Fault (code 15)");
    BOOST_TEST(to_string(r.arch) == "parisc");
    BOOST_TEST(!r.corrupted);
    BOOST_REQUIRE(r.rip.has_value());
    BOOST_TEST(r.rip->function.value_or("") == "bad_init");
    BOOST_TEST(r.frames.size() == 3u);
  });
  for (const std::string& prefix : kPrefixes)
    BOOST_TEST(parse_log(prefix + "sh (pid 77): Illegal instruction (code 8) at 00000000000104d8\n" + prefix +
                             "CPU: 0 PID: 77 Comm: sh Not tainted 6.1.0-parisc64 #1\n",
                         "t")
                   .empty());
}

// m68k's die_if_kernel() (arch/m68k/kernel/traps.c): "Oops: %08x" after the fault's line, then
// show_registers()'s "PC: [<%08lx>] %pS" crash site and show_trace()'s scan of the stack, whose
// words are every text address above the exception frame. One report behind every prefix and
// line end, titled by the crash site.
BOOST_AUTO_TEST_CASE(an_m68k_die_report_is_titled_by_its_crash_site) {
  const std::vector<std::string> lines = {
      "Unable to handle kernel NULL pointer dereference at virtual address 00000000",
      "Oops: 00000000",
      "Modules linked in: bad(O)",
      "PC: [<0001f0a4>] bad_init+0x4/0x10 [bad]",
      "SR: 2700  SP: (ptrval)  a2: 00000000",
      "d0: 00000000    d1: 00000000    d2: 00000000    d3: 00000000",
      "Process insmod (pid: 42, task=(ptrval))",
      "Call Trace: [<0002a3b6>] do_one_initcall+0x36/0x170",
      " [<0001f0a0>] bad_init+0x0/0x10 [bad]",
      " [<00051f2a>] do_init_module+0x3a/0x1ba",
      "",
      "Code: 4e56 0000 4281 <2281> 4e5e 4e75 4e56 0000 4280 4e5e",
  };
  for_each_console_form(lines, [](const Report& r) {
    BOOST_TEST(r.title == "BUG: unable to handle kernel NULL pointer dereference in bad_init");
    BOOST_TEST(to_string(r.arch) == "m68k");
    BOOST_REQUIRE(r.rip.has_value());
    BOOST_TEST(r.rip->function.value_or("") == "bad_init");
    BOOST_TEST(r.rip->address.value_or(0) == 0x1f0a4U);
    BOOST_TEST(r.frames.size() == 3u);
  });
}

// die()'s counter ends the header of the architectures that print no start word before it
// (markers_detail::die_header): every die string, both counter forms, with sparc's "comm(pid): "
// before it or not (task names with '/', ':', parentheses, of 15 bytes); and the lines that only
// look like one: no message, a message that is no word, no digits, ten digits, an empty task.
BOOST_AUTO_TEST_CASE(a_die_counter_ends_a_header_and_the_look_alikes_start_nothing) {
  const std::vector<std::string> messages = {"Oops",
                                             "Kernel BUG",
                                             "Kernel bug detected",
                                             "Kernel bad sw trap",
                                             "Reserved instruction in kernel code",
                                             "Oops - load access fault"};
  const std::vector<std::string> tasks = {
      "", "insmod(2345): ", "kworker/0:1(55): ", "a(b)(7): ", "fifteen_bytes__(1): ", "x(4294967295): "};
  for (const std::string& m : messages)
    for (const std::string& task : tasks)
      for (const std::string& counter : {std::string(" [#1]"), std::string("[#12]:"), std::string(" [#123456789]")}) {
        const std::string line = task + m + counter;
        BOOST_TEST_CONTEXT(line) {
          BOOST_TEST(markers_detail::ends_with_die_counter(line));
          const auto marker = match_start(line);
          BOOST_REQUIRE(marker.has_value());
          BOOST_TEST(std::string(marker->header) == m + counter);
          const bool bug = m.starts_with("Kernel BUG") || m.starts_with("Kernel bug");
          BOOST_TEST(to_string(marker->kind) == to_string(bug ? ReportKind::KernelBug : ReportKind::Oops));
          BOOST_TEST((marker->join == JoinPolicy::FollowUp));
        }
      }
  // parisc's form: the task and pid first, the trap's code last.
  for (const std::string& m : messages)
    for (const std::string& task : {std::string("modprobe (pid 1234): "), std::string("kworker/0:1 (pid 5): ")})
      for (const std::string& code : {std::string(" (code 15)"), std::string(" (code -1)"), std::string(" (code 0)")}) {
        const std::string line = task + m + code;
        BOOST_TEST_CONTEXT(line) {
          BOOST_TEST(markers_detail::ends_like_die_header(line));
          const auto marker = match_start(line);
          BOOST_REQUIRE(marker.has_value());
          BOOST_TEST(std::string(marker->header) == m + code);
          BOOST_TEST(to_string(marker->kind) == to_string(ReportKind::Oops));
        }
      }
  for (const std::string line : {"[#1]",
                                 " [#1]",
                                 "1234 [#1]",
                                 "foo [#]",
                                 "foo [#1234567890]",
                                 "foo [#1] SMP",
                                 "foo #1]",
                                 "foo [1]",
                                 "(12): x [#1]",
                                 "insmod(2345): [#1]",
                                 "foo [#1]::",
                                 "",
                                 "Kernel Fault (code 15)",
                                 " (pid 1): Oops (code 1)",
                                 "sh (pid 1): Oops (code 15) at 00000000000104d8",
                                 "sh (pid x): Oops (code 15)",
                                 "sh (pid 1): (code 15)",
                                 "sh (pid 1): 15 (code 15)",
                                 "sh (pid 1): Oops (code )",
                                 "sh (pid 1): Oops (code 1234567890)",
                                 "a_task_name_longer_than_15 (pid 1): Oops (code 1)",
                                 "Oops: 1234567",
                                 "Oops: 12345678 extra",
                                 "Oops: foo, sig: x",
                                 "Oops: , sig: 1234567890",
                                 "Oops: efitime: can't read time!"}) {
    BOOST_TEST_CONTEXT("\"" << line << "\"") {
      if (line.starts_with("foo [#1] SMP") || line.starts_with("insmod") || line.starts_with("Kernel Fault")) {
        BOOST_TEST(!markers_detail::die_header(line).has_value());
      } else {
        BOOST_TEST(!match_start(line).has_value());
      }
    }
  }
}

// A line of "Caller[" words is read in one step per word, never recursively: a megabyte of them
// is no frame and returns at once.
BOOST_AUTO_TEST_CASE(a_line_of_nested_caller_words_is_no_frame) {
  std::string line;
  while (line.size() < (std::size_t{1} << 20)) line += "Caller[1]: ";
  line += "f+0x1/0x2";
  TraceText t;
  BOOST_TEST(!parse_trace_text(line, t));
  BOOST_TEST(!parse_trace_text_general(line, t));
  BOOST_TEST(!t.has_frame);
}

BOOST_AUTO_TEST_SUITE_END()
