// Integers in decimal, as std::to_chars writes them, for the JSON writer. A report's
// frames carry offsets, sizes and line numbers (a few digits each) and its registers 20-digit
// values; libstdc++'s to_chars counts the digits with a division loop before it writes them
// in pairs with 64-bit divisions. Here a value below 10^4 (most of them) is one copy from a
// table that holds its four digits and their count, a value below 10^8 is cut once into such
// a head and four digits with leading zeros (one copy more), and a larger one is cut into
// groups of eight digits, each two copies from the table.
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
// Each value below 10^4 in eight bytes: its four digits with leading zeros, then their count
// without them (80 KB in all). The digits without leading zeros are the last `count` of the
// four: a copy of four bytes from there writes them (and the count byte, as scratch, after them).
inline constexpr std::size_t kCountByte = 4;
inline constexpr std::array<std::array<char, 8>, 10'000> kFourDigits = [] {
  std::array<std::array<char, 8>, 10'000> t{};
  for (std::uint32_t v = 0; v < t.size(); ++v) {
    std::array<char, 8>& e = t[v];
    for (std::uint32_t k = 4, r = v; k-- > 0; r /= 10) e[k] = static_cast<char>('0' + r % 10);
    e[kCountByte] = static_cast<char>(v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : 4);
  }
  return t;
}();
}  // namespace detail

// The number of decimal digits of v (1 for 0). 1233 / 4096 is just above log10(2), so
// t is the digit count or one less, and one compare with 10^t tells which.
constexpr int length(std::uint64_t v) {
  const int t = (std::bit_width(v) * 1233) >> 12;
  return t + (v >= detail::kPowersOf10[static_cast<std::size_t>(t)] ? 1 : 0) + (v == 0 ? 1 : 0);
}

namespace detail {
// The digits of v < 10^4: a copy of four bytes (those past the digits are scratch) and the count.
inline char* put_short(char* p, std::uint32_t v) {
  const std::array<char, 8>& e = kFourDigits[v];
  const auto count = static_cast<std::size_t>(static_cast<unsigned char>(e[kCountByte]));
  std::memcpy(p, e.data() + 4 - count, 4);
  return p + count;
}
// Exactly four digits of v < 10000, with leading zeros.
inline void put_four(char* p, std::uint32_t v) { std::memcpy(p, kFourDigits[v].data(), 4); }
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

// Writes the digits of v at p and returns their end. Stores at most 20 bytes at p: the
// bytes between the end and p + 20 may be overwritten (scratch; the JSON writer makes room
// for a whole number before it writes one). Nearly every number of a report (offsets,
// sizes, line and trace numbers) is below 10^8: those take one or two table copies and
// no division of a 64-bit value; kernel addresses and larger take put_large.
inline char* put(char* p, std::uint64_t v) {
  if (v >= 100'000'000) return put_large(p, v);
  const auto w = static_cast<std::uint32_t>(v);
  if (w < 10'000) return detail::put_short(p, w);
  const std::uint32_t high = w / 10'000;
  p = detail::put_short(p, high);
  detail::put_four(p, w - high * 10'000);
  return p + 4;
}

// Any integer type up to 64 bits, with a '-' for a negative value (at most 21 bytes stored).
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
