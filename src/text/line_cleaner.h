// Strips everything a log pipeline wraps around a printk message: syslog and
// journal prefixes, "<N>" levels, dmesg timestamps, printk caller ids, pstore
// and LAVA residue. What is left is the kernel's own text.
#pragma once
#include <cstdint>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace btaudit {

struct CleanLine {
  std::string_view text;     // the message, leading spaces kept (they matter in traces)
  std::uint32_t number = 0;  // 1-based line number in the input
  char caller_kind = 0;      // 'T' (task id) or 'C' (cpu) from a printk caller id, else 0
  std::uint32_t caller_id = 0;
  bool foreign = false;  // a syslog/journal line written by something other than the kernel
  bool had_timestamp = false;
  // The prefix was followed by the message with no separator ("[\t68764.975944]WARNING: ..."):
  // on such a console one space after a prefix may be the message's own indentation.
  bool bare_prefix = false;
};

namespace line_cleaner_detail {

// Whether p[0..13] is printk's own "[%5lu.%06lu]" (kernel/printk/printk.c, print_time()) while the
// uptime has five digits or fewer, 16 bytes p[0..15] being readable: '[' at 0, '.' at 6, ']' at 13,
// digits at 5 and 7..12, at 1..4 spaces then digits. Exactly the stamps strip_timestamp reads as
// 14 bytes in this shape (line_cleaner.cpp); anything else is left to it.
inline bool printk_stamp16(const char* p) {
#if defined(__SSE2__)
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i off = _mm_sub_epi8(v, _mm_set1_epi8('0'));
  const auto digits =
      static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(off, _mm_set1_epi8(9)), off)));
  const auto spaces = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' '))));
  const __m128i punct = _mm_setr_epi8('[', 0, 0, 0, 0, 0, '.', 0, 0, 0, 0, 0, 0, ']', 0, 0);
  const auto marks = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, punct)));
  // At 1..4 each byte is a space or a digit and the spaces are a run from 1 (a mask 2^k - 1).
  constexpr unsigned kMarks = 1U << 0 | 1U << 6 | 1U << 13;
  constexpr unsigned kDigits = 1U << 5 | 0x3fU << 7;
  const unsigned lead_spaces = (spaces >> 1) & 0xfU;
  return (marks & kMarks) == kMarks && (digits & kDigits) == kDigits && (((digits | spaces) >> 1) & 0xfU) == 0xfU &&
         (lead_spaces & (lead_spaces + 1)) == 0;
#else
  (void)p;
  return false;  // clean_line_slow reads every line
#endif
}

// printk's own caller id, "[%6s]" of "T<id>" or "C<id>" ("[   T28]", "[    C1]"): eight bytes,
// read without strip_caller's open-ended loops. Strips it and returns true exactly when
// strip_caller (line_cleaner.cpp) would read those eight bytes as a caller id; false for any
// other shape (which strip_caller then reads, or not).
[[gnu::always_inline]] inline bool printk_caller(std::string_view& s, char& kind, std::uint32_t& id) {
  if (s.size() < 8 || s[7] != ']' || s[0] != '[') return false;
  std::size_t i = 1;
  while (i < 6 && s[i] == ' ') ++i;
  const char k = s[i];
  if (k != 'T' && k != 'C') return false;
  if (++i == 7) return false;  // "[     T]": no digits
  std::uint32_t v = 0;
  for (; i < 7; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + std::uint32_t(s[i] - '0');
  }
  kind = k;
  id = v;
  s.remove_prefix(8);
  return true;
}

// plain_line's reading of a line's first bytes (line_cleaner.cpp): false when the general loop may
// take a prefix from the line's start (a '[' that may open a timestamp, a caller id or systemd's
// status, a kmsg record, "<N>", a mail quote, an escape, a syslog header, dmesg -x's facility and
// level). A line that passes is left
// whole unless a timestamp stands behind other text: a '[' at 1 .. size - 2 then a space, tab or digit.
inline bool plain_head(std::string_view s) {
  if (s.empty()) return false;
  const auto digit = [](char x) { return x >= '0' && x <= '9'; };
  const char c = s[0];
  if (c == '[') {
    // The loop reads a '[' as a timestamp (a space, tab or digit behind it), dmesg -T's stamp (an
    // upper-case letter), a caller id (a space, 'T' or 'C') or systemd's status ('\x1b').
    if (s.size() < 2) return false;
    const char d = s[1];
    if (d == ' ' || d == '\t' || digit(d) || (d >= 'A' && d <= 'Z') || d == '\x1b') return false;
    // util-linux dmesg's "[<    0.000012>]" (--time-format=delta); not "[<ffffffff81000000>]".
    if (d == '<' && s.size() > 2 && (s[2] == ' ' || digit(s[2]))) return false;
  } else if (digit(c)) {
    // The loop reads a digit as a kmsg record (a ',' at 1..3, or a netconsole release's '.' at 1..2
    // before it), RFC 5424 ("1 ") or RFC 3339 ("2024-").
    if (s.size() > 4 && (s[1] == ',' || s[2] == ',' || s[3] == ',' || s[1] == '.' || s[2] == '.')) return false;
    if (c == '1' && s.size() > 1 && s[1] == ' ') return false;
    if (s.size() > 10 && s[4] == '-') return false;
  } else if (c == '<' || c == '>' || c == '\x1b' || (c >= 'A' && c <= 'S' && s.size() >= 20 && s[3] == ' ')) {
    return false;
  } else if (c >= 'a' && c <= 'z' && s.size() >= 15 && (s[6] == ':' || s[8] == ':')) {
    return false;  // util-linux dmesg -x's "kern  :warn  : " (the loop reads it)
  }
  return true;
}

// clean_line without its inline fast path, for every line that path does not finish: overwrites
// `out` whole (out.number is kept: it is the line's number already).
void clean_line_slow(std::string_view raw, bool separator_free, CleanLine& out);
// clean_line_slow on a line with nothing to strip at its end (its last byte neither '\r', '\n'
// nor '}') and no printk stamp of printk_stamp16's shape at its start (or under 16 bytes).
void clean_unstamped(std::string_view s, bool separator_free, CleanLine& out);

// clean_line's body, both ways (kDefer: clean_line_deferred's).
// `separator_free`: the log is known to put no separator after its prefixes (a line with a
// bare prefix was seen), so a space after a prefix is the message's own indentation and is kept.
// Inline for the commonest line, "[  123.456789] msg" or "[  123.456789][ T42] msg" with nothing to
// strip at its end: the caller (LogParser::feed, every line) then pays no call, no saved registers
// and no copy of the result for it. The result is clean_line_slow's, which reads every other line.
template <bool kDefer>
[[gnu::always_inline]] inline CleanLine clean_line_impl(std::string_view raw, std::uint32_t number, bool separator_free,
                                                        bool& check_stamp) {
  // One result object, returned on every path, so that it is built in the caller's own.
  CleanLine out;
  out.number = number;
  // A last byte above '\r' other than '}' leaves strip_line_end nothing to strip: the line is
  // clean_line_slow's `s` as it is. (The bytes below '\r' it leaves too, but they are rare.)
  if (raw.empty() || static_cast<unsigned char>(raw.back()) <= '\r' || raw.back() == '}') {
    line_cleaner_detail::clean_line_slow(raw, separator_free, out);
    return out;
  }
  if (raw.size() < 16 || !line_cleaner_detail::printk_stamp16(raw.data())) {
    if constexpr (kDefer) {
      if (line_cleaner_detail::plain_head(raw)) {
        out.text = raw;
        check_stamp = true;
        return out;
      }
    }
    line_cleaner_detail::clean_unstamped(raw, separator_free, out);
    return out;
  }
  std::string_view t(raw.data() + 14, raw.size() - 14);
  bool ok = true;
  if (t[0] == '[') {  // "[ts][T1]"; any other bracket shape is the slow path's
    ok = line_cleaner_detail::printk_caller(t, out.caller_kind, out.caller_id) && !t.empty();
  } else if (t[1] == '[') {  // "[ts] [T1]", "[ts] [drm]": the general loop looks behind the space
    ok = false;
  }
  // A bare prefix or another prefix (crash's "[ts] <4>" level among them): the slow path decides.
  if (!ok || t[0] != ' ' || (t.size() > 1 && t[1] == '<')) {
    line_cleaner_detail::clean_line_slow(raw, separator_free, out);
    return out;
  }
  if (!separator_free) t.remove_prefix(1);
  out.had_timestamp = true;
  out.text = t;
  return out;
}

}  // namespace line_cleaner_detail

// Whether, of the first eight '[' at 1 .. size - 2 of a line, one opens a timestamp: the kernel's
// record behind user-space text, which a line that passes plain_head gives up its start to (and only
// then is clean_line's answer not the line whole).
bool has_stamp_behind(std::string_view s);

// Strips the line's prefixes (see clean_line_impl).
inline CleanLine clean_line(std::string_view raw, std::uint32_t number, bool separator_free = false) {
  bool unused = false;
  return line_cleaner_detail::clean_line_impl<false>(raw, number, separator_free, unused);
}

// clean_line, but a line that it leaves whole unless a timestamp stands behind other text (a '['
// at 1 .. size - 2 then a space, tab or digit: plain_head) comes back whole, `check_stamp` set,
// and not searched for such a '[': the caller's scan of the line (LineScan::stamp_open) tells
// whether one is there, and only then is clean_line's answer wanted. Otherwise as clean_line.
inline CleanLine clean_line_deferred(std::string_view raw, std::uint32_t number, bool separator_free,
                                     bool& check_stamp) {
  return line_cleaner_detail::clean_line_impl<true>(raw, number, separator_free, check_stamp);
}

// The same without clean_line's fast paths for the commonest shapes (a printk timestamp, maybe a
// caller id, then the message; a line with no prefix): every line through the general loop. For
// tests that compare them.
CleanLine clean_line_general(std::string_view raw, std::uint32_t number, bool separator_free = false);

}  // namespace btaudit
