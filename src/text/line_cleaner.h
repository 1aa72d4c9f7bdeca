// Strips everything a log pipeline wraps around a printk message: syslog and
// journal prefixes, "<N>" levels, dmesg timestamps, printk caller ids, pstore
// and LAVA residue. What is left is the kernel's own text.
#pragma once
#include <cstdint>
#include <string_view>

namespace btaudit {

struct CleanLine {
  std::string_view text;     // the message, leading spaces kept (they matter in traces)
  std::uint32_t number = 0;  // 1-based line number in the input
  char caller_kind = 0;      // 'T' (task id) or 'C' (cpu) from a printk caller id, else 0
  std::uint32_t caller_id = 0;
  bool foreign = false;  // a syslog/journal line written by something other than the kernel
  bool had_timestamp = false;
  // The prefix was followed by the message with no separator ("[\t68764.975944]WARNING: ..."):
  // on such a console one space after a prefix may be the message's own indentation.
  bool bare_prefix = false;
};

// `separator_free`: the log is known to put no separator after its prefixes (a line with a
// bare prefix was seen), so a space after a prefix is the message's own indentation and is kept.
CleanLine clean_line(std::string_view raw, std::uint32_t number, bool separator_free = false);
// The same without clean_line's fast path for the commonest shape (a printk timestamp, maybe a
// caller id, then the message): every line through the general loop. For tests that compare them.
CleanLine clean_line_general(std::string_view raw, std::uint32_t number, bool separator_free = false);

}  // namespace btaudit
