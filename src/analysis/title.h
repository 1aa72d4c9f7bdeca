// Titles in syzkaller's conventions ("WARNING in foo", "KASAN: use-after-free
// Read in bar", "INFO: task hung in baz"), so a title can be searched on
// syzbot and LKML as it is.
#pragma once
#include <optional>
#include <string>

#include "analysis/title_engine.h"
#include "model/report.h"

namespace btaudit {

std::string make_title(const Report& report);
// The same, from title rules already applied to report.text (title_from_rules).
std::string make_title(const Report& report, const std::optional<RuleTitle>& rules);

// The title from the structured fields alone (reports without console lines,
// or lines no rule claims): kind, header and guilty frame.
std::string fallback_title(const Report& report);

}  // namespace btaudit
