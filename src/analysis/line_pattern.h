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
#include <string_view>
#include <vector>

namespace btaudit {

// Searches `line` for the first (leftmost) match of `pattern`. On success the
// captures are appended to `caps` (when not null) and true is returned.
bool find_pattern(std::string_view pattern, std::string_view line, std::vector<std::string_view>* caps);

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
