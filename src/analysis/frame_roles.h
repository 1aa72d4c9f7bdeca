// What part a function plays in a report, by name: the machinery that prints
// reports (never the culprit), the functions that end a stack's chain, and
// interrupt/exception entry code. Lists are documented in man/btaudit.1.
#pragma once
#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace btaudit {

namespace frame_roles_detail {
// Bit (b0 | b1 << 8) of a list's table is set when some name or prefix of the list starts with
// the bytes b0, b1 (every one has two bytes or more).
using HeadTable = std::array<std::uint64_t, 1024>;
extern const HeadTable kReportingHeads;
extern const HeadTable kTerminalHeads;
extern const HeadTable kEntryHeads;
// The bit of a name's first two bytes (the name has two or more).
constexpr unsigned head_key(std::string_view f) {
  return static_cast<unsigned>(static_cast<unsigned char>(f[0])) |
         static_cast<unsigned>(static_cast<unsigned char>(f[1])) << 8U;
}
// Whether f's first two bytes start some entry of the list whose table is `heads`: when not, f
// plays no part of the list's, told inline without a call (the roles are asked of every frame).
inline bool may_start_entry(const HeadTable& heads, std::string_view f) {
  if (f.size() < 2) return false;
  const unsigned key = head_key(f);
  return ((heads[key / 64] >> (key % 64)) & 1) != 0;
}
bool is_listed_reporting_machinery(std::string_view function);
bool is_listed_chain_terminal(std::string_view function);
bool is_listed_entry_code(std::string_view function);
}  // namespace frame_roles_detail

// dump_stack, __warn, report_bug, die, page_fault_oops, kasan_report, lockdep's printers, ...
inline bool is_reporting_machinery(std::string_view function) {
  return frame_roles_detail::may_start_entry(frame_roles_detail::kReportingHeads, function) &&
         frame_roles_detail::is_listed_reporting_machinery(function);
}

// The bottom frame of a stack: nothing the unwinder reports lies below it
// (ret_from_fork, entry_SYSCALL_64_after_hwframe, secondary_startup_64, ...).
inline bool is_chain_terminal(std::string_view function) {
  return frame_roles_detail::may_start_entry(frame_roles_detail::kTerminalHeads, function) &&
         frame_roles_detail::is_listed_chain_terminal(function);
}

// Interrupt and exception entry stubs (asm_sysvec_*, apic_timer_interrupt, ret_from_intr, ...).
inline bool is_entry_code(std::string_view function) {
  return frame_roles_detail::may_start_entry(frame_roles_detail::kEntryHeads, function) &&
         frame_roles_detail::is_listed_entry_code(function);
}

// Whether a frame name matches a skip pattern: "^x" must start with x, "x$"
// must end with x, "^x$" must equal x, anything else is a substring.
bool matches_frame_pattern(std::string_view function, std::string_view pattern);

// A fixed list of matches_frame_pattern patterns, indexed so that a name is compared
// with the few patterns that can match it rather than with all of them (title rules
// ask this of every frame they read). matches(f) is true when some pattern matches f.
// The patterns are not copied: they must outlive the set (in practice, static tables).
class FramePatternSet {
 public:
  explicit FramePatternSet(std::span<const std::string_view> patterns);
  bool matches(std::string_view function) const;

 private:
  static constexpr std::size_t kQuadBuckets = 512;
  // A hash of the four bytes at p into 16 bits (the bytes as one word in the machine's order,
  // the same for patterns and names: one load; Fibonacci hashing).
  static std::size_t quad_key(const char* p) {
    std::uint32_t w = 0;
    std::memcpy(&w, p, 4);
    return (w * 0x9E3779B1u) >> 16;
  }
  struct Head {
    std::string_view core;  // x of "^x" / "^x$"
    bool whole;             // "^x$": the name is x
  };
  std::span<const std::string_view> all_;
  // Substrings of 4+ characters, by their first four (hashed): matches tests each position of
  // a name with one bit of inner_quads_ (most positions start none), and compares the bucket's
  // substrings only where the bit is set.
  std::array<std::vector<std::string_view>, kQuadBuckets> inner_{};
  std::array<std::uint64_t, 1024> inner_quads_{};
  // The shortest of those substrings: none starts after a name's last min_inner_ bytes begin.
  std::size_t min_inner_ = 4;
  std::vector<std::string_view> other_;                    // shorter substrings: tried on every name
  std::array<std::vector<Head>, 256> head_{};              // "^x" and "^x$", by x's first character
  std::array<std::vector<std::string_view>, 256> tail_{};  // x of "x$", by x's last character
};

// Functions that never name a bug in a title, whatever the report: sanitizer
// and reporting internals, locking, string and copy helpers, allocators,
// generic device/kobject/workqueue teardown (syzkaller's generic skip list).
bool is_generic_title_frame(std::string_view function);

// "foo.cold", "foo.isra.0", "foo.constprop.3", "foo.part.1" -> "foo".
std::string_view base_function_name(std::string_view function);

namespace frame_roles_detail {
// The lists behind is_reporting_machinery, is_chain_terminal and is_entry_code, for their tests:
// f plays the role when its base name is one of `names` or starts with one of `prefixes`.
struct RoleLists {
  std::span<const std::string_view> names;
  std::span<const std::string_view> prefixes;
};
RoleLists reporting_lists();
RoleLists terminal_lists();
RoleLists entry_lists();
}  // namespace frame_roles_detail

}  // namespace btaudit
