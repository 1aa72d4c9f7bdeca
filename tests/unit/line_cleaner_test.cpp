#include "text/line_cleaner.h"

#include <boost/test/unit_test.hpp>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text/line_scan.h"

using btaudit::clean_line;
using btaudit::clean_line_general;
using btaudit::CleanLine;

BOOST_AUTO_TEST_SUITE(line_cleaner)

BOOST_AUTO_TEST_CASE(strips_dmesg_timestamp_and_keeps_trace_indent) {
  auto l = clean_line("[   73.475768]  dump_stack+0x194/0x257", 7);
  BOOST_TEST(l.text == " dump_stack+0x194/0x257");
  BOOST_TEST(l.number == 7u);
  BOOST_TEST(l.had_timestamp);
}

BOOST_AUTO_TEST_CASE(strips_caller_id_after_timestamp) {
  auto l = clean_line("[  512.079810][ T8305] BUG: KASAN: use-after-free in foo", 1);
  BOOST_TEST(l.text == "BUG: KASAN: use-after-free in foo");
  BOOST_TEST(l.caller_kind == 'T');
  BOOST_TEST(l.caller_id == 8305u);
  auto c = clean_line("[    1.000000][    C1] NMI backtrace for cpu 1", 2);
  BOOST_TEST(c.caller_kind == 'C');
  BOOST_TEST(c.caller_id == 1u);
  BOOST_TEST(c.text == "NMI backtrace for cpu 1");
}

BOOST_AUTO_TEST_CASE(strips_log_level_before_timestamp) {
  BOOST_TEST(clean_line("<4>[    0.000000] WARNING: at foo", 1).text == "WARNING: at foo");
  BOOST_TEST(clean_line("<30>[    0.000000] Call Trace:", 1).text == "Call Trace:");
  BOOST_TEST(clean_line("<4> Call Trace:", 1).text == " Call Trace:");
}

BOOST_AUTO_TEST_CASE(strips_syslog_prefix_and_flags_foreign_programs) {
  auto k = clean_line("Jan 11 22:31:37 myhost kernel: [  123.456] Oops: 0000 [#1] SMP", 1);
  BOOST_TEST(k.text == "Oops: 0000 [#1] SMP");
  BOOST_TEST(!k.foreign);
  auto f = clean_line("Jan  1 02:03:04 host systemd[1]: Started foo.", 1);
  BOOST_TEST(f.foreign);
  auto iso = clean_line("2024-01-01T00:00:00.123456+00:00 host kernel: BUG: soft lockup", 1);
  BOOST_TEST(iso.text == "BUG: soft lockup");
}

BOOST_AUTO_TEST_CASE(strips_lava_residue_and_carriage_return) {
  BOOST_TEST(clean_line("[    1.146063] WARNING: CPU: 0 PID: 1 at kernel/smp.c:912 f+0x3c4/0x3c8\"}", 1).text ==
             "WARNING: CPU: 0 PID: 1 at kernel/smp.c:912 f+0x3c4/0x3c8");
  BOOST_TEST(clean_line("Call Trace:\r", 1).text == "Call Trace:");
}

BOOST_AUTO_TEST_CASE(leaves_plain_text_alone) {
  BOOST_TEST(clean_line("[drm] Num pipes: 1", 1).text == "[drm] Num pipes: 1");
  BOOST_TEST(clean_line("", 1).text.empty());
  BOOST_TEST(clean_line("[", 1).text == "[");
  BOOST_TEST(clean_line("<", 1).text == "<");
}

BOOST_AUTO_TEST_CASE(finds_the_kernel_record_behind_user_space_text) {
  // A serial console shares lines with user space and paste residue.
  auto l = clean_line("/init: 384: .: [  271.403835] Kernel panic - not syncing: Attempted to kill init!", 1);
  BOOST_TEST(l.text == "Kernel panic - not syncing: Attempted to kill init!");
  BOOST_TEST(l.had_timestamp);
  auto f = clean_line("--2012-06-28 06:[  120.833075]  [<ffffffff8166bbe9>] system_call_fastpath+0x16/0x1b", 1);
  BOOST_TEST(f.text == " [<ffffffff8166bbe9>] system_call_fastpath+0x16/0x1b");
  auto c = clean_line("login: [   12.000001][ T42] BUG: foo", 1);
  BOOST_TEST(c.text == "BUG: foo");
  BOOST_TEST(c.caller_id == 42u);
  // Brackets that are not timestamps leave the line alone.
  BOOST_TEST(clean_line("foo [bar] [1.x] [ 2.]", 1).text == "foo [bar] [1.x] [ 2.]");
}

namespace {

// The timestamp grammar as the cleaner's general loop reads it: '[', spaces, then (after a
// tab) spaces and tabs, digits, '.', digits, ']'. Returns the prefix's length, 0 when none.
std::size_t reference_timestamp_length(std::string_view s) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (s.size() < 4 || s[0] != '[') return 0;
  std::size_t i = 1;
  while (i < s.size() && s[i] == ' ') ++i;
  if (i < s.size() && s[i] == '\t')
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  const std::size_t whole = i;
  while (i < s.size() && digit(s[i])) ++i;
  if (i == whole || i >= s.size() || s[i] != '.') return 0;
  const std::size_t frac = ++i;
  while (i < s.size() && digit(s[i])) ++i;
  if (i == frac || i >= s.size() || s[i] != ']') return 0;
  return i + 1;
}

}  // namespace

// printk's "[%5lu.%06lu]" has a fast path of its own; it must accept and strip exactly what the
// general grammar does. Every padding and width around the 14-byte form, then each of its bytes
// replaced by each byte class the grammar tells apart.
BOOST_AUTO_TEST_CASE(printk_timestamps_of_every_width_and_damage_read_as_the_grammar_says) {
  std::vector<std::string> stamps;
  for (int pad = 0; pad <= 6; ++pad)
    for (int whole = 1; whole <= 7; ++whole)
      for (int frac = 1; frac <= 8; ++frac)
        for (const char* lead : {"", "\t", " \t"})
          stamps.push_back("[" + std::string(lead) + std::string(static_cast<std::size_t>(pad), ' ') +
                           std::string(static_cast<std::size_t>(whole), '7') + "." +
                           std::string(static_cast<std::size_t>(frac), '3') + "]");
  const std::string base = "[   12.345678]";
  for (std::size_t at = 0; at < base.size(); ++at)
    for (char c : {' ', '\t', '0', '9', '.', ']', '[', '/', ':', 'a', '\x80', '\xb9', '\0'}) {
      std::string damaged = base;
      damaged[at] = c;
      stamps.push_back(damaged);
    }
  int checked = 0;
  for (const std::string& stamp : stamps)
    for (const char* message : {" WARNING: at foo", "x", ""}) {
      const std::string line = stamp + message;
      // At the line's start, or else (the cleaner's search for a record behind user-space
      // text) at a later '[' followed by a space, tab or digit.
      std::size_t from = 0;
      std::size_t n = reference_timestamp_length(line);
      for (std::size_t open = line.find('[', 1); n == 0 && open != std::string::npos; open = line.find('[', open + 1)) {
        const char next = open + 1 < line.size() ? line[open + 1] : '\0';
        if (next != ' ' && next != '\t' && (next < '0' || next > '9')) continue;
        if ((n = reference_timestamp_length(std::string_view(line).substr(open))) > 0) from = open;
      }
      const auto cleaned = clean_line(line, 1);
      BOOST_TEST_CONTEXT("line '" << line << "'") {
        BOOST_TEST(cleaned.had_timestamp == (n > 0));
        if (n > 0) {
          std::string_view want = std::string_view(line).substr(from + n);
          if (!want.empty() && want[0] == ' ') want.remove_prefix(1);
          BOOST_TEST(cleaned.text == want);
        }
      }
      ++checked;
    }
  BOOST_TEST(checked > 3000);
}

namespace {

bool same(const CleanLine& a, const CleanLine& b) {
  return a.text.data() == b.text.data() && a.text.size() == b.text.size() && a.number == b.number &&
         a.caller_kind == b.caller_kind && a.caller_id == b.caller_id && a.foreign == b.foreign &&
         a.had_timestamp == b.had_timestamp && a.bare_prefix == b.bare_prefix;
}

}  // namespace

// clean_line's fast paths for "[  123.456789] msg", "[  123.456789][ T42] msg" and plain text
// with no prefix must give what the general loop gives, field for field and view for view: every combination of stamps,
// caller ids, separators, messages and line ends, then random lines over the bytes the prefixes use.
BOOST_AUTO_TEST_CASE(fast_path_reads_lines_as_the_general_loop_does) {
  const std::vector<std::string> stamps = {
      "", "[    0.000000]", "[  123.456789]", "[12345.678901]", "[123456.789012]", "[\t1234.567890]", "[ 12.3456789]",
      "[    1.23456]", "[ 1 2.345678]", "[  123.45678x]", "[  12a.456789]", "[    .456789]", "[  123.456789",
      "<4>[  123.456789]", "[Mon Jan  1 00:00:00 2024]",
      // util-linux dmesg's other stamps (line_cleaner.cpp, strip_dmesg_stamp)
      "[   54.508689 <    0.000000>]", "[<    0.002307>]", "[  +0.008206]", "[Dec 3 16:37]",
      "[Thu Dec  3 16:37:40 2026 <    0.002307>]", "kern  :warn  : [  1.000000]", "2026-12-03T16:37:40,508689+00:00"};
  const std::vector<std::string> callers = {"",          "[T1]",     "[ T42]",   "[    C1]", "[T1234567890]",
                                            "[T]",       "[X1]",     "[ T42",    "[C0]",     "[   T28]",
                                            "[ T12345]", "[     T]", "[      ]", "[  T 12]", "[T123456]"};
  const std::vector<std::string> gaps = {"", " ", "  ", "\t", " \t"};
  const std::vector<std::string> messages = {"",
                                             "x",
                                             "WARNING: at foo",
                                             " dump_stack+0x1/0x2",
                                             "[T5] nested",
                                             "[  1.000000] again",
                                             "[drm] Num pipes",
                                             "\x1b[0m",
                                             "<4>",
                                             "Jan  1 00:00:00 host kernel: msg",
                                             "4,123,456789,-;msg",
                                             " f+0x1/0x2 lib/x.c:16 [inline]",
                                             "f [<ffffffff81000000>] g+0x1/0x2",
                                             "a [",
                                             "a [1",
                                             "a [x [ 1.000000] b"};
  const std::vector<std::string> ends = {"", "\r", "\n", "\r\n", "\"}", "\"}\r", "\n\"}", "}"};
  std::vector<std::string> lines;
  for (const auto& st : stamps)
    for (const auto& g1 : gaps)
      for (const auto& ca : callers)
        for (const auto& g2 : gaps)
          for (const auto& m : messages)
            for (const auto& e : {ends[0], ends[1], ends[6]}) {
              std::string line = st;
              line.append(g1).append(ca).append(g2).append(m).append(e);
              lines.push_back(std::move(line));
            }
  for (const auto& e : ends) lines.push_back("[  123.456789] msg" + e);
  // The uptime's padding: every mix of spaces, digits and other bytes before its last digit.
  const std::string pads = " 7x\t";
  for (std::size_t m = 0; m < 256; ++m) {
    std::string lead;
    for (std::size_t k = 0; k < 4; ++k) lead += pads[(m >> (2 * k)) & 3];
    lines.push_back("[" + lead + "5.123456] msg");
    lines.push_back("[" + lead + "5.123456][T1] msg");
  }
  std::mt19937 rng(14);
  const std::string alphabet = "[] .\t0123456789TCx<>\r\n\"}";
  for (int k = 0; k < 200000; ++k) {
    std::string line = k % 2 ? "[   12.345678]" : "";
    const std::size_t n = rng() % 24;
    for (std::size_t i = 0; i < n; ++i) line += alphabet[rng() % alphabet.size()];
    if (k % 3 == 0 && line.size() > 14) line[rng() % 14] = alphabet[rng() % alphabet.size()];
    lines.push_back(line);
  }
  // Lines with no prefix, opening with each byte class the cleaner tells apart, brackets and
  // timestamps somewhere behind (a syslog month and a kmsg record among them).
  const std::string openers =
      "<[\x1b"
      "0719ADJMSTZaz# \t:-";
  const std::string inner =
      "[] .\t0123456789TCxa:,;-<Z"
      "\x1b";
  for (int k = 0; k < 200000; ++k) {
    std::string line(1, openers[rng() % openers.size()]);
    const std::size_t n = rng() % 30;
    for (std::size_t i = 0; i < n; ++i) line += inner[rng() % inner.size()];
    if (k % 5 == 0 && line.size() > 4) line[3] = ' ';
    if (k % 7 == 0) line += k % 2 ? "[  123.456789] x" : "Jan  1 00:00:00 host kernel: msg";
    if (k % 11 == 0) line.insert(0, "Jan  1 00:00:00 host kernel: ");
    if (k % 13 == 0) line.insert(0, k % 2 ? "1 " : "2024-01-01T00:00:00 ");
    lines.push_back(line);
  }
  // printk's eight-byte caller id field "[%6s]" behind a stamp: every six bytes over the bytes
  // its reading tells apart (spaces, the kinds, digits, another letter, the field's end).
  const std::string field = " TC1x]";
  for (std::size_t m = 0; m < 46656; ++m) {
    std::string id = "[";
    for (std::size_t k = 0, v = m; k < 6; ++k, v /= 6) id += field[v % 6];
    lines.push_back("[  123.456789]" + id + "] msg");
    if (m % 7 == 0) lines.push_back("[  123.456789]" + id + "]msg");
  }
  // Frame and prose lines with brackets behind their first byte, a timestamp among them or not.
  const std::string after = " \t0x<[]";
  for (int k = 0; k < 50000; ++k) {
    std::string line = k % 2 ? " f+0x1/0x2" : "x";
    const std::size_t n = rng() % 6;
    for (std::size_t i = 0; i < n; ++i) {
      line += k % 3 ? " [" : "[";
      line += after[rng() % after.size()];
      if (rng() % 4 == 0) line += "  12.345678] y";
    }
    lines.push_back(line);
  }
  // A timestamp or another bracket at every offset of lines of every length around the 16-byte
  // blocks the search for a '[' reads.
  for (std::size_t k = 1; k < 70; ++k)
    for (const char* tail : {"[  12.345678] y", "[inline]", "[", "[ ", "[x[1.5] z"}) {
      lines.push_back(std::string(k, 'x') + tail);
      lines.push_back(" " + std::string(k, 'x') + tail + std::string(k % 17, 'y'));
    }
  std::size_t checked = 0;
  std::size_t mismatched = 0;
  for (const std::string& line : lines)
    for (const bool separator_free : {false, true}) {
      const CleanLine fast = clean_line(line, 7, separator_free);
      const CleanLine general = clean_line_general(line, 7, separator_free);
      if (!same(fast, general)) {
        ++mismatched;
        BOOST_TEST_CONTEXT("line '" << line << "' separator_free " << separator_free) {
          BOOST_TEST(fast.text == general.text);
          BOOST_TEST(same(fast, general));
        }
      }
      ++checked;
    }
  BOOST_TEST(mismatched == 0u);
  BOOST_TEST(checked > 900000u);
}

// clean_line's inline path (line_cleaner.h) decides on a line's last byte, its length and its
// first 22 bytes: every last byte, behind stamps and caller ids of every shape it tells apart and
// messages of lengths around its 16-byte test, gives clean_line_general's result.
BOOST_AUTO_TEST_CASE(inline_path_matches_general_on_every_last_byte) {
  const std::vector<std::string> heads = {"",
                                          "[  123.456789]",
                                          "[  123.456789] ",
                                          "[  123.456789]  ",
                                          "[123456.456789] ",
                                          "[  123.456789][ T42] ",
                                          "[  123.456789][  T42]",
                                          "[  123.456789][    C1] ",
                                          "[  123.456789][T1] ",
                                          "[  123.456789][     T] ",
                                          "[  123.456789][ T4x] ",
                                          "[  123.456789] [T1] ",
                                          "[  123.456789][ T42]",
                                          "[  1 3.456789] ",
                                          "x[  123.456789] ",
                                          "[  123.456789]\t",
                                          "<4>[  123.456789] "};
  const std::vector<std::string> bodies = {"", "x", "ab", "msg [  1.5] x", "0123456789", " f+0x1/0x2 [inline]", "\""};
  std::size_t checked = 0;
  std::size_t mismatched = 0;
  for (const auto& h : heads)
    for (const auto& b : bodies)
      for (int last = -1; last < 256; ++last) {
        std::string line = h + b;
        if (last >= 0) line += static_cast<char>(last);
        for (const bool separator_free : {false, true}) {
          const CleanLine fast = clean_line(line, 3, separator_free);
          const CleanLine general = clean_line_general(line, 3, separator_free);
          ++checked;
          if (!same(fast, general)) {
            ++mismatched;
            BOOST_TEST_CONTEXT("line '" << line << "' separator_free " << separator_free) {
              BOOST_TEST(fast.text == general.text);
            }
          }
        }
      }
  BOOST_TEST(mismatched == 0u);
  BOOST_TEST(checked > 60000u);
}

// clean_line_deferred leaves a line whole, unsearched for a timestamp behind other text, and asks
// its caller to look (check_stamp); the parser's scan answers (LineScan::stamp_open) and calls
// clean_line only when it is set. That, on generated lines of every first byte, brackets and
// stamps (whole, damaged, more than eight brackets) at every place, and on every scanner path,
// must give clean_line's result.
BOOST_AUTO_TEST_CASE(deferred_stamp_search_with_a_scan_reads_as_clean_line) {
  const std::vector<std::string> pieces = {
      "[",        "[ ",      "[1",          "[\t",     "[  12.345678]",
      "[1.5]",    "[x]",     "[1.]",        "]",       "[  1 2.3]",
      "[<ffff>]", " ",       "x",           "0",       "1 ",
      "<4>",      "\x1b[0m", "2024-01-01T", "Jan  1 ", ",",
      "\t",       "[T1]",    "PCI: ",       "[ T42] ", "[Mon Jan  1 00:00:00 2024]"};
  const std::string_view no_words[] = {"xy"};
  btaudit::LineScanner scanner(no_words, no_words, /*stamp_opens=*/true);
  std::mt19937 rng(5);
  std::size_t deferred = 0;
  std::size_t rechecked = 0;
  for (int path = 0; path < 3; ++path) {
    for (int round = 0; round < 60000; ++round) {
      std::string line;
      const std::size_t count = rng() % 12;
      for (std::size_t k = 0; k < count; ++k) line += pieces[rng() % pieces.size()];
      if (rng() % 4 == 0 && !line.empty()) line[rng() % line.size()] = static_cast<char>(rng() % 256);
      const std::string buffer = line + "[ 1.2]\n";  // bytes past the line that a scan must not see
      const std::string_view raw = std::string_view(buffer).substr(0, line.size());
      for (const bool separator_free : {false, true}) {
        bool check_stamp = false;
        CleanLine got = btaudit::clean_line_deferred(raw, 7, separator_free, check_stamp);
        if (check_stamp) {
          ++deferred;
          BOOST_TEST_REQUIRE((got.text.data() == raw.data() && got.text.size() == raw.size()));
          const bool stamp_open = scanner.scan(got.text, buffer.data() + buffer.size()).stamp_open;
          // The scan's answer may be wider than the cleaner's search, never narrower.
          if (btaudit::has_stamp_behind(raw)) BOOST_TEST_REQUIRE(stamp_open);
          if (stamp_open) {
            ++rechecked;
            got = clean_line(raw, 7, separator_free);
          }
        }
        const CleanLine want = clean_line(raw, 7, separator_free);
        BOOST_TEST_INFO("line '" << line << "' separator_free " << separator_free);
        BOOST_TEST_REQUIRE(same(got, want));
        BOOST_TEST_REQUIRE(same(want, clean_line_general(raw, 7, separator_free)));
      }
    }
    if (path == 0)
      scanner.disable_avx2();
    else
      scanner.disable_ssse3();
  }
  BOOST_TEST(deferred > 50000u);
  BOOST_TEST(rechecked > 3000u);
}

BOOST_AUTO_TEST_SUITE_END()
