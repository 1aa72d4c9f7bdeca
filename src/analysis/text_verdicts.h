// Verdicts for every frame from the text alone (no debuginfo, no memory).
// The rules, in the order they are tried, are documented under RULES in
// man/btaudit.1; each stamps a Reason.
#pragma once
#include "model/report.h"

namespace btaudit {

void assign_text_verdicts(Report& report);

}  // namespace btaudit
