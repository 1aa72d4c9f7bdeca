#include "analysis/frame_roles.h"

namespace btaudit {

namespace {

bool starts_with_any(std::string_view f, std::initializer_list<std::string_view> prefixes) {
  for (auto p : prefixes)
    if (f.starts_with(p)) return true;
  return false;
}

bool equals_any(std::string_view f, std::initializer_list<std::string_view> names) {
  for (auto n : names)
    if (f == n) return true;
  return false;
}

}  // namespace

std::string_view base_function_name(std::string_view function) {
  const std::size_t dot = function.find('.', 1);
  return dot == std::string_view::npos ? function : function.substr(0, dot);
}

bool is_reporting_machinery(std::string_view function) {
  const std::string_view f = base_function_name(function);
  if (equals_any(f, {"dump_stack", "dump_stack_lvl", "__dump_stack", "show_stack", "show_trace_log_lvl",
                     "show_stack_log_lvl", "dump_backtrace", "show_regs", "__show_regs", "panic", "nmi_panic",
                     "vpanic", "__warn", "__warn_printk", "warn_slowpath_common", "warn_slowpath_fmt",
                     "warn_slowpath_null", "report_bug", "handle_bug", "fixup_bug", "do_error_trap",
                     "do_trap", "do_invalid_op", "exc_invalid_op", "asm_exc_invalid_op", "invalid_op",
                     "die", "__die", "__die_body", "oops_end", "oops_begin", "page_fault_oops",
                     "kernelmode_fixup_or_oops", "no_context", "__bad_area_nosemaphore",
                     "bad_area_nosemaphore", "bad_area", "do_user_addr_fault", "handle_page_fault",
                     "exc_page_fault", "asm_exc_page_fault", "page_fault", "do_page_fault",
                     "__do_page_fault", "async_page_fault", "do_general_protection",
                     "exc_general_protection", "asm_exc_general_protection", "general_protection",
                     "die_addr", "do_double_fault", "exc_double_fault", "asm_exc_double_fault",
                     "print_address_description", "print_report", "describe_object", "print_trailer",
                     "should_fail", "should_fail_ex", "fail_dump", "should_failslab", "__should_failslab",
                     "should_fail_alloc_page", "nmi_cpu_backtrace", "nmi_trigger_cpumask_backtrace",
                     "arch_trigger_cpumask_backtrace", "rcu_dump_cpu_stacks", "print_cpu_stall",
                     "check_cpu_stall", "rcu_check_callbacks", "rcu_sched_clock_irq", "watchdog_timer_fn",
                     "watchdog", "check_hung_task", "check_hung_uninterruptible_tasks", "sched_show_task",
                     "show_state_filter", "debug_show_all_locks", "lockdep_rcu_suspicious",
                     "___might_sleep", "__might_sleep", "__might_resched", "__might_fault",
                     "__schedule_bug", "schedule_debug", "bad_page", "report_refcount_error",
                     "refcount_warn_saturate", "__list_add_valid_or_report", "__list_del_entry_valid_or_report",
                     "__list_add_valid", "__list_del_entry_valid", "dump_header", "oom_kill_process",
                     "out_of_memory", "warn_alloc", "sysrq_handle_crash", "__handle_sysrq", "die_nmi",
                     "unknown_nmi_error", "do_nmi", "exc_nmi", "default_do_nmi", "nmi_handle"}))
    return true;
  return starts_with_any(f, {"kasan_", "__kasan_", "__asan_", "check_memory_region", "kmsan_", "__msan_",
                             "kcsan_", "__tsan_", "kfence_", "__kfence_", "ubsan_", "__ubsan_",
                             "print_circular_bug", "print_deadlock_bug", "print_usage_bug",
                             "print_bad_irq_dependency", "print_lock", "print_unlock", "debug_print_object",
                             "lockdep_", "__lock_acquire", "lock_acquire", "lock_release", "__lock_release",
                             "check_noncircular", "check_prev_add", "check_prevs_add", "validate_chain",
                             "check_deadlock", "mark_lock", "valid_state", "report_", "kmemleak_",
                             "debug_object", "__debug_object", "arch_stack_walk", "stack_trace_save",
                             "save_stack", "__save_stack_trace", "save_stack_trace", "stack_depot_save",
                             "__stack_depot_save", "unwind_", "__unwind_", "__show_trace", "__dump_page",
                             "dump_page"});
}

bool is_chain_terminal(std::string_view function) {
  const std::string_view f = base_function_name(function);
  return equals_any(f, {"ret_from_fork", "ret_from_fork_asm", "entry_SYSCALL_64_after_hwframe",
                        "entry_SYSCALL_64_fastpath", "system_call_fastpath", "entry_SYSCALL_64",
                        "entry_SYSENTER_compat_after_hwframe", "entry_INT80_compat", "entry_SYSCALL_compat",
                        "entry_SYSENTER_32", "entry_INT80_32", "sysenter_past_esp", "syscall_call",
                        "secondary_startup_64", "secondary_startup_64_no_verify", "x86_64_start_kernel",
                        "x86_64_start_reservations", "start_secondary", "common_startup_64",
                        "el0t_64_sync", "el0t_64_irq", "el0_svc", "ret_from_fork_thread",
                        "kernel_thread_starter", "do_one_initcall_start"});
}

bool is_entry_code(std::string_view function) {
  const std::string_view f = base_function_name(function);
  if (equals_any(f, {"ret_from_intr", "retint_kernel", "retint_user", "common_interrupt", "apic_timer_interrupt",
                     "smp_apic_timer_interrupt", "error_entry", "error_exit", "paranoid_entry", "paranoid_exit",
                     "irq_entries_start", "reschedule_interrupt", "call_function_interrupt",
                     "call_function_single_interrupt", "irq_work_interrupt", "restore_args", "restore_regs_and_iret",
                     "irq_return", "native_iret", "call_softirq", "do_softirq_own_stack", "irq_exit_rcu",
                     "interrupt_entry", "spurious_interrupt", "thermal_interrupt", "nmi", "end_repeat_nmi",
                     "first_nmi", "repeat_nmi"}))
    return true;
  return starts_with_any(f, {"asm_sysvec_", "asm_common_interrupt", "asm_exc_", "sysvec_", "__sysvec_",
                             "entry_", "ret_from_", "irq_stack_", "run_on_irqstack", "call_on_stack"});
}

}  // namespace btaudit
