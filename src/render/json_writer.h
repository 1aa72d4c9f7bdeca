// A small streaming JSON writer that appends to a std::string. Hand-written
// rather than nlohmann::json because reports are written at hundreds of MB/s
// and building a DOM per report would dominate the profile; tests parse the
// output back with nlohmann::json.
#pragma once
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "render/decimal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace btaudit {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;
  ~JsonWriter() { flush(); }

  // Moves what field() staged into the output string. Every other write does it first,
  // so the string is complete after any container is closed; call it before reading the
  // string in between.
  void flush() {
    if (staged_ == 0) return;
    out_.append(stage_.data(), staged_);
    staged_ = 0;
  }

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }

  void key(std::string_view k) {
    const bool sep = take_comma();
    if (!short_plain_string(sep, k, ':')) {
      if (sep) out().push_back(',');
      string_body(k);
      out().push_back(':');
    }
    after_key_ = true;
  }
  // A key given as a string literal, as every key of the JSON contract is: those are
  // plain ASCII names, so the byte-by-byte escape check is skipped and `,"name":` goes
  // out with one append of a length known at compile time (a frame has 13 keys and
  // reports have hundreds of frames). Only for literals: N counts the terminating NUL.
  template <std::size_t N>
  void key(const char (&k)[N]) {
    static_assert(N > 1 && N <= kShort, "a key literal is a short name");
    if (staged_ + N + 3 > stage_.size()) flush();
    char* p = stage_.data() + staged_;
    if (take_comma()) *p++ = ',';
    *p++ = '"';
    std::memcpy(p, k, N - 1);
    p += N - 1;
    *p++ = '"';
    *p++ = ':';
    staged_ = static_cast<std::size_t>(p - stage_.data());
    after_key_ = true;
  }
  void value(std::string_view s) {
    const bool sep = take_comma();
    if (short_plain_string(sep, s, '\0')) return;
    if (sep) out().push_back(',');
    string_body(s);
  }
  void value(const char* s) { value(std::string_view(s)); }
  void value(bool b) {
    comma();
    out() += b ? "true" : "false";
  }
  void value(std::int64_t v) { integer(take_comma(), v); }
  void value(std::uint64_t v) { integer(take_comma(), v); }
  void value(int v) { value(static_cast<std::int64_t>(v)); }
  void value(unsigned v) { value(static_cast<std::uint64_t>(v)); }
  void null() {
    comma();
    out() += "null";
  }
  // A number the caller formatted itself (a fraction with fixed decimals).
  void raw_number(std::string_view digits) {
    comma();
    out() += digits;
  }
  template <typename T>
  void value(const std::optional<T>& v) {
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
  // true/false/null, a short plain string: nearly every field of a frame) go out with
  // one append; other values take the general path after the key.
  template <std::size_t N, typename T>
  void field(const char (&k)[N], const T& v) {
    static_assert(N > 1 && N <= kShort, "a key literal is a short name");
    if (staged_ + N + kShort + 8 > stage_.size()) flush();
    char* const start = stage_.data() + staged_;
    char* p = start;
    if (take_comma()) *p++ = ',';
    *p++ = '"';
    std::memcpy(p, k, N - 1);
    p += N - 1;
    *p++ = '"';
    *p++ = ':';
    const bool whole = put_scalar(p, v);
    staged_ += static_cast<std::size_t>(p - start);
    if (whole) return;
    after_key_ = true;
    value(v);
  }

 private:
  // put_scalar(p, v): writes v at p and advances p when v needs no escaping and fits in
  // kShort + 2 bytes; returns false, having written nothing, otherwise. Same text as value(v).
  static bool put_scalar(char*& p, bool b) {
    const std::string_view t = b ? "true" : "false";
    std::memcpy(p, t.data(), t.size());
    p += t.size();
    return true;
  }
  template <typename Int>
  requires(std::is_integral_v<Int> && !std::is_same_v<Int, bool>) static bool put_scalar(char*& p, Int v) {
    p = decimal::put(p, v);
    return true;
  }
  static bool put_scalar(char*& p, std::string_view s) {
    if (s.size() > kShort || plain_end(s, 0) != s.size()) return false;
    *p++ = '"';
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    p += s.size();
    *p++ = '"';
    return true;
  }
  static bool put_scalar(char*& p, const std::string& s) { return put_scalar(p, std::string_view(s)); }
  static bool put_scalar(char*& p, const char* s) { return put_scalar(p, std::string_view(s)); }
  template <typename T>
  static bool put_scalar(char*& p, const std::optional<T>& v) {
    if (v) return put_scalar(p, *v);
    std::memcpy(p, "null", 4);
    p += 4;
    return true;
  }
  void open(char c) {
    comma();
    out().push_back(c);
    first_.push_back(1);
  }
  void close(char c) {
    out().push_back(c);
    if (!first_.empty()) first_.pop_back();
  }
  void comma() {
    if (take_comma()) out().push_back(',');
  }
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
  // The separator and the digits go out with one append; decimal::put (std::to_chars's
  // digits), not std::to_string, which would allocate a string per number.
  template <typename Int>
  void integer(bool sep, Int v) {
    char buf[24];
    char* p = buf;
    if (sep) *p++ = ',';
    p = decimal::put(p, v);
    out().append(buf, static_cast<std::size_t>(p - buf));
  }
  // Writes [,]"s"[tail] with one append when s is short and needs no escaping, which
  // is nearly every key and value of a report (a few appends per field would cost
  // more than the bytes). Returns false, having written nothing, otherwise.
  static constexpr std::size_t kShort = 96;
  bool short_plain_string(bool sep, std::string_view s, char tail) {
    if (s.size() > kShort || plain_end(s, 0) != s.size()) return false;
    char buf[kShort + 4];
    std::size_t n = 0;
    if (sep) buf[n++] = ',';
    buf[n++] = '"';
    if (!s.empty()) std::memcpy(buf + n, s.data(), s.size());
    n += s.size();
    buf[n++] = '"';
    if (tail) buf[n++] = tail;
    out().append(buf, n);
    return true;
  }
  // Printable ASCII other than '"' and '\\' is copied as it is. A table: this runs on every output byte.
  static constexpr std::array<bool, 256> kPlain = [] {
    std::array<bool, 256> t{};
    for (int c = 0x20; c < 0x7f; ++c) t[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
    return t;
  }();
  static bool plain(unsigned char c) { return kPlain[c]; }
  // Where the run of plain bytes from `from` ends (s.size() if it does not). Sixteen bytes
  // at a time with SSE2: most strings (function names, paths) are plain throughout.
  static std::size_t plain_end(std::string_view s, std::size_t from) {
    std::size_t i = from;
#if defined(__SSE2__)
    for (; i + 16 <= s.size(); i += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
      // Signed compares: bytes from 0x80 on are negative, so "below 0x20" takes them too.
      const __m128i control =
          _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)), _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f)));
      const __m128i quote = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
      const auto mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(control, quote)));
      if (mask != 0) return i + static_cast<std::size_t>(std::countr_zero(mask));
    }
#endif
    while (i < s.size() && plain(static_cast<unsigned char>(s[i]))) ++i;
    return i;
  }
  void string_body(std::string_view s) {
    out().push_back('"');
    for (std::size_t i = 0; i < s.size(); ++i) {
      // Almost every byte of a report is plain: copy runs of them with one append
      // instead of a push_back per byte, and escape only what is left.
      const std::size_t run = plain_end(s, i);
      if (run != i) {
        out().append(s.data() + i, run - i);
        i = run;
        if (i == s.size()) break;
      }
      const unsigned char c = static_cast<unsigned char>(s[i]);
      switch (c) {
        case '"': out() += "\\\""; break;
        case '\\': out() += "\\\\"; break;
        case '\n': out() += "\\n"; break;
        case '\r': out() += "\\r"; break;
        case '\t': out() += "\\t"; break;
        default:
          if (c < 0x20 || c == 0x7f) {
            static constexpr char kHex[] = "0123456789abcdef";
            out() += "\\u00";
            out().push_back(kHex[c >> 4]);
            out().push_back(kHex[c & 15]);
          } else if (c >= 0x80) {
            append_utf8_or_replacement(s, i);
          } else {
            out().push_back(static_cast<char>(c));
          }
      }
    }
    out().push_back('"');
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
      out() += "\xef\xbf\xbd";
      return;
    }
    out().append(s.substr(i, n));
    i += n - 1;
  }

  // The output, once what field() staged is in it.
  std::string& out() {
    flush();
    return out_;
  }

  std::string& out_;
  // Fields with literal keys and plain values are written here and reach out_ together,
  // one append for a frame's dozen fields instead of one each.
  std::array<char, 4096> stage_;
  std::size_t staged_ = 0;
  std::vector<char> first_;  // per open container: nothing written in it yet (not vector<bool>: hot)
  bool after_key_ = false;
};

}  // namespace btaudit
