#include "text/line_scan.h"

#include <boost/test/unit_test.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "text/report_markers.h"
#include "text/scan.h"

using btaudit::LineScan;
using btaudit::LineScanner;

namespace {

constexpr std::string_view kWords[] = {"BUG: ",
                                       "WARNING: ",
                                       "INFO: ",
                                       "general protection fault",
                                       "kernel BUG at ",
                                       "SYZFAIL:",
                                       "Unable to handle kernel "};
constexpr std::string_view kPhrases[] = {"Sending NMI from CPU", "FAULT_INJECTION: x", "FAULT_FLAG", "ab",
                                         "Kernel panic - not syncing"};

// What scan() must find, written the obvious way: each question asked of the whole line.
LineScan reference(std::string_view s) {
  LineScan out;
  for (std::size_t k = 0; k < std::size(kPhrases); ++k)
    if (s.find(kPhrases[k]) != std::string_view::npos) out.phrases |= 1U << k;
  if (s.size() > 1 && s[0] == '?' && s[1] == ' ') out.unreliable_mark = true;
  for (std::size_t q = 1; q + 1 < s.size(); ++q)
    if (s[q] == '?' && s[q - 1] == ' ' && s[q + 1] == ' ') out.unreliable_mark = true;
  for (std::size_t i = 1; i + 1 < s.size(); ++i) {
    if (btaudit::scan::is_ident(s[i - 1])) continue;
    bool starts = false;
    // A word's head: its first four bytes (all of a shorter word), inside the line.
    for (const std::string_view w : kWords) {
      const std::string_view head = w.substr(0, 4);
      starts = starts || s.substr(i).starts_with(head);
    }
    if (!starts) continue;
    if (out.word_count < LineScan::kMaxWords)
      out.words[out.word_count++] = i;
    else
      out.more_words = true;
  }
  return out;
}

void check_scan(const LineScan& got, const std::string& s) {
  const LineScan want = reference(s);
  BOOST_TEST_INFO("line: \"" << s << "\"");
  BOOST_TEST(got.phrases == want.phrases);
  BOOST_TEST(got.unreliable_mark == want.unreliable_mark);
  BOOST_TEST(got.word_count == want.word_count);
  BOOST_TEST(got.more_words == want.more_words);
  for (std::size_t k = 0; k < want.word_count && k < got.word_count; ++k) BOOST_TEST(got.words[k] == want.words[k]);
}

// scan(s), and scan(s, end) with s followed in its buffer by bytes that would match (words,
// phrases, marks straddling its end): the blocks read past a short line must not see them.
void check(const LineScanner& scanner, const std::string& s) {
  check_scan(scanner.scan(s), s);
  static const std::string kTails[] = {"",
                                       "a",
                                       "b",
                                       " ? ",
                                       "?",
                                       "BUG: x",
                                       "ab",
                                       std::string(40, 'a'),
                                       "BUG: WARNING: ab ? Sending NMI from CPU BUG: ab ? "};
  for (const std::string& tail : kTails) {
    const std::string buffer = s + tail;
    check_scan(scanner.scan(std::string_view(buffer).substr(0, s.size()), buffer.data() + buffer.size()), s);
  }
}

// The scanner on each path the CPU offers: AVX2, SSSE3, then the plain loop.
template <typename Body>
void on_every_path(Body&& body) {
  LineScanner scanner(kWords, kPhrases);
  for (int path = 0; path < 3; ++path) {
    BOOST_TEST_MESSAGE("AVX2 path: " << scanner.uses_avx2() << ", SSSE3 path: " << scanner.uses_ssse3());
    body(scanner);
    if (path == 0)
      scanner.disable_avx2();
    else
      scanner.disable_ssse3();
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(line_scan)

BOOST_AUTO_TEST_CASE(finds_phrases_words_and_marks) {
  on_every_path([](const LineScanner& scanner) {
    const LineScan a = scanner.scan("Kernel panic - not syncing: Fatal exception in interrupt, Sending NMI from CPU 0");
    BOOST_TEST(a.phrases == (1U << 4 | 1U << 0));
    const LineScan b = scanner.scan(" ? foo+0x1/0x2 DEBUG: x-general BUG: WARNING: end");
    BOOST_TEST(b.unreliable_mark);
    // "general" ('-' is no identifier byte: match_start decides about it), "BUG:", "WARNING:"; not "DEBUG:".
    BOOST_TEST(b.word_count == 3U);
    BOOST_TEST(b.words[0] == 24U);
    const LineScan c = scanner.scan("? foo+0x1/0x2");
    BOOST_TEST(c.unreliable_mark);
    BOOST_TEST(!scanner.scan("foo? bar ?baz").unreliable_mark);
  });
}

BOOST_AUTO_TEST_CASE(keeps_the_first_word_starts_and_says_there_are_more) {
  on_every_path([](const LineScanner& scanner) {
    const std::string s = "x BUG: BUG: BUG: BUG: BUG: BUG: and more text after them";
    const LineScan got = scanner.scan(s);
    BOOST_TEST(got.word_count == LineScan::kMaxWords);
    BOOST_TEST(got.more_words);
    BOOST_TEST(got.words[0] == 2U);
    BOOST_TEST(got.words[3] == 17U);
  });
}

// Every length around the 16- and 32-byte blocks, phrases and words cut by the line's end at
// every place, bytes of every class including >= 0x80, on every path, with and without bytes
// readable past the line's end.
BOOST_AUTO_TEST_CASE(agrees_with_a_question_by_question_search) {
  const std::string alphabet = "BUGWARNINFgeSFKab?:- _.$x0\x80\xff\t";
  on_every_path([&](const LineScanner& scanner) {
    std::mt19937 rng(7);
    for (std::size_t len = 0; len < 100; ++len) {
      for (int round = 0; round < 30; ++round) {
        std::string s(len, ' ');
        for (char& c : s) c = alphabet[rng() % alphabet.size()];
        check(scanner, s);
      }
    }
    // A phrase or a word placed at every position, then cut at every length.
    for (const std::string_view piece : {kPhrases[0], kPhrases[4], kWords[0], kWords[3], std::string_view(" ? ")}) {
      for (std::size_t at = 0; at < 70; ++at) {
        std::string s(at, 'y');
        if (at > 0) s[at - 1] = ' ';
        s += piece;
        s += std::string(40, 'z');
        for (std::size_t cut = 0; cut <= s.size(); ++cut) check(scanner, s.substr(0, cut));
      }
    }
  });
}

// The SIMD paths sort the words', phrases' and mark's first two bytes into eight buckets, merging
// first bytes when there are more (each bucket lets some other pairs through, which the candidate
// check drops): with many first bytes, bytes >= 0x80 among them, every path must find what the
// plain loop finds, on random lines over those bytes and their neighbours.
BOOST_AUTO_TEST_CASE(paths_agree_when_the_first_bytes_outnumber_the_buckets) {
  const std::vector<std::string> words = {"ab",
                                          "Bc",
                                          "cD",
                                          "d\x81",
                                          "\x90"
                                          "e",
                                          "fg",
                                          "Gh",
                                          "h?",
                                          "i ",
                                          "\xff"
                                          "j",
                                          "k:",
                                          "lm",
                                          "Mn",
                                          "no",
                                          "op",
                                          "PQ",
                                          "qr",
                                          "rS",
                                          "st",
                                          "tu"};
  const std::vector<std::string> phrases = {"zy", "Yx", "\x80\x81x", "?  x", "w v", "ba", "a\xff"};
  std::vector<std::string_view> word_views(words.begin(), words.end());
  std::vector<std::string_view> phrase_views(phrases.begin(), phrases.end());
  LineScanner plain(word_views, phrase_views);
  plain.disable_ssse3();
  const std::string alphabet =
      "abBcDd\x81\x90"
      "efgGhi \xff"
      "jk:lmMnopPQqrSstuzyYx\x80"
      "wv?_.$0";
  std::mt19937 rng(23);
  LineScanner scanner(word_views, phrase_views);
  for (int path = 0; path < 2; ++path) {
    for (int round = 0; round < 20000; ++round) {
      std::string s(rng() % 90, ' ');
      for (char& c : s) c = alphabet[rng() % alphabet.size()];
      const LineScan want = plain.scan(s);
      const std::string buffer = s + std::string(40, 'a');
      for (const LineScan& got : {scanner.scan(s), scanner.scan(std::string_view(buffer).substr(0, s.size()),
                                                                buffer.data() + buffer.size())}) {
        BOOST_TEST_INFO("line: \"" << s << "\"");
        BOOST_TEST_REQUIRE(got.phrases == want.phrases);
        BOOST_TEST_REQUIRE(got.unreliable_mark == want.unreliable_mark);
        BOOST_TEST_REQUIRE(got.word_count == want.word_count);
        BOOST_TEST_REQUIRE(got.more_words == want.more_words);
        for (std::size_t k = 0; k < want.word_count; ++k) BOOST_TEST_REQUIRE(got.words[k] == want.words[k]);
      }
    }
    scanner.disable_avx2();
  }
}

// match_start with a scan of the line finds what match_start finds on its own, whatever stands
// before the words: indentation, subsystem prefixes, other text, more words than a scan keeps.
BOOST_AUTO_TEST_CASE(match_start_from_a_scan_agrees_with_its_own_search) {
  const LineScanner scanner(btaudit::embeddable_words(), kPhrases);
  const std::string_view heads[] = {"",
                                    "  ",
                                    "watchdog: ",
                                    "kernel: rcu: ",
                                    "\t",
                                    "foo bar[   76.471107] ",
                                    "x-",
                                    "[ ",
                                    "BUG: BUG: BUG: BUG: BUG: ",
                                    "INFO: sys_x ",
                                    "---[ end "};
  const std::string_view words[] = {"BUG: unable to handle kernel paging request at 0",
                                    "general protection fault: 0000 [#1]",
                                    "WARNING: CPU: 0 PID: 1 at x.c:1 f+0x1/0x2",
                                    "Kernel panic - not syncing: Fatal exception",
                                    "INFO: task x:1 blocked for more than 120 seconds.",
                                    "SYZFAIL: x",
                                    "DEBUG: nothing",
                                    "kernel BUG at mm/x.c:12!",
                                    "Unhandled fault: x"};
  for (const std::string_view head : heads) {
    for (const std::string_view word : words) {
      const std::string full = std::string(head) + std::string(word);
      for (std::size_t cut = 0; cut <= full.size(); ++cut) {
        const std::string_view line = std::string_view(full).substr(0, cut);
        const auto alone = btaudit::match_start(line);
        const auto scanned = btaudit::match_start(line, scanner.scan(line));
        BOOST_TEST_INFO("line: \"" << line << "\"");
        BOOST_TEST(alone.has_value() == scanned.has_value());
        if (alone && scanned) {
          BOOST_TEST(alone->header == scanned->header);
          BOOST_TEST((alone->kind == scanned->kind));
          BOOST_TEST((alone->join == scanned->join));
        }
      }
    }
  }
}

// A scan lists a word start only where a word's head (its first four bytes) stands, not wherever
// its first two do (" in ", " st", " ge" are everywhere in traces): lines made of heads, parts of
// heads, whole words and their neighbours, cut at every length and followed in their buffer by more
// of them, find with their scan what match_start finds on its own, on every path, and the scan's
// word starts are the heads' positions.
BOOST_AUTO_TEST_CASE(word_starts_are_heads_and_match_start_finds_what_its_own_search_finds) {
  const std::string_view pieces[] = {"in",
                                     "inv",
                                     "inva",
                                     "invalid opcode: ",
                                     "ge",
                                     "gen",
                                     "gene",
                                     "general protection fault",
                                     "st",
                                     "stac",
                                     "BU",
                                     "BUG: ",
                                     "DEBUG: ",
                                     "-general",
                                     "x-in",
                                     "-BUG: ",
                                     "SY",
                                     "SYZF",
                                     "SYZFAIL:",
                                     "SYZFATAL:",
                                     " ",
                                     "  ",
                                     "watchdog: ",
                                     "Ke",
                                     "Kernel panic - not syncing",
                                     "IN",
                                     "INFO: ",
                                     "_in",
                                     "kernel BUG at ",
                                     "WARNING: ",
                                     "Un",
                                     "Unhandled fault: ",
                                     "\x80in",
                                     "?"};
  std::mt19937 rng(31);
  LineScanner scanner(btaudit::embeddable_words(), kPhrases);
  const auto heads_at = [](std::string_view s) {
    std::vector<std::size_t> at;
    for (std::size_t i = 1; i + 1 < s.size(); ++i) {
      if (btaudit::scan::is_ident(s[i - 1])) continue;
      bool head = false;
      for (const std::string_view w : btaudit::embeddable_words())
        head = head || s.substr(i).starts_with(w.substr(0, 4));
      if (head) at.push_back(i);
    }
    return at;
  };
  for (int path = 0; path < 3; ++path) {
    for (int round = 0; round < 3000; ++round) {
      std::string full;
      const std::size_t count = 1 + rng() % 6;
      for (std::size_t k = 0; k < count; ++k) full += pieces[rng() % std::size(pieces)];
      const std::string buffer = full + std::string(pieces[rng() % std::size(pieces)]) + "BUG: x";
      for (std::size_t cut = 0; cut <= full.size(); ++cut) {
        const std::string_view line = std::string_view(buffer).substr(0, cut);
        const std::vector<std::size_t> heads = heads_at(line);
        const auto alone = btaudit::match_start(line);
        for (const LineScan& seen : {scanner.scan(line), scanner.scan(line, buffer.data() + buffer.size())}) {
          BOOST_TEST_INFO("line: \"" << line << "\"");
          BOOST_TEST_REQUIRE(seen.word_count == std::min(heads.size(), LineScan::kMaxWords));
          BOOST_TEST_REQUIRE(seen.more_words == (heads.size() > LineScan::kMaxWords));
          for (std::size_t k = 0; k < seen.word_count; ++k) BOOST_TEST_REQUIRE(seen.words[k] == heads[k]);
          const auto scanned = btaudit::match_start(line, seen);
          BOOST_TEST_REQUIRE(alone.has_value() == scanned.has_value());
          if (alone && scanned) {
            BOOST_TEST_REQUIRE(alone->header == scanned->header);
            BOOST_TEST_REQUIRE((alone->kind == scanned->kind));
            BOOST_TEST_REQUIRE((alone->join == scanned->join));
          }
        }
      }
    }
    if (path == 0)
      scanner.disable_avx2();
    else
      scanner.disable_ssse3();
  }
}

namespace {
// Whether s[i ..] opens with '[', blanks, digits, '.', digits, ']', byte by byte (LineScan::stamp_open).
bool stamp_shape_at(std::string_view s, std::size_t i) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t j = i + 1;
  while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
  const std::size_t seconds = j;
  while (j < s.size() && digit(s[j])) ++j;
  if (j == seconds || j >= s.size() || s[j] != '.') return false;
  const std::size_t fraction = ++j;
  while (j < s.size() && digit(s[j])) ++j;
  return j != fraction && j < s.size() && s[j] == ']';
}
}  // namespace

// A scanner made with stamp_opens also says whether a '[' at a position >= 1 (not the last) opens a
// timestamp's shape, and finds all else as one made without: on random lines over those bytes and
// the words', on every path, past-the-end bytes readable or not (and shaped as a stamp's end).
BOOST_AUTO_TEST_CASE(stamp_opens_are_found_as_a_byte_by_byte_search_finds_them) {
  const std::string alphabet = "[[[[ \t\t0919..]]]BUGWARNINFgeSFK?:-_x\x80";
  std::mt19937 rng(13);
  LineScanner with(kWords, kPhrases, /*stamp_opens=*/true);
  for (int path = 0; path < 3; ++path) {
    for (int round = 0; round < 20000; ++round) {
      std::string s(rng() % 100, ' ');
      for (char& c : s) c = alphabet[rng() % alphabet.size()];
      bool want = false;
      for (std::size_t i = 1; i + 1 < s.size(); ++i) want = want || (s[i] == '[' && stamp_shape_at(s, i));
      const std::string buffer = s + ".1]1.2][ [\t";
      for (const LineScan& got :
           {with.scan(s), with.scan(std::string_view(buffer).substr(0, s.size()), buffer.data() + buffer.size())}) {
        BOOST_TEST_INFO("line: \"" << s << "\"");
        BOOST_TEST_REQUIRE(got.stamp_open == want);
        check_scan(got, s);
      }
    }
    if (path == 0)
      with.disable_avx2();
    else
      with.disable_ssse3();
  }
}

BOOST_AUTO_TEST_SUITE_END()
