// Output of `btaudit vmcore`: JSON (see man/btaudit.1, VMCORE OUTPUT) and text
// (per CPU, a banner at every stack switch naming the backlink slot and value).
#pragma once
#include <string>

#include "analysis/dump_analysis.h"
#include "render/report_text.h"

namespace btaudit {

std::string render_dump_json(const DumpAnalysis& a);
std::string render_dump_text(const DumpAnalysis& a, const TextStyle& style, int only_cpu = -1, bool with_reports = true);

}  // namespace btaudit
