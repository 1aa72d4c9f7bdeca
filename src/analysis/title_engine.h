// Applies the rules of title_rules.h to a report's console lines: finds the
// line that starts the report, the family's format that fits it earliest, and
// the function that names the bug (syzkaller's "... in <func>").
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace btaudit {

struct RuleTitle {
  std::string title;       // not yet normalized (title_normalize.h)
  std::string frame;       // the function as printed (before syscall prefixes are cut), "" if none
  bool corrupted = false;  // the format is a "corrupted" one, or the stack named no function
};

// `lines`: the report's console lines (Report::text).
std::optional<RuleTitle> title_from_rules(const std::vector<std::string_view>& lines);
// The same, the lines joined by '\n'.
std::optional<RuleTitle> title_from_rules(std::string_view text);

// For the tests of title_from_rules' shortcuts.
namespace title_engine_detail {
// A syscall wrapper's name without its prefix ("__x64_sys_read" -> "read", the shortest
// the prefixes leave); other names as they are.
std::string_view strip_syscall_prefix(std::string_view f);

// contains(line, "interrupt:"), searched from the line's ':' (title_from_rules' own, for its test).
bool holds_interrupt_colon_for_test(std::string_view line);
// False when `line` holds none of the AnyOf alternatives of the rule table (for its test).
bool may_hold_any_of_for_test(std::string_view line);

// False when no family's header (title_rules.h) can be in `line`: no four adjacent bytes of it
// are a header's first four (as hashed).
bool may_hold_header(std::string_view line);

// Whether no fault injection line is left at or after a line: past the report's last one no
// line can make a stack's pick unreliable, so a stack whose pick is settled need not be read
// to its end (title_from_rules). Asked only once the pick is settled, with positions that
// never go back, and worked out on the first: for every li at or after the first asked, the
// answer is li >= last_fault_end(lines, 0), the report's whole-text bound.
class FaultsPassed {
 public:
  explicit FaultsPassed(const std::vector<std::string_view>& lines) : lines_(lines) {}
  // Inline: asked on every line a settled stack reads; only the first question searches.
  bool operator()(std::size_t li) {
    if (!known_) {
      end_ = last_fault_end(lines_, li);
      known_ = true;
    }
    return li >= end_;
  }
  // One past the last fault injection line at or after `from`; `from` when there is none.
  static std::size_t last_fault_end(const std::vector<std::string_view>& lines, std::size_t from);

 private:
  const std::vector<std::string_view>& lines_;
  std::size_t end_ = 0;  // last_fault_end(lines_, first li asked)
  bool known_ = false;
};
}  // namespace title_engine_detail

}  // namespace btaudit
