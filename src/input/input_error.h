// The one error type of the input layer: it names the input and the problem,
// and the CLI prints it as one line.
#pragma once
#include <stdexcept>
#include <string>

namespace btaudit {

class InputError : public std::runtime_error {
 public:
  InputError(const std::string& path, const std::string& problem)
      : std::runtime_error(path + ": " + problem), path_(path) {}
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace btaudit
