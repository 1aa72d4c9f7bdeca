// ReportBuilder: header fields, crash site, modules, traces and stack sections
// from the cleaned lines of one report.
#include "text/report_builder.h"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "model_printers.h"
#include "text/line_cleaner.h"
#include "text/report_markers.h"
#include "text/scan.h"

using btaudit::Arch;
using btaudit::Report;
using btaudit::StackKind;

namespace {

// Feeds the lines to a builder opened by the first one, as the log parser would.
Report build(const std::vector<std::string>& lines, const btaudit::ReportLimits& limits = {}) {
  BOOST_REQUIRE(!lines.empty());
  const btaudit::CleanLine first = btaudit::clean_line(lines[0], 1);
  auto marker = btaudit::match_start(first.text);
  BOOST_REQUIRE(marker.has_value());
  btaudit::ReportBuilder b("test", *marker, first, 1, limits);
  for (std::size_t i = 1; i < lines.size(); ++i)
    b.add_line(btaudit::clean_line(lines[i], static_cast<std::uint32_t>(i + 1)));
  return b.finish();
}

std::vector<std::string> functions(const Report& r) {
  std::vector<std::string> out;
  for (const auto& f : r.frames) out.push_back(f.function.value_or("?addr"));
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(report_builder)

BOOST_AUTO_TEST_CASE(task_line_fields_of_every_era) {
  auto modern = build({"WARNING: CPU: 3 PID: 42 at kernel/smp.c:912 smp_call+0x3c4/0x3c8 [kvm]",
                       "CPU: 3 UID: 0 PID: 42 Comm: kworker/3:1 H Tainted: G        W  OE      6.13.0-rc1 #1",
                       "Hardware name: QEMU Standard PC (i440FX + PIIX, 1996)"});
  BOOST_TEST(*modern.cpu == 3);
  BOOST_TEST(*modern.pid == 42);
  BOOST_TEST(*modern.comm == "kworker/3:1 H");
  BOOST_TEST(*modern.tainted == "GWOE");
  BOOST_TEST(*modern.kernel == "6.13.0-rc1");
  BOOST_TEST(*modern.hardware == "QEMU Standard PC (i440FX + PIIX, 1996)");
  BOOST_TEST(*modern.warn_site->function == "smp_call");
  BOOST_TEST(*modern.warn_site->module == "kvm");

  auto old = build({"BUG: sleeping function called from invalid context at mm/memory.c:3927",
                    "Pid: 1109, comm: NetworkManager Not tainted 3.3.0-0.15.el7.x86_64 #1"});
  BOOST_TEST(*old.pid == 1109);
  BOOST_TEST(*old.comm == "NetworkManager");
  BOOST_TEST(old.tainted->empty());
  BOOST_TEST(*old.kernel == "3.3.0-0.15.el7.x86_64");
}

BOOST_AUTO_TEST_CASE(hung_task_header_names_the_blocked_task) {
  auto r =
      build({"INFO: task kworker/u4:2:12659 blocked for more than 120 seconds.", "      Not tainted 4.15.0-rc2+ #152",
             "CPU: 1 PID: 29 Comm: khungtaskd Not tainted 4.15.0-rc2+ #152"});
  BOOST_TEST(*r.comm == "kworker/u4:2");
  BOOST_TEST(*r.pid == 12659);
  BOOST_TEST(*r.kernel == "4.15.0-rc2+");
  BOOST_TEST(r.tainted->empty());
}

BOOST_AUTO_TEST_CASE(kdump_note_is_not_part_of_comm) {
  auto r = build({"BUG: unable to handle page fault for address: 0000000000000010",
                  "CPU: 0 PID: 4952 Comm: bash Kdump: loaded Not tainted 5.4.0-0.rc6.fc32.x86_64 #1"});
  BOOST_TEST(*r.comm == "bash");
  BOOST_TEST(r.tainted->empty());
  BOOST_TEST(*r.kernel == "5.4.0-0.rc6.fc32.x86_64");
}

BOOST_AUTO_TEST_CASE(i386_site_completed_by_eip_is_at) {
  auto r = build({"BUG: unable to handle kernel NULL pointer dereference at 00000178",
                  "EIP: 0060:[<c1097a61>] EFLAGS: 00010206 CPU: 0", "EIP is at bpf_prog_free+0x11/0x50"});
  BOOST_TEST(*r.rip->function == "bpf_prog_free");
  BOOST_TEST(*r.rip->address == 0xc1097a61u);
  BOOST_TEST(r.arch == Arch::I386);
}

BOOST_AUTO_TEST_CASE(rhel_taint_separator_and_lockdep_release_line) {
  auto rhel = build({"BUG: sysctl table check failed",
                     "Pid: 3221, comm: vzctl veid: 0 Tainted: P           ----------------   2.6.32.53-bigmem #28"});
  BOOST_TEST(*rhel.tainted == "P");
  BOOST_TEST(*rhel.kernel == "2.6.32.53-bigmem");
  auto lockdep = build({"WARNING: possible recursive locking detected", "3.6.0-rc1-wl+ #296 Tainted: G        W"});
  BOOST_TEST(*lockdep.tainted == "GW");
  BOOST_TEST(*lockdep.kernel == "3.6.0-rc1-wl+");
  auto verbose = build({"WARNING: CPU: 0 PID: 1 at a.c:1 f+0x1/0x2",
                        "CPU: 0 UID: 0 PID: 1 Comm: init Tainted: G        W          6.12.0 #1", "Tainted: [W]=WARN"});
  BOOST_TEST(*verbose.tainted == "GW");
}

BOOST_AUTO_TEST_CASE(modules_list_and_its_wrapped_continuation) {
  std::string longlist =
      "Modules linked in: xt_CHECKSUM ipt_MASQUERADE nf_nat tun ebtable_nat ebtables ip6table_filter";
  longlist += " ip6_tables iptable_filter ipr(+) vboxdrv(OE)";
  auto r = build({"BUG: unable to handle page fault for address: 0000000000000010", longlist,
                  " snd_hda_codec_realtek snd_hda_intel snd_hwdep serio_raw [last unloaded: scsi_wait_scan]",
                  "CPU: 1 PID: 2 Comm: x Not tainted 6.1.0 #1"});
  BOOST_TEST(r.modules.size() == 15u);
  BOOST_TEST(r.modules[9] == "ipr");
  BOOST_TEST(r.modules[10] == "vboxdrv");
  BOOST_TEST(r.modules.back() == "serio_raw");
  // A short, finished list takes no continuation, and prose is never a continuation.
  auto s = build({"BUG: unable to handle page fault for address: 0000000000000010",
                  "Modules linked in: a b [last unloaded: c]", "foo bar baz"});
  BOOST_TEST(s.modules.size() == 2u);
  auto p = build({"BUG: unable to handle page fault for address: 0000000000000010", longlist,
                  "Sending NMI from CPU 0 to CPUs 1: done."});
  BOOST_TEST(p.modules.size() == 11u);
  auto q = build(
      {"BUG: unable to handle page fault for address: 0000000000000010", longlist, "Sending NMI from CPU 0 to CPUs 1"});
  BOOST_TEST(q.modules.size() == 11u);
  // RHEL 6 flags and a short wrapped list (abrt's cut_here sample).
  auto rhel = build({"WARNING: at arch/x86/kernel/cpu/mtrr/generic.c:467",
                     "Modules linked in: radeon(+)(U) ttm(U) drm_kms_helper(U) drm(U) i2c_algo_bit(U)",
                     "i2c_core(U) dm_mod(U)", "Pid: 143, comm: modprobe Not tainted 2.6.32-19.el6.x86_64 #1"});
  BOOST_TEST(rhel.modules.size() == 7u);
  BOOST_TEST(rhel.modules[0] == "radeon");
  // A timestamped console: the next timestamped line is never a wrapped remainder.
  auto ts = build({"[ 1.0] BUG: unable to handle page fault for address: 0000000000000010",
                   "[ 1.1] Modules linked in: a b c", "[ 1.2] ok done"});
  BOOST_TEST(ts.modules.size() == 3u);
}

BOOST_AUTO_TEST_CASE(crash_site_of_each_architecture) {
  auto x86 =
      build({"BUG: kernel NULL pointer dereference, address: 0000000000000000", "RIP: 0010:foo+0x1b/0x40 [mod]"});
  BOOST_TEST(*x86.rip->function == "foo");
  BOOST_TEST(*x86.rip->module == "mod");
  BOOST_TEST(x86.arch == Arch::X86_64);
  auto old = build({"BUG: unable to handle kernel paging request at 0000000000001234",
                    "RIP: 0010:[<ffffffff8134d2f3>]  [<ffffffff8134d2f3>] foo+0x63/0x90"});
  BOOST_TEST(*old.rip->address == 0xffffffff8134d2f3ULL);
  BOOST_TEST(*old.rip->function == "foo");
  auto ppc = build({"WARNING: at arch/powerpc/platforms/pseries/eeh.c:390",
                    "NIP [c000000008068dfc] .eeh_dev_check_failure+0x27c/0x390"});
  BOOST_TEST(*ppc.rip->function == "eeh_dev_check_failure");
  BOOST_TEST(ppc.arch == Arch::PowerPC);
  auto s390 = build({"kernel BUG at drivers/scsi/scsi_lib.c:660!",
                     "Krnl PSW : 0404c00180000000 0000000000431f8e (scsi_alloc_sgtable+0x62/0x7c)"});
  BOOST_TEST(*s390.rip->function == "scsi_alloc_sgtable");
  BOOST_TEST(*s390.rip->address == 0x431f8eu);
  BOOST_TEST(s390.arch == Arch::S390);
  auto arm64 = build({"Unable to handle kernel NULL pointer dereference at virtual address 0000000000000000",
                      "pc : clear_page+0x14/0x28", "lr : kernel_init_free_pages+0x7c/0x190"});
  BOOST_TEST(*arm64.rip->function == "clear_page");
  BOOST_TEST(arm64.arch == Arch::Arm64);
}

BOOST_AUTO_TEST_CASE(modern_stack_sections_and_markers) {
  auto r = build({"BUG: soft lockup - CPU#0 stuck for 22s! [swapper/0:0]", "Call Trace:", " <IRQ>", " ? foo+0x1/0x2",
                  " bar+0x1/0x2", " </IRQ>", " <TASK>", " baz+0x1/0x2", " </TASK>"});
  BOOST_REQUIRE_EQUAL(r.frames.size(), 3u);
  BOOST_TEST(r.frames[0].stack == StackKind::Irq);
  BOOST_TEST(r.frames[0].printed_unreliable);
  BOOST_TEST(r.frames[1].stack == StackKind::Irq);
  BOOST_TEST(r.frames[2].stack == StackKind::Task);
  BOOST_TEST(r.sections.size() == 2u);
  auto nmi = build({"BUG: soft lockup - CPU#0 stuck for 22s! [swapper/0:0]", "Call Trace:", " <NMI>",
                    " ? nmi_handle+0x1/0x2", " </NMI>", " <#DF>", " df+0x1/0x2", " </#DF>", " task+0x1/0x2"});
  BOOST_REQUIRE_EQUAL(nmi.frames.size(), 3u);
  BOOST_TEST(nmi.frames[0].stack == StackKind::Nmi);
  BOOST_TEST(nmi.frames[1].stack == StackKind::Exception);
  BOOST_TEST(nmi.frames[1].exception.value_or("") == "#DF");
  BOOST_TEST(nmi.frames[2].stack == StackKind::Task);
}

BOOST_AUTO_TEST_CASE(old_inline_markers_and_unmarked_task_stack) {
  auto r = build({"INFO: rcu_sched detected stalls on CPUs/tasks:", "Call Trace:",
                  " <IRQ>  [<ffffffff813eb3e6>] _sched_show_task+0x2d0/0x2dc",
                  " [<ffffffff813eb3f0>] ? sched_show_task+0x1/0x2",
                  " <EOI>  [<ffffffff8111a2a9>] do_softirq+0x59/0x60", " [<ffffffff8111a2b0>] ? cpu_idle+0x1/0x2"});
  BOOST_REQUIRE_EQUAL(r.frames.size(), 4u);
  BOOST_TEST(r.frames[0].stack == StackKind::Irq);
  BOOST_TEST(r.frames[1].stack == StackKind::Irq);
  BOOST_TEST(r.frames[1].printed_unreliable);
  BOOST_TEST(r.frames[2].stack == StackKind::Task);
  BOOST_TEST(r.frames[3].stack == StackKind::Task);
  BOOST_TEST(r.old_address_format);
}

BOOST_AUTO_TEST_CASE(registers_inside_a_trace_do_not_end_it) {
  auto r = build({"BUG: kernel NULL pointer dereference, address: 0000000000000000", "Call Trace:", " <IRQ>",
                  " a+0x1/0x2", " </IRQ>", " <TASK>", "RIP: 0010:b+0x1/0x2", "Code: 00 00 <0f> 0b",
                  "RSP: 0018:ffffc90000003e50 EFLAGS: 00000246",
                  "RAX: 0000000000000000 RBX: 0000000000000001 RCX: 0000000000000002", " c+0x1/0x2"});
  BOOST_TEST(functions(r) == (std::vector<std::string>{"a", "c"}), boost::test_tools::per_element());
  BOOST_TEST(r.traces.size() == 1u);
  BOOST_TEST(*r.rip->function == "b");
}

BOOST_AUTO_TEST_CASE(arm32_and_arm64_traces) {
  auto arm = build({"Kernel panic - not syncing: hung_task: blocked tasks",
                    "Backtrace: ", "[<c0014318>] (dump_backtrace_log_lvl) from [<c001457c>] (show_stack+0x24/0x2c)",
                    " r7:df912310 r6:df912140 r5:c081745c r4:00000000",
                    "[<c0014558>] (show_stack) from [<c059798c>] (dump_stack+0x7c/0xc8)"});
  BOOST_TEST(functions(arm) == (std::vector<std::string>{"dump_backtrace_log_lvl", "show_stack"}),
             boost::test_tools::per_element());
  auto arm64 =
      build({"Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000200",
             "Call trace:", " show_stack+0x20/0x38 (C)", " dump_stack_lvl+0xc8/0xf8", " el0t_64_sync+0x1b0/0x1b8"});
  BOOST_TEST(arm64.frames.size() == 3u);
  BOOST_TEST(arm64.frames[0].stack == StackKind::Unknown);  // arm64 prints no stack markers
}

BOOST_AUTO_TEST_CASE(arm32_exception_stack_dump_stays_inside_the_trace) {
  auto r = build({"WARNING: CPU: 0 PID: 1 at kernel/smp.c:912 smp_call_function_many_cond+0x3c4/0x3c8",
                  " generic_handle_arch_irq from call_with_stack+0x18/0x20",
                  " call_with_stack from __irq_svc+0x9c/0xb8", "Exception stack(0xf0825bd0 to 0xf0825c18)",
                  "5bc0:                                     00000000 00000000 00000000 f0825cac",
                  "5be0: 00000000 f0825cac c2f66800 c3891e00 c2f66800 c2f5b2d8 f0825c54 00000000",
                  "5c00: 00000000 f0825c20 c0a6298c c079cdac 60000113 ffffffff",
                  " __irq_svc from blk_mq_dispatch_rq_list+0x424/0x934"});
  BOOST_TEST(functions(r) == (std::vector<std::string>{"generic_handle_arch_irq", "call_with_stack", "__irq_svc"}),
             boost::test_tools::per_element());
  BOOST_TEST(r.traces.size() == 1u);
}

BOOST_AUTO_TEST_CASE(s390_last_breaking_event_is_not_a_frame) {
  auto r = build({"kernel BUG at drivers/scsi/scsi_lib.c:660!", "Call Trace:", "([<00000000027f8000>] 0x27f8000)",
                  " [<0000000000432114>] scsi_init_io+0xdc/0x184", " [<0000004e15e926dc>] 0x4e15e926dc",
                  "Last Breaking-Event-Address:", " [<0000000000431f8a>] scsi_alloc_sgtable+0x5e/0x7c"});
  BOOST_REQUIRE_EQUAL(r.frames.size(), 3u);
  BOOST_TEST(r.frames[0].printed_unreliable);
  BOOST_TEST(*r.last_break->function == "scsi_alloc_sgtable");
}

BOOST_AUTO_TEST_CASE(junk_prefixed_console_lines_keep_their_frames) {
  auto r = build({"BUG: sleeping function called from invalid context at mm/memory.c:3927",
                  "Call Trace: ", "[  120.833031]  [<ffffffff81099a6c>] __might_sleep+0x13c/0x200 ",
                  "--2012-06-28 06:[  120.833075]  [<ffffffff8166bbe9>] system_call_fastpath+0x16/0x1b "});
  BOOST_TEST(functions(r) == (std::vector<std::string>{"__might_sleep", "system_call_fastpath"}),
             boost::test_tools::per_element());
}

// The header test dispatches on a line's first byte: every kind of header field is still read
// whatever value it carries, and the same line behind any other first byte is no field.
BOOST_AUTO_TEST_CASE(header_fields_are_read_behind_their_first_byte_only) {
  struct Kind {
    std::string prefix;               // the header's own words
    std::vector<std::string> values;  // generated below: what follows the words
    bool (*read)(const Report&);      // the field the line sets
  };
  std::vector<std::string> hex_words;
  for (std::uint64_t v : {0x0ULL, 0x1ULL, 0xffffffff81000000ULL, 0x2a00000ULL, 0xdeadbeefULL}) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    hex_words.emplace_back(buf);
  }
  std::vector<std::string> register_rows, offsets, code, psw;
  for (const auto& h : hex_words) {
    register_rows.push_back(" " + h + " RBX: " + h + " RCX: " + h);
    offsets.push_back(" 0x" + h.substr(8) + " from 0xffffffff81000000 (relocation range: 0xffffffff80000000)");
    code.push_back(" 48 89 e5 <0f> 0b " + h.substr(0, 2));
    psw.push_back(" : 0704c00180000000 " + h + " (scsi_alloc_sgtable+0x62/0x7c)");
  }
  const std::vector<Kind> kinds = {
      {"Hardware name:",
       {" QEMU Standard PC (Q35 + ICH9, 2009)", " Dell Inc. PowerEdge R640/0X45NX, BIOS 2.1.8"},
       [](const Report& r) { return r.hardware.has_value(); }},
      {"Modules linked in:",
       {" kvm_intel kvm irqbypass", " nf_tables(E) [last unloaded: x]"},
       [](const Report& r) { return !r.modules.empty(); }},
      {"Kernel Offset:", offsets, [](const Report& r) { return r.kaslr_offset.has_value(); }},
      {"Code:", code, [](const Report& r) { return !r.code_bytes.empty(); }},
      {"RAX:", register_rows, [](const Report& r) { return !r.registers.empty(); }},
      {"EAX:", register_rows, [](const Report& r) { return !r.registers.empty(); }},
      {"RIP: 0010:",
       {"do_idle+0x1/0x2", "[<ffffffff81234567>] foo+0x10/0x20"},
       [](const Report& r) { return r.rip.has_value(); }},
      {"pc :", {" do_idle+0x1/0x2", " el1_abort+0x40/0x60 [mod]"}, [](const Report& r) { return r.rip.has_value(); }},
      {"Krnl PSW", psw, [](const Report& r) { return r.arch == Arch::S390; }},
      {"x29:",
       {" ffff800008003e50 x28: ffff000003b1c000 x27: 0000000000000000"},
       [](const Report& r) { return r.arch == Arch::Arm64; }},
      {"6.1.0-57-cloud-amd64 #1",
       {" Tainted: G        W", " Not tainted"},
       [](const Report& r) { return r.kernel.has_value(); }},
  };
  const std::string marker = "BUG: sleeping function called from invalid context at mm/memory.c:3927";
  for (const Kind& k : kinds) {
    for (const std::string& v : k.values) {
      for (const char* indent : {"", " ", "  \t"}) {
        const std::string line = std::string(indent) + k.prefix + v;
        BOOST_TEST_CONTEXT(line) { BOOST_TEST(k.read(build({marker, line}))); }
      }
      // Other first bytes in front of the same words: prose, not a header field.
      for (const char* junk : {"-", "*", "z", "!", "#", "~", "\x7f", "\xc3\xa9"}) {
        const std::string line = std::string(junk) + k.prefix + v;
        BOOST_TEST_CONTEXT(line) { BOOST_TEST(!k.read(build({marker, line}))); }
      }
    }
  }
}

// The frames vector is reserved ahead and grown in steps (add_frame): every frame of a trace is
// kept, in order, with its line, across each step and at any --max-frames, and the frames past
// the limit are counted. Generated: frame counts around every growth boundary, over several
// traces, against limits below, at and above them.
BOOST_AUTO_TEST_CASE(frames_kept_in_order_across_growth_and_limits) {
  const std::string marker = "BUG: sleeping function called from invalid context at mm/memory.c:3927";
  const std::vector<std::size_t> counts = {0, 1, 2, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025, 1500};
  const std::vector<std::size_t> limits = {1, 2, 10, 63, 64, 65, 100, 256, 1024, 4096};
  for (const std::size_t n : counts) {
    for (const std::size_t limit : limits) {
      for (const std::size_t traces : {1u, 3u}) {
        std::vector<std::string> lines = {marker};
        std::vector<std::uint32_t> frame_lines;
        for (std::size_t t = 0; t < traces; ++t) {
          lines.emplace_back(t == 0 ? "Call Trace:" : "Freed by task " + std::to_string(t) + ":");
          if (t > 0) lines.emplace_back("Call Trace:");
          for (std::size_t i = 0; i < n; ++i) {
            lines.push_back(" f" + std::to_string(t) + "_" + std::to_string(i) + "+0x1/0x2");
            frame_lines.push_back(static_cast<std::uint32_t>(lines.size()));
          }
        }
        btaudit::ReportLimits rl;
        rl.max_frames = limit;
        const Report r = build(lines, rl);
        BOOST_TEST_CONTEXT("frames " << n << " x " << traces << ", limit " << limit) {
          const std::size_t total = n * traces;
          const std::size_t kept = std::min(total, limit);
          BOOST_REQUIRE_EQUAL(r.frames.size(), kept);
          for (std::size_t k = 0; k < kept; ++k) {
            const std::size_t t = k / n;
            const std::string want = "f" + std::to_string(t) + "_" + std::to_string(k % n);
            if (r.frames[k].function.value_or("") != want || r.frames[k].line != frame_lines[k] ||
                r.frames[k].trace != t) {
              BOOST_TEST(r.frames[k].function.value_or("") == want);
              BOOST_TEST(r.frames[k].line == frame_lines[k]);
              BOOST_TEST(r.frames[k].trace == t);
              break;
            }
          }
          bool counted = false;
          for (const auto& tr : r.truncated)
            if (tr.what == "frames") counted = tr.seen == total && tr.kept == kept && tr.limit == limit;
          BOOST_TEST(counted == (total > limit));
        }
      }
    }
  }
}

// Registers (reserved a block at a time): every one is still kept, in order, up to its bound, and
// registers past ReportLimits::max_registers are counted; free-text lines after them change
// nothing. Generated: dumps of 0-70 registers in rows of three against limits below, at and above
// the reservation.
BOOST_AUTO_TEST_CASE(registers_kept_in_order_across_reservation) {
  const std::string marker = "BUG: sleeping function called from invalid context at mm/memory.c:3927";
  for (const std::size_t n : {0u, 1u, 3u, 31u, 32u, 33u, 64u, 70u}) {
    for (const std::size_t limit : {0u, 1u, 16u, 31u, 32u, 33u, 64u, 100u}) {
      std::vector<std::string> lines = {marker};
      for (std::size_t i = 0; i < n; i += 3) {
        std::string row;
        for (std::size_t k = i; k < std::min(n, i + 3); ++k) {
          char buf[48];
          std::snprintf(buf, sizeof buf, "%sR%02zu: %016zx", row.empty() ? "" : " ", k, k * 0x1111);
          row += buf;
        }
        lines.push_back(row);
      }
      for (int b = 0; b < 20; ++b) lines.push_back("free text line number " + std::to_string(b) + " of the report");
      btaudit::ReportLimits rl;
      rl.max_registers = limit;
      const Report r = build(lines, rl);
      BOOST_TEST_CONTEXT("registers " << n << ", limit " << limit) {
        // Distinct names and no RIP line: one block, holding what the limit let in.
        BOOST_REQUIRE_EQUAL(r.registers.size(), std::min<std::size_t>(1, std::min(n, limit)));
        const auto& values = r.registers.empty() ? decltype(r.registers[0].values){} : r.registers[0].values;
        BOOST_REQUIRE_EQUAL(values.size(), std::min(n, limit));
        for (std::size_t k = 0; k < values.size(); ++k) {
          char name[24];
          std::snprintf(name, sizeof name, "R%02zu", k);
          BOOST_TEST(values[k].first == name);
          BOOST_TEST(values[k].second == k * 0x1111);
        }
        bool counted = false;
        for (const auto& t : r.truncated)
          if (t.what == "registers") counted = t.seen == n && t.kept == std::min(n, limit);
        BOOST_TEST(counted == (n > limit));
      }
    }
  }
}

// Register values are read sixteen digits at a time (scan::hex_wide): the same value, the same
// rest of the line and the same refusals as scan::hex, on generated digit runs of every length
// (past sixteen too), both cases, every kind of byte after them, and lines shorter than a block.
BOOST_AUTO_TEST_CASE(register_values_read_by_block_as_digit_by_digit) {
  std::mt19937 rng(1414);
  const std::string digits = "0123456789abcdefABCDEF";
  const std::string stops[] = {"",    " ", ":", "g", "G", "x",     std::string(1, '\0'),     "\xff", "/",
                               ">]",  "@", "`", "[", "{", "/0x2b", " RBX: ffff8801ac392080", "\x80", "\x90",
                               "\xc6"};
  int wide = 0;
  for (int i = 0; i < 400000; ++i) {
    std::string line;
    if (rng() % 8 == 0) {
      line.resize(rng() % 24);
      for (char& c : line) c = static_cast<char>(rng());
    } else {
      const std::size_t n = rng() % 21;
      for (std::size_t k = 0; k < n; ++k) line.push_back(digits[rng() % digits.size()]);
      line += stops[rng() % std::size(stops)];
      if (rng() % 2 == 0) line += std::string(rng() % 20, static_cast<char>('0' + rng() % 10));
    }
    std::string_view a = line;
    std::string_view b = line;
    const auto want = btaudit::scan::hex(a);
    const auto got = btaudit::scan::hex_wide(b);
    wide += line.size() >= 16 ? 1 : 0;
    BOOST_TEST_REQUIRE(got.has_value() == want.has_value(), line);
    if (want) BOOST_TEST_REQUIRE(*got == *want, line);
    BOOST_TEST_REQUIRE((a.data() == b.data() && a.size() == b.size()), line);
  }
  BOOST_TEST(wide > 100000);  // the block path is taken often
}

// scan's trims, which every line passes through, against the substr forms they replaced: every
// string of up to six bytes drawn from the spaces, the other control bytes near them and letters.
BOOST_AUTO_TEST_CASE(trims_cut_what_substr_cut) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; };
  const std::string alphabet{' ', '\t', '\r', '\f', '\v', '\n', 'a', '\0'};
  std::string line;
  for (std::size_t len = 0; len <= 6; ++len) {
    std::size_t count = 1;
    for (std::size_t k = 0; k < len; ++k) count *= alphabet.size();
    for (std::size_t code = 0; code < count; ++code) {
      line.clear();
      for (std::size_t k = 0, c = code; k < len; ++k, c /= alphabet.size())
        line.push_back(alphabet[c % alphabet.size()]);
      const std::string_view v = line;
      std::size_t i = 0;
      while (i < v.size() && space(v[i])) ++i;
      std::size_t n = v.size();
      while (n > 0 && space(v[n - 1])) --n;
      const std::string_view left = v.substr(i);
      const std::string_view right = v.substr(0, n);
      const auto same = [](std::string_view a, std::string_view b) {
        return a.data() == b.data() && a.size() == b.size();
      };
      BOOST_TEST_REQUIRE(same(btaudit::scan::trim_left(v), left));
      BOOST_TEST_REQUIRE(same(btaudit::scan::trim_right(v), right));
      std::size_t m = left.size();
      while (m > 0 && space(left[m - 1])) --m;
      BOOST_TEST_REQUIRE(same(btaudit::scan::trim(v), left.substr(0, m)));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
