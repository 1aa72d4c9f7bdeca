// Substring search for the title rules' short words ("BUG:", "IP", "Call ", "at:"), which
// are looked for in every line a rule reads. std::string_view::find calls memchr for the
// word's first byte and then memcmp at every occurrence of that byte; in console text the
// first byte is often common ('a', 'p', ' ') while the word is rare, so here the second
// byte is compared inline and memcmp is called only where the first two bytes agree.
#pragma once
#include <array>
#include <cstddef>
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

}  // namespace btaudit
