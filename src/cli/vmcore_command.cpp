// `btaudit vmcore DUMP [info|log|analyze]`: what a crash dump says by itself.
// (The per-CPU IRQ-stack state and the cross-stack walker are not built yet.)
#include <boost/program_options.hpp>
#include <cstdio>
#include <cctype>
#include <iostream>
#include <map>
#include <memory>

#include "analysis/analyze_report.h"
#include "analysis/crosscheck.h"
#include "btaudit_version.h"
#include "cli/commands.h"
#include "render/report_json.h"
#include "render/report_text.h"
#include "text/log_parser.h"
#include "debuginfo/debuginfo_error.h"
#include "debuginfo/kernel_debuginfo.h"
#include "debuginfo/kernel_types.h"
#include "render/json_writer.h"
#include "vmcore/cpu_walk.h"
#include "vmcore/irq_state.h"
#include "vmcore/kdump_dump.h"
#include "vmcore/kernel_layout.h"
#include "vmcore/printk_log.h"

namespace btaudit {

namespace po = boost::program_options;

namespace {

void print_info(KdumpDump& dump) {
  std::cout << "dump:     " << dump.path() << " (" << dump.format() << ")\n";
  if (auto r = dump.vmcoreinfo("OSRELEASE")) std::cout << "release:  " << *r << "\n";
  if (auto o = dump.vmcoreinfo("KERNELOFFSET")) std::cout << "KASLR:    0x" << *o << " (VMCOREINFO KERNELOFFSET)\n";
  if (auto c = dump.vmcoreinfo("CRASHTIME")) std::cout << "crashed:  " << *c << " (VMCOREINFO CRASHTIME: a kdump capture)\n";
  const auto cpus = dump.cpu_registers();
  std::cout << "cpus:     " << dump.cpu_count() << " with register notes\n";
  for (const CpuRegisters& c : cpus) {
    char line[160];
    std::snprintf(line, sizeof line, "  cpu %-3d rip %016llx  rsp %016llx  (NT_PRSTATUS)\n", c.cpu,
                  static_cast<unsigned long long>(c.get("rip").value_or(0)),
                  static_cast<unsigned long long>(c.get("rsp").value_or(0)));
    std::cout << line;
  }
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

struct DumpContext {
  std::string vmlinux;
  std::unique_ptr<KernelDebugInfo> info;
  std::unique_ptr<KernelTypes> types;
  KernelLayout layout;
  std::vector<std::map<std::string, std::uint64_t>> regs;
  std::vector<std::string> sources;
};

DumpContext load_context(KdumpDump& dump, const std::string& vmlinux_arg) {
  DumpContext c;
  c.vmlinux = vmlinux_arg;
  if (c.vmlinux.empty() || c.vmlinux == "auto") {
    auto release = dump.vmcoreinfo("OSRELEASE");
    if (!release) throw DumpError(dump.path() + ": VMCOREINFO names no release; give --vmlinux");
    c.vmlinux = "/usr/lib/debug/boot/vmlinux-" + *release;
  }
  c.info = KernelDebugInfo::open(c.vmlinux, DebugInfoOptions{});
  if (auto rel = c.info->release(); rel && dump.vmcoreinfo("OSRELEASE") && *rel != *dump.vmcoreinfo("OSRELEASE"))
    throw DumpError(dump.path() + ": the dump is release " + *dump.vmcoreinfo("OSRELEASE") + " but " + c.vmlinux +
                    " is " + *rel + " (wrong vmlinux)");
  c.types = std::make_unique<KernelTypes>(*c.info);
  const std::int64_t kaslr = static_cast<std::int64_t>(dump.vmcoreinfo_number("KERNELOFFSET", 16).value_or(0));
  c.layout = detect_layout(*c.info, *c.types, kaslr);
  for (const CpuRegisters& r : dump.cpu_registers()) {
    if (static_cast<std::size_t>(r.cpu) >= c.regs.size()) {
      c.regs.resize(r.cpu + 1);
      c.sources.resize(r.cpu + 1, "no register note for this CPU");
    }
    c.regs[r.cpu] = r.regs;
    c.sources[r.cpu] = "NT_PRSTATUS note";
  }
  return c;
}

std::string describe_frame(const SymbolizedFrame& f) {
  std::string s;
  if (f.function) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "+0x%llx/0x%llx", static_cast<unsigned long long>(f.offset),
                  static_cast<unsigned long long>(f.size));
    s = *f.function + buf;
  } else {
    s = "0x" + hex(f.frame.address);
  }
  if (f.module) s += " [" + *f.module + "]";
  return s;
}

int print_bt(KdumpDump& dump, const std::string& vmlinux_arg, int only_cpu) {
  DumpContext c = load_context(dump, vmlinux_arg);
  const DumpWalk walk = walk_dump(dump, *c.info, *c.types, c.layout, c.regs, c.sources);
  std::cout << "dump:    " << dump.path() << "\nvmlinux: " << c.vmlinux << "\nORC:     v" << walk.orc_version << ", "
            << walk.orc_entries << " entries (vmlinux and " << walk.modules.size() << " modules)\n";
  for (const auto& p : walk.problems) std::cout << "note:    " << p << "\n";
  for (const CpuWalk& cw : walk.cpus) {
    if (only_cpu >= 0 && cw.state.cpu != only_cpu) continue;
    std::cout << "\nCPU " << cw.state.cpu << ": " << cw.state.comm.value_or("?") << " (pid "
              << (cw.state.pid ? std::to_string(*cw.state.pid) : std::string("?")) << "), SP on " << cw.state.sp_stack
              << ", registers from " << cw.state.registers_from << "\n";
    std::string current;
    std::size_t transition = 0;
    for (const SymbolizedFrame& f : cw.frames) {
      const std::string stack = f.frame.stack.empty() ? std::string() : (f.frame.stack == "exception" ? f.frame.stack_name : f.frame.stack);
      if (!stack.empty() && stack != current) {
        if (!current.empty() && transition < cw.transitions.size()) {
          const WalkTransition& t = cw.transitions[transition++];
          std::cout << "  --- " << t.from << " -> " << t.to << ": backlink " << hex(t.value) << " read at " << hex(t.slot)
                    << " ---\n";
        }
        std::string upper = stack;
        for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        std::cout << "  <" << upper << ">\n";
        current = stack;
      }
      if (f.frame.from_regs) {
        std::cout << "  RIP: " << describe_frame(f) << (f.frame.slot ? "  (pt_regs at " + hex(f.frame.slot - 128) + ")" : std::string("  (CPU registers)")) << "\n";
        continue;
      }
      std::cout << "  " << hex(f.frame.slot) << "  " << (f.frame.reliable ? "  " : "? ") << describe_frame(f) << "\n";
    }
    for (const auto& p : cw.problems) std::cout << "  problem: " << p << "\n";
  }
  return kExitOk;
}

int print_irq_state(KdumpDump& dump, const std::string& vmlinux_arg, const std::string& format) {
  std::string vmlinux = vmlinux_arg;
  if (vmlinux.empty() || vmlinux == "auto") {
    auto release = dump.vmcoreinfo("OSRELEASE");
    if (!release) throw DumpError(dump.path() + ": VMCOREINFO names no release; give --vmlinux");
    vmlinux = "/usr/lib/debug/boot/vmlinux-" + *release;
  }
  auto info = KernelDebugInfo::open(vmlinux, DebugInfoOptions{});
  if (auto rel = info->release(); rel && dump.vmcoreinfo("OSRELEASE") && *rel != *dump.vmcoreinfo("OSRELEASE"))
    throw DumpError(dump.path() + ": the dump is release " + *dump.vmcoreinfo("OSRELEASE") + " but " + vmlinux +
                    " is " + *rel + " (wrong vmlinux)");
  KernelTypes types(*info);
  const std::int64_t kaslr = static_cast<std::int64_t>(dump.vmcoreinfo_number("KERNELOFFSET", 16).value_or(0));
  const KernelLayout layout = detect_layout(*info, types, kaslr);
  std::vector<std::optional<std::uint64_t>> sps;
  std::vector<std::string> sources;
  for (const CpuRegisters& c : dump.cpu_registers()) {
    if (static_cast<std::size_t>(c.cpu) >= sps.size()) {
      sps.resize(c.cpu + 1);
      sources.resize(c.cpu + 1, "no register note for this CPU");
    }
    sps[c.cpu] = c.get("rsp");
    sources[c.cpu] = "NT_PRSTATUS note";
  }
  const auto cpus = read_irq_state(dump, layout, sps, sources);
  if (format == "json") {
    std::string out;
    JsonWriter w(out);
    w.begin_object();
    w.key("dump");
    w.begin_object();
    w.field("path", dump.path());
    w.field("format", dump.format());
    w.field("layout", layout.era_name);
    w.field("kaslr_offset", static_cast<std::int64_t>(kaslr));
    w.field("irq_stack_size", layout.irq_stack_size);
    w.field("thread_size", layout.thread_size);
    w.key("fallbacks");
    w.begin_array();
    for (const auto& f : layout.fallbacks) w.value(f);
    w.end_array();
    w.end_object();
    w.key("cpus");
    w.begin_array();
    for (const CpuIrqState& c : cpus) {
      w.begin_object();
      w.field("cpu", c.cpu);
      w.key("task");
      w.begin_object();
      w.field("address", c.task);
      w.field("pid", c.pid);
      w.field("comm", c.comm);
      w.end_object();
      w.field("registers_from", c.registers_from);
      w.field("sp", c.sp);
      w.key("irq_state");
      w.begin_object();
      w.field("irq_stack_top", c.irq_stack ? std::optional<std::uint64_t>(c.irq_stack->end) : std::nullopt);
      w.field("irq_stack_base", c.irq_stack ? std::optional<std::uint64_t>(c.irq_stack->begin) : std::nullopt);
      w.field("backlink", c.backlink);
      w.field("in_use", c.in_use);
      w.key("irq_count");
      if (c.irq_count) w.value(static_cast<std::int64_t>(*c.irq_count)); else w.null();
      w.field("sp_stack", c.sp_stack);
      w.end_object();
      w.key("problems");
      w.begin_array();
      for (const auto& p : c.problems) w.value(p);
      w.end_array();
      w.end_object();
    }
    w.end_array();
    w.end_object();
    out.push_back('\n');
    std::fwrite(out.data(), 1, out.size(), stdout);
    return kExitOk;
  }
  std::cout << "dump:    " << dump.path() << " (" << dump.format() << ")\n"
            << "vmlinux: " << vmlinux << "\n"
            << "layout:  " << layout.era_name << "; IRQ stack " << layout.irq_stack_size << " bytes, THREAD_SIZE "
            << layout.thread_size << "\n";
  for (const auto& f : layout.fallbacks) std::cout << "note:    " << f << "\n";
  std::cout << "\nCPU  task             PID  COMM             SP                on      IRQ stack [base, top)                "
               "backlink at top   in use  registers from\n";
  for (const CpuIrqState& c : cpus) {
    char line[400];
    std::string irq = c.irq_stack ? hex(c.irq_stack->begin) + "-" + hex(c.irq_stack->end) : std::string("-");
    std::string use = c.in_use ? (*c.in_use ? "yes" : "no") : c.irq_count ? "count " + std::to_string(*c.irq_count) : "-";
    std::snprintf(line, sizeof line, "%3d  %-16s %4s  %-16s %-17s %-7s %-37s %-17s %-7s %s\n", c.cpu,
                  c.task ? hex(*c.task).c_str() : "-", c.pid ? std::to_string(*c.pid).c_str() : "-",
                  c.comm.value_or("-").c_str(), c.sp ? hex(*c.sp).c_str() : "-", c.sp_stack.c_str(), irq.c_str(),
                  c.backlink ? hex(*c.backlink).c_str() : "-", use.c_str(), c.registers_from.c_str());
    std::cout << line;
    for (const auto& p : c.problems) std::cout << "     problem: " << p << "\n";
  }
  return kExitOk;
}

}  // namespace

int run_vmcore(const std::vector<std::string>& args) {
  std::string format = "text";
  std::vector<std::string> positional;
  std::string vmlinux;
  int cpu = -1;
  po::options_description opts("btaudit vmcore [options] DUMP [info|log|irqstate|analyze]");
  opts.add_options()("help,h", "show this help")("format,f", po::value(&format)->default_value("text"),
                                                 "output format of 'analyze' and 'irqstate': text or json")(
      "vmlinux", po::value(&vmlinux), "kernel image with DWARF (irqstate, bt); default: by the dump's release under /usr/lib/debug")(
      "cpu,c", po::value(&cpu)->default_value(-1), "bt: only this CPU");
  po::options_description hidden;
  hidden.add_options()("positional", po::value(&positional));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("positional", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "btaudit vmcore: " << e.what() << "\n";
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << opts
              << "\n  info     the dump's format, release, KASLR offset and each CPU's registers\n"
                 "  bt       every CPU's stacks walked like the kernel prints them: ORC, '?' marks, backlinks\n"
                 "  irqstate each CPU's task, IRQ stack, backlink word, in-use state and the stack its SP is on\n"
                 "  log      the kernel log kept in the dump (printk ring buffer, 5.10+)\n"
                 "  analyze  (default) the reports in that log, analyzed as 'btaudit analyze' does\n";
    return kExitOk;
  }
  if (positional.empty() || positional.size() > 2) {
    std::cerr << "btaudit vmcore: give a dump file and at most one of info, log, analyze\n";
    return kExitUsage;
  }
  const std::string action = positional.size() == 2 ? positional[1] : "analyze";
  if (action != "info" && action != "log" && action != "analyze" && action != "irqstate" && action != "bt") {
    std::cerr << "btaudit vmcore: unknown action '" << action << "' (info, log, irqstate or analyze)\n";
    return kExitUsage;
  }
  std::unique_ptr<KdumpDump> dump;
  try {
    dump = KdumpDump::open(positional[0]);
    if (action == "info") {
      print_info(*dump);
      return kExitOk;
    }
    if (action == "irqstate") return print_irq_state(*dump, vmlinux, format);
    if (action == "bt") return print_bt(*dump, vmlinux, cpu);
    const PrintkLog log = read_printk_log(*dump);
    for (const std::string& p : log.problems) std::cerr << "btaudit: warning: " << dump->path() << ": " << p << "\n";
    const std::string text = format_log(log);
    if (action == "log") {
      std::fwrite(text.data(), 1, text.size(), stdout);
      return kExitOk;
    }
    std::vector<Report> reports = parse_log(text, dump->path() + " (log)");
    for (Report& r : reports) analyze_report(r);
    // With debuginfo at hand, each report is checked against its CPU's walk.
    std::vector<Crosscheck> checks;
    std::string walk_note;
    try {
      DumpContext c = load_context(*dump, vmlinux);
      const DumpWalk walk = walk_dump(*dump, *c.info, *c.types, c.layout, c.regs, c.sources);
      // Only a report that ended its CPU's run (a panic, or what panicked) can
      // still be on that CPU's stack; other CPUs went on after printing.
      std::map<int, std::size_t> last_by_cpu;
      for (std::size_t i = 0; i < reports.size(); ++i)
        if (reports[i].cpu && !reports[i].frames.empty() &&
            (reports[i].panicked || reports[i].kind == ReportKind::Panic))
          last_by_cpu[*reports[i].cpu] = i;
      for (auto [cpu_id, index] : last_by_cpu)
        for (const CpuWalk& cw : walk.cpus)
          if (cw.state.cpu == cpu_id) checks.push_back(crosscheck(reports[index], index, cw));
    } catch (const DebugInfoError& e) {
      walk_note = std::string("no cross-check: ") + e.what();
    } catch (const DumpError& e) {
      walk_note = std::string("no cross-check: ") + e.what();
    }
    if (format == "json") {
      std::string out;
      JsonWriter w(out);
      w.begin_object();
      w.field("btaudit", std::string_view(kBtauditVersion));
      w.key("reports");
      w.begin_array();
      for (const Report& r : reports) write_report_json(w, r);
      w.end_array();
      w.key("crosscheck");
      w.begin_array();
      for (const Crosscheck& c : checks) {
        w.begin_object();
        w.field("report", static_cast<std::uint64_t>(c.report));
        w.field("cpu", c.cpu);
        w.field("scope", c.scope);
        w.field("printed_frames", static_cast<std::uint64_t>(c.printed_frames));
        w.field("matched_frames", static_cast<std::uint64_t>(c.matched_frames));
        w.key("mismatches");
        w.begin_array();
        for (const CrosscheckMismatch& m : c.mismatches) {
          w.begin_object();
          w.field("frame", m.frame);
          w.field("index", static_cast<std::uint64_t>(m.printed_index));
          w.field("problem", m.problem);
          w.end_object();
        }
        w.end_array();
        w.end_object();
      }
      w.end_array();
      if (!walk_note.empty()) w.field("crosscheck_note", walk_note);
      w.end_object();
      out.push_back('\n');
      std::fwrite(out.data(), 1, out.size(), stdout);
    } else {
      if (reports.empty()) std::cout << "no kernel report in the dump's log\n";
      std::cout.flush();
      for (const Report& r : reports) {
        const std::string out = render_text(r, TextStyle{});
        std::fwrite(out.data(), 1, out.size(), stdout);
      }
      if (!walk_note.empty()) std::cout << walk_note << "\n";
      for (const Crosscheck& c : checks) {
        std::cout << "cross-check of report " << c.report + 1 << " with CPU " << c.cpu << "'s stacks at dump time: "
                  << c.matched_frames << "/" << c.printed_frames << " printed frames found in order with the same '?' mark and stack ("
                  << c.scope << ")\n";
        for (const CrosscheckMismatch& m : c.mismatches) std::cout << "  " << m.frame << ": " << m.problem << "\n";
      }
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
