#include "text/phrase_set.h"

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <random>
#include <string>

using btaudit::PhraseSet;

BOOST_AUTO_TEST_SUITE(phrase_set)

BOOST_AUTO_TEST_CASE(finds_each_phrase_anywhere) {
  const PhraseSet set{"Sending NMI from CPU", "FAULT_INJECTION: x", "FAULT_FLAG", "ab"};
  BOOST_TEST(set.find_all("") == 0U);
  BOOST_TEST(set.find_all("xSending NMI from CPU 1") == 1U);
  BOOST_TEST(set.find_all("FAULT_FLAG and FAULT_INJECTION: x") == (2U | 4U));
  BOOST_TEST(set.find_all("a") == 0U);
  BOOST_TEST(set.find_all("ab") == 8U);
  BOOST_TEST(set.find_all("Sending NMI from CP") == 0U);  // cut short by the end
}

// find_all() must say what std::string_view::find says, for phrases planted at every
// offset around the 16-byte blocks, at the very end, and cut off by it.
BOOST_AUTO_TEST_CASE(agrees_with_find) {
  const std::string phrases[] = {"Sending NMI from CPU", "Se", "FAULT_INJECTION: forcing a failure", "FAULT_FLAG",
                                 "ab"};
  const PhraseSet set{phrases[0], phrases[1], phrases[2], phrases[3], phrases[4]};
  const std::string alphabet = "abSeF_ \x80";
  std::mt19937 rng(11);
  for (std::size_t len = 0; len < 90; ++len) {
    for (int round = 0; round < 50; ++round) {
      std::string s(len, ' ');
      for (char& c : s) c = alphabet[rng() % alphabet.size()];
      if (len > 0 && round % 2 == 0) {
        const std::string& p = phrases[rng() % 5];
        s.replace(rng() % len, p.size(), p);
        s.resize(len);
      }
      std::uint32_t want = 0;
      for (std::size_t k = 0; k < 5; ++k)
        if (std::string_view(s).find(phrases[k]) != std::string_view::npos) want |= 1U << k;
      BOOST_TEST(set.find_all(s) == want, "line '" << s << "'");
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
