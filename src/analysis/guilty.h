// The guilty frame: the first frame of the crashing context's trace that the
// unwinder vouched for and that is not part of the reporting machinery.
#pragma once
#include <optional>

#include "analysis/title_engine.h"
#include "model/report.h"

namespace btaudit {

std::optional<std::size_t> find_guilty_frame(const Report& report);
// The same, from title rules already applied to report.text: the frame that names the bug in the title.
std::optional<std::size_t> find_guilty_frame(const Report& report, const std::optional<RuleTitle>& rules);

}  // namespace btaudit
