// The irqstate view of a dump as text: one row per CPU (task, SP and the
// stack holding it, IRQ stack range, backlink word, in-use state). Shared by
// `btaudit vmcore DUMP irqstate` and the crash extension's `btaudit irqstate`.
#pragma once
#include <string>

#include "model/dump.h"

namespace btaudit {

std::string render_irq_state_text(const DumpModel& d);

// "yes"/"no" (hardirq_stack_inuse), "count N" (irq_count, 5.11 and older), or `unknown`.
std::string irq_in_use_text(const CpuState& c, const std::string& unknown);

}  // namespace btaudit
