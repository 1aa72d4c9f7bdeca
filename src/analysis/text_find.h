// Substring search for the title rules' short words ("BUG:", "IP", "Call ", "at:"), which
// are looked for in every line a rule reads. std::string_view::find calls memchr for the
// word's first byte and then memcmp at every occurrence of that byte; in console text the
// first byte is often common ('a', 'p', ' ') while the word is rare, so here the second
// byte is compared inline and memcmp is called only where the first two bytes agree.
#pragma once
#include <cstddef>
#include <cstring>
#include <string_view>

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

}  // namespace btaudit
