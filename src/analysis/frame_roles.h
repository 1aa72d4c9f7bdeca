// What part a function plays in a report, by name: the machinery that prints
// reports (never the culprit), the functions that end a stack's chain, and
// interrupt/exception entry code. Lists are documented in man/btaudit.1.
#pragma once
#include <string_view>

namespace btaudit {

// dump_stack, __warn, report_bug, die, page_fault_oops, kasan_report, lockdep's printers, ...
bool is_reporting_machinery(std::string_view function);

// The bottom frame of a stack: nothing the unwinder reports lies below it
// (ret_from_fork, entry_SYSCALL_64_after_hwframe, secondary_startup_64, ...).
bool is_chain_terminal(std::string_view function);

// Interrupt and exception entry stubs (asm_sysvec_*, apic_timer_interrupt, ret_from_intr, ...).
bool is_entry_code(std::string_view function);

// Whether a frame name matches a skip pattern: "^x" must start with x, "x$"
// must end with x, "^x$" must equal x, anything else is a substring.
bool matches_frame_pattern(std::string_view function, std::string_view pattern);

// Functions that never name a bug in a title, whatever the report: sanitizer
// and reporting internals, locking, string and copy helpers, allocators,
// generic device/kobject/workqueue teardown (syzkaller's generic skip list).
bool is_generic_title_frame(std::string_view function);

// "foo.cold", "foo.isra.0", "foo.constprop.3", "foo.part.1" -> "foo".
std::string_view base_function_name(std::string_view function);

}  // namespace btaudit
