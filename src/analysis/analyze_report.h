// Runs every text-only analysis on a parsed report: verdicts, guilty frame,
// title, signature.
#pragma once
#include "model/report.h"

namespace btaudit {

void analyze_report(Report& report);

}  // namespace btaudit
