/* A kernel-like image for btaudit's synthetic dumps, one per per-CPU layout era
 * (../shared/docs/kernel-facts.md, section 1.1), selected with -DERA=:
 *   1  irq_stack_ptr + irq_count, irq_stack_union in the per-CPU area   (4.19-like, ORC v1)
 *   2  hardirq_stack_ptr + irq_count, cea_exception_stacks with DB1/DB2 (5.4-like,  ORC v1)
 *   3  hardirq_stack_ptr (top - 8) + hardirq_stack_inuse                (5.15-like, ORC v1)
 *   4  struct pcpu_hot                                                  (6.3-like,  ORC v2)
 *   5  cache-hot per-CPU variables in .data..percpu..hot                (6.15-like, ORC v3)
 * -DORC_V4 with era 5: 7.1's renumbered ORC registers (ORC v4).
 * -DNO_ORC leaves the ORC tables empty: a frame-pointer kernel (4.9-4.13).
 * -DCALL_ON_STACK with era 2: 5.8-5.11's asm_call_irq_on_stack instead of ENTER_IRQ_STACK.
 * -DIRQ_STACK_GAP with era 1 and -DNO_ORC: a 4.4-like kernel, irq_stack_ptr 64 bytes below the top.
 * Compiled with -g -O0 and frame pointers, never run: the dump generator
 * (../synthdump) plants the stacks, and reads return addresses from the
 * calls below. Every C function starts with "push %rbp; mov %rsp,%rbp"
 * (the generator checks it), which is what the ORC rows emitted by
 * FP_FUNCTION() describe, so the unwinder can walk every era with ORC. */

#ifndef ERA
#error "build with -DERA=1..5"
#endif

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long u64;
typedef _Bool bool;

#define THREAD_SIZE 16384
#define IRQ_STACK_SIZE 16384
#define NR_CPUS 8
#define PAGE_SIZE 4096
#if ERA >= 3
#define EXCEPTION_STKSZ 8192 /* 7fae4c24a2b8 (5.15) */
#else
#define EXCEPTION_STKSZ 4096
#endif

#define STR(x) #x
#define XSTR(x) STR(x)

#if ERA == 1 && defined(IRQ_STACK_GAP)
#define RELEASE "4.4.0-synth"
#elif ERA == 1
#define RELEASE "4.19.0-synth"
#elif ERA == 2 && defined(CALL_ON_STACK)
#define RELEASE "5.10.0-synth"
#elif ERA == 2
#define RELEASE "5.4.0-synth"
#elif ERA == 3
#define RELEASE "5.15.0-synth"
#elif ERA == 4
#define RELEASE "6.3.0-synth"
#else
#define RELEASE "6.15.0-synth"
#endif

const char linux_banner[] = "Linux version " RELEASE " (btaudit@synthetic) (gcc) #1 SMP ERA " XSTR(ERA) "\n";

/* ---- ORC: struct orc_entry as each era declares it (btaudit reads the
 * version from its members) and the rows, emitted next to the code. */
struct orc_entry {
  short sp_offset;
  short bp_offset;
  unsigned sp_reg : 4;
  unsigned bp_reg : 4;
#if ERA <= 4
  unsigned type : 2;
#else
  unsigned type : 3; /* 6.4+ */
#endif
#if ERA >= 4
  unsigned signal : 1; /* 6.3+ */
#endif
#if ERA <= 4
  unsigned end : 1; /* until 6.3 */
#endif
} __attribute__((packed));
#if ERA <= 3
#define ORC_TYPE_CALL 0
#define ORC_TYPE_REGS 1
#define ORC_TYPE_END 0
#define ORC_END_BIT (1 << 10)
#elif ERA == 4
#define ORC_TYPE_CALL 0
#define ORC_TYPE_REGS 1
#define ORC_TYPE_END 0
#define ORC_END_BIT (1 << 11)
#else
#define ORC_TYPE_CALL 2
#define ORC_TYPE_REGS 3
#define ORC_TYPE_END 1 /* ORC_TYPE_END_OF_STACK */
#define ORC_END_BIT 0
#endif
#define ORC_REG_UNDEFINED 0
#ifdef ORC_V4 /* 7.1+ (1735858caa4b "objtool/x86: Reorder ORC register numbering"), v3's layout */
#define ORC_VERSION 4
#define ORC_REG_PREV_SP 8
#define ORC_REG_BP 4
#define ORC_REG_SP 3
#define ORC_REG_SP_INDIRECT 9
#else
#define ORC_VERSION (ERA >= 5 ? 3 : ERA == 4 ? 2 : 1)
#define ORC_REG_PREV_SP 1
#define ORC_REG_BP 4
#define ORC_REG_SP 5
#define ORC_REG_SP_INDIRECT 9
#endif

/* The kernel's fallback entry for code without ORC data; here it puts the type in DWARF. */
struct orc_entry orc_fp_entry = {16, -16, ORC_REG_BP, ORC_REG_PREV_SP, ORC_TYPE_CALL};

/* One ORC row at IP (an assembler expression): the CFA is SP_REG + SP_OFF, the
 * caller's RBP is at CFA + BP_OFF when BP_REG is PREV_SP. */
#ifdef NO_ORC
#define ORC_ROW(ip, sp_off, bp_off, sp_reg, bp_reg, type, extra) ""
#else
#define ORC_ROW(ip, sp_off, bp_off, sp_reg, bp_reg, type, extra) \
  ".pushsection .orc_unwind_ip,\"a\"\n\t.long " ip " - .\n\t.popsection\n\t"   \
  ".pushsection .orc_unwind,\"a\"\n\t.short " #sp_off ", " #bp_off ", "       \
  "(" XSTR(sp_reg) ") | ((" XSTR(bp_reg) ") << 4) | ((" XSTR(type) ") << 8) | (" XSTR(extra) ")\n\t.popsection\n\t"
#endif

/* A frame-pointer function: entry, after "push %rbp", after "mov %rsp,%rbp". */
#define FP_FUNCTION(fn)                                                                          \
  asm(ORC_ROW(#fn, 8, 0, ORC_REG_SP, ORC_REG_UNDEFINED, ORC_TYPE_CALL, 0)                        \
          ORC_ROW(#fn " + 1", 16, -16, ORC_REG_SP, ORC_REG_PREV_SP, ORC_TYPE_CALL, 0)            \
              ORC_ROW(#fn " + 4", 16, -16, ORC_REG_BP, ORC_REG_PREV_SP, ORC_TYPE_CALL, 0));      \
  __attribute__((noinline, used)) void fn(void)

/* ---- Types btaudit reads from DWARF. */
struct pt_regs {
  u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

struct list_head {
  struct list_head *next, *prev;
};

struct thread_struct {
  u64 sp;
  u64 fsbase;
};

struct task_struct {
  volatile long __state;
  void* stack;
  unsigned int flags;
  int prio;
  struct list_head tasks;
  int pid;
  int tgid;
  char comm[16];
  struct thread_struct thread;
};

struct task_struct init_task = {.pid = 0, .comm = "swapper/0"};
/* THREAD_SIZE for btaudit: init_stack's ELF size, as in vmlinux. */
unsigned long init_stack[THREAD_SIZE / sizeof(unsigned long)] __attribute__((aligned(THREAD_SIZE)));

/* The kernel's top page table (4.14+ name); the generator fills it for page-table dumps. */
unsigned long init_top_pgt[512] __attribute__((aligned(PAGE_SIZE)));
unsigned long __per_cpu_offset[NR_CPUS];
unsigned int nr_cpu_ids = 1;
/* struct printk_ringbuffer * (5.10+): the log, laid out by VMCOREINFO; the generator fills it. */
void* prb;
/* note_buf_t __percpu *: where crash_save_cpu() writes each CPU's NT_PRSTATUS note at a kdump panic. */
void* crash_notes;
/* The VMCOREINFO text the kernel keeps in its own memory (a .bss array before 4.13, kexec_core.c;
 * a zeroed page since), and init_uts_ns, whose release it names; the generator fills both. */
unsigned char vmcoreinfo_data[PAGE_SIZE] __attribute__((aligned(8)));
struct uts_namespace {
  int kref;
  char sysname[65], nodename[65], release[65], version[65], machine[65], domainname[65];
} init_uts_ns;

#define DEFINE_PER_CPU(type, name) __attribute__((section(".data..percpu"), used)) type name
#define DEFINE_PER_CPU_PAGE_ALIGNED(type, name) \
  __attribute__((section(".data..percpu..page_aligned"), aligned(PAGE_SIZE), used)) type name
#define DEFINE_PER_CPU_CACHE_HOT(type, name) __attribute__((section(".data..percpu..hot"), used)) type name

/* ---- Per-CPU IRQ-stack state, by era. */
#if ERA == 1
union irq_stack_union {
  char irq_stack[IRQ_STACK_SIZE];
  struct {
    char gs_base[40];
    unsigned long stack_canary;
  };
};
DEFINE_PER_CPU_PAGE_ALIGNED(union irq_stack_union, irq_stack_union);
DEFINE_PER_CPU(char*, irq_stack_ptr); /* irq_stack_union.irq_stack + IRQ_STACK_SIZE (4.9+: no gap) */
DEFINE_PER_CPU(unsigned int, irq_count); /* -1: free */
DEFINE_PER_CPU(struct task_struct*, current_task);
#else
struct irq_stack {
  char stack[IRQ_STACK_SIZE];
} __attribute__((aligned(IRQ_STACK_SIZE)));
DEFINE_PER_CPU_PAGE_ALIGNED(struct irq_stack, irq_stack_backing_store);
#endif

#if ERA == 2
DEFINE_PER_CPU(struct irq_stack*, hardirq_stack_ptr); /* the VMAP'd stack's end */
DEFINE_PER_CPU(unsigned int, irq_count);
DEFINE_PER_CPU(struct task_struct*, current_task);
#elif ERA == 3
DEFINE_PER_CPU(void*, hardirq_stack_ptr); /* top - 8 (951c2a51ae75) */
DEFINE_PER_CPU(bool, hardirq_stack_inuse);
DEFINE_PER_CPU(struct task_struct*, current_task);
#elif ERA == 4
struct pcpu_hot {
  union {
    struct {
      struct task_struct* current_task;
      int preempt_count;
      int cpu_number;
      u64 call_depth;
      unsigned long top_of_stack;
      void* hardirq_stack_ptr;
      u16 softirq_pending;
      bool hardirq_stack_inuse;
    };
    u8 pad[64];
  };
};
DEFINE_PER_CPU(struct pcpu_hot, pcpu_hot) __attribute__((aligned(64)));
#elif ERA == 5
DEFINE_PER_CPU_CACHE_HOT(struct task_struct*, current_task);
DEFINE_PER_CPU_CACHE_HOT(struct irq_stack*, hardirq_stack_ptr); /* declared a pointer, holds top - 8 */
DEFINE_PER_CPU_CACHE_HOT(bool, hardirq_stack_inuse);
DEFINE_PER_CPU_CACHE_HOT(int, __preempt_count);
/* The section's bounds (vmlinux.lds.h): btaudit tells 6.15+ from 5.12-6.1 by them. */
extern char __per_cpu_hot_start[], __per_cpu_hot_end[];
char* const per_cpu_hot_bounds[] __attribute__((used)) = {__per_cpu_hot_start, __per_cpu_hot_end};
#endif

/* ---- Exception (IST) stacks: 5.2+ map them in the CPU entry area. */
#if ERA >= 2
#define ESTACK(x)                    \
  char x##_stack_guard[PAGE_SIZE]; \
  char x##_stack[EXCEPTION_STKSZ];
struct cea_exception_stacks {
  ESTACK(DF)
  ESTACK(NMI)
#if ERA == 2
  ESTACK(DB2)
  ESTACK(DB1)
#endif
  ESTACK(DB)
  ESTACK(MCE)
#if ERA >= 3
  ESTACK(VC)
  ESTACK(VC2)
#endif
  char IST_top_guard[PAGE_SIZE];
};
DEFINE_PER_CPU(struct cea_exception_stacks*, cea_exception_stacks);
#else
/* <=5.1: 4 IST stacks, #DB's twice the size (DEBUG_STKSZ); orig_ist.ist[k] is the top of stack k+1. */
DEFINE_PER_CPU_PAGE_ALIGNED(char, exception_stacks[3 * EXCEPTION_STKSZ + 2 * EXCEPTION_STKSZ]);
struct orig_ist {
  unsigned long ist[7];
};
DEFINE_PER_CPU(struct orig_ist, orig_ist);
#endif

/* ---- Loaded modules: the "modules" list of struct module (the generator plants one). */
struct mod_kallsyms {
  void* symtab; /* Elf64_Sym[] */
  unsigned int num_symtab;
  char* strtab;
  char* typetab;
};
struct mod_arch_specific {
  unsigned int num_orcs;
  int* orc_unwind_ip;
  struct orc_entry* orc_unwind;
};
#if ERA <= 4
struct module_layout {
  void* base;
  unsigned int size;
  unsigned int text_size;
  unsigned int ro_size;
  unsigned int ro_after_init_size;
};
#else
/* 6.4+ (ac3b43283923 "module: replace module_layout with module_memory"): mem[MOD_TEXT] is the text. */
enum mod_mem_type { MOD_TEXT, MOD_DATA, MOD_RODATA, MOD_RO_AFTER_INIT, MOD_INIT_TEXT, MOD_INIT_DATA, MOD_INIT_RODATA,
                    MOD_MEM_NUM_TYPES };
struct module_memory {
  void* base;
  unsigned int size;
};
#endif
struct module {
  int state;
  struct list_head list;
  char name[56];
#if ERA <= 4
  struct module_layout core_layout;
  struct module_layout init_layout;
#else
  struct module_memory mem[MOD_MEM_NUM_TYPES];
#endif
  struct mod_arch_specific arch;
  struct mod_kallsyms* kallsyms;
};
struct list_head modules = {&modules, &modules};
struct module* synth_module_type; /* keeps struct module in DWARF */

/* ---- What the dump generator needs besides symbols: offsets and sizes,
 * read from this table instead of from DWARF. */
#define OFF(type, m) __builtin_offsetof(type, m)
const u64 synth_layout[] __attribute__((used)) = {
    ERA,
    THREAD_SIZE,
    IRQ_STACK_SIZE,
    EXCEPTION_STKSZ,
    OFF(struct task_struct, stack),
    OFF(struct task_struct, pid),
    OFF(struct task_struct, comm),
#if ERA >= 2
    sizeof(struct cea_exception_stacks),
    OFF(struct cea_exception_stacks, DF_stack),
    OFF(struct cea_exception_stacks, NMI_stack),
#else
    0, 0, 0,
#endif
#if ERA == 4
    OFF(struct pcpu_hot, current_task),
    OFF(struct pcpu_hot, hardirq_stack_ptr),
    OFF(struct pcpu_hot, hardirq_stack_inuse),
#else
    0, 0, 0,
#endif
    OFF(struct module, list),
    OFF(struct module, name),
#if ERA <= 4
    OFF(struct module, core_layout.base),
    OFF(struct module, core_layout.text_size),
#else
    OFF(struct module, mem[MOD_TEXT].base),
    OFF(struct module, mem[MOD_TEXT].size),
#endif
    OFF(struct module, arch.num_orcs),
    OFF(struct module, arch.orc_unwind_ip),
    OFF(struct module, arch.orc_unwind),
    OFF(struct module, kallsyms),
    OFF(struct mod_kallsyms, symtab),
    OFF(struct mod_kallsyms, num_symtab),
    OFF(struct mod_kallsyms, strtab),
    sizeof(struct module),
#ifdef IRQ_STACK_GAP
    64, /* <=4.8: irq_stack_ptr is 64 bytes below the IRQ stack's top */
#else
    0,
#endif
    ORC_VERSION, /* the register numbers of the rows (module.py writes a module's likewise) */
};

/* ---- Text. */
volatile int sink;

/* A function whose whole body is a call (and a store, so the call is no tail call). */
#define FP_CALLS(fn, callee) \
  void callee(void);         \
  FP_FUNCTION(fn) {          \
    callee();                \
    sink = __LINE__;         \
  }

/* An entry stub: pt_regs at RSP from label 0 on (UNWIND_HINT_REGS), a call of
 * the C handler with the regs as argument. */
#define ENTRY_STUB(name, handler)                                                                    \
  void handler(void);                                                                                \
  asm(".text\n\t.globl " #name "\n\t.type " #name ", @function\n" #name ":\n\t"                      \
      "sub $120, %rsp\n0:\n\tmov %rsp, %rdi\n\tcall " #handler "\n\tadd $120, %rsp\n\tiretq\n\t"     \
      ".size " #name ", . - " #name "\n\t" ORC_ROW(#name, 0, 0, ORC_REG_SP, ORC_REG_UNDEFINED, ORC_TYPE_REGS, 0) \
          ORC_ROW("0b", 0, 0, ORC_REG_SP, ORC_REG_UNDEFINED, ORC_TYPE_REGS, 0))

FP_FUNCTION(_stext_marker) { sink = 0; } /* keeps _stext apart from the first real function */

FP_FUNCTION(crash_save_cpu) { sink = 1; }
FP_CALLS(__crash_kexec, crash_save_cpu) /* NT_PRSTATUS holds the registers right after this call */
FP_CALLS(panic, __crash_kexec)
FP_CALLS(lab_irq_handler, panic)
FP_FUNCTION(lab_irq_spin) {
  for (;;) sink = 5; /* a handler stuck with interrupts off: stopped by an NMI */
}
FP_FUNCTION(__handle_irq_event_percpu) {
  lab_irq_handler();
  lab_irq_spin();
}
FP_CALLS(handle_irq_event, __handle_irq_event_percpu)
FP_CALLS(handle_edge_irq, handle_irq_event)

/* Softirqs. */
FP_FUNCTION(lab_softirq_fn) { sink = 9; }
FP_CALLS(net_rx_action, lab_softirq_fn)
FP_CALLS(__do_softirq, net_rx_action)

#if ERA == 2 && defined(CALL_ON_STACK)
/* 5.8-5.11: common_interrupt (C) runs the handler through asm_call_irq_on_stack(tos - 8,
 * handler, desc): a frame-pointer asm function that stores its own RSP (after push %rbp)
 * in the IRQ stack's top word, switches there and calls. The backlink is that frame on the
 * task stack, not the pt_regs; ORC describes the call with RBP (the same rows as C code). */
void asm_call_irq_on_stack(void);
FP_FUNCTION(common_interrupt) { asm_call_irq_on_stack(); }
asm(".text\n\t.globl asm_call_irq_on_stack\n\t.type asm_call_irq_on_stack, @function\n"
    "asm_call_irq_on_stack:\n\t"
    "push %rbp\n\t"
    "mov %rsp, %rbp\n\t"
    "mov %rsp, (%rdi)\n\t"
    "mov %rdi, %rsp\n\t"
    "call handle_edge_irq\n\t"
    "leave\n\t"
    "ret\n\t"
    ".size asm_call_irq_on_stack, . - asm_call_irq_on_stack\n\t" ORC_ROW(
        "asm_call_irq_on_stack", 8, 0, ORC_REG_SP, ORC_REG_UNDEFINED, ORC_TYPE_CALL, 0)
        ORC_ROW("asm_call_irq_on_stack + 1", 16, -16, ORC_REG_SP, ORC_REG_PREV_SP, ORC_TYPE_CALL, 0)
            ORC_ROW("asm_call_irq_on_stack + 4", 16, -16, ORC_REG_BP, ORC_REG_PREV_SP, ORC_TYPE_CALL, 0));
ENTRY_STUB(asm_common_interrupt, common_interrupt);
#elif ERA <= 2
#if ERA == 1
#define IRQ_STACK_PTR_SYMBOL "irq_stack_ptr"
#else
#define IRQ_STACK_PTR_SYMBOL "hardirq_stack_ptr"
#endif
/* <=5.7: the entry asm switches stacks (ENTER_IRQ_STACK) and calls do_IRQ there. */
FP_CALLS(handle_irq, handle_edge_irq)
FP_CALLS(irq_exit, __do_softirq) /* softirqs at irq exit, still on the IRQ stack */
FP_FUNCTION(do_IRQ) {
  handle_irq();
  irq_exit();
}
/* common_interrupt: pt_regs on the interrupted stack; the old RSP (the pt_regs
 * pointer) goes to the IRQ stack's top word, pushed again as the same word, then
 * do_IRQ. UNWIND_HINT_REGS indirect=1: the regs are at *(SP). */
asm(".text\n\t.globl common_interrupt\n\t.type common_interrupt, @function\n"
    "common_interrupt:\n\t"
    "sub $120, %rsp\n\t"
    "mov %rsp, %rdi\n\t"
    "incl %gs:irq_count\n\t"
    "cmovzq %gs:" IRQ_STACK_PTR_SYMBOL ", %rsp\n\t"
    "pushq %rdi\n"
    "0:\n\t"
    "call do_IRQ\n\t"
    "popq %rsp\n\t"
    "decl %gs:irq_count\n\t"
    "add $120, %rsp\n\t"
    "iretq\n\t"
    ".size common_interrupt, . - common_interrupt\n\t" ORC_ROW("common_interrupt", 0, 0, ORC_REG_SP, ORC_REG_UNDEFINED,
                                                               ORC_TYPE_REGS, 0)
        ORC_ROW("0b", 0, 0, ORC_REG_SP_INDIRECT, ORC_REG_UNDEFINED, ORC_TYPE_REGS, 0));
#else
/* 5.12+: asm_common_interrupt saves pt_regs and calls common_interrupt (C),
 * which switches with call_on_irqstack(): the old RSP goes to the word at
 * hardirq_stack_ptr, RSP becomes that pointer, and the handler is called there. */
FP_CALLS(__common_interrupt, handle_edge_irq)
FP_CALLS(__irq_exit_rcu, __do_softirq) /* HAVE_IRQ_EXIT_ON_IRQ_STACK: softirqs run here, on the IRQ stack */
FP_CALLS(irq_exit_rcu, __irq_exit_rcu)
FP_FUNCTION(common_interrupt) {
  if (sink) {
    /* The first call of __common_interrupt: on the IRQ stack (not nested). */
    asm volatile(
        "mov %%rsp, (%0)\n\t"
        "mov %0, %%rsp\n\t"
        "call __common_interrupt\n\t"
        "call irq_exit_rcu\n\t"
        "pop %%rsp" ::"r"((u64)sink)
        : "memory");
  } else {
    /* The second: hardirq_stack_inuse was set, so a nested interrupt stays where it is. */
    __common_interrupt();
    irq_exit_rcu();
  }
}
ENTRY_STUB(asm_common_interrupt, common_interrupt);
#endif

/* A process in a system call. */
FP_FUNCTION(do_fcntl) { sink = 15; }
FP_CALLS(__x64_sys_fcntl, do_fcntl)
FP_CALLS(exit_to_user_mode_prepare, do_fcntl)
FP_FUNCTION(lab_wait) {
  while (sink != 18) crash_save_cpu(); /* interrupted here */
}
FP_FUNCTION(lab_recurse) {
  if (sink) lab_recurse(); /* a runaway recursion, for the double fault */
  sink = 19;
}
FP_FUNCTION(lab_write) {
  lab_wait();
  lab_recurse();
}
FP_CALLS(vfs_write, lab_write)
FP_CALLS(ksys_write, vfs_write)
FP_FUNCTION(do_syscall_64) {
  ksys_write();
  __x64_sys_fcntl();
  exit_to_user_mode_prepare();
}
/* The syscall entry: user pt_regs at the top of the task stack. */
ENTRY_STUB(entry_SYSCALL_64, do_syscall_64);

/* The idle task. */
FP_FUNCTION(native_safe_halt) { asm volatile("sti; hlt" ::: "memory"); }
FP_CALLS(default_idle_call, native_safe_halt)
FP_CALLS(do_idle, default_idle_call)
FP_FUNCTION(cpu_startup_entry) {
  for (;;) do_idle();
}
FP_CALLS(start_secondary, cpu_startup_entry)
/* The bottom of every idle stack: UNWIND_HINT_END_OF_STACK. */
asm(".text\n\t.globl secondary_startup_64\n\t.type secondary_startup_64, @function\n"
    "secondary_startup_64:\n\t"
    "call start_secondary\n\t"
    "ud2\n\t"
    ".size secondary_startup_64, . - secondary_startup_64\n\t" ORC_ROW(
        "secondary_startup_64", 0, 0, ORC_REG_UNDEFINED, ORC_REG_UNDEFINED, ORC_TYPE_END, ORC_END_BIT));

/* NMIs: the CPUs a panic stops. */
FP_FUNCTION(crash_nmi_callback) {
  for (;;) crash_save_cpu(); /* halted here */
}
FP_CALLS(nmi_handle, crash_nmi_callback)
FP_CALLS(default_do_nmi, nmi_handle)
FP_CALLS(exc_nmi, default_do_nmi)
ENTRY_STUB(asm_exc_nmi, exc_nmi);

/* The double fault. */
FP_CALLS(exc_double_fault, panic)
ENTRY_STUB(asm_exc_double_fault, exc_double_fault);

/* The end of the text: no ORC data beyond (the kernel's terminator row). */
asm(".text\n\t.globl _etext_marker\n_etext_marker:\n\tud2\n\t" ORC_ROW("_etext_marker", 0, 0, ORC_REG_UNDEFINED,
                                                                      ORC_REG_UNDEFINED, 0, 0));
