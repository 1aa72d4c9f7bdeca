// The kernel log kept in a dump: the lockless printk ring buffer of 5.10 and
// later, located and laid out by the VMCOREINFO lines the kernel exports for
// dump tools (SYMBOL(prb), OFFSET(printk_info.seq), ...).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memory/memory_source.h"
#include "vmcore/vmcoreinfo.h"

namespace btaudit {

struct LogRecord {
  std::uint64_t seq = 0;
  std::uint64_t ts_nsec = 0;
  std::uint32_t caller_id = 0;  // bit 31 set: CPU id, else task id (CONFIG_PRINTK_CALLER)
  bool has_caller = false;
  std::string text;
};

struct PrintkLog {
  std::vector<LogRecord> records;
  std::vector<std::string> problems;  // records that could not be read, and why
};

// Reads the ring through `memory`, laid out by `info`'s VMCOREINFO lines.
// Throws DumpError (naming memory.describe()) when the dump holds no log
// btaudit can read (pre-5.10 log_buf layouts are not read yet).
PrintkLog read_printk_log(MemorySource& memory, VmcoreInfo& info);

// The log as dmesg prints it: "[   12.345678] text" per line.
std::string format_log(const PrintkLog& log);

}  // namespace btaudit
