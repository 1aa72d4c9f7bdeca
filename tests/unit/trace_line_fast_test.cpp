// parse_trace_text reads lines that open with a symbol name in one pass (trace_line.cpp,
// read_symbol_line); every line must come out as parse_trace_text_general reads it.
#include <boost/test/unit_test.hpp>
#include <cstddef>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "text/trace_line.h"

using btaudit::FrameText;
using btaudit::parse_trace_text;
using btaudit::parse_trace_text_general;
using btaudit::TraceText;

namespace {

// The same view: the same bytes of the same line, not only equal text.
bool same_view(std::string_view a, std::string_view b) {
  return a.size() == b.size() && (a.empty() || a.data() == b.data());
}

bool same_frame(const FrameText& a, const FrameText& b) {
  return same_view(a.function, b.function) && a.offset == b.offset && a.size == b.size &&
         same_view(a.module, b.module) && same_view(a.build_id, b.build_id) && a.address == b.address &&
         same_view(a.source, b.source) && a.inlined == b.inlined && a.printed_unreliable == b.printed_unreliable;
}

bool same(const TraceText& a, const TraceText& b) {
  if (a.has_frame != b.has_frame || a.markers.size() != b.markers.size()) return false;
  for (std::size_t i = 0; i < a.markers.size(); ++i) {
    const auto& x = a.markers[i];
    const auto& y = b.markers[i];
    if (x.open != y.open || x.stack != y.stack || x.exception != y.exception) return false;
  }
  return !a.has_frame || same_frame(a.frame, b.frame);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(trace_line_fast)

// Every combination of lead, name, offset part and suffix that the one-pass reading tells apart
// (and forms it must leave to the general reading), then random lines over the bytes they use.
// Each line is read into a TraceText that holds the previous line's result, as the report
// builder's does, and stands alone in a string of its own, so that a read past its end shows
// under a memory checker.
BOOST_AUTO_TEST_CASE(symbol_lines_read_as_the_general_reading_does) {
  const std::vector<std::string> leads = {"",
                                          " ",
                                          "  ",
                                          "\t",
                                          " ? ",
                                          "? ",
                                          "?  ",
                                          "?\t",
                                          "?",
                                          "[<ffffffff81234567>] ",
                                          "<IRQ> ",
                                          "(",
                                          ":mod:",
                                          "[foo+1/2] ",
                                          " [<ffffffff81234567>] ",
                                          "[<ffffffff81234567>]",
                                          "[<ffffffff81234567>]  ? ",
                                          "[<c0013cb8>] ",
                                          "[<ffffffff812345678>] ",
                                          "[<>] ",
                                          "[<fffffffg81234567>] ",
                                          "[<ffffffff81234567> ",
                                          "[<ffffffff81234567>]\t",
                                          "[<0>] ? ",
                                          "[<ffffffff81234567>] ?",
                                          "[<ffffffff81234567>] (",
                                          "[<ffffffff81234567>] {"};
  const std::vector<std::string> names = {"foo",
                                          "_bar",
                                          "A",
                                          "x1",
                                          "foo.isra.0",
                                          ".foo",
                                          "$x",
                                          "RAX",
                                          "ffff8801c56e76d8",
                                          "entry_SYSCALL_64_after_hwframe",
                                          std::string(70, 'f'),
                                          "",
                                          "0x12"};
  const std::vector<std::string> middles = {
      "+0x1f/0x20", "+0x1f", "+0x", "+0xzz",   "+0x1f/",    "+0x1f/0xg",  "+0x11111111111111111/0x1", " ", "",
      ":",          "(",     ")",   "+1f/0x2", "+0x1/0x2)", "+0x1f/0x20x"};
  const std::vector<std::string> suffixes = {
      "",
      " net/core/dev.c:123",
      " lib/dump_stack.c:16 [inline]",
      " file.c:12:4",
      " file.c:12:4x",
      " x.c:",
      " :12",
      " a:b:12",
      " a.b:c:12",
      " /:1",
      " mm/slub.c:2905 [inline] extra",
      " mm/slub.c:2905 [inline]x",
      " mm/slub.c:2905  [inline]",
      " [mod]",
      " [mod abcdef]",
      " (unreliable)",
      " (P)",
      " (lib/dump_stack.c:122)",  // decode_stacktrace.sh
      " (kernel/sched/core.c:7244 (discriminator 13))",
      " (include/linux/spinlock_api_smp.h:160 kernel/locking/spinlock.c:191) [mod]",
      " (??:?)",
      " (lib/x.c:1",
      " (word)",
      " from bar+0x1/0x2",
      "  from x",
      " from",
      " word",
      " ./a:1",
      "  net/x.c:1",
      " [inline]",
      " \t",
      "\tnet/x.c:1",
      " 12:34",
      " a.c:12\t",
      " drivers/gpu/drm/amd/amdgpu/../display/amdgpu_dm/amdgpu_dm_helpers.c:1234",
      " drivers/gpu/drm/amd/amdgpu/../display/amdgpu_dm/amdgpu_dm_helpers_x.c:1",
      " " + std::string(60, ' ') + "a.c:1",
      " net/core/dev.c:123 " + std::string(70, 'x')};
  std::vector<std::string> lines;
  for (const auto& l : leads)
    for (const auto& n : names)
      for (const auto& m : middles)
        for (const auto& s : suffixes) lines.push_back(l + n + m + s);
  std::mt19937 rng(14);
  const std::string alphabet = "ab_f0x12+/:. .[]()?<>\tinlecm";
  for (int k = 0; k < 600000; ++k) {
    std::string line;
    if (k % 3 == 0) line = k % 2 ? " foo+0x1f/0x20" : " ? do_it";
    if (k % 11 == 0) line = k % 2 ? " [<ffffffff8134d2f3>] " : "[<c0013cb8>] ? ";
    const std::size_t n = rng() % (k % 7 == 0 ? 100 : 36);
    for (std::size_t i = 0; i < n; ++i) line += alphabet[rng() % alphabet.size()];
    if (k % 5 == 0) line += " [inline]";
    lines.push_back(line);
  }
  TraceText fast;
  TraceText general;
  std::size_t frames = 0;
  std::size_t mismatched = 0;
  for (const std::string& text : lines) {
    const std::string line = text;  // a string of its own, exactly as long as the line
    const bool a = parse_trace_text(line, fast);
    const bool b = parse_trace_text_general(line, general);
    if (a != b || !same(fast, general)) {
      ++mismatched;
      BOOST_TEST_CONTEXT("line '" << line << "'") {
        BOOST_TEST(a == b);
        BOOST_TEST(same(fast, general));
      }
    }
    frames += b && general.has_frame ? 1 : 0;
  }
  BOOST_TEST(mismatched == 0u);
  BOOST_TEST(lines.size() > 800000u);
  BOOST_TEST(frames > 20000u);  // the variants hold frames of every form, not only rejects
}

// Lines whose first byte (after blanks) starts no marker and no frame are rejected before the
// general reading: every byte, after every lead, before tails that would make a frame or a
// marker of a line that started otherwise.
BOOST_AUTO_TEST_CASE(every_first_byte_reads_as_the_general_reading_does) {
  const std::vector<std::string> leads = {"", " ", "  ", "\t", "\r", "\v\f "};
  const std::vector<std::string> tails = {"",
                                          "foo+0x1f/0x20",
                                          "x+0x1/0x2 net/core/dev.c:1",
                                          "IRQ>",
                                          "<IRQ> foo+0x1/0x2",
                                          "ffffffff81234567>] foo+0x1/0x2",
                                          "<ffffffff81234567>] foo+0x1/0x2",
                                          "x12345678 [mod]",
                                          "[<c0013cb8>] (foo+0x0/0x10c) from [<c0013dcc>] (bar+0x18/0x1c)",
                                          "mod:foo+0x1/0x2",
                                          "f80: 20010000 c1801000 00000000 00000000",
                                          "0000000 ffff8801c56e76d8",
                                          " foo+0x1/0x2",
                                          "? foo+0x1/0x2",
                                          "=====",
                                          "foo lib/x.c:12 [inline]"};
  TraceText fast;
  TraceText general;
  std::size_t lines = 0;
  std::size_t frames = 0;
  for (int c = 0; c < 256; ++c)
    for (const std::string& lead : leads)
      for (const std::string& tail : tails) {
        const std::string line = lead + std::string(1, static_cast<char>(c)) + tail;
        const bool a = parse_trace_text(line, fast);
        const bool b = parse_trace_text_general(line, general);
        ++lines;
        frames += b && general.has_frame ? 1 : 0;
        BOOST_TEST_CONTEXT("line '" << line << "'") {
          BOOST_TEST(a == b);
          BOOST_TEST(same(fast, general));
        }
      }
  BOOST_TEST(lines == 256u * 6u * 16u);
  BOOST_TEST(frames > 1000u);
}

// Lines that open with '0' are read as a frame only as a raw "0x..." address, and lines that open
// with '[' and no '<' or name only as powerpc's "[sp] [ip] symbol"; both are rejected before the
// general reading otherwise: every short tail over the bytes that matter after either (exhaustively
// up to three bytes), then random rows of stack dumps, addresses and markers, each after every
// lead and read into a TraceText that holds the previous line's result.
BOOST_AUTO_TEST_CASE(lines_opening_with_a_zero_or_bracket_read_as_the_general_reading_does) {
  const std::string alphabet = "0x1fFgX [<>]()?:+/.-\t\x1b";
  std::vector<std::string> tails = {""};
  for (std::size_t len = 1, from = 0; len <= 3; ++len) {
    const std::size_t to = tails.size();
    for (std::size_t k = from; k < to; ++k)
      for (const char c : alphabet) tails.push_back(tails[k] + c);
    from = to;
  }
  std::mt19937 rng(27);
  const std::vector<std::string> words = {"0000000000000000",
                                          "ffffffff81d90889",
                                          "0x",
                                          "0xffffffffc00b7000",
                                          "x",
                                          "[mod]",
                                          "<IRQ>",
                                          "foo+0x1/0x2",
                                          "(unreliable)",
                                          "? ",
                                          "00000000",
                                          ":",
                                          "[c000000000123456]",
                                          "]",
                                          "[0]",
                                          "-1]",
                                          "878]:",
                                          "[<c0013cb8>]",
                                          "(foo+0x0/0x10c)",
                                          "0000000fe3f7b30]"};
  // powerpc frames whose stack address opens with a digit, whole and cut short
  const std::string ppc = "0000000fe3f7b30] [c000000000123456] .foo+0x12/0x34 (unreliable)";
  for (std::size_t cut = 0; cut <= ppc.size(); ++cut) tails.push_back(ppc.substr(0, cut));
  for (int k = 0; k < 20000; ++k) {
    std::string tail;
    const std::size_t n = rng() % 6;
    for (std::size_t w = 0; w < n; ++w) tail += words[rng() % words.size()] + (rng() % 3 ? " " : "");
    tails.push_back(tail);
  }
  TraceText fast;
  TraceText general;
  std::size_t frames = 0;
  std::size_t mismatched = 0;
  for (const char first : {'0', '['})
    for (const std::string_view lead : {"", " ", "\t ", "? "})
      for (const std::string& tail : tails) {
        const std::string line = std::string(lead) + first + tail;
        const bool a = parse_trace_text(line, fast);
        const bool b = parse_trace_text_general(line, general);
        frames += b && general.has_frame ? 1 : 0;
        if (a != b || !same(fast, general)) {
          ++mismatched;
          BOOST_TEST_CONTEXT("line '" << line << "'") {
            BOOST_TEST(a == b);
            BOOST_TEST(same(fast, general));
          }
        }
      }
  BOOST_TEST(mismatched == 0u);
  BOOST_TEST(frames > 300u);  // raw addresses among the rejects
}

BOOST_AUTO_TEST_SUITE_END()
