// A limit an analysis reached, said rather than hidden.
#pragma once
#include <cstdint>
#include <string>

namespace btaudit {

// A limit reached while reading or checking a report: what was left out is
// counted and said (text: "truncated: ...", JSON: "truncated"), never dropped
// in silence. man/btaudit.1, LIMITS, lists every limit.
struct Truncation {
  std::string what;         // "frames", "traces", "modules", "registers", "long lines", "call-site checks"
  std::uint64_t seen = 0;   // how many there were
  std::uint64_t kept = 0;   // how many were kept (or checked)
  std::uint64_t limit = 0;  // the limit, in `unit`
  std::string unit;         // "" (a count), "bytes", "ms"
  std::string option;       // the option that sets it ("--max-frames"), "" for a fixed bound
};

// One line for people: "frames: 4096 of 5000 kept (limit 4096, --max-frames)".
std::string describe(const Truncation& t);

}  // namespace btaudit
