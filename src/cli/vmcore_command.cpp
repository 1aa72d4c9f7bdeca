// `btaudit vmcore DUMP [info|log|analyze]`: what a crash dump says by itself.
// (The per-CPU IRQ-stack state and the cross-stack walker are not built yet.)
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "analysis/analyze_report.h"
#include "cli/commands.h"
#include "render/report_json.h"
#include "render/report_text.h"
#include "text/log_parser.h"
#include "vmcore/kdump_dump.h"
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

}  // namespace

int run_vmcore(const std::vector<std::string>& args) {
  std::string format = "text";
  std::vector<std::string> positional;
  po::options_description opts("btaudit vmcore [options] DUMP [info|log|analyze]");
  opts.add_options()("help,h", "show this help")("format,f", po::value(&format)->default_value("text"),
                                                 "output format of 'analyze': text or json");
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
                 "  log      the kernel log kept in the dump (printk ring buffer, 5.10+)\n"
                 "  analyze  (default) the reports in that log, analyzed as 'btaudit analyze' does\n";
    return kExitOk;
  }
  if (positional.empty() || positional.size() > 2) {
    std::cerr << "btaudit vmcore: give a dump file and at most one of info, log, analyze\n";
    return kExitUsage;
  }
  const std::string action = positional.size() == 2 ? positional[1] : "analyze";
  if (action != "info" && action != "log" && action != "analyze") {
    std::cerr << "btaudit vmcore: unknown action '" << action << "' (info, log or analyze)\n";
    return kExitUsage;
  }
  std::unique_ptr<KdumpDump> dump;
  try {
    dump = KdumpDump::open(positional[0]);
    if (action == "info") {
      print_info(*dump);
      return kExitOk;
    }
    const PrintkLog log = read_printk_log(*dump);
    for (const std::string& p : log.problems) std::cerr << "btaudit: warning: " << dump->path() << ": " << p << "\n";
    const std::string text = format_log(log);
    if (action == "log") {
      std::fwrite(text.data(), 1, text.size(), stdout);
      return kExitOk;
    }
    std::vector<Report> reports = parse_log(text, dump->path() + " (log)");
    for (Report& r : reports) analyze_report(r);
    if (format == "json") {
      const std::string out = render_json(reports);
      std::fwrite(out.data(), 1, out.size(), stdout);
    } else {
      if (reports.empty()) std::cout << "no kernel report in the dump's log\n";
      std::cout.flush();
      for (const Report& r : reports) {
        const std::string out = render_text(r, TextStyle{});
        std::fwrite(out.data(), 1, out.size(), stdout);
      }
    }
    return kExitOk;
  } catch (const DumpError& e) {
    std::cerr << "btaudit: " << e.what() << "\n";
    return kExitInputError;
  }
}

}  // namespace btaudit
