// Finds where a word that may open one of a few phrases starts in a line: the
// positions i >= 1 where s[i] is one of a small set of bytes and s[i-1] does not
// continue an identifier (scan::is_ident), so that "DEBUG:" never reads as "BUG:".
// Every line of a log is searched this way for report words printed mid-line;
// a byte-by-byte loop pays an unpredictable branch per byte, so with SSE2 (every
// x86-64 has it) sixteen positions are classified at once and only the rare
// candidates are visited. Other targets take the same loop without SSE2.
#pragma once
#include <array>
#include <bit>
#include <cstddef>
#include <string_view>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "text/scan.h"

namespace btaudit {

class WordStartFinder {
 public:
  // `firsts`: the bytes a word of interest can start with (at most 16 distinct).
  explicit WordStartFinder(std::string_view firsts) {
    for (int c = 0; c < 256; ++c) ident_[static_cast<std::size_t>(c)] = scan::is_ident(static_cast<char>(c));
    for (const char c : firsts) {
      const auto u = static_cast<unsigned char>(c);
      if (first_[u]) continue;
      first_[u] = true;
#if defined(__SSE2__)
      if (count_ < kLanes)
        splat_[count_++] = _mm_set1_epi8(c);
      else
        vector_ = false;  // more start bytes than compares: the plain loop sees them all
#endif
    }
#if defined(__SSE2__)
    if (count_ == 0) vector_ = false;
    for (std::size_t k = count_; k < kLanes; ++k) splat_[k] = splat_[0];
#endif
  }

  // Calls visit(i) for each candidate position i in [1, end), in increasing order, until
  // it returns true; returns whether one did. `end` must not exceed s.size().
  template <typename Visit>
  bool find(std::string_view s, std::size_t end, Visit&& visit) const {
    const auto* b = reinterpret_cast<const unsigned char*>(s.data());
    std::size_t i = 1;
#if defined(__SSE2__)
    if (vector_ && end >= 17) {
      for (; i + 16 <= end; i += 16)
        if (visit_bits(i, candidates(b + i), visit)) return true;
      // The rest in one last block that overlaps the previous one, its seen positions masked off.
      if (i < end) {
        const std::size_t last = end - 16;
        return visit_bits(last, candidates(b + last) & (~0U << (i - last)), visit);
      }
      return false;
    }
#endif
    for (; i < end; ++i)
      if (first_[b[i]] && !ident_[b[i - 1]] && visit(i)) return true;
    return false;
  }

 private:
#if defined(__SSE2__)
  // One bit per position p..p+15 (p >= 1) that is a candidate.
  unsigned candidates(const unsigned char* p) const {
    const __m128i cur = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(any_equal(cur, std::make_index_sequence<kLanes>())));
    if (mask == 0) return 0;
    return mask & ~ident_mask(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p - 1)));
  }
  // Lanes of `cur` equal to one of the start bytes: all sixteen compares, unused ones
  // repeating the first byte, written out (a loop over count_ costs more than they do).
  template <std::size_t... K>
  __m128i any_equal(__m128i cur, std::index_sequence<K...> /*lanes*/) const {
    __m128i r = _mm_setzero_si128();
    ((r = _mm_or_si128(r, _mm_cmpeq_epi8(cur, splat_[K]))), ...);
    return r;
  }
  template <typename Visit>
  static bool visit_bits(std::size_t at, unsigned mask, Visit& visit) {
    for (; mask != 0; mask &= mask - 1)
      if (visit(at + static_cast<std::size_t>(std::countr_zero(mask)))) return true;
    return false;
  }
  // One bit per byte of v that scan::is_ident accepts: [A-Za-z0-9_.$]. Signed byte
  // compares leave bytes >= 0x80 out, as is_ident does.
  static unsigned ident_mask(__m128i v) {
    const __m128i lower = _mm_or_si128(v, _mm_set1_epi8(0x20));
    const __m128i letter =
        _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)), _mm_cmplt_epi8(lower, _mm_set1_epi8('z' + 1)));
    const __m128i digit =
        _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
    const __m128i other =
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('_')),
                     _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('.')), _mm_cmpeq_epi8(v, _mm_set1_epi8('$'))));
    return static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(letter, digit), other)));
  }
  static constexpr std::size_t kLanes = 16;
  __m128i splat_[kLanes]{};  // each start byte, repeated in all 16 lanes
  std::size_t count_ = 0;
  bool vector_ = true;
#endif
  std::array<bool, 256> first_{};
  std::array<bool, 256> ident_{};
};

}  // namespace btaudit
