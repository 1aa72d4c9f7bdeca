// Turns one CPU's dump walk into the model's frames, so the same verdict
// rules and call-site checks that judge printed traces judge walked ones.
#pragma once
#include "analysis/debug_analysis.h"
#include "debuginfo/kernel_debuginfo.h"
#include "model/report.h"
#include "vmcore/cpu_walk.h"

namespace btaudit {

// A report whose frames are the walk's (RIP lines of pt_regs left out: they
// are registers, not stack entries), each with its slot; verdicts assigned.
Report report_from_walk(const CpuWalk& walk, KernelDebugInfo* debuginfo, const CheckBudget& budget = {});

}  // namespace btaudit
