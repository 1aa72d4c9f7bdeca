#!/usr/bin/env python3
"""The hostile-input suite (issue 13; README.md here): each class makes its
inputs itself, runs the real btaudit on every one, and checks that each ends in
a complete result (exit 0) or in the documented exit status with one line naming
the file; never a signal, never more than 10 s (harness.py).

usage: hostile.py BTAUDIT CLASS --work DIR [--synth-kernel ELF] [--lab DIR]
                  [--vmlinux FILE] [--inputs DIR] [--reliability DIR]
classes: dump_headers dump_cuts dump_stacks task_lists lab_dumps bombs store ndjson text io_errors reliability"""

import argparse
import gzip
import json
import lzma
import os
import random
import resource
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from harness import Suite, sanitized, skip  # noqa: E402


# ---- dumps ---------------------------------------------------------------------

def check_dump(suite, args, dump, label, baseline=None):
    """A dump run: 0 with valid JSON (equal to `baseline` when given) or 2 with one line."""
    out = suite.run(args, label, path=dump)
    doc = suite.expect_json(out, label) if "json" in args else None
    if doc is not None and baseline is not None and doc != baseline:
        suite.fail(f"{label}: a field btaudit and libkdumpfile ignore changed the result")
    return out


def synthetic_dumps(work, kernel):
    import dumps
    out = []
    for name, paged, compressed in (("plain.elf", False, False), ("paged.elf", True, False),
                                    ("compressed.kdump", False, True)):
        path = os.path.join(work, name)
        dumps.write_synthetic(kernel, path, paged, compressed)
        out.append(path)
    return out


def json_args(dump, kernel):
    return ["vmcore", dump, "--vmlinux", kernel, "bt", "--format", "json"] if kernel else ["vmcore", dump, "info"]


def class_dump_headers(suite, a):
    """Every header field btaudit or libkdumpfile reads, swept through values that break it."""
    import dumps
    for source in synthetic_dumps(a.work, a.synth_kernel):
        copy = Patch_for(source, a.work)
        base = suite.run(json_args(copy.path, a.synth_kernel), f"{os.path.basename(source)} as made", path=copy.path,
                         ok=(0,))
        baseline = suite.expect_json(base, "baseline")
        if source.endswith(".elf"):
            mutations = dumps.elf_mutations(source)
        else:
            mutations = dumps.diskdump_mutations(source)
        for label, changes, same in mutations:
            old = copy.apply(changes)
            check_dump(suite, json_args(copy.path, a.synth_kernel), copy.path, f"{os.path.basename(source)}: {label}",
                       baseline if same else None)
            copy.undo(old)


def Patch_for(source, work):
    import dumps
    return dumps.Patch(source, os.path.join(work, "broken-" + os.path.basename(source)))


def class_dump_cuts(suite, a):
    """The dump cut at every structure boundary: truncated, said in one line."""
    import dumps
    for source in synthetic_dumps(a.work, a.synth_kernel):
        cuts = dumps.elf_cuts(source) if source.endswith(".elf") else dumps.diskdump_cuts(source)
        copy = os.path.join(a.work, "cut-" + os.path.basename(source))
        shutil.copyfile(source, copy)
        for cut in reversed(cuts):  # longest first: one copy, cut shorter each time
            os.truncate(copy, cut)
            out = check_dump(suite, json_args(copy, a.synth_kernel), copy, f"{os.path.basename(source)} cut at {cut}")
            if out.code == 0:
                suite.fail(f"{os.path.basename(source)} cut at {cut}: analyzed as if whole")


def fill_irq_stack(word_of):
    """A plant(m) that fills CPU 0's IRQ stack with one word and points its SP at the bottom."""
    def plant(m):
        cpu = m.cpus[0]
        stack = cpu.irq_stack
        word = word_of(m)
        for slot in range(stack.base, stack.top, 8):
            stack.put(slot, word)
        cpu.regs["rsp"] = stack.base
    return plant


def class_dump_stacks(suite, a):
    """Stacks full of one return address, of function starts, of random text addresses."""
    import dumps
    kinds = {
        "one return address": lambda m: m.return_address("handle_irq_event", "__handle_irq_event_percpu"),
        "a function start": lambda m: m.sym("handle_irq_event"),
        "the stack's own addresses": lambda m: m.cpus[0].irq_stack.base + 64,
    }
    for what, word_of in kinds.items():
        for compressed in (False, True):
            dump = os.path.join(a.work, f"stack-{len(what)}-{int(compressed)}.vmcore")
            m = dumps.write_synthetic(a.synth_kernel, dump, compressed=compressed, plant=fill_irq_stack(word_of))
            stack = m.cpus[0].irq_stack
            words = (stack.top - stack.base) // 8
            label = f"IRQ stack full of {what}" + (" (kdump-compressed)" if compressed else "")
            for args in (["bt", "--format", "json"], ["irqstate"], ["--format", "svg"], ["analyze"]):
                out = suite.run(["vmcore", dump, "--vmlinux", a.synth_kernel, *args], f"{label}: {args[0]}", path=dump,
                                ok=(0,))
                doc = suite.expect_json(out, label) if "json" in args else None
                if doc is not None and what != "the stack's own addresses":
                    on_irq = [f for f in doc["cpus"][0]["frames"] if f["stack"] == "irq"]
                    if len(on_irq) != words:
                        suite.fail(f"{label}: {len(on_irq)} frames on the IRQ stack, {words} words planted")
    # Random text words on every stack of every CPU.
    rng = random.Random(13)

    def scatter(m):
        lo, hi = m.sym("_stext"), m.sym("_etext")
        for s in m.stacks:
            for slot in range(s.base, s.top, 8):
                if rng.random() < 0.5:
                    s.put(slot, rng.randrange(lo, hi))
    dump = os.path.join(a.work, "stack-random.vmcore")
    dumps.write_synthetic(a.synth_kernel, dump, plant=scatter)
    for args in (["bt", "--format", "json"], ["analyze", "--format", "json"]):
        out = suite.run(["vmcore", dump, "--vmlinux", a.synth_kernel, *args], f"random text words: {args[0]}",
                        path=dump, ok=(0,))
        suite.expect_json(out, "random text words")


# The synthetic task_struct (tests/synthetic/kernel/synthkernel.c): the `tasks`
# list_head sits 16 bytes before `pid` (list_head tasks; int pid).
def tasks_offset(m):
    return m.layout["task_pid"] - 16


def link_tasks(m, n, shape, rng):
    """n tasks on init_task's list, then broken as `shape` says."""
    off = tasks_offset(m)
    head = m.sym("init_task") + off
    tasks = [m.new_task(100 + i, f"t{i}") for i in range(n)]
    nodes = [head] + [t.addr + off for t in tasks]
    for i, node in enumerate(nodes):
        m.put_u64(node, nodes[(i + 1) % len(nodes)])
        m.put_u64(node + 8, nodes[i - 1])
    if shape == "loop":
        m.put_u64(nodes[-1], nodes[n // 3])  # the last task leads back to a middle one, never to the head
    elif shape == "self":
        m.put_u64(nodes[n // 2], nodes[n // 2])
    elif shape == "unmapped":
        m.put_u64(nodes[n // 2], 0xFFFF888123450000)
    elif shape == "random":
        for node in rng.sample(nodes[1:], max(1, n // 4)):
            m.put_u64(node, rng.choice([rng.getrandbits(64), rng.choice(nodes) + rng.randrange(-64, 64, 8)]))
    for t in tasks:  # thread.sp: a word of its own stack, or nowhere
        m.put_u64(t.addr + m.layout["task_comm"] + 16, rng.choice([t.stack.base + 512, 0, rng.getrandbits(64)]))
    return tasks


def class_task_lists(suite, a):
    import dumps
    rng = random.Random(7)
    for shape, n in (("ring", 60), ("loop", 60), ("self", 20), ("unmapped", 20), ("random", 200)):
        dump = os.path.join(a.work, f"tasks-{shape}.vmcore")
        dumps.write_synthetic(a.synth_kernel, dump, plant=lambda m, s=shape, k=n: link_tasks(m, k, s, rng))
        out = suite.run(["vmcore", dump, "--vmlinux", a.synth_kernel, "bt", "--tasks", "--format", "json"],
                        f"task list ({shape})", path=dump, ok=(0,))
        doc = suite.expect_json(out, shape)
        if doc is None:
            continue
        notes = " ".join(doc["dump"]["notes"])
        if shape == "ring" and len(doc.get("tasks", [])) < n:
            suite.fail(f"task list (ring): {len(doc.get('tasks', []))} tasks walked, {n} linked")
        if shape in ("loop", "self") and "loops" not in notes:
            suite.fail(f"task list ({shape}): no note of the loop: {notes}")
        for pid in (100, 999999):
            suite.run(["vmcore", dump, "--vmlinux", a.synth_kernel, "bt", "--pid", str(pid)], f"{shape}: --pid {pid}",
                      path=dump, ok=(0, 2))


def class_lab_dumps(suite, a):
    """The lab's real dumps, when present: header sweeps on a copy, and a planted IRQ stack."""
    import dumps
    vmcores = os.path.join(a.lab or "", "vmcores")
    elf, kdump = os.path.join(vmcores, "panic_irq.elf"), os.path.join(vmcores, "panic_irq.kdump-zlib")
    if not (a.lab and os.path.exists(elf) and os.path.exists(kdump) and a.vmlinux and os.path.exists(a.vmlinux)):
        skip("no lab dumps or vmlinux (BTAUDIT_LAB_DIR)")
    for source, mutations in ((kdump, dumps.diskdump_mutations), (elf, dumps.elf_mutations)):
        copy = Patch_for(source, a.work)
        for label, changes, _same in mutations(source):
            old = copy.apply(changes)
            check_dump(suite, ["vmcore", copy.path, "info"], copy.path, f"lab {os.path.basename(source)}: {label}")
            copy.undo(old)
        os.unlink(copy.path)
    plant_lab_irq_stack(suite, a, elf)


def plant_lab_irq_stack(suite, a, elf):
    """2048 copies of do_syscall_64+0x5d on CPU 1's IRQ stack, SP at its bottom: every
    frame needs the call-site check that once cost 0.2 s (issue 13: under 2 s)."""
    from elf_vmcore import ElfVmcore, symbol_address
    state = suite.run(["vmcore", elf, "irqstate", "--format", "json"], "lab irqstate", path=elf, ok=(0,))
    doc = suite.expect_json(state, "lab irqstate")
    if doc is None:
        return
    cpu = next((c for c in doc["cpus"] if c["cpu"] == 1 and c["registers_from"] == "NT_PRSTATUS note"), None)
    if cpu is None:
        return suite.fail("lab irqstate: CPU 1 has no registers from its NT_PRSTATUS note to change")
    copy = os.path.join(a.work, "planted.elf")
    shutil.copyfile(elf, copy)
    d = ElfVmcore(copy)
    ret = symbol_address(a.vmlinux, "do_syscall_64") + 0x5D + doc["dump"]["kaslr_offset"]
    base, top = cpu["irq_state"]["irq_stack_base"], cpu["irq_state"]["irq_stack_top"]
    for page in range(base, top, 4096):
        at = d.virt_offset(page)
        if at is None:
            return suite.fail(f"lab planted stack: {page:#x} is not in the dump")
        d.write(at, struct.pack("<Q", ret) * 512)
    d.write(d.register_offset(1, "rsp"), struct.pack("<Q", base))
    for args in (["bt", "--format", "json"], ["irqstate"], ["--format", "svg"]):
        out = suite.run(["vmcore", copy, *args], f"lab planted IRQ stack: {args[-1]}", path=copy, ok=(0,))
        print(f"lab planted IRQ stack (2048 words of do_syscall_64+0x5d), {' '.join(args)}: "
              f"{out.seconds:.2f} s of CPU time")
        doc = suite.expect_json(out, "planted") if "json" in args else None
        if doc is not None:
            frames = [f for f in doc["cpus"][1]["frames"] if f["stack"] == "irq"]
            if len(frames) != (top - base) // 8:
                suite.fail(f"lab planted IRQ stack: {len(frames)} frames on the IRQ stack, {(top - base) // 8} planted")
    os.unlink(copy)


# ---- module debuginfo ------------------------------------------------------------------

def elf64_sections(data):
    """{name: (header offset, sh_offset, sh_size)} of a little-endian ELF64 file's sections."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [shoff + i * shentsize for i in range(shnum)]
    names_at = struct.unpack_from("<Q", data, headers[shstrndx] + 0x18)[0]
    out = {}
    for h in headers:
        name_off, = struct.unpack_from("<I", data, h)
        offset, size = struct.unpack_from("<QQ", data, h + 0x18)
        end = data.index(b"\0", names_at + name_off)
        out[data[names_at + name_off:end].decode(errors="replace")] = (h, offset, size)
    return out


def module_variants(data, rng):
    """(label, bytes) of a real .ko cut and defaced where a reader trusts it: the ELF header's
    section table, each section header's extent, and the bytes of the sections libdwfl, libdw,
    the CU index and the alternatives reader parse (DWARF, relocations, symbols, .altinstructions)."""
    for k in (0, 1, 64, *(len(data) * i // 12 for i in range(1, 12))):
        yield f"cut at {k}", data[:k]
    for field, at, fmt, value in (("e_shoff", 0x28, "<Q", 1 << 62), ("e_shnum", 0x3C, "<H", 0xFFFF),
                                  ("e_shstrndx", 0x3E, "<H", 0xFFFE), ("e_shentsize", 0x3A, "<H", 1)):
        b = bytearray(data)
        struct.pack_into(fmt, b, at, value)
        yield f"ELF header {field}", bytes(b)
    sections = elf64_sections(data)
    wanted = [n for n in sections if n.startswith((".debug_", ".rela.debug_", ".rela.text", ".altinstr",
                                                    ".rela.altinstr", ".symtab", ".strtab", ".text"))]
    for name in sorted(wanted):
        header, offset, size = sections[name]
        if size == 0 or offset + size > len(data):
            continue
        b = bytearray(data)
        b[offset:offset + size] = b"\xff" * size
        yield f"{name} all 0xff", bytes(b)
        b = bytearray(data)
        for _ in range(32):
            b[offset + rng.randrange(size)] = rng.randrange(256)
        yield f"{name} 32 bytes changed", bytes(b)
        b = bytearray(data)
        struct.pack_into("<Q", b, header + 0x20, 1 << 40)
        yield f"{name} sh_size 2^40", bytes(b)


def class_modules(suite, a):
    """Module debuginfo is a file the user names (--modules, crash's mod -S): the lab's own
    labcrash.ko, cut and defaced, must leave analyze and vmcore complete, with a warning at most:
    no signal, no hang, no error but one line."""
    ko = os.path.join(a.lab or "", "labcrash", "labcrash.ko")
    # The hard-IRQ WARN that panicked: labcrash frames on the IRQ stack and the task's, in the log
    # and in the dump's walks.
    log = os.path.join(a.lab or "", "logs", "panic_warn_hardirq.console.log")
    dump = os.path.join(a.lab or "", "vmcores", "panic_warn_hardirq.elf")
    if not (a.lab and all(os.path.exists(p) for p in (ko, log, dump)) and a.vmlinux and os.path.exists(a.vmlinux)):
        skip("no lab labcrash.ko, panic_warn_hardirq log and dump, or vmlinux (BTAUDIT_LAB_DIR)")
    with open(ko, "rb") as f:
        data = f.read()
    rng = random.Random(20261206)
    folder = os.path.join(a.work, "modules")
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, "labcrash.ko")
    count = 0
    # The intact file first: the runs below would pass with a reader that never opened it.
    shutil.copyfile(ko, target)
    out = suite.run(["analyze", "--format", "json", "--vmlinux", a.vmlinux, "--modules", folder, log],
                    "labcrash.ko intact", path=target, ok=(0,))
    doc = suite.expect_json(out, "labcrash.ko intact")
    located = [f for r in (doc or {}).get("reports", []) for f in r["frames"]
               if f.get("module") == "labcrash" and f.get("source")]
    if doc is not None and not located:
        suite.fail("labcrash.ko intact: no labcrash frame got a source line")
    for count, (label, variant) in enumerate(module_variants(data, rng), 1):
        with open(target, "wb") as f:
            f.write(variant)
        out = suite.run(["analyze", "--format", "json", "--vmlinux", a.vmlinux, "--modules", folder, log],
                        f"labcrash.ko {label}: analyze", path=target, ok=(0,))
        suite.expect_json(out, f"labcrash.ko {label}")
        if count % 3 == 0:  # a dump's walk and log read it too (a tenth of a second each)
            out = suite.run(["vmcore", "--format", "json", "--vmlinux", a.vmlinux, "--modules", folder, dump],
                            f"labcrash.ko {label}: vmcore", path=target, ok=(0,))
            suite.expect_json(out, f"labcrash.ko {label} (vmcore)")
    print(f"{count} defaced copies of labcrash.ko given with --modules")


# ---- text, bombs, NDJSON, stores ----------------------------------------------------

def concatenated_bomb(kind, members, member_bytes=1 << 20):
    """`members` compressed copies of member_bytes zeros, one after another: every
    format decodes concatenated members/streams/frames, so the whole is a bomb of
    members * member_bytes made in no time."""
    zeros = bytes(member_bytes)
    one = {"gz": lambda: gzip.compress(zeros, 9), "xz": lambda: lzma.compress(zeros),
           "zst": lambda: subprocess.run(["zstd", "-q", "-19", "-c"], input=zeros, capture_output=True,
                                         check=True).stdout}[kind]()
    return one * members


def ulimit_v(kib):
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (kib * 1024, kib * 1024))
    return limit


def class_bombs(suite, a):
    for kind in ("gz", "xz", "zst"):
        if kind == "zst" and not shutil.which("zstd"):
            continue
        bomb = os.path.join(a.work, f"bomb2g.{kind}")
        with open(bomb, "wb") as f:
            f.write(concatenated_bomb(kind, 2048))
        # Decoding up to the default limit (1 GiB) costs a few seconds: once per format.
        for args in (["analyze", bomb], ["analyze", "--max-input-mb", "8", bomb],
                     ["analyze", "--max-input-mb", "100", "--format", "json", bomb]):
            out = suite.run(args, f"{kind} bomb of 2 GiB: {' '.join(args[:-1])}", path=bomb, ok=(2,))
            if out.code == 2 and "too large" not in out.stderr:
                suite.fail(f"{kind} bomb: the error does not say too large: {out.stderr}")
        out = suite.run(["batch", "-q", "-o", "none", "--max-input-mb", "8", bomb], f"{kind} bomb in batch", path=bomb,
                        ok=(2,))
        if "too large" not in out.stderr:
            suite.fail(f"{kind} bomb in batch: not skipped as too large: {out.stderr}")
        small = os.path.join(a.work, f"small.{kind}")
        with open(small, "wb") as f:
            f.write(concatenated_bomb(kind, 2))  # 2 MiB: under every limit
        suite.run(["analyze", small], f"{kind}: 2 MiB of zeros", path=small, ok=(0,))
    bomb8 = os.path.join(a.inputs, "bomb8g_zero.zst")
    for cmd in (["analyze", bomb8], ["batch", "-q", "-o", "none", bomb8]):
        preexec = None if sanitized() else ulimit_v(4000000)  # sanitizers reserve terabytes of address space
        out = suite.run(cmd, f"8 GB zstd bomb, ulimit -v 4000000: {cmd[0]}", path=bomb8, ok=(2,), preexec=preexec)
        if "too large" not in out.stderr:
            suite.fail(f"8 GB zstd bomb ({cmd[0]}): no 'too large' error: {out.stderr}")


def write_text(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


HEAD = ("WARNING: CPU: 0 PID: 1 at kernel/x.c:1 hostile_fn+0x10/0x20\n"
        "CPU: 0 PID: 1 Comm: init Not tainted 6.1.0 #1\nRIP: 0010:hostile_fn+0x10/0x20\n")


def check_report_indices(suite, doc, label):
    for r in doc["reports"]:
        n = len(r["frames"])
        for t in r["traces"]:
            if t["first_frame"] + t["frame_count"] > n:
                suite.fail(f"{label}: trace {t} runs past the {n} frames")
        for s in r["sections"]:
            if s["first_frame"] + s["frame_count"] > n:
                suite.fail(f"{label}: section {s} runs past the {n} frames")


def class_text(suite, a):
    cases = {
        "5000 frames": HEAD + "Call Trace:\n" + " do_one+0x5d/0x90\n" * 5000,
        "100000 traces": HEAD + "Call Trace:\n do_one+0x5d/0x90\n" * 100000,
        "200000 stack markers": HEAD + "Call Trace:\n" + " <IRQ>\n </IRQ>\n" * 100000 + " do_one+0x5d/0x90\n",
        "a 2 MiB line": HEAD + "Call Trace:\n do_one+0x5d/0x90 " + "x" * (2 << 20) + "\n",
        "10000 modules": HEAD + "Modules linked in: " + " ".join(f"m{i}" for i in range(10000)) + "\n"
                         "Call Trace:\n do_one+0x5d/0x90\n",
        "5000 reports": "".join(HEAD + "Call Trace:\n do_one+0x5d/0x90\n---[ end trace 0 ]---\n" for _ in range(5000)),
        "NUL bytes": HEAD.replace("\n", "\0\n") + "Call Trace:\n\0 do_one+0x5d/0x90\0\n",
    }
    for label, text in cases.items():
        path = write_text(os.path.join(a.work, label.replace(" ", "_") + ".log"), text)
        out = suite.run(["analyze", "--format", "json", path], label, path=path, ok=(0,))
        doc = suite.expect_json(out, label)
        if doc is None:
            continue
        check_report_indices(suite, doc, label)
        cut = [t for r in doc["reports"] for t in r.get("truncated", [])]
        if label in ("5000 frames", "100000 traces", "a 2 MiB line", "10000 modules") and not cut:
            suite.fail(f"{label}: a limit was reached, but the report says nothing in 'truncated'")
        suite.run(["analyze", path], f"{label} (text)", path=path, ok=(0,))
        # batch skips an input with a line over --max-line-kb, and a skipped argument fails the run.
        suite.run(["batch", "-q", "-o", os.path.join(a.work, "out.ndjson"), path], f"{label} (batch)", path=path,
                  ok=(2,) if label == "a 2 MiB line" else (0,))
    frames = os.path.join(a.inputs, "text_4097_frames.txt")
    vm = ["--vmlinux", a.vmlinux] if a.vmlinux and os.path.exists(a.vmlinux) else []
    out = suite.run(["analyze", "--format", "json", *vm, frames], "text_4097_frames", path=frames, ok=(0,))
    doc = suite.expect_json(out, "text_4097_frames")
    if doc:
        check_report_indices(suite, doc, "text_4097_frames")
        r = doc["reports"][0]
        if len(r["frames"]) != 4096 or r["traces"][0]["frame_count"] != 4096 or not r.get("truncated"):
            suite.fail(f"text_4097_frames: {len(r['frames'])} frames, trace says {r['traces'][0]['frame_count']}, "
                       f"truncated {r.get('truncated')}")
    if vm:
        dsc = os.path.join(a.inputs, "text_dsc400_vmlinux.txt")
        out = suite.run(["analyze", *vm, dsc], "400 x do_syscall_64+0x5d with --vmlinux", path=dsc, ok=(0,))
        print(f"400 x do_syscall_64+0x5d with --vmlinux: {out.seconds:.2f} s of CPU time")
        out = suite.run(["analyze", "--check-budget-ms", "0", "--format", "json", *vm, dsc], "budget 0 ms", path=dsc,
                        ok=(0,))
        doc = suite.expect_json(out, "budget 0")
        if doc:
            reasons = {f["reason"] for f in doc["reports"][0]["frames"]}
            if reasons != {"unchecked_budget"} or not doc["reports"][0].get("truncated"):
                suite.fail(f"budget 0 ms: reasons {reasons}, truncated {doc['reports'][0].get('truncated')}")


def bucket_line(sig, count, **extra):
    b = {"signature": sig, "title": "t", "kind": "warning", "guilty_function": None, "count": count,
         "first_input": "a", "last_input": "a", "example": {"path": "a", "line": 1}, "unreliable_frames": 0,
         "stale_frames": 0}
    b.update(extra)
    return json.dumps(b) + "\n"


def class_ndjson(suite, a):
    top = (1 << 64) - 1
    cases = {
        "two counts of 2^64-1": bucket_line("aa", top) * 2,
        "count 2^64": bucket_line("aa", 1 << 64),
        "negative count": bucket_line("aa", -1),
        "fractional count": bucket_line("aa", 1.5),
        "count as a string": bucket_line("aa", "7"),
        "line 2^40": bucket_line("aa", 1, example={"path": "a", "line": 1 << 40}),
        "stale above unreliable": bucket_line("aa", 1, unreliable_frames=1, stale_frames=2),
        "frames 2^64-1 twice": bucket_line("aa", 1, unreliable_frames=top, stale_frames=top) * 2,
        "not JSON": "{\"signature\": \n",
        "a report without frames list": json.dumps({"signature": "aa", "frames": 3, "input": {}}) + "\n",
    }
    cases["many small buckets"] = "".join(bucket_line(f"{i:016x}", 1) for i in range(20000))
    merge_bigcount = os.path.join(a.inputs, "merge_bigcount.ndjson")
    for label, text in cases.items():
        path = write_text(os.path.join(a.work, label.replace(" ", "_") + ".ndjson"), text)
        ok = (0,) if label == "many small buckets" else (2,)
        suite.run(["merge", path], f"merge: {label}", path=path, ok=ok)
        suite.run(["buckets", path], f"buckets: {label}", path=path, ok=ok)
    out = suite.run(["merge", merge_bigcount], "merge_bigcount.ndjson", path=merge_bigcount, ok=(2,))
    if "18446744073709551614" in out.stdout:
        suite.fail("merge_bigcount.ndjson: the count wrapped")


def sqlite_db(path, statements):
    con = sqlite3.connect(path)
    for s in statements:
        con.execute(s)
    con.commit()
    con.close()


def fresh_db(suite, a, name, logs):
    db = os.path.join(a.work, name)
    if os.path.exists(db):
        os.unlink(db)
    suite.run(["batch", "-q", "-o", "none", "--db", db, *logs], f"a good database ({name})", ok=(0,))
    return db


def class_store(suite, a):
    logs = [os.path.join(a.inputs, "a.log")]
    more = [os.path.join(a.inputs, "b.log")]
    broken = {
        "user_version 999": ["PRAGMA user_version = 999"],
        "a dropped table": ["DROP TABLE buckets"],
        "a dropped column": ["ALTER TABLE reports DROP COLUMN json"],
        "an added column": ["ALTER TABLE inputs ADD COLUMN extra TEXT"],
        "schema_version 2": ["UPDATE meta SET value = '2' WHERE key = 'schema_version'"],
        "a negative count": ["UPDATE buckets SET count = -1"],
        "no meta": ["DROP TABLE meta"],
    }
    for label, statements in broken.items():
        db = fresh_db(suite, a, "broken.db", logs)
        sqlite_db(db, statements)
        suite.run(["batch", "-q", "-o", "none", "--db", db, *more], f"store: {label}", path=db, ok=(2,))
        suite.run(["buckets", "--db", db], f"buckets --db: {label}", path=db,
                  ok=(0, 2) if label == "an added column" else (0, 2))
    for name in ("db_dropped_buckets.db", "db_missing_json_col.db"):
        db = os.path.join(a.work, name)
        shutil.copyfile(os.path.join(a.inputs, name), db)
        suite.run(["batch", "-q", "-o", "none", "--db", db, *more], f"store: {name}", path=db, ok=(2,))
    # A damaged b-tree page, a file that is no database, an empty file (a new database).
    db = fresh_db(suite, a, "corrupt.db", logs)
    with open(db, "r+b") as f:
        f.seek(4096 + 8)
        f.write(os.urandom(3000))
    suite.run(["batch", "-q", "-o", "none", "--db", db, *more], "store: a corrupt b-tree page", path=db, ok=(2,))
    junk = write_text(os.path.join(a.work, "junk.db"), "this is not a database\n" * 100)
    suite.run(["batch", "-q", "-o", "none", "--db", junk, *more], "store: not a database", path=junk, ok=(2,))
    empty = write_text(os.path.join(a.work, "empty.db"), "")
    suite.run(["batch", "-q", "-o", "none", "--db", empty, *more], "store: an empty file", path=empty, ok=(0,))
    other = os.path.join(a.work, "other.db")
    sqlite_db(other, ["CREATE TABLE t(x)"])
    suite.run(["batch", "-q", "-o", "none", "--db", other, *more], "store: another program's database", path=other,
              ok=(2,))
    # A read-only database: chattr +i (root ignores permission bits), where the file system allows it.
    ro = fresh_db(suite, a, "readonly.db", logs)
    for side in ("-wal", "-shm"):
        if os.path.exists(ro + side):
            os.unlink(ro + side)
    if subprocess.run(["chattr", "+i", ro], capture_output=True).returncode == 0:
        try:
            suite.run(["batch", "-q", "-o", "none", "--db", ro, *more], "store: immutable file", path=ro, ok=(2,))
        finally:
            subprocess.run(["chattr", "-i", ro], capture_output=True)
    elif os.geteuid() != 0:
        os.chmod(ro, 0o444)
        suite.run(["batch", "-q", "-o", "none", "--db", ro, *more], "store: read-only file", path=ro, ok=(2,))
    # A full disk: a file size limit, SIGXFSZ ignored, so writes fail with EFBIG as on a full disk.
    full = fresh_db(suite, a, "full.db", logs)
    before = sqlite3.connect(full).execute("SELECT COUNT(*) FROM inputs").fetchone()[0]
    corpus = os.path.join(a.work, "many")
    os.makedirs(corpus, exist_ok=True)
    for i in range(300):
        shutil.copyfile(more[0], os.path.join(corpus, f"{i:04d}.log"))

    def full_disk():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        size = os.path.getsize(full) + 64 * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    suite.run(["batch", "-q", "-o", "none", "--commit-every", "8", "--db", full, corpus], "store: a full disk",
              path=full, ok=(2,), preexec=full_disk)
    after = sqlite3.connect(full).execute("SELECT COUNT(*) FROM inputs").fetchone()[0]
    if after < before:
        suite.fail(f"store: a full disk lost committed inputs ({before} before, {after} after)")
    suite.run(["batch", "-q", "-o", "none", "--db", full, corpus], "store: the rerun after a full disk", path=full,
              ok=(0,))


def class_io_errors(suite, a):
    mem = "/proc/self/mem"
    suite.run(["analyze", mem], "analyze /proc/self/mem (EIO)", path=mem, ok=(2,))
    suite.run(["batch", "-q", "-o", "none", mem], "batch /proc/self/mem (EIO)", path=mem, ok=(2,))
    good = os.path.join(a.inputs, "a.log")
    out = suite.run(["analyze", mem, good], "analyze /proc/self/mem and a good log", path=mem, ok=(2,))
    if "== " not in out.stdout:
        suite.fail("analyze /proc/self/mem and a good log: the good log was not analyzed")
    suite.run(["analyze", a.work], "analyze a folder", path=a.work, ok=(2,))
    suite.run(["analyze", os.path.join(a.work, "missing.log")], "analyze a missing file",
              path=os.path.join(a.work, "missing.log"), ok=(2,))
    suite.run(["merge", mem], "merge /proc/self/mem", path=mem, ok=(2,))


def class_reliability(suite, a):
    """Every reproducer of ../shared/reliability (README there), with its command."""
    r = a.reliability if a.reliability and os.path.isdir(a.reliability) else a.inputs
    for name in ("elf_phentsize0_64b.elf", "elf_phentsize0_small.elf"):
        path = os.path.join(r, name)
        out = suite.run(["vmcore", path], name, path=path, ok=(2,))
        if "e_phentsize" not in out.stderr:
            suite.fail(f"{name}: the error does not name e_phentsize: {out.stderr}")
    vm = ["--vmlinux", a.vmlinux] if a.vmlinux and os.path.exists(a.vmlinux) else []
    for name in ("text_4097_frames.txt", "text_dsc400_vmlinux.txt"):
        path = os.path.join(r, name)
        suite.run(["analyze", *vm, path], name, path=path, ok=(0,))
        suite.run(["batch", "-q", "-o", "none", *vm, path], f"{name} (batch)", path=path, ok=(0,))
    bomb = os.path.join(r, "bomb8g_zero.zst")
    preexec = None if sanitized() else ulimit_v(4000000)
    for cmd in (["analyze", bomb], ["batch", "-q", "-o", "none", bomb]):
        suite.run(cmd, f"bomb8g_zero.zst ({cmd[0]})", path=bomb, ok=(2,), preexec=preexec)
    for name in ("db_missing_json_col.db", "db_dropped_buckets.db"):
        db = os.path.join(a.work, "t-" + name)
        shutil.copyfile(os.path.join(r, name), db)
        suite.run(["batch", "-q", "-o", "none", "--db", db, os.path.join(r, "b.log")], name, path=db, ok=(2,))
    merge = os.path.join(r, "merge_bigcount.ndjson")
    suite.run(["merge", merge], "merge_bigcount.ndjson", path=merge, ok=(2,))
    suite.run(["batch", "-q", "-o", "none", "/proc/self/mem"], "batch /proc/self/mem", path="/proc/self/mem", ok=(2,))
    db = os.path.join(a.work, "uv999.db")
    if os.path.exists(db):
        os.unlink(db)
    suite.run(["batch", "-q", "-o", "none", "--db", db, os.path.join(r, "a.log")], "a new database", ok=(0,))
    sqlite_db(db, ["PRAGMA user_version = 999"])
    suite.run(["batch", "-q", "-o", "none", "--db", db, os.path.join(r, "b.log")], "user_version 999", path=db, ok=(2,))
    lab = os.path.join(a.lab or "", "vmcores", "panic_irq.kdump-zlib")
    if a.lab and os.path.exists(lab):
        out_dump = os.path.join(a.work, "snote.kdump")
        shutil.copyfile(lab, out_dump)
        with open(out_dump, "r+b") as f:
            f.seek(4096 + 56)
            f.write(struct.pack("<Q", 1 << 40))
        suite.run(["vmcore", "--format", "json", out_dump], "size_note 2^40 (make_kdump_snote_sigbus.sh)",
                  path=out_dump, ok=(2,))
    else:
        print("lab dumps absent: make_kdump_snote_sigbus.sh and make_elf_stack_hang.py are in lab_dumps' place")


CLASSES = {name[len("class_"):]: fn for name, fn in globals().items() if name.startswith("class_")}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("btaudit")
    p.add_argument("cls", choices=sorted(CLASSES))
    p.add_argument("--work", required=True)
    p.add_argument("--synth-kernel")
    p.add_argument("--lab")
    p.add_argument("--vmlinux")
    p.add_argument("--inputs", default=os.path.join(HERE, "inputs"))
    p.add_argument("--reliability")
    a = p.parse_args()
    a.work = os.path.join(a.work, a.cls)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    suite = Suite(a.btaudit, a.cls)
    CLASSES[a.cls](suite, a)
    status = suite.finish()
    if status == 0:
        shutil.rmtree(a.work, ignore_errors=True)  # lab copies are hundreds of MB
    return status


if __name__ == "__main__":
    sys.exit(main())
