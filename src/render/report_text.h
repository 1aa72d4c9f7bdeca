// Human-readable output: a summary on top (title, kind, context, guilty
// frame), then the trace re-printed with a stack column and a verdict column,
// with a banner at every stack switch, then the reasons used.
#pragma once
#include <string>

#include "model/report.h"

namespace btaudit {

struct TextStyle {
  bool colour = false;  // ANSI colours; the CLI turns them on only for a TTY
};

std::string render_text(const Report& r, const TextStyle& style);
// render_text appended to `out` (one buffer for a whole run's reports).
void append_text(std::string& out, const Report& r, const TextStyle& style);

}  // namespace btaudit
