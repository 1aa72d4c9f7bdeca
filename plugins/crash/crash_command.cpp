// The body of crash's `btaudit` command: parse, gather the dump's facts from
// crash, run analyze_dump over crash's memory and print what btaudit vmcore
// prints. No exception may leave this file: crash is C and would abort.
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "analysis/dump_analysis.h"
#include "crash_args.h"
#include "crash_bridge.h"
#include "crash_facts.h"
#include "crash_memory.h"
#include "debuginfo/debuginfo_error.h"
#include "render/dump_render.h"
#include "render/irqstate_text.h"

namespace btaudit {

namespace {

void write(const std::string& s) { btaudit_crash_write(s.data(), s.size()); }

// Which CPU `bt` shows: -1 for all, else the CPU of -c or of the named task
// (crash's current context when none is named). Nothing after an explained refusal.
std::optional<int> bt_cpu(const CrashRequest& r) {
  if (r.all_cpus) return -1;
  if (r.cpu) return *r.cpu;
  std::uint64_t task = 0, pid = 0;
  int cpu = -1;
  char comm[32] = {};
  const std::string arg = r.task.value_or("");
  if (!btaudit_crash_find_task(arg.c_str(), &task, &pid, &cpu, comm, sizeof comm)) {
    write("btaudit: no task " + arg + "\n");
    return std::nullopt;
  }
  if (cpu < 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "btaudit: PID %llu (%s, task %llx) was not running on a CPU at dump time\n",
                  static_cast<unsigned long long>(pid), comm, static_cast<unsigned long long>(task));
    write(std::string(buf) +
          "btaudit: it has no registers in the dump; btaudit bt walks the CPUs' stacks (crash's bt shows this task)\n");
    return std::nullopt;
  }
  return cpu;
}

int run(const CrashRequest& r) {
  int only_cpu = -1;
  if (r.action == "bt") {
    auto cpu = bt_cpu(r);
    if (!cpu) return 0;
    only_cpu = *cpu;
  }
  CrashMemory memory(btaudit_crash_dumpfile());
  const DumpFacts facts = crash_dump_facts(memory);
  DumpAnalysisOptions options;
  options.vmlinux = btaudit_crash_vmlinux();
  options.with_log = r.action == "log" || r.action == "analyze";
  const DumpAnalysis a = analyze_dump(memory, facts, &memory, options);
  if (only_cpu >= 0) {
    bool known = false;
    for (const CpuWalk& cw : a.walk.cpus) known = known || cw.state.cpu == only_cpu;
    if (!known) {
      write("btaudit: no CPU " + std::to_string(only_cpu) + " in this dump (" + std::to_string(a.walk.cpus.size()) +
            " CPUs)\n");
      return 0;
    }
  }
  const TextStyle style;  // no colour: crash's output goes through its pager or a pipe
  if (r.json)
    write(render_dump_json(a, only_cpu));
  else if (r.action == "irqstate")
    write(render_irq_state_text(a));
  else if (r.action == "bt")
    write(render_dump_text(a, style, only_cpu, false));
  else if (r.action == "log")
    write(render_dump_reports_text(a, style));
  else
    write(render_dump_text(a, style, -1, true));
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
