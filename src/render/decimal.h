// Integers in decimal, as std::to_chars writes them, for the JSON writer. A report's
// frames carry 20-digit kernel addresses and a handful of small numbers each; libstdc++'s
// to_chars counts the digits with a division loop before it writes them in pairs with
// 64-bit divisions. Here the length comes from the bit width and one table compare, and
// the digits go out in pairs from 32-bit arithmetic, eight at a time.
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

// Writes the digits of v at p (at most 20 bytes) and returns the end.
inline char* put(char* p, std::uint64_t v) {
  char* const end = p + length(v);
  char* q = end;
  while (v >= 100'000'000) {
    const std::uint64_t high = v / 100'000'000;
    auto low = static_cast<std::uint32_t>(v - high * 100'000'000);
    for (int k = 0; k < 4; ++k) {
      q -= 2;
      detail::put_pair(q, low % 100);
      low /= 100;
    }
    v = high;
  }
  auto w = static_cast<std::uint32_t>(v);
  while (w >= 100) {
    q -= 2;
    detail::put_pair(q, w % 100);
    w /= 100;
  }
  if (w >= 10)
    detail::put_pair(q - 2, w);
  else
    q[-1] = static_cast<char>('0' + w);
  return end;
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
