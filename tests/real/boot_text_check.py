#!/usr/bin/env python3
"""A dump's call sites are read in the text the CPU ran, and told in vmlinux's terms.

  boot_text_check.py BTAUDIT VMCORE_DIR [--vmlinux PATH]

The boot rewrites vmlinux's text for the CPU it runs on (alternatives, retpolines, paravirt
calls made direct), so a dump's call-site checks read the dump's own text. For NAME.elf and
NAME.kdump-zlib of every scenario, from `btaudit vmcore --format json DUMP analyze`:
  - the lab's dumps hold at least one call site read in the dump's text (code_from "dump") that
    the boot wrote (patched_by), where the file's default_idle calls through pv_ops (a call the
    boot rewrites on every kernel, on every idle CPU's stack); elsewhere (6.14 halts inline)
    which calls the boot rewrites depends on the guest CPU, and none found is said, not failed;
  - every vmlinux call site not so marked is the file's own bytes: a direct call is E8 rel32 at
    call_site.address in vmlinux, ending at the return address, to the target it names
    (read here from the ELF file and `nm`, not through btaudit);
  - a direct call site the boot wrote is not the file's call to that target, and one written by
    paravirt patching is an indirect call through memory in the file (FF 15 / FF 14 25);
  - init text, freed after boot and poisoned with int3, is read from the file: no frame in
    [_sinittext, _einittext) is read in the dump, said to follow an int3, or (reliable) to
    follow no call;
  - the ELF and kdump-compressed dumps of one crash give the same call sites;
  - text changed after boot where no boot-time patching writes does not make a return address
    follow no call: in a copy of one ELF dump, a reliable frame's call overwritten with int3 (a
    kprobe's breakpoint), then with a 5-byte jmp (an optimized kprobe's), still has the file's
    call as its call site.
Exit 77 when there is no dump (ctest skips).
"""
import bisect, json, os, shutil, struct, subprocess, sys, tempfile

from lab_args import lab_dump_names, split_vmcore_options


class Vmlinux:
    """Bytes at link addresses and symbols of a vmlinux, read from its ELF section headers."""

    def __init__(self, path):
        with open(path, 'rb') as f:
            self.data = f.read()
        d = self.data
        if d[:4] != b'\x7fELF' or d[4] != 2:
            raise SystemExit(f'{path}: not a 64-bit ELF file')
        shoff, = struct.unpack_from('<Q', d, 0x28)
        shentsize, shnum = struct.unpack_from('<HH', d, 0x3A)
        self.sections = []
        for i in range(shnum):
            _, typ, _, addr, off, size = struct.unpack_from('<IIQQQQ', d, shoff + i * shentsize)
            if typ == 1 and addr:  # SHT_PROGBITS, allocated
                self.sections.append((addr, off, size))
        out = subprocess.run(['nm', '-n', path], capture_output=True, text=True, check=True).stdout
        self.syms = []
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in 'tTwW':
                self.syms.append((int(p[0], 16), p[2]))
        self.addrs = [a for a, _ in self.syms]
        names = {n: a for a, n in self.syms}
        self.init_text = (names.get('_sinittext'), names.get('_einittext'))
        data_syms = subprocess.run(['nm', path], capture_output=True, text=True, check=True).stdout
        # pv_ops (5.0+), or the per-kind structs it replaced (pv_irq_ops, pv_cpu_ops, ...).
        self.pv_ops = [int(p[0], 16) for p in (l.split() for l in data_syms.splitlines())
                       if len(p) == 3 and (p[2] == 'pv_ops' or (p[2].startswith('pv_') and p[2].endswith('_ops')))]

    def read(self, addr, n):
        for base, off, size in self.sections:
            if base <= addr and addr + n <= base + size:
                return self.data[off + addr - base:off + addr - base + n]
        return None

    def names_at(self, addr):
        """Every name at addr (memcpy and __memcpy are one function)."""
        i = bisect.bisect_left(self.addrs, addr)
        out = set()
        while i < len(self.syms) and self.syms[i][0] == addr:
            out.add(self.syms[i][1])
            i += 1
        return out

    def pv_call_in(self, name, span=64):
        """Whether function `name`'s first `span` bytes hold an indirect call through the
        paravirt ops (pv_ops, or before 5.0 pv_irq_ops, pv_cpu_ops, ...), RIP-relative (FF 15
        rel32) or absolute (FF 14 25 abs32, older kernels): a paravirt call the boot always
        rewrites."""
        names = {n: a for a, n in self.syms}
        start = names.get(name)
        code = self.read(start, span) if start is not None else None
        if not code:
            return False
        for i in range(len(code) - 7):
            target = None
            if code[i:i + 2] == b'\xff\x15':
                rel, = struct.unpack_from('<i', code, i + 2)
                target = start + i + 6 + rel
            elif code[i:i + 3] == b'\xff\x14\x25':
                absolute, = struct.unpack_from('<i', code, i + 3)
                target = absolute & (2**64 - 1)  # sign-extended to the kernel's half
            if target is not None and any(ops <= target < ops + 0x1000 for ops in self.pv_ops):
                return True
        return False

    def in_init_text(self, addr):
        lo, hi = self.init_text
        return lo is not None and hi is not None and lo <= addr < hi


def file_direct_call(vm, at, ret):
    """The names of the target of the file's E8 rel32 call at `at` ending at `ret` (none: no such call)."""
    b = vm.read(at, 5)
    if b is None or b[0] != 0xE8 or ret - at != 5:
        return set()
    rel, = struct.unpack('<i', b[1:])
    return vm.names_at((ret + rel) & (2**64 - 1))


START_KERNEL_MAP = 0xffffffff80000000  # arch/x86/include/asm/page_64_types.h __START_KERNEL_map


def elf_dump_layout(path):
    """(PT_LOAD segments as (paddr, offset, filesz), VMCOREINFO as a dict) of an ELF dump."""
    with open(path, 'rb') as f:
        head = f.read(64)
        phoff, = struct.unpack_from('<Q', head, 0x20)
        phentsize, phnum = struct.unpack_from('<HH', head, 0x36)
        f.seek(phoff)
        table = f.read(phentsize * phnum)
        loads, info = [], {}
        for i in range(phnum):
            typ, _, off, _, paddr, filesz = struct.unpack_from('<IIQQQQ', table, i * phentsize)
            if typ == 1:
                loads.append((paddr, off, filesz))
            elif typ == 4:  # PT_NOTE: find VMCOREINFO's text
                f.seek(off)
                notes = f.read(min(filesz, 1 << 20))
                at = notes.find(b'OSRELEASE=')
                if at >= 0:
                    for line in notes[at:].split(b'\0')[0].decode(errors='replace').splitlines():
                        k, _, v = line.partition('=')
                        info[k] = v
    return loads, info


def plant_breakpoint(btaudit, dump, vmcore_opts, doc):
    """Writes int3, then a jmp rel32, over a reliable vmlinux frame's call in a copy of `dump` and
    checks that the frame still follows that call. Returns the number of problems."""
    loads, info = elf_dump_layout(dump)
    if 'NUMBER(phys_base)' not in info:
        print(f'{os.path.basename(dump)}: VMCOREINFO has no phys_base: breakpoint variant skipped')
        return 0
    phys_base = int(info['NUMBER(phys_base)'])
    kaslr = int(info.get('KERNELOFFSET', '0'), 16)
    for c in doc['cpus']:
        for f in c['frames']:
            cs = f.get('call_site') or {}
            if not (f['verdict'] == 'reliable' and f.get('module') is None and cs.get('kind') == 'direct'
                    and cs.get('code_from') == 'dump' and not cs.get('patched_by') and cs.get('address')):
                continue
            phys = (cs['address'] + kaslr - START_KERNEL_MAP + phys_base) & (2**64 - 1)
            where = [off + phys - pa for pa, off, size in loads if pa <= phys < pa + size]
            if not where:
                continue
            label = f"{os.path.basename(dump)} cpu {c['cpu']} {f['function']}+{f['offset']:#x}"
            with tempfile.TemporaryDirectory(prefix='btaudit-kprobe-') as tmp:
                copy = os.path.join(tmp, os.path.basename(dump))
                shutil.copyfile(dump, copy)
                with open(copy, 'rb') as original:
                    original.seek(where[0])
                    if original.read(1) != b'\xe8':
                        print(f"{label}: the dump holds no E8 at its call site's place (physical {phys:#x}): "
                              f"the address translation is wrong")
                        return 1
                for what, planted in (('int3', b'\xcc'), ('a jmp rel32', b'\xe9\x00\xff\xff\x7f')):
                    with open(copy, 'r+b') as out:
                        out.seek(where[0])
                        out.write(planted)
                    r = subprocess.run([btaudit, 'vmcore', *vmcore_opts, '--no-cache', '--format', 'json', copy,
                                        'analyze'], capture_output=True, text=True)
                    after = json.loads(r.stdout) if r.returncode == 0 else {'cpus': []}
                    same = [g for d in after['cpus'] if d['cpu'] == c['cpu'] for g in d['frames']
                            if g.get('slot') == f.get('slot') and g['function'] == f['function']]
                    got = same[0].get('call_site') if same else None
                    if not same or same[0]['verdict'] != 'reliable' or not got or got.get('insn') != cs['insn']:
                        print(f'{label}: with {what} over its call: {got} ({same[0]["verdict"] if same else "gone"})')
                        return 1
                    print(f'{label}: with {what} over its call, still follows "{got["insn"]}"')
            return 0
    print(f'{os.path.basename(dump)}: no reliable frame with a direct call in the dump\'s text: variant skipped')
    return 0


(btaudit, dumps), vmcore_opts = split_vmcore_options(sys.argv)
names = lab_dump_names(dumps)
bad = 0
patched = 0
checked = 0
vm = None
planted = False  # the breakpoint variant, on the first ELF dump
seen = {}
for name in names:
    r = subprocess.run([btaudit, 'vmcore', *vmcore_opts, '--no-cache', '--format', 'json',
                        os.path.join(dumps, name), 'analyze'], capture_output=True, text=True)
    if r.returncode != 0:
        print(f'{name}: analyze failed: {r.stderr.strip()}')
        bad += 1
        continue
    doc = json.loads(r.stdout)
    if vm is None:
        vm = Vmlinux(doc['dump']['vmlinux'])
    if name.endswith('.elf') and not planted:
        planted = True
        bad += plant_breakpoint(btaudit, os.path.join(dumps, name), vmcore_opts, doc)
    sites = []
    for c in doc['cpus'] + doc.get('tasks', []):
        for f in c['frames']:
            cs = f.get('call_site')
            if not cs or f.get('module') is not None:
                continue
            ret = f['debug_address']
            where = f"{name} {f['function']}+{f['offset']:#x}"
            sites.append((f['function'], f['offset'], cs.get('kind'), cs.get('insn'), cs.get('patched_by')))
            patched += bool(cs.get('patched_by')) and cs.get('code_from') == 'dump'
            if (cs.get('patched_by') or '').startswith('paravirt') and cs.get('address') is not None:
                b = vm.read(cs['address'], 3) or b''
                if not (b[:2] == b'\xff\x15' or b[:3] == b'\xff\x14\x25'):
                    bad += 1
                    print(f"{where}: said patched from a paravirt call, but the file holds {b.hex()}: {cs}")
            if vm.in_init_text(ret):
                if cs.get('code_from') == 'dump' or cs.get('insn') == 'int3' or \
                        (f['verdict'] == 'reliable' and cs.get('kind') == 'none'):
                    bad += 1
                    print(f'{where}: init text read as freed memory: {cs}')
                continue
            if cs.get('kind') != 'direct' or cs.get('address') is None:
                continue
            checked += 1
            target = cs.get('target')
            in_file = file_direct_call(vm, cs['address'], ret)
            if cs.get('patched_by'):
                if target in in_file:
                    bad += 1
                    print(f"{where}: said written at boot, but the file holds that call: {cs}")
            elif target not in in_file:
                bad += 1
                print(f"{where}: the file's bytes at {cs['address']:#x} are not 'call {target}': {cs}")
    stem = os.path.splitext(name)[0]
    if stem in seen and seen[stem] != sites:
        bad += 1
        print(f'{stem}: ELF and kdump-compressed dumps disagree on call sites')
    seen[stem] = sites
if vm is not None and patched == 0:
    # Every idle CPU's stack passes through default_idle. Where the file's default_idle calls
    # through pv_ops (6.1, 6.18: `call *pv_ops+8`), the boot rewrites that call on every kernel,
    # so the lab's dumps must show it. Where it halts inline (6.14's configuration: sti; hlt in
    # the file), which calls the boot rewrites depends on the guest CPU's features (retpolines
    # left or rewritten), and none may be on the walked stacks: said, not failed.
    if vm.pv_call_in('default_idle'):
        bad += 1
        print("no call site the boot wrote was read in any dump's text, though default_idle calls "
              "through pv_ops in the file")
    else:
        print("no call site the boot wrote is on these dumps' stacks (default_idle makes no paravirt "
              "call in this vmlinux; the rest depends on the guest CPU)")
print(f'{len(names)} dumps, {checked} direct call sites checked against vmlinux, {patched} written at boot, '
      f'{bad} problems')
sys.exit(1 if bad else 0)
