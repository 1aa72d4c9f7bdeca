#include "vmcore/task_list.h"

#include <set>

#include "provider/debuginfo_error.h"

namespace btaudit {

namespace {

constexpr std::size_t kMaxTasks = 1 << 22;  // 4M tasks: PID_MAX_LIMIT; more is a corrupt list

MemberInfo need(TypeProvider& types, const std::string& type, const std::string& member) {
  auto m = types.member(type, member);
  if (!m) throw DebugInfoError("vmlinux has no " + type + "." + member + " in its DWARF: tasks cannot be listed");
  return *m;
}

}  // namespace

TaskList read_task_list(MemorySource& m, SymbolProvider& symbols, TypeProvider& types, const KernelLayout& layout) {
  TaskList out;
  auto init = symbols.find("init_task");
  if (!init) throw DebugInfoError("vmlinux has no init_task symbol: tasks cannot be listed");
  const std::uint64_t init_task = init->address + static_cast<std::uint64_t>(layout.kaslr);
  const MemberInfo tasks = need(types, "task_struct", "tasks");
  const MemberInfo thread_sp = need(types, "task_struct", "thread.sp");
  // Threads: the thread_group list of 2.6 - 6.6, else signal->thread_head + thread_node (6.7+).
  const auto thread_group = types.member("task_struct", "thread_group");
  const auto thread_node = types.member("task_struct", "thread_node");
  const auto signal = types.member("task_struct", "signal");
  const auto thread_head = types.member("signal_struct", "thread_head");
  const auto on_cpu = types.member("task_struct", "on_cpu");

  std::set<std::uint64_t> seen;
  const auto add = [&](std::uint64_t task) {
    if (!seen.insert(task).second) return;
    TaskInfo t;
    t.task = task;
    if (auto pid = m.read_value<std::int32_t>(task + layout.task_pid.offset)) t.pid = *pid;
    std::vector<std::uint8_t> comm(std::min<std::uint64_t>(layout.task_comm.size, 64));
    if (m.read_exact(task + layout.task_comm.offset, comm)) {
      std::size_t n = 0;
      while (n < comm.size() && comm[n]) ++n;
      t.comm.assign(comm.begin(), comm.begin() + static_cast<std::ptrdiff_t>(n));
    }
    t.stack = m.read_u64(task + layout.task_stack.offset).value_or(0);
    t.thread_sp = m.read_u64(task + thread_sp.offset).value_or(0);
    if (on_cpu)
      if (auto v = m.read_value<std::int32_t>(task + on_cpu->offset)) t.on_cpu = *v != 0;
    out.tasks.push_back(std::move(t));
  };
  // Follows a circular list of task_structs linked through `link` (offset in
  // task_struct), starting at the list_head `head`, until it comes back. A list
  // that loops elsewhere stops at the first node met twice; all lists together
  // follow at most 2 * kMaxTasks links, so a dump whose every thread list loops
  // through every task costs linear time, not quadratic.
  std::size_t links = 0;
  const auto follow = [&](std::uint64_t head, std::uint64_t link, bool head_is_member) {
    if (head_is_member) add(head - link);
    std::set<std::uint64_t> here{head};
    std::uint64_t node = head;
    for (;;) {
      if (++links > 2 * kMaxTasks || seen.size() >= kMaxTasks) {
        out.problems.push_back("the task lists hold more than " + std::to_string(kMaxTasks) +
                               " links (a fixed bound): stopped");
        return;
      }
      auto next = m.read_u64(node);
      if (!next) {
        out.problems.push_back("a task list link is not in the dump: the list is cut short");
        return;
      }
      if (*next == head) return;
      if (!here.insert(*next).second) {
        out.problems.push_back("a task list loops without coming back to its head: stopped");
        return;
      }
      node = *next;
      add(node - link);
    }
  };

  follow(init_task + tasks.offset, tasks.offset, true);
  const std::size_t processes = out.tasks.size();
  for (std::size_t i = 0; i < processes; ++i) {
    const std::uint64_t leader = out.tasks[i].task;
    if (thread_group) {
      follow(leader + thread_group->offset, thread_group->offset, true);
    } else if (thread_node && signal && thread_head) {
      auto sig = m.read_u64(leader + signal->offset);
      if (sig && *sig) follow(*sig + thread_head->offset, thread_node->offset, false);
    }
  }
  return out;
}

}  // namespace btaudit
