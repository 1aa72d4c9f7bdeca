// Splits a buffer into lines for the parser (log_parser.cpp): the line ends of 64 bytes at a
// time taken as one bit mask, SSE2 everywhere on x86-64 and AVX2 where the CPU has it.
#pragma once
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__SSE2__) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BTAUDIT_SPLIT_AVX2 1
#include <immintrin.h>
#endif

namespace btaudit {

namespace split_detail {

// Bit i set when b[i] ends a line ('\n' or '\r'), for n <= 64 bytes. Every terminator the
// kernel's consumers write is one line end: LF (dmesg, syslog), CRLF (serial consoles, Windows
// tools), CR alone (old Mac tools, terminals that lost their LFs) and a CR inside a line (a serial
// console's carriage return); the caller folds "\r\n" into one end.
// kWithCr: a log with no '\r' anywhere (most) is split on '\n' alone.
template <bool kWithCr>
inline std::uint64_t line_end_mask(const char* b, std::size_t n) {
  std::uint64_t mask = 0;
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i newline = _mm_set1_epi8('\n');
  const __m128i carriage = _mm_set1_epi8('\r');
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i));
    __m128i hit = _mm_cmpeq_epi8(v, newline);
    if constexpr (kWithCr) hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, carriage));
    mask |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(hit))) << i;
  }
#endif
  for (; i < n; ++i)
    if (b[i] == '\n' || (kWithCr && b[i] == '\r')) mask |= std::uint64_t{1} << i;
  return mask;
}

#if defined(BTAUDIT_SPLIT_AVX2)
// line_end_mask for a whole 64-byte block, with two AVX2 compares instead of four SSE2 ones (a
// sixth of the splitter's instructions): used when the CPU has AVX2 (for_each_line_avx2).
template <bool kWithCr>
__attribute__((target("avx2"))) inline std::uint64_t line_end_mask64_avx2(const char* b) {
  const __m256i newline = _mm256_set1_epi8('\n');
  const __m256i carriage = _mm256_set1_epi8('\r');
  const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
  const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 32));
  __m256i hit_lo = _mm256_cmpeq_epi8(lo, newline);
  __m256i hit_hi = _mm256_cmpeq_epi8(hi, newline);
  if constexpr (kWithCr) {
    hit_lo = _mm256_or_si256(hit_lo, _mm256_cmpeq_epi8(lo, carriage));
    hit_hi = _mm256_or_si256(hit_hi, _mm256_cmpeq_epi8(hi, carriage));
  }
  return static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(hit_lo))) |
         static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(hit_hi))) << 32;
}
#endif

// Feeds the lines that the line ends `nl` of the 64-byte block at `block` close; `line` is where
// the next line starts.
template <bool kWithCr, typename Sink>
[[gnu::always_inline]] inline void feed_ended(std::string_view log, Sink& sink, std::size_t block, std::uint64_t nl,
                                              std::size_t& line) {
  for (; nl != 0; nl &= nl - 1) {
    const std::size_t end = block + static_cast<std::size_t>(std::countr_zero(nl));
    if constexpr (kWithCr) {
      if (end < line) continue;  // the '\n' of a "\r\n" already taken
    }
    sink(log.substr(line, end - line));
    line = end + 1;
    if constexpr (kWithCr) {
      if (log[end] == '\r' && line < log.size() && log[line] == '\n') ++line;
    }
  }
}

}  // namespace split_detail

// Hands each line of `log` to `sink` (a callable taking std::string_view), without its end:
// every '\n' ends a line and, with kWithCr, every '\r' and "\r\n" too; text after the last end
// is a last line. Line ends are found 64 bytes at a time, as a bit mask, rather than by a memchr
// call per line: lines average some fifty bytes, less than such a call is worth.
// for_each_line picks the widest path the CPU has; the others are there for tests to compare.
template <bool kWithCr, typename Sink>
void for_each_line_sse2(std::string_view log, Sink&& sink) {
  std::size_t line = 0;
  for (std::size_t block = 0; block < log.size(); block += 64)
    split_detail::feed_ended<kWithCr>(
        log, sink, block,
        split_detail::line_end_mask<kWithCr>(log.data() + block, std::min<std::size_t>(64, log.size() - block)), line);
  if (line < log.size()) sink(log.substr(line));  // the last line, without its end
}

#if defined(BTAUDIT_SPLIT_AVX2)
// The same, whole blocks read with AVX2 (two compares per 64 bytes, not four): the CPU must have it.
template <bool kWithCr, typename Sink>
__attribute__((target("avx2"))) void for_each_line_avx2(std::string_view log, Sink&& sink) {
  std::size_t line = 0;
  std::size_t block = 0;
  for (; log.size() - block >= 64; block += 64)
    split_detail::feed_ended<kWithCr>(log, sink, block, split_detail::line_end_mask64_avx2<kWithCr>(log.data() + block),
                                      line);
  if (block < log.size())
    split_detail::feed_ended<kWithCr>(
        log, sink, block, split_detail::line_end_mask<kWithCr>(log.data() + block, log.size() - block), line);
  if (line < log.size()) sink(log.substr(line));
}
#endif

// Whether for_each_line takes the AVX2 path.
inline bool line_split_uses_avx2() {
#if defined(BTAUDIT_SPLIT_AVX2)
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

template <bool kWithCr, typename Sink>
void for_each_line(std::string_view log, Sink&& sink) {
#if defined(BTAUDIT_SPLIT_AVX2)
  if (line_split_uses_avx2()) {
    for_each_line_avx2<kWithCr>(log, sink);
    return;
  }
#endif
  for_each_line_sse2<kWithCr>(log, sink);
}

}  // namespace btaudit
