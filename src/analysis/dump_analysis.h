// Everything btaudit says about a crash dump: each CPU's IRQ state and
// audited walk, the reports in the dump's log, and the cross-check of the
// report that ended a CPU against that CPU's walk.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "analysis/crosscheck.h"
#include "debuginfo/kernel_debuginfo.h"
#include "debuginfo/kernel_types.h"
#include "model/report.h"
#include "vmcore/cpu_walk.h"
#include "vmcore/kdump_dump.h"
#include "vmcore/kernel_layout.h"

namespace btaudit {

struct DumpAnalysis {
  std::string path, format, release, vmlinux;
  std::int64_t kaslr = 0;
  std::unique_ptr<KernelDebugInfo> info;
  std::unique_ptr<KernelTypes> types;
  KernelLayout layout;
  DumpWalk walk;
  std::vector<Report> cpu_reports;  // one per walked CPU: frames with slots and verdicts
  std::vector<Report> reports;      // the reports found in the dump's log
  std::vector<Crosscheck> checks;
  std::vector<std::string> notes;
};

struct DumpAnalysisOptions {
  std::string vmlinux;  // "" or "auto": /usr/lib/debug/boot/vmlinux-<release from VMCOREINFO>
  bool with_log = true;
};

// Throws DumpError or DebugInfoError (wrong or missing vmlinux) with a one-line message.
DumpAnalysis analyze_dump(KdumpDump& dump, const DumpAnalysisOptions& options);

}  // namespace btaudit
