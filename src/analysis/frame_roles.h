// What part a function plays in a report, by name: the machinery that prints
// reports (never the culprit), the functions that end a stack's chain, and
// interrupt/exception entry code. Lists are documented in man/btaudit.1.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace btaudit {

// dump_stack, __warn, report_bug, die, page_fault_oops, kasan_report, lockdep's printers, ...
bool is_reporting_machinery(std::string_view function);

// The bottom frame of a stack: nothing the unwinder reports lies below it
// (ret_from_fork, entry_SYSCALL_64_after_hwframe, secondary_startup_64, ...).
bool is_chain_terminal(std::string_view function);

// Interrupt and exception entry stubs (asm_sysvec_*, apic_timer_interrupt, ret_from_intr, ...).
bool is_entry_code(std::string_view function);

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
  static constexpr std::size_t kPairBuckets = 512;
  static std::size_t pair(char a, char b) {
    return (static_cast<unsigned char>(a) * 31u + static_cast<unsigned char>(b)) % kPairBuckets;
  }
  static std::size_t pair_key(char a, char b) {
    return static_cast<std::size_t>(static_cast<unsigned char>(a)) << 8 | static_cast<unsigned char>(b);
  }
  struct Head {
    std::string_view core;  // x of "^x" / "^x$"
    bool whole;             // "^x$": the name is x
  };
  std::span<const std::string_view> all_;
  std::array<std::vector<std::string_view>, kPairBuckets> inner_{};  // substrings of 3+ characters, by their first two
  // Which positions of a name can start one of inner_'s substrings, one bit test each
  // (matches runs at every position, and most start none): a hash of their first three
  // characters.
  static std::size_t triple_key(char a, char b, char c) {
    return (pair_key(a, b) * 31u + static_cast<unsigned char>(c)) & 0xffffu;
  }
  std::array<std::uint64_t, 1024> inner_triples_{};
  // The same positions' first two characters exactly, one bit per pair: a test cheaper than
  // the triple's hash, made first (most positions fail it).
  std::array<std::uint64_t, 1024> inner_pairs_{};
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
