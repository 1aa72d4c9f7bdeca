// libFuzzer target for VMCOREINFO: the input is the text of a VMCOREINFO note
// in an otherwise sound ELF core (tests/support/elf_core_bytes.h). The dump is
// opened through libkdumpfile, which parses the note, and btaudit reads every
// kind of line it uses from it: OSRELEASE, KERNELOFFSET (hex), SYMBOL(...),
// OFFSET/SIZE/NUMBER(...) through the printk log readers of every era.
// Then the same text as the kernel's own copy in the memory of a core without the note
// (kdump_dump.cpp's recovery, vmcoreinfo_scan.h): found, judged, handed to libkdumpfile.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "memfd_file.h"
#include "support/elf_core_bytes.h"
#include "vmcore/dump_error.h"
#include "vmcore/kdump_dump.h"
#include "vmcore/printk_log.h"

namespace {

void read_dump(const btaudit::test::ElfCore& core) {
  MemFile file("fuzz_vmcoreinfo");
  file.write_all(core.bytes.data(), core.bytes.size());
  const std::string path = file.path();
  try {
    auto dump = btaudit::KdumpDump::open(path);
    (void)dump->facts();
    for (const char* symbol : {"prb", "log_buf", "_stext", "init_top_pgt"}) (void)dump->vmcoreinfo_symbol(symbol);
    (void)dump->vmcoreinfo_number("PAGESIZE");
    const btaudit::PrintkLog log = btaudit::read_printk_log(*dump, *dump);
    (void)btaudit::format_log(log);
  } catch (const btaudit::DumpError& e) {
    const std::string what = e.what();
    // libkdumpfile 0.5.1 can fault while it sets up address translation from VMCOREINFO's
    // values (fuzz/regressions/vmcoreinfo/libkdumpfile-fault-on-open): the dump's header
    // checks do not judge VMCOREINFO's content, so here the fault guard is the defence,
    // and its one-line error is the right result. Said, not fatal; a message of more than
    // one line is.
    if (what.find("libkdumpfile died of") != std::string::npos)
      std::fprintf(stderr, "fuzz_vmcoreinfo: guarded: %s\n", e.what());
    if (what.find('\n') != std::string::npos) {
      std::fprintf(stderr, "fuzz_vmcoreinfo: %s\n", e.what());
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > (1 << 16)) return 0;  // a note of 64 KiB says all a longer one could
  const std::string info(reinterpret_cast<const char*>(data), size);
  read_dump(btaudit::test::elf_core(info));
  // No note; the text, cut to a page less its NUL, at the start of the first page of memory.
  btaudit::test::ElfCore bare = btaudit::test::elf_core("");
  const std::size_t name = bare.notes_at + 12 + btaudit::test::align4(5) + 336 + 12;
  bare.bytes[name] = 'X';  // "VMCOREINFO" -> "XMCOREINFO": another owner's note, skipped
  const std::size_t n = std::min<std::size_t>(info.size(), 4095);
  std::memcpy(bare.bytes.data() + bare.loads_at, info.data(), n);
  bare.bytes[bare.loads_at + n] = 0;
  read_dump(bare);
  return 0;
}
