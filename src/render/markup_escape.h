// Text placed into HTML and SVG: the characters markup gives meaning to, escaped
// (attributes are always double-quoted, so an apostrophe stays as it is).
#pragma once
#include <string>
#include <string_view>

namespace btaudit {

inline void append_escaped(std::string& out, std::string_view s) {
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out.push_back(c);
    }
  }
}

inline std::string escape_markup(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  append_escaped(out, s);
  return out;
}

}  // namespace btaudit
