// A small streaming JSON writer that appends to a std::string. Hand-written
// rather than nlohmann::json because reports are written at hundreds of MB/s
// and building a DOM per report would dominate the profile; tests parse the
// output back with nlohmann::json.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "model/boxed.h"
#include "render/decimal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace btaudit {

namespace json_detail {

// Printable ASCII other than '"' and '\\' goes out as it is; anything else is escaped.
inline constexpr std::array<bool, 256> kPlain = [] {
  std::array<bool, 256> t{};
  for (int c = 0x20; c < 0x7f; ++c) t[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
  return t;
}();

#if defined(__SSE2__)
// One bit per byte of v that is not plain. Adding 1 maps the plain range 0x20..0x7e onto
// 0x21..0x7f, the only bytes a signed compare finds above 0x20: control bytes, 0x7f and
// every byte from 0x80 on fail that one compare.
inline unsigned special_bits(__m128i v) {
  const __m128i printable = _mm_cmpgt_epi8(_mm_add_epi8(v, _mm_set1_epi8(1)), _mm_set1_epi8(0x20));
  const __m128i quote = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
  return static_cast<unsigned>(_mm_movemask_epi8(_mm_andnot_si128(quote, printable))) ^ 0xffffU;
}
#endif

// Copies the n bytes at s to p when every one of them is plain and returns true;
// otherwise returns false, p's bytes being unspecified. Reads and writes only those n
// bytes: short strings are read as two overlapping words, longer ones sixteen bytes at a
// time with an overlapping last block, so no byte-by-byte loop runs (the strings of a
// frame are mostly 3 to 40 bytes).
inline bool copy_if_plain(char* p, const char* s, std::size_t n) {
#if defined(__SSE2__)
  if (n >= 16) {
    unsigned bad = 0;
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(p + i), v);
      bad |= special_bits(v);
    }
    if (i < n) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + n - 16));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(p + n - 16), v);
      bad |= special_bits(v);
    }
    return bad == 0;
  }
  if (n >= 8) {
    std::uint64_t a = 0;
    std::uint64_t b = 0;
    std::memcpy(&a, s, 8);
    std::memcpy(&b, s + n - 8, 8);
    if (special_bits(_mm_set_epi64x(static_cast<long long>(b), static_cast<long long>(a))) != 0) return false;
    std::memcpy(p, &a, 8);
    std::memcpy(p + n - 8, &b, 8);
    return true;
  }
  if (n >= 4) {
    std::uint32_t a = 0;
    std::uint32_t b = 0;
    std::memcpy(&a, s, 4);
    std::memcpy(&b, s + n - 4, 4);
    // The upper lanes hold plain filler ('a').
    const __m128i v = _mm_set_epi32(0x61616161, 0x61616161, static_cast<int>(b), static_cast<int>(a));
    if (special_bits(v) != 0) return false;
    std::memcpy(p, &a, 4);
    std::memcpy(p + n - 4, &b, 4);
    return true;
  }
#endif
  for (std::size_t i = 0; i < n; ++i) {
    if (!kPlain[static_cast<unsigned char>(s[i])]) return false;
    p[i] = s[i];
  }
  return true;
}

// copy_if_plain for a whole std::string, quicker for the short strings a frame holds (function
// names, "file.c:123"): a string of up to 16 bytes is read and stored as one 16-byte block
// where copy_if_plain takes two overlapping words, and one of up to 32 as two blocks, inline.
// The one block may reach past s.size() but never past the string's own buffer: a std::string
// owns capacity() + 1 bytes (the terminator's), and capacity() is at least 15 (its in-object
// buffer). Bytes past the end are left out of the check; those stored past p + s.size() are
// scratch, so the caller must have room for 16 bytes at p.
[[gnu::always_inline]] inline bool copy_plain_string(char* p, const std::string& s) {
#if defined(__SSE2__)
  const std::size_t n = s.size();
  const char* d = s.data();
  if (n <= 16 && s.capacity() >= 15) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
    return (special_bits(v) & ((1U << n) - 1)) == 0;
  }
  if (n <= 32) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + n - 16));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), a);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p + n - 16), b);
    return (special_bits(a) | special_bits(b)) == 0;
  }
#endif
  return copy_if_plain(p, s.data(), s.size());
}

}  // namespace json_detail

class JsonWriter {
 public:
  // Everything is written into a buffer in the writer first and leaves it in large blocks:
  // when the buffer fills, when no container is open any more, on flush() and when the
  // writer goes away. A write is then a few stores, not a std::string append (a frame is
  // a dozen fields and a report hundreds of frames).
  static constexpr std::size_t kStage = std::size_t{16} << 10;
  // Strings up to this long are written by the scalar paths (after one check that they need no escaping).
  static constexpr std::size_t kShort = 96;
  // The buffer has this many bytes more than its capacity: direct writers may store a few
  // bytes of scratch past what they made room for (a 16-byte block for a short string, four
  // digits for a number of one), which the next write overwrites.
  static constexpr std::size_t kScratch = 64;
  // Where a sink-writer's blocks go; called with at most `capacity` bytes at a time.
  using Sink = std::function<void(std::string_view)>;

  // Appends to `out`.
  explicit JsonWriter(std::string& out) : out_(&out), stage_(new char[kStage + kScratch]), capacity_(kStage) {}
  // Hands blocks of `capacity` bytes (or the rest, on flush) to `sink`, with no copy in
  // between: a document of hundreds of MB goes out from the buffer it is written in.
  JsonWriter(Sink sink, std::size_t capacity) : sink_(std::move(sink)), capacity_(std::max(capacity, kStage)) {
    stage_.reset(new char[capacity_ + kScratch]);
  }
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;
  ~JsonWriter() { flush(); }

  // Moves what is written so far to the output string or the sink. Needed only to read
  // the string while a container is still open (JsonDocument::buffer()).
  void flush() {
    if (staged_ == 0) return;
    if (out_ != nullptr)
      out_->append(stage_.get(), staged_);
    else
      sink_(std::string_view(stage_.get(), staged_));
    staged_ = 0;
  }

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }

  void key(std::string_view k) {
    const bool sep = take_comma();
    if (!staged_string(sep, k, ':')) {
      general_string(sep, k);
      *room(1) = ':';
      ++staged_;
    }
    after_key_ = true;
  }
  // A key given as a string literal, as every key of the JSON contract is: those are
  // plain ASCII names, so the escape check is skipped and `,"name":` goes out as one
  // copy of a length known at compile time. Only for literals: N counts the terminating NUL.
  template <std::size_t N>
  void key(const char (&k)[N]) {
    static_assert(N > 1 && N <= kShort, "a key literal is a short name");
    char* p = room(N + 3);
    put_key(p, take_comma(), k);
    commit(p);
    after_key_ = true;
  }
  void value(std::string_view s) {
    const bool sep = take_comma();
    if (!staged_string(sep, s, '\0')) general_string(sep, s);
    done_value();
  }
  void value(const char* s) { value(std::string_view(s)); }
  void value(bool b) { scalar(b); }
  void value(std::int64_t v) { scalar(v); }
  void value(std::uint64_t v) { scalar(v); }
  void value(int v) { value(static_cast<std::int64_t>(v)); }
  void value(unsigned v) { value(static_cast<std::uint64_t>(v)); }
  void null() { scalar(std::nullopt); }
  // Text outside the grammar, as it is (the line end after a document).
  void raw_text(std::string_view t) {
    put_bytes(t);
    done_value();
  }
  // A number the caller formatted itself (a fraction with fixed decimals).
  void raw_number(std::string_view digits) {
    const bool sep = take_comma();
    if (sep) put_bytes(",");
    put_bytes(digits);
    done_value();
  }
  template <typename T>
  void value(const std::optional<T>& v) {
    if (v)
      value(*v);
    else
      null();
  }
  template <typename T>
  void value(const Boxed<T>& v) {
    if (v)
      value(*v);
    else
      null();
  }

  template <typename T>
  void field(std::string_view k, const T& v) {
    key(k);
    value(v);
  }
  // A field with a literal key: the key and a value that needs no escaping (a number,
  // true/false/null, a short plain string: nearly every field) are stored together;
  // other values take the general path after the key.
  template <std::size_t N, typename T>
  void field(const char (&k)[N], const T& v) {
    static_assert(N > 1 && N <= kShort, "a key literal is a short name");
    char* p = room(N + 3 + kMaxScalar);
    put_key(p, take_comma(), k);
    if (put_scalar(p, v)) {
      commit(p);
      return;
    }
    commit(p);
    after_key_ = true;
    value(v);
  }

  // Direct writing, for a caller that writes a value of a known shape at once (a frame):
  // begin_direct(n) returns where the value goes (after its ',' if it takes one) with n
  // bytes of room; end_direct(end) keeps what was written up to end. A caller that finds
  // it cannot write the value this way simply does not call end_direct: nothing is kept.
  char* begin_direct(std::size_t n) {
    char* p = room(n + 1);
    if (next_takes_comma()) *p++ = ',';
    return p;
  }
  void end_direct(char* end) {
    take_comma();
    commit(end);
    done_value();
  }
  // Direct writing of several items in a row into the array open last (a report's frames):
  // run_begin() returns where the first goes and whether it takes a ','; the caller writes
  // items with their commas up to run_limit(), calling run_flush(p) for room when it nears it
  // (that keeps what is written up to p, hands the buffer on and returns where to go on,
  // run_limit() staying where it was); run_end(p, items) keeps what was written up to p,
  // `items` telling whether that was any item at all. Stores past run_limit() may reach
  // kScratch bytes beyond it.
  char* run_begin(bool& sep) {
    sep = next_takes_comma();
    return stage_.get() + staged_;
  }
  const char* run_limit() const { return stage_.get() + capacity_; }
  char* run_flush(char* p) {
    commit(p);
    flush();
    return stage_.get();
  }
  void run_end(char* p, bool items) {
    commit(p);
    if (items) take_comma();
  }
  // After end_direct() of an object written without its closing '}': members follow
  // through the ordinary calls, and end_object() closes it.
  void continue_object() { first_.push_back(0); }
  // The pieces of direct writing; each advances p. put_key writes `,"name":` (the comma
  // when `sep`), put_scalar a value that needs no escaping and returns false, having
  // written nothing, for one that does.
  template <std::size_t N>
  static void put_key(char*& p, bool sep, const char (&k)[N]) {
    if (sep) *p++ = ',';
    *p++ = '"';
    std::memcpy(p, k, N - 1);
    p += N - 1;
    *p++ = '"';
    *p++ = ':';
  }
  // A constant fragment, written as it is (`,"line":`).
  template <std::size_t N>
  static void put_literal(char*& p, const char (&text)[N]) {
    std::memcpy(p, text, N - 1);
    p += N - 1;
  }
  // The most a scalar takes: a short string with its quotes.
  static constexpr std::size_t kMaxScalar = kShort + 2;
  static bool put_scalar(char*& p, bool b) {
    // Five bytes either way; the length says which word.
    std::memcpy(p, b ? "true " : "false", 5);
    p += b ? 4 : 5;
    return true;
  }
  static bool put_scalar(char*& p, std::nullopt_t /*unused*/) {
    std::memcpy(p, "null", 4);
    p += 4;
    return true;
  }
  template <typename Int>
  requires(std::is_integral_v<Int> && !std::is_same_v<Int, bool>) static bool put_scalar(char*& p, Int v) {
    p = decimal::put(p, v);
    return true;
  }
  static bool put_scalar(char*& p, std::string_view s) { return s.size() <= kShort && put_string(p, s); }
  // A string of any length (the caller made room for it and its quotes), when it needs no escaping.
  // Always inlined: a direct writer puts a few strings per object, and GCC left this out of line
  // (a call and its moves per string, about 440,000 instructions on the unit test log).
  [[gnu::always_inline]] static bool put_string(char*& p, std::string_view s) {
    if (!json_detail::copy_if_plain(p + 1, s.data(), s.size())) return false;
    *p = '"';
    p[s.size() + 1] = '"';
    p += s.size() + 2;
    return true;
  }
  // The same for a std::string, with copy_plain_string: up to 16 bytes of scratch past its end.
  [[gnu::always_inline]] static bool put_string(char*& p, const std::string& s) {
    if (!json_detail::copy_plain_string(p + 1, s)) return false;
    *p = '"';
    p[s.size() + 1] = '"';
    p += s.size() + 2;
    return true;
  }
  // An optional string of any length: null when absent.
  static bool put_string_or_null(char*& p, const std::optional<std::string>& s) {
    return s ? put_string(p, *s) : put_scalar(p, std::nullopt);
  }
  static bool put_string_or_null(char*& p, const Boxed<std::string>& s) {
    return s ? put_string(p, *s) : put_scalar(p, std::nullopt);
  }
  static bool put_scalar(char*& p, const std::string& s) { return s.size() <= kShort && put_string(p, s); }
  static bool put_scalar(char*& p, const char* s) { return put_scalar(p, std::string_view(s)); }
  template <typename T>
  static bool put_scalar(char*& p, const std::optional<T>& v) {
    if (v) return put_scalar(p, *v);
    return put_scalar(p, std::nullopt);
  }
  template <typename T>
  static bool put_scalar(char*& p, const Boxed<T>& v) {
    if (v) return put_scalar(p, *v);
    return put_scalar(p, std::nullopt);
  }
  // A string the caller knows to be plain (an enum's name from a constant table): quoted, unchecked.
  static void put_plain(char*& p, std::string_view s) {
    *p++ = '"';
    std::memcpy(p, s.data(), s.size());
    p += s.size();
    *p++ = '"';
  }

 private:
  // Room for n more bytes in the buffer (n <= kStage), flushing it first if need be.
  char* room(std::size_t n) {
    if (staged_ + n > capacity_) flush();
    return stage_.get() + staged_;
  }
  void commit(char* end) { staged_ = static_cast<std::size_t>(end - stage_.get()); }
  // Bytes of any length, in pieces that fit.
  void put_bytes(std::string_view b) {
    while (!b.empty()) {
      const std::size_t n = std::min(b.size(), kStage);
      char* p = room(n);
      std::memcpy(p, b.data(), n);
      commit(p + n);
      b.remove_prefix(n);
    }
  }
  // A value written outside any container completes the document: it reaches the string.
  void done_value() {
    if (first_.empty()) flush();
  }
  template <typename T>
  void scalar(const T& v) {
    char* p = room(kMaxScalar + 1);
    if (take_comma()) *p++ = ',';
    put_scalar(p, v);
    commit(p);
    done_value();
  }
  void open(char c) {
    char* p = room(2);
    if (take_comma()) *p++ = ',';
    *p++ = c;
    commit(p);
    first_.push_back(1);
  }
  void close(char c) {
    char* p = room(1);
    *p++ = c;
    commit(p);
    if (!first_.empty()) first_.pop_back();
    done_value();
  }
  bool next_takes_comma() const { return !after_key_ && !first_.empty() && !first_.back(); }
  // Whether a ',' must precede the next item; records that the container is no longer empty.
  bool take_comma() {
    if (after_key_) {
      after_key_ = false;
      return false;
    }
    if (first_.empty()) return false;
    const bool sep = !first_.back();
    first_.back() = false;
    return sep;
  }
  // Stages [,]"s"[tail] when s is short and needs no escaping, which is nearly every key
  // and value of a report. Returns false, having written nothing, otherwise.
  bool staged_string(bool sep, std::string_view s, char tail) {
    if (s.size() > kShort) return false;
    char* p = room(s.size() + 4);
    if (sep) *p++ = ',';
    if (!put_scalar(p, s)) return false;
    if (tail) *p++ = tail;
    commit(p);
    return true;
  }
  // [,]"s" through the escaping path.
  void general_string(bool sep, std::string_view s) {
    if (sep) put_bytes(",");
    string_body(s);
  }
  static bool plain(unsigned char c) { return json_detail::kPlain[c]; }
  // Where the run of plain bytes from `from` ends (s.size() if it does not). Sixteen bytes
  // at a time with SSE2: most strings (function names, paths) are plain throughout.
  static std::size_t plain_end(std::string_view s, std::size_t from) {
    std::size_t i = from;
#if defined(__SSE2__)
    for (; i + 16 <= s.size(); i += 16) {
      const unsigned mask = json_detail::special_bits(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i)));
      if (mask != 0) return i + static_cast<std::size_t>(std::countr_zero(mask));
    }
#endif
    while (i < s.size() && plain(static_cast<unsigned char>(s[i]))) ++i;
    return i;
  }
  void string_body(std::string_view s) {
    put_bytes("\"");
    for (std::size_t i = 0; i < s.size(); ++i) {
      // Almost every byte of a report is plain: copy runs of them with one append
      // instead of a push_back per byte, and escape only what is left.
      const std::size_t run = plain_end(s, i);
      if (run != i) {
        put_bytes(s.substr(i, run - i));
        i = run;
        if (i == s.size()) break;
      }
      const unsigned char c = static_cast<unsigned char>(s[i]);
      switch (c) {
        case '"': put_bytes("\\\""); break;
        case '\\': put_bytes("\\\\"); break;
        case '\n': put_bytes("\\n"); break;
        case '\r': put_bytes("\\r"); break;
        case '\t': put_bytes("\\t"); break;
        default:
          if (c < 0x20 || c == 0x7f) {
            static constexpr char kHex[] = "0123456789abcdef";
            const char escape[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
            put_bytes(std::string_view(escape, sizeof escape));
          } else if (c >= 0x80) {
            append_utf8_or_replacement(s, i);
          } else {
            put_bytes(std::string_view(s.data() + i, 1));
          }
      }
    }
    put_bytes("\"");
  }
  // Copies one valid UTF-8 sequence, or writes U+FFFD for an invalid byte:
  // console logs hold arbitrary bytes and the output must stay valid JSON.
  void append_utf8_or_replacement(std::string_view s, std::size_t& i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;  // the sequence length a valid lead byte announces
    if (c >= 0xc2 && c <= 0xdf)
      n = 2;
    else if (c >= 0xe0 && c <= 0xef)
      n = 3;
    else if (c >= 0xf0 && c <= 0xf4)
      n = 4;
    bool ok = n != 0 && i + n <= s.size();
    for (std::size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    if (ok && n == 3) {
      const unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
      ok = !(c == 0xe0 && c1 < 0xa0) && !(c == 0xed && c1 >= 0xa0);
    }
    if (ok && n == 4) {
      const unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
      ok = !(c == 0xf0 && c1 < 0x90) && !(c == 0xf4 && c1 >= 0x90);
    }
    if (!ok) {
      put_bytes("\xef\xbf\xbd");
      return;
    }
    put_bytes(s.substr(i, n));
    i += n - 1;
  }

  std::string* out_ = nullptr;  // null: blocks go to sink_
  Sink sink_;
  std::unique_ptr<char[]> stage_;  // what is written, until it is flushed
  std::size_t capacity_;
  std::size_t staged_ = 0;
  std::vector<char> first_;  // per open container: nothing written in it yet (not vector<bool>: hot)
  bool after_key_ = false;
};

}  // namespace btaudit
