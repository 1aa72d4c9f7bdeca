// libFuzzer target for dump files: bytes -> the header checks
// (vmcore/dump_header_check.h) -> when they pass, libkdumpfile's open and a few
// reads through KdumpDump, as `btaudit vmcore` does. Beyond sanitizer findings it
// aborts when the fault guard had to catch libkdumpfile (a check is missing:
// "libkdumpfile died of ...") or when an error does not name the file.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "memfd_file.h"
#include "vmcore/dump_error.h"
#include "vmcore/kdump_dump.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  MemFile file("fuzz_dump_header");
  file.write_all(data, size);
  const std::string path = file.path();
  try {
    auto dump = btaudit::KdumpDump::open(path);
    (void)dump->format();
    (void)dump->facts();
    std::uint8_t page[64];
    for (const std::uint64_t a : {0xffff888000100000ULL, 0xffffffff81000000ULL, 0ULL}) (void)dump->read(a, page);
  } catch (const btaudit::DumpError& e) {
    const std::string what = e.what();
    if (what.rfind(path + ": ", 0) != 0 || what.find('\n') != std::string::npos) {
      std::fprintf(stderr, "fuzz_dump_header: an error that is not one line naming the file: %s\n", e.what());
      std::abort();
    }
    if (what.find("libkdumpfile died of") != std::string::npos) {
      std::fprintf(stderr, "fuzz_dump_header: the header checks missed what made libkdumpfile fault: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
