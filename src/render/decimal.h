// Integers in decimal, as std::to_chars writes them, for the JSON writer. A report's
// frames carry 20-digit kernel addresses and a handful of small numbers each; libstdc++'s
// to_chars counts the digits with a division loop before it writes them in pairs with
// 64-bit divisions. Here a value below 10^8 (nearly all of them) goes out forwards in
// pairs, its length picked by a few compares; a larger one is cut into groups of eight
// digits, each written in pairs from 32-bit arithmetic.
#pragma once
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace btaudit::decimal {

namespace detail {
inline constexpr std::array<std::uint64_t, 20> kPowersOf10 = [] {
  std::array<std::uint64_t, 20> p{};
  std::uint64_t v = 1;
  for (auto& e : p) {
    e = v;
    v *= 10;
  }
  return p;
}();
// "00" "01" ... "99": the two digits of each value below 100.
inline constexpr std::array<char, 200> kPairs = [] {
  std::array<char, 200> t{};
  for (std::size_t i = 0; i < 100; ++i) {
    t[2 * i] = static_cast<char>('0' + i / 10);
    t[2 * i + 1] = static_cast<char>('0' + i % 10);
  }
  return t;
}();

inline void put_pair(char* at, std::uint32_t v) { std::memcpy(at, kPairs.data() + 2 * v, 2); }
}  // namespace detail

// The number of decimal digits of v (1 for 0). 1233 / 4096 is just above log10(2), so
// t is the digit count or one less, and one compare with 10^t tells which.
constexpr int length(std::uint64_t v) {
  const int t = (std::bit_width(v) * 1233) >> 12;
  return t + (v >= detail::kPowersOf10[static_cast<std::size_t>(t)] ? 1 : 0) + (v == 0 ? 1 : 0);
}

namespace detail {
// One or two digits of v < 100.
inline char* put_small(char* p, std::uint32_t v) {
  if (v < 10) {
    *p = static_cast<char>('0' + v);
    return p + 1;
  }
  put_pair(p, v);
  return p + 2;
}
// Exactly four digits of v < 10000, with leading zeros.
inline void put_four(char* p, std::uint32_t v) {
  const std::uint32_t high = v / 100;
  put_pair(p, high);
  put_pair(p + 2, v - high * 100);
}
// Exactly eight digits of v < 10^8, with leading zeros.
inline char* put_eight(char* p, std::uint32_t v) {
  const std::uint32_t high = v / 10'000;
  put_four(p, high);
  put_four(p + 4, v - high * 10'000);
  return p + 8;
}
}  // namespace detail

// Values of 10^8 and more (decimal.cpp): out of line, so that put() stays a leaf that saves
// no registers.
char* put_large(char* p, std::uint64_t v);

// Writes the digits of v at p (at most 20 bytes) and returns the end. Nearly every number
// of a report (offsets, sizes, line and trace numbers) is below 10^8: those are written
// forwards, the length picked by two or three compares, with no digit count and no
// division of a 64-bit value; kernel addresses and larger take put_large.
inline char* put(char* p, std::uint64_t v) {
  if (v >= 100'000'000) return put_large(p, v);
  const auto w = static_cast<std::uint32_t>(v);
  if (w < 10'000) {
    if (w < 100) return detail::put_small(p, w);
    const std::uint32_t high = w / 100;
    p = detail::put_small(p, high);
    detail::put_pair(p, w - high * 100);
    return p + 2;
  }
  if (w < 1'000'000) {
    const std::uint32_t high = w / 10'000;
    p = detail::put_small(p, high);
    detail::put_four(p, w - high * 10'000);
    return p + 4;
  }
  const std::uint32_t high = w / 1'000'000;
  const std::uint32_t low = w - high * 1'000'000;
  const std::uint32_t mid = low / 10'000;
  p = detail::put_small(p, high);
  detail::put_pair(p, mid);
  detail::put_four(p + 2, low - mid * 10'000);
  return p + 6;
}

// Any integer type up to 64 bits, with a '-' for a negative value (at most 21 bytes).
template <typename Int>
requires(std::is_integral_v<Int> && !std::is_same_v<Int, bool> && sizeof(Int) <= 8) char* put(char* p, Int v) {
  if constexpr (std::is_signed_v<Int>) {
    if (v < 0) {
      *p++ = '-';
      // The magnitude in unsigned arithmetic: -v overflows for the most negative value.
      return put(p, std::uint64_t{0} - static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
    }
  }
  return put(p, static_cast<std::uint64_t>(v));
}

}  // namespace btaudit::decimal
