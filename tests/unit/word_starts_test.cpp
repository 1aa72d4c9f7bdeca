#include "text/word_starts.h"

#include <boost/test/unit_test.hpp>
#include <random>
#include <string>
#include <vector>

#include "text/scan.h"

using btaudit::WordStartFinder;

namespace {

// What find() must report, position by position, written the obvious way.
std::vector<std::size_t> reference(std::string_view firsts, std::string_view s, std::size_t end) {
  std::vector<std::size_t> out;
  for (std::size_t i = 1; i < end; ++i)
    if (firsts.find(s[i]) != std::string_view::npos && !btaudit::scan::is_ident(s[i - 1])) out.push_back(i);
  return out;
}

std::vector<std::size_t> found(const WordStartFinder& f, std::string_view s, std::size_t end) {
  std::vector<std::size_t> out;
  f.find(s, end, [&](std::size_t i) {
    out.push_back(i);
    return false;
  });
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(word_starts)

BOOST_AUTO_TEST_CASE(reports_word_starts_only) {
  const WordStartFinder f("BWg");
  const std::string s = " DEBUG: BUG: x-general gBW_B .B $W";
  BOOST_TEST(found(f, s, s.size()) == reference("BWg", s, s.size()), boost::test_tools::per_element());
  BOOST_TEST(found(f, s, s.size()) == (std::vector<std::size_t>{8, 15, 23}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(stops_at_the_first_accepted_candidate) {
  const WordStartFinder f("ab");
  const std::string s(100, ' ');
  std::string t = s;
  t[40] = 'a';
  t[70] = 'b';
  std::size_t at = 0;
  BOOST_TEST(f.find(t, t.size(), [&](std::size_t i) { return (at = i) == 40; }));
  BOOST_TEST(at == 40U);
  BOOST_TEST(!f.find(t, 60, [&](std::size_t i) { return t[i] == 'b'; }));
}

// Every length and end around the 16-byte blocks, bytes of every class including >= 0x80,
// on each path the CPU offers (AVX2, SSSE3 when it has them, then SSE2 or the plain loop).
BOOST_AUTO_TEST_CASE(agrees_with_a_byte_by_byte_search) {
  const std::string firsts = "BWIgkKdiUsPS";
  WordStartFinder f(firsts);
  const std::string alphabet = "BWIgkKdiUsPS xyzQ09_.$-:[]/+@`{\x80\xff\t";
  for (int path = 0; path < 3; ++path) {
    BOOST_TEST_MESSAGE("AVX2 path: " << f.uses_avx2() << ", SSSE3 path: " << f.uses_ssse3());
    std::mt19937 rng(42);
    for (std::size_t len = 0; len < 80; ++len) {
      for (int round = 0; round < 40; ++round) {
        std::string s(len, ' ');
        for (char& c : s) c = alphabet[rng() % alphabet.size()];
        for (std::size_t end = 0; end <= len; end += 1 + end / 8)
          BOOST_TEST(found(f, s, end) == reference(firsts, s, end), boost::test_tools::per_element());
      }
    }
    if (path == 0)
      f.disable_avx2();
    else
      f.disable_ssse3();
  }
}

BOOST_AUTO_TEST_SUITE_END()
