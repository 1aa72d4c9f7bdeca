// An output stream named on the command line ('-' is standard output): writes
// are checked, and close() reports a failed write (a full disk, a closed pipe)
// as an error naming the file instead of losing output silently.
#pragma once
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

namespace btaudit {

class OutputFile {
 public:
  explicit OutputFile(std::string path) : path_(std::move(path)) {
    if (path_ == "-") {
      file_ = stdout;
      return;
    }
    file_ = std::fopen(path_.c_str(), "w");
    if (!file_) throw std::runtime_error(path_ + ": cannot write: " + std::strerror(errno));
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile() {
    if (file_ && file_ != stdout) std::fclose(file_);
  }

  void write(std::string_view data) {
    if (!data.empty() && std::fwrite(data.data(), 1, data.size(), file_) != data.size()) fail();
  }
  void close() {
    if (!file_) return;
    const bool failed = std::fflush(file_) != 0 || std::ferror(file_);
    if (file_ != stdout) std::fclose(file_);
    file_ = nullptr;
    if (failed) fail();
  }

 private:
  [[noreturn]] void fail() const {
    throw std::runtime_error((path_ == "-" ? std::string("standard output") : path_) +
                             ": write failed: " + std::strerror(errno));
  }
  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace btaudit
