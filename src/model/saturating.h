// Arithmetic on counts and sizes that come from input (NDJSON counts, database
// rows, dump headers): a sum that would wrap around 2^64 stops at the top
// instead, so a hostile input can make a count large but never small.
#pragma once
#include <cstdint>
#include <limits>

namespace btaudit {

inline constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

constexpr std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return b > kSaturated - a ? kSaturated : a + b;
}

// a += b, saturating; false when it saturated.
constexpr bool add_saturating(std::uint64_t& a, std::uint64_t b) {
  const bool exact = b <= kSaturated - a;
  a = saturating_add(a, b);
  return exact;
}

}  // namespace btaudit
