// The one error type of the dump front end: a dump, or what it says about
// itself, cannot be read. The message names the dump and fits on one line.
#pragma once
#include <stdexcept>

namespace btaudit {

class DumpError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace btaudit
