// The line patterns and frame pattern sets skip work (candidate starts whose first byte
// cannot begin the pattern, '*' positions whose byte differs from the literal after it,
// name positions that start no skip pattern). These tests hold them to plain oracles
// written from the pattern language's definition (line_pattern.h, frame_roles.h): every
// pattern of the title rule table, and patterns led by each kind of token, on lines
// generated from the patterns themselves, cut, mutated and embedded at random offsets.
#include "analysis/line_pattern.h"

#include <algorithm>
#include <array>
#include <boost/test/unit_test.hpp>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "analysis/frame_roles.h"
#include "analysis/text_find.h"
#include "analysis/title_rules.h"

using namespace btaudit;

namespace {

bool ident(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }
bool hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }
bool digit(char c) { return c >= '0' && c <= '9'; }

// The pattern language as line_pattern.h states it, tried at every start with plain
// recursion: no literal jumps, no byte filters, no budget (the lines here are short).
struct Oracle {
  std::string_view pat;
  std::string_view s;
  std::vector<std::string_view> caps;

  template <typename Pred>
  std::size_t run_of(std::size_t i, Pred pred) const {
    std::size_t j = i;
    while (j < s.size() && pred(s[j])) ++j;
    return j - i;
  }
  std::size_t pc(std::size_t i) const {  // "[<hex>]", '<', "0x" and '>' optional
    std::size_t j = i;
    if (j >= s.size() || s[j] != '[') return 0;
    ++j;
    if (j < s.size() && s[j] == '<') ++j;
    if (j + 1 < s.size() && s[j] == '0' && s[j + 1] == 'x') j += 2;
    const std::size_t n = run_of(j, hex);
    if (n == 0) return 0;
    j += n;
    if (j < s.size() && s[j] == '>') ++j;
    return j < s.size() && s[j] == ']' ? j + 1 - i : 0;
  }
  std::size_t source(std::size_t i) const {  // "path/file.ext:123", the extension lower-case
    const std::size_t n = run_of(i, [](char c) { return ident(c) || c == '-' || c == '/' || c == '.'; });
    const std::size_t colon = i + n;
    if (n == 0 || colon >= s.size() || s[colon] != ':') return 0;
    std::size_t k = colon;
    while (k > i && s[k - 1] >= 'a' && s[k - 1] <= 'z') --k;
    if (k == colon || k <= i + 1 || s[k - 1] != '.') return 0;
    const std::size_t d = run_of(colon + 1, digit);
    return d == 0 ? 0 : colon + 1 + d - i;
  }
  bool then(std::size_t next, std::size_t si, std::size_t len, bool capture) {
    const std::size_t mark = caps.size();
    if (capture) caps.push_back(s.substr(si, len));
    if (run(next, si + len)) return true;
    caps.resize(mark);
    return false;
  }
  bool run(std::size_t pi, std::size_t si) {
    if (pi == pat.size()) return true;
    const char c = pat[pi];
    if (c == ' ') {
      if (si >= s.size() || s[si] != ' ') return false;
      return run(pi + 1, si + run_of(si, [](char ch) { return ch == ' '; }));
    }
    if (c == '*') {
      for (std::size_t k = si; k <= s.size(); ++k)
        if (run(pi + 1, k)) return true;
      return false;
    }
    if (c != '{') return si < s.size() && s[si] == c && run(pi + 1, si + 1);
    const std::size_t close = pat.find('}', pi);
    const std::string_view tok = pat.substr(pi + 1, close - pi - 1);
    const std::size_t next = close + 1;
    if (tok.size() > 2 && tok[1] == ':') {
      std::string_view alts = tok.substr(2);
      for (;;) {
        const std::size_t bar = alts.find('|');
        const std::string_view alt = alts.substr(0, bar);
        bool fits = s.size() - si >= alt.size();
        for (std::size_t k = 0; fits && k < alt.size(); ++k) fits = alt[k] == '?' || alt[k] == s[si + k];
        if (fits && then(next, si, alt.size(), tok[0] == 'C')) return true;
        if (bar == std::string_view::npos) return false;
        alts.remove_prefix(bar + 1);
      }
    }
    const auto nonempty = [&](std::size_t n, bool capture) { return n > 0 && then(next, si, n, capture); };
    switch (tok[0]) {
      case 'F':
      case 'f': {
        const std::size_t n = run_of(si, ident);
        const bool ends = si + n < s.size() && (s[si + n] == '.' || s[si + n] == '+');
        return ends && nonempty(n, tok[0] == 'F');
      }
      case 'P': return nonempty(pc(si), false);
      case 'p': {
        const std::size_t n = pc(si);
        if (n > 0 && si + n < s.size() && s[si + n] == ' ') {
          const std::size_t spaces = run_of(si + n, [](char ch) { return ch == ' '; });
          if (then(next, si, n + spaces, false)) return true;
        }
        return run(next, si);
      }
      case 'S': return nonempty(source(si), true);
      case 'W':
      case 'w':
        return nonempty(run_of(si, [](char ch) { return (ch >= 'a' && ch <= 'z') || ch == '-'; }), tok[0] == 'W');
      case 'I': return nonempty(run_of(si, ident), true);
      case 'L': return nonempty(run_of(si, [](char ch) { return (ch >= 'a' && ch <= 'z') || ch == '_'; }), true);
      case 'Q': return nonempty(run_of(si, [](char ch) { return ch != '\''; }), true);
      case 'D': return nonempty(run_of(si, digit), false);
      case 'H': return nonempty(run_of(si, hex), false);
      case 'T': return then(next, si, run_of(si, [](char ch) { return ch != ' '; }), false);
      case 'R': return then(next, si, s.size() - si, true);
      case 'Z':
        for (std::size_t len = 0; si + len <= s.size(); ++len)
          if (then(next, si, len, true)) return true;
        return false;
      case 'E': {
        const std::size_t n = run_of(si, [](char ch) { return ch == ' ' || ch == '\t' || ch == '\r'; });
        return si + n == s.size() && run(next, s.size());
      }
      default: return false;
    }
  }
  bool find(std::string_view pattern, std::string_view line) {
    const bool anchored = pattern.starts_with('^');
    pat = anchored ? pattern.substr(1) : pattern;
    s = line;
    for (std::size_t start = 0; start <= s.size(); ++start) {
      caps.clear();
      if (run(0, start)) return true;
      if (anchored) return false;
    }
    return false;
  }
};

// Text a token can match, so that generated lines reach past it.
std::string sample(std::string_view tok, std::mt19937& rng) {
  const auto pick = [&](std::initializer_list<const char*> options) {
    std::vector<const char*> v(options);
    return std::string(v[rng() % v.size()]);
  };
  if (tok.size() > 2 && tok[1] == ':') {
    std::vector<std::string> alts;
    std::string_view a = tok.substr(2);
    for (std::size_t bar; (bar = a.find('|')) != std::string_view::npos; a.remove_prefix(bar + 1))
      alts.emplace_back(a.substr(0, bar));
    alts.emplace_back(a);
    std::string alt = alts[rng() % alts.size()];
    std::replace(alt.begin(), alt.end(), '?', 'x');
    return alt;
  }
  switch (tok[0]) {
    case 'F':
    case 'f': return pick({"foo+", "__x64_sys_read.", "kasan_report+", "a+"});
    case 'P': return pick({"[<ffffffff81234567>]", "[<0xc0de>]", "[ffff1234]"});
    case 'p': return pick({"[<ffffffff81234567>] ", "", "[<ab>]  "});
    case 'S': return pick({"mm/slub.c:12", "net/core/dev.c:4567", "a.h:1"});
    case 'W':
    case 'w': return pick({"use-after-free", "slab-out-of-bounds", "x"});
    case 'I': return pick({"snd_seq", "A1_b", "x"});
    case 'L': return pick({"smp_processor_id", "x"});
    case 'Q': return pick({"bp", "frame pointer"});
    case 'D': return pick({"0", "143", "42"});
    case 'H': return pick({"ffff8801c8b2f9c4", "dead", "0"});
    case 'T': return pick({"syz-executor.0/123", "", "x"});
    default: return pick({"tail of the line", "", "x y"});
  }
}

// A line the pattern is meant to match: literals kept, tokens replaced by samples.
std::string instantiate(std::string_view pattern, std::mt19937& rng) {
  if (pattern.starts_with('^')) pattern.remove_prefix(1);
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '{') {
      const std::size_t close = pattern.find('}', i);
      out += sample(pattern.substr(i + 1, close - i - 1), rng);
      i = close;
    } else if (pattern[i] == '*') {
      out += std::string(rng() % 3, "ab :[x"[rng() % 6]);
    } else if (pattern[i] == ' ') {
      out += std::string(1 + rng() % 2, ' ');
    } else {
      out += pattern[i];
    }
  }
  return out;
}

// Variants of a line: embedded after and before filler, cut, one byte changed or dropped.
std::vector<std::string> variants(const std::string& line, std::mt19937& rng) {
  static const std::string kBytes = "ab_x0f9 :[]<>()+./-'?{}*ABFIPcp\t";
  const auto filler = [&] {
    std::string f;
    for (std::size_t n = rng() % 12; n > 0; --n) f += kBytes[rng() % kBytes.size()];
    return f;
  };
  std::vector<std::string> out{line, filler() + line, line + filler(), filler() + line + filler(), line + " " + line};
  for (int k = 0; k < 8 && !line.empty(); ++k) {
    std::string v = line;
    const std::size_t at = rng() % v.size();
    if (k % 3 == 0)
      v.erase(at, 1);
    else if (k % 3 == 1)
      v[at] = kBytes[rng() % kBytes.size()];
    else
      v = v.substr(0, at);
    out.push_back(filler() + v);
  }
  return out;
}

std::vector<std::string_view> rule_patterns() {
  std::vector<std::string_view> all;
  for (const auto& fam : title_rules::families()) {
    all.insert(all.end(), fam.suppress.begin(), fam.suppress.end());
    for (const auto& f : fam.formats) {
      all.insert(all.end(), f.title.begin(), f.title.end());
      all.insert(all.end(), f.report.begin(), f.report.end());
      for (const auto* parts : {&f.stack.parts, &f.stack.parts2})
        for (const auto& p : *parts)
          if (p.kind == title_rules::PartKind::Line) all.push_back(p.pattern);
    }
  }
  return all;
}

// Patterns led by each kind of token and each kind of '*' follower, beyond the table's.
constexpr std::string_view kLeadingTokens[] = {"{F}",
                                               "{f} x",
                                               "{P} {F}",
                                               "{p}{F}",
                                               "{S} at",
                                               "{W} in {F}",
                                               "{w}-",
                                               "{I}) from",
                                               "{L}()",
                                               "{Q}'",
                                               "{D}: (null)",
                                               "{H} {D}",
                                               "{T} x",
                                               "{R}",
                                               "{Z} in",
                                               "{E}",
                                               " {F}",
                                               "{A:ab|?x|c} {D}",
                                               "{C:a|} {F}",
                                               "{A:[|(}{F}",
                                               "a* :{D}",
                                               "*:",
                                               "x*{F}",
                                               "** {D}",
                                               "^{A:b|a}*+",
                                               "^ {F}",
                                               "{A:Read|Write}*]",
                                               "backtrace*:",
                                               "at* {p}{F}",
                                               "{C:Local variable |Uninit}",
                                               "({I}) from *(",
                                               "[* {F}",
                                               "{D}*{D}",
                                               "{A:ab|abc}{E}",
                                               "^{P} {P} {F}",
                                               "x{A:a|b}*.{D}"};

void expect_same_as_oracle(std::string_view pattern, const std::string& line) {
  std::vector<std::string_view> got;
  const bool found = find_pattern(pattern, line, &got);
  Oracle oracle;
  const bool want = oracle.find(pattern, line);
  BOOST_TEST_CONTEXT("pattern \"" << pattern << "\" on \"" << line << "\"") {
    BOOST_TEST(found == want);
    if (found && want) BOOST_TEST(got == oracle.caps, boost::test_tools::per_element());
  }
}

// The step budget as the matcher first spent it, for patterns of literal bytes, spaces and '*'
// led by a literal byte: one unit per step, the leading literal stepped over byte by byte and
// every '*' position tried or charged one by one. find_pattern now charges runs of steps at
// once; on lines where backtracking runs the budget out, the answers must stay these.
struct StepByStep {
  std::string_view pat;
  std::string_view s;
  int budget = 200000;  // Matcher's
  bool run(std::size_t pi, std::size_t si) {
    for (;;) {
      if (--budget < 0) return false;
      if (pi == pat.size()) return true;
      const char c = pat[pi];
      if (c == ' ') {
        if (si >= s.size() || s[si] != ' ') return false;
        while (si < s.size() && s[si] == ' ') ++si;
        ++pi;
        continue;
      }
      if (c == '*') break;
      if (si >= s.size() || s[si] != c) return false;
      ++pi;
      ++si;
    }
    const bool literal_next = pi + 1 < pat.size() && pat[pi + 1] != '*';
    for (std::size_t k = si; k <= s.size(); ++k) {
      if (literal_next && (k == s.size() || s[k] != pat[pi + 1])) {
        --budget;
        continue;
      }
      if (run(pi + 1, k)) return true;
    }
    return false;
  }
  bool find() {
    const std::string_view lit = pat.substr(0, pat.find_first_of(" *"));
    for (std::size_t start = 0;; ++start) {
      start = s.find(lit, start);
      if (start == std::string_view::npos) return false;
      if (run(0, start)) return true;
      if (budget < 0 || start >= s.size()) return false;
    }
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(line_pattern)

BOOST_AUTO_TEST_CASE(every_title_rule_pattern_finds_what_plain_backtracking_finds) {
  std::mt19937 rng(14);
  const auto patterns = rule_patterns();
  BOOST_REQUIRE_GT(patterns.size(), 100u);
  for (const std::string_view p : patterns)
    for (int n = 0; n < 6; ++n)
      for (const std::string& line : variants(instantiate(p, rng), rng)) expect_same_as_oracle(p, line);
}

BOOST_AUTO_TEST_CASE(patterns_led_by_any_token_find_what_plain_backtracking_finds) {
  std::mt19937 rng(1414);
  for (const std::string_view p : kLeadingTokens)
    for (int n = 0; n < 40; ++n)
      for (const std::string& line : variants(instantiate(p, rng), rng)) expect_same_as_oracle(p, line);
}

BOOST_AUTO_TEST_CASE(a_leading_token_is_found_at_the_leftmost_start_whatever_precedes_it) {
  // Every byte value before the match: the byte filter may skip only bytes that cannot start it.
  for (int b = 1; b < 256; ++b) {
    const std::string before(3, static_cast<char>(b));
    for (const std::string_view p : {"{F}", "{A:ab|cd} {D}", "{P} {F}", "{D}: x", "{H}!", "{W} in", "{Q}'", " {F}"}) {
      std::mt19937 rng(static_cast<unsigned>(b));
      expect_same_as_oracle(p, before + instantiate(p, rng));
    }
  }
}

BOOST_AUTO_TEST_CASE(function_name_length_is_an_identifier_run_before_a_dot_or_plus) {
  const std::string names[] = {"foo", "__x64_sys_read", "a", "_ZN4core3fmt5write17h", "9lives", ""};
  for (const std::string& n : names) {
    for (const std::string_view tail : {"+0x1/0x2", ".cold+0x2/0x3", ".isra.0", "", " ", "(", "+"}) {
      const std::string line = n + std::string(tail);
      const bool named = !n.empty() && !tail.empty() && (tail[0] == '+' || tail[0] == '.');
      BOOST_TEST_CONTEXT(line) {
        BOOST_TEST(function_name_length(line) == (named ? n.size() : 0u));
        BOOST_TEST(find_pattern("^{F}", line, nullptr) == named);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_frame_pattern_set_matches_a_name_when_some_pattern_of_it_does) {
  // Substrings short and long, anchored at either end or both, empty cores; and a set whose
  // substrings are all long (no place near a name's end can start one).
  static constexpr std::string_view kPatterns[] = {
      "kasan", "__asan",    "_trap$", "^down$", "^mutex_",   "lock",       "x",  "ab",     "^",         "$",  "^a",
      "b$",    "spin_lock", "^__rb_", "readb$", "atomic64_", "^call_mmap", "of", "_once_", "^kthread$", "sys"};
  static constexpr std::string_view kLong[] = {"spin_lock", "atomic64_", "do_softirq",      "_run_timers",
                                               "^kthread$", "readb$",    "process_one_work"};
  const auto check = [](std::span<const std::string_view> patterns, unsigned seed) {
    const FramePatternSet set(patterns);
    std::mt19937 rng(seed);
    static const std::string kBytes = "abdklnostwxy_$^";
    for (int n = 0; n < 20000; ++n) {
      std::string name;
      for (std::size_t parts = rng() % 4; parts > 0; --parts) {
        if (rng() % 2) {
          std::string_view p = patterns[rng() % patterns.size()];
          if (p.starts_with('^')) p.remove_prefix(1);
          if (p.ends_with('$')) p.remove_suffix(1);
          name += p.substr(0, p.size() - (p.empty() ? 0 : rng() % 2));
        } else {
          name += kBytes[rng() % kBytes.size()];
        }
      }
      const bool any = std::any_of(patterns.begin(), patterns.end(),
                                   [&](std::string_view p) { return matches_frame_pattern(name, p); });
      BOOST_TEST_CONTEXT(name) { BOOST_TEST(set.matches(name) == any); }
    }
  };
  check(kPatterns, 276);
  check(kLong, 277);
}

// pcs_then_function is find_pattern("^{P} {F}") / ("^{P} {P} {F}") without the pattern's
// interpretation: the same answer and capture on frame and crash-site lines generated from
// their pieces (program counters of every form, cut or changed, spaces, names, suffixes).
BOOST_AUTO_TEST_CASE(pcs_then_function_finds_what_the_frame_patterns_find) {
  const std::string pieces[] = {"[<ffffffff81234567>]",
                                "[<0xc0de>]",
                                "[ffff1234]",
                                "[<>]",
                                "[<ab",
                                "[0x]",
                                "[c000]",
                                " ",
                                "  ",
                                "foo+0x1/0x2",
                                "__x64_sys_read.cold+0x2/0x3",
                                "a.",
                                "(bar)",
                                "?",
                                "+",
                                "",
                                "[",
                                "]",
                                "<",
                                ">",
                                "x",
                                "0x1f"};
  std::mt19937 rng(4242);
  int matched = 0;
  for (int n = 0; n < 200000; ++n) {
    std::string line;
    if (rng() % 2) {  // a frame line's shape: program counters and spaces, then a name
      for (std::size_t k = 1 + rng() % 2; k > 0; --k) line += pieces[rng() % 3] + std::string(1 + rng() % 2, ' ');
      line += pieces[9 + rng() % 3];
    }
    for (std::size_t k = rng() % 4; k > 0; --k) line += pieces[rng() % std::size(pieces)];
    if (!line.empty() && rng() % 3 == 0) line[rng() % line.size()] = "[]<>x0 +."[rng() % 9];
    for (const int pcs : {1, 2}) {
      std::vector<std::string_view> got{"kept"};
      std::vector<std::string_view> want{"kept"};
      const bool found = pcs_then_function(line, pcs, &got);
      const bool wanted = find_pattern(pcs == 1 ? "^{P} {F}" : "^{P} {P} {F}", line, &want);
      matched += found ? 1 : 0;
      BOOST_TEST_CONTEXT(pcs << " on \"" << line << "\"") {
        BOOST_TEST_REQUIRE(found == wanted);
        BOOST_TEST_REQUIRE(got == want, boost::test_tools::per_element());
        BOOST_TEST_REQUIRE(pcs_then_function(line, pcs, nullptr) == wanted);
      }
    }
  }
  BOOST_TEST(matched > 10000);
}

// find_text is std::string_view::find: words of every length (empty, one byte, words whose
// first bytes recur in the text), at every start, in texts generated from their pieces.
BOOST_AUTO_TEST_CASE(find_text_is_string_view_find) {
  const std::string words[] = {"", "I", "IP", "pc ", "Call ", " backtrace", "BUG:", "aab", "aaa", "interrupt:", "ab"};
  const std::string pieces[] = {"a",     "b",         " ",          "IP",  "I",    "p", "pc",        "pc ", "Call",
                                "Call ", " backtrac", " backtrace", "BUG", "BUG:", ":", "interrupt", "x"};
  std::mt19937 rng(1717);
  int found = 0;
  for (int n = 0; n < 100000; ++n) {
    std::string text;
    for (std::size_t k = rng() % 8; k > 0; --k) text += pieces[rng() % std::size(pieces)];
    const std::string& w = words[rng() % std::size(words)];
    for (std::size_t from = 0; from <= text.size() + 2; ++from) {
      const std::size_t want = std::string_view(text).find(w, from);
      found += want != std::string_view::npos ? 1 : 0;
      BOOST_TEST_REQUIRE(find_text(text, w, from) == want, "\"" << w << "\" in \"" << text << "\" from " << from);
    }
    BOOST_TEST_REQUIRE(holds_text(text, w) == (text.find(w) != std::string::npos));
  }
  BOOST_TEST(found > 10000);
}

// may_hold_pair is a pre-test: when it says no, no two adjacent bytes are one of the pairs
// (and with SSE2 it says yes exactly when some are). Generated: lines of every length around
// the 16- and 17-byte windows and the 32- and 33-byte ones of AVX2, from bytes of the pairs and
// others, NUL and 0xff included.
BOOST_AUTO_TEST_CASE(may_hold_pair_sees_every_adjacent_pair) {
  static constexpr std::array<std::array<char, 2>, 3> kPairs = {{{'I', 'P'}, {'p', 'c'}, {'P', 'C'}}};
  static const std::string kBytes = std::string("IPpcCx :") + '\0' + '\xff';
  std::mt19937 rng(1600);
  int held = 0;
  for (int n = 0; n < 200000; ++n) {
    std::string line(rng() % 140, ' ');
    for (char& c : line) c = kBytes[rng() % kBytes.size()];
    bool want = false;
    for (std::size_t i = 0; i + 1 < line.size(); ++i)
      for (const auto& p : kPairs) want = want || (line[i] == p[0] && line[i + 1] == p[1]);
    held += want ? 1 : 0;
    const bool got = may_hold_pair(line, kPairs);
    BOOST_TEST_CONTEXT(line.size() << " bytes") {
      if (!got) BOOST_TEST_REQUIRE(!want);
#if defined(__SSE2__)
      BOOST_TEST_REQUIRE(got == want);
#endif
    }
  }
  BOOST_TEST(held > 10000);
  // One pair planted at every place of lines of every length (the only one: the other bytes
  // start none), and none at all: each block and each overlap of the last one is seen.
  for (std::size_t n = 0; n < 140; ++n) {
    for (std::size_t at = 0; at <= n; ++at) {
      std::string line(n, 'P');
      for (std::size_t i = 0; i < n; i += 2) line[i] = 'x';
      if (at + 1 < n) {
        line[at] = 'p';
        line[at + 1] = 'c';
      }
      const bool want = at + 1 < n;
      BOOST_TEST_CONTEXT(n << " bytes, pair at " << at) {
        if (!may_hold_pair(line, kPairs)) BOOST_TEST_REQUIRE(!want);
#if defined(__SSE2__)
        BOOST_TEST_REQUIRE(may_hold_pair(line, kPairs) == want);
#endif
      }
    }
  }
}

// PairSet is a pre-test for holding a word: a line that holds a word never has a key of it
// missing. Generated: lines and words from shared pieces (so that many words are held), of
// every length, NUL and 0xff bytes included; words of fewer than two bytes always pass.
BOOST_AUTO_TEST_CASE(a_pair_set_never_rules_out_a_word_the_line_holds) {
  const std::string pieces[] = {"a",
                                "b",
                                " ",
                                "IP",
                                "BUG:",
                                "WARNING:",
                                "at",
                                "lib/",
                                ".c",
                                ":",
                                "CPU#",
                                "x",
                                std::string(1, '\0'),
                                "\xff",
                                "still has locks held!",
                                "kobject_"};
  std::mt19937 rng(1455);
  int held = 0;
  int ruled_out = 0;
  for (int n = 0; n < 100000; ++n) {
    std::string line;
    for (std::size_t k = rng() % 30; k > 0; --k) line += pieces[rng() % std::size(pieces)];
    std::string word;
    for (std::size_t k = rng() % 4; k > 0; --k) word += pieces[rng() % std::size(pieces)];
    if (word.size() > 1 && rng() % 2 == 0) word = word.substr(rng() % word.size());  // a piece's tail
    PairSet set;
    set.assign(line);
    const bool may = set.may_hold(PairSet::word_keys(word));
    const bool holds = line.find(word) != std::string::npos;
    held += holds ? 1 : 0;
    ruled_out += may ? 0 : 1;
    if (holds || word.size() < 2) BOOST_TEST_REQUIRE(may, "\"" << word << "\" in \"" << line << "\"");
  }
  BOOST_TEST(held > 10000);
  BOOST_TEST(ruled_out > 10000);  // the pre-test is worth asking
}

// Backtracking patterns ("a*a*a*b" on a run of 'a's costs a number of steps of the line's length
// to the fourth) on lines of every length across the one where the budget runs out: the
// answers and the budget left are those of the step-by-step budget. Generated: patterns of literals, spaces and
// stars; lines of their bytes, the leading literal placed once or more, the last byte often absent.
BOOST_AUTO_TEST_CASE(star_searches_spend_the_budget_as_step_by_step_matching_did) {
  std::mt19937 rng(1430);
  const std::string_view patterns[] = {"a*a*a*b",   "a*a*a*a*b", "ab*a *a*b", "a* *a* b", "x*a*a*a*y",
                                       "aa*a*aa*b", "a*b*a*b*c", "a *a *b",   "ba*a*a*a"};
  int exhausted = 0;
  int found = 0;
  for (const std::string_view p : patterns) {
    for (std::size_t len = 1; len < 260; len += 1 + rng() % 4) {
      std::string line;
      const std::string bytes = rng() % 2 == 0 ? "aaaa a" : "aaaaab ax";
      while (line.size() < len) line += bytes[rng() % bytes.size()];
      if (rng() % 3 == 0) line.insert(rng() % (line.size() + 1), std::string(1, p.back()));
      StepByStep ref{p, line};
      const bool want = ref.find();
      exhausted += ref.budget < 0 ? 1 : 0;
      found += want ? 1 : 0;
      const auto [got, left] = line_pattern_detail::find_pattern_spending(p, line);
      BOOST_TEST_CONTEXT("\"" << p << "\" on \"" << line << "\"") {
        BOOST_TEST_REQUIRE(got == want);
        // The same units spent; once below zero the search stops at once where it used to fail step by step.
        if (ref.budget >= 0)
          BOOST_TEST_REQUIRE(left == ref.budget);
        else
          BOOST_TEST_REQUIRE(left < 0);
      }
    }
  }
  BOOST_TEST(exhausted > 20);  // the budget's edge was crossed
  BOOST_TEST(found > 20);
}

// A pattern read once (LinePattern, as the title rules hold their table's patterns) and tried
// on line after line finds, captures and spends what find_pattern does on each: nothing of one
// line's search is left for the next. Generated: every pattern of the title rule table and the
// token-led ones, each object reused across the variants of several instances.
BOOST_AUTO_TEST_CASE(a_pattern_read_once_finds_on_every_line_what_find_pattern_finds) {
  std::mt19937 rng(1431);
  std::vector<std::string_view> patterns = rule_patterns();
  patterns.insert(patterns.end(), std::begin(kLeadingTokens), std::end(kLeadingTokens));
  int found = 0;
  for (const std::string_view p : patterns) {
    const LinePattern read(p);
    for (int n = 0; n < 4; ++n) {
      for (const std::string& line : variants(instantiate(p, rng), rng)) {
        std::vector<std::string_view> want_caps;
        std::vector<std::string_view> got_caps = {"kept"};  // captures are appended
        const bool want = find_pattern(p, line, &want_caps);
        int left = 0;
        const bool got = read.find_spending(line, &got_caps, left);
        BOOST_TEST_CONTEXT("pattern \"" << p << "\" on \"" << line << "\"") {
          BOOST_TEST_REQUIRE(got == want);
          BOOST_TEST_REQUIRE(left == line_pattern_detail::find_pattern_spending(p, line).second);
          want_caps.insert(want_caps.begin(), "kept");
          BOOST_TEST_REQUIRE(got_caps == want_caps, boost::test_tools::per_element());
        }
        found += got ? 1 : 0;
      }
    }
  }
  BOOST_TEST(found > 500);
}

BOOST_AUTO_TEST_SUITE_END()
