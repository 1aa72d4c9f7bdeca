// decimal::put: the digits std::to_chars writes, for every integer type the JSON
// writer is given, on generated values: every small number, each power of ten and its
// neighbours, the limits of each type, and random values of every bit width.
#include "render/decimal.h"

#include <boost/test/unit_test.hpp>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

template <typename Int>
std::string expected(Int v) {
  char buf[32];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

template <typename Int>
std::string written(Int v) {
  char buf[32];
  std::memset(buf, '#', sizeof buf);
  char* end = btaudit::decimal::put(buf, v);
  BOOST_REQUIRE(end > buf && end <= buf + 21);
  // Bytes past the end are scratch, but nothing is stored past the 21 bytes a number may take.
  BOOST_TEST(std::string(buf + 21, buf + sizeof buf) == std::string(sizeof buf - 21, '#'));
  return std::string(buf, end);
}

// Values of one type around every power of ten and bit boundary it can hold, and random ones.
template <typename Int>
std::vector<Int> generated_values() {
  using Lim = std::numeric_limits<Int>;
  std::vector<Int> out;
  for (int v = 0; v <= 10'000; ++v)
    if (static_cast<long long>(v) <= static_cast<long long>(Lim::max())) out.push_back(static_cast<Int>(v));
  std::uint64_t p = 1;
  for (int k = 0; k < 20; ++k, p *= 10) {
    for (std::uint64_t d : {p - 1, p, p + 1, 2 * p - 1, 9 * p, 10 * p - 1}) {
      if (d <= static_cast<std::uint64_t>(Lim::max())) out.push_back(static_cast<Int>(d));
      if constexpr (std::is_signed_v<Int>)
        if (d <= static_cast<std::uint64_t>(Lim::max())) out.push_back(static_cast<Int>(-static_cast<Int>(d)));
    }
    if (p > std::numeric_limits<std::uint64_t>::max() / 10) break;
  }
  for (int bit = 0; bit < Lim::digits; ++bit) {
    const std::uint64_t b = std::uint64_t{1} << bit;
    out.push_back(static_cast<Int>(b));
    out.push_back(static_cast<Int>(b - 1));
  }
  out.push_back(Lim::max());
  out.push_back(Lim::min());
  out.push_back(static_cast<Int>(Lim::min() + 1));
  std::mt19937_64 rng(14);
  for (int i = 0; i < 20'000; ++i) {
    const int width = 1 + static_cast<int>(rng() % 64);
    std::uint64_t v = rng();
    if (width < 64) v &= (std::uint64_t{1} << width) - 1;
    out.push_back(static_cast<Int>(v));  // wraps into the type's range: any bit pattern of it
  }
  return out;
}

// An unsigned value stores at most 20 bytes (its digits and scratch after them).
bool untouched_past_20(const char (&buf)[32]) {
  for (std::size_t i = 20; i < sizeof buf; ++i)
    if (buf[i] != '#') return false;
  return true;
}

template <typename Int>
void check_type() {
  for (Int v : generated_values<Int>()) {
    const std::string want = expected(v);
    const std::string got = written(v);
    if (got != want) BOOST_TEST(got == want, "value " << want);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(decimal)

BOOST_AUTO_TEST_CASE(every_integer_type_writes_to_chars_digits) {
  check_type<std::uint64_t>();
  check_type<std::int64_t>();
  check_type<std::uint32_t>();
  check_type<std::int32_t>();
  check_type<std::uint16_t>();
  check_type<std::int16_t>();
  check_type<unsigned char>();
  check_type<signed char>();
  check_type<unsigned long long>();
  check_type<long>();
}

// put() writes values below 10^4 from a table, values below 10^8 as a table head and four
// digits, and hands larger ones to put_large(), which cuts them into eight-digit groups:
// every value below 10^6, 2000 values either side of each class and group boundary,
// random values of every length.
BOOST_AUTO_TEST_CASE(length_classes_and_digit_groups_match_to_chars) {
  std::vector<std::uint64_t> values;
  for (std::uint64_t v = 0; v < 1'000'000; ++v) values.push_back(v);
  // Every head of the table below 10^8 (v / 10^4) with varied four-digit tails.
  for (std::uint64_t v = 1'000'000; v < 100'000'000; v += 97) values.push_back(v);
  for (const std::uint64_t edge : {std::uint64_t{10'000}, std::uint64_t{1'000'000}, std::uint64_t{100'000'000},
                                   std::uint64_t{10'000'000'000'000'000}})
    for (std::uint64_t d = 0; d < 2'000; ++d) {
      values.push_back(edge + d);
      values.push_back(edge - 1 - d);
    }
  std::mt19937_64 rng(1414);
  for (int i = 0; i < 200'000; ++i) {
    std::uint64_t limit = 10;
    for (auto digits = rng() % 19; digits > 0; --digits) limit *= 10;  // 10^1 .. 10^19
    values.push_back(rng() % limit);
  }
  for (const std::uint64_t v : generated_values<std::uint64_t>()) values.push_back(v);
  for (const std::uint64_t v : values) {
    const std::string want = expected(v);
    char buf[32];
    std::memset(buf, '#', sizeof buf);
    char* end = btaudit::decimal::put(buf, v);
    if (std::string(buf, end) != want || !untouched_past_20(buf))
      BOOST_TEST(std::string(buf, end) == want, "put, value " << want);
    if (v < 100'000'000) continue;
    std::memset(buf, '#', sizeof buf);
    end = btaudit::decimal::put_large(buf, v);
    if (std::string(buf, end) != want || !untouched_past_20(buf))
      BOOST_TEST(std::string(buf, end) == want, "put_large, value " << want);
  }
}

BOOST_AUTO_TEST_CASE(length_counts_digits_at_every_power_of_ten) {
  BOOST_TEST(btaudit::decimal::length(0) == 1);
  std::uint64_t p = 1;
  for (int digits = 1; digits <= 20; ++digits) {
    BOOST_TEST(btaudit::decimal::length(p) == digits, "10^" << digits - 1);
    if (digits > 1) BOOST_TEST(btaudit::decimal::length(p - 1) == digits - 1, "10^" << digits - 1 << " - 1");
    if (digits < 20) p *= 10;
  }
  BOOST_TEST(btaudit::decimal::length(std::numeric_limits<std::uint64_t>::max()) == 20);
}

BOOST_AUTO_TEST_SUITE_END()
