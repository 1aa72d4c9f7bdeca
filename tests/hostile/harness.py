"""What every hostile input must end in (issue 13): exit 0 with a complete
result, or the documented error status with exactly one line naming the file
and the problem; never a signal, never more than the time limit."""

import json
import os
import subprocess
import sys

TIME_LIMIT = 10.0  # seconds of CPU time per run, under ASan+UBSan too
WALL_FACTOR = 6  # a run still going after this many times the limit in wall time hangs (a shared machine is slow)


class Outcome:
    def __init__(self, proc, seconds):
        self.proc, self.seconds = proc, seconds
        self.code = proc.returncode if proc else None
        self.stdout = proc.stdout if proc else ""
        self.stderr = proc.stderr if proc else ""

    def json(self):
        return json.loads(self.stdout)


class Suite:
    def __init__(self, btaudit, name):
        self.btaudit, self.name = btaudit, name
        self.failures = []
        self.runs = 0
        self.slowest = (0.0, "")

    def fail(self, what):
        self.failures.append(what)
        print(f"FAIL: {what}", flush=True)

    def run(self, args, label, path=None, ok=(0, 2), stdin=None, preexec=None, limit=TIME_LIMIT, errors_name=True):
        """Runs btaudit; checks no signal, no hang, an allowed exit status and, when it
        is not 0, one error line on standard error naming `path`. Returns the Outcome."""
        self.runs += 1
        before = os.times()
        try:
            p = subprocess.run([self.btaudit, *args], capture_output=True, text=True, errors="replace",
                               timeout=limit * WALL_FACTOR, stdin=stdin, preexec_fn=preexec)
        except subprocess.TimeoutExpired:
            self.fail(f"{label}: still running after {limit * WALL_FACTOR:.0f} s (btaudit {' '.join(args)})")
            return Outcome(None, limit)
        after = os.times()
        # CPU time, not wall time: the figure must not depend on what else the machine runs.
        seconds = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        if seconds > self.slowest[0]:
            self.slowest = (seconds, label)
        if seconds > limit:
            self.fail(f"{label}: took {seconds:.1f} s of CPU time, more than {limit:.0f} s (btaudit {' '.join(args)})")
        out = Outcome(p, seconds)
        if p.returncode < 0:
            self.fail(f"{label}: killed by signal {-p.returncode} (btaudit {' '.join(args)})\n{p.stderr[-2000:]}")
        elif p.returncode not in ok:
            self.fail(f"{label}: exit {p.returncode}, expected one of {ok} (btaudit {' '.join(args)})\n"
                      f"{p.stderr[-2000:]}")
        elif p.returncode != 0 and path is not None and errors_name:
            self.check_one_error(out, path, label)
        return out

    def check_one_error(self, out, path, label):
        lines = [l for l in out.stderr.splitlines() if l.strip() and ": warning: " not in l]
        errors = [l for l in lines if not l.startswith("btaudit batch: ") or path in l]
        if len(errors) != 1 or path not in errors[0]:
            self.fail(f"{label}: expected one error line naming {path}, got:\n{out.stderr[-2000:]}")

    def expect_json(self, out, label):
        if out.code != 0:
            return None
        try:
            return out.json()
        except ValueError as e:
            self.fail(f"{label}: exit 0 but the JSON does not parse: {e}")
            return None

    def finish(self):
        print(f"{self.name}: {self.runs} runs, {len(self.failures)} failures; slowest {self.slowest[0]:.2f} s CPU "
              f"({self.slowest[1]})")
        return 1 if self.failures else 0


def skip(why):
    print(f"skipped: {why}")
    sys.exit(77)


def sanitized():
    """Whether btaudit was built with sanitizers (ulimit -v and RSS figures mean nothing then)."""
    return os.environ.get("BTAUDIT_SANITIZE", "OFF").upper() in ("ON", "1", "TRUE", "YES")
