#include "analysis/demangle.h"

#include <cstdint>
#include <vector>

namespace btaudit {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

// Rust v0 (RFC 2603). Positions in backrefs count from just after "_R".
class RustV0 {
 public:
  explicit RustV0(std::string_view s) : s_(s) {}

  std::optional<std::string> run() {
    while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;  // encoding version
    std::string out;
    if (!path(out, 0)) return std::nullopt;
    return out;
  }

 private:
  static constexpr int kMaxDepth = 64;

  bool eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  // <base-62-number> = {<0-9a-zA-Z>} "_"; "_" alone is 0, otherwise value + 1.
  std::optional<std::uint64_t> base62() {
    if (eat('_')) return 0;
    std::uint64_t v = 0;
    while (pos_ < s_.size() && s_[pos_] != '_') {
      const char c = s_[pos_++];
      std::uint64_t d = 0;
      if (is_digit(c))
        d = static_cast<std::uint64_t>(c - '0');
      else if (is_lower(c))
        d = static_cast<std::uint64_t>(c - 'a') + 10;
      else if (is_upper(c))
        d = static_cast<std::uint64_t>(c - 'A') + 36;
      else
        return std::nullopt;
      if (v > (UINT64_MAX - d) / 62) return std::nullopt;
      v = v * 62 + d;
    }
    if (!eat('_')) return std::nullopt;
    return v + 1;
  }

  bool disambiguator() {
    if (!eat('s')) return true;
    return base62().has_value();
  }

  // <identifier> = [<disambiguator>] <undisambiguated-identifier>
  bool identifier(std::string& out) {
    if (!disambiguator()) return false;
    const bool punycode = eat('u');
    std::size_t n = 0;
    const std::size_t start = pos_;
    while (pos_ < s_.size() && is_digit(s_[pos_]) && pos_ - start < 6)
      n = n * 10 + static_cast<std::size_t>(s_[pos_++] - '0');
    if (pos_ == start || punycode) return false;
    eat('_');
    if (pos_ + n > s_.size()) return false;
    out.append(s_.substr(pos_, n));
    pos_ += n;
    return true;
  }

  bool backref(std::string& out, int depth, bool as_type) {
    auto at = base62();
    if (!at || *at >= pos_) return false;
    const std::size_t saved = pos_;
    pos_ = static_cast<std::size_t>(*at) + start_;
    const bool ok = as_type ? type(out, depth + 1) : path(out, depth + 1);
    pos_ = saved;
    return ok;
  }

  bool generic_args(int depth) {
    std::string ignored;
    while (!eat('E')) {
      if (pos_ >= s_.size()) return false;
      if (eat('L')) {
        if (!base62()) return false;
      } else if (eat('K')) {
        if (!constant(depth)) return false;
      } else if (!type(ignored, depth + 1)) {
        return false;
      }
    }
    return true;
  }

  bool constant(int depth) {
    if (eat('p')) return true;
    if (pos_ < s_.size() && s_[pos_] == 'B') {
      ++pos_;
      return base62().has_value();
    }
    std::string ignored;
    if (!type(ignored, depth + 1)) return false;
    eat('n');
    while (pos_ < s_.size() && s_[pos_] != '_') ++pos_;
    return eat('_');
  }

  bool type(std::string& out, int depth) {
    if (depth > kMaxDepth || pos_ >= s_.size()) return false;
    const char c = s_[pos_];
    constexpr std::string_view kBasic = "abcdefhijlmnostuvxyz";
    if (is_lower(c) && kBasic.find(c) != std::string_view::npos) {
      ++pos_;
      out.append(basic_name(c));
      return true;
    }
    switch (c) {
      case 'R':
      case 'Q':
        ++pos_;
        if (pos_ < s_.size() && s_[pos_] == 'L') {
          ++pos_;
          if (!base62()) return false;
        }
        out.append(c == 'R' ? "&" : "&mut ");
        return type(out, depth + 1);
      case 'P':
      case 'O':
        ++pos_;
        out.append(c == 'P' ? "*const " : "*mut ");
        return type(out, depth + 1);
      case 'S':
        ++pos_;
        out.push_back('[');
        if (!type(out, depth + 1)) return false;
        out.push_back(']');
        return true;
      case 'A':
        ++pos_;
        out.push_back('[');
        if (!type(out, depth + 1)) return false;
        out.append("; _]");
        return constant(depth + 1);
      case 'T': {
        ++pos_;
        out.push_back('(');
        bool first = true;
        while (!eat('E')) {
          if (!first) out.append(", ");
          first = false;
          if (!type(out, depth + 1)) return false;
        }
        out.push_back(')');
        return true;
      }
      case 'B': ++pos_; return backref(out, depth, true);
      default: return path(out, depth + 1);
    }
  }

  static std::string_view basic_name(char c) {
    switch (c) {
      case 'a': return "i8";
      case 'b': return "bool";
      case 'c': return "char";
      case 'd': return "f64";
      case 'e': return "str";
      case 'f': return "f32";
      case 'h': return "u8";
      case 'i': return "isize";
      case 'j': return "usize";
      case 'l': return "i32";
      case 'm': return "u32";
      case 'n': return "i128";
      case 'o': return "u128";
      case 's': return "i16";
      case 't': return "u16";
      case 'u': return "()";
      case 'v': return "...";
      case 'x': return "i64";
      case 'y': return "u64";
      case 'z': return "!";
      default: return "_";
    }
  }

  bool path(std::string& out, int depth) {
    if (depth > kMaxDepth || pos_ >= s_.size()) return false;
    const char c = s_[pos_++];
    switch (c) {
      case 'C': return identifier(out);  // crate root
      case 'N': {
        if (pos_ >= s_.size()) return false;
        const char ns = s_[pos_++];
        if (!path(out, depth + 1)) return false;
        std::string name;
        if (!identifier(name)) return false;
        out.append("::");
        if (is_upper(ns)) {  // closures, shims: "{closure#0}"
          out.append(ns == 'C' ? "{closure" : ns == 'S' ? "{shim" : "{");
          if (!name.empty()) out.append(":").append(name);
          out.append("#0}");
        } else {
          out.append(name);
        }
        return true;
      }
      case 'M': {  // inherent impl: <Type>
        if (!disambiguator()) return false;
        std::string ignored;
        if (!path(ignored, depth + 1)) return false;
        out.push_back('<');
        if (!type(out, depth + 1)) return false;
        out.push_back('>');
        return true;
      }
      case 'X': {  // trait impl: <Type as Trait>
        if (!disambiguator()) return false;
        std::string ignored;
        if (!path(ignored, depth + 1)) return false;
        out.push_back('<');
        if (!type(out, depth + 1)) return false;
        out.append(" as ");
        if (!path(out, depth + 1)) return false;
        out.push_back('>');
        return true;
      }
      case 'Y': {  // <Type as Trait> without impl path
        out.push_back('<');
        if (!type(out, depth + 1)) return false;
        out.append(" as ");
        if (!path(out, depth + 1)) return false;
        out.push_back('>');
        return true;
      }
      case 'I':  // generic arguments: the path without them
        if (!path(out, depth + 1)) return false;
        return generic_args(depth + 1);
      case 'B': return backref(out, depth, false);
      default: return false;
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  std::size_t start_ = 0;
};

// Itanium C++: "_Z" <encoding>; only the name is kept (parameters dropped). Reads
// <source-name>, <nested-name> (N ... E with cv/ref qualifiers), "St", template args skipped,
// constructors and destructors; gives up on substitutions and operators.
class Itanium {
 public:
  explicit Itanium(std::string_view s) : s_(s) {}

  std::optional<std::string> run() {
    std::vector<std::string> parts;
    if (pos_ < s_.size() && s_[pos_] == 'N') {
      ++pos_;
      while (pos_ < s_.size() &&
             (s_[pos_] == 'r' || s_[pos_] == 'V' || s_[pos_] == 'K' || s_[pos_] == 'R' || s_[pos_] == 'O'))
        ++pos_;
      if (s_.substr(pos_, 2) == "St") {
        parts.emplace_back("std");
        pos_ += 2;
      }
      while (pos_ < s_.size() && s_[pos_] != 'E') {
        if (!component(parts)) return std::nullopt;
      }
      if (pos_ >= s_.size()) return std::nullopt;
    } else {
      if (s_.substr(pos_, 2) == "St") {
        parts.emplace_back("std");
        pos_ += 2;
      }
      if (!component(parts)) return std::nullopt;
    }
    if (parts.empty()) return std::nullopt;
    // Rust's legacy mangling ends the path with "h" and 16 hex digits: a hash, not a name.
    const std::string& last = parts.back();
    if (parts.size() > 1 && last.size() == 17 && last[0] == 'h' &&
        last.find_first_not_of("0123456789abcdef", 1) == std::string::npos)
      parts.pop_back();
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (i) out.append("::");
      out.append(parts[i]);
    }
    return out;
  }

 private:
  bool component(std::vector<std::string>& parts) {
    const char c = s_[pos_];
    if (is_digit(c)) {
      std::size_t n = 0;
      const std::size_t start = pos_;
      while (pos_ < s_.size() && is_digit(s_[pos_]) && pos_ - start < 6)
        n = n * 10 + static_cast<std::size_t>(s_[pos_++] - '0');
      if (n == 0 || pos_ + n > s_.size()) return false;
      parts.emplace_back(s_.substr(pos_, n));
      pos_ += n;
      return true;
    }
    if (c == 'I') {  // template arguments: skipped, balanced
      int depth = 0;
      do {
        if (pos_ >= s_.size()) return false;
        if (s_[pos_] == 'I') ++depth;
        if (s_[pos_] == 'E') --depth;
        ++pos_;
      } while (depth > 0);
      return true;
    }
    if ((c == 'C' || c == 'D') && pos_ + 1 < s_.size() && is_digit(s_[pos_ + 1]) && !parts.empty()) {
      const std::string cls = parts.back();
      parts.push_back(c == 'C' ? cls : "~" + cls);
      pos_ += 2;
      return true;
    }
    return false;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace

std::optional<std::string> demangle_symbol(std::string_view symbol) {
  if (symbol.size() > 3 && symbol.starts_with("_R")) {
    RustV0 d(symbol.substr(2));
    return d.run();
  }
  if (symbol.size() > 3 && symbol.starts_with("_Z")) {
    Itanium d(symbol.substr(2));
    return d.run();
  }
  return std::nullopt;
}

}  // namespace btaudit
