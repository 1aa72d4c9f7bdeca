// The triage page's pieces without a browser: reports read back from the
// analyze JSON contract must write the same JSON again (every sample report of
// corpora/, with and without generated debuginfo and stack slots), and the
// page must keep hostile text inert (titles, functions and paths full of
// markup), hold one row per bucket, and bin reports per day correctly.
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <random>
#include <string>

#include "analysis/analyze_report.h"
#include "input/read_input.h"
#include "input/report_json_read.h"
#include "render/json_writer.h"
#include "render/report_json.h"
#include "render/triage_html.h"
#include "text/log_parser.h"

using namespace btaudit;
namespace fs = std::filesystem;

namespace {

std::string json_of(const Report& r) {
  std::string out;
  JsonWriter w(out);
  write_report_json(w, r);
  return out;
}

std::vector<Report> sample_reports() {
  std::vector<Report> all;
  for (const auto& e : fs::directory_iterator(fs::path(BTAUDIT_SOURCE_DIR) / "corpora")) {
    if (e.path().extension() != ".log") continue;
    const std::string text = read_input(e.path().string());
    for (Report& r : parse_log(text, e.path().string())) {
      analyze_report(r);
      all.push_back(std::move(r));
    }
  }
  return all;
}

// What debuginfo and a dump walk add, made up per frame: every optional field the contract has.
void decorate(Report& r, std::mt19937& rng) {
  for (Frame& f : r.frames) {
    if (rng() % 2) f.slot = 0xffffc90000000000ULL + (rng() % 4096) * 8;
    if (rng() % 3 == 0) continue;
    FrameDebugInfo d;
    d.address = 0xffffffff81000000ULL + rng() % 100000;
    d.lookup_address = d.address - 1;
    d.innermost_function = "inner_" + std::to_string(rng() % 50);
    d.source = SourceLocation{"kernel/file \"q\" <x>.c", static_cast<int>(rng() % 900), static_cast<int>(rng() % 40)};
    for (unsigned i = 0, n = rng() % 3; i < n; ++i)
      d.inlined.push_back(InlinedCall{"caller_" + std::to_string(i), SourceLocation{"fs/a.c", 10 + int(i), 3}});
    if (rng() % 2) {
      CallSite cs;
      cs.kind = rng() % 2 ? CallKind::Direct : CallKind::Indirect;
      cs.insn = "call 0xffffffff81234567";
      cs.address = d.address - 5;
      if (cs.kind == CallKind::Direct) cs.target = "target_fn";
      d.call_site = cs;
    }
    d.corruption_evidence = rng() % 7 == 0;
    if (rng() % 5 == 0) d.note = "no code bytes";
    f.debug = d;
  }
  if (rng() % 2) r.kernel_build_id = std::string(40, 'a');
}

TriagePage hostile_page(std::size_t n) {
  TriagePage page;
  page.source = "<script>alert(1)</script>.db";
  page.generated_day = 20000;
  for (std::size_t i = 0; i < n; ++i) {
    TriageBucket tb;
    tb.bucket.signature = "sig" + std::to_string(i);
    tb.bucket.title = "WARNING in </script><img src=x onerror=alert(1)> \"quoted\" & more " + std::to_string(i);
    tb.bucket.kind = "warning";
    tb.bucket.guilty_function = "fn<" + std::to_string(i) + ">";
    tb.bucket.count = i + 1;
    tb.bucket.example_input = "/logs/</script>.log";
    tb.days = {{19990, 1}, {20000, i}};
    Report r;
    r.title = tb.bucket.title;
    Frame f;
    f.function = "</script><script>alert(2)</script>";
    f.verdict = Verdict::Stale;
    f.reason = Reason::NoCallBefore;
    r.frames.push_back(f);
    tb.example = r;
    page.buckets.push_back(std::move(tb));
  }
  return page;
}

std::size_t count_of(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(triage)

BOOST_AUTO_TEST_CASE(EverySampleReportReadsBackToTheSameJson) {
  const std::vector<Report> reports = sample_reports();
  BOOST_TEST_REQUIRE(reports.size() > 10u);
  std::mt19937 rng(15);
  for (int pass = 0; pass < 2; ++pass)
    for (Report r : reports) {
      if (pass == 1) decorate(r, rng);
      const std::string first = json_of(r);
      const std::string again = json_of(report_from_json_text(first));
      BOOST_TEST(again == first, r.input.path << ":" << r.input.first_line << " pass " << pass);
    }
}

BOOST_AUTO_TEST_CASE(HostileTextStaysInert) {
  const TriagePage page = hostile_page(50);
  const std::string html = render_triage_html(page);
  // The only script elements are the page's three: the reasons, the packed details and the code.
  BOOST_TEST(count_of(html, "<script") == 3u);
  BOOST_TEST(count_of(html, "</script>") == 3u);
  const std::string detail = render_triage_detail(page.buckets[3], 19990, 20000);
  BOOST_TEST(detail.find("<script") == std::string::npos);
  BOOST_TEST(detail.find("<img") == std::string::npos);
  BOOST_TEST(detail.find("&lt;/script&gt;&lt;script&gt;alert(2)") != std::string::npos);
  BOOST_TEST(html.find("<img") == std::string::npos);
  BOOST_TEST(html.find("&lt;img src=x onerror=alert(1)&gt;") != std::string::npos);
  BOOST_TEST(html.find("Content-Security-Policy") != std::string::npos);
  // The SVG namespace of the row charts is a name, not an address; nothing else may name one.
  std::string rest = html;
  for (std::size_t at; (at = rest.find("http://www.w3.org/2000/svg")) != std::string::npos;) rest.erase(at, 26);
  BOOST_TEST(rest.find("http://") == std::string::npos);
  BOOST_TEST(html.find("https://") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(OneFocusableRowPerBucket) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{317}}) {
    const std::string html = render_triage_html(hostile_page(n));
    BOOST_TEST(count_of(html, "<div class='row bucket' role='row' tabindex='0'") == n);
    BOOST_TEST(html.find(std::to_string(n) + " of " + std::to_string(n) + " buckets") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(SparklineBinsEveryReportOnce) {
  std::mt19937 rng(3);
  for (int variant = 0; variant < 40; ++variant) {
    TriageBucket tb;
    const std::int64_t first = 19000 + rng() % 1000, span = 1 + rng() % 400;
    std::uint64_t total = 0;
    for (std::int64_t d = first; d < first + span; d += 1 + rng() % 9) {
      const std::uint64_t n = 1 + rng() % 50;
      tb.days.emplace_back(d, n);
      total += n;
    }
    const std::string svg = render_day_sparkline(tb, first, first + span - 1, 120, 18);
    BOOST_TEST(svg.find("aria-label='" + std::to_string(total) + " reports") != std::string::npos);
    // The path goes into a data URL unencoded: only characters that need no escaping there.
    const DaySparkline s = day_sparkline(tb, first, first + span - 1, 120, 18);
    BOOST_TEST(s.path.find_first_not_of("0123456789.,-Mvhz") == std::string::npos);
    const std::size_t bars = count_of(svg, "z");
    BOOST_TEST(bars >= 1u);
    BOOST_TEST(bars <= 60u);  // at most one bar per two pixels
  }
}

BOOST_AUTO_TEST_CASE(DaysAreCalendarDates) {
  BOOST_TEST(format_day(0) == "1970-01-01");
  BOOST_TEST(format_day(20421) == "2025-11-29");
  BOOST_TEST(format_day(-1) == "1969-12-31");
}

BOOST_AUTO_TEST_CASE(DumpWalkDrawsOneBoxPerFramePerStack) {
  Report walk;
  for (int i = 0; i < 9; ++i) {
    Frame f;
    f.function = "f" + std::to_string(i);
    f.stack = i < 4 ? StackKind::Irq : StackKind::Task;
    f.slot = 0xffffc90000001000ULL + i * 8;
    f.verdict = i % 3 ? Verdict::Reliable : Verdict::Stale;
    walk.frames.push_back(f);
  }
  const std::string svg = render_stack_picture(walk);
  BOOST_TEST(count_of(svg, "<rect") == 9u);
  BOOST_TEST(count_of(svg, "stack</text>") == 2u);
  BOOST_TEST(count_of(svg, "class='link'") == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
