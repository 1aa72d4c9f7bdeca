// Cross-checks a trace the kernel printed into its log with the walk of the
// same CPU's stacks at dump time: every printed frame that can still be on
// the stack must be found, in order, with the same '?' mark and stack.
#pragma once
#include "model/crosscheck.h"
#include "model/report.h"
#include "model/walked_stack.h"

namespace btaudit {

Crosscheck crosscheck(const Report& report, std::size_t report_index, const StackWalk& walk);

}  // namespace btaudit
