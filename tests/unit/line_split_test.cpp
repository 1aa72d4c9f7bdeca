#include "text/line_split.h"

#include <boost/test/unit_test.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

// The lines as the grammar says, one byte at a time: '\n' ends a line, and with CRs '\r' too,
// "\r\n" being one end; what follows the last end is a last line when it is not empty.
std::vector<std::string_view> reference(std::string_view log, bool with_cr) {
  std::vector<std::string_view> out;
  std::size_t line = 0;
  for (std::size_t i = 0; i < log.size(); ++i) {
    if (log[i] == '\n' || (with_cr && log[i] == '\r')) {
      out.push_back(log.substr(line, i - line));
      if (with_cr && log[i] == '\r' && i + 1 < log.size() && log[i + 1] == '\n') ++i;
      line = i + 1;
    }
  }
  if (line < log.size()) out.push_back(log.substr(line));
  return out;
}

template <bool kWithCr, typename Split>
std::vector<std::string_view> collect(std::string_view log, Split split) {
  std::vector<std::string_view> out;
  split(log, [&out](std::string_view l) { out.push_back(l); });
  return out;
}

// Views compared by place, not only by content.
bool same(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].data() != b[i].data() || a[i].size() != b[i].size()) return false;
  return true;
}

template <bool kWithCr>
void check(std::string_view log) {
  const auto want = reference(log, kWithCr);
  BOOST_TEST_CONTEXT("log of " << log.size() << " bytes, CRs " << kWithCr) {
    BOOST_TEST(same(
        collect<kWithCr>(log, [](std::string_view l, auto&& sink) { btaudit::for_each_line_sse2<kWithCr>(l, sink); }),
        want));
    BOOST_TEST(
        same(collect<kWithCr>(log, [](std::string_view l, auto&& sink) { btaudit::for_each_line<kWithCr>(l, sink); }),
             want));
#if defined(BTAUDIT_SPLIT_AVX2)
    if (btaudit::line_split_uses_avx2())
      BOOST_TEST(same(
          collect<kWithCr>(log, [](std::string_view l, auto&& sink) { btaudit::for_each_line_avx2<kWithCr>(l, sink); }),
          want));
#endif
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(line_split)

// Every path (SSE2 blocks, AVX2 blocks, the tail loop) against the grammar, on buffers of every
// length around the 64-byte blocks and random mixes of LF, CR and CRLF, ends falling on block
// edges ("\r" the last byte of a block, its "\n" the first of the next).
BOOST_AUTO_TEST_CASE(every_path_splits_as_the_grammar_says) {
  std::mt19937 rng(14);
  const std::string alphabet = "\n\r\rxxxxxxxxxx";
  // One buffer, its views at every offset: loads of unaligned blocks.
  for (int round = 0; round < 3000; ++round) {
    const std::size_t n = rng() % 300;
    std::string log;
    for (std::size_t i = 0; i < n; ++i) log += alphabet[rng() % alphabet.size()];
    if (round % 4 == 0 && n > 70) {
      log[63] = '\r';
      log[64] = '\n';
    }
    const std::size_t from = n ? rng() % (n / 4 + 1) : 0;
    const std::string_view view = std::string_view(log).substr(from);
    check<true>(view);
    check<false>(view);
  }
  for (std::size_t n = 0; n <= 200; ++n) {
    check<true>(std::string(n, '\n'));
    check<true>(std::string(n, '\r'));
    check<false>(std::string(n, 'x'));
    std::string crlf;
    while (crlf.size() < n) crlf += "ab\r\n";
    check<true>(crlf);
    check<false>(crlf);
  }
}

BOOST_AUTO_TEST_SUITE_END()
