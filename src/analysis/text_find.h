// Substring search for the title rules' short words ("BUG:", "IP", "Call ", "at:"), which
// are looked for in every line a rule reads. std::string_view::find calls memchr for the
// word's first byte and then memcmp at every occurrence of that byte; in console text the
// first byte is often common ('a', 'p', ' ') while the word is rare, so here the second
// byte is compared inline and memcmp is called only where the first two bytes agree.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace btaudit {

// s.find(w, from), the same result for every input.
inline std::size_t find_text(std::string_view s, std::string_view w, std::size_t from = 0) {
  if (w.size() < 2) return s.find(w, from);
  if (from >= s.size() || s.size() - from < w.size()) return std::string_view::npos;
  const char* const base = s.data();
  const char* const last = base + (s.size() - w.size());  // the last place a match can start
  const char c0 = w[0];
  const char c1 = w[1];
  for (const char* p = base + from; p <= last; ++p) {
    p = static_cast<const char*>(std::memchr(p, c0, static_cast<std::size_t>(last - p) + 1));
    if (p == nullptr) return std::string_view::npos;
    if (p[1] == c1 && (w.size() == 2 || std::memcmp(p + 2, w.data() + 2, w.size() - 2) == 0))
      return static_cast<std::size_t>(p - base);
  }
  return std::string_view::npos;
}

inline bool holds_text(std::string_view s, std::string_view w) { return find_text(s, w) != std::string_view::npos; }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BTAUDIT_TEXT_FIND_AVX2 1
namespace text_find_detail {
// may_hold_pair for a line of 33 bytes or more, thirty-two positions at a time: the title rules
// ask it of register dumps and "Code:" lines of two hundred bytes and more. Only called when the
// CPU has AVX2 (a function of its own: the rest of the program is built for plain x86-64).
// Whether positions q[0..31] start one of the N pairs (first[k], second[k] broadcast).
template <std::size_t N>
__attribute__((target("avx2"))) inline bool pair_block_avx2(const char* q, const __m256i* first,
                                                            const __m256i* second) {
  const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 1));
  __m256i hit = _mm256_and_si256(_mm256_cmpeq_epi8(a, first[0]), _mm256_cmpeq_epi8(b, second[0]));
  for (std::size_t k = 1; k < N; ++k)
    hit = _mm256_or_si256(hit, _mm256_and_si256(_mm256_cmpeq_epi8(a, first[k]), _mm256_cmpeq_epi8(b, second[k])));
  return _mm256_movemask_epi8(hit) != 0;
}

template <std::size_t N>
__attribute__((target("avx2"))) bool may_hold_pair_avx2(const char* p, std::size_t n,
                                                        const std::array<std::array<char, 2>, N>& pairs) {
  __m256i first[N];
  __m256i second[N];
  for (std::size_t k = 0; k < N; ++k) {
    first[k] = _mm256_set1_epi8(pairs[k][0]);
    second[k] = _mm256_set1_epi8(pairs[k][1]);
  }
  std::size_t i = 0;
  for (; i + 33 <= n; i += 32)
    if (pair_block_avx2<N>(p + i, first, second)) return true;
  // The last window overlaps the one before it: positions n - 33 .. n - 2.
  return i + 1 < n && pair_block_avx2<N>(p + n - 33, first, second);
}
}  // namespace text_find_detail
#endif

// Whether two adjacent bytes of `s` are one of `pairs` (each two bytes, neither NUL): a
// necessary condition for holding a word that starts with one of them, tested for sixteen
// positions at once with SSE2 (every x86-64 has it; thirty-two with AVX2 on a long line), so
// that a rule looking for several rare words passes over a line that holds none after a few
// operations rather than a memchr call per word. Without SSE2 the answer is always true: the
// caller's searches decide.
template <std::size_t N>
bool may_hold_pair(std::string_view s, const std::array<std::array<char, 2>, N>& pairs) {
  static_assert(N > 0);
#if defined(__SSE2__)
  const std::size_t n = s.size();
  if (n < 2) return false;
#if defined(BTAUDIT_TEXT_FIND_AVX2)
  if (n >= 33 && __builtin_cpu_supports("avx2")) return text_find_detail::may_hold_pair_avx2(s.data(), n, pairs);
#endif
  // Positions i and i + 1 of a 17-byte window; a line shorter than that is copied into a
  // zeroed one (a NUL byte is in no pair).
  char pad[32] = {};
  const char* p = s.data();
  std::size_t end = n;
  if (n < 17) {
    std::memcpy(pad, p, n);
    p = pad;
    end = 17;
  }
  const auto block_hits = [&](std::size_t i) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 1));
    __m128i hit = _mm_setzero_si128();
    for (const auto& pr : pairs)
      hit = _mm_or_si128(
          hit, _mm_and_si128(_mm_cmpeq_epi8(a, _mm_set1_epi8(pr[0])), _mm_cmpeq_epi8(b, _mm_set1_epi8(pr[1]))));
    return _mm_movemask_epi8(hit) != 0;
  };
  std::size_t i = 0;
  for (; i + 17 <= end; i += 16)
    if (block_hits(i)) return true;
  // The last window overlaps the one before it: positions end - 17 .. end - 2.
  return i + 1 < end && block_hits(end - 17);
#else
  (void)s;
  (void)pairs;
  return true;
#endif
}

// The adjacent byte pairs of a line, hashed into 1024 bits: a line holds a word only if it
// holds each pair of adjacent bytes of the word, so a word with a pair the set lacks is not
// in the line. A title rule's line is asked for dozens of words (a family's formats and
// suppressions, most absent): built once, the set answers each with a few bit tests where a
// search would call memchr and compare at every occurrence of the word's first byte.
class PairSet {
 public:
  // The key of the pair at p[0], p[1] (the same for lines and words: one 16-bit load).
  static std::uint16_t key(const char* p) {
    std::uint16_t v = 0;
    std::memcpy(&v, p, 2);
    return static_cast<std::uint16_t>((std::uint32_t{v} * 0x9E3779B1u) >> 22);
  }
  // Up to four keys of a word's pairs, spread over it (first, last and two between): the
  // more of them a line lacks, the more words are told absent at once; four tests suffice.
  struct WordKeys {
    std::array<std::uint16_t, 4> keys{};
    std::uint8_t n = 0;  // 0 for a word of fewer than two bytes: every line may hold it
  };
  static WordKeys word_keys(std::string_view w) {
    WordKeys k;
    if (w.size() < 2) return k;
    const std::size_t last = w.size() - 2;  // the last pair's position
    const std::array<std::size_t, 4> at = {0, last / 3, (2 * last) / 3, last};
    for (const std::size_t i : at) {
      const std::uint16_t key_i = key(w.data() + i);
      bool seen = false;
      for (std::size_t j = 0; j < k.n; ++j) seen = seen || k.keys[j] == key_i;
      if (!seen) k.keys[k.n++] = key_i;
    }
    return k;
  }

  void assign(std::string_view s) {
    bits_.fill(0);
    for (std::size_t i = 0; i + 1 < s.size(); ++i) {
      const std::uint16_t k = key(s.data() + i);
      bits_[k >> 6] |= std::uint64_t{1} << (k & 63);
    }
  }
  // False when the line assigned cannot hold a word with keys `w` (true says nothing).
  bool may_hold(const WordKeys& w) const {
    for (std::size_t j = 0; j < w.n; ++j)
      if (((bits_[w.keys[j] >> 6] >> (w.keys[j] & 63)) & 1) == 0) return false;
    return true;
  }

 private:
  std::array<std::uint64_t, 16> bits_{};
};

}  // namespace btaudit
