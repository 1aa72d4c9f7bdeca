#include "batch/input_walk.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace btaudit {

namespace {

// Folder nesting deeper than this is a loop or an attack, not a corpus.
constexpr std::size_t kMaxDepth = 64;

struct DirCloser {
  void operator()(DIR* d) const { ::closedir(d); }
};

std::int64_t mtime_ns_of(const struct stat& st) {
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
}

}  // namespace

void InputUnit::stat_now() {
  if (!unstatted) return;
  unstatted = false;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    error = std::string("cannot open: ") + std::strerror(errno);
    return;
  }
  bytes = static_cast<std::uint64_t>(st.st_size);
  mtime_ns = mtime_ns_of(st);
}

InputWalk::InputWalk(std::vector<std::string> arguments) : arguments_(std::move(arguments)) {}

std::optional<InputUnit> InputWalk::visit(const std::string& path, bool from_argument) {
  InputUnit unit;
  unit.path = path;
  unit.from_argument = from_argument;
  if (path == "-") return unit;
  struct stat st {};
  // stat, not lstat: a symlink to a log is a log. Folder symlinks are not
  // followed below the arguments (see next()), so they cannot loop.
  if (::stat(path.c_str(), &st) != 0) {
    unit.error = std::string("cannot open: ") + std::strerror(errno);
    return unit;
  }
  if (S_ISDIR(st.st_mode)) {
    if (stack_.size() >= kMaxDepth) {
      unit.error = "folder nesting deeper than " + std::to_string(kMaxDepth) + " levels";
      return unit;
    }
    std::unique_ptr<DIR, DirCloser> dir(::opendir(path.c_str()));
    if (!dir) {
      unit.error = std::string("cannot list folder: ") + std::strerror(errno);
      return unit;
    }
    Level level;
    level.dir = path;
    while (const dirent* e = ::readdir(dir.get())) {
      const std::string_view name = e->d_name;
      if (name == "." || name == "..") continue;
      level.names.emplace_back(name, e->d_type);
    }
    std::sort(level.names.begin(), level.names.end());
    stack_.push_back(std::move(level));
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    unit.error = "not a regular file";
    return unit;
  }
  unit.bytes = static_cast<std::uint64_t>(st.st_size);
  unit.mtime_ns = mtime_ns_of(st);
  return unit;
}

std::optional<InputUnit> InputWalk::next() {
  for (;;) {
    if (!stack_.empty()) {
      Level& top = stack_.back();
      if (top.next == top.names.size()) {
        stack_.pop_back();
        continue;
      }
      std::string path = top.dir;
      if (path.empty() || path.back() != '/') path += '/';
      const auto& [name, type] = top.names[top.next++];
      path += name;
      // Below an argument, a symlinked folder is skipped rather than followed: following
      // it could visit the same files twice or loop forever. (readdir's d_type says
      // which entries are links; DT_UNKNOWN file systems get an lstat.)
      struct stat lst {};
      const bool link =
          type == DT_LNK || (type == DT_UNKNOWN && ::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode));
      if (link) {
        struct stat st {};
        if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;
      }
      if (type == DT_REG) {  // a regular file: no stat needed to know what it is
        InputUnit unit;
        unit.path = std::move(path);
        unit.unstatted = true;
        return unit;
      }
      if (auto unit = visit(path, false)) return unit;
      continue;
    }
    if (next_argument_ == arguments_.size()) return std::nullopt;
    if (auto unit = visit(arguments_[next_argument_++], true)) return unit;
  }
}

}  // namespace btaudit
