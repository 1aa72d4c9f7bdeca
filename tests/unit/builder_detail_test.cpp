// The report builder's line tests made faster (report_builder.cpp, builder_detail): each must
// answer as the reading it replaced did, for every phrase or prefix, every cut and change of
// one, and random text over their bytes.
#include <boost/test/unit_test.hpp>
#include <cstddef>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "text/report_builder.h"
#include "text/trace_line.h"

using btaudit::builder_detail::first_word_has_dot;
using btaudit::builder_detail::is_auxiliary_label;
using btaudit::builder_detail::is_hex_dump_line;
using btaudit::builder_detail::is_register_line;
using btaudit::builder_detail::may_start_hex_dump_line;
using btaudit::builder_detail::not_trace_shaped;
using btaudit::builder_detail::read_fixed_register_row;
using btaudit::builder_detail::read_register_row;

namespace {

// The table and the loop of the reading before (report_builder.cpp at 1775ec8).
constexpr std::string_view kStarts[] = {
    "RIP: ",    "RSP: ",          "RAX: ",     "RDX: ",   "RBP: ",    "R10: ",      "R13: ",     "FS: ",      "CS: ",
    "CR2: ",    "DR0: ",          "DR3: ",     "DR6: ",   "PKRU: ",   "EIP: ",      "EAX: ",     "ESI: ",     "DS: ",
    "CR0: ",    "Code: ",         "RIP  [<",   " RSP <",  "EIP: [<",  "ORIG_RAX: ", "pc : ",     "lr : ",     "sp : ",
    "x29: ",    "x27: ",          "x25: ",     "x23: ",   "x21: ",    "x19: ",      "x17: ",     "x15: ",     "x13: ",
    "x11: ",    "x9 : ",          "x7 : ",     "x5 : ",   "x3 : ",    "x1 : ",      "pstate: ",  "NIP",       "LR ",
    "REGS:",    "MSR:",           "GPR",       "CFAR:",   "IRQMASK:", "Krnl PSW",   "Krnl GPRS", "Krnl Code", "epc : ",
    "ra : ",    "status: ",       "badaddr: ", "cause: ", "Stack:",   "PGD ",       "P4D ",      "#PF: ",     "IP: ",
    "Process ", "Thread overran",
};

bool table_says(std::string_view s) {
  for (const std::string_view k : kStarts)
    if (s.starts_with(k)) return true;
  return false;
}

// The phrases and the search per phrase of is_auxiliary_label before (report_builder.cpp at 1775ec8).
constexpr std::string_view kAux[] = {
    "Allocated by",
    "Freed by",
    "Last potentially related",
    "Second to last potentially related",
    "Last call_rcu",
    "Second to last call_rcu",
    "-> #",
    "Uninit was",
    "Local variable",
    "Memory access of",
    "allocated by task",
    "freed by task",
    "Bytes b4",
    "stored to memory",
    "created at",
    "other info",
    "Task ",
    "Workqueue:",
    "the shortest dependencies",
    "which lock already depends",
    "kmemleak:",
};

bool searched_aux(std::string_view label) {
  if (label.empty()) return false;
  for (const std::string_view a : kAux)
    if (label.find(a) != std::string_view::npos) return true;
  return false;
}

// ReportBuilder::trace_shaped as it read every line before the test of the first byte
// (report_builder.cpp at 8e88f9d), its parse the general reading's.
bool trace_shaped_before(std::string_view text, bool in_trace) {
  std::size_t b = 0;
  std::size_t e = text.size();
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; };
  while (b < e && blank(text[b])) ++b;
  while (e > b && blank(text[e - 1])) --e;
  const std::string_view s = text.substr(b, e - b);
  if (s.empty()) return false;
  if (s.starts_with("Call Trace:") || s.starts_with("Call trace:") || s == "Backtrace:" || s.starts_with("backtrace:"))
    return true;
  const char first = text[0];
  if (!in_trace && first != ' ' && first != '\t' && first != '[' && first != '(' && first != '<') return false;
  btaudit::TraceText t;
  return btaudit::parse_trace_text_general(text, t);
}

// is_hex_dump_line as it was (report_builder.cpp at 8e88f9d): a byte at a time.
bool hex_dump_before(std::string_view s) {
  const auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); };
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; };
  if (s.starts_with("Exception stack(")) return true;
  if (s.size() > 5 && s[4] == ':' && hex(s[0]) && hex(s[1]) && hex(s[2]) && hex(s[3])) s.remove_prefix(5);
  int words = 0;
  while (!s.empty()) {
    while (!s.empty() && blank(s[0])) s.remove_prefix(1);
    if (s.empty()) break;
    if (s[0] == '<') {
      const std::size_t e = s.find('>');
      if (e == std::string_view::npos) return false;
      s.remove_prefix(e + 1);
      continue;
    }
    std::size_t n = 0;
    while (n < s.size() && hex(s[n])) ++n;
    if (n != 8 && n != 16) return false;
    s.remove_prefix(n);
    ++words;
  }
  return words > 0;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(builder_detail)

BOOST_AUTO_TEST_CASE(literal_prefixes_answer_as_the_table_did) {
  std::set<char> byte_set;
  for (const std::string_view k : kStarts) byte_set.insert(k.begin(), k.end());
  for (const char c : std::string_view("0123456789abcdefx: []<>")) byte_set.insert(c);
  const std::string bytes(byte_set.begin(), byte_set.end());
  std::vector<std::string> lines = {"", " ", "R", "x", "x2", "x29", "x29:", "x31: ", "x28: ", "x0 : ", "x10: "};
  for (const std::string_view k : kStarts) {
    const std::string prefix(k);
    for (std::size_t cut = 0; cut <= prefix.size(); ++cut) {
      lines.push_back(prefix.substr(0, cut));
      lines.push_back(prefix.substr(0, cut) + "0000000000000000 rest");
    }
    // Every byte of the prefix changed to every byte the prefixes use.
    for (std::size_t i = 0; i < prefix.size(); ++i)
      for (const char c : bytes) {
        std::string changed = prefix;
        changed[i] = c;
        lines.push_back(changed);
        lines.push_back(changed + "ffff8801c56e76d8");
      }
  }
  std::mt19937 rng(14);
  for (int k = 0; k < 200000; ++k) {
    std::string line;
    const std::size_t n = rng() % 16;
    for (std::size_t i = 0; i < n; ++i) line += bytes[rng() % bytes.size()];
    lines.push_back(line);
  }
  std::size_t yes = 0;
  std::size_t mismatched = 0;
  for (const std::string& line : lines) {
    const bool expected = table_says(line);
    if (is_register_line(line) != expected) {
      ++mismatched;
      BOOST_TEST_CONTEXT("line '" << line << "'") { BOOST_TEST(is_register_line(line) == expected); }
    }
    yes += expected ? 1 : 0;
  }
  BOOST_TEST(mismatched == 0u);
  BOOST_TEST(yes > 1000u);  // the variants reach both answers
}

BOOST_AUTO_TEST_CASE(auxiliary_labels_answer_as_a_search_per_phrase_did) {
  std::set<char> byte_set;
  for (const std::string_view a : kAux) byte_set.insert(a.begin(), a.end());
  for (const char c : std::string_view("\x80\xff\x01@`{")) byte_set.insert(c);  // bytes alike modulo 64
  const std::string bytes(byte_set.begin(), byte_set.end());
  const std::vector<std::string> around = {"", "x", "Call Trace ", " by task 42", "#0 ", "\xc1"};
  std::vector<std::string> labels = {"", "Call Trace", "Allocated by task 123:", "The buggy address belongs to"};
  for (const std::string_view a : kAux) {
    const std::string phrase(a);
    for (const auto& before : around)
      for (const auto& after : around) {
        for (std::size_t cut = 0; cut <= phrase.size(); ++cut) {
          labels.push_back(before + phrase.substr(0, cut) + after);
          labels.push_back(before + phrase.substr(cut) + after);
        }
        for (std::size_t i = 0; i < phrase.size(); ++i) {
          std::string changed = phrase;
          changed[i] = static_cast<char>(changed[i] ^ 0x40);  // the same bit modulo 64
          labels.push_back(before + changed + after);
        }
      }
  }
  std::mt19937 rng(14);
  for (int k = 0; k < 200000; ++k) {
    std::string label;
    const std::size_t n = rng() % 40;
    for (std::size_t i = 0; i < n; ++i) label += bytes[rng() % bytes.size()];
    if (k % 3 == 0) label.insert(rng() % (label.size() + 1), std::string(kAux[rng() % std::size(kAux)]).substr(0, 6));
    labels.push_back(label);
  }
  std::size_t yes = 0;
  std::size_t mismatched = 0;
  for (const std::string& label : labels) {
    const bool expected = searched_aux(label);
    if (is_auxiliary_label(label) != expected) {
      ++mismatched;
      BOOST_TEST_CONTEXT("label '" << label << "'") { BOOST_TEST(is_auxiliary_label(label) == expected); }
    }
    yes += expected ? 1 : 0;
  }
  BOOST_TEST(mismatched == 0u);
  BOOST_TEST(yes > 1000u);
}

// not_trace_shaped() lets trace_shaped() answer false at once: only for lines it answered false
// for before without a parse. Every first byte, in and out of a trace, before the tails of the
// lines that open a trace (cut and changed) and random tails.
BOOST_AUTO_TEST_CASE(first_byte_test_answers_false_only_where_trace_shaped_did) {
  std::vector<std::string> tails = {"",
                                    "all Trace:",
                                    "all trace:",
                                    "acktrace:",
                                    "acktrace: x",
                                    "all Trace",
                                    "all  Trace:",
                                    "ackTrace:",
                                    " Call Trace:",
                                    "\tCall trace:",
                                    " foo+0x1/0x2",
                                    "[<ffffffff81234567>] foo",
                                    "<IRQ>",
                                    "  ",
                                    "x",
                                    "foo+0x1/0x2",
                                    "x12345678",
                                    "IRQ>",
                                    "f80: 2001 c180",
                                    ":mod:foo+0x1/0x2"};
  std::mt19937 rng(8);
  const std::string alphabet = "CBbacklTre: \t[(<0x+/";
  for (int k = 0; k < 3000; ++k) {
    std::string t;
    const std::size_t n = rng() % 14;
    for (std::size_t i = 0; i < n; ++i) t += alphabet[rng() % alphabet.size()];
    tails.push_back(t);
  }
  std::size_t quick = 0;
  for (int c = 0; c < 256; ++c)
    for (const std::string& tail : tails)
      for (const bool in_trace : {false, true}) {
        const std::string text = std::string(1, static_cast<char>(c)) + tail;
        if (!not_trace_shaped(text, in_trace)) continue;
        ++quick;
        BOOST_TEST_CONTEXT("byte " << c << " tail '" << tail << "' in_trace " << in_trace) {
          BOOST_TEST(!trace_shaped_before(text, in_trace));
        }
      }
  BOOST_TEST(not_trace_shaped("", false));
  BOOST_TEST(not_trace_shaped("", true));
  BOOST_TEST(quick > 200000u);  // most first bytes are answered at once out of a trace
}

// is_hex_dump_line reads a word's digits sixteen at a time: rows of words of every length
// around 8 and 16 digits, with every byte after them, markers and arm's row offsets, then random
// rows; each in a string of its own, so that a read past its end shows under a memory checker.
BOOST_AUTO_TEST_CASE(hex_dump_rows_answer_as_a_byte_at_a_time_did) {
  std::vector<std::string> rows = {"", " ", "Exception stack(0x1 to 0x2)", "<EOI>", "<EOI", "1f80:", "1f80: "};
  const std::string digits = "0123456789abcdefABCDEF";
  const std::string others = " \t:<>gxG-\x80";
  std::mt19937 rng(10);
  for (std::size_t len = 0; len <= 40; ++len)
    for (const char after : std::string(" :g<\t") + '\0')
      for (const std::string_view lead : {"", " ", "1f80: ", "5bc0:", "ffff8801c56e76d8 ", " <IRQ> "}) {
        std::string word;
        for (std::size_t i = 0; i < len; ++i) word += digits[rng() % digits.size()];
        std::string row = std::string(lead) + word;
        if (after != '\0') row += after;
        rows.push_back(row);
        rows.push_back(row + "00000000 ffffffffffffffff");
        rows.push_back(row + std::string(16 - len % 16, 'a'));
      }
  for (int k = 0; k < 200000; ++k) {
    std::string row = k % 2 ? " " : "1f80: ";
    const std::size_t words = rng() % 9;
    for (std::size_t w = 0; w < words; ++w) {
      const std::size_t len = rng() % 4 == 0 ? rng() % 20 : (rng() % 2 ? 8 : 16);
      for (std::size_t i = 0; i < len; ++i)
        row += rng() % 40 == 0 ? others[rng() % others.size()] : digits[rng() % digits.size()];
      row += rng() % 8 == 0 ? "  " : " ";
      if (rng() % 30 == 0) row += "<EOI> ";
    }
    if (rng() % 3 == 0) row.pop_back();
    rows.push_back(row);
  }
  // add_line asks may_start_hex_dump_line first: every trimmed row that is a dump must pass it,
  // after every first byte.
  const std::size_t generated = rows.size();
  for (int c = 0; c < 256; ++c)
    for (std::size_t k = 0; k < generated; k += 97) rows.push_back(std::string(1, static_cast<char>(c)) + rows[k]);
  std::size_t dumps = 0;
  for (const std::string& r : rows) {
    const std::string row = r;  // exactly as long as the row
    const bool before = hex_dump_before(row);
    dumps += before ? 1 : 0;
    BOOST_TEST_CONTEXT("row '" << row << "'") {
      BOOST_TEST(is_hex_dump_line(row) == before);
      const bool blank = !row.empty() && (row[0] == ' ' || row[0] == '\t' || row[0] == '\r' || row[0] == '\f' ||
                                          row[0] == '\v');  // add_line's lines are trimmed
      if (before && !blank) BOOST_TEST(may_start_hex_dump_line(row[0]));
    }
  }
  BOOST_TEST(dumps > 20000u);  // the rows hold dumps, not only rejects
}

// read_fixed_register_row reads x86-64's rows of general registers at fixed places: wherever it
// answers, read_register_row must read the same names and values. Rows of that shape with every
// byte of a name, a separator or a digit replaced (blanks, ':', non-digits among them), cut or
// lengthened by one, and random rows over the same bytes.
BOOST_AUTO_TEST_CASE(fixed_register_rows_read_as_the_general_reading_does) {
  const std::string bytes = "RAXBC0159abcdefABCDEFgxz: \t\v:_-";
  const std::string hexd = "0123456789abcdefABCDEF";
  std::mt19937 rng(14);
  const auto random_row = [&] {
    std::string row;
    for (int w = 0; w < 3; ++w) {
      if (w > 0) row += ' ';
      row += std::string{"RER"[rng() % 3], "ABC1"[rng() % 4], "XPI0"[rng() % 4]} + ": ";
      for (int i = 0; i < 16; ++i) row += hexd[rng() % hexd.size()];
    }
    return row;
  };
  std::vector<std::string> rows = {"RAX: 0000000000000000 RBX: ffff8801ac392080 RCX: ffffffff84db22a1"};
  for (int k = 0; k < 300; ++k) {
    const std::string row = random_row();
    rows.push_back(row);
    for (std::size_t i = 0; i < row.size(); ++i)
      for (const char c : bytes) {
        std::string r = row;
        r[i] = c;
        rows.push_back(r);
      }
    rows.push_back(row.substr(1));
    rows.push_back(row.substr(0, row.size() - 1));
    rows.push_back(row + "0");
    rows.push_back(row + " ");
    rows.push_back(" " + row.substr(1));
  }
  for (int k = 0; k < 200000; ++k) {
    std::string r = random_row();
    for (int m = static_cast<int>(rng() % 4); m > 0; --m) r[rng() % r.size()] = bytes[rng() % bytes.size()];
    rows.push_back(r);
  }
  std::size_t fixed = 0;
  for (const std::string& r : rows) {
    const std::string row = r;  // exactly as long as the row
    btaudit::builder_detail::RegisterValues general{};
    btaudit::builder_detail::RegisterValues fast{};
    const std::size_t n = read_register_row(row, general);
    const std::size_t f = read_fixed_register_row(row, fast);
    if (f == 0) continue;
    ++fixed;
    BOOST_TEST_CONTEXT("row '" << row << "'") {
      BOOST_TEST(f == n);
      for (std::size_t i = 0; i < f && i < n; ++i) {
        BOOST_TEST(fast[i].name == general[i].name);
        BOOST_TEST(fast[i].value == general[i].value);
      }
    }
  }
  BOOST_TEST(fixed > 100000u);  // the fast reading answered most rows, not only rejected them
}

// first_word_has_dot reads sixteen bytes at a time: it must answer as parse_release_taint_line's
// reading before (take_word, then a search of the word for '.') for lines that start with a digit,
// of every length around 16 and 32 with the first ' ' or '.' at every place, and random lines.
BOOST_AUTO_TEST_CASE(first_word_dot_answers_as_take_word_and_a_search_did) {
  const auto before = [](std::string_view s) { return s.substr(0, s.find(' ')).find('.') != std::string_view::npos; };
  const std::string bytes = "0123456789abcdef. \t#-";
  std::mt19937 rng(15);
  std::vector<std::string> lines;
  for (std::size_t len = 1; len <= 40; ++len)
    for (std::size_t at = 0; at <= len; ++at)
      for (const char c : std::string(". \t")) {
        std::string line(len, '0');
        for (char& b : line) b = static_cast<char>('0' + rng() % 10);
        if (at < len) line[at] = c;
        lines.push_back(line);
        if (at + 1 < len) {
          line[at + 1] = c == '.' ? ' ' : '.';
          lines.push_back(line);
        }
      }
  for (int k = 0; k < 200000; ++k) {
    std::string line(1, static_cast<char>('0' + rng() % 10));
    const std::size_t len = rng() % 48;
    for (std::size_t i = 0; i < len; ++i)
      line += rng() % 8 == 0 ? bytes[rng() % bytes.size()] : static_cast<char>('0' + rng() % 10);
    lines.push_back(line);
  }
  std::size_t dots = 0;
  for (const std::string& l : lines) {
    const std::string line = l;  // exactly as long as the line
    dots += before(line) ? 1 : 0;
    BOOST_TEST_CONTEXT("line '" << line << "'") { BOOST_TEST(first_word_has_dot(line) == before(line)); }
  }
  BOOST_TEST(dots > 10000u);
}

BOOST_AUTO_TEST_SUITE_END()
