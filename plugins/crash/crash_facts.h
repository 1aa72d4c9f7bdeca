// DumpFacts from crash: the dump file's name and format, VMCOREINFO's
// release and KASLR offset, and each CPU's NT_PRSTATUS registers from the
// table crash built when it opened the dump.
#pragma once
#include "vmcore/dump_facts.h"
#include "vmcore/vmcoreinfo.h"

namespace btaudit {

DumpFacts crash_dump_facts(VmcoreInfo& info);

}  // namespace btaudit
