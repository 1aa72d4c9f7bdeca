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
// SSSE3's byte shuffle tests a byte against a whole set in a few operations (two
// 16-entry tables indexed by the byte's nibbles); it is not in the x86-64 baseline, so
// it is used when the CPU has it (checked once) and SSE2 compares are used otherwise.
#if defined(__SSE2__) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BTAUDIT_WORD_STARTS_SSSE3 1
#include <immintrin.h>
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
#if defined(BTAUDIT_WORD_STARTS_SSSE3)
    ssse3_ = __builtin_cpu_supports("ssse3") && nibble_tables(first_, start_lo_, start_hi_) &&
             nibble_tables(ident_, ident_lo_, ident_hi_);
    avx2_ = ssse3_ && __builtin_cpu_supports("avx2");  // the same tables, 32 bytes at a time
#endif
  }

  // Whether the SSSE3 path is in use (tests compare it with the others).
  bool uses_ssse3() const {
#if defined(BTAUDIT_WORD_STARTS_SSSE3)
    return ssse3_;
#else
    return false;
#endif
  }
  bool uses_avx2() const {
#if defined(BTAUDIT_WORD_STARTS_SSSE3)
    return avx2_;
#else
    return false;
#endif
  }
  // Keep to the SSSE3 path, or to the SSE2 (or byte-by-byte) one, for tests.
  void disable_avx2() {
#if defined(BTAUDIT_WORD_STARTS_SSSE3)
    avx2_ = false;
#endif
  }
  void disable_ssse3() {
#if defined(BTAUDIT_WORD_STARTS_SSSE3)
    avx2_ = false;
    ssse3_ = false;
#endif
  }

  // Calls visit(i) for each candidate position i in [1, end), in increasing order, until
  // it returns true; returns whether one did. `end` must not exceed s.size().
  template <typename Visit>
  bool find(std::string_view s, std::size_t end, Visit&& visit) const {
    const auto* b = reinterpret_cast<const unsigned char*>(s.data());
    std::size_t i = 1;
#if defined(BTAUDIT_WORD_STARTS_SSSE3)
    if (avx2_ && end >= 33) return find_avx2(b, end, visit);
    if (ssse3_ && end >= 17) return find_ssse3(b, end, visit);
#endif
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
#if defined(BTAUDIT_WORD_STARTS_SSSE3)
  // Nibble tables for a byte set: each high nibble present in the set gets a bit; lo[l]
  // holds the bits of the high nibbles h for which byte h:l is in the set and hi[h] the
  // bit of h, so a byte is in the set exactly when lo[l] & hi[h] is not zero. False (no
  // tables) when the set spans more than eight high nibbles.
  static bool nibble_tables(const std::array<bool, 256>& set, __m128i& lo, __m128i& hi) {
    alignas(16) std::array<unsigned char, 16> lo_bytes{};
    alignas(16) std::array<unsigned char, 16> hi_bytes{};
    unsigned next_bit = 0;
    for (unsigned h = 0; h < 16; ++h) {
      bool any = false;
      for (unsigned l = 0; l < 16; ++l) any = any || set[h * 16 + l];
      if (!any) continue;
      if (next_bit == 8) return false;
      const auto bit = static_cast<unsigned char>(1U << next_bit++);
      hi_bytes[h] = bit;
      for (unsigned l = 0; l < 16; ++l)
        if (set[h * 16 + l]) lo_bytes[l] = static_cast<unsigned char>(lo_bytes[l] | bit);
    }
    lo = _mm_load_si128(reinterpret_cast<const __m128i*>(lo_bytes.data()));
    hi = _mm_load_si128(reinterpret_cast<const __m128i*>(hi_bytes.data()));
    return true;
  }
  // One bit per byte of v that is in the set of the tables.
  __attribute__((target("ssse3"))) static unsigned in_set_ssse3(__m128i v, __m128i lo, __m128i hi) {
    const __m128i nibble = _mm_set1_epi8(0x0f);
    const __m128i l = _mm_shuffle_epi8(lo, _mm_and_si128(v, nibble));
    const __m128i h = _mm_shuffle_epi8(hi, _mm_and_si128(_mm_srli_epi16(v, 4), nibble));
    const __m128i none = _mm_cmpeq_epi8(_mm_and_si128(l, h), _mm_setzero_si128());
    return ~static_cast<unsigned>(_mm_movemask_epi8(none)) & 0xffffU;
  }
  // find()'s block loop compiled for SSSE3, so that candidates_ssse3 is inlined into it
  // (a call per block cost as much as the test).
  template <typename Visit>
  __attribute__((target("ssse3"))) bool find_ssse3(const unsigned char* b, std::size_t end, Visit& visit) const {
    std::size_t i = 1;
    for (; i + 16 <= end; i += 16)
      if (visit_bits(i, candidates_ssse3(b + i), visit)) return true;
    if (i == end) return false;
    const std::size_t last = end - 16;  // the rest: one block overlapping the previous, seen positions masked off
    return visit_bits(last, candidates_ssse3(b + last) & (~0U << (i - last)), visit);
  }
  __attribute__((target("ssse3"))) unsigned candidates_ssse3(const unsigned char* p) const {
    const unsigned in_set = in_set_ssse3(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), start_lo_, start_hi_);
    if (in_set == 0) return 0;
    return in_set & ~in_set_ssse3(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p - 1)), ident_lo_, ident_hi_);
  }
  // The same with AVX2: 32 positions a block, the tables in both 128-bit lanes.
  template <typename Visit>
  __attribute__((target("avx2"))) bool find_avx2(const unsigned char* b, std::size_t end, Visit& visit) const {
    std::size_t i = 1;
    for (; i + 32 <= end; i += 32)
      if (visit_bits(i, candidates_avx2(b + i), visit)) return true;
    if (i == end) return false;
    const std::size_t last = end - 32;  // the rest: one block overlapping the previous, seen positions masked off
    return visit_bits(last, candidates_avx2(b + last) & (~0U << (i - last)), visit);
  }
  // One bit per byte of the 32 at p that is in the set of the tables.
  __attribute__((target("avx2"))) static unsigned in_set_avx2(const unsigned char* p, const __m128i& lo,
                                                              const __m128i& hi) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i nibble = _mm256_set1_epi8(0x0f);
    const __m256i l = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(lo), _mm256_and_si256(v, nibble));
    const __m256i h =
        _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(hi), _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
    const __m256i none = _mm256_cmpeq_epi8(_mm256_and_si256(l, h), _mm256_setzero_si256());
    return ~static_cast<unsigned>(_mm256_movemask_epi8(none));
  }
  __attribute__((target("avx2"))) unsigned candidates_avx2(const unsigned char* p) const {
    const unsigned in_set = in_set_avx2(p, start_lo_, start_hi_);
    if (in_set == 0) return 0;
    return in_set & ~in_set_avx2(p - 1, ident_lo_, ident_hi_);
  }
  __m128i start_lo_{}, start_hi_{}, ident_lo_{}, ident_hi_{};
  bool ssse3_ = false;
  bool avx2_ = false;
#endif
  static constexpr std::size_t kLanes = 16;
  __m128i splat_[kLanes]{};  // each start byte, repeated in all 16 lanes
  std::size_t count_ = 0;
  bool vector_ = true;
#endif
  std::array<bool, 256> first_{};
  std::array<bool, 256> ident_{};
};

}  // namespace btaudit
