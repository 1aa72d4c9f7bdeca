// The arguments of crash's `btaudit` command:
//   btaudit irqstate [-j] | bt|words [-a | -c CPU | PID | TASK] [-j] | log [-j] | analyze [-j]
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace btaudit {

struct CrashRequest {
  std::string action;  // "irqstate", "bt", "words", "log", "analyze"
  bool json = false;
  bool all_cpus = false;            // bt/words -a
  std::optional<int> cpu;           // bt/words -c CPU
  std::optional<std::string> task;  // bt/words PID or task_struct address
};

// `args` without the command name. Nothing, and `error` set, on a usage error.
std::optional<CrashRequest> parse_crash_args(const std::vector<std::string>& args, std::string& error);

}  // namespace btaudit
