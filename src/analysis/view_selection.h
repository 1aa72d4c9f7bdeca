// Which part of a dump a command shows, decided once for the command line
// (btaudit vmcore -c/--pid) and the crash extension (btaudit bt -c/PID/TASK):
// a CPU by number, or tasks by PID -- a running task through its CPU's walk,
// a switched-out one through the walk from its scheduler frame.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "model/dump.h"

namespace btaudit {

struct ViewSelection {
  int only_cpu = kAllCpus;        // kAllCpus, kNoCpus or a CPU number
  std::vector<int> missing_pids;  // asked for, but not on the dump's task list
  std::string error;              // non-empty: the request names nothing in the dump
};

// `cpu`: -c; `pids`: the tasks asked for (each also given to analyze_dump as a task
// to walk). With tasks and no CPU: only the tasks, unless exactly one of them was
// running and none was switched out (then that CPU), or several ran (then every CPU).
ViewSelection select_view(const DumpModel& dump, std::optional<int> cpu, const std::vector<int>& pids);

}  // namespace btaudit
