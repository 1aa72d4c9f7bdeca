// The one-line progress display of `btaudit batch` on a terminal: inputs,
// reports, MB/s and, once the corpus has been sized, the time left.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>

namespace btaudit {

struct ProgressFigures {
  std::uint64_t inputs = 0;
  std::uint64_t reports = 0;
  std::uint64_t bytes = 0;
  std::uint64_t total_inputs = 0;  // 0 while unknown
  std::uint64_t total_bytes = 0;
};

class ProgressMeter {
 public:
  explicit ProgressMeter(std::FILE* out) : out_(out), start_(std::chrono::steady_clock::now()) {}
  void show(const ProgressFigures& f);  // redraws the line
  void finish();                        // clears it

 private:
  std::FILE* out_;  // nullptr: disabled
  std::chrono::steady_clock::time_point start_;
  bool drawn_ = false;
};

}  // namespace btaudit
