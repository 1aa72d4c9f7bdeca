// libFuzzer target for VMCOREINFO: the input is the text of a VMCOREINFO note
// in an otherwise sound ELF core (tests/support/elf_core_bytes.h). The dump is
// opened through libkdumpfile, which parses the note, and btaudit reads every
// kind of line it uses from it: OSRELEASE, KERNELOFFSET (hex), SYMBOL(...),
// OFFSET/SIZE/NUMBER(...) through the printk log readers of every era.
// Then the same text as the kernel's own copy in the memory of a core without the note
// (kdump_dump.cpp's recovery, vmcoreinfo_scan.h): found, judged, handed to libkdumpfile.
#include <unistd.h>

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

// libkdumpfile leaks: a context it faulted in is abandoned, not freed (its state is unknown:
// fault_guard.h), and some of its own error paths keep about 4 MB each. One CLI run opens one dump
// and exits; this process opens thousands, garbled VMCOREINFO texts take those paths about every
// other run, and the clean-clone CI of 2026-12-06 passed libFuzzer's 2 GB after 777 runs. Once the
// process holds this much, the target stops opening dumps for the rest of the process (said once),
// rather than be stopped for memory it cannot free. The budget is resident memory, what libFuzzer's
// -rss_limit_mb (2048 in run-fuzz.sh) judges: most of a leaked context is never touched (its page
// cache), so counting the heap instead stopped the target after about 600 inputs, a quarter of
// CI's minute, where resident memory lets it run the whole minute.
constexpr std::size_t kResidentBudget = std::size_t{1} << 30;
bool over_budget = false;

// The process's resident memory: the second field of /proc/self/statm, in pages. 0 when unknown.
std::size_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long pages = 0;
  unsigned long resident = 0;
  const int fields = std::fscanf(f, "%lu %lu", &pages, &resident);
  std::fclose(f);
  const long page = ::sysconf(_SC_PAGESIZE);
  return fields == 2 && page > 0 ? resident * static_cast<std::size_t>(page) : 0;
}

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
  if (!over_budget && resident_bytes() > kResidentBudget) {
    over_budget = true;
    std::fprintf(stderr,
                 "fuzz_vmcoreinfo: the process holds %zu MB, most of it libkdumpfile's leaks: no more dumps opened\n",
                 resident_bytes() >> 20);
  }
  if (over_budget) return 0;
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
