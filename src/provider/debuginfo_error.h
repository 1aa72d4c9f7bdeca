// The kernel's symbols or types lack what an analysis needs (a wrong or
// unusable vmlinux): one line naming the file and the problem.
#pragma once
#include <stdexcept>
#include <string>

namespace btaudit {

class DebugInfoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace btaudit
