#!/usr/bin/env python3
"""Writes one kernel report whose trace never ends: a WARNING, then N times a
"Call Trace:" line and one frame (the shape that once cost 5.3 GB in analyze:
every trace, section and frame of one report was kept). With --frames, one
trace of N frames instead.

usage: make_long_report.py OUT N [--frames]"""

import sys


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    one_trace = "--frames" in sys.argv[3:]
    head = ("WARNING: CPU: 0 PID: 1 at kernel/sched/core.c:1 hostile_fn+0x10/0x20\n"
            "CPU: 0 PID: 1 Comm: init Not tainted 6.1.0 #1\n"
            "RIP: 0010:hostile_fn+0x10/0x20\n")
    chunk_traces = 10000
    with open(out, "w") as f:
        f.write(head)
        if one_trace:
            f.write("Call Trace:\n")
        block = (" do_one_thing+0x5d/0x90\n" if one_trace else "Call Trace:\n do_one_thing+0x5d/0x90\n") * chunk_traces
        for _ in range(n // chunk_traces):
            f.write(block)
        unit = " do_one_thing+0x5d/0x90\n" if one_trace else "Call Trace:\n do_one_thing+0x5d/0x90\n"
        f.write(unit * (n % chunk_traces))
        f.write("---[ end trace 0000000000000000 ]---\n")


if __name__ == "__main__":
    main()
