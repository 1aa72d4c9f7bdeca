#include "render/decimal.h"

namespace btaudit::decimal {

// v >= 10^8: the last eight digits, and before them the rest (below 10^8 for a value below
// 10^16, else split once more), each eight-digit group from 32-bit arithmetic.
char* put_large(char* p, std::uint64_t v) {
  const std::uint64_t high = v / 100'000'000;
  const auto low = static_cast<std::uint32_t>(v - high * 100'000'000);
  if (high < 100'000'000) {
    p = put(p, high);
  } else {
    const std::uint64_t top = high / 100'000'000;  // at most 1844
    p = put(p, top);
    p = detail::put_eight(p, static_cast<std::uint32_t>(high - top * 100'000'000));
  }
  return detail::put_eight(p, low);
}

}  // namespace btaudit::decimal
