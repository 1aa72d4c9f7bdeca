// Everything btaudit says about a crash dump, as the renderers see it: the
// dump and its kernel, each CPU's and each switched-out task's walk, the
// reports of the dump's log and their cross-checks. Pure data, made by
// analysis/dump_analysis.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/crosscheck.h"
#include "model/report.h"
#include "model/walked_stack.h"

namespace btaudit {

// Which CPUs a dump view shows (DumpView::only_cpu): every CPU, none (only
// the walked switched-out tasks), or one CPU by number.
inline constexpr int kAllCpus = -1;
inline constexpr int kNoCpus = -2;

struct DumpModel {
  std::string path, format, release, vmlinux;
  std::int64_t kaslr = 0;
  std::string layout;  // the per-CPU layout era the kernel's symbols and types give
  std::uint64_t irq_stack_size = 0;
  std::uint64_t thread_size = 0;
  KernelUnwinder unwinder = KernelUnwinder::Orc;
  int orc_version = 0;  // 0: no ORC (a frame-pointer or guess kernel)
  std::size_t orc_entries = 0;
  std::size_t modules = 0;
  std::vector<std::string> layout_notes;  // each default the layout took
  std::vector<std::string> walk_notes;    // problems setting up the walk (modules, ORC tables)
  std::vector<std::string> notes;         // the rest (registers, tasks, the log)
  std::vector<StackWalk> cpus;
  std::vector<StackWalk> tasks;   // switched-out tasks walked from the scheduler's frame (state.cpu -1)
  std::vector<int> running_pids;  // requested PIDs that were running: their CPU's walk shows them
  std::vector<int> missing_pids;  // requested PIDs the dump's task list does not hold
  std::vector<Report> reports;    // the reports found in the dump's log
  std::vector<Crosscheck> checks;
};

}  // namespace btaudit
