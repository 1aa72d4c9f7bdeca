"""A synthetic kernel's memory at crash time, era by era: the kernel image,
per-CPU areas with __per_cpu_offset[], task_structs, task/IRQ/exception
stacks, each CPU's registers; written out as an ELF vmcore.

Addresses follow x86-64's layout: direct map 0xffff888..., VMAP'd stacks
0xffffc90..., the CPU entry area 0xfffffe0..., text 0xffffffff81000000."""

import struct

from . import diskdump, elf_core, paging, printk
from .module import Module
from .stacks import Builder, Stack

PAGE = 4096
PERCPU_BASE = 0xFFFF88807F000000
TASKS_BASE = 0xFFFF888000100000
TASK_STACKS = 0xFFFFC90000010000
IRQ_STACKS = 0xFFFFC90000400000
CEA_BASE = 0xFFFFFE0000010000

def page_up(n):
    return (n + PAGE - 1) & ~(PAGE - 1)


class Task:
    def __init__(self, addr, pid, comm, stack):
        self.addr, self.pid, self.comm, self.stack = addr, pid, comm, stack


class Cpu:
    def __init__(self, machine, index):
        self.machine, self.index = machine, index
        self.percpu = PERCPU_BASE + index * 0x100000
        self.regs = {}
        self.task = None
        self.irq_stack = None
        self.exception_stacks = {}


class Machine:
    def __init__(self, image, ncpus=2):
        self.image = image
        self.era = image.era
        self.layout = image.layout
        # No ORC tables: a CONFIG_UNWINDER_FRAME_POINTER kernel, whose entry code encodes pt_regs in RBP.
        self.fp_kernel = image.sym("__start_orc_unwind_ip") == image.sym("__stop_orc_unwind_ip")
        # 5.8-5.11: the switch to the IRQ stack is asm_call_irq_on_stack's.
        self.call_on_stack = image.has("asm_call_irq_on_stack")
        # <=4.9 frame-pointer kernels predate ENCODE_FRAME_POINTER (4.10): their traces
        # show an interrupt's regs->ip as a '?' word, not as a RIP line.
        self.encoded_fp = self.fp_kernel and not self.layout["irq_stack_gap"]
        self.regs_visible = not self.fp_kernel or self.encoded_fp
        self.regions = {}  # address -> bytearray (extra memory: per-CPU areas, task_structs)
        self.stacks = []
        self.tasks = []
        self.modules = []
        self.extra_vmcoreinfo = {}
        lo = image.sym("_text") & ~(PAGE - 1)
        self.kernel = bytearray(page_up(image.sym("_end") - lo))
        self.kernel_base = lo
        for addr, body in image.kernel_sections():
            self.kernel[addr - lo:addr - lo + len(body)] = body
        self.regions[lo] = self.kernel
        self.put_u32(self.sym("nr_cpu_ids"), ncpus)
        # init_uts_ns.name.release: after the kref and the 65-byte sysname and nodename.
        self.put(self.sym("init_uts_ns") + 4 + 65 + 65, image.release.encode() + b"\0")
        # Pointers in the image's data as the kernel relocates them: the empty module list.
        self.put_u64(self.sym("modules"), self.sym("modules"))
        self.put_u64(self.sym("modules") + 8, self.sym("modules"))
        template = image.percpu_template()
        self.cpus = [Cpu(self, i) for i in range(ncpus)]
        # Where the per-CPU template is: 0 when per-CPU symbols are zero-based (<=6.14), the
        # relocated template in the image when they are section-based (6.15+). Each CPU's copy
        # is __per_cpu_offset[cpu] away from it, as setup_per_cpu_areas() makes it.
        self.per_cpu_start = image.sym("__per_cpu_start")
        # A dynamic per-CPU allocation after the static variables: crash_notes' buffers
        # (a __percpu pointer: the template's address plus the offset in each copy).
        self.crash_notes = page_up(len(template))
        self.put_u64(self.sym("crash_notes"), self.per_cpu_start + self.crash_notes)
        for cpu in self.cpus:
            self.regions[cpu.percpu] = bytearray(template) + bytearray(self.crash_notes + PAGE - len(template))
            self.put_u64(self.sym("__per_cpu_offset") + 8 * cpu.index, self.per_cpu_offset(cpu))
            self._setup_irq_stack(cpu)
            self._setup_exception_stacks(cpu)
            self.set_irq_state(cpu, False)

    # ---- memory
    def sym(self, name):
        return self.image.sym(name)

    def _region(self, addr, size):
        for base, data in self.regions.items():
            if base <= addr and addr + size <= base + len(data):
                return data, addr - base
        for s in self.stacks:
            if s.base <= addr and addr + size <= s.top:
                return s.data, addr - s.base
        raise KeyError(f"{addr:#x} is in no region")

    def put(self, addr, raw):
        data, off = self._region(addr, len(raw))
        data[off:off + len(raw)] = raw

    def put_u64(self, addr, value):
        self.put(addr, struct.pack("<Q", value & 0xFFFFFFFFFFFFFFFF))

    def put_u32(self, addr, value):
        self.put(addr, struct.pack("<I", value & 0xFFFFFFFF))

    def get_u64(self, addr):
        data, off = self._region(addr, 8)
        return struct.unpack_from("<Q", data, off)[0]

    def per_cpu_offset(self, cpu):
        return (cpu.percpu - self.per_cpu_start) & 0xFFFFFFFFFFFFFFFF

    def percpu_var(self, cpu, name, member=None):
        """The address of a per-CPU variable (or a struct pcpu_hot member) on a CPU:
        the symbol's runtime value plus __per_cpu_offset[cpu], in both per-CPU eras."""
        base = (self.per_cpu_offset(cpu) + self.sym("pcpu_hot" if member else name)) & 0xFFFFFFFFFFFFFFFF
        return base + self.layout["pcpu_hot_" + member] if member else base

    # ---- stacks and tasks
    def new_stack(self, kind, name, base, size, embedded=False):
        """embedded: the stack lies inside another region (init_stack in the image's
        .bss, irq_stack_union in a per-CPU area); its words are copied there at write time."""
        s = Stack(kind, name, base, size)
        s.embedded = embedded
        self.stacks.append(s)
        return s

    def new_task(self, pid, comm, idle_of=None):
        """A task with its own stack; the boot CPU's idle task is init_task on init_stack."""
        l = self.layout
        if pid == 0 and idle_of == 0:
            addr = self.sym("init_task")
            stack = self.new_stack("task", "", self.sym("init_stack"), l["thread_size"], embedded=True)
        else:
            n = len(self.tasks)
            addr = TASKS_BASE + n * 0x1000
            self.regions[addr] = bytearray(PAGE)
            stack = self.new_stack("task", "", TASK_STACKS + n * 2 * l["thread_size"], l["thread_size"])
        self.put_u64(addr + l["task_stack"], stack.base)
        self.put_u32(addr + l["task_pid"], pid)
        self.put(addr + l["task_comm"], comm.encode()[:15] + b"\0")
        t = Task(addr, pid, comm, stack)
        self.tasks.append(t)
        return t

    def set_current(self, cpu, task):
        cpu.task = task
        if self.era == 4:
            self.put_u64(self.percpu_var(cpu, None, "current_task"), task.addr)
        else:
            self.put_u64(self.percpu_var(cpu, "current_task"), task.addr)

    def _setup_irq_stack(self, cpu):
        size = self.layout["irq_stack_size"]
        if self.era == 1:
            # irq_stack_union is the first per-CPU variable; irq_stack_ptr is its end, or
            # 64 bytes below it up to 4.8 (4950d6d48a0c removed the gap in 4.9).
            base = self.percpu_var(cpu, "irq_stack_union")
            cpu.irq_stack = self.new_stack("irq", "", base, size, embedded=True)
            cpu.irq_stack.end = base + size - self.layout["irq_stack_gap"]
            self.put_u64(self.percpu_var(cpu, "irq_stack_ptr"), cpu.irq_stack.end)
            return
        base = IRQ_STACKS + cpu.index * 2 * size  # VMAP'd, a guard gap between
        cpu.irq_stack = self.new_stack("irq", "", base, size)
        top = base + size
        if self.era == 2:
            self.put_u64(self.percpu_var(cpu, "hardirq_stack_ptr"), top)
        elif self.era == 4:
            self.put_u64(self.percpu_var(cpu, None, "hardirq_stack_ptr"), top - 8)  # 951c2a51ae75
        else:
            self.put_u64(self.percpu_var(cpu, "hardirq_stack_ptr"), top - 8)

    def _setup_exception_stacks(self, cpu):
        l = self.layout
        if self.era == 1:
            # 4.15-5.1: #DF, NMI, #DB (twice as large), #MC back to back in the CPU entry area,
            # each top in orig_ist.ist[k].
            size = l["exception_stksz"]
            top = CEA_BASE + cpu.index * 0x40000
            for k, (name, pages) in enumerate((("#DF", 1), ("NMI", 1), ("#DB", 2), ("#MC", 1))):
                top += size * pages
                self.put_u64(self.percpu_var(cpu, "orig_ist") + 8 * k, top)
                if name in ("#DF", "NMI"):
                    cpu.exception_stacks[name] = self.new_stack("exception", name, top - size, size)
            return
        cea = CEA_BASE + cpu.index * 0x40000
        self.put_u64(self.percpu_var(cpu, "cea_exception_stacks"), cea)
        for name, key in (("#DF", "cea_df"), ("NMI", "cea_nmi")):
            cpu.exception_stacks[name] = self.new_stack("exception", name, cea + l[key], l["exception_stksz"])

    def set_irq_state(self, cpu, in_use, count=None):
        """hardirq_stack_inuse, or irq_count (-1 free, 0 first level, n nested)."""
        if self.era <= 2:
            value = count if count is not None else (0 if in_use else -1)
            self.put_u32(self.percpu_var(cpu, "irq_count"), value)
        elif self.era == 4:
            self.put(self.percpu_var(cpu, None, "hardirq_stack_inuse"), bytes([1 if in_use else 0]))
        else:
            self.put(self.percpu_var(cpu, "hardirq_stack_inuse"), bytes([1 if in_use else 0]))

    def builder(self, stack, sp=None):
        return Builder(self, stack, sp)

    # ---- code: the kernel image and loaded modules
    def add_module(self, name, functions):
        mod = Module(self, name, functions)
        self.modules.append(mod)
        return mod

    def return_address(self, caller, callee, nth=0):
        for mod in self.modules:
            if caller in mod.functions:
                return mod.returns[(caller, callee)]
        return self.image.return_address(caller, callee, nth)

    def write_log(self, lines, caller_pid):
        """The kernel log: one printk record per line (5.10+ ring buffer)."""
        self.extra_vmcoreinfo.update(printk.write_ring(self, lines, caller_pid))

    def function_size(self, name):
        """The size a printed trace shows (kallsyms': to the next symbol)."""
        for mod in self.modules:
            if name in mod.functions:
                return mod.functions[name][1]
        return self.image.kallsyms_size(name)

    def symbolize(self, addr):
        """(function, its address, module name or None) for a text address."""
        for mod in self.modules:
            if found := mod.function_at(addr):
                return found[0], found[1], mod.name
        fn = self.image.function_at(addr)
        return fn, self.image.sym(fn), None

    # ---- output
    def vmcoreinfo(self):
        return {"OSRELEASE": self.image.release, "PAGESIZE": PAGE, "KERNELOFFSET": f"{self.image.kaslr:x}",
                "SYMBOL(_stext)": f"{self.sym('_stext'):x}", "NUMBER(phys_base)": 0, "CRASHTIME": 1764400000,
                "SYMBOL(init_top_pgt)": f"{self.sym('init_top_pgt'):x}", "NUMBER(pgtable_l5_enabled)": 0,
                "SYMBOL(init_uts_ns)": f"{self.sym('init_uts_ns'):x}",
                **self.extra_vmcoreinfo}

    def write(self, path, paged=False, compressed=False, kdump=True, vmcoreinfo_note=True):
        """paged: VMAP'd and entry-area memory only through page tables (paging.py);
        otherwise every region is a PT_LOAD at its own virtual address.
        compressed: a kdump-compressed file of the paged layout's physical pages.
        kdump: the crash_notes buffers hold the notes (not when QEMU dumped the guest).
        vmcoreinfo_note: False leaves VMCOREINFO out of the file (QEMU's dump-guest-memory without
        a vmcoreinfo device): only the kernel's own copy in vmcoreinfo_data holds it."""
        text = "".join(f"{k}={v}\n" for k, v in self.vmcoreinfo().items())
        self.put(self.sym("vmcoreinfo_data"), text.encode() + b"\0")
        for s in self.stacks:
            if s.embedded:
                self.put(s.base, s.data)
        # As kdump: each CPU's note in its crash_notes buffer; the file's notes are
        # copies of the non-empty buffers, in CPU order.
        notes = []
        for c in self.cpus:
            if c.regs:
                notes.append(elf_core.prstatus(c.index + 1, c.regs))
                if kdump:
                    self.put(c.percpu + self.crash_notes, notes[-1])
        if vmcoreinfo_note:
            notes.append(elf_core.vmcoreinfo(self.vmcoreinfo()))
        regions = [(a, bytes(d)) for a, d in self.regions.items()]
        regions += [(s.base, bytes(s.data)) for s in self.stacks
                    if not s.embedded]
        if paged or compressed:
            pm = paging.PhysicalMemory()
            for vaddr, data in regions:
                pm.place(vaddr, data)
            pm.build_page_tables(self.sym("init_top_pgt"))
            if compressed:
                diskdump.write_diskdump(path, pm.pages, b"".join(notes), text if vmcoreinfo_note else "",
                                        self.image.release, len(self.cpus))
                return
            segments = pm.segments(self.kernel_base, self.kernel_base + len(self.kernel))
        else:
            segments, phys = [], 0x1000000
            for vaddr, data in sorted(regions):
                segments.append((vaddr, phys, data))
                phys += page_up(len(data))
        elf_core.write_core(path, segments, notes)
