// Output of `btaudit vmcore` and the crash extension: JSON (see man/btaudit.1,
// VMCORE OUTPUT), text (per CPU, a banner at every stack switch naming the
// backlink slot and value), and the words view. Model in, bytes out.
#pragma once
#include <string>

#include "model/dump.h"
#include "render/report_text.h"

namespace btaudit {

// only_cpu: kAllCpus, kNoCpus (only the walked switched-out tasks) or one CPU
// (the crash extension's bt -c). Walks that carry words get a "words" array.
std::string render_dump_json(const DumpModel& d, int only_cpu = kAllCpus);
std::string render_dump_text(const DumpModel& d, const TextStyle& style, int only_cpu = kAllCpus,
                             bool with_reports = true);
// The tail of render_dump_text: the log's reports, audited, and their cross-checks.
std::string render_dump_reports_text(const DumpModel& d, const TextStyle& style);
// Every word of each stack in use (the walks must carry words), like crash's bt -T with a judgement.
std::string render_words_text(const DumpModel& d, int only_cpu = kAllCpus);

// How frames are named in every dump view: "func+0xoff/0xsize [mod]", or the address.
std::string describe_frame(const StackFrame& f);

}  // namespace btaudit
