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
#include <span>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
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

// Whether two adjacent bytes of `s` are one of `pairs` (each two bytes, neither NUL): a
// necessary condition for holding a word that starts with one of them, tested for sixteen
// positions at once with SSE2 (every x86-64 has it), so that a rule looking for several rare
// words passes over a line that holds none after a few operations rather than a memchr call
// per word. Without SSE2 the answer is always true: the caller's searches decide.
inline bool may_hold_pair(std::string_view s, std::span<const std::array<char, 2>> pairs) {
#if defined(__SSE2__)
  const std::size_t n = s.size();
  if (n < 2) return false;
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
