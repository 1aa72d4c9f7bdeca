// Output of `btaudit vmcore`: JSON (see man/btaudit.1, VMCORE OUTPUT) and text
// (per CPU, a banner at every stack switch naming the backlink slot and value).
#pragma once
#include <string>

#include "analysis/dump_analysis.h"
#include "render/report_text.h"

namespace btaudit {

// only_cpu >= 0: that CPU's entry alone in "cpus" (the crash extension's bt -c);
// kNoCpus: no CPU, only the walked switched-out tasks (bt of a sleeping task).
inline constexpr int kNoCpus = -2;
std::string render_dump_json(const DumpAnalysis& a, int only_cpu = -1);
std::string render_dump_text(const DumpAnalysis& a, const TextStyle& style, int only_cpu = -1,
                             bool with_reports = true);
// The tail of render_dump_text: the log's reports, audited, and their cross-checks.
std::string render_dump_reports_text(const DumpAnalysis& a, const TextStyle& style);

}  // namespace btaudit
