#include "analysis/signature.h"

#include <cstdio>

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
  // The title is syzkaller's own dedup key: it names the failure class and the
  // function with numbers, addresses, PIDs and '?' frames normalized away, and
  // reports that share it are one bug (syzbot merges them). Frames are left out
  // on purpose: the same bug reached through another caller must stay one bug.
  mix(h, r.title);
  return h;
}

}  // namespace btaudit
