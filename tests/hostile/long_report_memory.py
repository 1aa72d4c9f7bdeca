#!/usr/bin/env python3
"""Peak memory of `btaudit analyze` on one report of 5 million one-frame traces
(180 MB, made by make_long_report.py): issue 13 asks for at most 512 MB, where
every trace, section and frame once cost 5.3 GB. Prints the figure; skipped
(77) in sanitizer builds, whose allocator makes RSS meaningless.

usage: long_report_memory.py BTAUDIT WORKDIR [TRACES]"""

import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from harness import sanitized, skip  # noqa: E402

LIMIT_MB = 512


def peak(cmd):
    start = time.monotonic()
    with open(os.devnull, "w") as null:
        p = subprocess.Popen(cmd, stdout=null, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
    p.stderr.close()
    return os.waitstatus_to_exitcode(status), usage.ru_maxrss / 1024, time.monotonic() - start


def main():
    btaudit, work = sys.argv[1], sys.argv[2]
    traces = int(sys.argv[3]) if len(sys.argv) > 3 else 5_000_000
    if sanitized():
        skip("a sanitizer build: peak RSS is the sanitizer's")
    os.makedirs(work, exist_ok=True)
    log = os.path.join(work, "long-report.log")
    subprocess.run([sys.executable, os.path.join(HERE, "make_long_report.py"), log, str(traces)], check=True)
    status = 0
    for fmt in ("text", "json"):
        code, mb, seconds = peak([btaudit, "analyze", "--format", fmt, log])
        print(f"analyze --format {fmt}, {traces} one-frame traces ({os.path.getsize(log) / 1e6:.0f} MB): "
              f"exit {code}, peak RSS {mb:.0f} MB, {seconds:.1f} s")
        if code != 0 or mb > LIMIT_MB:
            print(f"FAIL: expected exit 0 and at most {LIMIT_MB} MB")
            status = 1
    os.unlink(log)
    return status


if __name__ == "__main__":
    sys.exit(main())
