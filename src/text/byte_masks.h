// Bit masks of the byte classes of a short piece of a line, sixteen bytes at a time, for the
// fast reading of symbolized frame lines (trace_line.cpp): one pass of compares over a word
// answers what a search for ' ', two backward searches for ':' and a search for '.' and '/'
// answered one byte at a time. Bit i stands for byte i of the piece.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "text/scan.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace btaudit::byte_masks {

// The classes a source word ("net/core/dev.c:123") is told by.
struct WordMasks {
  std::uint64_t space = 0;     // ' '
  std::uint64_t colon = 0;     // ':'
  std::uint64_t dotslash = 0;  // '.' or '/'
  std::uint64_t digit = 0;     // '0'-'9'
};

#if defined(__SSE2__)
inline constexpr bool kAvailable = true;

// Bytes in [lo, hi]: a signed compare tests the range once the bytes are shifted so that lo is -128.
inline __m128i in_range(__m128i v, int lo, int hi) {
  const __m128i shifted = _mm_add_epi8(v, _mm_set1_epi8(static_cast<char>(0x80 - lo)));
  return _mm_cmplt_epi8(shifted, _mm_set1_epi8(static_cast<char>(-128 + (hi - lo) + 1)));
}
inline unsigned bits(__m128i m) { return static_cast<unsigned>(_mm_movemask_epi8(m)); }

// The sixteen bytes of `line` from `at` on, as many as there are, and how many there are
// (at most 16). Reads only bytes of `line`: a block that would pass its end is read as the
// line's last sixteen bytes and the caller shifts its masks down by `shift`; a line
// shorter than sixteen bytes is copied first.
struct Block {
  __m128i v;
  unsigned count;  // bytes of the line in the block
  unsigned shift;  // what to shift each mask right by
};
inline Block load(std::string_view line, std::size_t at) {
  const std::size_t left = line.size() - at;
  if (left >= 16) return {_mm_loadu_si128(reinterpret_cast<const __m128i*>(line.data() + at)), 16, 0};
  if (line.size() >= 16) {
    const auto v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(line.data() + line.size() - 16));
    return {v, static_cast<unsigned>(left), static_cast<unsigned>(16 - left)};
  }
  char buffer[16] = {};
  std::memcpy(buffer, line.data() + at, left);
  return {_mm_loadu_si128(reinterpret_cast<const __m128i*>(buffer)), static_cast<unsigned>(left), 0};
}

// Where the run of identifier bytes ([A-Za-z0-9_.$], scan::is_ident) that starts at `at` ends.
inline std::size_t ident_end(std::string_view line, std::size_t at) {
  while (at < line.size()) {
    const Block b = load(line, at);
    const __m128i v = b.v;
    const __m128i alpha = in_range(_mm_or_si128(v, _mm_set1_epi8(0x20)), 'a', 'z');
    const __m128i digit = in_range(v, '0', '9');
    const __m128i other =
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('_')),
                     _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('.')), _mm_cmpeq_epi8(v, _mm_set1_epi8('$'))));
    const unsigned ident = (bits(_mm_or_si128(_mm_or_si128(alpha, digit), other)) >> b.shift);
    const unsigned stop = ~ident & ((1U << b.count) - 1U);
    if (stop != 0) return at + static_cast<unsigned>(__builtin_ctz(stop));
    at += b.count;
  }
  return line.size();
}

// The masks of the bytes of `line` from `at` on, sixteen bytes at a time until a block holds a
// space at or after bit `from` (the end of the word that starts there), the line ends, or 64
// bytes are read; returns how many bytes the masks cover.
inline std::size_t word_masks(std::string_view line, std::size_t at, std::size_t from, WordMasks& m) {
  const std::size_t n = std::min<std::size_t>(line.size() - at, 64);
  m = {};
  std::size_t i = 0;
  while (i < n) {
    const Block b = load(line, at + i);
    const __m128i v = b.v;
    const auto put = [&](std::uint64_t& mask, __m128i hit) { mask |= std::uint64_t{bits(hit) >> b.shift} << i; };
    put(m.space, _mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
    put(m.colon, _mm_cmpeq_epi8(v, _mm_set1_epi8(':')));
    put(m.dotslash, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('.')), _mm_cmpeq_epi8(v, _mm_set1_epi8('/'))));
    put(m.digit, in_range(v, '0', '9'));
    i += b.count;
    if (i > from && (m.space >> from) != 0) break;
  }
  return i;
}
#else
// Without SSE2 the one-pass reading is not used (kAvailable); these keep its code compiling.
inline constexpr bool kAvailable = false;
inline std::size_t ident_end(std::string_view line, std::size_t at) {
  while (at < line.size() && scan::is_ident(line[at])) ++at;
  return at;
}
inline std::size_t word_masks(std::string_view /*line*/, std::size_t /*at*/, std::size_t /*from*/, WordMasks& m) {
  m = {};
  return 0;
}
#endif

// Bits [from, to) set (from <= to <= 64).
constexpr std::uint64_t span(std::size_t from, std::size_t to) {
  const std::uint64_t below_to = to >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << to) - 1;
  const std::uint64_t below_from = from >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << from) - 1;
  return below_to & ~below_from;
}

}  // namespace btaudit::byte_masks
