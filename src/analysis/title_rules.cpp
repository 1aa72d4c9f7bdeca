#include "analysis/title_rules.h"

namespace btaudit::title_rules {

namespace {

using enum PartKind;

// Most faults: the crash site first, else the first frame of the call trace.
StackRecipe crash_site(std::vector<std::string_view> skip = {}) {
  return {{{Rip}, {CallTrace}, {Stack}}, {}, std::move(skip), Extractor::First};
}

StackRecipe call_trace(std::vector<std::string_view> skip = {}, Extractor e = Extractor::First) {
  return {{{CallTrace}, {Stack}}, {}, std::move(skip), e};
}

// WARNINGs trap on 4.x+ kernels: the stack worth naming starts at the RIP line;
// older kernels print only the call trace.
StackRecipe warning_stack(std::vector<std::string_view> skip = {}) {
  return {{{RipOrInterrupt}, {Stack}}, {{CallTrace}, {Stack}}, std::move(skip), Extractor::First};
}

Format plain(std::vector<std::string_view> title, std::string_view fmt, bool corrupted = false) {
  return Format{std::move(title), {}, fmt, false, {}, corrupted};
}

Format with_report(std::vector<std::string_view> title, std::vector<std::string_view> report, std::string_view fmt) {
  return Format{std::move(title), std::move(report), fmt, false, {}, false};
}

Format stacked(std::vector<std::string_view> title, std::string_view fmt, StackRecipe stack,
               std::vector<std::string_view> report = {}) {
  return Format{std::move(title), std::move(report), fmt, true, std::move(stack), false};
}

// A format whose title names a task: a name of TASK_COMM_LEN - 1 = 15 bytes holds at most 15
// line breaks (the engine also bounds the joined text, as syzkaller bounds the name at 100 bytes).
Format naming_task(Format f) {
  f.spans_lines = 15;
  return f;
}

std::vector<Family> build() {
  std::vector<Family> f;
  f.push_back(
      {"BUG:",
       {"ODEBUG:", "Boot_DEBUG:", "xlog_status:", "DEBUG:", "BUG: no syscalls can create resource"},
       {
           stacked({"BUG: KASAN:"}, "KASAN: $1 $3 in $4",
                   {{{Line, "BUG: KASAN: {w} in {F}"}, {CallTrace}, {Stack}},
                    {},
                    {"kernel_fault", "tag_check", "mem_abort", "^el1_", "^el1h_"}},
                   {"BUG: KASAN: {W} in {F}", "{C:Read|Write} {A:of size|at addr} {H}"}),
           stacked({"BUG: KASAN:"}, "KASAN: invalid-free in $2",
                   {{{Line, "BUG: KASAN: {A:double-free or invalid-free|double-free|invalid-free} in {F}"},
                     {CallTrace},
                     {Stack}},
                    {},
                    {"slab_", "kfree", "vunmap", "vfree"}},
                   {"BUG: KASAN: {A:double-free or invalid-free|double-free|invalid-free} in {F}"}),
           plain({"BUG: KASAN: {W} on address", "{C:Read|Write} of size {D}"}, "KASAN: $1 $2"),
           plain({"BUG: KASAN: {R}"}, "KASAN: $1", true),
           stacked({"BUG: KMSAN: kernel-usb-infoleak"}, "KMSAN: kernel-usb-infoleak in $2",
                   {{{Stack}, {Line, "{A:Local variable |Uninit was created at:}"}, {Stack}},
                    {},
                    {"alloc_skb", "usb_submit_urb", "usb_start_wait_urb", "usb_bulk_msg", "usb_interrupt_msg",
                     "usb_control_msg"}},
                   {"BUG: KMSAN: kernel-usb-infoleak in {F}"}),
           stacked({"BUG: KMSAN:"}, "KMSAN: $1 in $3",
                   {{{Stack}, {Line, "{A:Local variable |Uninit was created at:}"}, {Stack}},
                    {},
                    {"alloc_skb", "netlink_ack", "netlink_rcv_skb", "_encrypt$", "^crypto_", "^cipher_", "^drbg_",
                     "^rng_"}},
                   {"BUG: KMSAN: {W} in {F}"}),
           with_report({"BUG: KCSAN: data-race"}, {"BUG: KCSAN: {R}"}, "KCSAN: $1"),
           with_report({"BUG: KCSAN:"}, {"BUG: KCSAN: {R}"}, "KCSAN: $1"),
           stacked({"BUG: KFENCE: {C:use-after-free|out-of-bounds} {C:read|write} in {F}"}, "KFENCE: $1 $2 in $4",
                   {{{Line, "BUG: KFENCE: * in {F}"}, {Stack}}, {}, {}}),
           stacked({"BUG: KFENCE: invalid free in {F}"}, "KFENCE: invalid free in $2",
                   {{{Line, "BUG: KFENCE: * in {F}"}, {Stack}}, {}, {}}),
           stacked({"BUG: KFENCE: invalid {C:read|write} in {F}"}, "KFENCE: invalid $1 in $3",
                   {{{Line, "BUG: KFENCE: * in {F}"}, {Stack}}, {}, {}}),
           stacked({"BUG: KFENCE: memory corruption in {F}"}, "KFENCE: memory corruption in $2",
                   {{{Line, "BUG: KFENCE: * in {F}"}, {Stack}}, {}, {}}),
           stacked({"BUG: {A:unable to handle kernel paging request|unable to handle page fault for "
                    "address|Unable to handle kernel data access}"},
                   "BUG: unable to handle kernel paging request in $1", crash_site()),
           stacked({"BUG: {A:unable to handle kernel NULL pointer dereference|kernel NULL pointer "
                    "dereference|Kernel NULL pointer dereference}"},
                   "BUG: unable to handle kernel NULL pointer dereference in $1", crash_site()),
           plain({"BUG: {A:unable to handle kernel|Unable to handle kernel}"}, "BUG: unable to handle kernel", true),
           stacked({"BUG: {C:spinlock|rwlock} {C:lockup suspected|already unlocked|recursion|cpu "
                    "recursion|bad magic|wrong owner|wrong CPU|trylock failure on UP}"},
                   "BUG: $1 $2 in $3", call_trace({"spin_", "_lock", "_unlock"})),
           stacked({"BUG: soft lockup"}, "BUG: soft lockup in $1",
                   {{{Rip}, {CallTrace}, {Stack}}, {}, {}, Extractor::Stall}),
           with_report({"BUG: *still has locks held!"}, {"BUG: *still has locks held!", "{P} {F}"},
                       "BUG: still has locks held in $1"),
           stacked({"BUG: scheduling while atomic"}, "BUG: scheduling while atomic in $1", call_trace({"schedule"})),
           with_report({"BUG: lock held when returning to user space"},
                       {"BUG: lock held when returning to user space", "leaving the kernel with locks still held",
                        "at: {p}{F}"},
                       "BUG: lock held when returning to user space in $1"),
           stacked({"BUG: bad unlock balance detected!"}, "BUG: bad unlock balance in $1",
                   {{{Line, "{P} {F}"}, {CallTrace}, {Stack}}, {}, {}}),
           with_report({"BUG: held lock freed!"}, {"BUG: held lock freed!", "{P} {F}"}, "BUG: held lock freed in $1"),
           plain({"BUG: Bad rss-counter state"}, "BUG: Bad rss-counter state"),
           plain({"BUG: non-zero nr_ptes on freeing mm"}, "BUG: non-zero nr_ptes on freeing mm"),
           plain({"BUG: non-zero nr_pmds on freeing mm"}, "BUG: non-zero nr_pmds on freeing mm"),
           // The file system type and block device are left out on purpose: loop0/1/2 split one bug.
           with_report({"BUG: Dentry * still in use"}, {"BUG: Dentry * still in use ({D}) [{C:unmount} of "},
                       "BUG: Dentry still in use in $1"),
           stacked(
               {"BUG: Bad page {C:state|cache}"}, "BUG: Bad page $1 in $2",
               {{{AnyOf, "page last allocated"}, {Stack}},
                {},
                {"free_page", "put_page", "get_page", "update_page", "release_page", "free_unref", "^folio", "^_folio",
                 "^__folio", "^___folio", "truncate_inode_pages", "page_frag_free", "alloc", "vmap", "page_owner"}}),
           plain({"BUG: Bad page map"}, "BUG: Bad page map"),
           plain({"BUG: workqueue lockup"}, "BUG: workqueue lockup"),
           stacked({"BUG: sleeping function called from invalid context at {R}"},
                   "BUG: sleeping function called from invalid context in $2", call_trace()),
           stacked({"BUG: using {L}() in preemptible"}, "BUG: using $1() in preemptible code in $2",
                   call_trace({"dump_stack", "preemption", "preempt", "debug_", "processor_id", "this_cpu"})),
           with_report({"BUG: workqueue leaked lock or atomic"},
                       {"BUG: workqueue leaked lock or atomic", "last function: {I}{E}"},
                       "BUG: workqueue leaked lock or atomic in $1"),
           stacked({"BUG: memory leak"}, "memory leak in $1",
                   {{{Line, "backtrace*:"}, {Stack}},
                    {},
                    {"kmemleak", "mmap", "kmem", "slab", "alloc", "create_object", "idr_get", "list_lru_init",
                     "kasprintf", "kvasprintf", "pcpu_create", "strdup", "strndup", "memdup"}}),
           stacked({"BUG: *stack guard page was hit at"}, "BUG: stack guard page was hit in $1",
                   {{{Rip}, {CallTrace}, {Stack}}, {}, {}, Extractor::Stall}),
           // arm/arm64 word it so; amd64's title is kept to not split one bug in two.
           stacked({"BUG: Invalid wait context"}, "WARNING: locking bug in $1",
                   call_trace({"lock_sock", "release_sock"})),
           plain({"BUG:{E}"}, "BUG: corrupted", true),
       }});
  f.push_back(
      {"WARNING:",
       {"WARNING: /etc/ssh/moduli does not exist", "WARNING: workqueue cpumask: online intersect",
        "WARNING: The mand mount option", "WARNING: the mand mount option", "WARNING: Unsupported flag value",
        "WARNING: Unprivileged eBPF is enabled with eIBRS", "WARNING: fbcon: Driver '", "WARNING: See https",
        "WARNING: kernel not compiled with CPU_SRSO", "EXT4-fs", "EXT4-FS", "XFS (* WARNING"},
       {
           stacked({"WARNING: *lib/debugobjects.c* {A:debug_print|debug_check|at}"}, "WARNING: ODEBUG bug in $1",
                   warning_stack({"debug_", "rcu", "hrtimer_", "timer_", "work_", "percpu_", "vunmap", "vfree",
                                  "__free_", "debug_check", "kobject_"})),
           stacked({"WARNING: *mm/usercopy.c* {A:usercopy_warn|at}"}, "WARNING: bad usercopy in $1",
                   warning_stack({"usercopy", "__check"})),
           stacked({"WARNING: *lib/kobject.c* {A:kobject_|at}"}, "WARNING: kobject bug in $1",
                   warning_stack({"kobject_"})),
           stacked({"WARNING: *fs/proc/generic.c* {A:proc_register|at}"}, "WARNING: proc registration bug in $1",
                   warning_stack({"proc_"})),
           stacked({"WARNING: *lib/refcount.c* {A:refcount_|at}"}, "WARNING: refcount bug in $1",
                   warning_stack({"refcount", "kobject_"})),
           stacked({"WARNING: *kernel/locking/lockdep.c*lock_"}, "WARNING: locking bug in $1",
                   warning_stack({"lock_sock", "release_sock"})),
           with_report({"WARNING: *still has locks held!"}, {"WARNING: *still has locks held!", "at: {F}"},
                       "WARNING: still has locks held in $1"),
           stacked({"WARNING: Nested lock was not taken"}, "WARNING: nested lock was not taken in $1", warning_stack()),
           with_report({"WARNING: lock held when returning to user space"},
                       {"WARNING: lock held when returning to user space", "leaving the kernel with locks still held",
                        "at: {p}{F}"},
                       "WARNING: lock held when returning to user space in $1"),
           stacked({"WARNING: *mm/*.c* {A:malloc|?malloc|k?malloc}"}, "WARNING: kmalloc bug in $1",
                   warning_stack({"kmalloc", "krealloc", "slab", "kmem"})),
           stacked({"WARNING: *mm/vmalloc.c*__vmalloc_node"}, "WARNING: zero-size vmalloc in $1", warning_stack()),
           stacked({"WARNING: * usb_submit_urb"}, "WARNING in $1/usb_submit_urb",
                   warning_stack({"usb_submit_urb", "usb_start_wait_urb", "usb_bulk_msg", "usb_interrupt_msg",
                                  "usb_control_msg"})),
           stacked({"WARNING: {S} at 0x{H}, CPU#{D}"}, "WARNING in $2", warning_stack()),
           stacked({"WARNING: * at {S} {F}"}, "WARNING in $3", warning_stack()),
           stacked({"WARNING: {S} at {F}"}, "WARNING in $3", warning_stack()),
           stacked({"WARNING: [*] {S} at {F}"}, "WARNING in $3", warning_stack()),
           // Before 3.12 a WARNING named no CPU: "WARNING: at net/sched/sch_generic.c:255 dev_watchdog+0x..()".
           // syzkaller's kernels never print it; btaudit words it like the later headers.
           stacked({"WARNING: at {S} {F}"}, "WARNING in $3", warning_stack()),
           stacked({"WARNING: possible circular locking dependency detected"}, "possible deadlock in $1",
                   {{{Line, "at: {p}{F}"}, {Line, "at: {p}{F}"}, {Stack}},
                    {},
                    // Deadlocks seen in these take work items' locks: the work subsystem's business.
                    {"process_one_work", "flush_workqueue", "drain_workqueue", "destroy_workqueue"}},
                   {"WARNING: possible circular locking dependency detected", "is trying to acquire lock"}),
           with_report({"WARNING: possible irq lock inversion dependency detected"},
                       {"WARNING: possible irq lock inversion dependency detected", "just changed the state of lock",
                        "at: {p}{F}"},
                       "possible deadlock in $1"),
           stacked({"WARNING: *-safe -> *-unsafe lock order detected"}, "possible deadlock in $1",
                   {{{Line, "which became * at:"}, {Stack}}, {}, {}}),
           with_report({"WARNING: possible recursive locking detected"},
                       {"WARNING: possible recursive locking detected", "is trying to acquire lock", "at: {p}{F}"},
                       "possible deadlock in $1"),
           stacked({"WARNING: inconsistent lock state"}, "inconsistent lock state in $2", call_trace(),
                   {"WARNING: inconsistent lock state", "takes", "at: {p}{F}"}),
           stacked({"WARNING: suspicious RCU usage"}, "WARNING: suspicious RCU usage in $2",
                   call_trace({"rcu", "kmem", "slab"}), {"WARNING: suspicious RCU usage", "{S}"}),
           plain({"WARNING: kernel stack regs at {H} in {T} has bad '{Q}' value"},
                 "WARNING: kernel stack regs has bad '$1' value"),
           plain({"WARNING: kernel stack frame pointer at {H} in {T} has bad value"},
                 "WARNING: kernel stack frame pointer has bad value"),
           stacked({"WARNING: bad unlock balance detected!"}, "WARNING: bad unlock balance in $1",
                   {{{Line, "{P} {F}"}, {CallTrace}, {Stack}}, {}, {}}),
           with_report({"WARNING: held lock freed!"}, {"WARNING: held lock freed!", "at: {p}{F}"},
                       "WARNING: held lock freed in $1"),
           plain({"WARNING: kernel stack regs * has bad 'bp' value"}, "WARNING: kernel stack regs has bad value"),
           plain({"WARNING: kernel stack frame pointer * has bad value"}, "WARNING: kernel stack regs has bad value"),
           plain({"WARNING:{E}"}, "WARNING: corrupted", true),
       }});
  f.push_back(
      {"INFO:",
       {"INFO: lockdep is turned off", "INFO: Stall ended before state dump start", "INFO: NMI handler",
        "INFO: recovery required on readonly filesystem", "handler* took too long", "interrupt* took too long",
        "INFO: sys_* is not present in /proc/kallsyms", "INFO: no syscalls can create resource",
        "rmt_storage:INFO:", "_INFO:"},
       {
           with_report(
               {"INFO: possible circular locking dependency detected"},
               {"INFO: possible circular locking dependency detected ]", "is trying to acquire lock", "at: {P} {F}"},
               "possible deadlock in $1"),
           with_report({"INFO: possible irq lock inversion dependency detected"},
                       {"INFO: possible irq lock inversion dependency detected ]", "just changed the state of lock",
                        "at: {P} {F}"},
                       "possible deadlock in $1"),
           with_report(
               {"INFO: SOFTIRQ-safe -> SOFTIRQ-unsafe lock order detected"},
               {"INFO: SOFTIRQ-safe -> SOFTIRQ-unsafe lock order detected ]", "is trying to acquire", "at: {P} {F}"},
               "possible deadlock in $1"),
           with_report({"INFO: possible recursive locking detected"},
                       {"INFO: possible recursive locking detected ]", "is trying to acquire lock", "at: {P} {F}"},
                       "possible deadlock in $1"),
           with_report({"INFO: inconsistent lock state"}, {"INFO: inconsistent lock state ]", "takes", "at: {P} {F}"},
                       "inconsistent lock state in $1"),
           stacked({"INFO: rcu_{A:preempt|sched|bh|tasks} {A:self-detected|detected}{A: expedited|} stall"},
                   "INFO: rcu detected stall in $1",
                   {{{AnyOf, "apic_timer_interrupt"}, {Rip}, {Stack}},
                    {{AnyOf, "apic_timer_interrupt|Exception stack|el1h_64_irq"}, {Stack}},
                    {"apic_timer_interrupt", "rcu"},
                    Extractor::Stall}),
           stacked({"INFO: trying to register non-static key"}, "INFO: trying to register non-static key in $1",
                   call_trace({"stack", "lock", "IRQ"})),
           stacked({"INFO: suspicious RCU usage"}, "INFO: suspicious RCU usage in $2",
                   call_trace({"rcu", "kmem", "slab"}), {"INFO: suspicious RCU usage", "{S}"}),
           naming_task(stacked({"INFO: task * blocked for more than {D} seconds"}, "INFO: task hung in $1",
                               call_trace({}, Extractor::Hang))),
           // "blocked in I/O wait" is the wording of kernels that tell I/O waits apart (hung_task.c).
           naming_task(stacked({"INFO: task * blocked in I/O wait for more than {D} seconds"}, "INFO: task hung in $1",
                               call_trace({}, Extractor::Hang))),
           naming_task(stacked({"INFO: task * can't die for more than * seconds"}, "INFO: task can't die in $1",
                               call_trace({"schedule"}))),
           // Old KASAN reports cut short leave only SLUB's object history.
           plain({"INFO: {C:Freed|Allocated} in {R}"}, "INFO: $1 in $2", true),
           plain({"INFO:{E}"}, "INFO: corrupted", true),
       }});
  f.push_back({"Unable to handle kernel",
               {},
               {stacked({"Unable to handle kernel {C:paging request|NULL pointer dereference|access to user memory}"},
                        "BUG: unable to handle kernel $1 in $2", crash_site())}});
  f.push_back({"general protection fault",
               {"general protection fault * error:{D} in "},
               {stacked({"general protection fault*:"}, "general protection fault in $1", crash_site())}});
  f.push_back({"stack segment: ", {}, {stacked({"stack segment: "}, "stack segment fault in $1", crash_site())}});
  f.push_back(
      {"Kernel panic",
       {},
       {
           with_report({"Kernel panic - not syncing: stack-protector:"},
                       {"Kernel panic - not syncing: stack-protector: Kernel stack is corrupted in: {F}"},
                       "kernel panic: stack is corrupted in $1"),
           stacked({"Kernel panic - not syncing: stack-protector:"}, "kernel panic: stack is corrupted in $1",
                   call_trace({"stack_chk"}),
                   {"Kernel panic - not syncing: stack-protector: Kernel stack is corrupted in: {H}"}),
           stacked({"Kernel panic - not syncing: corrupted stack end"}, "kernel panic: corrupted stack end in $1",
                   call_trace({"schedule", "retint_kernel"}, Extractor::Stall),
                   {"Kernel panic - not syncing: corrupted stack end detected inside scheduler"}),
           stacked({"Kernel panic - not syncing: kernel stack overflow"}, "kernel stack overflow in $1",
                   call_trace({"bad_stack"}, Extractor::Stall)),
           plain({"Kernel panic - not syncing: Attempted to kill init!"}, "kernel panic: Attempted to kill init!"),
           plain({"Kernel panic - not syncing: Couldn't open N_TTY ldisc for {T} --- error -{D}"},
                 "kernel panic: Couldn't open N_TTY ldisc"),
           // Printed after the report that caused it: alone, it means the report itself was lost.
           plain({"Kernel panic - not syncing: Fatal exception"}, "kernel panic: Fatal exception", true),
           plain({"Kernel panic - not syncing: panic_on_warn set"}, "kernel panic: panic_on_warn set", true),
           plain({"Kernel panic - not syncing: hung_task: blocked tasks"}, "kernel panic: hung_task: blocked tasks",
                 true),
           plain({"Kernel panic - not syncing: {R}"}, "kernel panic: $1"),
       }});
  f.push_back(
      {"PANIC: double fault", {}, {stacked({"PANIC: double fault"}, "PANIC: double fault in $1", {{{Rip}}, {}, {}})}});
  // Rust's panic handler (rust/kernel/lib.rs) prints the location, then the message on the
  // next line, then BUG()s: the title is the message and the first Rust frame.
  f.push_back({"rust_kernel: panicked",
               {},
               {stacked({"rust_kernel: panicked"}, "$1 in $2", call_trace({"__rustc::rust_begin_unwind"}),
                        {"rust_kernel: panicked at *", "{R}"})}});
  f.push_back(
      {"kernel BUG",
       {},
       {
           stacked({"kernel BUG at mm/usercopy.c"}, "BUG: bad usercopy in $1", call_trace({"usercopy", "__check"})),
           stacked({"kernel BUG at lib/list_debug.c"}, "BUG: corrupted list in $1", call_trace()),
           // skb helpers BUG_ON their arguments: the bug is in the caller.
           stacked({"kernel BUG at {R}"}, "kernel BUG in $2", crash_site({"^skb_"})),
       }});
  f.push_back({"Kernel BUG", {}, {plain({"Kernel BUG {R}"}, "kernel BUG $1")}});
  f.push_back({"BUG kmalloc-", {}, {plain({"BUG kmalloc-*: Object already free"}, "BUG: Object already free")}});
  f.push_back({"divide error:", {}, {stacked({"divide error: "}, "divide error in $1", {{{Rip}}, {}, {}})}});
  f.push_back({"divide_error:", {}, {stacked({"divide_error: "}, "divide error in $1", {{{Rip}}, {}, {}})}});
  f.push_back({"invalid opcode:", {}, {stacked({"invalid opcode: "}, "invalid opcode in $1", {{{Rip}}, {}, {}})}});
  // x86's do_int3 die("int3"): a breakpoint trap the kernel did not expect.
  f.push_back({"int3:", {}, {stacked({"int3: "}, "int3 in $1", crash_site())}});
  f.push_back({"UBSAN:",
               {},
               {
                   stacked({"UBSAN:"}, "UBSAN: undefined-behaviour in $1", call_trace({"ubsan", "overflow"}),
                           {"UBSAN: Undefined behaviour in"}),
                   stacked({"UBSAN: array-index-out-of-bounds in"}, "UBSAN: array-index-out-of-bounds in $1",
                           call_trace({"ubsan", "overflow"})),
                   stacked({"UBSAN:"}, "UBSAN: $1 in $2", call_trace({"ubsan", "overflow"}), {"UBSAN: {Z} in"}),
               }});
  f.push_back({"unregister_netdevice: waiting for",
               {},
               {plain({"unregister_netdevice: waiting for * to become free"},
                      "unregister_netdevice: waiting for DEV to become free")}});
  f.push_back({"VFS: Close: file count is 0",
               {},
               {plain({"VFS: Close: file count is 0"}, "VFS: Close: file count is zero (use-after-free)")}});
  f.push_back({"VFS: Busy inodes after unmount",
               {},
               {plain({"VFS: Busy inodes after unmount"}, "VFS: Busy inodes after unmount (use-after-free)")}});
  f.push_back({"Internal error:", {}, {stacked({"Internal error:"}, "Internal error in $1", crash_site())}});
  // kernel/cfi.c report_cfi_failure() (kCFI; not in syzkaller's table): "CFI failure at %pS (target:
  // %pS; expected type: 0x%08x)". The trap's own report (x86's invalid opcode, arm64's "Oops - CFI",
  // CONFIG_CFI_PERMISSIVE's WARNING) follows in the same report; the call site is the title's, as
  // lkp-tests names the failure ("CFI failure at <function>").
  f.push_back({"CFI failure at", {}, {plain({"CFI failure at {F}"}, "CFI failure in $1")}});
  f.push_back({"Unhandled fault:", {}, {stacked({"Unhandled fault:"}, "Unhandled fault in $1", crash_site())}});
  f.push_back({"Alignment trap:", {}, {stacked({"Alignment trap:"}, "Alignment trap in $1", crash_site())}});
  f.push_back(
      {"trusty: panic",
       {},
       {
           with_report({"trusty: panic* ASSERT FAILED"}, {"trusty: panic (*):{A: DEBUG|} ASSERT FAILED at (*): {R}"},
                       "trusty: ASSERT FAILED: $1"),
           plain({"trusty: panic* ASSERT FAILED*: {R}"}, "trusty: ASSERT FAILED: $1", true),
           with_report({"trusty: panic"}, {"trusty: panic (*): {R}"}, "trusty: panic: $1"),
       }});
  // The boot decompressor's last line: the machine rebooted while it was being watched. The
  // same words echoed back inside another message (a mount option) are not a reboot.
  f.push_back({"Booting the kernel",
               {"Parsing ELF", "Decompressing Linux", "Unknown parameter '"},
               {plain({"^Booting the kernel"}, "unexpected kernel reboot")}});
  // kernel/irq/spurious.c __report_bad_irq: an interrupt no handler claimed, with the stack
  // of the CPU that took it (not in syzkaller's table: its kernels boot with irqpoll off).
  f.push_back({"nobody cared", {}, {plain({"irq {D}: nobody cared"}, "irq: nobody cared")}});
  f.push_back({"SYZFAIL:", {}, {plain({"SYZFAIL:{R}"}, "SYZFAIL:$1")}});
  f.push_back({"SYZFATAL:", {}, {plain({"SYZFATAL:{R}"}, "SYZFATAL:$1")}});
  // Go programs of the fuzzer's own (syz-executor's helpers, gVisor's sentry) dying on the console.
  f.push_back({"panic:",
               {"_panic:", "xlog_status:", "ddb.onpanic:", "evtlog_status:"},
               {plain({"panic: Sentry detected * stuck task"}, "panic: Sentry detected stuck tasks"),
                plain({"panic:{R}"}, "panic:$1")}});
  f.push_back(
      {"fatal error:", {"ALSA", "fatal error: cannot create timer"}, {plain({"fatal error:"}, "go runtime error")}});
  return f;
}

}  // namespace

const std::vector<Family>& families() {
  static const std::vector<Family> table = build();  // immutable after construction
  return table;
}

}  // namespace btaudit::title_rules
