#include "analysis/line_pattern.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include "analysis/text_find.h"

namespace btaudit {

namespace {

// One load per byte rather than four range tests: function names are scanned on every
// frame line a title rule reads.
constexpr std::array<bool, 256> kIdent = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[static_cast<std::size_t>(c)] =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  return t;
}();
bool is_ident(char c) { return kIdent[static_cast<unsigned char>(c)]; }
bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }
bool is_path(char c) { return is_ident(c) || c == '-' || c == '/' || c == '.'; }

// Length of a "[<hex>]" program counter at s[i], or 0 ('<', "0x" and '>' optional).
std::size_t pc_length(std::string_view s, std::size_t i) {
  std::size_t j = i;
  if (j >= s.size() || s[j] != '[') return 0;
  ++j;
  if (j < s.size() && s[j] == '<') ++j;
  if (j + 1 < s.size() && s[j] == '0' && s[j + 1] == 'x') j += 2;
  const std::size_t digits = j;
  while (j < s.size() && is_hex(s[j])) ++j;
  if (j == digits) return 0;
  if (j < s.size() && s[j] == '>') ++j;
  if (j >= s.size() || s[j] != ']') return 0;
  return j + 1 - i;
}

// The captures of one attempt, kept in place: patterns capture a few fields, and a
// vector would allocate on every line that matches (frame lines all do). Captures
// past kInline spill into a vector. The slots are plain pointer/length pairs left
// uninitialized until written: zeroing sixteen string_views on every find_pattern
// call cost more than the matching.
class CapStack {
 public:
  // User-provided, so that value-initialization does not zero the slots (= default would).
  CapStack() {}  // NOLINT(modernize-use-equals-default)
  void push_back(std::string_view c) {
    if (n_ < kInline)
      inline_[n_] = Slot{c.data(), c.size()};
    else
      spill_.push_back(c);
    ++n_;
  }
  std::size_t size() const { return n_; }
  void resize(std::size_t n) {  // n <= size()
    n_ = n;
    spill_.resize(n > kInline ? n - kInline : 0);
  }
  void clear() { resize(0); }
  void append_to(std::vector<std::string_view>& out) const {
    for (std::size_t i = 0; i < n_ && i < kInline; ++i) out.emplace_back(inline_[i].data, inline_[i].size);
    out.insert(out.end(), spill_.begin(), spill_.end());
  }

 private:
  static constexpr std::size_t kInline = 16;
  struct Slot {
    const char* data;
    std::size_t size;
  };
  std::array<Slot, kInline> inline_;
  std::vector<std::string_view> spill_;
  std::size_t n_ = 0;
};

// Matcher state for one attempt. Recursion depth is bounded by the pattern
// length (a few dozen tokens), never by the line.
struct Matcher {
  // A constructor, not aggregate initialization, which GCC implements by zeroing the
  // whole object first (the capture slots included) on every call.
  Matcher(std::string_view pattern, std::string_view line) : pat(pattern), s(line) {}

  std::string_view pat;
  std::string_view s;
  CapStack caps;
  int budget = 200000;  // steps per line: keeps '*' backtracking linear-ish on hostile lines

  // Length of a "[<hex>]" program counter at i, or 0.
  std::size_t pc_at(std::size_t i) const { return pc_length(s, i); }

  // Function name at i followed by '.' or '+': its length, or 0.
  std::size_t func_at(std::size_t i) const { return function_name_length(s.substr(i)); }

  std::size_t src_at(std::size_t i) const {
    std::size_t j = i;
    while (j < s.size() && is_path(s[j])) ++j;
    if (j == i || j >= s.size() || s[j] != ':') return 0;
    // The run must end in ".ext" with a lower-case extension.
    std::size_t k = j;
    while (k > i && s[k - 1] >= 'a' && s[k - 1] <= 'z') --k;
    if (k == j || k <= i + 1 || s[k - 1] != '.') return 0;
    std::size_t d = j + 1;
    while (d < s.size() && s[d] >= '0' && s[d] <= '9') ++d;
    if (d == j + 1) return 0;
    return d - i;
  }

  // Matches the literal alternative `alt` at i ('?' is any character).
  static bool alt_at(std::string_view s, std::size_t i, std::string_view alt) {
    if (s.size() - i < alt.size()) return false;
    for (std::size_t k = 0; k < alt.size(); ++k)
      if (alt[k] != '?' && alt[k] != s[i + k]) return false;
    return true;
  }

  // The '*' at pi followed by the literal byte `next` (or a space): only the positions holding
  // it can continue, found by memchr. Every other position from si to the end of the line
  // (the end itself included) would fail at its first step and spend one unit of budget: the
  // units of a run of them are charged at once. The budget only falls, and once below zero
  // every step fails, so a charge that takes it there ends the search.
  bool run_star_to(std::size_t pi, std::size_t si, char next) {
    if (si > s.size()) return false;  // no position to try, none to charge
    for (std::size_t k = si;;) {
      const void* hit = k < s.size() ? std::memchr(s.data() + k, next, s.size() - k) : nullptr;
      const std::size_t at =
          hit != nullptr ? static_cast<std::size_t>(static_cast<const char*>(hit) - s.data()) : s.size() + 1;
      budget -= static_cast<int>(std::min<std::size_t>(at - k, 1U << 30));
      if (hit == nullptr || budget < 0) return false;
      if (run(pi + 1, at)) return true;
      k = at + 1;
    }
  }

  bool run(std::size_t pi, std::size_t si) {
    // Literal characters and spaces continue the match in a loop rather than a call per
    // character; each step still spends one unit of the budget, as a call did.
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
      if (c == '*' || c == '{') break;
      if (si >= s.size() || s[si] != c) return false;
      ++pi;
      ++si;
    }
    if (pat[pi] == '*') {
      // A literal or space after the '*' rules out every k whose byte differs: the attempt
      // there would fail at its first step, spending one unit of budget, which is charged
      // here without the call.
      const bool literal_next = pi + 1 < pat.size() && pat[pi + 1] != '*' && pat[pi + 1] != '{';
      if (literal_next) return run_star_to(pi, si, pat[pi + 1]);
      for (std::size_t k = si; k <= s.size(); ++k)
        if (run(pi + 1, k)) return true;
      return false;
    }
    const std::size_t close = pat.find('}', pi);
    const std::string_view tok = pat.substr(pi + 1, close - pi - 1);
    const std::size_t next = close + 1;
    const std::size_t mark = caps.size();
    auto capture_then = [&](std::size_t len, bool capture) {
      if (capture) caps.push_back(s.substr(si, len));
      if (run(next, si + len)) return true;
      caps.resize(mark);
      return false;
    };
    auto class_run = [&](auto pred) {
      std::size_t j = si;
      while (j < s.size() && pred(s[j])) ++j;
      return j - si;
    };
    if (tok.size() > 2 && tok[1] == ':') {  // {A:..} / {C:..}
      const bool capture = tok[0] == 'C';
      std::string_view alts = tok.substr(2);
      for (int guard = 0; guard < 64; ++guard) {
        const std::size_t bar = alts.find('|');
        const std::string_view alt = alts.substr(0, bar);
        if (alt_at(s, si, alt) && capture_then(alt.size(), capture)) return true;
        if (bar == std::string_view::npos) break;
        alts.remove_prefix(bar + 1);
      }
      return false;
    }
    switch (tok.empty() ? '\0' : tok[0]) {
      case 'F':
      case 'f': {
        const std::size_t n = func_at(si);
        return n && capture_then(n, tok[0] == 'F');
      }
      case 'P': {
        const std::size_t n = pc_at(si);
        return n && capture_then(n, false);
      }
      case 'p': {
        if (const std::size_t n = pc_at(si)) {
          std::size_t j = si + n;
          if (j < s.size() && s[j] == ' ') {
            while (j < s.size() && s[j] == ' ') ++j;
            if (capture_then(j - si, false)) return true;
          }
        }
        return run(next, si);
      }
      case 'S': {
        const std::size_t n = src_at(si);
        return n && capture_then(n, true);
      }
      case 'W':
      case 'w': {
        const std::size_t n = class_run([](char ch) { return (ch >= 'a' && ch <= 'z') || ch == '-'; });
        return n && capture_then(n, tok[0] == 'W');
      }
      case 'I': {
        const std::size_t n = class_run(is_ident);
        return n && capture_then(n, true);
      }
      case 'L': {
        const std::size_t n = class_run([](char ch) { return (ch >= 'a' && ch <= 'z') || ch == '_'; });
        return n && capture_then(n, true);
      }
      case 'Q': {
        const std::size_t n = class_run([](char ch) { return ch != '\''; });
        return n && capture_then(n, true);
      }
      case 'D': {
        const std::size_t n = class_run([](char ch) { return ch >= '0' && ch <= '9'; });
        return n && capture_then(n, false);
      }
      case 'H': {
        const std::size_t n = class_run(is_hex);
        return n && capture_then(n, false);
      }
      case 'T': return capture_then(class_run([](char ch) { return ch != ' '; }), false);
      case 'R': return capture_then(s.size() - si, true);
      case 'Z':
        for (std::size_t len = 0; si + len <= s.size(); ++len)
          if (capture_then(len, true)) return true;
        return false;
      case 'E': {
        const std::size_t n = class_run([](char ch) { return ch == ' ' || ch == '\t' || ch == '\r'; });
        return si + n == s.size() && run(next, s.size());
      }
      default: return false;
    }
  }
};

// The literal text a pattern starts with (used to jump between candidate starts).
std::string_view literal_prefix(std::string_view pat) {
  std::size_t n = 0;
  while (n < pat.size() && pat[n] != '*' && pat[n] != '{' && pat[n] != ' ') ++n;
  return pat.substr(0, n);
}

}  // namespace

std::size_t function_name_length(std::string_view s) {
  std::size_t j = 0;
  while (j < s.size() && is_ident(s[j])) ++j;
  if (j == 0 || j >= s.size() || (s[j] != '.' && s[j] != '+')) return 0;
  return j;
}

bool pcs_then_function(std::string_view s, int pcs, std::vector<std::string_view>* caps) {
  std::size_t at = 0;
  for (int k = 0; k < pcs; ++k) {
    // "{P} ": the matcher's space takes one space or more, all of them.
    const std::size_t n = pc_length(s, at);
    if (n == 0) return false;
    at += n;
    if (at >= s.size() || s[at] != ' ') return false;
    while (at < s.size() && s[at] == ' ') ++at;
  }
  const std::size_t f = function_name_length(s.substr(at));
  if (f == 0) return false;
  if (caps) caps->push_back(s.substr(at, f));
  return true;
}

std::string_view pattern_literal(std::string_view pattern) {
  if (!pattern.empty() && pattern[0] == '^') pattern.remove_prefix(1);
  return literal_prefix(pattern);
}

bool line_pattern_detail::FirstBytes::compute(std::string_view pat) {
  if (pat.empty()) return false;
  if (pat[0] == ' ') {
    add(" ");
    return true;
  }
  if (pat[0] != '{') return false;
  const std::size_t close = pat.find('}');
  if (close == std::string_view::npos || close < 2) return false;
  const std::string_view tok = pat.substr(1, close - 1);
  if (tok.size() > 2 && tok[1] == ':') {
    std::string_view alts = tok.substr(2);
    for (;;) {  // an empty alternative or one starting with '?' matches at any byte
      const std::size_t bar = alts.find('|');
      const std::string_view alt = alts.substr(0, bar);
      if (alt.empty() || alt[0] == '?') return false;
      add(alt[0]);
      if (bar == std::string_view::npos) return true;
      alts.remove_prefix(bar + 1);
    }
  }
  if (tok.size() != 1) return false;
  switch (tok[0]) {  // the classes of Matcher::run, as byte ranges
    case 'S': add("-/."); [[fallthrough]];
    case 'F':
    case 'f':
    case 'I':
      add_range('a', 'z');
      add_range('A', 'Z');
      add_range('0', '9');
      add("_");
      return true;
    case 'P': add("["); return true;
    case 'W':
    case 'w':
      add_range('a', 'z');
      add("-");
      return true;
    case 'L':
      add_range('a', 'z');
      add("_");
      return true;
    case 'Q':
      bits_.fill(~std::uint64_t{0});
      bits_[0] &= ~(std::uint64_t{1} << '\'');
      count_ = 255;
      return true;
    case 'D': add_range('0', '9'); return true;
    case 'H':
      add_range('0', '9');
      add_range('a', 'f');
      return true;
    default: return false;
  }
}
bool line_pattern_detail::FirstBytes::has(char c) const {
  const auto u = static_cast<unsigned char>(c);
  return (bits_[u >> 6] >> (u & 63)) & 1;
}
// One or two bytes ({A:Local variable |Uninit ...}, {C:Read|Write}) are found by memchr.
std::size_t line_pattern_detail::FirstBytes::next(std::string_view s, std::size_t from) const {
  if (count_ <= 2) {
    std::size_t at = s.size();
    for (std::size_t k = 0; k < count_; ++k) {
      const void* hit = std::memchr(s.data() + from, few_[k], at - from);
      if (hit != nullptr) at = static_cast<std::size_t>(static_cast<const char*>(hit) - s.data());
    }
    return at;
  }
  std::size_t at = from;
  while (at < s.size() && !has(s[at])) ++at;
  return at;
}

void line_pattern_detail::FirstBytes::add(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (has(c)) return;
  bits_[u >> 6] |= std::uint64_t{1} << (u & 63);
  if (count_ < 2) few_[count_] = c;
  ++count_;
}
void line_pattern_detail::FirstBytes::add(std::string_view cs) {
  for (char c : cs) add(c);
}
void line_pattern_detail::FirstBytes::add_range(char lo, char hi) {
  for (char c = lo; c <= hi; ++c) add(c);
}

LinePattern::LinePattern(std::string_view pattern) {
  anchored_ = !pattern.empty() && pattern[0] == '^';
  if (anchored_) pattern.remove_prefix(1);
  pattern_ = pattern;
  literal_ = literal_prefix(pattern);
  filtered_ = literal_.empty() && !anchored_ && first_.compute(pattern);
}

bool LinePattern::find_spending(std::string_view line, std::vector<std::string_view>* caps, int& budget_left) const {
  Matcher m(pattern_, line);
  const bool found = [&] {
    std::size_t start = 0;
    for (;;) {
      if (!literal_.empty()) {
        start = find_text(line, literal_, start);
        if (start == std::string_view::npos) return false;
      } else if (filtered_) {
        // Each position skipped is one the matcher would have failed at its first step.
        const std::size_t at = first_.next(line, start);
        m.budget -= static_cast<int>(std::min<std::size_t>(at - start, 1u << 30));
        if (m.budget < 0 || at == line.size()) return false;  // the end itself fails too
        start = at;
      }
      if (anchored_ && start != 0) return false;
      m.caps.clear();
      // The leading literal was found at `start` (find_text): the matcher would step over its
      // bytes one unit of budget each, which is charged here instead. It holds no space, '*'
      // or token, so those steps are plain byte comparisons that succeed.
      m.budget -= static_cast<int>(literal_.size());
      if (m.budget >= 0 && m.run(literal_.size(), start + literal_.size())) {
        if (caps) m.caps.append_to(*caps);
        return true;
      }
      if (anchored_ || m.budget < 0 || start >= line.size()) return false;
      ++start;
    }
  }();
  budget_left = m.budget;
  return found;
}

bool find_pattern(std::string_view pattern, std::string_view line, std::vector<std::string_view>* caps) {
  return LinePattern(pattern).find(line, caps);
}

std::pair<bool, int> line_pattern_detail::find_pattern_spending(std::string_view pattern, std::string_view line) {
  int budget_left = 0;
  const bool found = LinePattern(pattern).find_spending(line, nullptr, budget_left);
  return {found, budget_left};
}

}  // namespace btaudit
