#!/usr/bin/env python3
"""batch --vmlinux gives the same outputs whatever the number of jobs and of libdwfl
sessions: the lab console logs, copied several times into one corpus, through
-j 1, -j 2 and -j 3 with two sessions (workers then wait for a session), each with
--buckets and --db. The NDJSON reports and the bucket summary must be byte-identical,
the databases identical row for row (their file bytes depend on when commits fell),
the warnings the same, and the reports must carry what only debuginfo gives (source
lines, checked call sites), so that the debuginfo path was what ran in parallel.
The sessions of a run share what they learn about vmlinux addresses (symbols, source
lines, call-site decodes): every report of the -j 2 run must also equal, byte for byte,
the same log's report from a run of its own (a process that learned nothing before it).

  batch_jobs_check.py BTAUDIT VMLINUX LOG... [--copies N]

Exit 77 without vmlinux or logs. Timing is not checked (bench/ratios.sh measures it).
"""
import hashlib, json, os, shutil, sqlite3, subprocess, sys, tempfile

args = sys.argv[1:]
copies = 4
if '--copies' in args:
    i = args.index('--copies')
    copies = int(args[i + 1])
    del args[i:i + 2]
btaudit, vmlinux, logs = args[0], args[1], [p for p in args[2:] if os.path.exists(p)]
if not os.path.exists(vmlinux) or not logs:
    print('batch_jobs_check: no vmlinux or no console logs: skipped')
    sys.exit(77)

work = tempfile.mkdtemp(prefix='btaudit-batch-jobs-')
try:
    corpus = os.path.join(work, 'corpus')
    os.makedirs(corpus)
    for c in range(copies):
        for n, log in enumerate(logs):
            shutil.copyfile(log, os.path.join(corpus, f'{c}-{n}-{os.path.basename(log)}'))

    def run(name, *extra):
        out, buckets, db = (os.path.join(work, f'{name}.{ext}') for ext in ('ndjson', 'buckets', 'db'))
        r = subprocess.run([btaudit, 'batch', '--vmlinux', vmlinux, '--progress', 'never', '-q', '-o', out,
                            '--buckets', buckets, '--db', db, *extra, corpus],
                           capture_output=True, text=True, timeout=1200)
        if r.returncode not in (0, 2):
            print(f'{name}: btaudit batch exited {r.returncode}: {r.stderr.strip()}')
            sys.exit(1)
        with sqlite3.connect(db) as con:
            rows = '\n'.join(con.iterdump())
        digest = lambda p: hashlib.sha256(open(p, 'rb').read()).hexdigest()
        return {'ndjson': digest(out), 'buckets': digest(buckets), 'db rows': hashlib.sha256(rows.encode()).hexdigest(),
                'warnings': sorted(set(l for l in r.stderr.splitlines() if 'warning' in l)),
                'exit': r.returncode}, out

    base, base_out = run('j1', '-j', '1')
    reports = [json.loads(l) for l in open(base_out)]
    frames = [f for rep in reports for f in rep['frames']]
    with_source = sum(1 for f in frames if f.get('source'))
    checked = sum(1 for f in frames if f.get('call_site'))
    print(f'-j 1: {len(reports)} reports from {copies * len(logs)} inputs, {len(frames)} frames, '
          f'{with_source} with a source line, {checked} with a call-site verdict')
    failures = []
    if len(reports) < 50 or with_source == 0 or checked == 0:
        failures.append('the -j 1 run carries no debuginfo results (or too few reports) to compare')
    for name, extra in (('j2', ['-j', '2']), ('j3s2', ['-j', '3', '--vmlinux-sessions', '2'])):
        got, _ = run(name, *extra)
        for key, want in base.items():
            if got[key] != want:
                failures.append(f'{" ".join(extra)}: {key} differs from -j 1: {got[key]} != {want}')
        print(f'{" ".join(extra)}: ' + ('identical' if not failures else 'DIFFERENT'))
    # Answers shared between reports change nothing: each log alone, in a process of its own.
    j2_out = os.path.join(work, 'j2.ndjson')
    by_input = {}
    for line in open(j2_out):
        rep = json.loads(line)
        by_input.setdefault(os.path.basename(rep['input']['path']), []).append(line)
    alone_dir = os.path.join(work, 'alone')
    os.makedirs(alone_dir)
    compared = 0
    for n, log in enumerate(logs):
        name = f'{copies - 1}-{n}-{os.path.basename(log)}'  # the last copy: its answers were all shared
        single = os.path.join(alone_dir, name)
        shutil.copyfile(log, single)
        out = os.path.join(work, f'alone-{n}.ndjson')
        r = subprocess.run([btaudit, 'batch', '--vmlinux', vmlinux, '--progress', 'never', '-q', '-o', out,
                            '--no-cache', single], capture_output=True, text=True, timeout=600)
        if r.returncode not in (0, 2):
            failures.append(f'{name} alone: btaudit batch exited {r.returncode}: {r.stderr.strip()}')
            continue
        alone = [json.dumps(dict(json.loads(l), input=None)) for l in open(out)]
        shared = [json.dumps(dict(json.loads(l), input=None)) for l in by_input.get(name, [])]
        compared += len(alone)
        if alone != shared:
            failures.append(f'{name}: its reports in the shared -j 2 run differ from a run of its own')
    print(f'{compared} reports of {len(logs)} logs analyzed alone: ' +
          ('identical' if not any('run of its own' in f for f in failures) else 'DIFFERENT'))
    for f in failures:
        print(f)
    sys.exit(1 if failures else 0)
finally:
    shutil.rmtree(work, ignore_errors=True)
