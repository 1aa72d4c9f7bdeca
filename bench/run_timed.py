#!/usr/bin/env python3
"""Runs a command once and prints "wall_s cpu_s rss_mb" for it (bench/ratios.sh's timer).

  run_timed.py OUT ERR CMD...

CMD's stdout goes to OUT and its stderr to ERR. Wall time is the monotonic clock's from fork
to reaping; CPU time (user + sys) is from wait4(2)'s rusage, to the microsecond: GNU time
prints centiseconds, too coarse for runs of a few tens of milliseconds (a batch of 336 reports
read 0.03 s against 0.04 s, and "1.33x" was that rounding). CMD runs under GNU time all the
same, for its peak RSS: a child forked from this Python process would count Python's pages in
its own peak until it execs, and GNU time's are a small C program's (its own CPU time, a
fraction of a millisecond, is in the figure, on both sides of every ratio).
Exit status: CMD's, or 1 when it was killed by a signal.
"""
import os
import sys
import tempfile
import time

out, err, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
with tempfile.NamedTemporaryFile("r", prefix="btaudit-rss.") as rss:
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.dup2(os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 1)
            os.dup2(os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 2)
            os.execv("/usr/bin/time", ["/usr/bin/time", "-f", "%M", "-o", rss.name, *cmd])
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    wall = time.monotonic() - start
    peak_kib = int((rss.read().split() or ["0"])[-1])
print(f"{wall:.4f} {usage.ru_utime + usage.ru_stime:.4f} {peak_kib / 1024:.1f}")
sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)
