#include "dump_render/irqstate_text.h"

#include <cstdio>

#include "render/hex_text.h"

namespace btaudit {

std::string irq_in_use_text(const CpuState& c, const std::string& unknown) {
  if (c.in_use) return *c.in_use ? "yes" : "no";
  if (c.irq_count) return "count " + std::to_string(*c.irq_count);
  return unknown;
}

std::string render_irq_state_text(const DumpModel& d) {
  std::string out = "dump:    " + d.path + " (" + d.format + ")\nvmlinux: " + d.vmlinux + "\nlayout:  " + d.layout +
                    "; IRQ stack " + std::to_string(d.irq_stack_size) + " bytes, THREAD_SIZE " +
                    std::to_string(d.thread_size) + "\n";
  for (const auto& f : d.layout_notes) out += "note:    " + f + "\n";
  out +=
      "\nCPU  task             PID  COMM             SP                on      IRQ stack [base, top)"
      "                 backlink at top   in use  registers from\n";
  for (const StackWalk& cw : d.cpus) {
    const CpuState& c = cw.state;
    char line[400];
    const std::string irq = c.irq_stack ? hex16(c.irq_stack->begin) + "-" + hex16(c.irq_stack->end) : std::string("-");
    const std::string use = irq_in_use_text(c, "-");
    std::snprintf(line, sizeof line, "%3d  %-16s %4s  %-16s %-17s %-7s %-37s %-17s %-7s %s\n", c.cpu,
                  c.task ? hex16(*c.task).c_str() : "-", c.pid ? std::to_string(*c.pid).c_str() : "-",
                  c.comm.value_or("-").c_str(), c.sp ? hex16(*c.sp).c_str() : "-", c.sp_stack.c_str(), irq.c_str(),
                  c.backlink ? hex16(*c.backlink).c_str() : "-", use.c_str(), c.registers_from.c_str());
    out += line;
    for (const auto& p : c.problems) out += "     problem: " + p + "\n";
  }
  return out;
}

}  // namespace btaudit
