// `btaudit vmcore DUMP [analyze|bt|words|irqstate|log|info]`: a crash dump's CPUs,
// stacks, log and reports.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "analysis/dump_analysis.h"
#include "analysis/view_selection.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/debuginfod_options.h"
#include "cli/profile_cache_options.h"
#include "dump_render/dump_render.h"
#include "dump_render/dump_svg.h"
#include "dump_render/irqstate_text.h"
#include "provider/debuginfo_error.h"
#include "render/hex_text.h"
#include "vmcore/kdump_dump.h"
#include "vmcore/printk_log.h"

namespace btaudit {

namespace po = boost::program_options;

namespace {

void write_stdout(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }

void print_info(KdumpDump& dump) {
  std::cout << "dump:     " << dump.path() << " (" << dump.format() << ")\n";
  if (!dump.vmcoreinfo_from_memory().empty())
    std::cout << "vmcoreinfo: none in the file; " << dump.vmcoreinfo_from_memory() << "\n";
  if (auto r = dump.vmcoreinfo("OSRELEASE")) std::cout << "release:  " << *r << "\n";
  if (auto o = dump.vmcoreinfo("KERNELOFFSET")) std::cout << "KASLR:    0x" << *o << " (VMCOREINFO KERNELOFFSET)\n";
  if (auto c = dump.vmcoreinfo("CRASHTIME"))
    std::cout << "crashed:  " << *c << " (VMCOREINFO CRASHTIME: a kdump capture)\n";
  const auto cpus = dump.cpu_registers();
  std::cout << "cpus:     " << cpus.size() << " with register notes\n";
  for (const CpuRegisters& c : cpus)
    std::cout << "  cpu " << c.cpu << "  rip " << hex16(c.get("rip").value_or(0)) << "  rsp "
              << hex16(c.get("rsp").value_or(0)) << "  (NT_PRSTATUS)\n";
}

}  // namespace

int run_vmcore(const std::vector<std::string>& args) {
  std::string format = "text";
  std::string colour = "auto";
  std::vector<std::string> positional;
  std::string vmlinux;
  int cpu = -1;
  std::vector<int> pids;
  DebugInfoOptions debug_options;
  long check_budget_ms = kDefaultCheckBudgetMs;
  long dump_budget_ms = kDefaultDumpBudgetMs;
  po::options_description opts("btaudit vmcore [options] DUMP [analyze|bt|words|irqstate|log|info]");
  opts.add_options()("help,h", "show this help")("format,f", po::value(&format)->default_value("text"),
                                                 "output format: text, json or svg (a picture of each CPU's stacks)")(
      "vmlinux", po::value(&vmlinux),
      "kernel image with DWARF; default: /usr/lib/debug/boot/vmlinux-<the dump's release>")(
      "cpu,c", po::value(&cpu)->default_value(-1), "bt, words: only this CPU")(
      "pid,p", po::value(&pids),
      "bt: this task (repeatable): a switched-out one is walked from the frame the "
      "scheduler left, a running one is shown on its CPU")("tasks",
                                                           "bt: every switched-out task as well, after the CPUs")(
      "color", po::value(&colour)->default_value("auto"), "colour in text output: auto, always or never")(
      "debug-dir", po::value(&debug_options.debug_dir)->default_value("/usr/lib/debug"),
      "where boot/vmlinux-<release> is looked for")(
      "modules", po::value(&debug_options.module_paths),
      "module debuginfo (repeatable), as for analyze: for the walks' and the log's module frames; "
      "lib/modules/<release> under --debug-dir is looked in too")(
      "check-budget-ms", po::value(&check_budget_ms)->default_value(kDefaultCheckBudgetMs),
      "time for one walk's call-site checks; frames left say unchecked_budget")(
      "dump-budget-ms", po::value(&dump_budget_ms)->default_value(kDefaultDumpBudgetMs),
      "time for the call-site checks of all the dump's walks together");
  DebuginfodOptions debuginfod;
  debuginfod.add_to(opts, false);
  ProfileCacheFlags cache;
  cache.add_to(opts);
  po::variables_map vm;
  if (!parse_command_line("vmcore", args, opts, positional, vm)) return kExitUsage;
  if (vm.count("help")) {
    std::cout << opts
              << "\n  analyze  (default) every CPU's audited walk, the reports in the dump's log, and the\n"
                 "           cross-check of the report that ended a CPU against that CPU's walk\n"
                 "  bt       every CPU's stacks walked like the kernel prints them: ORC, '?' marks, backlinks\n"
                 "  words    every word of each stack in use, from where the walk scanned it to its top:\n"
                 "           its symbol, the frame it belongs to and that frame's verdict (crash's bt -T, judged)\n"
                 "  irqstate each CPU's task, IRQ stack, backlink word, in-use state and the stack its SP is on\n"
                 "  log      the kernel log kept in the dump (5.10+ ring buffer, 3.5-5.9 records, older text)\n"
                 "  info     the dump's format, release, KASLR offset and each CPU's registers\n";
    return kExitOk;
  }
  if (positional.empty() || positional.size() > 2) {
    std::cerr << "btaudit vmcore: give a dump file and at most one of analyze, bt, words, irqstate, log, info\n";
    return kExitUsage;
  }
  const std::string action = positional.size() == 2 ? positional[1] : "analyze";
  if (action != "info" && action != "log" && action != "analyze" && action != "irqstate" && action != "bt" &&
      action != "words") {
    std::cerr << "btaudit vmcore: unknown action '" << action << "' (analyze, bt, words, irqstate, log or info)\n";
    return kExitUsage;
  }
  if (format != "text" && format != "json" && format != "svg") {
    std::cerr << "btaudit vmcore: unknown --format '" << format << "' (use text, json or svg)\n";
    return kExitUsage;
  }
  if (check_budget_ms < 0 || dump_budget_ms < 0) {
    std::cerr << "btaudit vmcore: --check-budget-ms and --dump-budget-ms must not be negative\n";
    return kExitUsage;
  }
  TextStyle style;
  style.colour = colour == "always" || (colour == "auto" && ::isatty(STDOUT_FILENO));
  std::string wanted = vmlinux.empty() ? "auto" : vmlinux;  // every view but log and info needs vmlinux
  std::unique_ptr<DebuginfodClient> server;
  if (!debuginfod.apply(wanted, debug_options, server, "vmcore")) return kExitUsage;
  try {
    auto dump = KdumpDump::open(positional[0]);
    for (const std::string& n : dump->notes()) std::cerr << "btaudit: note: " << dump->path() << ": " << n << "\n";
    if (action == "info") {
      print_info(*dump);
      return kExitOk;
    }
    if (action == "log") {
      const PrintkLog log = read_printk_log(*dump, *dump);
      for (const std::string& p : log.problems) std::cerr << "btaudit: warning: " << dump->path() << ": " << p << "\n";
      write_stdout(format_log(log));
      return kExitOk;
    }
    DumpAnalysisOptions options;
    options.vmlinux = vmlinux;
    options.debug_dir = debug_options.debug_dir;
    options.module_paths = debug_options.module_paths;
    options.server = server.get();
    options.with_log = action == "analyze";
    options.task_pids = pids;
    options.all_tasks = vm.count("tasks") > 0;
    options.checks.per_report = std::chrono::milliseconds(check_budget_ms);
    options.dump_budget = std::chrono::milliseconds(dump_budget_ms);
    options.words = action == "words";
    options.cache = cache.options();
    const DumpAnalysis a = analyze_dump(*dump, dump->facts(), dump.get(), options);
    finish_profile(*a.info, "vmcore");
    const ViewSelection view = select_view(a.model, cpu >= 0 ? std::optional<int>(cpu) : std::nullopt, pids);
    if (!view.missing_pids.empty()) {
      std::cerr << "btaudit: " << dump->path() << ": no task with PID " << view.missing_pids.front() << "\n";
      return kExitInputError;
    }
    if (cpu >= 0 && !view.error.empty()) {
      std::cerr << "btaudit: " << dump->path() << ": " << view.error << "\n";
      return kExitUsage;
    }
    if (format == "svg") {
      write_stdout(render_dump_svg(a.model, view.only_cpu));
    } else if (format == "json") {
      // The irqstate view is the full document without reports: same names.
      write_stdout(render_dump_json(a.model, action == "irqstate" ? kAllCpus : view.only_cpu));
    } else if (action == "irqstate") {
      write_stdout(render_irq_state_text(a.model));
    } else if (action == "words") {
      write_stdout(render_words_text(a.model, view.only_cpu));
    } else {
      write_stdout(render_dump_text(a.model, style, view.only_cpu, action == "analyze"));
    }
    return kExitOk;
  } catch (const DumpError& e) {
    std::cerr << "btaudit: " << e.what() << "\n";
    return kExitInputError;
  } catch (const DebugInfoError& e) {
    std::cerr << "btaudit: " << e.what() << "\n";
    return kExitInputError;
  }
}

}  // namespace btaudit
