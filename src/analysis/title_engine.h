// Applies the rules of title_rules.h to a report's console lines: finds the
// line that starts the report, the family's format that fits it earliest, and
// the function that names the bug (syzkaller's "... in <func>").
#pragma once
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
// False when no family's header (title_rules.h) can be in `line`: no two adjacent bytes of it
// are a header's first two.
bool may_hold_header(std::string_view line);
}  // namespace title_engine_detail

}  // namespace btaudit
