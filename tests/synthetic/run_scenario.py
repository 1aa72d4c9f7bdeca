#!/usr/bin/env python3
"""One synthetic-dump test: plants a scenario on a synthetic kernel, writes
the ELF vmcore, runs the real `btaudit vmcore` on it (through libkdumpfile),
and compares its walk with what was planted.

usage: run_scenario.py BTAUDIT KERNEL_ELF SCENARIO WORKDIR"""

import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from scenarios import SCENARIOS  # noqa: E402
from synthdump.kernel_image import KernelImage  # noqa: E402
from synthdump.machine import Machine  # noqa: E402

def actual_frames(cpu):
    return [{"function": f["function"], "offset": f["offset"], "module": f["module"],
             "reliable": not f["printed_unreliable"],
             "stack": f["stack"], "exception": f.get("exception"), "slot": f.get("slot")} for f in cpu["frames"]]


def fmt(f):
    mark = "  " if f["reliable"] else "? "
    module = f" [{f['module']}]" if f["module"] else ""
    return f"{f['slot'] or 0:016x} {f['stack']:<9} {mark}{f['function']}+{f['offset'] or 0:#x}{module}"


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)


def check_cpu(m, n, expect, cpu, text, errors):
    for f in cpu["frames"]:
        if f["address"] in expect.reasons and f["reason"] != expect.reasons[f["address"]]:
            errors.append(f"CPU {n}: {f['function']}+{f['offset']:#x}: reason {f['reason']}, "
                          f"expected {expect.reasons[f['address']]}")
    for value, reason in expect.reasons.items():
        if not any(f["address"] == value for f in cpu["frames"]):
            errors.append(f"CPU {n}: no frame for {value:#x} (expected one with reason {reason})")
    want, got = expect.frames(m), actual_frames(cpu)
    if want != got:
        errors.append(f"CPU {n}: frames differ\n  expected:\n    " + "\n    ".join(map(fmt, want)) +
                      "\n  btaudit:\n    " + "\n    ".join(map(fmt, got)))
    trans = [(t["from"], t["to"], t["slot"], t["value"]) for t in cpu["transitions"]]
    if trans != expect.transitions:
        show = lambda ts: [f"{a}->{b} slot {s:x} value {v:x}" for a, b, s, v in ts]
        errors.append(f"CPU {n}: transitions {show(trans)} != expected {show(expect.transitions)}")
    state = cpu["irq_state"]
    if state["sp_stack"] != expect.sp_stack:
        errors.append(f"CPU {n}: SP on {state['sp_stack']}, expected {expect.sp_stack}")
    if isinstance(expect.in_use, bool) and state["in_use"] is not None:
        if state["in_use"] != expect.in_use:
            errors.append(f"CPU {n}: in_use {state['in_use']}, expected {expect.in_use}")
    else:
        count = expect.in_use if not isinstance(expect.in_use, bool) else (0 if expect.in_use else -1)
        if state["irq_count"] != count:
            errors.append(f"CPU {n}: irq_count {state['irq_count']}, expected {count}")
    problems = cpu["problems"]
    if len(problems) != len(expect.problems) or any(p not in q for p, q in zip(expect.problems, problems)):
        errors.append(f"CPU {n}: problems {problems}, expected {expect.problems}")
    # The text view: the RIP lines (CPU registers, then each pt_regs) in walk order.
    section = text.split(f"\nCPU {n}: ", 1)[1].split("\nCPU ", 1)[0]
    rips = [line.split("RIP: ", 1)[1].split("+", 1)[0] for line in section.splitlines() if "RIP: " in line]
    if rips != expect.rips:
        errors.append(f"CPU {n}: RIP lines {rips}, expected {expect.rips}")


def truncated(btaudit, kernel, dump, keep):
    """A dump cut short (to `keep` bytes, or True: half): one line naming the file, a non-zero exit."""
    size = os.path.getsize(dump)
    with open(dump, "r+b") as f:
        f.truncate(size // 2 if keep is True else keep)
    r = run([btaudit, "vmcore", dump, "--vmlinux", kernel, "bt"])
    lines = r.stderr.strip().splitlines()
    if r.returncode == 0 or len(lines) != 1 or dump not in lines[0] or "truncated" not in lines[0]:
        print(f"FAIL: truncated dump: exit {r.returncode}, stderr {r.stderr!r}, stdout {r.stdout[:400]!r}")
        return 1
    print(f"ok: truncated dump: exit {r.returncode}: {lines[0]}")
    return 0


def irqstate_row(m, cpu, expect):
    """The row `btaudit vmcore irqstate` must print for a CPU: its task, SP, the
    stack the SP is on, the IRQ stack, the word at its top (live or stale) and
    the in-use state."""
    t, irq = cpu.task, cpu.irq_stack
    if isinstance(expect.in_use, bool):
        use = ("yes" if expect.in_use else "no") if m.era >= 3 else f"count {0 if expect.in_use else -1}"
    else:
        use = f"count {expect.in_use}"
    sp = cpu.regs.get("rsp")
    return [str(cpu.index), f"{t.addr:016x}", str(t.pid), t.comm, f"{sp:016x}" if sp is not None else "-",
            expect.sp_stack, f"{irq.base:016x}-{irq.end:016x}", f"{irq.get(irq.end - 8):016x}", *use.split()]


def check_irqstate(m, expects, table, errors):
    rows = {}
    for line in table.splitlines():
        cols = line.split()
        if cols and cols[0].isdigit():
            rows[int(cols[0])] = cols
    for n, expect in expects.items():
        want = irqstate_row(m, m.cpus[n], expect)
        got = rows.get(n, [])[:len(want)]
        if got != want:
            errors.append(f"irqstate CPU {n}: {' '.join(got)}\n  expected:      {' '.join(want)}")


def check_log(base, lines, walked, errors):
    """`vmcore log` gives the planted lines back; `analyze` finds the panic report
    and matches each of its printed frames (all from panic() down) with CPU 0's walk."""
    log = run(base[:3] + ["log"])
    got = [re.sub(r"^\[\s*\d+\.\d{6}\] ", "", line) for line in log.stdout.splitlines()]
    if log.returncode != 0 or got != lines:
        errors.append(f"vmcore log (exit {log.returncode}, {log.stderr.strip()}):\n  " + "\n  ".join(got) +
                      "\n  expected:\n  " + "\n  ".join(lines))
    an = run(base + ["analyze", "--format", "json"])
    if an.returncode != 0:
        errors.append(f"vmcore analyze exited {an.returncode}: {an.stderr.strip()}")
        return
    doc = json.loads(an.stdout)
    kinds = [r["kind"] for r in doc["reports"]]
    checks = [(c["cpu"], c["printed_frames"], c["matched_frames"], c["mismatches"]) for c in doc["crosscheck"]]
    if "panic" not in kinds or checks != [(0, walked, walked, [])]:
        errors.append(f"analyze: reports {kinds}, cross-checks {checks}; expected a panic and "
                      f"[(0, {walked}, {walked}, [])]")


def main():
    btaudit, kernel, name, workdir = sys.argv[1:5]
    plant, options = SCENARIOS[name]
    image = KernelImage(kernel, options.get("kaslr", 0))
    m = Machine(image, options.get("cpus", 2))
    expects = plant(m)
    # Dump-wide notes the walk must print, and no others (substrings, in order).
    notes = expects.pop("notes", [])
    log_lines = expects.pop("log", None)
    if m.fp_kernel:
        notes = ["no ORC symbols in vmlinux: walked with frame pointers"] + notes
    os.makedirs(workdir, exist_ok=True)
    variant = os.path.splitext(os.path.basename(kernel))[0].replace("synthkernel-", "")
    dump = os.path.join(workdir, f"{name}-{variant}.vmcore")
    m.write(dump, options.get("paged", False), options.get("compressed", False), options.get("kdump", True),
            options.get("vmcoreinfo_note", True))
    if options.get("truncate"):
        return truncated(btaudit, kernel, dump, options["truncate"])
    base = [btaudit, "vmcore", dump, "--vmlinux", kernel]
    js, tx, irqstate = run(base + ["bt", "--format", "json"]), run(base + ["bt"]), run(base + ["irqstate"])
    for r in (js, tx, irqstate):
        if r.returncode != 0:
            print(f"FAIL: btaudit exited {r.returncode}: {r.stderr.strip()}")
            return 1
    doc = json.loads(js.stdout)
    errors = []
    cpus = {c["cpu"]: c for c in doc["cpus"]}
    for n, expect in expects.items():
        check_cpu(m, n, expect, cpus[n], tx.stdout, errors)
    check_irqstate(m, expects, irqstate.stdout, errors)
    if log_lines:
        check_log(base, log_lines, len(expects[0].frames(m)), errors)
    got_notes = doc["dump"]["notes"]
    if len(got_notes) != len(notes) or any(w not in g for w, g in zip(notes, got_notes)):
        errors.append(f"dump notes {got_notes}, expected {notes}")
    # Without the note the kernel's copy in vmcoreinfo_data was read, and the user is told where.
    recovered = "no VMCOREINFO note" in tx.stderr and f"{m.sym('vmcoreinfo_data'):x}"[-3:] in tx.stderr
    if options.get("vmcoreinfo_note", True) == recovered:
        errors.append(f"stderr {tx.stderr.strip()!r}: the VMCOREINFO found in memory "
                      f"{'not ' if recovered else ''}expected to be named")
    if errors:
        print("\n".join(errors))
        print(f"FAIL: {name} on {variant} ({dump}); btaudit's text view:\n{tx.stdout}")
        return 1
    print(f"ok: {name} on {variant}: {sum(len(c['frames']) for c in doc['cpus'])} frames as planted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
