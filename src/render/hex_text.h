// Kernel addresses as the dump views print them: 16 hex digits, no prefix.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

namespace btaudit {

inline std::string hex16(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace btaudit
