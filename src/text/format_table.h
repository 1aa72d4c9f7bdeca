// Every trace-line form the kernel has printed, era by era, as data: what trace_line.cpp
// reads, and where each form comes from. Each row is one form as the kernel's printing code
// wrote it (the format string is named, not copied), an example line, the kernel release (and
// the change) that introduced it, and the fields the example must parse to.
// tests/unit/format_table_test.cpp parses every example and generates variants of each row
// (with and without '?', with a module, every console prefix), so a form is covered the day
// its row is added.
//
// Sources read (kernel.org history): arch/x86_64/kernel/traps.c (2.6.0-2.6.23),
// arch/i386/kernel/traps.c (2.6.0-2.6.23), arch/x86/kernel/traps_{32,64}.c (2.6.24-2.6.27),
// arch/x86/kernel/dumpstack{,_32,_64}.c (2.6.28+), lib/vsprintf.c (%pS 2.6.28, %pB 2.6.38,
// %pSb/%pBb build ids 5.14), arch/arm64/kernel/stacktrace.c, arch/arm/kernel/traps.c,
// arch/powerpc/kernel/process.c (show_stack), arch/s390/kernel/dumpstack.c,
// arch/riscv/kernel/stacktrace.c, arch/sparc/kernel/traps_{32,64}.c (die_if_kernel, show_stack),
// include/linux/kallsyms.h (print_ip_sym).
#pragma once
#include <array>
#include <cstdint>
#include <string_view>

#include "model/report_kind.h"
#include "model/stack_kind.h"

namespace btaudit::format_table {

enum Field : std::uint32_t {
  kNone = 0,
  kAddress = 1U << 0,     // the return address is printed
  kOffset = 1U << 1,      // +offset
  kSize = 1U << 2,        // /size
  kModule = 1U << 3,      // [mod] or {:mod:...}
  kUnreliable = 1U << 4,  // '?' or "(unreliable)" or s390's parentheses
  kBuildId = 1U << 5,     // [mod <build id>]
  kMarker = 1U << 6,      // a stack marker precedes (or is) the line
};

struct TraceForm {
  std::string_view id;          // a name for test output
  std::string_view arch;        // x86_64, i386, arm64, arm, powerpc, s390, riscv
  std::string_view introduced;  // release (and change) that first printed it
  std::string_view until;       // last release that printed it ("" when still printed)
  std::string_view source;      // the printing code
  std::string_view example;     // one line as a console shows it (no prefix)
  // What the example parses to.
  std::string_view function;  // "" for a marker-only line or a raw address
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::string_view module;
  std::uint64_t address = 0;
  std::uint32_t fields = kNone;
  StackKind marker = StackKind::Unknown;  // the stack the (first) marker names
  bool marker_opens = true;
};

// Order: x86 from 2.6.0 to 6.15, then arm64, arm, powerpc, s390, riscv, sparc.
inline constexpr std::array kTraceForms = {
    // ---- x86_64, 2.6.0 - 2.6.17: printk_address printed "%+ld" (decimal) in braces.
    TraceForm{"x86_64-2.6.0-braces", "x86_64", "2.6.0", "2.6.8", "arch/x86_64/kernel/traps.c printk_address",
              "<ffffffff8010e4b5>{system_call+125}", "system_call", 125, 0, "", 0xffffffff8010e4b5, kAddress | kOffset},
    TraceForm{"x86_64-2.6.9-bracket-braces", "x86_64", "2.6.9", "2.6.17", "arch/x86_64/kernel/traps.c printk_address",
              " [<ffffffff80110b9a>]{sys_ioctl+90}", "sys_ioctl", 90, 0, "", 0xffffffff80110b9a, kAddress | kOffset},
    TraceForm{"x86_64-2.6.9-module-braces", "x86_64", "2.6.9", "2.6.17", "arch/x86_64/kernel/traps.c printk_address",
              " [<ffffffff880313ea>]{:ext3:ext3_get_block+58}", "ext3_get_block", 58, 0, "ext3", 0xffffffff880313ea,
              kAddress | kOffset | kModule},
    TraceForm{"x86_64-2.6.9-irq-inline", "x86_64", "2.6.9", "2.6.17", "arch/x86_64/kernel/traps.c show_trace",
              " <IRQ> [<ffffffff80110b9a>]{do_IRQ+90}", "do_IRQ", 90, 0, "", 0xffffffff80110b9a,
              kAddress | kOffset | kMarker, StackKind::Irq},
    TraceForm{"x86_64-2.6.9-eoi-inline", "x86_64", "2.6.9", "2.6.17", "arch/x86_64/kernel/traps.c show_trace",
              " <EOI> [<ffffffff8010e4b5>]{system_call+125}", "system_call", 125, 0, "", 0xffffffff8010e4b5,
              kAddress | kOffset | kMarker, StackKind::Irq, false},
    // A symbol and decimal offset/size in the brackets, the %pS form after it (kernels whose
    // address printing was replaced by a symbol, as hardened 2.6.2x trees did).
    TraceForm{"x86-2.6.2x-symbol-bracket", "x86_64", "2.6.20", "2.6.39", "arch/x86/kernel/dumpstack.c (hardened %p)",
              " [warn_slowpath_common+124/148] ? warn_slowpath_common+0x7c/0x94", "warn_slowpath_common", 0x7c, 0x94,
              "", 0, kOffset | kSize | kUnreliable},
    TraceForm{"x86-2.6.2x-symbol-bracket-alone", "x86_64", "2.6.20", "2.6.39",
              "arch/x86/kernel/dumpstack.c (hardened %p)", " [vfs_write+184/355]", "vfs_write", 184, 355, "", 0,
              kOffset | kSize},
    // ---- 2.6.18 - 4.9: " [<address>] symbol+0xoff/0xsize" (print_symbol, then %pS).
    TraceForm{"x86_64-2.6.18-bracket", "x86_64", "2.6.18", "4.9", "arch/x86_64/kernel/traps.c printk_address",
              " [<ffffffff8020b395>] system_call+0x7e/0x83", "system_call", 0x7e, 0x83, "", 0xffffffff8020b395,
              kAddress | kOffset | kSize},
    TraceForm{"i386-2.6.18-bracket", "i386", "2.6.18", "4.9", "arch/i386/kernel/traps.c print_trace_address",
              " [<c0103ea9>] show_trace_log_lvl+0x1a/0x2f", "show_trace_log_lvl", 0x1a, 0x2f, "", 0xc0103ea9,
              kAddress | kOffset | kSize},
    TraceForm{"x86_64-2.6.18-module", "x86_64", "2.6.18", "4.9", "kernel/kallsyms.c sprint_symbol",
              " [<ffffffff8819a2b3>] :ext3:ext3_get_block+0x5b/0x80", "ext3_get_block", 0x5b, 0x80, "ext3",
              0xffffffff8819a2b3, kAddress | kOffset | kSize | kModule},
    TraceForm{"x86-2.6.25-unreliable", "x86_64", "2.6.25 (x86: fuzzy backtraces, '?' for unvouched words)", "4.9",
              "arch/x86/kernel/traps_64.c printk_address", " [<ffffffff8020b395>] ? system_call+0x7e/0x83",
              "system_call", 0x7e, 0x83, "", 0xffffffff8020b395, kAddress | kOffset | kSize | kUnreliable},
    TraceForm{"x86-2.6.28-pS-module", "x86_64", "2.6.28 (printk_address through %pS)", "4.9",
              "arch/x86/kernel/dumpstack.c printk_address", " [<ffffffffa0012345>] ? e1000_clean+0x12/0x34 [e1000e]",
              "e1000_clean", 0x12, 0x34, "e1000e", 0xffffffffa0012345,
              kAddress | kOffset | kSize | kModule | kUnreliable},
    TraceForm{"i386-3.x-unreliable", "i386", "2.6.25", "4.9", "arch/x86/kernel/dumpstack_32.c",
              " [<c10b1d4c>] ? kmem_cache_alloc+0x2c/0x120", "kmem_cache_alloc", 0x2c, 0x120, "", 0xc10b1d4c,
              kAddress | kOffset | kSize | kUnreliable},
    TraceForm{"x86-2.6.28-irq-inline", "x86_64", "2.6.28", "4.9", "arch/x86/kernel/dumpstack_64.c",
              " <IRQ>  [<ffffffff8103e5d7>] ? __do_softirq+0xd7/0x1f0", "__do_softirq", 0xd7, 0x1f0, "",
              0xffffffff8103e5d7, kAddress | kOffset | kSize | kUnreliable | kMarker, StackKind::Irq},
    TraceForm{"x86-2.6.28-eoi-inline", "x86_64", "2.6.28", "4.9", "arch/x86/kernel/dumpstack_64.c",
              " <EOI>  [<ffffffff8100be1e>] ? retint_restore_args+0x0/0xe", "retint_restore_args", 0, 0xe, "",
              0xffffffff8100be1e, kAddress | kOffset | kSize | kUnreliable | kMarker, StackKind::Irq, false},
    TraceForm{"x86-2.6.28-eoe-inline", "x86_64", "2.6.28", "4.9", "arch/x86/kernel/dumpstack_64.c",
              " <<EOE>>  [<ffffffff81012345>] do_nmi+0x12/0x34", "do_nmi", 0x12, 0x34, "", 0xffffffff81012345,
              kAddress | kOffset | kSize | kMarker, StackKind::Exception, false},
    TraceForm{"x86-2.6.28-nmi-inline", "x86_64", "2.6.28", "4.9", "arch/x86/kernel/dumpstack_64.c",
              " <NMI>  [<ffffffff81012345>] ? nmi_handle+0x12/0x34", "nmi_handle", 0x12, 0x34, "", 0xffffffff81012345,
              kAddress | kOffset | kSize | kUnreliable | kMarker, StackKind::Nmi},
    TraceForm{"x86-2.6.28-irq-alone", "x86_64", "2.6.28", "4.9", "arch/x86/kernel/dumpstack_64.c", " <IRQ> ", "", 0, 0,
              "", 0, kMarker, StackKind::Irq},
    TraceForm{"x86-2.6.28-raw", "x86_64", "2.6.28", "4.9", "arch/x86/kernel/dumpstack.c (no symbol)",
              " [<ffffffffa00b7000>] 0xffffffffa00b7000", "", 0, 0, "", 0xffffffffa00b7000, kAddress},
    // ---- 4.10+: addresses dropped (x86/dumpstack: Remove kernel text addresses from stack dump).
    TraceForm{"x86-4.10-plain", "x86_64", "4.10 (bb5e5ce545f2)", "", "arch/x86/kernel/dumpstack.c printk_stack_address",
              " dump_stack+0x85/0xc4", "dump_stack", 0x85, 0xc4, "", 0, kOffset | kSize},
    TraceForm{"x86-4.10-unreliable", "x86_64", "4.10 (bb5e5ce545f2)", "",
              "arch/x86/kernel/dumpstack.c printk_stack_address", " ? __schedule+0x2f4/0x8a0", "__schedule", 0x2f4,
              0x8a0, "", 0, kOffset | kSize | kUnreliable},
    TraceForm{"x86-4.10-module", "x86_64", "4.10", "", "lib/vsprintf.c %pB", " labcrash_write+0x22f/0x2c0 [labcrash]",
              "labcrash_write", 0x22f, 0x2c0, "labcrash", 0, kOffset | kSize | kModule},
    TraceForm{"x86-4.10-raw", "x86_64", "4.10", "", "lib/vsprintf.c %pB (no symbol)", " ? 0xffffffffc00b7000", "", 0, 0,
              "", 0xffffffffc00b7000, kAddress | kUnreliable},
    TraceForm{"x86-4.10-cold", "x86_64", "4.10", "", "lib/vsprintf.c %pB (compiler-split function)",
              " __handle_sysrq.cold+0x44/0x11c", "__handle_sysrq.cold", 0x44, 0x11c, "", 0, kOffset | kSize},
    TraceForm{"x86-4.10-irq", "x86_64", "4.10", "", "arch/x86/kernel/dumpstack.c show_trace_log_lvl", " <IRQ>", "", 0,
              0, "", 0, kMarker, StackKind::Irq},
    TraceForm{"x86-4.10-irq-end", "x86_64", "4.10", "", "arch/x86/kernel/dumpstack.c show_trace_log_lvl", " </IRQ>", "",
              0, 0, "", 0, kMarker, StackKind::Irq, false},
    TraceForm{"x86-4.10-nmi", "x86_64", "4.10", "", "arch/x86/kernel/dumpstack.c show_trace_log_lvl", " <NMI>", "", 0,
              0, "", 0, kMarker, StackKind::Nmi},
    TraceForm{"x86-4.10-df", "x86_64", "4.10", "", "arch/x86/kernel/dumpstack_64.c stack_type_name", " <#DF>", "", 0, 0,
              "", 0, kMarker, StackKind::Exception},
    TraceForm{"x86-4.15-entry-trampoline", "x86_64", "4.15", "5.0", "arch/x86/kernel/dumpstack_64.c stack_type_name",
              " <ENTRY_TRAMPOLINE>", "", 0, 0, "", 0, kMarker, StackKind::Entry},
    TraceForm{"x86-4.20-softirq", "x86_64", "5.0", "", "arch/x86/kernel/dumpstack_64.c stack_type_name", " <SOFTIRQ>",
              "", 0, 0, "", 0, kMarker, StackKind::Softirq},
    TraceForm{"x86-5.16-task", "x86_64", "5.16 (x86/dumpstack: <TASK> markers)", "",
              "arch/x86/kernel/dumpstack.c show_trace_log_lvl", " <TASK>", "", 0, 0, "", 0, kMarker, StackKind::Task},
    TraceForm{"x86-5.16-task-end", "x86_64", "5.16", "", "arch/x86/kernel/dumpstack.c show_trace_log_lvl", " </TASK>",
              "", 0, 0, "", 0, kMarker, StackKind::Task, false},
    TraceForm{"x86-5.14-build-id", "x86_64", "5.14 (module: add printk formats to add module build ID to stacktraces)",
              "", "lib/vsprintf.c %pBb",
              " ? labcrash_write+0x22f/0x2c0 [labcrash 3c8a4b2f7e1d9a0b5c6d7e8f9a0b1c2d3e4f5a6b]", "labcrash_write",
              0x22f, 0x2c0, "labcrash", 0, kOffset | kSize | kModule | kUnreliable | kBuildId},
    // syzkaller's symbolizer appends the source line; inlined frames have no offset.
    TraceForm{"x86-symbolized", "x86_64", "syzkaller symbolizer", "", "syzkaller pkg/report symbolize",
              " __dump_stack lib/dump_stack.c:77 [inline]", "__dump_stack", 0, 0, "", 0, kNone},
    TraceForm{"x86-symbolized-offset", "x86_64", "syzkaller symbolizer", "", "syzkaller pkg/report symbolize",
              " dump_stack+0x85/0xc4 lib/dump_stack.c:113", "dump_stack", 0x85, 0xc4, "", 0, kOffset | kSize},
    // ---- arm64
    TraceForm{"arm64-3.7-bracket", "arm64", "3.7", "4.19", "arch/arm64/kernel/traps.c dump_backtrace_entry",
              "[<ffffff800808a2e8>] el0_svc_naked+0x24/0x28", "el0_svc_naked", 0x24, 0x28, "", 0xffffff800808a2e8,
              kAddress | kOffset | kSize},
    TraceForm{"arm64-4.20-plain", "arm64", "4.20 (arm64: dump: no addresses)", "",
              "arch/arm64/kernel/stacktrace.c dump_backtrace_entry", " el0_svc+0x24/0x28", "el0_svc", 0x24, 0x28, "", 0,
              kOffset | kSize},
    TraceForm{"arm64-6.14-pc-mark", "arm64", "6.14 (arm64: stacktrace: mark frames from pt_regs)", "",
              "arch/arm64/kernel/stacktrace.c dump_backtrace_entry", " show_stack+0x18/0x24 (C)", "show_stack", 0x18,
              0x24, "", 0, kOffset | kSize},
    // ---- arm (32-bit)
    TraceForm{"arm-2.6-from", "arm", "2.6.0", "5.10", "arch/arm/kernel/traps.c dump_backtrace_entry",
              "[<c0013cb8>] (unwind_backtrace+0x0/0x10c) from [<c0013dcc>] (show_stack+0x18/0x1c)", "unwind_backtrace",
              0, 0x10c, "", 0xc0013cb8, kAddress | kOffset | kSize},
    TraceForm{"arm-5.11-from", "arm", "5.11 (ARM: 9020/1: no addresses)", "",
              "arch/arm/kernel/traps.c dump_backtrace_entry", " unwind_backtrace from show_stack+0x18/0x1c",
              "unwind_backtrace", 0, 0, "", 0, kNone},
    // ---- powerpc
    TraceForm{"ppc64-show-stack", "powerpc", "2.6.12", "", "arch/powerpc/kernel/process.c show_stack",
              "[c0000000fe3f7b30] [c000000000123456] do_IRQ+0x12/0x34 (unreliable)", "do_IRQ", 0x12, 0x34, "",
              0xc000000000123456, kAddress | kOffset | kSize | kUnreliable},
    TraceForm{"ppc64-elfv1-dot", "powerpc", "2.6.12", "4.x (ELFv1)", "arch/powerpc/kernel/process.c show_stack",
              "[c0000000fe3f7b30] [c000000000123456] .do_IRQ+0x12/0x34", "do_IRQ", 0x12, 0x34, "", 0xc000000000123456,
              kAddress | kOffset | kSize},
    // ---- s390
    TraceForm{"s390-bracket", "s390", "2.6.0", "", "arch/s390/kernel/dumpstack.c show_trace",
              " [<0000000000112233>] do_syscall+0x12/0x34", "do_syscall", 0x12, 0x34, "", 0x112233,
              kAddress | kOffset | kSize},
    TraceForm{"s390-paren", "s390", "2.6.0", "", "arch/s390/kernel/dumpstack.c (stack words not vouched for)",
              " ([<0000000000112233>] do_syscall+0x12/0x34)", "do_syscall", 0x12, 0x34, "", 0x112233,
              kAddress | kOffset | kSize | kUnreliable},
    // ---- riscv
    TraceForm{"riscv-bracket", "riscv", "4.15", "", "arch/riscv/kernel/stacktrace.c print_trace_address",
              "[<ffffffff800044ba>] dump_backtrace+0x30/0x38", "dump_backtrace", 0x30, 0x38, "", 0xffffffff800044ba,
              kAddress | kOffset | kSize},
    TraceForm{"riscv-6.x-plain", "riscv", "6.2", "", "arch/riscv/kernel/stacktrace.c print_trace_address",
              " [<ffffffff800044ba>] dump_backtrace+0x30/0x38", "dump_backtrace", 0x30, 0x38, "", 0xffffffff800044ba,
              kAddress | kOffset | kSize},
    // ---- sparc: show_stack() prints print_ip_sym()'s form (the bracket rows above); die_if_kernel()
    // then walks the register windows itself, "Caller[%016lx]: %pS" ("%08lx" on sparc32).
    TraceForm{"sparc64-print-ip-sym", "sparc64", "2.6.0", "", "arch/sparc/kernel/traps_64.c show_stack",
              "[<0000000000427a44>] do_one_initcall+0x24/0x1c0", "do_one_initcall", 0x24, 0x1c0, "", 0x427a44,
              kAddress | kOffset | kSize},
    TraceForm{"sparc64-caller", "sparc64", "2.6.0", "", "arch/sparc/kernel/traps_64.c die_if_kernel",
              "Caller[00000000004e9c54]: do_init_module+0x44/0x1e0", "do_init_module", 0x44, 0x1e0, "", 0x4e9c54,
              kAddress | kOffset | kSize},
    TraceForm{"sparc32-caller", "sparc", "2.6.0", "", "arch/sparc/kernel/traps_32.c die_if_kernel",
              "Caller[f0012e4c]: sys_init_module+0x7c/0x160", "sys_init_module", 0x7c, 0x160, "", 0xf0012e4c,
              kAddress | kOffset | kSize},
};

// The header (start) lines of reports, as each reporter printed them, with the report kind
// btaudit gives them. tests/unit/format_table_test.cpp checks each against match_start, alone
// and behind the console prefixes.
struct HeaderForm {
  std::string_view id;
  std::string_view introduced;
  std::string_view source;
  std::string_view example;
  ReportKind kind;
};

inline constexpr std::array kHeaderForms = {
    HeaderForm{"warn-2.6.26", "2.6.26", "kernel/panic.c warn_slowpath_common",
               "WARNING: at kernel/sched.c:1234 update_rq_clock+0x12/0x34()", ReportKind::Warning},
    HeaderForm{"warn-3.12", "3.12", "kernel/panic.c warn_slowpath_common (CPU and PID)",
               "WARNING: CPU: 1 PID: 796 at kernel/workqueue.c:1440 __queue_work+0x2b2/0x3a0", ReportKind::Warning},
    HeaderForm{"warn-4.x-module", "4.x", "kernel/panic.c __warn",
               "WARNING: CPU: 0 PID: 97 at drivers/labcrash.c:41 labcrash_hrtimer_fn+0x29/0x40 [labcrash]",
               ReportKind::Warning},
    HeaderForm{"cut-here", "2.6.26", "lib/bug.c report_bug, kernel/panic.c", "------------[ cut here ]------------",
               ReportKind::Other},
    HeaderForm{"null-deref-2.6", "2.6.x", "arch/x86/mm/fault.c no_context",
               "BUG: unable to handle kernel NULL pointer dereference at 0000000000000008",
               ReportKind::NullPointerDereference},
    HeaderForm{"paging-2.6", "2.6.x", "arch/x86/mm/fault.c no_context",
               "BUG: unable to handle kernel paging request at ffff880012345678", ReportKind::PageFault},
    HeaderForm{"null-deref-5.1", "5.1", "arch/x86/mm/fault.c show_fault_oops",
               "BUG: kernel NULL pointer dereference, address: 0000000000000008", ReportKind::NullPointerDereference},
    HeaderForm{"page-fault-5.1", "5.1", "arch/x86/mm/fault.c show_fault_oops",
               "BUG: unable to handle page fault for address: ffffc90000a0e000", ReportKind::PageFault},
    HeaderForm{"oops-line", "2.6.0", "arch/x86/kernel/dumpstack.c __die", "Oops: 0000 [#1] SMP PTI", ReportKind::Oops},
    HeaderForm{"gpf-2.6", "2.6.0", "arch/x86/kernel/traps.c do_general_protection",
               "general protection fault: 0000 [#1] SMP", ReportKind::GeneralProtectionFault},
    HeaderForm{"gpf-5.5", "5.5", "arch/x86/kernel/traps.c (non-canonical hint)",
               "general protection fault, probably for non-canonical address 0xdffffc0000000000: 0000 [#1] PREEMPT SMP "
               "KASAN",
               ReportKind::GeneralProtectionFault},
    HeaderForm{"oops-gpf-6.11", "6.11", "arch/x86/kernel/dumpstack.c __die_header (\"Oops: \" before the trap)",
               "Oops: general protection fault, probably for non-canonical address 0xdffffc0000000001: 0000 [#1] SMP",
               ReportKind::Oops},
    HeaderForm{"kernel-bug", "2.6.0", "lib/bug.c report_bug", "kernel BUG at mm/slub.c:3912!", ReportKind::KernelBug},
    HeaderForm{"invalid-opcode", "2.6.0", "arch/x86/kernel/traps.c", "invalid opcode: 0000 [#1] SMP",
               ReportKind::InvalidOpcode},
    HeaderForm{"double-fault", "2.6.0", "arch/x86/kernel/traps.c", "double fault: 0000 [#1] SMP",
               ReportKind::DoubleFault},
    HeaderForm{"stack-overflow-double-fault", "4.9",
               "arch/x86/kernel/traps.c handle_stack_overflow (die's header after \"BUG: stack guard page was hit\")",
               "kernel stack overflow (double-fault): 0000 [#1] PREEMPT SMP KASAN", ReportKind::StackOverflow},
    HeaderForm{"stack-overflow-page-fault", "4.9", "arch/x86/mm/fault.c no_context -> handle_stack_overflow",
               "kernel stack overflow (page fault): 0000 [#1] SMP", ReportKind::StackOverflow},
    HeaderForm{"panic-double-fault", "4.x", "arch/x86/kernel/traps.c handle_stack_overflow / exc_double_fault",
               "PANIC: double fault, error_code: 0x0", ReportKind::DoubleFault},
    HeaderForm{"divide-error", "2.6.0", "arch/x86/kernel/traps.c", "divide error: 0000 [#1] PREEMPT SMP KASAN",
               ReportKind::DivideError},
    HeaderForm{"divide-error-5.8", "5.8 (9d06c4027f21)", "arch/x86/kernel/traps.c", "divide_error: 0000 [#1] SMP",
               ReportKind::DivideError},
    HeaderForm{"int3", "2.6.0", "arch/x86/kernel/traps.c do_int3", "int3: 0000 [#1] PREEMPT SMP KASAN",
               ReportKind::Oops},
    HeaderForm{"stack-segment", "2.6.0", "arch/x86/kernel/traps.c", "stack segment: 0000 [#1] SMP KASAN",
               ReportKind::Oops},
    HeaderForm{"panic", "2.6.0", "kernel/panic.c panic", "Kernel panic - not syncing: Attempted to kill init!",
               ReportKind::Panic},
    HeaderForm{"cfi-failure", "6.1 (kCFI; 4.19's CFI_CLANG the same line)", "kernel/cfi.c report_cfi_failure",
               "CFI failure at int80_emulation+0x67/0xb0 (target: sys_ni_posix_timers+0x0/0x70; expected type: "
               "0xb02b34d9)",
               ReportKind::CfiFailure},
    HeaderForm{"cfi-failure-no-target", "6.1", "kernel/cfi.c report_cfi_failure (no target)",
               "CFI failure at __bpf_prog_run32+0x2e/0x60 (no target information)", ReportKind::CfiFailure},
    // die()'s header where no start word stands before its counter (markers_detail::die_header).
    HeaderForm{"die-riscv", "4.15", "arch/riscv/kernel/traps.c die (\"%s [#%d]\")", "Oops [#1]", ReportKind::Oops},
    HeaderForm{"die-riscv-bug", "4.15", "arch/riscv/kernel/traps.c do_trap_break -> die(\"Kernel BUG\")",
               "Kernel BUG [#1]", ReportKind::KernelBug},
    HeaderForm{"die-csky", "5.0", "arch/csky/kernel/traps.c die (\"%s [#%d]\")", "Kernel bad trap [#2]",
               ReportKind::Oops},
    HeaderForm{"die-mips", "2.6.0", "arch/mips/kernel/traps.c die (\"%s[#%d]:\")",
               "Reserved instruction in kernel code[#1]:", ReportKind::Oops},
    HeaderForm{"die-mips-bug", "2.6.0", "arch/mips/kernel/traps.c do_bp -> die_if_kernel(\"Kernel bug detected\")",
               "Kernel bug detected[#1]:", ReportKind::KernelBug},
    HeaderForm{"die-loongarch", "5.19", "arch/loongarch/kernel/traps.c die (\"%s[#%d]:\")",
               "Unhandled kernel unaligned access[#1]:", ReportKind::Oops},
    HeaderForm{"die-sparc64", "2.6.0", "arch/sparc/kernel/traps_64.c die_if_kernel (\"%s(%d): %s [#%d]\")",
               "insmod(2345): Kernel illegal instruction [#1]", ReportKind::Oops},
    HeaderForm{"die-sparc64-fault", "2.6.0", "arch/sparc/mm/fault_64.c unhandled_fault -> die_if_kernel(\"Oops\")",
               "kworker/0:1(55): Oops [#3]", ReportKind::Oops},
    HeaderForm{"die-m68k", "2.6.0", "arch/m68k/kernel/traps.c die_if_kernel (\"%s: %08x\")", "Oops: 00000000",
               ReportKind::Oops},
    HeaderForm{"die-microblaze", "2.6.30", "arch/microblaze/kernel/exceptions.c die (\"Oops: %s, sig: %ld\")",
               "Oops: Exception in kernel mode, sig: 4", ReportKind::Oops},
    HeaderForm{"die-nios2", "3.19", "arch/nios2/kernel/traps.c die (\"Oops: %s, sig: %ld\")",
               "Oops: Kernel access of bad area, sig: 11", ReportKind::Oops},
    HeaderForm{"die-openrisc", "3.1", "arch/openrisc/kernel/traps.c die (\"%s#: %04lx\")", "Oops#: 0009",
               ReportKind::Oops},
    HeaderForm{"die-parisc", "2.6.0", "arch/parisc/kernel/traps.c die_if_kernel (\"%s (pid %d): %s (code %ld)\")",
               "modprobe (pid 1234): Kernel Fault (code 15)", ReportKind::Oops},
    HeaderForm{"die-parisc-break", "2.6.0", "arch/parisc/kernel/traps.c handle_break -> die_if_kernel",
               "swapper/0 (pid 1): Breakpoint (code 0)", ReportKind::Oops},
    HeaderForm{"die-sparc32", "2.6.0", "arch/sparc/kernel/traps_32.c die_if_kernel (\"%s(%d): %s [#%d]\")",
               "swapper(1): Kernel bad trap [#1]", ReportKind::Oops},
    HeaderForm{"hung-task", "2.6.30", "kernel/hung_task.c check_hung_task",
               "INFO: task khungtaskd:28 blocked for more than 120 seconds.", ReportKind::HungTask},
    HeaderForm{"hung-task-io", "6.x", "kernel/hung_task.c check_hung_task (I/O wait)",
               "INFO: task kworker/u4:1:30 blocked in I/O wait for more than 143 seconds.", ReportKind::HungTask},
    HeaderForm{"soft-lockup-2.6", "2.6.x", "kernel/softlockup.c, kernel/watchdog.c",
               "BUG: soft lockup - CPU#0 stuck for 22s! [kworker/0:1:23]", ReportKind::SoftLockup},
    HeaderForm{"soft-lockup-4.15", "4.15", "kernel/watchdog.c (pr_fmt \"watchdog: \")",
               "watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [syz-executor:1234]", ReportKind::SoftLockup},
    HeaderForm{"soft-lockup-nmi", "4.x", "kernel/watchdog.c (pr_fmt \"NMI watchdog: \")",
               "NMI watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [swapper/1:0]", ReportKind::SoftLockup},
    HeaderForm{"hard-lockup", "3.x", "kernel/watchdog_hld.c", "Watchdog detected hard LOCKUP on cpu 1",
               ReportKind::HardLockup},
    HeaderForm{"rcu-self-3.x", "3.x", "kernel/rcu/tree.c print_cpu_stall", "INFO: rcu_sched self-detected stall on CPU",
               ReportKind::RcuStall},
    HeaderForm{"rcu-4.19", "4.19", "kernel/rcu/tree_stall.h (pr_fmt \"rcu: \")",
               "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:", ReportKind::RcuStall},
    HeaderForm{"nobody-cared", "2.6.0", "kernel/irq/spurious.c __report_bad_irq",
               "irq 16: nobody cared (try booting with the \"irqpoll\" option)", ReportKind::Bug},
    HeaderForm{"nmi-backtrace", "3.x", "lib/nmi_backtrace.c", "NMI backtrace for cpu 1", ReportKind::NmiBacktrace},
    HeaderForm{"kasan", "4.0", "mm/kasan/report.c", "BUG: KASAN: use-after-free in ext4_find_extent+0x8b2/0x9a0",
               ReportKind::Kasan},
    HeaderForm{"ubsan-4.5", "4.5", "lib/ubsan.c", "UBSAN: Undefined behaviour in net/core/dev.c:12:3",
               ReportKind::Ubsan},
    HeaderForm{"ubsan-5.x", "5.x", "lib/ubsan.c", "UBSAN: array-index-out-of-bounds in fs/jfs/jfs_dmap.c:1602:20",
               ReportKind::Ubsan},
    HeaderForm{"atomic-sleep", "2.6.x", "kernel/sched/core.c __might_sleep",
               "BUG: sleeping function called from invalid context at mm/slab.h:494", ReportKind::AtomicSleep},
    HeaderForm{"rust-panic", "6.1", "rust/kernel/lib.rs panic handler",
               "rust_kernel: panicked at rust/kernel/page.rs:60:5:", ReportKind::Panic},
    HeaderForm{"arm64-null", "3.7", "arch/arm64/mm/fault.c __do_kernel_fault",
               "Unable to handle kernel NULL pointer dereference at virtual address 0000000000000008",
               ReportKind::NullPointerDereference},
    HeaderForm{"arm-internal-error", "2.6.0", "arch/arm64/kernel/traps.c die",
               "Internal error: Oops: 96000005 [#1] PREEMPT SMP", ReportKind::Oops},
    HeaderForm{"ppc-kernel-bug", "2.6.x", "arch/powerpc/kernel/traps.c",
               "Kernel BUG at c000000000123456 [verbose debug info unavailable]", ReportKind::KernelBug},
    HeaderForm{"reboot", "2.6.x", "arch/x86/boot/compressed/misc.c", "Booting the kernel.", ReportKind::Other},
};

}  // namespace btaudit::format_table
