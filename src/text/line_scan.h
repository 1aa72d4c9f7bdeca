// One pass over a cleaned console line for everything the parser looks for inside it:
// the phrases the report text filter asks about (log_parser.cpp), the places where an
// embedded report-start word may begin (report_markers.cpp), and an unwinder's " ? " mark.
// Each of those used to scan the whole line on its own, so a line inside a report was
// read three times after the cleaner; now its bytes are read once, 32 (or 16) positions
// a block, and only the rare candidate positions are looked at one by one.
//
// A position i is a candidate when its byte and the next may be the first two bytes of a
// word, of a phrase or of the mark ("? "): the pairs are sorted into eight buckets by their
// first byte, and one nibble-table lookup (SSSE3's byte shuffle) of the block's bytes gives
// each byte the buckets it may open, one of the next bytes the buckets whose pairs it may
// close; a position whose two answers share a bucket is a candidate (as Teddy, Hyperscan's
// literal matcher, does). The exact pair, the byte before a word, the word's head (its first
// four bytes) and the phrase's bytes are then checked at the candidate alone. (The tables tell
// a pair's buckets, not only "a first byte of some word" and "a second byte of some word":
// fewer candidates, fewer operations.)
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
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
  // The first positions i >= 1 where a word's head stands (its first four bytes, or the whole of
  // a shorter word, inside the line) and line[i-1] does not continue an identifier
  // (scan::is_ident), in increasing order. (Four bytes, not the two the candidate tables look
  // at: " in ", " st", " ge" open no word, and a line holding only those needs no search.)
  std::array<std::size_t, kMaxWords> words{};
  std::size_t word_count = 0;
  bool more_words = false;  // there are more such positions after words.back(): search on from there
  // A '[' at a position i >= 1 (i + 1 < size) that opens the shape of a timestamp within the line:
  // blanks (spaces, tabs), digits, '.', digits, ']'. Every timestamp the cleaner finds behind other
  // text has it (line_cleaner.cpp, has_stamp_behind), and few other brackets do ("[ cut here ]",
  // "[00000000]" do not). Looked for only by a scanner made with stamp_opens.
  bool stamp_open = false;
};

class LineScanner {
 public:
  // `words`: looked for at word starts; `phrases`: anywhere (at most 32). Both of two bytes or more.
  // `stamp_opens`: LineScan::stamp_open is looked for too.
  LineScanner(std::span<const std::string_view> words, std::span<const std::string_view> phrases,
              bool stamp_opens = false)
      : phrases_(phrases.begin(), phrases.end()) {
    if (stamp_opens)
      for (const char c : kStampSeconds) pair_kinds_[pair_index('[', c)] |= kStampPair;
    if (phrases_.size() > 32) phrases_.resize(32);
    for (const std::string_view w : words)
      if (w.size() >= 2) pair_kinds_[pair_index(w[0], w[1])] |= kWordPair;
    word_heads(words);
    for (const std::string_view p : phrases_)
      if (p.size() >= 2) pair_kinds_[pair_index(p[0], p[1])] |= kPhrasePair;
    pair_kinds_[pair_index('?', ' ')] |= kMarkPair;
    for (int c = 0; c < 256; ++c) ident_[static_cast<std::size_t>(c)] = scan::is_ident(static_cast<char>(c));
#if defined(BTAUDIT_LINE_SCAN_SIMD)
    pair_tables(words, stamp_opens);
    ssse3_ = __builtin_cpu_supports("ssse3");
    avx2_ = ssse3_ && __builtin_cpu_supports("avx2");
#endif
  }

  [[gnu::always_inline]] LineScan scan(std::string_view s) const {
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
  [[gnu::always_inline]] LineScan scan(std::string_view s, const char* readable_end) const {
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
  static std::size_t pair_index(unsigned char a, unsigned char b) { return std::size_t{a} << 8 | b; }
  static std::size_t pair_index(char a, char b) {
    return pair_index(static_cast<unsigned char>(a), static_cast<unsigned char>(b));
  }

  // Position 0 (of a line of two bytes or more) has no byte before it: phrases and the mark may
  // stand there, words may not.
  [[gnu::always_inline]] void scan_start(const unsigned char* b, std::string_view s, LineScan& out) const {
    if (pair_kinds_[pair_index(b[0], b[1])] & kPhrasePair) out.phrases |= phrases_at(s, 0);
    if (b[0] == '?' && b[1] == ' ') out.unreliable_mark = true;
  }

  // The phrases that start at position i of s. (Out of line: few positions get here, and the
  // candidate loop keeps fewer registers without it.)
  [[gnu::noinline]] std::uint32_t phrases_at(std::string_view s, std::size_t i) const {
    std::uint32_t found = 0;
    for (std::size_t k = 0; k < phrases_.size(); ++k) {
      const std::string_view p = phrases_[k];
      if (s.size() - i >= p.size() && std::memcmp(s.data() + i, p.data(), p.size()) == 0)
        found |= std::uint32_t{1} << k;
    }
    return found;
  }

  // A word's head (LineScan::words): its first `size` bytes (four, or all of a shorter word), byte
  // j in bits 8j of `bytes`.
  struct WordHead {
    std::uint32_t bytes = 0;
    std::uint32_t mask = 0;
    std::size_t size = 0;
  };
  void word_heads(std::span<const std::string_view> words) {
    std::vector<WordHead> heads;
    for (const std::string_view w : words) {
      if (w.size() < 2) continue;
      WordHead h;
      h.size = std::min<std::size_t>(w.size(), 4);
      for (std::size_t j = 0; j < h.size; ++j) {
        h.bytes |= std::uint32_t{static_cast<unsigned char>(w[j])} << (8 * j);
        h.mask |= std::uint32_t{0xff} << (8 * j);
      }
      const bool known = std::any_of(heads.begin(), heads.end(),
                                     [&h](const WordHead& o) { return o.bytes == h.bytes && o.mask == h.mask; });
      if (!known) heads.push_back(h);
    }
    // By first byte: the heads of byte c are heads_[head_from_[c] .. head_from_[c + 1]).
    std::stable_sort(heads.begin(), heads.end(),
                     [](const WordHead& a, const WordHead& b) { return (a.bytes & 0xff) < (b.bytes & 0xff); });
    heads_ = std::move(heads);
    std::size_t k = 0;
    for (std::size_t c = 0; c <= 256; ++c) {
      while (k < heads_.size() && (heads_[k].bytes & 0xff) < c) ++k;
      head_from_[c] = static_cast<std::uint32_t>(k);
    }
  }

  // Whether a word's head stands at b[i] (i + 1 < n: its first two bytes are in the line).
  [[gnu::always_inline]] bool head_at(const unsigned char* b, std::size_t i, std::size_t n) const {
    if (n - i < 4 || std::endian::native != std::endian::little) return head_near_end(b, i, n);
    std::uint32_t v = 0;
    std::memcpy(&v, b + i, 4);
    const WordHead* h = heads_.data() + head_from_[b[i]];
    const WordHead* const end = heads_.data() + head_from_[b[i] + 1U];
    for (; h != end; ++h)
      if ((v & h->mask) == h->bytes) return true;
    return false;
  }
  // head_at with fewer than four bytes left in the line (or on a big-endian CPU).
  [[gnu::noinline]] bool head_near_end(const unsigned char* b, std::size_t i, std::size_t n) const {
    const std::size_t avail = std::min<std::size_t>(n - i, 4);
    std::uint32_t v = 0;
    for (std::size_t j = 0; j < avail; ++j) v |= std::uint32_t{b[i + j]} << (8 * j);
    for (std::size_t k = head_from_[b[i]]; k < head_from_[b[i] + 1U]; ++k)
      if (heads_[k].size <= avail && (v & heads_[k].mask) == heads_[k].bytes) return true;
    return false;
  }

  void add_word(std::size_t i, LineScan& out) const {
    if (out.word_count < LineScan::kMaxWords)
      out.words[out.word_count++] = i;
    else
      out.more_words = true;
  }

  // Position i (1 <= i, i + 1 < n), byte by byte.
  void visit(const unsigned char* b, std::size_t i, std::size_t n, LineScan& out) const {
    const std::uint8_t kinds = pair_kinds_[pair_index(b[i], b[i + 1])];
    if ((kinds & kWordPair) && !ident_[b[i - 1]] && head_at(b, i, n)) add_word(i, out);
    if (kinds & kPhrasePair) out.phrases |= phrases_at(std::string_view(reinterpret_cast<const char*>(b), n), i);
    if ((kinds & kStampPair) && !out.stamp_open) out.stamp_open = stamp_shape(b, i, n);
  }

  // The candidates of one block, bit j standing for position at + j: each is a word start, a
  // phrase or the mark, or none of them (the tables only narrow the positions down).
  [[gnu::noinline]] void visit_block(const unsigned char* b, std::size_t n, std::size_t at, std::uint32_t candidates,
                                     LineScan& out) const {
    for (; candidates != 0; candidates &= candidates - 1) {
      const std::size_t i = at + static_cast<std::size_t>(std::countr_zero(candidates));
      const std::uint8_t kinds = pair_kinds_[pair_index(b[i], b[i + 1])];
      if (kinds == 0) continue;  // a pair of no list that the buckets let through
      if ((kinds & kWordPair) && !ident_[b[i - 1]] && head_at(b, i, n)) add_word(i, out);
      if (kinds & kPhrasePair) out.phrases |= phrases_at(std::string_view(reinterpret_cast<const char*>(b), n), i);
      if ((kinds & kMarkPair) && b[i - 1] == ' ') out.unreliable_mark = true;
      if ((kinds & kStampPair) && !out.stamp_open) out.stamp_open = stamp_shape(b, i, n);
    }
  }

  // Whether b[i .. n - 1] opens with '[', blanks, digits, '.', digits, ']' (LineScan::stamp_open).
  // (Out of line: only a '[' then a blank or a digit gets here.)
  [[gnu::noinline]] static bool stamp_shape(const unsigned char* b, std::size_t i, std::size_t n) {
    const auto digit = [](unsigned char c) { return c >= '0' && c <= '9'; };
    std::size_t j = i + 1;
    while (j < n && (b[j] == ' ' || b[j] == '\t')) ++j;
    const std::size_t seconds = j;
    while (j < n && digit(b[j])) ++j;
    if (j == seconds || j >= n || b[j] != '.') return false;
    const std::size_t fraction = ++j;
    while (j < n && digit(b[j])) ++j;
    return j != fraction && j < n && b[j] == ']';
  }

#if defined(BTAUDIT_LINE_SCAN_SIMD)
  // Nibble tables of the buckets (each bit of a byte one bucket): byte h:l may open a pair of
  // bucket k when first_lo[l] & first_hi[h] has bit k, and may close one when second_lo[l] &
  // second_hi[h] has it. A bucket's bytes are the products of the nibbles of its pairs' bytes:
  // every pair of the bucket is found, and some others pass (visit_block drops them). Both
  // 16-byte halves are the same (AVX2 looks up in each lane).
  struct alignas(32) PairTables {
    std::array<unsigned char, 32> first_lo{};
    std::array<unsigned char, 32> first_hi{};
    std::array<unsigned char, 32> second_lo{};
    std::array<unsigned char, 32> second_hi{};
  };
  // The buckets: a group of pairs per first byte (the words', the phrases' and "? "), groups
  // merged two at a time, those whose merge lets the fewest other pairs through first, until
  // eight are left.
  void pair_tables(std::span<const std::string_view> words, bool stamp_opens) {
    struct Group {
      std::uint32_t first_lo = 0, first_hi = 0, second_lo = 0, second_hi = 0;  // nibble sets, one bit per nibble
      // How many byte pairs the group's tables let through.
      std::int64_t cost() const {
        return std::int64_t{std::popcount(first_lo) * std::popcount(first_hi)} *
               std::int64_t{std::popcount(second_lo) * std::popcount(second_hi)};
      }
      Group merged(const Group& o) const {
        return {first_lo | o.first_lo, first_hi | o.first_hi, second_lo | o.second_lo, second_hi | o.second_hi};
      }
    };
    std::array<Group, 256> by_first{};
    std::array<bool, 256> used{};
    std::vector<std::size_t> pairs{pair_index('?', ' ')};
    for (const std::string_view w : words)
      if (w.size() >= 2) pairs.push_back(pair_index(w[0], w[1]));
    for (const std::string_view p : phrases_)
      if (p.size() >= 2) pairs.push_back(pair_index(p[0], p[1]));
    if (stamp_opens)
      for (const char c : kStampSeconds) pairs.push_back(pair_index('[', c));
    for (const std::size_t pair : pairs) {
      const std::size_t a = pair >> 8;
      const std::size_t c = pair & 0xff;
      Group& g = by_first[a];
      g.first_lo |= 1U << (a & 15);
      g.first_hi |= 1U << (a >> 4);
      g.second_lo |= 1U << (c & 15);
      g.second_hi |= 1U << (c >> 4);
      used[a] = true;
    }
    std::vector<Group> groups;
    for (std::size_t a = 0; a < 256; ++a)
      if (used[a]) groups.push_back(by_first[a]);
    while (groups.size() > 8) {
      std::size_t best_i = 0;
      std::size_t best_j = 1;
      std::int64_t best = INT64_MAX;
      for (std::size_t i = 0; i < groups.size(); ++i)
        for (std::size_t j = i + 1; j < groups.size(); ++j) {
          const std::int64_t grown = groups[i].merged(groups[j]).cost() - groups[i].cost() - groups[j].cost();
          if (grown < best) {
            best = grown;
            best_i = i;
            best_j = j;
          }
        }
      groups[best_i] = groups[best_i].merged(groups[best_j]);
      groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(best_j));
    }
    for (std::size_t k = 0; k < groups.size(); ++k) {
      const auto bit = static_cast<unsigned char>(1U << k);
      const auto put = [bit](std::array<unsigned char, 32>& table, std::uint32_t nibbles) {
        for (std::size_t x = 0; x < 16; ++x)
          if ((nibbles >> x) & 1) table[x] = table[x + 16] = static_cast<unsigned char>(table[x] | bit);
      };
      put(tables_.first_lo, groups[k].first_lo);
      put(tables_.first_hi, groups[k].first_hi);
      put(tables_.second_lo, groups[k].second_lo);
      put(tables_.second_hi, groups[k].second_hi);
    }
  }

  // A table's first 16 bytes (SSSE3) or all 32 (AVX2).
  __attribute__((target("ssse3"))) static __m128i table_ssse3(const std::array<unsigned char, 32>& t) {
    return _mm_load_si128(reinterpret_cast<const __m128i*>(t.data()));
  }
  __attribute__((target("avx2"))) static __m256i table_avx2(const std::array<unsigned char, 32>& t) {
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(t.data()));
  }
  // The candidates among the 16 positions p[0 .. 15] (reading p[0 .. 16]).
  __attribute__((target("ssse3"))) std::uint32_t candidates_ssse3(const unsigned char* p) const {
    const __m128i nibble = _mm_set1_epi8(0x0f);
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 1));
    const __m128i opens =
        _mm_and_si128(_mm_shuffle_epi8(table_ssse3(tables_.first_lo), _mm_and_si128(v, nibble)),
                      _mm_shuffle_epi8(table_ssse3(tables_.first_hi), _mm_and_si128(_mm_srli_epi16(v, 4), nibble)));
    const __m128i closes =
        _mm_and_si128(_mm_shuffle_epi8(table_ssse3(tables_.second_lo), _mm_and_si128(w, nibble)),
                      _mm_shuffle_epi8(table_ssse3(tables_.second_hi), _mm_and_si128(_mm_srli_epi16(w, 4), nibble)));
    const __m128i none = _mm_cmpeq_epi8(_mm_and_si128(opens, closes), _mm_setzero_si128());
    return ~static_cast<std::uint32_t>(_mm_movemask_epi8(none)) & 0xffffU;
  }
  // One block of 16 positions at `at`: reads b[at - 1 .. at + 16]; `keep` selects its positions.
  __attribute__((target("ssse3"))) void block_ssse3(const unsigned char* b, std::size_t n, std::size_t at,
                                                    std::uint32_t keep, LineScan& out) const {
    const std::uint32_t found = candidates_ssse3(b + at) & keep;
    if (found != 0) visit_block(b, n, at, found, out);
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
  __attribute__((target("avx2"))) std::uint32_t candidates_avx2(const unsigned char* p) const {
    const __m256i nibble = _mm256_set1_epi8(0x0f);
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 1));
    const __m256i opens = _mm256_and_si256(
        _mm256_shuffle_epi8(table_avx2(tables_.first_lo), _mm256_and_si256(v, nibble)),
        _mm256_shuffle_epi8(table_avx2(tables_.first_hi), _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble)));
    const __m256i closes = _mm256_and_si256(
        _mm256_shuffle_epi8(table_avx2(tables_.second_lo), _mm256_and_si256(w, nibble)),
        _mm256_shuffle_epi8(table_avx2(tables_.second_hi), _mm256_and_si256(_mm256_srli_epi16(w, 4), nibble)));
    const __m256i none = _mm256_cmpeq_epi8(_mm256_and_si256(opens, closes), _mm256_setzero_si256());
    return ~static_cast<std::uint32_t>(_mm256_movemask_epi8(none));
  }
  __attribute__((target("avx2"))) void block_avx2(const unsigned char* b, std::size_t n, std::size_t at,
                                                  std::uint32_t keep, LineScan& out) const {
    const std::uint32_t found = candidates_avx2(b + at) & keep;
    if (found != 0) visit_block(b, n, at, found, out);
  }
  __attribute__((target("avx2"))) void scan_avx2(const unsigned char* b, std::size_t n, LineScan& out) const {
    std::size_t at = 1;
    for (; at + 33 <= n; at += 32) block_avx2(b, n, at, ~std::uint32_t{0}, out);
    if (at + 1 < n) {
      const std::size_t last = n - 33;
      block_avx2(b, n, last, ~std::uint32_t{0} << (at - last), out);
    }
  }

  PairTables tables_;
#endif
  std::vector<std::string_view> phrases_;
  // What the pair of bytes pair_index(a, b) opens: a word, a phrase, the mark "? " (one load tells
  // a candidate, where two bitsets took two).
  enum : std::uint8_t { kWordPair = 1, kPhrasePair = 2, kMarkPair = 4, kStampPair = 8 };
  // The bytes after a '[' that LineScan::stamp_open asks for.
  static constexpr std::string_view kStampSeconds = " \t0123456789";
  std::vector<std::uint8_t> pair_kinds_ = std::vector<std::uint8_t>(65536);
  std::array<bool, 256> ident_{};
  std::vector<WordHead> heads_;
  std::array<std::uint32_t, 257> head_from_{};
  bool ssse3_ = false;
  bool avx2_ = false;
};

}  // namespace btaudit
