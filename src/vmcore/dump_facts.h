// What a dump analysis needs to know about a dump besides its memory: the
// facts a dump file states about itself (VMCOREINFO's release and KASLR
// offset, the per-CPU NT_PRSTATUS registers). btaudit vmcore takes them from
// libkdumpfile (kdump_facts.h), the crash extension from crash.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "vmcore/cpu_registers.h"

namespace btaudit {

struct DumpFacts {
  std::string path;        // for messages and the report header
  std::string format;      // "elf", "diskdump", ...
  std::string release;     // VMCOREINFO OSRELEASE; "" when unknown
  std::string build_id;    // VMCOREINFO BUILD-ID (5.9+): vmlinux's, lowercase hex; "" when unknown
  std::int64_t kaslr = 0;  // VMCOREINFO KERNELOFFSET
  std::vector<CpuRegisters> cpu_registers;
  std::string registers_from = "NT_PRSTATUS note";  // where cpu_registers came from
};

}  // namespace btaudit
