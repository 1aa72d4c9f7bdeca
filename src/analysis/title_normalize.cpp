#include "analysis/title_normalize.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace btaudit {

namespace {

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_lower_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f'); }
bool is_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_word(char c) { return is_alnum(c) || c == '_'; }

std::size_t digits_at(std::string_view s, std::size_t i) {
  std::size_t j = i;
  while (j < s.size() && is_digit(s[j])) ++j;
  return j - i;
}

// "syz-executor.3", "syz-executor123/4567", "syzkaller123456:789" -> the bare name.
void drop_executor_ids(std::string_view s, std::string& out) {
  out.clear();
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    std::string_view name;
    if (s.substr(i).starts_with("syz-executor"))
      name = "syz-executor";
    else if (s.substr(i).starts_with("syzkaller"))
      name = "syzkaller";
    if (name.empty()) {
      out.push_back(s[i++]);
      continue;
    }
    std::size_t j = i + name.size();
    const bool executor = name == "syz-executor";
    if (executor && j < s.size() && s[j] == '.' && digits_at(s, j + 1)) ++j;
    const std::size_t n = digits_at(s, j);
    if (n == 0) {
      out.append(name);
      i += name.size();
      continue;
    }
    j += n;
    if (j < s.size() && (s[j] == '/' || s[j] == ':') && digits_at(s, j + 1)) j += 1 + digits_at(s, j + 1);
    out.append(name);
    i = j;
  }
}

// A hex run of 6+ (optionally 0x-prefixed) after a non-alphanumeric: an address.
void addresses(std::string_view s, std::string& out) {
  out.clear();
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    out.push_back(s[i]);
    if (is_alnum(s[i])) continue;
    std::size_t j = i + 1;
    if (j + 1 < s.size() && s[j] == '0' && s[j + 1] == 'x') j += 2;
    std::size_t k = j;
    while (k < s.size() && is_lower_hex(s[k])) ++k;
    if (k - j >= 6) {
      out.append("ADDR");
      i = k - 1;
    }
  }
}

void ip_addresses(std::string_view s, std::string& out) {
  out.clear();
  // Each pass keeps about the length: one allocation, not a regrowth per doubling.
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    std::size_t j = i;
    int parts = 0;
    for (; parts < 4; ++parts) {
      const std::size_t n = digits_at(s, j);
      if (n == 0 || n > 3) break;
      j += n;
      if (parts < 3) {
        if (j >= s.size() || s[j] != '.') break;
        ++j;
      }
    }
    if (parts == 4) {
      out.append("IP");
      i = j;
    } else {
      out.push_back(s[i++]);
    }
  }
}

// ".c:123:45" -> ".c:LINE"
void line_numbers(std::string_view s, std::string& out) {
  out.clear();
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '.' && i + 1 < s.size() && is_word(s[i + 1])) {
      std::size_t j = i + 1;
      while (j < s.size() && is_word(s[j])) ++j;
      std::size_t k = j;
      while (k + 1 < s.size() && s[k] == ':' && is_digit(s[k + 1])) k += 1 + digits_at(s, k + 1);
      out.append(s.substr(i, j - i));
      if (k > j) out.append(":LINE");
      i = k;
      continue;
    }
    out.push_back(s[i++]);
  }
}

// "func+0x1a/0x40" -> "func"
void symbol_offsets(std::string_view s, std::string& out) {
  out.clear();
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+' && i + 2 < s.size() && s[i + 1] == '0' && s[i + 2] == 'x' && i > 0 && is_word(s[i - 1])) {
      std::size_t j = i + 3;
      while (j < s.size() && is_alnum(s[j])) ++j;
      if (j + 2 < s.size() && s[j] == '/' && s[j + 1] == '0' && s[j + 2] == 'x') {
        std::size_t k = j + 3;
        while (k < s.size() && is_alnum(s[k])) ++k;
        i = k - 1;
        continue;
      }
    }
    out.push_back(s[i]);
  }
}

void cpu_numbers(std::string_view s, std::string& out) {
  out.clear();
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    if (s.substr(i).starts_with("CPU#") && digits_at(s, i + 4)) {
      out.append("CPU");
      i += 4 + digits_at(s, i + 4);
      continue;
    }
    out.push_back(s[i++]);
  }
}

// Decimal numbers standing alone (between non-word characters) -> NUM; digit
// runs of 7+ anywhere -> NUM (short ones inside names, "nl802154", stay).
void numbers(std::string_view s, std::string& out) {
  out.clear();
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = digits_at(s, i);
    if (n == 0) {
      out.push_back(s[i++]);
      continue;
    }
    const bool alone = i > 0 && !is_word(s[i - 1]) && (i + n == s.size() || !is_word(s[i + n]));
    if (alone || n >= 7) {
      out.append("NUM");
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
}

void sanitize(std::string_view s, std::string& out) {
  constexpr std::size_t kMaxTitle = 120;  // interleaved lines can make a header endless
  out.clear();
  out.reserve(std::min(s.size(), kMaxTitle));
  char prev = ' ';
  for (std::size_t i = 0; i < s.size() && i < kMaxTitle; ++i) {
    char c = s[i];
    if (c == '\t')
      c = ' ';
    else if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
      continue;
    if (c == ' ' && prev == ' ') continue;
    out.push_back(c);
    prev = c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
}

// What normalize_title's fast path asks of each byte of a title.
enum ByteClass : std::uint8_t {
  kTrigger = 1,  // starts some pass's rewrite: '.', '+', '#', a digit
  kHex = 2,      // in a run of lower-case hex digits (addresses())
  kSpace = 4,    // ' ': sanitize() drops a leading, trailing or doubled one
  kUnclean = 8,  // a tab or a byte sanitize() drops
};
constexpr std::array<std::uint8_t, 256> kByteClass = [] {
  std::array<std::uint8_t, 256> t{};
  for (std::size_t c = 0; c < t.size(); ++c) {
    const char ch = static_cast<char>(c);
    std::uint8_t k = 0;
    if (ch == '.' || ch == '+' || ch == '#' || is_digit(ch)) k |= kTrigger;
    if (is_lower_hex(ch)) k |= kHex;
    if (ch == ' ') k |= kSpace;
    if (c < 0x20 || c >= 0x7f) k |= kUnclean;  // the tab among them
    t[c] = k;
  }
  return t;
}();

}  // namespace

std::string normalize_title(std::string_view title) {
  // Most titles ("KASAN: use-after-free Read in foo") hold no pass's trigger and are already
  // sanitized: those are themselves, told in one pass over their bytes. ("syz" without a digit
  // is left as it is by drop_executor_ids, a 6-digit hex run is what addresses() rewrites.)
  if (title.size() <= 120 && (title.empty() || title.back() != ' ')) {
    std::uint8_t seen = 0;
    std::size_t run = 0;
    bool hex_run = false;
    bool doubled = false;
    bool prev_space = true;  // sanitize() drops a leading space as it drops a doubled one
    for (const char c : title) {
      const std::uint8_t k = kByteClass[static_cast<unsigned char>(c)];
      seen |= k;
      run = (k & kHex) != 0 ? run + 1 : 0;
      hex_run = hex_run || run >= 6;
      const bool space = (k & kSpace) != 0;
      doubled = doubled || (space && prev_space);
      prev_space = space;
    }
    if ((seen & (kTrigger | kUnclean)) == 0 && !hex_run && !doubled) return std::string(title);
  }
  return title_normalize_detail::normalize_title_general(title);
}

std::string title_normalize_detail::normalize_title_general(std::string_view title) {
  // A pass whose trigger ('.', '+', '#', a digit, "syz", a run of six hex digits) is nowhere in
  // its input returns the input unchanged, and most titles ("KASAN: use-after-free Read in foo")
  // hold few triggers: those passes are skipped. No pass adds a trigger, so the title decides.
  // (addresses() rewrites only a run of 6+ lower-case hex digits, which a "0x" before it does
  // not start; drop_executor_ids joins no such run: what it keeps before a cut ends in 'r'.)
  bool dot = false, plus = false, hash = false, digit = false, hex_run = false;
  std::size_t run = 0;
  for (const char c : title) {
    dot = dot || c == '.';
    plus = plus || c == '+';
    hash = hash || c == '#';
    digit = digit || is_digit(c);
    run = is_lower_hex(c) ? run + 1 : 0;
    hex_run = hex_run || run >= 6;
  }
  // The passes alternate between two buffers, reused rather than allocated for each.
  std::string t;
  std::string next;
  if (title.find("syz") != std::string_view::npos)
    drop_executor_ids(title, t);
  else
    t.assign(title);
  auto apply = [&](void (*pass)(std::string_view, std::string&)) {
    pass(t, next);
    t.swap(next);
  };
  if (hex_run) apply(addresses);
  if (dot) apply(ip_addresses);     // a.b.c.d
  if (dot) apply(line_numbers);     // .c:123
  if (plus) apply(symbol_offsets);  // +0x1/0x2
  if (hash) apply(cpu_numbers);     // CPU#1
  if (digit) apply(numbers);
  sanitize(t, next);
  return next;
}

}  // namespace btaudit
