// The cross-check of a trace the kernel printed into its log with the walk of
// the same CPU's stacks at dump time. Pure data (analysis/crosscheck.h makes it).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace btaudit {

struct CrosscheckMismatch {
  std::size_t printed_index = 0;  // into the report's frames
  std::string frame;              // "func+0xoff"
  std::string problem;            // "not on the stack at dump time", "'?' differs", "stack differs", or why expected
};

struct Crosscheck {
  std::size_t report = 0;  // index into the dump's reports
  int cpu = -1;
  std::string scope;       // which printed frames can still be on the stack, and why
  std::string convention;  // how the kernel produced the printed trace (see analysis/print_convention.h)
  std::size_t printed_frames = 0;
  std::size_t matched_frames = 0;
  std::vector<CrosscheckMismatch> mismatches;
  // Differences the printing convention predicts (a frame the walk finds
  // reliable that the kernel printed with '?' by design): counted as matched.
  std::vector<CrosscheckMismatch> explained;
};

}  // namespace btaudit
