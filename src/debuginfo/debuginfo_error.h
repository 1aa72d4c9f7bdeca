// Errors of the debuginfo layer: they name the file and the problem.
#pragma once
#include <stdexcept>
#include <string>

namespace btaudit {

class DebugInfoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace btaudit
