// One pass over a cleaned console line for everything the parser looks for inside it:
// the phrases the report text filter asks about (log_parser.cpp), the places where an
// embedded report-start word may begin (report_markers.cpp), and an unwinder's " ? " mark.
// Each of those used to scan the whole line on its own, so a line inside a report was
// read three times after the cleaner; now its bytes are read once, 32 (or 16) positions
// a block, and only the rare candidate positions are looked at one by one.
//
// A position i is a candidate when its byte may start a word and the next byte may be a
// word's second, or the same for a phrase: one nibble-table lookup (SSSE3's byte shuffle)
// of the block's bytes and one of the next bytes answer both, each list having its own
// bits in the tables. A word candidate must also follow a byte that does not continue an
// identifier (one more lookup, only when a block has one). The exact pair and the
// phrase's bytes are then checked at the candidate alone.
#pragma once
#include <array>
#include <bit>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#if defined(__SSE2__) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BTAUDIT_LINE_SCAN_SIMD 1
#include <immintrin.h>
#endif

#include "text/scan.h"

namespace btaudit {

// What one pass over a line found.
struct LineScan {
  static constexpr std::size_t kMaxWords = 4;
  std::uint32_t phrases = 0;  // bit k: the scanner's phrase k occurs in the line
  // The line holds " ? ", or opens with "? ": a frame its unwinder did not vouch for.
  bool unreliable_mark = false;
  // The first positions i >= 1 where a word's first two bytes stand and line[i-1] does not
  // continue an identifier (scan::is_ident), in increasing order.
  std::array<std::size_t, kMaxWords> words{};
  std::size_t word_count = 0;
  bool more_words = false;  // there are more such positions after words.back(): search on from there
};

class LineScanner {
 public:
  // `words`: looked for at word starts; `phrases`: anywhere (at most 32). Both of two bytes or more.
  LineScanner(std::span<const std::string_view> words, std::span<const std::string_view> phrases)
      : phrases_(phrases.begin(), phrases.end()) {
    if (phrases_.size() > 32) phrases_.resize(32);
    ByteSet word_first{};
    ByteSet word_second{};
    ByteSet phrase_first{};
    ByteSet phrase_second{};
    for (const std::string_view w : words) {
      if (w.size() < 2) continue;
      word_pairs_.set(pair_index(w[0], w[1]));
      word_first[static_cast<unsigned char>(w[0])] = word_second[static_cast<unsigned char>(w[1])] = true;
    }
    for (const std::string_view p : phrases_) {
      if (p.size() < 2) continue;
      phrase_pairs_.set(pair_index(p[0], p[1]));
      phrase_first[static_cast<unsigned char>(p[0])] = phrase_second[static_cast<unsigned char>(p[1])] = true;
    }
    for (int c = 0; c < 256; ++c) ident_[static_cast<std::size_t>(c)] = scan::is_ident(static_cast<char>(c));
#if defined(BTAUDIT_LINE_SCAN_SIMD)
    ssse3_ = __builtin_cpu_supports("ssse3") && nibble_tables({&word_first, &phrase_first}, first_) &&
             nibble_tables({&word_second, &phrase_second}, second_) && nibble_tables({&ident_}, ident_tables_);
    avx2_ = ssse3_ && __builtin_cpu_supports("avx2");
#endif
  }

  LineScan scan(std::string_view s) const {
    LineScan out;
    const std::size_t n = s.size();
    if (n < 2) return out;
    const auto* b = reinterpret_cast<const unsigned char*>(s.data());
    scan_start(b, s, out);
#if defined(BTAUDIT_LINE_SCAN_SIMD)
    if (avx2_ && n >= 34) {
      scan_avx2(b, n, out);
      return out;
    }
    if (ssse3_ && n >= 18) {
      scan_ssse3(b, n, out);
      return out;
    }
#endif
    for (std::size_t i = 1; i + 1 < n; ++i) {
      if (b[i] == '?' && b[i - 1] == ' ' && b[i + 1] == ' ') out.unreliable_mark = true;
      visit(b, i, n, out);
    }
    return out;
  }

  // scan(s) for a line whose buffer goes on after it: the bytes s.data() .. readable_end - 1 may
  // be read. A short line (most are) is then read as one block that runs past its end, the
  // positions past it masked off, instead of a block and an overlapping one (or byte by byte).
  LineScan scan(std::string_view s, const char* readable_end) const {
#if defined(BTAUDIT_LINE_SCAN_SIMD)
    const std::size_t n = s.size();
    if (n < 3 || n > 34) return scan(s);
    const auto readable = static_cast<std::size_t>(readable_end - s.data());
    if (n <= 34 && readable >= 34 && avx2_) {
      LineScan out;
      const auto* b = reinterpret_cast<const unsigned char*>(s.data());
      scan_start(b, s, out);
      // Positions 1 .. n - 2: bits 0 .. n - 3 of the block at 1, which reads b[0 .. 33].
      block_avx2(b, n, 1, ~std::uint32_t{0} >> (34 - n), out);
      return out;
    }
    if (n <= 18 && readable >= 18 && ssse3_) {
      LineScan out;
      const auto* b = reinterpret_cast<const unsigned char*>(s.data());
      scan_start(b, s, out);
      block_ssse3(b, n, 1, 0xffffU >> (18 - n), out);
      return out;
    }
#else
    (void)readable_end;
#endif
    return scan(s);
  }

  // Which paths are in use, and ways to keep to the narrower ones (tests compare them all).
  bool uses_avx2() const { return avx2_; }
  bool uses_ssse3() const { return ssse3_; }
  void disable_avx2() { avx2_ = false; }
  void disable_ssse3() { avx2_ = ssse3_ = false; }

 private:
  using ByteSet = std::array<bool, 256>;

  static std::size_t pair_index(unsigned char a, unsigned char b) { return std::size_t{a} << 8 | b; }
  static std::size_t pair_index(char a, char b) {
    return pair_index(static_cast<unsigned char>(a), static_cast<unsigned char>(b));
  }

  // Position 0 (of a line of two bytes or more) has no byte before it: phrases and the mark may
  // stand there, words may not.
  void scan_start(const unsigned char* b, std::string_view s, LineScan& out) const {
    if (phrase_pairs_[pair_index(b[0], b[1])]) out.phrases |= phrases_at(s, 0);
    if (b[0] == '?' && b[1] == ' ') out.unreliable_mark = true;
  }

  // The phrases that start at position i of s.
  std::uint32_t phrases_at(std::string_view s, std::size_t i) const {
    std::uint32_t found = 0;
    for (std::size_t k = 0; k < phrases_.size(); ++k) {
      const std::string_view p = phrases_[k];
      if (s.size() - i >= p.size() && std::memcmp(s.data() + i, p.data(), p.size()) == 0)
        found |= std::uint32_t{1} << k;
    }
    return found;
  }

  void add_word(std::size_t i, LineScan& out) const {
    if (out.word_count < LineScan::kMaxWords)
      out.words[out.word_count++] = i;
    else
      out.more_words = true;
  }

  // Position i (1 <= i, i + 1 < n), byte by byte.
  void visit(const unsigned char* b, std::size_t i, std::size_t n, LineScan& out) const {
    const std::size_t pair = pair_index(b[i], b[i + 1]);
    if (word_pairs_[pair] && !ident_[b[i - 1]]) add_word(i, out);
    if (phrase_pairs_[pair]) out.phrases |= phrases_at(std::string_view(reinterpret_cast<const char*>(b), n), i);
  }

  // The positions of one block, `at` .. `at` + width - 1, that the masks select: `words` (at a
  // word boundary already), `phrases`, and `marks` ('?').
  void visit_block(const unsigned char* b, std::size_t n, std::size_t at, std::uint32_t words, std::uint32_t phrases,
                   std::uint32_t marks, LineScan& out) const {
    for (; words != 0; words &= words - 1) {
      const std::size_t i = at + static_cast<std::size_t>(std::countr_zero(words));
      if (word_pairs_[pair_index(b[i], b[i + 1])]) add_word(i, out);
    }
    for (; phrases != 0; phrases &= phrases - 1) {
      const std::size_t i = at + static_cast<std::size_t>(std::countr_zero(phrases));
      if (phrase_pairs_[pair_index(b[i], b[i + 1])])
        out.phrases |= phrases_at(std::string_view(reinterpret_cast<const char*>(b), n), i);
    }
    for (; marks != 0 && !out.unreliable_mark; marks &= marks - 1) {
      const std::size_t i = at + static_cast<std::size_t>(std::countr_zero(marks));
      if (b[i - 1] == ' ' && b[i + 1] == ' ') out.unreliable_mark = true;
    }
  }

#if defined(BTAUDIT_LINE_SCAN_SIMD)
  // Nibble tables for one or two byte sets (as word_starts.h, a set's bits apart from the
  // other's): each high nibble present in a set gets one of the set's bits (eight for one set,
  // four each for two); lo[l] holds the bits of the high nibbles h for which byte h:l is in the
  // set and hi[h] the bits of h, so lo[l] & hi[h] has a bit of a set exactly when byte h:l is in
  // it. Both 16-byte halves are the same (AVX2 looks up in each lane). False when a set spans
  // more high nibbles than it has bits: the plain loop is used then.
  struct alignas(32) NibbleTables {
    std::array<unsigned char, 32> lo{};
    std::array<unsigned char, 32> hi{};
  };
  static bool nibble_tables(std::initializer_list<const ByteSet*> sets, NibbleTables& t) {
    const unsigned width = 8 / static_cast<unsigned>(sets.size());
    unsigned base = 0;
    for (const ByteSet* set : sets) {
      unsigned next_bit = base;
      for (unsigned h = 0; h < 16; ++h) {
        bool any = false;
        for (unsigned l = 0; l < 16; ++l) any = any || (*set)[h * 16 + l];
        if (!any) continue;
        if (next_bit == base + width) return false;
        const auto bit = static_cast<unsigned char>(1U << next_bit++);
        t.hi[h] = t.hi[h + 16] = static_cast<unsigned char>(t.hi[h] | bit);
        for (unsigned l = 0; l < 16; ++l)
          if ((*set)[h * 16 + l]) t.lo[l] = t.lo[l + 16] = static_cast<unsigned char>(t.lo[l] | bit);
      }
      base += width;
    }
    return true;
  }
  // The bits of the sets each of the bytes at p is in, 16 (SSSE3) or 32 (AVX2) at once.
  __attribute__((target("ssse3"))) static __m128i lookup_ssse3(const unsigned char* p, const NibbleTables& t) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i nibble = _mm_set1_epi8(0x0f);
    const __m128i l =
        _mm_shuffle_epi8(_mm_load_si128(reinterpret_cast<const __m128i*>(t.lo.data())), _mm_and_si128(v, nibble));
    const __m128i h = _mm_shuffle_epi8(_mm_load_si128(reinterpret_cast<const __m128i*>(t.hi.data())),
                                       _mm_and_si128(_mm_srli_epi16(v, 4), nibble));
    return _mm_and_si128(l, h);
  }
  // One bit per byte of v that has one of the bits of `bits`.
  __attribute__((target("ssse3"))) static std::uint32_t any_ssse3(__m128i v, char bits) {
    const __m128i none = _mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8(bits)), _mm_setzero_si128());
    return ~static_cast<std::uint32_t>(_mm_movemask_epi8(none)) & 0xffffU;
  }
  // One block of 16 positions at `at`: reads b[at - 1 .. at + 16]; `keep` selects its positions.
  __attribute__((target("ssse3"))) void block_ssse3(const unsigned char* b, std::size_t n, std::size_t at,
                                                    std::uint32_t keep, LineScan& out) const {
    const __m128i first = lookup_ssse3(b + at, first_);
    const __m128i second = lookup_ssse3(b + at + 1, second_);
    std::uint32_t words = any_ssse3(first, kWordBits) & any_ssse3(second, kWordBits) & keep;
    if (words != 0) words &= ~any_ssse3(lookup_ssse3(b + at - 1, ident_tables_), kAllBits);
    const std::uint32_t phrases = any_ssse3(first, kPhraseBits) & any_ssse3(second, kPhraseBits) & keep;
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + at));
    const auto marks = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('?')))) & keep;
    if ((words | phrases | marks) != 0) visit_block(b, n, at, words, phrases, marks, out);
  }
  // Positions 1 .. n - 2 in blocks of 16; the last block overlaps the one before it, its
  // positions already seen masked off (so that candidates are visited once, in order).
  __attribute__((target("ssse3"))) void scan_ssse3(const unsigned char* b, std::size_t n, LineScan& out) const {
    std::size_t at = 1;
    for (; at + 17 <= n; at += 16) block_ssse3(b, n, at, 0xffffU, out);
    if (at + 1 < n) {
      const std::size_t last = n - 17;
      block_ssse3(b, n, last, (0xffffU << (at - last)) & 0xffffU, out);
    }
  }

  // The same with AVX2: 32 positions a block.
  __attribute__((target("avx2"))) static __m256i lookup_avx2(const unsigned char* p, const NibbleTables& t) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i nibble = _mm256_set1_epi8(0x0f);
    const __m256i l = _mm256_shuffle_epi8(_mm256_load_si256(reinterpret_cast<const __m256i*>(t.lo.data())),
                                          _mm256_and_si256(v, nibble));
    const __m256i h = _mm256_shuffle_epi8(_mm256_load_si256(reinterpret_cast<const __m256i*>(t.hi.data())),
                                          _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
    return _mm256_and_si256(l, h);
  }
  __attribute__((target("avx2"))) static std::uint32_t any_avx2(__m256i v, char bits) {
    const __m256i none = _mm256_cmpeq_epi8(_mm256_and_si256(v, _mm256_set1_epi8(bits)), _mm256_setzero_si256());
    return ~static_cast<std::uint32_t>(_mm256_movemask_epi8(none));
  }
  __attribute__((target("avx2"))) void block_avx2(const unsigned char* b, std::size_t n, std::size_t at,
                                                  std::uint32_t keep, LineScan& out) const {
    const __m256i first = lookup_avx2(b + at, first_);
    const __m256i second = lookup_avx2(b + at + 1, second_);
    std::uint32_t words = any_avx2(first, kWordBits) & any_avx2(second, kWordBits) & keep;
    if (words != 0) words &= ~any_avx2(lookup_avx2(b + at - 1, ident_tables_), kAllBits);
    const std::uint32_t phrases = any_avx2(first, kPhraseBits) & any_avx2(second, kPhraseBits) & keep;
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + at));
    const auto marks =
        static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('?')))) & keep;
    if ((words | phrases | marks) != 0) visit_block(b, n, at, words, phrases, marks, out);
  }
  __attribute__((target("avx2"))) void scan_avx2(const unsigned char* b, std::size_t n, LineScan& out) const {
    std::size_t at = 1;
    for (; at + 33 <= n; at += 32) block_avx2(b, n, at, ~std::uint32_t{0}, out);
    if (at + 1 < n) {
      const std::size_t last = n - 33;
      block_avx2(b, n, last, ~std::uint32_t{0} << (at - last), out);
    }
  }

  // The bits of the word and phrase sets in first_ and second_, and of the one set in ident_tables_.
  static constexpr char kWordBits = 0x0f;
  static constexpr char kPhraseBits = static_cast<char>(0xf0);
  static constexpr char kAllBits = static_cast<char>(0xff);
  NibbleTables first_;   // the words' first bytes, the phrases' first bytes
  NibbleTables second_;  // their second bytes
  NibbleTables ident_tables_;
#endif
  std::vector<std::string_view> phrases_;
  std::bitset<65536> word_pairs_;    // the first two bytes of a word, by pair_index
  std::bitset<65536> phrase_pairs_;  // the same for the phrases
  ByteSet ident_{};
  bool ssse3_ = false;
  bool avx2_ = false;
};

}  // namespace btaudit
