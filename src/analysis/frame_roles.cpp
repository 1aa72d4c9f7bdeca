#include "analysis/frame_roles.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

namespace btaudit {

namespace {

// The name lists below are asked about every frame of every report, by the function's base
// name (base_function_name: "foo.isra.0" -> "foo"). No name or prefix holds a '.', so the
// base need not be cut first: a name n is f's base exactly when f is n or starts with n and a
// '.', and a prefix starts the base exactly when it starts f (f's first '.' after its first
// byte cannot fall inside the prefix). Both sets keep their entries by first byte: most
// frames meet a few entries, or none, instead of a search for the '.' and a scan of the list.

// A list of names asked "is f's base one of them".
class NameSet {
 public:
  explicit NameSet(std::span<const std::string_view> names) {
    for (auto n : names) by_first_[first_byte(n)].push_back(n);
  }
  bool holds_base(std::string_view f) const {
    if (f.empty()) return false;
    for (auto n : by_first_[first_byte(f)])
      if (f.size() >= n.size() && (f.size() == n.size() || f[n.size()] == '.') && f.starts_with(n)) return true;
    return false;
  }

 private:
  static std::size_t first_byte(std::string_view s) { return static_cast<unsigned char>(s[0]); }
  std::array<std::vector<std::string_view>, 256> by_first_{};
};

// A list of prefixes asked "does one of them start f (or f's base)".
class PrefixSet {
 public:
  explicit PrefixSet(std::span<const std::string_view> prefixes) {
    for (auto p : prefixes) by_first_[static_cast<unsigned char>(p[0])].push_back(p);
  }
  bool starts(std::string_view f) const {
    if (f.empty()) return false;
    for (auto p : by_first_[static_cast<unsigned char>(f[0])])
      if (f.starts_with(p)) return true;
    return false;
  }

 private:
  std::array<std::vector<std::string_view>, 256> by_first_{};
};

// syzkaller's skip patterns (pkg/report/linux.go, linuxStackParams), its
// regular expressions spelled out as plain patterns.
constexpr std::string_view kGenericTitleSkips[] = {
    "__sanitizer",
    "__asan",
    "kasan",
    "hwasan",
    "__msan",
    "kmsan",
    "kcsan_setup_watchpoint",
    "check_memory_region",
    "check_heap_object",
    "check_object",
    "read_word_at_a_time",
    "print_address_description",
    "panic",
    "invalid_op",
    "report_bug",
    "fixup_bug",
    "print_report",
    "print_usage_bug",
    "do_error",
    "_trap$",
    "do_trap",
    "show_stack",
    "dump_stack",
    "walk_stack",
    "dump_backtrace",
    "warn_slowpath",
    "warn_alloc",
    "warn_bogus",
    "__warn",
    "alloc_page",
    "malloc",
    "zalloc",
    "calloc",
    "krealloc",
    "kmem_cache",
    "allocate_slab",
    "__alloc_frozen_pages_noprof",
    "folio_alloc",
    "folio_unlock",
    "filemap_alloc_folio",
    "__filemap_get_folio",
    "find_or_create_page",
    "do_read_cache_folio",
    "read_cache_page",
    "pagecache_get_page",
    "grab_cache_page_write_begin",
    "slab_",
    "debug_object",
    "timer_is_static_object",
    "work_is_static_object",
    "__might_fault",
    "print_unlock",
    "imbalance_bug",
    "lockdep",
    "bh_enable",
    "bh_disable",
    "perf_trace",
    "lock_acquire",
    "lock_release",
    "lock_class",
    "mark_lock",
    "reacquire_held_locks",
    "mark_held_locks",
    "raw_spin_rq",
    "spin_lock",
    "spin_trylock",
    "spin_unlock",
    "read_lock",
    "read_trylock",
    "write_lock",
    "write_trylock",
    "read_unlock",
    "write_unlock",
    "^down$",
    "down_read",
    "down_write",
    "down_trylock",
    "up_read",
    "up_write",
    "^mutex_",
    "^__mutex_",
    "^rt_mutex_",
    "owner_on_cpu",
    "osq_lock",
    "osq_unlock",
    "atomic_dec",
    "atomic_inc",
    "atomic_read",
    "atomic_set",
    "atomic_or",
    "atomic_xor",
    "atomic_and",
    "atomic_add",
    "atomic_sub",
    "atomic_fetch",
    "atomic_xchg",
    "atomic_cmpxchg",
    "atomic_try",
    "atomic64_dec",
    "atomic64_inc",
    "atomic64_read",
    "atomic64_set",
    "atomic64_or",
    "atomic64_xor",
    "atomic64_and",
    "atomic64_add",
    "atomic64_sub",
    "atomic64_fetch",
    "atomic64_xchg",
    "atomic64_cmpxchg",
    "atomic64_try",
    "set_bit",
    "clear_bit",
    "change_bit",
    "test_bit",
    "__wake_up",
    "^refcount_",
    "^kref_",
    "ref_tracker",
    "seqprop_assert",
    "memcpy",
    "memcmp",
    "memset",
    "memchr",
    "memmove",
    "memdup",
    "strcmp",
    "strncmp",
    "strcpy",
    "strlcpy",
    "strncpy",
    "strscpy",
    "strlen",
    "strstr",
    "strnstr",
    "strnlen",
    "strchr",
    "strdup",
    "strndup",
    "copy_to_user",
    "copy_from_user",
    "copy_to_iter",
    "copy_from_iter",
    "copy_page_to_iter",
    "copy_page_from_iter",
    "copy_folio_to_iter",
    "^copyin$",
    "^copyout$",
    "put_user",
    "get_user",
    "might_fault",
    "might_sleep",
    "list_add",
    "list_del",
    "list_replace",
    "list_move",
    "list_splice",
    "^rb_",
    "^__rb_",
    "_indirect_thunk_",
    "string",
    "pointer",
    "snprintf",
    "scnprintf",
    "kasprintf",
    "kvasprintf",
    "printk",
    "va_format",
    "dev_info",
    "dev_notice",
    "dev_warn",
    "dev_err",
    "dev_alert",
    "dev_crit",
    "dev_emerg",
    "program_check_exception",
    "program_check_common",
    "del_timer",
    "flush_work",
    "__cancel_work_timer",
    "cancel_work_sync",
    "try_to_grab_pending",
    "flush_workqueue",
    "drain_workqueue",
    "destroy_workqueue",
    "queue_work",
    "finish_wait",
    "kthread_stop",
    "kobject_",
    "add_uevent_var",
    "get_device_parent",
    "device_add",
    "device_del",
    "device_unregister",
    "device_destroy",
    "device_release",
    "devres_release_all",
    "hwrng_unregister",
    "i2c_del_adapter",
    "__unregister_client",
    "device_for_each_child",
    "rollback_registered",
    "unregister_netdev",
    "sysfs_remove",
    "device_remove_file",
    "tty_unregister_device",
    "dummy_urb_enqueue",
    "usb_kill_urb",
    "usb_kill_anchored_urbs",
    "usb_control_msg",
    "usb_hcd_submit_urb",
    "usb_submit_urb",
    "^complete$",
    "wait_for_completion",
    "^kfree$",
    "^kvfree$",
    "kfree_skb",
    "readb$",
    "readw$",
    "readl$",
    "readq$",
    "writeb$",
    "writew$",
    "writel$",
    "writeq$",
    "logic_in",
    "logic_out",
    "crc_itu_t",
    "__might_resched",
    "assertfail",
    "^iput$",
    "^iput_final$",
    "^ihold$",
    "hex_dump_to_buffer",
    "print_hex_dump",
    "^klist_",
    "trace_hardirq",
    "trace_softirq",
    "lockdep_hardirq",
    "lockdep_softirq",
    "^lock_page",
    "^unlock_page",
    "stack_trace_consume_entry",
    "arch_stack_walk",
    "stack_trace_save",
    "insert_work",
    "__queue_delayed_work",
    "queue_delayed_work_on",
    "ida_free",
    "do_kernel_fault",
    "do_translation_fault",
    "do_mem_abort",
    "el1_abort",
    "el1h_64_sync",
    "print_tainted",
    "xas_start",
    "xas_load",
    "xas_find",
    "find_lock_entries",
    "truncate_inode_pages_range",
    "__phys_addr",
    "__fortify_report",
    "cleanup_srcu_struct",
    "rhashtable_lookup",
    "extract_user_to_sg",
    "extract_iter_to_sg",
    "drop_nlink",
    "^get_taint$",
    "^put_device$",
    "lock_timer_base",
    "__timer_delete_sync",
    "sk_stop_timer_sync",
    "__mod_timer",
    "fast_dput",
    "dput",
    "mark_buffer_dirty",  // buffer-head helper: the file system that dirtied the buffer is at fault
};

// Reporting machinery (is_reporting_machinery): whole names, then prefixes.
constexpr std::string_view kReportingNames[] = {"dump_stack",
                                                "dump_stack_lvl",
                                                "__dump_stack",
                                                "show_stack",
                                                "show_trace_log_lvl",
                                                "show_stack_log_lvl",
                                                "dump_backtrace",
                                                "show_regs",
                                                "__show_regs",
                                                "panic",
                                                "nmi_panic",
                                                "vpanic",
                                                "__warn",
                                                "__warn_printk",
                                                "warn_slowpath_common",
                                                "warn_slowpath_fmt",
                                                "warn_slowpath_null",
                                                "report_bug",
                                                "handle_bug",
                                                "fixup_bug",
                                                "do_error_trap",
                                                "do_trap",
                                                "do_invalid_op",
                                                "exc_invalid_op",
                                                "asm_exc_invalid_op",
                                                "invalid_op",
                                                "die",
                                                "__die",
                                                "__die_body",
                                                "oops_end",
                                                "oops_begin",
                                                "page_fault_oops",
                                                "kernelmode_fixup_or_oops",
                                                "no_context",
                                                "__bad_area_nosemaphore",
                                                "bad_area_nosemaphore",
                                                "bad_area",
                                                "do_user_addr_fault",
                                                "handle_page_fault",
                                                "exc_page_fault",
                                                "asm_exc_page_fault",
                                                "page_fault",
                                                "do_page_fault",
                                                "__do_page_fault",
                                                "async_page_fault",
                                                "do_general_protection",
                                                "exc_general_protection",
                                                "asm_exc_general_protection",
                                                "general_protection",
                                                "die_addr",
                                                "do_double_fault",
                                                "exc_double_fault",
                                                "asm_exc_double_fault",
                                                "print_address_description",
                                                "print_report",
                                                "describe_object",
                                                "print_trailer",
                                                "should_fail",
                                                "should_fail_ex",
                                                "fail_dump",
                                                "should_failslab",
                                                "__should_failslab",
                                                "should_fail_alloc_page",
                                                "nmi_cpu_backtrace",
                                                "nmi_trigger_cpumask_backtrace",
                                                "arch_trigger_cpumask_backtrace",
                                                "rcu_dump_cpu_stacks",
                                                "print_cpu_stall",
                                                "check_cpu_stall",
                                                "rcu_check_callbacks",
                                                "rcu_sched_clock_irq",
                                                "watchdog_timer_fn",
                                                "watchdog",
                                                "check_hung_task",
                                                "check_hung_uninterruptible_tasks",
                                                "sched_show_task",
                                                "show_state_filter",
                                                "debug_show_all_locks",
                                                "lockdep_rcu_suspicious",
                                                "___might_sleep",
                                                "__might_sleep",
                                                "__might_resched",
                                                "__might_fault",
                                                "__schedule_bug",
                                                "schedule_debug",
                                                "bad_page",
                                                "report_refcount_error",
                                                "refcount_warn_saturate",
                                                "__list_add_valid_or_report",
                                                "__list_del_entry_valid_or_report",
                                                "__list_add_valid",
                                                "__list_del_entry_valid",
                                                "dump_header",
                                                "oom_kill_process",
                                                "out_of_memory",
                                                "warn_alloc",
                                                "sysrq_handle_crash",
                                                "__handle_sysrq",
                                                "die_nmi",
                                                "unknown_nmi_error",
                                                "do_nmi",
                                                "exc_nmi",
                                                "default_do_nmi",
                                                "nmi_handle"};
constexpr std::string_view kReportingPrefixes[] = {"kasan_",
                                                   "__kasan_",
                                                   "__asan_",
                                                   "check_memory_region",
                                                   "kmsan_",
                                                   "__msan_",
                                                   "kcsan_",
                                                   "__tsan_",
                                                   "kfence_",
                                                   "__kfence_",
                                                   "ubsan_",
                                                   "__ubsan_",
                                                   "print_circular_bug",
                                                   "print_deadlock_bug",
                                                   "print_usage_bug",
                                                   "print_bad_irq_dependency",
                                                   "print_lock",
                                                   "print_unlock",
                                                   "debug_print_object",
                                                   "lockdep_",
                                                   "__lock_acquire",
                                                   "lock_acquire",
                                                   "lock_release",
                                                   "__lock_release",
                                                   "check_noncircular",
                                                   "check_prev_add",
                                                   "check_prevs_add",
                                                   "validate_chain",
                                                   "check_deadlock",
                                                   "mark_lock",
                                                   "valid_state",
                                                   "report_",
                                                   "kmemleak_",
                                                   "debug_object",
                                                   "__debug_object",
                                                   "arch_stack_walk",
                                                   "stack_trace_save",
                                                   "save_stack",
                                                   "__save_stack_trace",
                                                   "save_stack_trace",
                                                   "stack_depot_save",
                                                   "__stack_depot_save",
                                                   "unwind_",
                                                   "__unwind_",
                                                   "__show_trace",
                                                   "__dump_page",
                                                   "dump_page"};
// The bottoms of stacks (is_chain_terminal).
constexpr std::string_view kTerminalNames[] = {"ret_from_fork",
                                               "ret_from_fork_asm",
                                               "entry_SYSCALL_64_after_hwframe",
                                               "entry_SYSCALL_64_fastpath",
                                               "system_call_fastpath",
                                               "entry_SYSCALL_64",
                                               "entry_SYSENTER_compat_after_hwframe",
                                               "entry_INT80_compat",
                                               "entry_SYSCALL_compat",
                                               "entry_SYSENTER_32",
                                               "entry_INT80_32",
                                               "sysenter_past_esp",
                                               "syscall_call",
                                               "secondary_startup_64",
                                               "secondary_startup_64_no_verify",
                                               "x86_64_start_kernel",
                                               "x86_64_start_reservations",
                                               "start_secondary",
                                               "common_startup_64",
                                               "el0t_64_sync",
                                               "el0t_64_irq",
                                               "el0_svc",
                                               "ret_from_fork_thread",
                                               "kernel_thread_starter",
                                               "do_one_initcall_start"};
// Interrupt and exception entry (is_entry_code): whole names, then prefixes.
constexpr std::string_view kEntryNames[] = {"ret_from_intr",
                                            "retint_kernel",
                                            "retint_user",
                                            "common_interrupt",
                                            "apic_timer_interrupt",
                                            "smp_apic_timer_interrupt",
                                            "error_entry",
                                            "error_exit",
                                            "paranoid_entry",
                                            "paranoid_exit",
                                            "irq_entries_start",
                                            "reschedule_interrupt",
                                            "call_function_interrupt",
                                            "call_function_single_interrupt",
                                            "irq_work_interrupt",
                                            "restore_args",
                                            "restore_regs_and_iret",
                                            "irq_return",
                                            "native_iret",
                                            "call_softirq",
                                            "do_softirq_own_stack",
                                            "irq_exit_rcu",
                                            "interrupt_entry",
                                            "spurious_interrupt",
                                            "thermal_interrupt",
                                            "nmi",
                                            "end_repeat_nmi",
                                            "first_nmi",
                                            "repeat_nmi"};
constexpr std::string_view kEntryPrefixes[] = {
    "asm_sysvec_", "asm_common_interrupt", "asm_exc_",        "sysvec_",      "__sysvec_", "entry_",
    "ret_from_",   "irq_stack_",           "run_on_irqstack", "call_on_stack"};

// The first two bytes of a list's names and prefixes (frame_roles_detail::may_start_entry).
// Every entry has two bytes or more (the title suite checks).
constexpr frame_roles_detail::HeadTable heads_of(std::span<const std::string_view> names,
                                                 std::span<const std::string_view> prefixes) {
  frame_roles_detail::HeadTable heads{};
  for (const auto list : {names, prefixes})
    for (const std::string_view n : list) {
      const unsigned key = frame_roles_detail::head_key(n);
      heads[key / 64] |= std::uint64_t{1} << (key % 64);
    }
  return heads;
}

// "readb_nocheck", "write_once_size_nocheck": the (read|write)_once_.*nocheck family.
bool is_once_nocheck(std::string_view f) {
  const std::size_t at = f.find("_once_");
  if (at == std::string_view::npos || at < 4) return false;
  const std::string_view head = f.substr(0, at);
  if (!head.ends_with("read") && !head.ends_with("write")) return false;
  return f.find("nocheck", at) != std::string_view::npos;
}

// "crc32_le", "crc16": crc followed by digits at the start.
bool is_crc_helper(std::string_view f) { return f.size() > 3 && f.starts_with("crc") && f[3] >= '0' && f[3] <= '9'; }

}  // namespace

bool matches_frame_pattern(std::string_view function, std::string_view pattern) {
  const bool head = pattern.starts_with('^');
  const bool tail = pattern.ends_with('$');
  if (head) pattern.remove_prefix(1);
  if (tail) pattern.remove_suffix(1);
  if (head && tail) return function == pattern;
  if (head) return function.starts_with(pattern);
  if (tail) return function.ends_with(pattern);
  return function.find(pattern) != std::string_view::npos;
}

FramePatternSet::FramePatternSet(std::span<const std::string_view> patterns) : all_(patterns) {
  std::size_t shortest = 0;  // of the inner substrings; 0 while there is none
  for (std::string_view p : patterns) {
    const bool anchored_head = p.starts_with('^');
    const bool anchored_tail = p.ends_with('$');
    std::string_view core = p;
    if (anchored_head) core.remove_prefix(1);
    if (anchored_tail && !core.empty()) core.remove_suffix(1);
    if (core.empty()) {
      other_.push_back(p);
    } else if (anchored_head) {
      head_[static_cast<unsigned char>(core[0])].push_back({core, anchored_tail});
    } else if (anchored_tail) {
      tail_[static_cast<unsigned char>(core.back())].push_back(core);
    } else if (core.size() < 4) {
      other_.push_back(p);
    } else {
      const std::size_t key = quad_key(core.data());
      if (shortest == 0 || core.size() < shortest) shortest = core.size();
      inner_[key % kQuadBuckets].push_back(core);
      inner_quads_[key / 64] |= std::uint64_t{1} << (key % 64);
    }
  }
  if (shortest != 0) min_inner_ = shortest;
}

bool FramePatternSet::matches(std::string_view f) const {
  if (f.empty()) {
    for (std::string_view p : all_)
      if (matches_frame_pattern(f, p)) return true;
    return false;
  }
  for (std::string_view p : other_)
    if (matches_frame_pattern(f, p)) return true;
  for (const Head& h : head_[static_cast<unsigned char>(f[0])])
    if (h.whole ? f == h.core : f.starts_with(h.core)) return true;
  for (std::string_view core : tail_[static_cast<unsigned char>(f.back())])
    if (f.ends_with(core)) return true;
  for (std::size_t i = 0; i + min_inner_ <= f.size(); ++i) {
    const std::size_t key = quad_key(f.data() + i);
    if (((inner_quads_[key / 64] >> (key % 64)) & 1) == 0) continue;
    // The bucket's substrings: their first four bytes (every one has four) are compared as a
    // word before a memcmp call on the rest.
    const std::string_view rest = f.substr(i);
    std::uint32_t head = 0;
    std::memcpy(&head, rest.data(), 4);
    for (std::string_view p : inner_[key % kQuadBuckets]) {
      std::uint32_t ph = 0;
      std::memcpy(&ph, p.data(), 4);
      if (ph == head && rest.starts_with(p)) return true;
    }
  }
  return false;
}

bool is_generic_title_frame(std::string_view function) {
  static const FramePatternSet skips(kGenericTitleSkips);  // immutable after construction
  if (skips.matches(function)) return true;
  return is_once_nocheck(function) || is_crc_helper(function);
}

std::string_view base_function_name(std::string_view function) {
  const std::size_t dot = function.find('.', 1);
  return dot == std::string_view::npos ? function : function.substr(0, dot);
}

bool frame_roles_detail::is_listed_reporting_machinery(std::string_view f) {
  static const NameSet kReporting(kReportingNames);      // immutable after construction
  static const PrefixSet kPrefixes(kReportingPrefixes);  // immutable after construction
  return kReporting.holds_base(f) || kPrefixes.starts(f);
}

bool frame_roles_detail::is_listed_chain_terminal(std::string_view f) {
  static const NameSet kTerminals(kTerminalNames);  // immutable after construction
  return kTerminals.holds_base(f);
}

bool frame_roles_detail::is_listed_entry_code(std::string_view f) {
  static const NameSet kEntry(kEntryNames);          // immutable after construction
  static const PrefixSet kPrefixes(kEntryPrefixes);  // immutable after construction
  return kEntry.holds_base(f) || kPrefixes.starts(f);
}

constexpr frame_roles_detail::HeadTable frame_roles_detail::kReportingHeads =
    heads_of(kReportingNames, kReportingPrefixes);
constexpr frame_roles_detail::HeadTable frame_roles_detail::kTerminalHeads = heads_of(kTerminalNames, {});
constexpr frame_roles_detail::HeadTable frame_roles_detail::kEntryHeads = heads_of(kEntryNames, kEntryPrefixes);

namespace frame_roles_detail {
RoleLists reporting_lists() { return {kReportingNames, kReportingPrefixes}; }
RoleLists terminal_lists() { return {kTerminalNames, {}}; }
RoleLists entry_lists() { return {kEntryNames, kEntryPrefixes}; }
}  // namespace frame_roles_detail

}  // namespace btaudit
