// Everything btaudit says about a crash dump: each CPU's IRQ state and
// audited walk, the reports in the dump's log, and the cross-check of the
// report that ended a CPU against that CPU's walk. One function for every
// front end: btaudit vmcore (libkdumpfile) and the crash extension (crash's
// readmem) differ only in the MemorySource and DumpFacts they pass. The
// result's model (model/dump.h) is what the renderers see.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "analysis/debug_analysis.h"
#include "analysis/dump_symbols.h"
#include "debuginfo/build_id_source.h"
#include "debuginfo/kernel_debuginfo.h"
#include "debuginfo/kernel_types.h"
#include "memory/memory_source.h"
#include "model/dump.h"
#include "vmcore/dump_error.h"
#include "vmcore/dump_facts.h"
#include "vmcore/kernel_layout.h"
#include "vmcore/vmcoreinfo.h"

namespace btaudit {

struct DumpAnalysis {
  DumpModel model;
  std::unique_ptr<KernelDebugInfo> info;
  std::unique_ptr<KernelTypes> types;
  KernelLayout layout;
  std::unique_ptr<DumpSymbols> symbols;  // runtime addresses: the dump's kallsyms, and its modules
};

struct DumpAnalysisOptions {
  std::string vmlinux;  // "" or "auto": <debug_dir>/boot/vmlinux-<release from VMCOREINFO>, else from server
  std::string debug_dir = "/usr/lib/debug";
  // Module debuginfo for module frames, the walks' and the log's reports' (as analyze --modules);
  // <debug_dir>/lib/modules/<release> joins them.
  std::vector<std::string> module_paths;
  std::vector<std::pair<std::string, std::string>> module_files;  // (module, file): crash's mod -s, first
  BuildIdSource* server = nullptr;  // fetches vmlinux by VMCOREINFO's BUILD-ID when debug_dir has none
  bool with_log = true;
  std::vector<int> task_pids;                                   // also walk these tasks when they were switched out
  bool all_tasks = false;                                       // also walk every switched-out task
  CheckBudget checks;                                           // per walk; its shared deadline is set from dump_budget
  std::chrono::milliseconds dump_budget{kDefaultDumpBudgetMs};  // every walk's call-site checks together
  bool words = false;                                           // every word of each stack in use (StackWalk::words)
  ProfileCacheOptions cache;                                    // vmlinux's per-build-id profile
};

// `memory` is the dump's kernel memory, `facts` what the dump says about itself,
// `log_info` the VMCOREINFO that lays out its printk ring (nullptr: no log read).
// Throws DumpError or DebugInfoError (wrong or missing vmlinux) with a one-line message.
DumpAnalysis analyze_dump(MemorySource& memory, const DumpFacts& facts, VmcoreInfo* log_info,
                          const DumpAnalysisOptions& options);

}  // namespace btaudit
