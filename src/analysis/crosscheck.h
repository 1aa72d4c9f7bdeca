// Cross-checks a trace the kernel printed into its log with the walk of the
// same CPU's stacks at dump time: every printed frame that can still be on
// the stack must be found, in order, with the same '?' mark and stack.
#pragma once
#include <string>
#include <vector>

#include "model/report.h"
#include "vmcore/cpu_walk.h"

namespace btaudit {

struct CrosscheckMismatch {
  std::size_t printed_index = 0;  // into the report's frames
  std::string frame;              // "func+0xoff"
  std::string problem;            // "not on the stack at dump time", "'?' differs", "stack differs"
};

struct Crosscheck {
  std::size_t report = 0;  // index into the reports
  int cpu = -1;
  std::string scope;  // which printed frames can still be on the stack, and why
  std::size_t printed_frames = 0;
  std::size_t matched_frames = 0;
  std::vector<CrosscheckMismatch> mismatches;
};

// Returns nullopt-like empty scope when the report names no CPU or its CPU was not walked.
Crosscheck crosscheck(const Report& report, std::size_t report_index, const CpuWalk& walk);

}  // namespace btaudit
