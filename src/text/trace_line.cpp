#include "text/trace_line.h"

#include <utility>

#include "text/byte_masks.h"
#include "text/scan.h"

namespace btaudit {

namespace {

using namespace scan;

// "<IRQ>", "</IRQ>", "<EOI>", "<NMI>", "<<EOE>>", "<#DF>", "<TASK>", ...
std::optional<StackMarker> parse_marker(std::string_view& s) {
  if (s.size() < 4 || s[0] != '<') return std::nullopt;
  std::string_view t = s.substr(1);
  bool close = consume(t, "/");
  const bool doubled = consume(t, "<");  // 2.6's "<<EOE>>"
  const std::size_t end = t.find('>');
  if (end == std::string_view::npos || end == 0 || end > 20) return std::nullopt;
  const std::string_view name = t.substr(0, end);
  t.remove_prefix(end + 1);
  if (doubled && !consume(t, ">")) return std::nullopt;
  StackMarker m;
  if (name == "IRQ") {
    m.stack = StackKind::Irq;
  } else if (name == "EOI") {
    m.stack = StackKind::Irq;
    close = true;
  } else if (name == "EOE") {
    m.stack = StackKind::Exception;
    close = true;
  } else if (name == "NMI") {
    m.stack = StackKind::Nmi;
    m.exception = "NMI";
  } else if (name == "TASK") {
    m.stack = StackKind::Task;
  } else if (name == "SOFTIRQ") {
    m.stack = StackKind::Softirq;
  } else if (name == "ENTRY_TRAMPOLINE" || name == "SYSENTER") {
    m.stack = StackKind::Entry;
  } else if (name[0] == '#' && name.size() <= 6) {
    for (char c : name.substr(1))
      if (!((c >= 'A' && c <= 'Z') || is_digit(c))) return std::nullopt;
    m.stack = StackKind::Exception;
    m.exception = std::string(name);
  } else if (name == "DOUBLEFAULT" || name == "MCE" || name == "DEBUG" || name == "STACKFAULT") {
    m.stack = StackKind::Exception;
    m.exception = name == "DOUBLEFAULT" ? "#DF" : name == "MCE" ? "#MC" : name == "DEBUG" ? "#DB" : "#SS";
  } else {
    return std::nullopt;
  }
  m.open = !close;
  s = t;
  return m;
}

// "[<ffffffff81234567>]"
std::optional<std::uint64_t> parse_bracket_address(std::string_view& s) {
  std::string_view t = s;
  if (!consume(t, "[<")) return std::nullopt;
  auto v = hex(t);
  if (!v || !consume(t, ">]")) return std::nullopt;
  s = t;
  return v;
}

// powerpc "[c0000000fe3f7b30]" (no angle brackets)
std::optional<std::uint64_t> parse_plain_bracket_address(std::string_view& s) {
  std::string_view t = s;
  if (!consume(t, "[")) return std::nullopt;
  auto v = hex(t);
  if (!v || !consume(t, "]")) return std::nullopt;
  s = t;
  return v;
}

// A number printed in decimal ("+125", "/1234") or in hex ("+0x7d").
std::optional<std::uint64_t> dec_or_hex(std::string_view& s) {
  if (s.size() > 2 && s[0] == '0' && s[1] == 'x') return hex0x(s);
  std::string_view t = s;
  auto v = dec(t);
  if (!v || *v < 0) return std::nullopt;
  s = t;
  return static_cast<std::uint64_t>(*v);
}

// A symbol name: C identifiers with the compiler's suffixes (.cold, .isra.0, .constprop.1, .part.0).
// ppc64 ELFv1 prints the code entry of a function descriptor as ".name": the dot is not part of
// the C function, and keeping it would make the same function differ between ppc64 ABIs.
std::string_view symbol_name(std::string_view& s) {
  std::string_view name = ident(s);
  if (name.size() > 1 && name[0] == '.' && is_ident_start(name[1]) && name[1] != '.') name.remove_prefix(1);
  return name;
}

// A frame printed by symbol inside brackets or braces, the forms of kernels that printed
// "%s+%ld" with a decimal offset: "[foo+125/304]", "{foo+125}", "{:mod:foo+125}" (2.6.0-2.6.17
// x86_64 printk_address, module name between colons). `close` is ']' or '}'.
bool parse_symbolic_group(std::string_view& s, char close, FrameText& f) {
  std::string_view t = s.substr(1);
  if (close == '}' && consume(t, ":")) {
    const std::size_t colon = t.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon > 64) return false;
    f.module = t.substr(0, colon);
    t.remove_prefix(colon + 1);
  }
  const std::string_view name = symbol_name(t);
  if (name.empty() || !consume(t, "+")) return false;
  auto off = dec_or_hex(t);
  if (!off) return false;
  std::optional<std::uint64_t> size;
  if (consume(t, "/")) {
    size = dec_or_hex(t);
    if (!size) return false;
  }
  if (t.empty() || t[0] != close) return false;
  t.remove_prefix(1);
  f.function = name;
  f.offset = off;
  f.size = size;
  s = t;
  return true;
}

// "0x..." with at least one hex digit.
bool starts_with_hex_literal(std::string_view s) { return s.size() > 2 && s[0] == '0' && s[1] == 'x' && is_hex(s[2]); }

// "path/file.c:123" or "file.c:123:4" as appended by syzkaller's symbolizer.
bool looks_like_source(std::string_view w) {
  const std::size_t colon = w.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 >= w.size()) return false;
  std::string_view path = w.substr(0, colon);
  const std::size_t c2 = path.rfind(':');  // file:line:column
  if (c2 != std::string_view::npos) {
    bool all = true;
    for (char c : path.substr(c2 + 1)) all = all && is_digit(c);
    if (all) path = path.substr(0, c2);
  }
  for (char c : w.substr(colon + 1))
    if (!is_digit(c)) return false;
  return path.find('.') != std::string_view::npos || path.find('/') != std::string_view::npos;
}

// scripts/decode_stacktrace.sh puts addr2line's answer where the offset was:
// "func (path/file.c:12 path/inl.h:3 (discriminator 2)) [mod] (C)", the locations innermost
// first (an inline chain), "(??:?)" when it found none. Reads the parenthesised group at the
// start of `rest` into f.source (the last location: the one inside `func` itself) and leaves
// `rest` after it; false, `rest` untouched, when the group holds no such location.
bool parse_decoded_location(std::string_view& rest, FrameText& f) {
  if (rest.size() < 3 || rest[0] != '(') return false;
  int depth = 0;
  std::size_t end = 0;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '(') {
      if (++depth > 2) return false;  // a location nests one "(discriminator N)" at most
    } else if (rest[i] == ')' && --depth == 0) {
      end = i;
      break;
    }
  }
  if (end == 0) return false;
  const std::string_view inside = rest.substr(1, end - 1);
  if (inside == "??:?") {
    rest.remove_prefix(end + 1);
    return true;
  }
  std::string_view last;
  for (std::size_t at = 0; at < inside.size();) {
    std::size_t sp = inside.find(' ', at);
    if (sp == std::string_view::npos) sp = inside.size();
    const std::string_view word = inside.substr(at, sp - at);
    if (!word.empty() && word[0] == '(') {  // "(discriminator 13)" belongs to the location before it
      const std::size_t close = inside.find(')', at);
      at = close == std::string_view::npos ? inside.size() : close + 1;
      continue;
    }
    if (!word.empty()) {
      if (!looks_like_source(word)) return false;
      last = word;
    }
    at = sp + 1;
  }
  if (last.empty()) return false;
  f.source = last;
  rest.remove_prefix(end + 1);
  return true;
}

void parse_suffixes(std::string_view s, FrameText& f) {
  // The words after the symbol: "[mod]", "[mod buildid]", "file.c:12", "[inline]", "(C)", "(unreliable)".
  for (int guard = 0; guard < 8; ++guard) {
    s = trim_left(s);
    if (s.empty()) return;
    if (s[0] == '[') {
      const std::size_t end = s.find(']');
      if (end == std::string_view::npos) return;
      std::string_view inside = s.substr(1, end - 1);
      s.remove_prefix(end + 1);
      if (inside == "inline") {
        f.inlined = true;
        continue;
      }
      const std::size_t sp = inside.find(' ');
      std::string_view mod = inside.substr(0, sp);
      if (mod.empty()) continue;
      f.module = mod;
      if (sp != std::string_view::npos) {
        std::string_view id = trim(inside.substr(sp + 1));
        if (!id.empty()) f.build_id = id;
      }
      continue;
    }
    if (s[0] == '(') {
      const std::size_t end = s.find(')');
      if (end == std::string_view::npos) return;
      if (s.substr(1, end - 1) == "unreliable") f.printed_unreliable = true;
      s.remove_prefix(end + 1);
      continue;
    }
    const std::size_t sp = s.find(' ');
    std::string_view word = s.substr(0, sp);
    if (word == "from") return;  // arm: "... from [<caller>] (caller+0x1/0x2)": the caller is the next line's frame
    if (f.source.empty() && looks_like_source(word)) f.source = word;
    if (sp == std::string_view::npos) return;
    s.remove_prefix(sp);
  }
}

// "<ffffffff8010e4b5>{system_call+125}" (2.6.0-2.6.8 x86_64) and "[foo+125/304]" optionally
// followed by the same frame as %pS ("[foo+125/304] ? foo+0x7d/0x130"; the bracket names the
// frame, a symbol after it is read as usual and wins). False, `s` untouched, for anything else.
[[gnu::noinline]] bool parse_symbolic_frame(std::string_view& s, FrameText& f) {
  if (s[0] == '<') {
    std::string_view t = s.substr(1);
    auto addr = hex(t);
    if (!addr || !consume(t, ">") || t.empty() || t[0] != '{' || !parse_symbolic_group(t, '}', f)) return false;
    f.address = addr;
    parse_suffixes(t, f);
    s = t;
    return true;
  }
  std::string_view t = s;
  if (!parse_symbolic_group(t, ']', f)) return false;
  t = trim_left(t);
  const bool unreliable = consume(t, "? ");
  t = trim_left(t);
  const FrameText bracket = f;
  std::string_view probe = t;
  if (parse_symbol_ref(probe)) {
    f.reset();
    TraceText rest;
    if (parse_trace_text(t, rest) && rest.has_frame) f = rest.frame;
  }
  if (f.function.empty()) f = bracket;
  if (unreliable) f.printed_unreliable = true;
  s = t;
  return true;
}

// The first bytes (after blanks) that parse_trace_text_general reads as a marker or a frame
// with: '<' (a marker, "<ffff...>{sym+1}"), '(' (s390 and arm), '[' (an address, a symbolic
// group), '?', ':' (":mod:sym"), '0' ("0x..." raw address) and the first bytes of a symbol
// name (scan::is_ident_start). A line that starts with any other byte is neither.

// False when parse_trace_text_general reads no frame and no marker in `s`, a line that opens with
// '[': after a '[' that is followed by neither '<' nor a name's first byte it reads only powerpc's
// "[sp] [ip] symbol", two plain bracketed addresses; other such lines (console noise such as
// "[0] MIN Duty = ..." or "[-1] ...") it rejects after trying every form.
bool bracket_line_may_be_frame(std::string_view s) {
  if (s.size() < 2 || s[1] == '<' || is_ident_start(s[1])) return true;  // its other forms: left to it
  std::string_view t = s;
  if (!parse_plain_bracket_address(t)) return false;
  t = trim_left(t);
  return parse_plain_bracket_address(t).has_value();
}

// What the one-pass reading below made of a line.
enum class Quick { Frame, NoFrame, Unknown };

// looks_like_source() on the word at bits [w, wend) of masks `m`: a last ':' with only digits
// after it, a "file:line:column" column dropped, and a '.' or '/' in what remains.
bool source_by_masks(const byte_masks::WordMasks& m, std::size_t w, std::size_t wend) {
  using byte_masks::span;
  const std::uint64_t colons = m.colon & span(w, wend);
  if (colons == 0) return false;
  const auto colon = static_cast<std::size_t>(63 - __builtin_clzll(colons));
  if (colon == w || colon + 1 >= wend || (span(colon + 1, wend) & ~m.digit) != 0) return false;
  std::size_t path_end = colon;
  if (const std::uint64_t before = colons & ~span(colon, 64); before != 0) {
    const auto c2 = static_cast<std::size_t>(63 - __builtin_clzll(before));
    if ((span(c2 + 1, colon) & ~m.digit) == 0) path_end = c2;
  }
  return (m.dotslash & span(w, path_end)) != 0;
}

// The lines that open with a symbol name, read in one pass: "name+0x1f/0x20", "? name+0x1f/0x20"
// and "name file.c:12", then nothing, a source word ("net/core/dev.c:123") or a source word and
// " [inline]" (any other suffix goes to parse_suffixes()), and every other line that opens with
// a name, which is no frame. Masks of the suffix's bytes answer what looks_like_source() searched
// for byte by byte. Unknown for what parse_trace_text_general must read (lines that open with
// anything else, a first word longer than 64 bytes); tests/unit/trace_line_fast_test.cpp checks
// that both readings agree. Always inline: parse_trace_text hands it three trace lines in four,
// and a call, with its saves and restores of six registers, cost more there than the code it adds.
[[gnu::always_inline]] inline Quick read_symbol_line(std::string_view text, FrameText& f) {
  if constexpr (!byte_masks::kAvailable) {
    return Quick::Unknown;
  } else {
    std::size_t at = 0;
    bool unreliable = false;
    if (at + 1 < text.size() && text[at] == '?' && text[at + 1] == ' ') {
      unreliable = true;
      at += 2;
      while (at < text.size() && is_space(text[at])) ++at;
    }
    // A first byte that starts a name and no other form ('.' and '$' are left to the general reading).
    const char c0 = at < text.size() ? text[at] : '\0';
    if (!((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z') || c0 == '_')) return Quick::Unknown;
    const std::size_t name_end = byte_masks::ident_end(text, at);
    if (name_end >= text.size()) return Quick::NoFrame;  // a name alone
    std::string_view t = text.substr(name_end);
    std::optional<std::uint64_t> off;
    std::optional<std::uint64_t> size;
    if (t[0] == '+') {
      t.remove_prefix(1);
      off = hex0x(t);
      if (!off) return Quick::NoFrame;
      if (consume(t, "/")) {
        size = hex0x(t);
        if (!size) return Quick::NoFrame;
      }
    } else if (t[0] != ' ') {
      return Quick::NoFrame;
    } else if (t.starts_with(" from ")) {
      return Quick::Unknown;  // arm 5.x+ "foo from bar+0x18/0x1c"
    }
    const std::size_t u0 = text.size() - t.size();  // where the suffixes start
    std::size_t w0 = u0;                            // their first word, after blanks
    while (w0 < text.size() && is_space(text[w0])) ++w0;
    const auto fill = [&]() {
      f.function = text.substr(at, name_end - at);
      f.offset = off;
      f.size = size;
      f.module = {};
      f.build_id = {};
      f.address.reset();
      f.source = {};
      f.inlined = false;
      f.printed_unreliable = unreliable;
    };
    if (w0 == text.size()) {
      if (!off) return Quick::NoFrame;  // "name" and blanks
      fill();
      return Quick::Frame;
    }
    // decode_stacktrace.sh's "name (file.c:12)": the general reading's (parse_decoded_location).
    if (!off && text[w0] == '(') return Quick::Unknown;
    // "[mod]", "(unreliable)", ...: parse_suffixes() reads those (a source word is not one)
    const bool bracketed = text[w0] == '[' || text[w0] == '(';
    if (off && bracketed) {
      fill();
      parse_suffixes(t, f);
      return Quick::Frame;
    }
    const std::size_t w = w0 - u0;  // in mask bits
    if (w >= 64) return Quick::Unknown;
    byte_masks::WordMasks m;
    const std::size_t n = byte_masks::word_masks(text, u0, w, m);
    const std::uint64_t spaces = m.space & ~byte_masks::span(0, w);
    if (spaces == 0 && n != text.size() - u0) return Quick::Unknown;  // a word past the masks
    const std::size_t wend = spaces ? static_cast<std::size_t>(__builtin_ctzll(spaces)) : n;
    const bool source = source_by_masks(m, w, wend);
    if (!off && !source) return Quick::NoFrame;  // "name word" with no source: not a frame
    fill();
    const std::string_view word = text.substr(w0, wend - w);
    const std::string_view rest = text.substr(u0 + wend);
    if (!bracketed && word != "from" && (rest.empty() || rest == " [inline]")) {
      if (source) f.source = word;
      f.inlined = !rest.empty();
      return Quick::Frame;
    }
    parse_suffixes(t, f);
    return Quick::Frame;
  }
}

// The frames of kernels up to 4.9, "[<ffffffff8134d2f3>] ? foo+0x63/0x90 [mod]": the address
// (sixteen digits, read as one block by hex_wide), then what read_symbol_line reads. Unknown for
// anything else after the address ("{sym+90}", ":mod:sym", "(sym)", a raw "0x..."), which the
// general reading must read; tests/unit/trace_line_fast_test.cpp checks that both agree.
[[gnu::noinline]] Quick read_addressed_line(std::string_view text, FrameText& f) {
  std::string_view t = text.substr(2);  // "[<"
  const std::optional<std::uint64_t> address = hex_wide(t);
  if (!address || !consume(t, ">]")) return Quick::Unknown;
  t = trim_left(t);
  const char c0 = t.empty() ? '\0' : t[0];
  if (!((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z') || c0 == '_' || c0 == '?')) return Quick::Unknown;
  const Quick q = read_symbol_line(t, f);
  if (q == Quick::Frame) f.address = address;
  return q;
}

}  // namespace

std::optional<SymbolRef> parse_symbol_ref(std::string_view& s) {
  std::string_view t = s;
  SymbolRef r;
  r.function = symbol_name(t);
  if (r.function.empty() || !consume(t, "+")) return std::nullopt;
  auto off = hex0x(t);
  if (!off) return std::nullopt;
  r.offset = *off;
  if (consume(t, "/")) {
    auto size = hex0x(t);
    if (!size) return std::nullopt;
    r.size = *size;
  }
  std::string_view m = t;
  if (consume(m, " [")) {
    const std::size_t end = m.find(']');
    if (end != std::string_view::npos) {
      std::string_view inside = m.substr(0, end);
      const std::size_t sp = inside.find(' ');
      r.module = inside.substr(0, sp);
      if (sp != std::string_view::npos) r.build_id = inside.substr(sp + 1);
      t = m.substr(end + 1);
    }
  }
  s = t;
  return r;
}

// Field by field: assigning a fresh FrameText would zero the whole object (a rep stos in
// the profile, on every trace line).
void FrameText::reset() {
  function = {};
  offset.reset();
  size.reset();
  module = {};
  build_id = {};
  address.reset();
  source = {};
  inlined = false;
  printed_unreliable = false;
}

std::optional<TraceLine> parse_trace_line(std::string_view text) {
  TraceText t;
  if (!parse_trace_text(text, t)) return std::nullopt;
  std::optional<TraceLine> out(std::in_place);
  out->markers = std::move(t.markers);
  if (t.has_frame) t.frame.fill(out->frame.emplace());
  return out;
}

namespace {
// sparc's die_if_kernel() walks the register windows itself and prints each return address
// then its symbol: "Caller[%016lx]: %pS" (arch/sparc/kernel/traps_64.c; "%08lx" in traps_32.c).
// `s` opens with "Caller[".
bool read_caller_line(std::string_view s, TraceText& out) {
  std::string_view t = s.substr(7);
  const auto address = hex(t);
  // (A second "Caller[" is no symbol: refused here, it would recurse once per ten bytes of the line.)
  if (!address || !take_prefix(t, "]: ") || t.empty() || t.starts_with("Caller[") ||
      !parse_trace_text_general(t, out) || !out.has_frame || !out.markers.empty()) {
    out.markers.clear();
    out.has_frame = false;
    out.frame.reset();
    return false;
  }
  out.frame.address = address;
  return true;
}
}  // namespace

bool parse_trace_text(std::string_view text, TraceText& out) {
  // The general reading trims the line first too: it is given the trimmed line, not trimmed twice.
  const std::string_view s = trim_left(text);
  const char c0 = s.empty() ? '\0' : s[0];
  if (c0 == 'C' && s.starts_with("Caller[")) return read_caller_line(s, out);
  if ((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z') || c0 == '_' || c0 == '?') {
    const Quick q = read_symbol_line(s, out.frame);
    if (q != Quick::Unknown) {
      out.markers.clear();
      out.has_frame = q == Quick::Frame;
      return out.has_frame;
    }
  } else if (c0 == '[' && s.size() > 2 && s[1] == '<') {
    const Quick q = read_addressed_line(s, out.frame);
    if (q != Quick::Unknown) {
      out.markers.clear();
      out.has_frame = q == Quick::Frame;
      return out.has_frame;
    }
  } else if (!s.empty() && (!may_start_trace_text(c0) || (c0 == '0' && !starts_with_hex_literal(s)) ||
                            (c0 == '[' && !bracket_line_may_be_frame(s)))) {
    // A line in a trace that is no frame (a hex dump row, "=====", a register row after a
    // digit): the general reading rejects it only after trying every form, and leaves this.
    // A '0' starts a frame only as a raw "0x..." address: a row of a stack dump
    // ("0000000000000000 ffffffff81d90889 ...") is no marker and no name either.
    out.markers.clear();
    out.has_frame = false;
    out.frame.reset();
    return false;
  }
  return parse_trace_text_general(s, out);
}

bool parse_trace_text_general(std::string_view text, TraceText& out) {
  out.markers.clear();
  out.has_frame = false;
  std::string_view s = trim_left(text);
  if (s.empty()) return false;
  if (s[0] == 'C' && s.starts_with("Caller[")) return read_caller_line(s, out);

  // Markers: on a line of their own (4.10+) or inline before a frame (<= 4.9).
  for (int i = 0; i < 4; ++i) {
    auto m = parse_marker(s);
    if (!m) break;
    out.markers.push_back(std::move(*m));
    s = trim_left(s);
  }
  if (s.empty()) return !out.markers.empty();

  FrameText& f = out.frame;
  f.reset();
  out.has_frame = true;
  bool s390_paren = false;
  if (s[0] == '(' && s.size() > 2 && s[1] == '[') {  // s390: "([<...>] foo+0x1/0x2)" is unreliable
    s390_paren = true;
    s.remove_prefix(1);
  }
  if (auto a = parse_bracket_address(s)) {
    f.address = a;
    s = trim_left(s);
    // 2.6.0-2.6.17 x86_64: "[<ffffffff80110b9a>]{sys_ioctl+90}" (symbol in braces, decimal offset).
    if (!s.empty() && s[0] == '{' && parse_symbolic_group(s, '}', f)) {
      parse_suffixes(s, f);
      return true;
    }
  } else if (s.size() > 2 && ((s[0] == '<' && is_hex(s[1])) || (s[0] == '[' && is_ident_start(s[1])))) {
    // The forms of kernels before 2.6.18 and of hardened 2.6.2x trees (format_table.h), apart
    // so that the common forms' code stays small.
    if (parse_symbolic_frame(s, f)) return true;
    if (s[0] == '<') {
      out.has_frame = false;
      return !out.markers.empty();
    }
    if (auto p = parse_plain_bracket_address(s)) {  // powerpc "[sp] [ip] symbol" with letters in sp
      s = trim_left(s);
      auto ip = parse_plain_bracket_address(s);
      if (!ip) {
        out.has_frame = false;
        return !out.markers.empty();
      }
      f.address = ip;
      s = trim_left(s);
    }
  } else if (auto p = s[0] == '[' ? parse_plain_bracket_address(s) : std::nullopt) {
    // powerpc prints "[sp] [ip] symbol": the second bracket is the code address (the test of
    // the first byte is the one parse_plain_bracket_address starts with, made without a call).
    s = trim_left(s);
    if (auto ip = parse_plain_bracket_address(s)) {
      f.address = ip;
      s = trim_left(s);
    } else {
      out.has_frame = false;
      return !out.markers.empty();
    }
  }
  if (consume(s, "? ")) {
    f.printed_unreliable = true;
    s = trim_left(s);
  }
  // 2.6.18-2.6.27 x86_64 printed a module's frames as ":mod:symbol+0x1/0x2".
  if (s.size() > 3 && s[0] == ':' && is_ident_start(s[1])) {
    const std::size_t colon = s.find(':', 1);
    if (colon != std::string_view::npos && colon < 64 && colon + 1 < s.size() && is_ident_start(s[colon + 1])) {
      f.module = s.substr(1, colon - 1);
      s.remove_prefix(colon + 1);
    }
  }
  const bool paren = consume(s, "(");  // arm: "(foo+0x0/0x10c)"
  const auto no_frame = [&out]() {
    out.has_frame = false;
    return !out.markers.empty();
  };
  if (!paren && starts_with_hex_literal(s)) {
    // A raw address with no symbol: " 0xffffffffc0123456", "? 0xffffffffc0123456",
    // s390 "([<00000000027f8000>] 0x27f8000)".
    std::string_view h = s;
    auto v = hex0x(h);
    if (!v) return no_frame();
    if (s390_paren) consume(h, ")");
    if (!h.empty() && !is_space(h[0])) return no_frame();
    if (!f.address) f.address = v;
    parse_suffixes(h, f);
    if (s390_paren) f.printed_unreliable = true;
    return true;
  }
  std::string_view t = s;
  const std::string_view name = symbol_name(t);
  if (paren && !name.empty() && consume(t, ")")) {
    // arm without offsets: "[<c0014318>] (dump_backtrace_log_lvl) from [<c001457c>] (show_stack+0x24/0x2c)".
    std::string_view rest = trim_left(t);
    if (!f.address || !(rest.empty() || rest.starts_with("from "))) return no_frame();
    f.function = name;
    return true;
  }
  if (!name.empty() && consume(t, "+")) {
    auto off = hex0x(t);
    if (!off) return no_frame();
    f.offset = *off;
    if (consume(t, "/")) {
      auto size = hex0x(t);
      if (!size) return no_frame();
      f.size = *size;
    }
    f.function = name;
    if (paren) consume(t, ")");
    parse_suffixes(t, f);
  } else if (!name.empty() && !paren && !f.address && t.starts_with(" from ")) {
    // arm 5.x+: "unwind_backtrace from show_stack+0x18/0x1c": the function, then the return
    // address in its caller, which the next line names as its own function. Like the older
    // "[<pc>] (foo+0x0/0x10c) from [<lr>] (bar+0x18/0x1c)" form, the frame is the first name.
    std::string_view from = t.substr(6);
    if (!parse_symbol_ref(from)) return no_frame();
    f.function = name;
  } else if (!name.empty() && !paren && !t.empty() && t[0] == ' ') {
    // Symbolized inline frame without offset: " __dump_stack lib/dump_stack.c:17 [inline]";
    // or decode_stacktrace.sh's " ? dump_stack (lib/dump_stack.c:122)".
    std::string_view rest = trim_left(t);
    if (!rest.empty() && rest[0] == '(') {
      if (!parse_decoded_location(rest, f)) return no_frame();
      f.function = name;
      parse_suffixes(rest, f);
    } else {
      const std::string_view word = rest.substr(0, rest.find(' '));
      if (!looks_like_source(word)) return no_frame();
      f.function = name;
      parse_suffixes(rest, f);
    }
  } else if (f.address && name.empty() && (t.empty() || is_space(t[0]))) {
    // "[<ffffffff81234567>] 0xffffffff81234567" or an address with no symbol at all.
    parse_suffixes(t, f);
  } else {
    return no_frame();
  }
  if (s390_paren) f.printed_unreliable = true;
  return true;
}

}  // namespace btaudit
