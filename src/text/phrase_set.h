// Which of a few fixed phrases a line holds, anywhere in it, in one pass. The
// report text filter asks up to seven "does the line contain ..." questions of
// every line a report keeps; one memchr-and-compare search each stops at every
// occurrence of a phrase's first byte ('S', 'F', 'K' are common). With SSE2 (every
// x86-64) sixteen positions are tested at once for the first two bytes of every
// phrase, and only those positions are compared further.
#pragma once
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace btaudit {

class PhraseSet {
 public:
  // Phrases of two bytes or more, at most 32 (bit k of find_all() is phrases[k]).
  PhraseSet(std::initializer_list<std::string_view> phrases) : phrases_(phrases) {
    for (std::size_t k = 0; k < phrases_.size() && k < 32; ++k) {
      const std::string_view p = phrases_[k];
      if (p.size() < 2) continue;
      std::size_t j = 0;
      while (j < pairs_.size() && !(pairs_[j].first == p[0] && pairs_[j].second == p[1])) ++j;
      if (j == pairs_.size()) {
        Pair pair;
        pair.first = p[0];
        pair.second = p[1];
#if defined(__SSE2__)
        pair.first_lanes = _mm_set1_epi8(p[0]);
        pair.second_lanes = _mm_set1_epi8(p[1]);
#endif
        pairs_.push_back(pair);
      }
      pairs_[j].phrases |= std::uint32_t{1} << k;
    }
  }

  // Bit k set when phrases[k] occurs in s: s.find(phrases[k]) != npos, for all k at once.
  std::uint32_t find_all(std::string_view s) const {
    std::uint32_t found = 0;
    if (s.size() < 2) return found;
    const char* b = s.data();
    std::size_t i = 0;
#if defined(__SSE2__)
    if (s.size() >= 17) {
      // A block tests the starts i..i+15 and reads b[i .. i+16]; the last block overlaps
      // the one before it (a start seen twice finds the same phrases).
      for (;;) {
        const __m128i at = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i));
        const __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i + 1));
        __m128i hit = _mm_setzero_si128();
        for (const Pair& p : pairs_)
          hit =
              _mm_or_si128(hit, _mm_and_si128(_mm_cmpeq_epi8(at, p.first_lanes), _mm_cmpeq_epi8(next, p.second_lanes)));
        for (auto mask = static_cast<unsigned>(_mm_movemask_epi8(hit)); mask != 0; mask &= mask - 1)
          found |= phrases_at(s, i + static_cast<std::size_t>(std::countr_zero(mask)));
        if (i + 17 == s.size()) return found;
        i = i + 33 <= s.size() ? i + 16 : s.size() - 17;
      }
    }
#endif
    for (; i + 1 < s.size(); ++i) found |= phrases_at(s, i);
    return found;
  }

 private:
  struct Pair {
    char first = 0;
    char second = 0;
    std::uint32_t phrases = 0;  // the phrases that start with these two bytes
#if defined(__SSE2__)
    __m128i first_lanes{};  // `first` in all sixteen lanes
    __m128i second_lanes{};
#endif
  };
  // The phrases that start at position i of s.
  std::uint32_t phrases_at(std::string_view s, std::size_t i) const {
    std::uint32_t found = 0;
    for (const Pair& p : pairs_) {
      if (p.first != s[i] || p.second != s[i + 1]) continue;
      for (std::uint32_t m = p.phrases; m != 0; m &= m - 1) {
        const auto k = static_cast<std::size_t>(std::countr_zero(m));
        const std::string_view phrase = phrases_[k];
        if (s.size() - i >= phrase.size() && std::memcmp(s.data() + i, phrase.data(), phrase.size()) == 0)
          found |= std::uint32_t{1} << k;
      }
    }
    return found;
  }

  std::vector<std::string_view> phrases_;
  std::vector<Pair> pairs_;
};

}  // namespace btaudit
