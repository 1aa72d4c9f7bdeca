"""What the checks that read one dump in two forms share (flattened_check.py,
no_vmcoreinfo_check.py): the views they print, a run of one with the dump's own path
replaced, and the line where two outputs part."""
import os, subprocess, sys

VIEWS = [['info'], ['irqstate'], ['bt'], ['log'], ['analyze'], ['--format', 'json', 'analyze']]


def present_or_skip(folder, wanted):
    """The names of `wanted` readable in `folder`; exits 77 (skipped) when none is."""
    found = [n for n in wanted if os.path.isdir(folder) and os.access(os.path.join(folder, n), os.R_OK)]
    if not found:
        print(f'none of {wanted} under {folder}: skipped (run ../shared/lab/make-lab.sh)')
        sys.exit(77)
    return found


def run_view(btaudit, path, view, extra=(), timeout=600):
    """(exit code, stdout with `path` replaced by DUMP, stderr) of `btaudit vmcore [extra] ... path ACTION`."""
    r = subprocess.run([btaudit, 'vmcore', *extra, *view[:-1], path, view[-1]], capture_output=True, timeout=timeout)
    return r.returncode, r.stdout.replace(os.fsencode(path), b'DUMP'), r.stderr


def first_difference(a, b):
    """'line N: A vs B' for the first line where outputs a and b (bytes) differ."""
    la, lb = a.decode(errors='replace').splitlines(), b.decode(errors='replace').splitlines()
    n = next((i for i in range(min(len(la), len(lb))) if la[i] != lb[i]), min(len(la), len(lb)))
    return (f'line {n + 1} ({len(la)} vs {len(lb)} lines): {la[n] if n < len(la) else "(end)"!r} '
            f'vs {lb[n] if n < len(lb) else "(end)"!r}')


def compare_views(btaudit, copy, original, extra=(), stderr_says=None, views=VIEWS, copy_line=None):
    """Problems (strings) of `copy` against `original` over every view: the same exit code and the
    same output once paths are replaced, some output, and `stderr_says` (bytes) on the copy's
    stderr when given. `copy_line` (bytes): the start of a line the copy's info view prints and
    the original's does not (it must be there; it is left out of the comparison)."""
    problems = []
    name = os.path.basename(copy)
    for view in views:
        cs, co, ce = run_view(btaudit, copy, view, extra)
        if copy_line is not None and view == ['info']:
            kept = [line for line in co.split(b'\n') if not line.startswith(copy_line)]
            if len(kept) == len(co.split(b'\n')):
                problems.append(f'{name} info: no line starting {copy_line!r}')
            co = b'\n'.join(kept)
        os_, oo, _ = run_view(btaudit, original, view, extra)
        label = f"{name} {' '.join(view)}"
        if cs != os_:
            problems.append(f'{label}: exit {cs}, the original exits {os_}: {ce.decode(errors="replace").strip()}')
        elif co != oo:
            problems.append(f'{label}: output differs from the original first at {first_difference(co, oo)}')
        elif stderr_says is not None and stderr_says not in ce:
            problems.append(f'{label}: stderr does not say {stderr_says!r}: {ce.decode(errors="replace")!r}')
        elif not co:
            problems.append(f'{label}: no output')
    return problems


def run_copies(jobs, compare, label, workers, then=None, prefix='btaudit-copies-'):
    """Runs compare(job, tmp) for every job in a temporary folder (in `workers` threads), prints each
    job's problems or label(job) when it has none, then then(tmp)'s problems; prints the summary
    line and returns the exit status (1 when anything was wrong)."""
    import sys, tempfile
    from concurrent.futures import ThreadPoolExecutor
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            results = list(pool.map(lambda j: compare(j, tmp), jobs))
        for job, problems in zip(jobs, results):
            print('\n'.join(problems) if problems else f'{label(job)}: {len(VIEWS)} views identical to the original')
        more = then(tmp) if then else []
        for p in more:
            print(p)
    bad = sum(map(len, results)) + len(more)
    print(f'{len(jobs)} copies x {len(VIEWS)} views: {len(jobs) * len(VIEWS) - sum(map(len, results))} identical '
          f'to the original; {bad} problems')
    sys.stdout.flush()
    return 1 if bad else 0
