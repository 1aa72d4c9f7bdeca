#include "crash_facts.h"

#include <algorithm>

#include "crash_bridge.h"
#include "vmcore/prstatus.h"

namespace btaudit {

namespace {

constexpr int kMaxCpus = 8192;  // as read_irq_state

}  // namespace

DumpFacts crash_dump_facts(VmcoreInfo& info) {
  DumpFacts f;
  f.path = btaudit_crash_dumpfile();
  f.format = btaudit_crash_format();
  f.release = info.vmcoreinfo("OSRELEASE").value_or("");
  f.kaslr = static_cast<std::int64_t>(info.vmcoreinfo_number("KERNELOFFSET", 16).value_or(0));
  const int cpus = std::min(btaudit_crash_cpu_count(), kMaxCpus);
  for (int cpu = 0; cpu < cpus; ++cpu) {
    std::size_t len = 0;
    const void* note = btaudit_crash_prstatus_note(cpu, &len);
    if (!note) continue;
    auto regs = parse_prstatus_note(std::span(static_cast<const std::uint8_t*>(note), len));
    if (regs) f.cpu_registers.push_back(CpuRegisters{cpu, std::move(regs->regs)});
  }
  return f;
}

}  // namespace btaudit
