// A console carries more than the kernel: the boot loader and firmware print there first (U-Boot,
// coreboot and depthcharge, Trusted Firmware, again at each reboot), user space prints there
// too, some of it in the kernel's words ("WARNING: ..."). Their lines lack the prefix the
// kernel gives each of its lines (printk time, caller id): in a log whose kernel lines have it,
// the reports they open are dropped (LogParser::settle_unprefixed), unless one of them printed
// a stack trace or a kernel line follows a start line at once (a header whose prefix was cut).
// Where no prefix tells (a console without printk times, a log whose kernel never printed),
// a boot loader's banner and its hand-over to the kernel do (markers_detail::kBootLoaderLines):
// the reports between them go, unless one printed what the kernel alone prints.
// Every scenario is tried with every way of printing the kernel's lines and both line ends.
#include <boost/test/unit_test.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "text/log_parser.h"
#include "text/report_markers.h"

using namespace btaudit;

namespace {

// How a kernel line reaches the log: `head` with "%s" standing for printk's time ("%5lu.%06lu").
struct KernelForm {
  std::string_view name;
  std::string_view head;
  bool has_time;  // false: a caller id alone (printk.time=0 with CONFIG_PRINTK_CALLER)
};

const std::vector<KernelForm> kForms = {
    {"console", "[%s] ", true},
    {"console with caller id", "[%s][    T1] ", true},
    {"/dev/kmsg-like level", "<6>[%s] ", true},
    {"syslog", "Jun  1 00:26:46 board kernel: [%s] ", true},
    {"dmesg -x", "kern  :info  : [%s] ", true},
    {"caller id alone", "[    T1] ", false},
};

// Boot loaders' and firmware's own lines that open with a kernel report's word, as KernelCI's
// serial logs show them (kernelci/logspec tests/logs).
const std::vector<std::string_view> kFirmwareLines = {
    "WARNING: Caches not enabled",                                      // U-Boot on a BCM2835
    "WARNING: RO_VPD is uninitialized or empty.",                       // coreboot, drivers/vpd
    "WARNING: can't convert coreboot GPIOs, 'lid' won't be resampled",  // depthcharge
    "WARNING: region 0:",                                               // Trusted Firmware's "WARNING: " marker
};

const std::vector<std::string_view> kLineEnds = {"\n", "\r\n"};

std::string kernel_line(const KernelForm& f, std::string_view time, std::string_view message) {
  std::string out(f.head);
  if (const auto at = out.find("%s"); at != std::string::npos) out.replace(at, 2, time);
  return out + std::string(message);
}

// A kernel WARN as __warn() prints it, at `time`.
std::vector<std::string> kernel_warning(const KernelForm& f, std::string_view time) {
  return {kernel_line(f, time, "------------[ cut here ]------------"),
          kernel_line(f, time, "WARNING: CPU: 0 PID: 0 at arch/x86/kernel/alternative.c:730 apply_returns+0xc0/0x241"),
          kernel_line(f, time, "Call Trace:"),
          kernel_line(f, time, " <TASK>"),
          kernel_line(f, time, " alternative_instructions+0x7d/0x143"),
          kernel_line(f, time, " start_kernel+0x4da/0x58c"),
          kernel_line(f, time, " </TASK>"),
          kernel_line(f, time, "---[ end trace 0000000000000000 ]---")};
}

std::vector<std::string> firmware_block(std::string_view warning) {
  return {"coreboot-v1.9308 bootblock starting (log level: 8)...", std::string(warning),
          "Exiting depthcharge with code 4 at timestamp: 41309344", "Starting kernel ..."};
}

std::string joined(const std::vector<std::vector<std::string>>& parts, std::string_view end) {
  std::string out;
  for (const auto& part : parts)
    for (const std::string& l : part) out += l + std::string(end);
  return out;
}

std::vector<std::string> headers(const std::vector<Report>& reports) {
  std::vector<std::string> out;
  for (const Report& r : reports) out.push_back(r.header);
  return out;
}

constexpr std::string_view kKernelWarning =
    "WARNING: CPU: 0 PID: 0 at arch/x86/kernel/alternative.c:730 apply_returns+0xc0/0x241";

// Runs `check` on every kernel form, firmware line and line end.
template <typename Check>
void for_every_variant(Check check) {
  for (const KernelForm& f : kForms)
    for (const std::string_view fw : kFirmwareLines)
      for (const std::string_view end : kLineEnds)
        BOOST_TEST_CONTEXT(f.name << " / " << fw << " / " << (end.size() == 2 ? "CRLF" : "LF")) { check(f, fw, end); }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(boot_loader_lines)

BOOST_AUTO_TEST_CASE(firmware_before_the_kernels_first_line_opens_no_report) {
  for_every_variant([](const KernelForm& f, std::string_view fw, std::string_view end) {
    // The kernel's first line need not read zero: a quiet console shows it seconds in.
    const std::string log = joined({firmware_block(fw),
                                    {kernel_line(f, "    5.977248", "Run /init as init process")},
                                    kernel_warning(f, "    6.000000")},
                                   end);
    const auto reports = parse_log(log, "t");
    BOOST_TEST(headers(reports) == std::vector<std::string>{std::string(kKernelWarning)},
               boost::test_tools::per_element());
  });
}

BOOST_AUTO_TEST_CASE(firmware_between_two_boots_opens_no_report) {
  for_every_variant([](const KernelForm& f, std::string_view fw, std::string_view end) {
    // Whatever the second boot's first kernel line: the banner start_kernel prints first, arm's
    // boot CPU line before it, or a later one (a quiet console).
    std::vector<std::string> openers = {kernel_line(f, "    0.000000", "Linux version 6.10.0 (gcc 12) #1 SMP"),
                                        kernel_line(f, "    0.000000", "Booting Linux on physical CPU 0x0")};
    openers.push_back(kernel_line(f, "    5.977248", "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=crit RESULT=pass>"));
    for (const std::string& opener : openers) {
      BOOST_TEST_CONTEXT(opener) {
        const std::string log = joined({{kernel_line(f, "    0.000000", "Linux version 6.10.0 (gcc 12) #1 SMP")},
                                        kernel_warning(f, "   12.000000"),
                                        {kernel_line(f, "   13.000000", "reboot: Restarting system")},
                                        firmware_block(fw),
                                        {opener},
                                        kernel_warning(f, "   12.500000")},
                                       end);
        const auto reports = parse_log(log, "t");
        BOOST_TEST(headers(reports) == std::vector<std::string>(2, std::string(kKernelWarning)),
                   boost::test_tools::per_element());
      }
    }
  });
}

BOOST_AUTO_TEST_CASE(firmware_after_the_kernels_last_line_opens_no_report) {
  // The log ends in the next boot's firmware (a board that reset and never came back).
  for_every_variant([](const KernelForm& f, std::string_view fw, std::string_view end) {
    const std::string log = joined({kernel_warning(f, "  100.000000"), firmware_block(fw)}, end);
    BOOST_TEST(headers(parse_log(log, "t")) == std::vector<std::string>{std::string(kKernelWarning)},
               boost::test_tools::per_element());
  });
}

BOOST_AUTO_TEST_CASE(user_space_start_words_amid_kernel_lines_open_no_report) {
  // A test runner's warning between two kernel lines, the kernel's clock going on.
  for_every_variant([](const KernelForm& f, std::string_view /*fw*/, std::string_view end) {
    const std::string log = joined({{kernel_line(f, "   29.281350", "kselftest: Running tests in exec")},
                                    {"ok 7 selftests: exec: binfmt_script",
                                     "WARNING: Optional imports not found, TAP 13 output will be", "ignored."},
                                    {kernel_line(f, "   30.000000", "usb 1-1: new high-speed USB device")}},
                                   end);
    BOOST_TEST(parse_log(log, "t").empty());
  });
}

BOOST_AUTO_TEST_CASE(a_header_whose_prefix_was_cut_stays_a_report) {
  // A report copied from its first word: its header lost the kernel's prefix, the next line has it.
  for_every_variant([](const KernelForm& f, std::string_view /*fw*/, std::string_view end) {
    for (const bool after_kernel_lines : {false, true}) {
      std::vector<std::vector<std::string>> parts;
      if (after_kernel_lines) parts.push_back({kernel_line(f, "    3.000000", "random: crng init done")});
      parts.push_back({"BUG: workqueue lockup - pool cpus=0 node=0 flags=0x0 nice=0 stuck for 33s!",
                       kernel_line(f, "    4.000000", "Showing busy workqueues and worker pools:")});
      const auto reports = parse_log(joined(parts, end), "t");
      BOOST_REQUIRE_EQUAL(reports.size(), 1u);
      BOOST_TEST(reports[0].header.starts_with("BUG: workqueue lockup"));
    }
  });
}

BOOST_AUTO_TEST_CASE(a_log_without_kernel_times_drops_what_a_boot_loader_printed_between_its_banner_and_handoff) {
  // printk.time=0 and no caller ids: no prefix tells the kernel's lines from a boot loader's,
  // but the boot loader's banner and its hand-over to the kernel do (kBootLoaderLines).
  for (const std::string_view fw : kFirmwareLines)
    for (const std::string_view end : kLineEnds) {
      const std::string log = joined({firmware_block(fw),
                                      {"Linux version 6.10.0 (gcc 12) #1 SMP", std::string(kKernelWarning),
                                       "Call Trace:", " start_kernel+0x4da/0x58c"}},
                                     end);
      BOOST_TEST(headers(parse_log(log, "t")) == std::vector<std::string>{std::string(kKernelWarning)},
                 boost::test_tools::per_element());
    }
}

BOOST_AUTO_TEST_CASE(every_banner_and_every_handoff_bracket_the_boot_loaders_lines) {
  // Each banner row with each hand-over row, an untimestamped kernel after it.
  const std::vector<std::string> kernel = {std::string(kKernelWarning), "Call Trace:", " start_kernel+0x4da/0x58c"};
  for (const auto& banner : markers_detail::kBootLoaderLines) {
    if (banner.role != markers_detail::BootLoaderLine::Role::Banner) continue;
    for (const auto& handoff : markers_detail::kBootLoaderLines) {
      if (handoff.role != markers_detail::BootLoaderLine::Role::Handoff) continue;
      BOOST_TEST_CONTEXT(banner.example << " / " << handoff.example) {
        for (const std::string_view fw : kFirmwareLines)
          for (const std::string_view end : kLineEnds) {
            const std::string log = joined({{std::string(banner.example), std::string(fw), "Normal boot.",
                                             std::string(fw), std::string(handoff.example)},
                                            kernel},
                                           end);
            BOOST_TEST(headers(parse_log(log, "t")) == std::vector<std::string>{std::string(kKernelWarning)},
                       boost::test_tools::per_element());
          }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_log_whose_kernel_never_printed_has_no_report) {
  // KernelCI's failed boots: the boot loader's lines, three boots of them, and the log ends
  // (at the hand-over, or before it).
  for (const auto& banner : markers_detail::kBootLoaderLines) {
    if (banner.role != markers_detail::BootLoaderLine::Role::Banner) continue;
    for (const std::string_view fw : kFirmwareLines)
      for (const bool handed_over : {true, false}) BOOST_TEST_CONTEXT(banner.example << " / " << fw) {
          std::vector<std::string> boot = {std::string(banner.example), std::string(fw), "Loaded segments"};
          if (handed_over) boot.emplace_back("Starting kernel ...");
          BOOST_TEST(parse_log(joined({boot, boot, boot}, "\n"), "t").empty());
        }
  }
}

BOOST_AUTO_TEST_CASE(coreboots_level_prefix_and_colours_still_open_the_stretch) {
  // coreboot 4.19+ with CONFIG_CONSOLE_USE_LOGLEVEL_PREFIX and ANSI colours, as KernelCI's
  // Chromebooks print it (kernelci/logspec linux_boot_008): its warning is "[WARN ]  WARNING: ...".
  for (const std::string_view level : {"NOTE ", "INFO ", "DEBUG", "SPEW "})
    for (const std::string_view end : kLineEnds) BOOST_TEST_CONTEXT(level) {
        const std::string banner = "\x1b[1m[" + std::string(level) +
                                   "]  coreboot-v1.9308_26_0.0.22-29290-gbc6a2a1197a Tue May 14 10:29:19 UTC 2024 "
                                   "bootblock starting (log level: 8)...\x1b[0m";
        const std::string log = joined({{banner, "\x1b[0m[WARN ]  WARNING: RO_VPD is uninitialized or empty.\x1b[0m",
                                         "\x1b[0m[DEBUG]  FMAP: area RW_VPD found @ 615000 (8192 bytes)\x1b[0m",
                                         "Starting depthcharge on Steelix...", "Starting kernel ..."}},
                                       end);
        BOOST_TEST(parse_log(log, "t").empty());
      }
  BOOST_TEST(markers_detail::boot_loader_line("[NOTE ]  coreboot-v1 bootblock starting") ==
             markers_detail::boot_loader_line("coreboot-v1 bootblock starting"));
  BOOST_TEST(!markers_detail::boot_loader_line("[drm] coreboot-v1"));
  BOOST_TEST(!markers_detail::boot_loader_line("[NOTE ] coreboot-v1"));
}

BOOST_AUTO_TEST_CASE(the_rows_are_exact_and_read_on_unprefixed_lines_only) {
  for (const auto& row : markers_detail::kBootLoaderLines) {
    BOOST_TEST_CONTEXT(row.source) {
      BOOST_TEST(row.example.starts_with(row.prefix));
      BOOST_TEST(markers_detail::boot_loader_line(row.example) == &row);
      BOOST_TEST(!markers_detail::boot_loader_line(row.prefix.substr(0, row.prefix.size() - 1)));
      BOOST_TEST(!markers_detail::boot_loader_line(" " + std::string(row.example)));
    }
  }
  // A banner cut short or indented (a kernel message quoting it) opens no stretch: the
  // firmware line after it stays a report.
  for (const std::string& banner : {std::string("U-Boo 2016.03"), std::string("  U-Boot 2016.03 (Feb 09 2016)")}) {
    BOOST_TEST_CONTEXT(banner) {
      const std::string log = joined({{banner, "WARNING: Caches not enabled", "Starting kernel ..."}}, "\n");
      BOOST_TEST(parse_log(log, "t").size() == 1u);
    }
  }
}

BOOST_AUTO_TEST_CASE(without_a_banner_a_boot_loaders_warning_stays) {
  // A boot loader not in the table (or a log cut after its banner): nothing tells its lines
  // from an untimestamped kernel's, and its report stays.
  const std::string log = joined({{"WARNING: Caches not enabled", "Starting kernel ...", std::string(kKernelWarning),
                                   "Call Trace:", " start_kernel+0x4da/0x58c"}},
                                 "\n");
  BOOST_TEST(parse_log(log, "t").size() == 2u);
}

BOOST_AUTO_TEST_CASE(a_kernel_report_inside_a_bracket_keeps_the_stretch) {
  // A line the kernel alone prints (a trace, "CPU: N PID: N") after a banner and before any
  // hand-over: the table missed the hand-over (a boot loader's other words, a quiet kernel
  // without its banner), and nothing of the stretch goes.
  const std::vector<std::vector<std::string>> kernels = {
      {std::string(kKernelWarning), "Call Trace:", " start_kernel+0x4da/0x58c"},
      {"BUG: scheduling while atomic: swapper/0/1/0x00000002", "CPU: 0 PID: 1 Comm: swapper/0 Not tainted 6.10.0 #1"}};
  for (const auto& kernel : kernels)
    for (const bool handed_over : {true, false})
      BOOST_TEST_CONTEXT(kernel[0] << (handed_over ? " / handed over" : "")) {
        std::vector<std::vector<std::string>> parts = {
            {"U-Boot 2016.03 (Feb 09 2016)", "WARNING: Caches not enabled", "Hit any key to stop autoboot:  0"},
            kernel};
        if (handed_over) parts.push_back({"Starting kernel ..."});
        BOOST_TEST(parse_log(joined(parts, "\n"), "t").size() == 2u);
      }
}

BOOST_AUTO_TEST_CASE(the_previous_boots_report_before_a_banner_stays) {
  // An untimestamped kernel's report without a trace, the board resetting into its boot
  // loader: the stretch starts at the banner, and the kernel's report before it stays.
  const std::string panic = "Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)";
  for (const std::string_view fw : kFirmwareLines) BOOST_TEST_CONTEXT(fw) {
      const std::string log = joined({{panic, "Rebooting in 10 seconds.."}, firmware_block(fw)}, "\n");
      BOOST_TEST(headers(parse_log(log, "t")) == std::vector<std::string>{panic}, boost::test_tools::per_element());
    }
}

BOOST_AUTO_TEST_CASE(an_untimestamped_report_with_a_trace_stays_before_the_first_kernel_line) {
  // Reports pasted one after another: the first without its times, then a console log.
  for_every_variant([](const KernelForm& f, std::string_view /*fw*/, std::string_view end) {
    const std::string log = joined(
        {{std::string(kKernelWarning), "Call Trace:", " start_kernel+0x4da/0x58c"}, kernel_warning(f, "   44.000000")},
        end);
    BOOST_TEST(parse_log(log, "t").size() == 2u);
    // A truncated one (no trace) beside it is the kernel's too, before it or after it.
    const std::vector<std::string> truncated = {"WARNING: CPU: 2 PID: 7 at kernel/locking/lockdep.c:3344 f+0x1/0x2",
                                                "Rebooting in 86400 seconds.."};
    const std::vector<std::string> whole = {"BUG: KASAN: use-after-free in g+0x1/0x2", "Call Trace:", " g+0x1/0x2"};
    BOOST_TEST(parse_log(joined({truncated, whole, kernel_warning(f, "   44.000000")}, end), "t").size() == 3u);
    BOOST_TEST(parse_log(joined({whole, truncated, kernel_warning(f, "   44.000000")}, end), "t").size() == 3u);
  });
}

BOOST_AUTO_TEST_CASE(reports_other_programs_print_stay_reports) {
  // The start table's rows printed by programs other than the kernel (report_markers.cpp): the
  // decompressor's reboot (syzkaller's "unexpected kernel reboot"), syzkaller's executor, a Go
  // runtime, Trusty. Between kernel lines, at the log's end, before its first kernel line.
  const std::vector<std::string> others = {
      "Booting the kernel.", "SYZFATAL: executor 1 failed 11 times: failed to create temp dir",
      "SYZFAIL: wrong response packet", "panic: runtime error: index out of range [3] with length 3",
      "trusty: panic (caller 0xffffffffe000fbb8): ASSERT FAILED at (ipc.c:472): !list_in_list(&chan->node)"};
  for (const std::string& other : others) {
    BOOST_TEST_CONTEXT(other) {
      const std::vector<std::string> kernel = {"[   50.000000] random: crng init done"};
      const std::vector<std::string> body = {other, "some more of its output", "and more"};
      for (const std::string& log :
           {joined({kernel, body, {"[    0.000000] Linux version 6.1.0 (gcc 12) #1 SMP"}}, "\n"),
            joined({kernel, body}, "\n"), joined({body, kernel}, "\n")}) {
        const auto reports = parse_log(log, "t");
        BOOST_REQUIRE_EQUAL(reports.size(), 1u);
        BOOST_TEST(reports[0].header == other);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_long_stretch_of_firmware_reports_is_held_no_more_than_its_bound) {
  // Reports wait for the next kernel line in memory; past 256 of them the stretch is let go
  // undecided, and all of it stays (none is dropped after some were handed on).
  std::vector<std::string> many;
  for (int i = 0; i < 300; ++i) many.push_back("WARNING: region " + std::to_string(i) + ":");
  const std::vector<std::string> boot = {"Starting kernel ...", "[    0.100000] Run /init as init process"};
  const std::string log = joined({many, boot}, "\n");
  std::size_t seen = 0;
  parse_log(log, "t", [&seen](Report&&) { ++seen; });
  BOOST_TEST(seen == 300u);
  // Fewer, and all of them go.
  many.resize(200);
  BOOST_TEST(parse_log(joined({many, boot}, "\n"), "t").empty());
}

BOOST_AUTO_TEST_CASE(a_firmware_report_does_not_swallow_the_kernels_first_report) {
  // The boot loader's "report" is still open (its idle window has not run out) when the kernel
  // starts: the kernel's lines must not be read as its frames, and the kernel's report is whole.
  for_every_variant([](const KernelForm& f, std::string_view fw, std::string_view end) {
    const std::string log = joined({firmware_block(fw), kernel_warning(f, "    0.000000")}, end);
    const auto reports = parse_log(log, "t");
    BOOST_REQUIRE_EQUAL(reports.size(), 1u);
    BOOST_TEST(reports[0].header == kKernelWarning);
    BOOST_TEST(reports[0].frames.size() == 2u);
  });
}

BOOST_AUTO_TEST_SUITE_END()
