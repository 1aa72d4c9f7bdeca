// The kernel log kept in a dump, located and laid out by the VMCOREINFO lines
// the kernel exports for dump tools: the lockless printk ring buffer of 5.10 and
// later (SYMBOL(prb), OFFSET(printk_info.seq), ...), and the older log_buf
// formats (printk_legacy.h): records (3.5 - 5.9) and plain text (before 3.5).
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
  bool has_timestamp = true;  // false for a pre-3.5 text line printed without CONFIG_PRINTK_TIME
  std::string text;
};

struct PrintkLog {
  std::vector<LogRecord> records;
  std::vector<std::string> problems;  // records that could not be read, and why
};

// Reads the log through `memory`, in whichever format `info`'s VMCOREINFO
// lines describe. Throws DumpError (naming memory.describe()) when the dump
// describes no log btaudit can read, or the log cannot be read.
PrintkLog read_printk_log(MemorySource& memory, VmcoreInfo& info);

// The log as dmesg prints it: "[   12.345678] text" per line.
std::string format_log(const PrintkLog& log);

}  // namespace btaudit
