// The inputs of a batch run, one at a time: files as named, folders walked
// recursively, '-' for standard input. The order is deterministic (arguments
// in order, each folder's entries by name, depth first) so that reports and
// buckets never depend on the file system's directory order, and the walk
// holds one folder listing per level, never the whole corpus.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace btaudit {

struct InputUnit {
  std::string path;                  // as named, or the folder argument joined with the entry's relative path
  std::uint64_t bytes = 0;           // on-disk size (0 for standard input)
  std::int64_t mtime_ns = 0;         // modification time (0 for standard input)
  std::optional<std::string> error;  // set when it cannot be an input (missing, not a regular file, ...)
  bool from_argument = false;        // named on the command line, not found under a folder
  // A regular file found under a folder (readdir said so) whose size and mtime
  // are not read yet: stat_now() fills them, in the worker that takes it,
  // outside the walk's lock.
  bool unstatted = false;
  void stat_now();
};

class InputWalk {
 public:
  explicit InputWalk(std::vector<std::string> arguments);
  // The next input, or nullopt at the end.
  std::optional<InputUnit> next();

 private:
  struct Level {
    std::string dir;
    std::vector<std::pair<std::string, unsigned char>> names;  // sorted by name; readdir's d_type
    std::size_t next = 0;
  };
  std::optional<InputUnit> visit(const std::string& path, bool from_argument);

  std::vector<std::string> arguments_;
  std::size_t next_argument_ = 0;
  std::vector<Level> stack_;
};

}  // namespace btaudit
