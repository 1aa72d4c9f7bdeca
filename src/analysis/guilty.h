// The guilty frame: the first frame of the crashing context's trace that the
// unwinder vouched for and that is not part of the reporting machinery.
#pragma once
#include <optional>

#include "model/report.h"

namespace btaudit {

std::optional<std::size_t> find_guilty_frame(const Report& report);

}  // namespace btaudit
