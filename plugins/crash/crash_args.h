// The arguments of crash's `btaudit` command:
//   btaudit irqstate [-j] | bt [-a | -c CPU | PID | TASK] [-j] | log [-j] | analyze [-j]
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace btaudit {

struct CrashRequest {
  std::string action;  // "irqstate", "bt", "log", "analyze"
  bool json = false;
  bool all_cpus = false;            // bt -a
  std::optional<int> cpu;           // bt -c CPU
  std::optional<std::string> task;  // bt PID or task_struct address
};

// `args` without the command name. Nothing, and `error` set, on a usage error.
std::optional<CrashRequest> parse_crash_args(const std::vector<std::string>& args, std::string& error);

}  // namespace btaudit
