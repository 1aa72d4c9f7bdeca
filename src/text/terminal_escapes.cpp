#include "text/terminal_escapes.h"

#include <cstring>

namespace btaudit {

namespace {

constexpr char kEsc = '\x1b';

bool in(char c, unsigned lo, unsigned hi) {
  const auto u = static_cast<unsigned char>(c);
  return u >= lo && u <= hi;
}

// The length of the sequence at line[i] == ESC, up to the line's end at most.
std::size_t sequence_length(std::string_view line, std::size_t i) {
  const std::size_t n = line.size();
  std::size_t j = i + 1;
  if (j >= n) return n - i;
  const char kind = line[j];
  if (kind == '[') {
    ++j;
    while (j < n && in(line[j], 0x30, 0x3f)) ++j;
    while (j < n && in(line[j], 0x20, 0x2f)) ++j;
    return (j < n && in(line[j], 0x40, 0x7e) ? j + 1 : n) - i;
  }
  if (kind == ']' || kind == 'P' || kind == 'X' || kind == '^' || kind == '_') {
    for (++j; j < n; ++j) {
      if (line[j] == '\a') return j + 1 - i;
      if (line[j] == kEsc && j + 1 < n && line[j + 1] == '\\') return j + 2 - i;
    }
    return n - i;
  }
  while (j < n && in(line[j], 0x20, 0x2f)) ++j;
  return (j < n && in(line[j], 0x30, 0x7e) ? j + 1 : n) - i;
}

void append_stripped(std::string_view line, std::string& out) {
  if (line.size() > 1 && line[0] == '[' && line[1] == kEsc) {
    out.append(line);  // user space's status line: the cleaner reads it as such
    return;
  }
  std::size_t from = 0;
  for (std::size_t i = line.find(kEsc); i != std::string_view::npos; i = line.find(kEsc, from)) {
    out.append(line.substr(from, i - from));
    from = i + sequence_length(line, i);
  }
  out.append(line.substr(from));
}

}  // namespace

bool has_terminal_escape(std::string_view text) {
  return !text.empty() && std::memchr(text.data(), kEsc, text.size()) != nullptr;
}

std::string strip_terminal_escapes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;
  while (at < text.size()) {
    // Lines end at '\n' or '\r' (a sequence stops at either); the ends themselves are copied.
    std::size_t end = at;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
    const std::string_view line = text.substr(at, end - at);
    if (std::memchr(line.data(), kEsc, line.size()) != nullptr)
      append_stripped(line, out);
    else
      out.append(line);
    at = end;
    while (at < text.size() && (text[at] == '\n' || text[at] == '\r')) out.push_back(text[at++]);
  }
  return out;
}

}  // namespace btaudit
