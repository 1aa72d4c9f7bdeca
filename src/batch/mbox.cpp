#include "batch/mbox.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace btaudit {

namespace {

// Reads `text` line by line, without the '\n'.
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    const std::size_t end = text_.find('\n', pos_);
    const std::size_t stop = end == std::string_view::npos ? text_.size() : end;
    begin_ = pos_;
    line = text_.substr(pos_, stop - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = stop + 1;
    ++number_;
    return true;
  }
  std::uint32_t number() const { return number_; }                  // of the line last returned
  std::size_t begin() const { return begin_; }                      // offset of the line last returned
  std::size_t end() const { return std::min(pos_, text_.size()); }  // offset of the line after it

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t begin_ = 0;
  std::uint32_t number_ = 0;
};

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool is_header_line(std::string_view line) {
  const std::size_t colon = line.find(':');
  if (colon == 0 || colon == std::string_view::npos) return false;
  for (std::size_t i = 0; i < colon; ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c <= ' ' || c >= 0x7f) return false;
  }
  return true;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::string decode_quoted_printable(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '=') {
      out.push_back(in[i]);
      continue;
    }
    if (i + 1 < in.size() && in[i + 1] == '\n') {  // soft line break
      ++i;
      continue;
    }
    if (i + 2 < in.size() && in[i + 1] == '\r' && in[i + 2] == '\n') {
      i += 2;
      continue;
    }
    const int hi = i + 1 < in.size() ? hex_digit(in[i + 1]) : -1;
    const int lo = i + 2 < in.size() ? hex_digit(in[i + 2]) : -1;
    if (hi < 0 || lo < 0) {  // not an escape: keep it as written
      out.push_back('=');
      continue;
    }
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

std::string decode_base64(std::string_view in) {
  // Each byte's 6-bit value; 64 marks a byte outside the alphabet.
  static constexpr std::array<unsigned char, 256> kValue = [] {
    std::array<unsigned char, 256> t{};
    t.fill(64);
    const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (unsigned char i = 0; i < 64; ++i) t[static_cast<unsigned char>(alphabet[i])] = i;
    return t;
  }();
  std::string out;
  out.reserve(in.size() / 4 * 3);
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    const unsigned v = kValue[static_cast<unsigned char>(c)];
    if (v == 64) continue;  // line breaks and other padding
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

// mboxrd escapes body lines that start with "From " as ">From ", ">>From ", ...
std::string unescape_from_lines(std::string_view body) {
  std::string out;
  out.reserve(body.size());
  Lines lines(body);
  std::string_view line;
  bool first = true;
  while (lines.next(line)) {
    if (!first) out.push_back('\n');
    first = false;
    std::size_t quotes = 0;
    while (quotes < line.size() && line[quotes] == '>') ++quotes;
    if (quotes > 0 && line.substr(quotes).starts_with("From ")) line.remove_prefix(1);
    out.append(line);
  }
  return out;
}

struct RawMail {
  std::uint32_t body_line = 0;
  std::size_t body_begin = 0;
  std::size_t body_end = 0;
  std::string message_id;
  std::string subject;
  std::string encoding;
  bool multipart = false;
};

Mail finish(const RawMail& raw, std::string_view text) {
  Mail m;
  m.body_line = raw.body_line;
  m.message_id = raw.message_id;
  m.subject = raw.subject;
  const std::string_view body = text.substr(raw.body_begin, raw.body_end - raw.body_begin);
  // A multipart body is left as it is: the parser reads a report out of its
  // text/plain part and ignores the boundaries and part headers around it.
  if (!raw.multipart && starts_with_nocase(raw.encoding, "quoted-printable")) {
    m.body = decode_quoted_printable(body);
    m.reencoded = true;
  } else if (!raw.multipart && starts_with_nocase(raw.encoding, "base64")) {
    m.body = decode_base64(body);
    m.reencoded = true;
  } else {
    m.body = unescape_from_lines(body);
  }
  return m;
}

}  // namespace

bool is_mbox(std::string_view text) {
  if (!text.starts_with("From ")) return false;
  Lines lines(text);
  std::string_view line;
  lines.next(line);  // the separator
  return lines.next(line) && is_header_line(line);
}

std::vector<Mail> split_mbox(std::string_view text) {
  std::vector<Mail> mails;
  Lines lines(text);
  std::string_view line;
  bool in_headers = false;
  bool have_mail = false;
  bool previous_blank = true;
  RawMail raw;
  std::string* last_header = nullptr;  // for folded header lines
  while (lines.next(line)) {
    if (previous_blank && line.starts_with("From ")) {
      if (have_mail) {
        raw.body_end = lines.begin();
        mails.push_back(finish(raw, text));
      }
      raw = RawMail{};
      have_mail = true;
      in_headers = true;
      last_header = nullptr;
      previous_blank = false;
      continue;
    }
    previous_blank = line.empty();
    if (!have_mail || !in_headers) continue;
    if (line.empty()) {
      in_headers = false;
      raw.body_line = lines.number() + 1;
      raw.body_begin = lines.end();
      raw.body_end = text.size();
      continue;
    }
    if ((line.front() == ' ' || line.front() == '\t') && last_header) {
      last_header->append(" ").append(trim(line));
      continue;
    }
    last_header = nullptr;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = trim(line.substr(colon + 1));
    if (starts_with_nocase(name, "message-id") && name.size() == 10) {
      raw.message_id = value;
      last_header = &raw.message_id;
    } else if (starts_with_nocase(name, "subject") && name.size() == 7) {
      raw.subject = value;
      last_header = &raw.subject;
    } else if (starts_with_nocase(name, "content-transfer-encoding") && name.size() == 25) {
      raw.encoding = value;
    } else if (starts_with_nocase(name, "content-type") && name.size() == 12) {
      raw.multipart = starts_with_nocase(value, "multipart/");
    }
  }
  if (have_mail) {
    if (in_headers) {  // a mail with no body
      raw.body_begin = raw.body_end = text.size();
      raw.body_line = lines.number() + 1;
    }
    mails.push_back(finish(raw, text));
  }
  return mails;
}

}  // namespace btaudit
