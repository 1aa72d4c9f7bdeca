// Debuginfo and call-site verdicts on a kernel-like image the test suite
// builds itself (tests/fixtures/minikernel). Instruction offsets come from
// binutils' objdump, an oracle independent of libdwfl and Zydis.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/analyze_report.h"
#include "analysis/debug_analysis.h"
#include "debuginfo/kernel_debuginfo.h"
#include "debuginfo/kernel_profile.h"
#include "model_printers.h"
#include "provider/debuginfo_error.h"
#include "temp_dir.h"
#include "text/log_parser.h"

namespace {

using namespace btaudit;

struct Insn {
  std::uint64_t address;
  std::string text;
};

// Function name -> its instructions, and function starts, from objdump -d.
struct Disassembly {
  std::map<std::string, std::vector<Insn>> functions;
  std::map<std::string, std::uint64_t> start;
  std::map<std::string, std::uint64_t> size;  // to the next function, as kallsyms counts it

  explicit Disassembly(const std::string& image) {
    const std::string cmd = "objdump -d --no-show-raw-insn " + image;
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
    BOOST_REQUIRE(pipe);
    char buf[512];
    std::string current;
    std::vector<std::pair<std::uint64_t, std::string>> order;
    while (fgets(buf, sizeof buf, pipe.get())) {
      std::string line(buf);
      if (line.size() > 18 && line[16] == ' ' && line[17] == '<') {
        current = line.substr(18, line.find('>') - 18);
        start[current] = std::stoull(line.substr(0, 16), nullptr, 16);
        order.emplace_back(start[current], current);
      } else if (!current.empty() && line.find(":\t") != std::string::npos) {
        const std::uint64_t a = std::stoull(line.substr(0, line.find(':')), nullptr, 16);
        functions[current].push_back({a, line.substr(line.find(":\t") + 2)});
      }
    }
    for (std::size_t i = 0; i + 1 < order.size(); ++i) size[order[i].second] = order[i + 1].first - order[i].first;
    size[order.back().second] = 16;
  }

  // Offset of the instruction right after the first call in `fn` whose text contains `what`.
  std::uint64_t return_offset(const std::string& fn, const std::string& what) const {
    const auto& insns = functions.at(fn);
    for (std::size_t i = 0; i + 1 < insns.size(); ++i)
      if (insns[i].text.starts_with("call") && insns[i].text.find(what) != std::string::npos)
        return insns[i + 1].address - start.at(fn);
    BOOST_FAIL("no call to " + what + " in " + fn);
    return 0;
  }

  std::string frame(const std::string& fn, std::uint64_t offset) const {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%s+0x%llx/0x%llx", fn.c_str(), static_cast<unsigned long long>(offset),
                  static_cast<unsigned long long>(size.at(fn)));
    return buf;
  }
  std::string after_call(const std::string& fn, const std::string& what) const {
    return frame(fn, return_offset(fn, what));
  }
};

struct Fixture {
  std::string image = BTAUDIT_MINIKERNEL;
  Disassembly dis{image};
  std::unique_ptr<KernelDebugInfo> info = KernelDebugInfo::open(image, DebugInfoOptions{});

  Report analyze(const std::string& trace_lines, const std::string& rip = "mk_leaf+0x5/0x10") {
    const std::string log = "WARNING: CPU: 0 PID: 1 at minikernel.c:10 " + rip +
                            "\nCPU: 0 PID: 1 Comm: test Not tainted 6.1.0-mini #1\nRIP: 0010:" + rip +
                            "\nCall Trace:\n <TASK>\n" + trace_lines + " </TASK>\n---[ end trace 0 ]---\n";
    auto reports = parse_log(log, "minikernel.log");
    BOOST_REQUIRE_EQUAL(reports.size(), 1u);
    analyze_report(reports[0]);
    apply_debuginfo(reports[0], *info);
    return reports[0];
  }
  // A WARNING with `trace_lines` as its trace, checked with `session`.
  static Report analyze_in(KernelDebugInfo& session, const std::string& trace_lines) {
    auto reports = parse_log(
        "WARNING: CPU: 0 PID: 1 at minikernel.c:10 mk_leaf+0x5/0x10\nRIP: 0010:mk_leaf+0x5/0x10\n"
        "Call Trace:\n <TASK>\n" +
            trace_lines + " </TASK>\n---[ end trace 0 ]---\n",
        "minikernel.log");
    BOOST_REQUIRE_EQUAL(reports.size(), 1u);
    analyze_report(reports[0]);
    apply_debuginfo(reports[0], session);
    return reports[0];
  }
};

int line_of(const std::string& needle) {
  std::ifstream in(std::string(BTAUDIT_SOURCE_DIR) + "/tests/fixtures/minikernel/minikernel.c");
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(needle) != std::string::npos) return n;
  BOOST_FAIL("no line with " + needle);
  return 0;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(debuginfo, Fixture)

BOOST_AUTO_TEST_CASE(reliable_direct_call_to_the_frame_above_is_confirmed) {
  const Report r = analyze(" " + dis.after_call("mk_direct_caller", "mk_leaf") + "\n");
  const Frame& f = r.frames.at(0);
  BOOST_REQUIRE(f.debug && f.debug->call_site);
  BOOST_TEST(f.verdict == Verdict::Reliable);
  BOOST_TEST((f.debug->call_site->kind == CallKind::Direct));
  BOOST_TEST(f.debug->call_site->target.value_or("") == "mk_leaf");
  BOOST_TEST(!f.debug->corruption_evidence);
  BOOST_REQUIRE(f.debug->source);
  BOOST_TEST(f.debug->source->line == line_of("mk_leaf(x + 1);"));
}

BOOST_AUTO_TEST_CASE(question_mark_without_a_call_before_is_proven_stale) {
  const Report r =
      analyze(" " + dis.after_call("mk_direct_caller", "mk_leaf") + "\n ? " + dis.frame("mk_leaf", 3) + "\n");
  const Frame& f = r.frames.at(1);
  BOOST_TEST(f.verdict == Verdict::Stale);
  BOOST_TEST(f.reason == Reason::NoCallBefore);
  BOOST_TEST((f.debug->call_site->kind == CallKind::None));
}

BOOST_AUTO_TEST_CASE(question_mark_whose_call_reaches_the_frame_above_is_plausible) {
  const Report r = analyze(" " + dis.after_call("mk_direct_caller", "mk_leaf") + "\n ? " +
                           dis.after_call("mk_unrelated", "mk_direct_caller") + "\n");
  const Frame& f = r.frames.at(1);
  BOOST_TEST(f.verdict == Verdict::Plausible);
  BOOST_TEST(f.reason == Reason::CallSitePlausible);
}

BOOST_AUTO_TEST_CASE(question_mark_whose_direct_call_goes_elsewhere_is_likely_stale) {
  const Report r = analyze(" " + dis.after_call("mk_direct_caller", "mk_leaf") + "\n ? " +
                           dis.after_call("mk_inline_host", "mk_leaf") + "\n");
  const Frame& f = r.frames.at(1);
  BOOST_TEST(f.verdict == Verdict::Stale);
  BOOST_TEST(f.reason == Reason::CallTargetMismatch);
  BOOST_TEST(f.debug->call_site->target.value_or("") == "mk_leaf");
}

BOOST_AUTO_TEST_CASE(tail_calls_are_followed) {
  const Report r = analyze(" " + dis.after_call("mk_tail_target", "mk_leaf") + "\n ? " +
                           dis.after_call("mk_calls_tail", "mk_tail_caller") + "\n");
  const Frame& f = r.frames.at(1);
  BOOST_TEST(f.debug->call_site->target.value_or("") == "mk_tail_caller");
  BOOST_TEST(f.verdict == Verdict::Plausible);
  BOOST_TEST(f.reason == Reason::CallSitePlausible);
}

BOOST_AUTO_TEST_CASE(calls_through_a_retpoline_thunk_are_indirect) {
  const Report r = analyze(" " + dis.after_call("mk_direct_caller", "mk_leaf") + "\n ? " +
                           dis.after_call("mk_indirect_caller", "__x86_indirect_thunk_rax") + "\n");
  const Frame& f = r.frames.at(1);
  BOOST_TEST((f.debug->call_site->kind == CallKind::Indirect));
  BOOST_TEST(f.verdict == Verdict::Plausible);
}

BOOST_AUTO_TEST_CASE(reliable_frame_failing_the_check_is_flagged_not_relabelled) {
  const Report r = analyze(" " + dis.frame("mk_leaf", 3) + "\n");
  const Frame& f = r.frames.at(0);
  BOOST_TEST(f.verdict == Verdict::Reliable);
  BOOST_TEST(f.debug->corruption_evidence);
}

BOOST_AUTO_TEST_CASE(inlined_callers_are_listed_innermost_first) {
  const Report r = analyze(" " + dis.after_call("mk_inline_host", "mk_leaf") + "\n");
  const Frame& f = r.frames.at(0);
  BOOST_REQUIRE(f.debug && f.debug->source);
  BOOST_TEST(f.debug->innermost_function.value_or("") == "mk_inlined_helper");
  BOOST_TEST(f.debug->source->line == line_of("mk_leaf(x * 2);"));
  BOOST_REQUIRE_EQUAL(f.debug->inlined.size(), 1u);
  BOOST_TEST(f.debug->inlined[0].function == "mk_inline_host");
  BOOST_TEST(f.debug->inlined[0].call.line == line_of("mk_inlined_helper(x);"));
}

BOOST_AUTO_TEST_CASE(kaslr_offset_is_inferred_from_agreeing_frames) {
  const std::uint64_t shift = 0x1e00000;
  auto addr = [&](const std::string& fn, std::uint64_t off) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "[<%016llx>]", static_cast<unsigned long long>(dis.start.at(fn) + off + shift));
    return std::string(buf);
  };
  const std::uint64_t o1 = dis.return_offset("mk_direct_caller", "mk_leaf");
  const std::uint64_t o2 = dis.return_offset("mk_unrelated", "mk_direct_caller");
  const Report r = analyze(" " + addr("mk_direct_caller", o1) + " " + dis.frame("mk_direct_caller", o1) + "\n " +
                           addr("mk_unrelated", o2) + " " + dis.frame("mk_unrelated", o2) + "\n");
  BOOST_REQUIRE(r.kaslr_offset);
  BOOST_TEST(*r.kaslr_offset == static_cast<std::int64_t>(shift));
  BOOST_TEST(r.kaslr_agreeing_frames == 2);
  BOOST_TEST(r.kaslr_source == "frames");
}

BOOST_AUTO_TEST_CASE(printed_kernel_offset_line_is_used_and_checked) {
  auto reports = parse_log(
      "Kernel panic - not syncing: sysrq triggered crash\nCPU: 0 PID: 1 Comm: sh Not tainted 6.1.0-mini #1\n"
      "Call Trace:\n " +
          dis.after_call("mk_direct_caller", "mk_leaf") +
          "\nKernel Offset: 0x1e00000 from 0xffffffff81000000 (relocation range: "
          "0xffffffff80000000-0xffffffffbfffffff)\n",
      "panic.log");
  BOOST_REQUIRE_EQUAL(reports.size(), 1u);
  analyze_report(reports[0]);
  apply_debuginfo(reports[0], *info);
  BOOST_TEST(reports[0].kaslr_source == "kernel_offset_line");
  BOOST_TEST(*reports[0].kaslr_offset == 0x1e00000);
}

// A dump's log report comes with the dump's offset (VMCOREINFO): it is kept as given, named "dump",
// and frames printing addresses another offset would explain are said to disagree with the dump.
BOOST_AUTO_TEST_CASE(a_dump_given_kaslr_offset_is_kept_and_checked_against_printed_addresses) {
  const std::uint64_t shift = 0x1e00000;
  const std::uint64_t o1 = dis.return_offset("mk_direct_caller", "mk_leaf");
  const std::uint64_t o2 = dis.return_offset("mk_unrelated", "mk_direct_caller");
  for (const std::int64_t given : {static_cast<std::int64_t>(shift), std::int64_t{0x2000000}}) {
    auto address = [&](const std::string& fn, std::uint64_t off) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "[<%016llx>]", static_cast<unsigned long long>(dis.start.at(fn) + off + shift));
      return std::string(buf);
    };
    auto reports = parse_log(
        "WARNING: CPU: 0 PID: 1 at minikernel.c:10 mk_leaf+0x5/0x10\n"
        "CPU: 0 PID: 1 Comm: test Not tainted 6.1.0-mini #1\nCall Trace:\n <TASK>\n " +
            address("mk_direct_caller", o1) + " " + dis.frame("mk_direct_caller", o1) + "\n " +
            address("mk_unrelated", o2) + " " + dis.frame("mk_unrelated", o2) + "\n </TASK>\n---[ end trace 0 ]---\n",
        "dump (log)");
    BOOST_REQUIRE_EQUAL(reports.size(), 1u);
    Report& r = reports[0];
    analyze_report(r);
    r.kaslr_offset = given;
    r.kaslr_source = "dump";
    apply_debuginfo(r, *info);
    BOOST_TEST(r.kaslr_source == "dump");
    BOOST_TEST(*r.kaslr_offset == given);
    const bool agree = given == static_cast<std::int64_t>(shift);
    BOOST_TEST(r.kaslr_agreeing_frames == (agree ? 2 : 0));
    const bool warned = std::any_of(r.debug_warnings.begin(), r.debug_warnings.end(), [](const std::string& w) {
      return w.find("different from the dump's") != std::string::npos;
    });
    BOOST_TEST(warned == !agree);
  }
}

BOOST_AUTO_TEST_CASE(missing_vmlinux_is_a_clear_error) {
  BOOST_CHECK_THROW(KernelDebugInfo::open("/nonexistent/vmlinux", DebugInfoOptions{}), DebugInfoError);
  BOOST_CHECK_THROW(KernelDebugInfo::open(std::string(BTAUDIT_SOURCE_DIR) + "/README.md", DebugInfoOptions{}),
                    DebugInfoError);
}

BOOST_AUTO_TEST_CASE(a_mismatched_build_is_reported) {
  // Sizes far from the image's own: the report cannot come from this build.
  const Report r = analyze(" mk_direct_caller+0x9/0x400\n mk_unrelated+0x9/0x400\n");
  BOOST_REQUIRE(!r.debug_warnings.empty());
  BOOST_TEST(r.debug_warnings[0].find("does not match") != std::string::npos);
}

// Call-site answers outlive one report: a session keeps them for its next
// reports, and the sessions of a batch run share them (KernelAnswerStore).
BOOST_AUTO_TEST_CASE(call_site_answers_outlive_the_report_and_are_shared_by_a_runs_sessions) {
  KernelAnswerStore store;
  DebugInfoOptions shared_options;
  shared_options.shared_answers = &store;
  auto first = KernelDebugInfo::open(image, shared_options);
  auto second = KernelDebugInfo::open(image, shared_options);
  const std::string trace = " " + dis.after_call("mk_direct_caller", "mk_leaf") + "\n ? " +
                            dis.after_call("mk_unrelated", "mk_direct_caller") + "\n";
  const Report alone = analyze(trace);  // a session of its own, nothing shared

  auto run = [&](KernelDebugInfo& session) { return analyze_in(session, trace); };
  const Report by_first = run(*first);
  const std::uint64_t caller = dis.start.at("mk_direct_caller");
  const std::uint64_t ret = caller + dis.return_offset("mk_direct_caller", "mk_leaf");
  const KernelAnswers::CallSiteKey key{ret, caller, "mk_direct_caller"};
  auto kept = first->kernel_answers().call_site(key);
  BOOST_REQUIRE(kept);
  BOOST_TEST(kept->site.target.value_or("") == "mk_leaf");
  BOOST_TEST(&first->kernel_answers() == &second->kernel_answers());
  BOOST_TEST(&info->kernel_answers() != &first->kernel_answers());  // a session without a store keeps its own

  // The second session answers from what the first kept: the same frames as a session of its own.
  const Report by_second = run(*second);
  for (const Report* r : {&by_first, &by_second}) {
    BOOST_REQUIRE_EQUAL(r->frames.size(), alone.frames.size());
    for (std::size_t i = 0; i < alone.frames.size(); ++i) {
      BOOST_TEST(r->frames[i].verdict == alone.frames[i].verdict);
      BOOST_TEST(r->frames[i].reason == alone.frames[i].reason);
      BOOST_TEST(r->frames[i].debug->call_site->insn == alone.frames[i].debug->call_site->insn);
      BOOST_TEST(r->frames[i].debug->note == alone.frames[i].debug->note);
    }
  }

  // And it does read them: an answer planted for that return address is what a new report shows.
  CallSiteFinding planted;
  planted.decided = true;
  planted.site.kind = CallKind::None;
  planted.site.insn = "(planted)";
  auto other = KernelDebugInfo::open(image, shared_options);
  KernelAnswers::CallSiteKey planted_key = key;
  first->kernel_answers().put_call_site(planted_key, planted);  // kept: the first answer stays
  BOOST_TEST(run(*other).frames.at(0).debug->call_site->insn != "(planted)");
  KernelAnswerStore fresh;
  DebugInfoOptions fresh_options;
  fresh_options.shared_answers = &fresh;
  auto planted_session = KernelDebugInfo::open(image, fresh_options);
  planted_session->kernel_answers().put_call_site(planted_key, planted);
  BOOST_TEST(run(*planted_session).frames.at(0).debug->call_site->insn == "(planted)");
}

// The checker's answers outlive the run as well: a session with the profile cache keeps them in
// the profile, and the next run on the same file reads them from there instead of decoding.
BOOST_AUTO_TEST_CASE(call_site_and_tail_call_answers_outlive_the_run_in_the_kernel_profile) {
  const btaudit::testing::TempDir dir("btaudit-debuginfo-test");
  DebugInfoOptions cached;
  cached.cache.enabled = true;
  cached.cache.dir = dir.path().string();
  const std::string trace = " " + dis.after_call("mk_tail_target", "mk_leaf") + "\n ? " +
                            dis.after_call("mk_calls_tail", "mk_tail_caller") + "\n";
  const Report alone = analyze(trace);  // no cache at all
  auto run = [&](KernelDebugInfo& session) { return analyze_in(session, trace); };
  const auto same_as_alone = [&](const Report& r) {
    BOOST_REQUIRE_EQUAL(r.frames.size(), alone.frames.size());
    for (std::size_t i = 0; i < alone.frames.size(); ++i) {
      BOOST_TEST(r.frames[i].verdict == alone.frames[i].verdict);
      BOOST_TEST(r.frames[i].reason == alone.frames[i].reason);
      BOOST_TEST(r.frames[i].debug->call_site->insn == alone.frames[i].debug->call_site->insn);
      BOOST_TEST(r.frames[i].debug->note == alone.frames[i].debug->note);
    }
  };
  std::string file;
  {
    auto cold = KernelDebugInfo::open(image, cached);
    same_as_alone(run(*cold));
    BOOST_REQUIRE_EQUAL(cold->save_profile(), "");
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) file = e.path().string();
  }
  std::string problem;
  auto stored = load_profile_file(file, *info->build_id(), std::filesystem::file_size(image), problem);
  BOOST_REQUIRE_MESSAGE(stored, problem);
  // The '?' frame's call goes to mk_tail_caller, which reaches mk_tail_target (the frame above)
  // through a tail call: both answers are in the file.
  const std::uint64_t caller = dis.start.at("mk_calls_tail");
  const std::uint64_t ret = caller + dis.return_offset("mk_calls_tail", "mk_tail_caller");
  const KernelAnswers::CallSiteKey key{ret, caller, "mk_calls_tail"};
  BOOST_REQUIRE(stored->call_site_answers.count(key));
  BOOST_TEST(stored->call_site_answers.at(key).site.target.value_or("") == "mk_tail_caller");
  const std::pair<std::uint64_t, std::uint64_t> reach{dis.start.at("mk_tail_caller"), dis.start.at("mk_tail_target")};
  BOOST_REQUIRE(stored->reach_answers.count(reach));
  BOOST_TEST((stored->reach_answers.at(reach) == Reach::Yes));
  {
    auto warm = KernelDebugInfo::open(image, cached);
    BOOST_REQUIRE(warm->profile_state().starts_with("warm "));
    same_as_alone(run(*warm));
    BOOST_REQUIRE_EQUAL(warm->save_profile(), "");  // nothing new: not written again
  }
  // And a warm run reads them: answers planted in the file are what the next report shows.
  stored->call_site_answers.at(key).site.insn = "(planted)";
  stored->reach_answers.at(reach) = Reach::No;
  BOOST_REQUIRE_EQUAL(save_profile_file(*stored, dir.path().string(), std::uint64_t{1} << 30), "");
  auto planted = KernelDebugInfo::open(image, cached);
  BOOST_REQUIRE(planted->profile_state().starts_with("warm "));
  const Report r = run(*planted);
  BOOST_TEST(r.frames.at(1).debug->call_site->insn == "(planted)");
  BOOST_TEST(r.frames.at(1).reason != alone.frames.at(1).reason);  // the call no longer reaches the frame above
}

BOOST_AUTO_TEST_CASE(only_vmlinux_own_addresses_are_held_as_kernel_addresses) {
  const std::uint64_t first_fn = dis.start.at("mk_direct_caller");
  BOOST_TEST(info->holds_kernel_address(first_fn));
  BOOST_TEST(!info->holds_kernel_address(0));
  BOOST_TEST(!info->holds_kernel_address(0xffffffffc0000000ULL));  // module space
  BOOST_TEST(!info->holds_kernel_address(~std::uint64_t{0}));
}

BOOST_AUTO_TEST_SUITE_END()
