#include "analysis/signature.h"

#include <cstdio>

#include "analysis/frame_roles.h"

namespace btaudit {

namespace {

constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

void mix(std::uint64_t& h, std::string_view s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= kFnvPrime;
  }
  h ^= 0xff;  // separator, so ("ab","c") and ("a","bc") differ
  h *= kFnvPrime;
}

}  // namespace

std::uint64_t compute_signature(const Report& r) {
  std::uint64_t h = kFnvOffset;
  // The title already names the kind and the guilty function with numbers
  // and addresses normalized away; that is syzkaller's own dedup key.
  mix(h, r.title);
  if (r.title.find(" in ") == std::string::npos) {
    // No function in the title: the top reliable frames tell bugs apart.
    int taken = 0;
    for (const Frame& f : r.frames) {
      if (taken == 3) break;
      if (f.verdict != Verdict::Reliable || !f.function || is_reporting_machinery(*f.function)) continue;
      mix(h, base_function_name(*f.function));
      ++taken;
    }
  }
  return h;
}

std::string signature_hex(std::uint64_t signature) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(signature));
  return buf;
}

}  // namespace btaudit
