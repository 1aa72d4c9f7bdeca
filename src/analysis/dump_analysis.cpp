#include "analysis/dump_analysis.h"

#include <unistd.h>

#include <algorithm>
#include <map>

#include "analysis/analyze_report.h"
#include "analysis/crosscheck.h"
#include "analysis/stack_words.h"
#include "analysis/vmlinux_match.h"
#include "analysis/walk_verdicts.h"
#include "text/log_parser.h"
#include "unwind/dump_walk.h"
#include "vmcore/crash_notes.h"
#include "vmcore/printk_log.h"
#include "vmcore/task_list.h"

namespace btaudit {

namespace {

constexpr int kMaxCpus = 8192;  // as read_irq_state: more is a corrupt register table

// vmlinux's symbols by name (link addresses, ELF sizes) for the layout readers.
class VmlinuxSymbols final : public SymbolProvider {
 public:
  explicit VmlinuxSymbols(KernelDebugInfo& info) : info_(info) {}
  std::optional<Symbol> find(std::string_view name, std::string_view module) override {
    return info_.function(name, module);
  }
  std::optional<Symbol> kallsyms_at(std::uint64_t address) override { return info_.kallsyms_at(address); }

 private:
  KernelDebugInfo& info_;
};

// The dump's vmlinux: by release under the debug directory, else from the server
// by the build id VMCOREINFO states (5.9+, kernel/crash_core.c).
std::string find_vmlinux(const DumpFacts& facts, const DumpAnalysisOptions& options) {
  std::string local = options.debug_dir + "/boot/vmlinux-" + facts.release;
  if (!facts.release.empty() && (!options.server || ::access(local.c_str(), R_OK) == 0)) return local;
  if (!options.server) throw DumpError(facts.path + ": VMCOREINFO names no release; give --vmlinux");
  if (facts.build_id.empty())
    throw DumpError(facts.path + ": no vmlinux for release " + facts.release + " under " + options.debug_dir +
                    ", and VMCOREINFO has no BUILD-ID (before 5.9) to ask " + options.server->describe() +
                    "; give --vmlinux");
  return options.server->debuginfo(facts.build_id,
                                   "vmlinux " + (facts.release.empty() ? facts.build_id : facts.release));
}

}  // namespace

DumpAnalysis analyze_dump(MemorySource& memory, const DumpFacts& facts, VmcoreInfo* log_info,
                          const DumpAnalysisOptions& options) {
  DumpAnalysis a;
  DumpModel& d = a.model;
  d.path = facts.path;
  d.format = facts.format;
  d.release = facts.release;
  d.vmlinux = options.vmlinux;
  if (d.vmlinux.empty() || d.vmlinux == "auto") d.vmlinux = find_vmlinux(facts, options);
  DebugInfoOptions debug;
  debug.cache = options.cache;
  // Module frames (the walks' and the log's reports'): their debuginfo is looked for where it was given,
  // then where the distributions install it beside vmlinux's (Debian's linux-image-*-dbg,
  // Fedora's kernel-debuginfo: <debug dir>/lib/modules/<release>), and only when a report needs it.
  debug.module_paths = options.module_paths;
  debug.module_files = options.module_files;
  if (const std::string tree = options.debug_dir + "/lib/modules/" + facts.release;
      !facts.release.empty() && ::access(tree.c_str(), R_OK) == 0)
    debug.module_paths.push_back(tree);
  a.info = KernelDebugInfo::open(d.vmlinux, debug);
  if (auto rel = a.info->release(); rel && !d.release.empty() && *rel != d.release)
    throw DumpError(facts.path + ": the dump is release " + d.release + " but " + d.vmlinux + " is " + *rel +
                    " (wrong vmlinux)");
  if (auto problem = vmlinux_mismatch(facts, *a.info, memory))
    throw DumpError(facts.path + ": " + *problem + " (wrong vmlinux: give the one built with this kernel)");
  a.types = std::make_unique<KernelTypes>(*a.info);
  d.kaslr = facts.kaslr;
  VmlinuxSymbols vmlinux(*a.info);
  a.layout = detect_layout(vmlinux, *a.types, d.kaslr, d.vmlinux);
  d.layout = a.layout.era_name;
  d.irq_stack_size = a.layout.irq_stack_size;
  d.thread_size = a.layout.thread_size;
  d.layout_notes = a.layout.fallbacks;
  // The kernel's per-CPU note buffers give each CPU its own registers; the
  // file's notes are numbered by order, which skips CPUs without one (crash_notes.h).
  std::size_t ncpus = facts.cpu_registers.size();
  if (auto n = a.layout.nr_cpu_ids ? memory.read_u32(a.layout.nr_cpu_ids) : std::nullopt; n && *n <= kMaxCpus)
    ncpus = std::max<std::size_t>(ncpus, *n);
  const std::vector<CpuRegisters> by_cpu = read_crash_notes(memory, a.layout, ncpus);
  const bool from_memory = !by_cpu.empty();
  bool renumbered = from_memory && by_cpu.size() != facts.cpu_registers.size();
  for (std::size_t i = 0; from_memory && i < by_cpu.size(); ++i)
    renumbered = renumbered || by_cpu[i].cpu != static_cast<int>(i);
  if (renumbered)
    d.notes.push_back("registers placed by the kernel's per-CPU crash_notes: the file's " +
                      std::to_string(facts.cpu_registers.size()) +
                      " NT_PRSTATUS notes skip the CPUs that have none, so their order does not give the CPU");
  std::optional<int> crashing_cpu;
  if (auto sym = from_memory ? vmlinux.find("crashing_cpu", {}) : std::nullopt)
    if (auto v = memory.read_u32(sym->address + static_cast<std::uint64_t>(d.kaslr)); v && *v < kMaxCpus)
      crashing_cpu = static_cast<int>(*v);
  std::vector<std::map<std::string, std::uint64_t>> regs;
  std::vector<std::string> sources;
  std::vector<bool> nmi_stopped;
  for (const CpuRegisters& r : from_memory ? by_cpu : facts.cpu_registers) {
    if (r.cpu < 0 || r.cpu >= kMaxCpus) continue;
    if (static_cast<std::size_t>(r.cpu) >= regs.size()) {
      regs.resize(r.cpu + 1);
      sources.resize(r.cpu + 1, "no register note for this CPU");
      nmi_stopped.resize(r.cpu + 1, false);
    }
    regs[r.cpu] = r.regs;
    if (!from_memory)
      sources[r.cpu] = facts.registers_from;
    else if (!crashing_cpu)
      sources[r.cpu] = "crash_notes (the kernel's per-CPU NT_PRSTATUS)";
    else if (r.cpu == *crashing_cpu)
      sources[r.cpu] =
          "crash_notes (the kernel's per-CPU NT_PRSTATUS): the crashing CPU's, taken in __crash_kexec or "
          "from the oops that called it";
    else {
      sources[r.cpu] =
          "crash_notes (the kernel's per-CPU NT_PRSTATUS): the context the crashing CPU's NMI "
          "interrupted (crash_nmi_callback() saved it; the CPU then waited on its NMI stack)";
      nmi_stopped[r.cpu] = true;
    }
  }
  std::vector<TaskInfo> blocked;
  if (options.all_tasks || !options.task_pids.empty()) {
    TaskList tasks = read_task_list(memory, vmlinux, *a.types, a.layout);
    for (auto& p : tasks.problems) d.notes.push_back("tasks: " + p);
    for (int pid : options.task_pids) {
      const bool known =
          std::any_of(tasks.tasks.begin(), tasks.tasks.end(), [&](const TaskInfo& t) { return t.pid == pid; });
      if (!known) d.missing_pids.push_back(pid);
    }
    for (TaskInfo& t : tasks.tasks) {
      const bool wanted = options.all_tasks || std::find(options.task_pids.begin(), options.task_pids.end(), t.pid) !=
                                                   options.task_pids.end();
      if (!wanted) continue;
      // A task on a CPU is walked from that CPU's registers, not from a stale thread.sp.
      // (The idle tasks share PID 0; each CPU's own is the one running there.)
      if (t.on_cpu.value_or(false)) {
        if (!options.all_tasks) d.running_pids.push_back(t.pid);
        continue;
      }
      blocked.push_back(std::move(t));
    }
  }
  DumpWalk walk = walk_dump(memory, vmlinux, *a.types, a.layout, regs, sources, nmi_stopped, blocked);
  d.modules = walk.modules.size();
  d.unwinder = walk.unwinder;
  d.orc_version = walk.orc_version;
  d.orc_entries = walk.orc_entries;
  d.walk_notes = std::move(walk.problems);
  d.cpus = std::move(walk.cpus);
  d.tasks = std::move(walk.tasks);
  a.symbols = std::make_unique<DumpSymbols>(memory, *a.info, d.kaslr, std::move(walk.modules));
  DumpCodeSource code(memory, *a.info, *a.symbols);
  CheckBudget checks = options.checks;
  checks.shared_deadline = std::chrono::steady_clock::now() + options.dump_budget;
  checks.shared = options.dump_budget;
  for (std::vector<StackWalk>* walks : {&d.cpus, &d.tasks}) {
    for (StackWalk& w : *walks) {
      symbolize_walk(w, *a.symbols);
      judge_walk(w, *a.info, *a.symbols, code, checks);
      if (options.words) read_stack_words(w, memory);
    }
  }

  if (!options.with_log || !log_info) return a;
  try {
    const PrintkLog log = read_printk_log(memory, *log_info);
    for (const std::string& p : log.problems) d.notes.push_back("log: " + p);
    d.reports = parse_log(format_log(log), facts.path + " (log)");
    // The log's reports are read as the text front end reads any log, then given what the
    // dump knows for certain: its KASLR offset (VMCOREINFO's, not a vote of printed
    // addresses, which 4.15+ kernels no longer print) and its own vmlinux, for each frame's
    // file:line, inlined callers and call-site check (in the file's code: the walks above
    // read the dump's).
    for (Report& r : d.reports) {
      analyze_report(r);
      if (!r.kaslr_offset) {
        r.kaslr_offset = d.kaslr;
        r.kaslr_source = "dump";
      }
      apply_debuginfo(r, *a.info, options.checks);
    }
  } catch (const DumpError& e) {
    d.notes.push_back(std::string("no log: ") + e.what());
  }
  // Only a report that ended its CPU's run (a panic, or what panicked) can
  // still be on that CPU's stack; other CPUs went on after printing.
  std::map<int, std::size_t> last_by_cpu;
  for (std::size_t i = 0; i < d.reports.size(); ++i)
    if (d.reports[i].cpu && !d.reports[i].frames.empty() &&
        (d.reports[i].panicked || d.reports[i].kind == ReportKind::Panic))
      last_by_cpu[*d.reports[i].cpu] = i;
  // A kdump capture (the registers are crash_notes'): crash_kexec() ran on the CPU that
  // arch/x86/kernel/reboot.c's nmi_shootdown_cpus() recorded in crashing_cpu, and an oops that
  // took it there (oops_end() calls crash_kexec() with the oops' registers, before any panic)
  // is the last report that CPU printed: it ended that CPU's run too.
  if (from_memory && crashing_cpu && !last_by_cpu.count(*crashing_cpu))
    for (std::size_t i = d.reports.size(); i-- > 0;)
      if (d.reports[i].cpu == *crashing_cpu && !d.reports[i].frames.empty()) {
        last_by_cpu[*crashing_cpu] = i;
        break;
      }
  for (auto [cpu, index] : last_by_cpu)
    for (const StackWalk& cw : d.cpus)
      if (cw.state.cpu == cpu) d.checks.push_back(crosscheck(d.reports[index], index, cw));
  return a;
}

}  // namespace btaudit
