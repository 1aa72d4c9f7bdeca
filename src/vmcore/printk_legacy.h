// The kernel logs of kernels before the 5.10 lockless ring buffer, located by
// the VMCOREINFO lines those kernels export:
//   3.5 - 5.9  a ring of variable-length records (struct printk_log, "struct log"
//              before 3.11): SYMBOL(log_buf), SYMBOL(log_buf_len),
//              SYMBOL(log_first_idx), SYMBOL(log_next_idx), SIZE(printk_log),
//              OFFSET(printk_log.ts_nsec|len|text_len[|caller_id])
//   2.6 - 3.4  a ring of console text: SYMBOL(log_buf), SYMBOL(log_buf_len),
//              SYMBOL(log_end), SYMBOL(logged_chars); lines "<6>[ 1.000000] text"
// Internal to read_printk_log (printk_log.h), which picks the reader.
#pragma once
#include <optional>

#include "memory/memory_source.h"
#include "vmcore/printk_log.h"
#include "vmcore/vmcoreinfo.h"

namespace btaudit {

// nullopt when the dump's VMCOREINFO does not describe this format; throws
// DumpError when it does but the log cannot be read.
std::optional<PrintkLog> read_record_log_buf(MemorySource& memory, VmcoreInfo& info);
std::optional<PrintkLog> read_text_log_buf(MemorySource& memory, VmcoreInfo& info);

}  // namespace btaudit
