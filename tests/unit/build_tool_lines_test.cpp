// The kernel's build and its tools print in the kernel's words too: kconfig's and modpost's
// "WARNING: ..." (a kernel build log, KernelCI's kbuild logs), kmod's "depmod: WARNING: ...",
// a checker's "drivers/x.c:12:3-9: WARNING: ..." (coccinelle, checkpatch --terse) and
// checkpatch's "WARNING: ..." with the place it is about on the next line. None of them is a
// kernel report; the kernel's own reports printed beside them still are. Each scenario is
// generated from the tables the parser reads (markers_detail::kBuildToolForms, kKmodTools),
// over the ways a build log reaches btaudit: bare, with a runner's elapsed time, CRLF.
#include <boost/test/unit_test.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "text/log_parser.h"
#include "text/report_markers.h"

using namespace btaudit;

namespace {

// How a build log's line reaches the file: `head` before it, `end` after it.
struct LineForm {
  std::string_view name;
  std::string_view head;
  std::string_view end;
};

const std::vector<LineForm> kLineForms = {
    {"bare, LF", "", "\n"},
    {"bare, CRLF", "", "\r\n"},
    {"a runner's elapsed time", "00:00:14 ", "\n"},
    {"indented by a runner", "  ", "\n"},
};

std::string log_of(const LineForm& f, const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += std::string(f.head) + l + std::string(f.end);
  return out;
}

std::vector<std::string> headers(const std::vector<Report>& reports) {
  std::vector<std::string> out;
  for (const Report& r : reports) out.push_back(r.header);
  return out;
}

// kbuild's quiet command lines around a tool's message.
std::vector<std::string> build_lines(std::string_view message) {
  return {"  CC      kernel/fork.o", std::string(message),  "  Depends on [n]: PCI [=n]",
          "  Selected by [y]:",      "  LD      vmlinux.o", "  MODPOST vmlinux.symvers"};
}

// A WARN() as a console without printk times shows it (kernel/panic.c __warn).
const std::vector<std::string> kKernelWarning = {
    "------------[ cut here ]------------",
    "WARNING: CPU: 1 PID: 1 at drivers/base/core.c:2363 device_release+0x7f/0x90",
    "Modules linked in:",
    "Call Trace:",
    " kobject_put+0xa7/0x1a0",
    " device_unregister+0x1a/0x60",
    "---[ end trace 0000000000000000 ]---"};
const std::string kKernelHeader = kKernelWarning[1];

template <typename Check>
void for_every_form(Check check) {
  for (const LineForm& f : kLineForms) BOOST_TEST_CONTEXT(f.name) {
      check(f);
    }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(build_tool_lines)

BOOST_AUTO_TEST_CASE(every_build_tool_form_opens_no_report_and_the_kernels_warning_beside_it_does) {
  for (const markers_detail::BuildToolForm& row : markers_detail::kBuildToolForms) {
    BOOST_TEST_CONTEXT(row.source) {
      BOOST_TEST(!match_start(row.example));
      for_every_form([&row](const LineForm& f) {
        BOOST_TEST(parse_log(log_of(f, build_lines(row.example)), "build.log").empty());
        std::vector<std::string> lines = build_lines(row.example);
        lines.insert(lines.end(), kKernelWarning.begin(), kKernelWarning.end());
        BOOST_TEST(
            headers(parse_log(log_of(f, lines), "build-and-boot.log")) == std::vector<std::string>{kKernelHeader},
            boost::test_tools::per_element());
      });
    }
  }
}

BOOST_AUTO_TEST_CASE(a_form_is_told_by_its_own_words_not_by_the_warning_word) {
  // The kernel's WARNING lines that share a word with a row stay reports.
  BOOST_TEST(match_start("WARNING: CPU: 0 PID: 1 at scripts/mod/modpost.c:12 foo+0x1/0x2").has_value());
  BOOST_TEST(match_start("WARNING: possible circular locking dependency detected").has_value());
  BOOST_TEST(match_start("WARNING: the firmware is missing from /lib/firmware").has_value());  // not one word
  BOOST_TEST(match_start("WARNING: \"quoted\" but not undefined").has_value());
  // Each row's form cut before its own words is a report again: the rows are exact.
  for (const markers_detail::BuildToolForm& row : markers_detail::kBuildToolForms) {
    const std::string cut = "WARNING: " + std::string(row.text.substr(0, row.text.size() / 2)) + "x";
    if (row.shape == markers_detail::BuildToolForm::Shape::Prefix) BOOST_TEST_CONTEXT(cut) {
        BOOST_TEST(match_start(cut).has_value());
      }
  }
}

BOOST_AUTO_TEST_CASE(kmod_tools_messages_open_no_report) {
  for (const std::string_view tool : markers_detail::kKmodTools)
    for (const std::string_view priority : {"WARNING", "INFO", "BUG"}) {
      const std::string line = std::string(tool) + ": " + std::string(priority) +
                               ": /lib/modules/6.1.0/kernel/drivers/foo.ko needs unknown symbol bar";
      BOOST_TEST_CONTEXT(line) {
        BOOST_TEST(!match_start(line));
        for_every_form([&line](const LineForm& f) {
          BOOST_TEST(parse_log(log_of(f, {"  INSTALL /lib/modules/6.1.0/kernel/drivers/foo.ko", line,
                                          "  DEPMOD  /lib/modules/6.1.0"}),
                               "install.log")
                         .empty());
        });
      }
    }
}

BOOST_AUTO_TEST_CASE(the_kernels_own_subsystem_prefixes_still_open_reports) {
  // pr_fmt prefixes of the kernel before a start word: reports, unlike a kmod tool's name.
  BOOST_TEST(match_start("watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [swapper/0:1]").has_value());
  BOOST_TEST(match_start("rcu: INFO: rcu_sched detected stalls on CPUs/tasks:").has_value());
  // A name that merely contains a tool's name is not the tool.
  BOOST_TEST(match_start("mydepmod: WARNING: CPU: 0 PID: 1 at kernel/foo.c:1 foo+0x1/0x2").has_value());
}

BOOST_AUTO_TEST_CASE(a_checkers_source_location_before_a_start_word_opens_no_report) {
  const std::vector<std::string_view> locations = {"drivers/net/foo.c:12: ", "drivers/net/foo.c:12:3: ",
                                                   "drivers/net/foo.c:12:3-9: ", "foo.h:1: ", "./lib/x.c:100:1-20: "};
  const std::vector<std::string_view> words = {"WARNING: kzalloc should be used for foo", "BUG: something",
                                               "INFO: task blocked"};
  for (const std::string_view at : locations)
    for (const std::string_view word : words) {
      const std::string line = std::string(at) + std::string(word);
      BOOST_TEST_CONTEXT(line) {
        BOOST_TEST(!match_start(line));
        for_every_form([&line](const LineForm& f) {
          // The location opens the line (behind its indentation): behind a runner's prefix it is
          // not told from ALSA's (below).
          if (f.head.find_first_not_of(' ') != std::string_view::npos) return;
          BOOST_TEST(parse_log(log_of(f, {line}), "cocci.log").empty());
        });
      }
    }
  // The kernel's own location before a start word follows a word: ALSA's verbose printk
  // (sound/core/misc.c), a report for abrt and telemetrics-client (their ALSA samples).
  BOOST_TEST(
      match_start("ALSA sound/core/pcm_lib.c:154: BUG: stream = 1, pos = 0x1138, buffer size = 0x1138").has_value());
  // Not a location: no path, three numbers, no number, a range cut short, a word after or before it.
  for (const std::string_view before : {"foo:12: ", "drivers/foo.c:1:2:3: ", "drivers/foo.c:x: ",
                                        "drivers/foo.c:12:3-: ", "drivers/foo.c:12: in ", "in drivers/foo.c:12: "}) {
    const std::string line = std::string(before) + "WARNING: CPU: 0 PID: 1 at kernel/foo.c:1 foo+0x1/0x2";
    BOOST_TEST_CONTEXT(line) { BOOST_TEST(match_start(line).has_value()); }
  }
}

BOOST_AUTO_TEST_CASE(checkpatch_warnings_with_their_place_open_no_report) {
  // checkpatch.pl report(): the message, then $herecurr ("#N: FILE: f:n:" and the line) or
  // $hereline ("#N: " and the line).
  const std::vector<std::vector<std::string>> places = {{"#23: FILE: drivers/foo.c:123:", "+\tfoo();"},
                                                        {"#7: ", "+Subject: [PATCH] foo: bar"}};
  for (const auto& place : places)
    for_every_form([&place](const LineForm& f) {
      // The short place ("#7: ") is read at a line's start only (behind its indentation).
      if (!place[0].starts_with("#23") && f.head.find_first_not_of(' ') != std::string_view::npos) return;
      std::vector<std::string> lines = {"WARNING: line length of 105 exceeds 100 columns"};
      lines.insert(lines.end(), place.begin(), place.end());
      lines.insert(lines.end(),
                   {"", "ERROR: Missing Signed-off-by: line(s)", "", "total: 1 errors, 1 warnings, 30 lines checked"});
      BOOST_TEST(parse_log(log_of(f, lines), "checkpatch.log").empty());
      // The kernel's warning after it is read whole.
      lines.insert(lines.end(), kKernelWarning.begin(), kKernelWarning.end());
      BOOST_TEST(
          headers(parse_log(log_of(f, lines), "checkpatch-then-boot.log")) == std::vector<std::string>{kKernelHeader},
          boost::test_tools::per_element());
    });
}

BOOST_AUTO_TEST_CASE(a_kernel_warning_whose_next_line_opens_with_a_hash_is_kept) {
  // Only a header alone, of a warning, with "#<digits>: " right after it is checkpatch's: the
  // kernel's report with its lines is kept whatever follows.
  for_every_form([](const LineForm& f) {
    std::vector<std::string> lines = kKernelWarning;
    lines.insert(lines.end() - 1, "#12: not a checkpatch line");
    BOOST_TEST(headers(parse_log(log_of(f, lines), "t")) == std::vector<std::string>{kKernelHeader},
               boost::test_tools::per_element());
    const std::vector<std::string> bug = {"BUG: unable to handle page fault for address: ffff888000000000",
                                          "#PF: supervisor read access in kernel mode",
                                          "#PF: error_code(0x0000) - not-present page", "Oops: 0000 [#1] SMP"};
    BOOST_TEST(parse_log(log_of(f, bug), "t").size() == 1U);
  });
}

BOOST_AUTO_TEST_SUITE_END()
