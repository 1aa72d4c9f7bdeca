// The body of crash's `btaudit` command: parse, gather the dump's facts from
// crash, run analyze_dump over crash's memory and print what btaudit vmcore
// prints. No exception may leave this file: crash is C and would abort.
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "analysis/dump_analysis.h"
#include "analysis/view_selection.h"
#include "crash_args.h"
#include "crash_bridge.h"
#include "crash_facts.h"
#include "crash_memory.h"
#include "dump_render/dump_render.h"
#include "dump_render/irqstate_text.h"
#include "provider/debuginfo_error.h"

namespace btaudit {

namespace {

void write(const std::string& s) { btaudit_crash_write(s.data(), s.size()); }

struct BtTarget {
  std::optional<int> cpu;      // none: every CPU (or, with `blocked`, the task's own view)
  std::optional<int> blocked;  // a task crash does not see running: walked from its inactive_task_frame
};

// What `bt` and `words` show: every CPU, the CPU of -c or of the named task (crash's
// current context when none is named), or a task that was not running.
std::optional<BtTarget> bt_target(const CrashRequest& r) {
  if (r.all_cpus) return BtTarget{};
  if (r.cpu) return BtTarget{r.cpu, std::nullopt};
  std::uint64_t task = 0, pid = 0;
  int cpu = -1;
  char comm[32] = {};
  const std::string arg = r.task.value_or("");
  if (!btaudit_crash_find_task(arg.c_str(), &task, &pid, &cpu, comm, sizeof comm)) {
    // crash 8.0.2 cannot read the PID hash of some kernels (6.1's) and knows only the
    // running tasks; btaudit reads init_task's list itself, so a PID is still worth a try.
    const bool numeric = !arg.empty() && arg.size() < 10 && arg.find_first_not_of("0123456789") == std::string::npos;
    if (numeric) return BtTarget{std::nullopt, std::stoi(arg)};
    write("btaudit: no task " + arg + "\n");
    return std::nullopt;
  }
  if (cpu < 0) return BtTarget{std::nullopt, static_cast<int>(pid)};
  return BtTarget{cpu, std::nullopt};
}

int run(const CrashRequest& r) {
  BtTarget target;
  const bool walks = r.action == "bt" || r.action == "words";
  if (walks) {
    auto t = bt_target(r);
    if (!t) return 0;
    target = *t;
  }
  CrashMemory memory(btaudit_crash_dumpfile());
  const DumpFacts facts = crash_dump_facts(memory);
  DumpAnalysisOptions options;
  options.vmlinux = btaudit_crash_vmlinux();
  // The modules whose debuginfo crash loaded ("mod -s", "mod -S"; kbuild's NAME.o as readily as
  // NAME.ko): their frames get file:line from the same files.
  for (int i = 0; i < 100000; ++i) {
    const char* name = nullptr;
    const char* file = btaudit_crash_module_debuginfo(i, &name);
    if (!file) break;
    if (name) options.module_files.emplace_back(name, file);
  }
  options.with_log = r.action == "log" || r.action == "analyze";
  options.words = r.action == "words";
  if (target.blocked) options.task_pids.push_back(*target.blocked);
  // vmlinux's profile (debuginfo/kernel_profile.h): every command after the first in a
  // crash session, and every later session on the kernel, skips reading its DWARF.
  options.cache.enabled = true;
  const DumpAnalysis a = analyze_dump(memory, facts, &memory, options);
  if (const std::string problem = a.info->save_profile(); !problem.empty())
    write("btaudit: note: profile not saved: " + problem + "\n");
  std::vector<int> pids;
  if (target.blocked) pids.push_back(*target.blocked);
  const ViewSelection view = select_view(a.model, target.cpu, pids);
  if (!view.missing_pids.empty()) {
    write("btaudit: PID " + std::to_string(view.missing_pids.front()) + " is not on the kernel's task list\n");
    return 0;
  }
  if (!view.error.empty()) {
    write("btaudit: " + view.error + "\n");
    return 0;
  }
  const TextStyle style;  // no colour: crash's output goes through its pager or a pipe
  if (r.json)
    write(render_dump_json(a.model, view.only_cpu));
  else if (r.action == "irqstate")
    write(render_irq_state_text(a.model));
  else if (r.action == "bt")
    write(render_dump_text(a.model, style, view.only_cpu, false));
  else if (r.action == "words")
    write(render_words_text(a.model, view.only_cpu));
  else if (r.action == "log")
    write(render_dump_reports_text(a.model, style));
  else
    write(render_dump_text(a.model, style, kAllCpus, true));
  return 0;
}

}  // namespace

}  // namespace btaudit

extern "C" int btaudit_crash_command(int argc, char** argv) {
  using namespace btaudit;
  try {
    std::vector<std::string> args;
    for (int i = 1; i < argc && i < 64 && argv[i]; ++i) args.emplace_back(argv[i]);
    std::string error;
    auto request = parse_crash_args(args, error);
    if (!request) {
      write("btaudit: " + error + "\n");
      return BTAUDIT_CRASH_USAGE;
    }
    return run(*request);
  } catch (const DumpError& e) {
    write(std::string("btaudit: ") + e.what() + "\n");
  } catch (const DebugInfoError& e) {
    write(std::string("btaudit: ") + e.what() + "\n");
  } catch (const std::exception& e) {
    write(std::string("btaudit: internal error: ") + e.what() + "\n");
  } catch (...) {
    write("btaudit: internal error\n");
  }
  return 0;
}
