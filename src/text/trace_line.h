// Recognises one line of a printed backtrace: stack markers (<IRQ>, </IRQ>,
// <EOI>, <NMI>, <#DF>, <TASK>, ...) and frames in every era's format:
//   2.6-4.9   " [<ffffffff8134d2f3>] ? foo+0x63/0x90 [mod]"
//   4.10+     " ? foo+0x63/0x90 [mod]"      5.14+ " foo+0x63/0x90 [mod <build id>]"
//   arm64     " foo+0x63/0x90 (P)"           arm   "[<c0013cb8>] (foo+0x0/0x10c) from [<c0013dcc>] (bar+0x18/0x1c)"
//   arm 5.x+  " foo from bar+0x18/0x1c"      (the frame is the first name in both arm forms)
//   raw       " ? 0xffffffffc00b7000"        (no symbol: function stays empty, the address is kept)
//   powerpc   "[c0000000fe3f7b30] [c000000000123456] foo+0x12/0x34 (unreliable)"  (ELFv1 ".foo" -> "foo")
//   s390      " ([<0000000000112233>] foo+0x12/0x34)"
//   symbolized (syzkaller) " foo+0x12/0x34 net/core/dev.c:123"  " bar include/x.h:12 [inline]"
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/frame.h"

namespace btaudit {

struct StackMarker {
  bool open = true;  // "<IRQ>" opens, "</IRQ>"/"<EOI>"/"<EOE>" close
  StackKind stack = StackKind::Unknown;
  std::optional<std::string> exception;  // "#DF", "NMI", ...
};

struct TraceLine {
  std::vector<StackMarker> markers;  // in order of appearance, before the frame
  std::optional<Frame> frame;
};

// Returns nullopt when the line is neither a marker nor a frame.
std::optional<TraceLine> parse_trace_line(std::string_view text);

// A frame's fields as the line prints them, views of the line ("" when not printed).
// A Frame is large (its debuginfo slots included) and costly to construct and move;
// the report builder makes each one once, in place, from this.
struct FrameText {
  std::string_view function;
  std::optional<std::uint64_t> offset;
  std::optional<std::uint64_t> size;
  std::string_view module;
  std::string_view build_id;
  std::optional<std::uint64_t> address;
  std::string_view source;
  bool inlined = false;
  bool printed_unreliable = false;

  // Sets the fields of `f`, a frame as constructed, that a trace line gives (the others are left
  // alone). The optionals and flags a fresh frame holds empty are copied as they are, set or not.
  void fill(Frame& f) const;
  void reset();  // back to nothing printed
};

// Inline: the report builder calls it per frame, and the call cost more than its tests. On a
// fresh frame a copy of an empty optional or a false flag changes nothing, and costs less than
// the test that skipped it.
inline void FrameText::fill(Frame& f) const {
  if (!function.empty()) f.function.emplace(function);
  f.offset = offset;
  f.size = size;
  if (!module.empty()) f.module.emplace(module);
  if (!build_id.empty()) f.build_id.emplace(build_id);
  f.address = address;
  if (!source.empty()) f.source.emplace(source);
  f.inlined = inlined;
  f.printed_unreliable = printed_unreliable;
}

struct TraceText {
  std::vector<StackMarker> markers;
  FrameText frame;  // when has_frame
  bool has_frame = false;
};

namespace trace_line_detail {
// The first bytes (after blanks) that parse_trace_text_general reads as a marker or a frame
// with: '<' (a marker, "<ffff...>{sym+1}"), '(' (s390 and arm), '[' (an address, a symbolic
// group), '?', ':' (":mod:sym"), '0' ("0x..." raw address) and the first bytes of a symbol
// name (letters, '_', '.', '$'). A line that starts with any other byte is neither.
inline constexpr std::array<bool, 256> kStartsTraceText = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[static_cast<std::size_t>(c)] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' ||
                                     c == '$' || c == '<' || c == '(' || c == '[' || c == '?' || c == ':' || c == '0';
  return t;
}();
}  // namespace trace_line_detail

// False when a line whose first byte after blanks is `c` is neither a marker nor a frame:
// parse_trace_text answers such a line at once.
constexpr bool may_start_trace_text(char c) {
  return trace_line_detail::kStartsTraceText[static_cast<unsigned char>(c)];
}

// parse_trace_line into `out` (whatever it held is replaced), the frame's text still in
// `text`; false when the line is neither a marker nor a frame. A caller reading many
// lines keeps one TraceText: a fresh one per line costs a zeroing of its whole size.
bool parse_trace_text(std::string_view text, TraceText& out);
// parse_trace_text without its fast path for symbolized frames: what that path must agree with.
bool parse_trace_text_general(std::string_view text, TraceText& out);

// Parses "func+0xoff/0xsize" (with optional " [mod]") used by RIP:/pc:/WARNING lines.
// Leaves `s` after what was consumed.
struct SymbolRef {
  std::string_view function;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::string_view module;
  std::string_view build_id;
};
std::optional<SymbolRef> parse_symbol_ref(std::string_view& s);

}  // namespace btaudit
