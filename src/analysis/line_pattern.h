// A small pattern language for matching one console line, enough to state
// syzkaller's report conventions as data without std::regex (which is slow
// and can blow the stack on hostile input). Tokens:
//   text       literal; a space matches one or more spaces
//   *          any run of characters, shortest first
//   {F} {f}    function name followed by '.' or '+' (capturing / not)
//   {P} {p}    "[<hex>]" program counter / an optional one followed by spaces
//   {S}        capture a source location "path/file.c:123"
//   {W} {w}    [a-z-]+ (capturing / not)     {I} capture [A-Za-z0-9_]+
//   {L}        capture [a-z_]+               {Q} capture [^']+
//   {D} {H}    decimal / hex digits          {T} [^ ]* (a token)
//   {R}        capture the rest of the line  {Z} capture, shortest first
//   {E}        optional spaces, then the end of the line
//   {A:x|y}    one of the literals (non-capturing); {C:x|y} capturing. '?' in them is any character.
// A leading '^' anchors the pattern at the start of the line.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace btaudit {

namespace line_pattern_detail {
// The bytes a match of a pattern's first token can start with, for patterns that start
// with a token that cannot match empty ({A:..}, {F}, {P}, {D}, ...) or with a space. Every
// other start position fails at the matcher's first step, spending one unit of budget:
// find_pattern skips such positions in a byte loop and charges that unit for each, so the
// result is the one trying them all would give, budget included. May hold more bytes
// than can start a match (a superset only costs attempts), never fewer.
class FirstBytes {
 public:
  // False when the first token is none of those (a literal, '*', {p}, {T}, {R}, {Z}, {E}).
  bool compute(std::string_view pat);
  bool has(char c) const;
  // The first position at or after `from` whose byte is in the set, or s.size().
  std::size_t next(std::string_view s, std::size_t from) const;

 private:
  void add(char c);
  void add(std::string_view cs);
  void add_range(char lo, char hi);
  std::array<std::uint64_t, 4> bits_{};
  std::array<char, 2> few_{};  // the set's bytes while it has at most two
  std::size_t count_ = 0;      // how many bytes the set has
};
}  // namespace line_pattern_detail

// A pattern read once and matched against many lines: what find_pattern works out from the
// pattern on every call (its anchor, leading literal and first bytes), for the title rules,
// which try one pattern on line after line. The pattern's text must outlive it.
class LinePattern {
 public:
  explicit LinePattern(std::string_view pattern);
  // find_pattern(pattern, line, caps).
  bool find(std::string_view line, std::vector<std::string_view>* caps) const {
    int budget_left = 0;
    return find_spending(line, caps, budget_left);
  }
  // The same, `budget_left` told the step budget the search left (below zero: it ran out).
  bool find_spending(std::string_view line, std::vector<std::string_view>* caps, int& budget_left) const;

 private:
  std::string_view pattern_;  // without its anchor
  std::string_view literal_;  // pattern_literal
  bool anchored_ = false;
  bool filtered_ = false;  // first_ tells the starts worth trying
  line_pattern_detail::FirstBytes first_;
};

// Searches `line` for the first (leftmost) match of `pattern`. On success the
// captures are appended to `caps` (when not null) and true is returned.
bool find_pattern(std::string_view pattern, std::string_view line, std::vector<std::string_view>* caps);

namespace line_pattern_detail {
// find_pattern's answer and the step budget it left, below zero when the search ran out of it
// (for the tests of how the search charges the steps it skips).
std::pair<bool, int> find_pattern_spending(std::string_view pattern, std::string_view line);
}  // namespace line_pattern_detail

// The length of the function name {F} matches at the start of `s` (an identifier run
// followed by '.' or '+'), or 0: find_pattern("^{F}", s, ...) without the pattern's
// interpretation, for callers that try it on every frame line.
std::size_t function_name_length(std::string_view s);

// find_pattern("^{P} {F}", s, caps) when `pcs` is 1, find_pattern("^{P} {P} {F}", s, caps) when
// it is 2: program counters, each followed by spaces, then a function name. A direct scan, for
// the frame and crash-site lines that try them on every line a stack rule reads.
bool pcs_then_function(std::string_view s, int pcs, std::vector<std::string_view>* caps);

// The literal text every match of `pattern` contains verbatim (its leading literal,
// up to the first space or token; "" when it starts with one). A line without it
// cannot match, which lets a caller trying many patterns skip them cheaply.
std::string_view pattern_literal(std::string_view pattern);

}  // namespace btaudit
