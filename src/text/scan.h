// Small string_view scanners used by every text front-end file.
// No allocation, no locale, no regex: these sit on the per-line hot path.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace btaudit::scan {

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
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

constexpr std::string_view trim_left(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  return s.substr(i);
}
constexpr std::string_view trim_right(std::string_view s) {
  std::size_t n = s.size();
  while (n > 0 && is_space(s[n - 1])) --n;
  return s.substr(0, n);
}
constexpr std::string_view trim(std::string_view s) { return trim_right(trim_left(s)); }

// s.starts_with(prefix), comparing the first byte before the rest: per-line scanners try
// dozens of prefixes and nearly all differ at the first byte, where a library memcmp
// call would cost more than the comparison.
constexpr bool starts(std::string_view s, std::string_view prefix) {
  if (prefix.empty()) return true;
  return !s.empty() && s[0] == prefix[0] && s.starts_with(prefix);
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
