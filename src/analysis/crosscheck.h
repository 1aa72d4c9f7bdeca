// Cross-checks a trace the kernel printed into its log with the walk of the
// same CPU's stacks at dump time: every printed frame that can still be on
// the stack must be found, in order, with the same name, offset, size, '?'
// mark and stack -- or differ exactly as the way the kernel printed the trace
// predicts (a trace printed from a pt_regs: see crosscheck.cpp).
#pragma once
#include "model/crosscheck.h"
#include "model/report.h"
#include "model/walked_stack.h"

namespace btaudit {

Crosscheck crosscheck(const Report& report, std::size_t report_index, const StackWalk& walk);

}  // namespace btaudit
