#include "analysis/view_selection.h"

namespace btaudit {

ViewSelection select_view(const DumpModel& d, std::optional<int> cpu, const std::vector<int>& pids) {
  ViewSelection v;
  v.missing_pids = d.missing_pids;
  if (!v.missing_pids.empty()) {
    v.error = "no task with PID " + std::to_string(v.missing_pids.front());
    return v;
  }
  if (cpu) {
    v.only_cpu = *cpu;
    bool known = false;
    for (const StackWalk& w : d.cpus) known = known || w.state.cpu == *cpu;
    if (!known)
      v.error = "no CPU " + std::to_string(*cpu) + " in this dump (" + std::to_string(d.cpus.size()) + " CPUs)";
    return v;
  }
  if (pids.empty()) return v;
  v.only_cpu = kNoCpus;
  for (int pid : d.running_pids)
    for (const StackWalk& w : d.cpus)
      if (w.state.pid == pid) v.only_cpu = w.state.cpu;
  if (d.running_pids.size() > 1 || (!d.running_pids.empty() && !d.tasks.empty()))
    v.only_cpu = kAllCpus;  // tasks on several CPUs, or a mix: show everything rather than hide one
  if (v.only_cpu == kNoCpus && d.tasks.empty()) v.error = "PID " + std::to_string(pids.front()) + " was not walked";
  return v;
}

}  // namespace btaudit
