// Everything debuginfo adds to a parsed report: the KASLR offset, each
// frame's code address, file:line and inlined callers, and the call-site
// check that proves or refutes '?' frames (and flags reliable frames that
// fail it as evidence of stack corruption, without relabelling them).
#pragma once
#include "debuginfo/kernel_debuginfo.h"
#include "model/report.h"

namespace btaudit {

void apply_debuginfo(Report& report, KernelDebugInfo& debuginfo);

}  // namespace btaudit
