// Small string_view scanners used by every text front-end file.
// No allocation, no locale, no regex: these sit on the per-line hot path.
#pragma once
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace btaudit::scan {

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
// ' ', '\t', '\r', '\f' and '\v' (not '\n'), as one bit test: trims run on every line, and most
// bytes they look at are above ' ', which one compare tells.
constexpr bool is_space(char c) {
  constexpr std::uint64_t kSpaces = std::uint64_t{1} << ' ' | std::uint64_t{1} << '\t' | std::uint64_t{1} << '\r' |
                                    std::uint64_t{1} << '\f' | std::uint64_t{1} << '\v';
  const auto u = static_cast<unsigned char>(c);
  return u <= ' ' && ((kSpaces >> u) & 1) != 0;
}
constexpr bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' || c == '$';
}

namespace detail {
// Byte classes as tables: hex() and ident() run on every character of every frame line,
// where a chain of range compares per character costs more than one load.
inline constexpr std::uint8_t kNotHex = 0xff;
inline constexpr std::array<std::uint8_t, 256> kHexValue = [] {
  std::array<std::uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    std::uint8_t v = kNotHex;
    if (c >= '0' && c <= '9') v = static_cast<std::uint8_t>(c - '0');
    if (c >= 'a' && c <= 'f') v = static_cast<std::uint8_t>(c - 'a' + 10);
    if (c >= 'A' && c <= 'F') v = static_cast<std::uint8_t>(c - 'A' + 10);
    t[static_cast<std::size_t>(c)] = v;
  }
  return t;
}();
inline constexpr std::array<bool, 256> kIdent = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[static_cast<std::size_t>(c)] = is_ident_start(static_cast<char>(c)) || is_digit(static_cast<char>(c));
  return t;
}();
}  // namespace detail

constexpr bool is_hex(char c) { return detail::kHexValue[static_cast<unsigned char>(c)] != detail::kNotHex; }
constexpr bool is_ident(char c) { return detail::kIdent[static_cast<unsigned char>(c)]; }

// remove_prefix/remove_suffix, not substr: substr checks its position and may throw, a check
// (on every trim of every line) that the loops already make needless.
constexpr std::string_view trim_left(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  s.remove_prefix(i);
  return s;
}
constexpr std::string_view trim_right(std::string_view s) {
  std::size_t n = s.size();
  while (n > 0 && is_space(s[n - 1])) --n;
  s.remove_suffix(s.size() - n);
  return s;
}
constexpr std::string_view trim(std::string_view s) { return trim_right(trim_left(s)); }

// s.starts_with(prefix), comparing the first byte before the rest: per-line scanners try
// dozens of prefixes and nearly all differ at the first byte, where a library memcmp
// call would cost more than the comparison.
constexpr bool starts(std::string_view s, std::string_view prefix) {
  if (prefix.empty()) return true;
  return !s.empty() && s[0] == prefix[0] && s.starts_with(prefix);
}

// s.starts_with(literal), made in place: the literal's length is known, so the comparison is a
// few compares of words, where starts_with() (left out of line in a large function) costs a
// call, a strlen and a memcmp call.
template <std::size_t N>
[[gnu::always_inline]] inline bool has_prefix(std::string_view s, const char (&literal)[N]) {
  return s.size() >= N - 1 && std::memcmp(s.data(), literal, N - 1) == 0;
}

// consume(s, literal) made in place, as has_prefix is.
template <std::size_t N>
[[gnu::always_inline]] inline bool take_prefix(std::string_view& s, const char (&literal)[N]) {
  if (!has_prefix(s, literal)) return false;
  s.remove_prefix(N - 1);
  return true;
}

// Removes `prefix` from the front of `s` and returns true when it is there.
constexpr bool consume(std::string_view& s, std::string_view prefix) {
  if (!starts(s, prefix)) return false;
  s.remove_prefix(prefix.size());
  return true;
}

// Parses hex digits (an optional 0x is the caller's business). Fails on no
// digits or on more than 16 of them (values wider than 64 bits are not addresses).
constexpr std::optional<std::uint64_t> hex(std::string_view& s) {
  std::uint64_t v = 0;
  std::size_t i = 0;
  for (; i < s.size(); ++i) {
    const std::uint8_t d = detail::kHexValue[static_cast<unsigned char>(s[i])];
    if (d == detail::kNotHex) break;
    if (i == 16) return std::nullopt;
    v = (v << 4) | d;
  }
  if (i == 0) return std::nullopt;
  s.remove_prefix(i);
  return v;
}

// hex() for values that are usually sixteen digits wide (register values, addresses): where
// SSE2 is (every x86-64) and sixteen bytes can be read, the digits are classified and
// combined as one block, not looked up and shifted in one by one. Same result as hex().
inline std::optional<std::uint64_t> hex_wide(std::string_view& s) {
#if defined(__SSE2__)
  if (s.size() >= 16) {
    // A signed compare tests a range [lo, hi] once the bytes are shifted so that lo is -128.
    const auto in_range = [](__m128i v, int lo, int hi) {
      const __m128i shifted = _mm_add_epi8(v, _mm_set1_epi8(static_cast<char>(0x80 - lo)));
      return _mm_cmplt_epi8(shifted, _mm_set1_epi8(static_cast<char>(-128 + (hi - lo) + 1)));
    };
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data()));
    const __m128i digit = in_range(v, '0', '9');
    // Or-ing 0x20 maps 'A'-'F' onto 'a'-'f' and no other byte there.
    const __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
    const __m128i letter = in_range(folded, 'a', 'f');
    const auto valid = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(digit, letter)));
    const auto n = static_cast<std::size_t>(std::countr_zero(~valid | 0x10000U));  // leading digits
    if (n == 0) return std::nullopt;
    if (n == 16 && s.size() > 16 && detail::kHexValue[static_cast<unsigned char>(s[16])] != detail::kNotHex)
      return std::nullopt;  // more than sixteen digits
    // Each byte's value (0 for a byte that is no digit, so that no pair below exceeds a byte).
    const __m128i nibble = _mm_or_si128(_mm_and_si128(digit, _mm_sub_epi8(v, _mm_set1_epi8('0'))),
                                        _mm_and_si128(letter, _mm_sub_epi8(folded, _mm_set1_epi8('a' - 10))));
    // Byte pairs (first digit high) into bytes, then the bytes in reading order into a word.
    const __m128i pairs =
        _mm_or_si128(_mm_slli_epi16(_mm_and_si128(nibble, _mm_set1_epi16(0x00ff)), 4), _mm_srli_epi16(nibble, 8));
    const auto packed = static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_packus_epi16(pairs, pairs)));
    std::uint64_t value = __builtin_bswap64(packed);
    value >>= 4 * (16 - n);
    s.remove_prefix(n);
    return value;
  }
#endif
  return hex(s);
}

// Parses "0x<hex>".
constexpr std::optional<std::uint64_t> hex0x(std::string_view& s) {
  std::string_view t = s;
  if (!consume(t, "0x")) return std::nullopt;
  auto v = hex(t);
  if (v) s = t;
  return v;
}

// Parses a non-negative decimal that fits in 63 bits.
constexpr std::optional<std::int64_t> dec(std::string_view& s) {
  std::int64_t v = 0;
  std::size_t i = 0;
  for (; i < s.size() && is_digit(s[i]); ++i) {
    if (i == 18) return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  if (i == 0) return std::nullopt;
  s.remove_prefix(i);
  return v;
}

constexpr std::string_view ident(std::string_view& s) {
  std::size_t i = 0;
  if (i < s.size() && is_ident_start(s[i])) {
    ++i;
    while (i < s.size() && is_ident(s[i])) ++i;
  }
  std::string_view r = s.substr(0, i);
  s.remove_prefix(i);
  return r;
}

constexpr bool contains(std::string_view s, std::string_view needle) {
  return s.find(needle) != std::string_view::npos;
}

}  // namespace btaudit::scan
