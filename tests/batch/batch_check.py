#!/usr/bin/env python3
"""End-to-end checks of `btaudit batch`, `buckets` and `merge` (ctest label: batch).

  batch_check.py BTAUDIT REPO CHECK [--shared DIR]

CHECK is one of:
  jobs        identical NDJSON reports and buckets whatever --jobs (1, 2, 4)
  reingest    a second run over the same inputs adds 0 rows; the database is unchanged
  kill        kill -9 mid-run, rerun: the same database as an uninterrupted run
  interrupt   SIGINT mid-run: exit 130, committed work kept, rerun completes it
  parallel    GNU parallel job slots over slices of the corpus, merged: the single run's buckets
  badinput    binary, truncated, huge-line, non-file and mailbox inputs: counted, run goes on
  debuginfo   --vmlinux on the lab's console logs: frames symbolized, the same buckets as without
              (skipped without the lab's debug vmlinux; give it with --vmlinux V)
Inputs: the repo's corpora/ (always there), plus ../shared/corpora when present.
Exit 0 pass, 1 fail, 77 skipped (a tool the check needs is missing).
"""
import gzip, json, os, shutil, signal, sqlite3, subprocess, sys, tempfile, time


def fail(msg):
    print('FAIL: ' + msg)
    sys.exit(1)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)


def batch(btaudit, args, ok=(0,)):
    r = run([btaudit, 'batch', '--progress', 'never', *args])
    if r.returncode not in ok:
        fail(f'batch {args} exited {r.returncode}: {r.stderr.strip()}')
    return r


def corpus_dirs(repo, shared):
    dirs = [os.path.join(repo, 'corpora')]
    if shared and os.path.isdir(shared):
        dirs.append(shared)
    return dirs


def replicated_corpus(repo, work, copies):
    """corpora/*.log copied `copies` times into work/corpus/NNN/: a corpus of many small files."""
    src = os.path.join(repo, 'corpora')
    logs = sorted(f for f in os.listdir(src) if f.endswith('.log'))
    root = os.path.join(work, 'corpus')
    for i in range(copies):
        d = os.path.join(root, f'{i:04d}')
        os.makedirs(d)
        for f in logs:
            shutil.copyfile(os.path.join(src, f), os.path.join(d, f))
    return root, copies * len(logs)


def canonical_db(path):
    """The database's content in a stable order, ignoring nothing but SQLite's page layout."""
    con = sqlite3.connect(path)
    out = {}
    for table, order in [('meta', 'key'), ('inputs', 'path'), ('reports', 'path, seq'), ('buckets', 'signature')]:
        cols = [c[1] for c in con.execute(f'PRAGMA table_info({table})')]
        out[table] = con.execute(f'SELECT {", ".join(cols)} FROM {table} ORDER BY {order}').fetchall()
    con.close()
    return out


def db_inputs(path):
    try:
        con = sqlite3.connect(f'file:{path}?mode=ro', uri=True, timeout=5)
        n = con.execute('SELECT COUNT(*) FROM inputs').fetchone()[0]
        con.close()
        return n
    except sqlite3.Error:
        return 0


def check_jobs(btaudit, repo, shared, work):
    outs = []
    for jobs in ('1', '2', '4'):
        rep, buck = os.path.join(work, f'r{jobs}.ndjson'), os.path.join(work, f'b{jobs}.ndjson')
        batch(btaudit, ['-j', jobs, '-q', '-o', rep, '--buckets', buck, *corpus_dirs(repo, shared)])
        outs.append((open(rep).read(), open(buck).read()))
    if not outs[0][0]:
        fail('no reports')
    for jobs, o in zip(('2', '4'), outs[1:]):
        if o[0] != outs[0][0]:
            fail(f'--jobs {jobs} reports differ from --jobs 1')
        if o[1] != outs[0][1]:
            fail(f'--jobs {jobs} buckets differ from --jobs 1')
    lines = outs[0][0].count('\n')
    # Every line is a report of the analyze contract; the buckets count them all.
    for line in outs[0][0].splitlines():
        r = json.loads(line)
        for key in ('kind', 'title', 'signature', 'frames', 'input'):
            if key not in r:
                fail(f'report line without "{key}"')
    total = sum(json.loads(l)['count'] for l in outs[0][1].splitlines())
    if total != lines:
        fail(f'buckets count {total} reports, NDJSON has {lines}')
    print(f'jobs: {lines} reports, {outs[0][1].count(chr(10))} buckets, identical at --jobs 1, 2 and 4')


def check_reingest(btaudit, repo, shared, work):
    db = os.path.join(work, 'r.db')
    batch(btaudit, ['-q', '-o', 'none', '--db', db, *corpus_dirs(repo, shared)])
    first = canonical_db(db)
    r = batch(btaudit, ['-o', os.path.join(work, 'again.ndjson'), '--db', db, *corpus_dirs(repo, shared)])
    second = canonical_db(db)
    if first != second:
        fail('the second run changed the database')
    if open(os.path.join(work, 'again.ndjson')).read():
        fail('the second run analyzed inputs already in the database')
    if 'already in the database' not in r.stderr:
        fail('the summary does not count inputs already in the database: ' + r.stderr)
    # buckets --db agrees with the run's own bucket summary
    buck = os.path.join(work, 'b.ndjson')
    batch(btaudit, ['-q', '-o', 'none', '--buckets', buck, *corpus_dirs(repo, shared)])
    stored = run([btaudit, 'buckets', '--db', db, '--format', 'json', '--top', '0'])
    if stored.returncode != 0:
        fail('buckets --db failed: ' + stored.stderr)
    a = sorted((b['signature'], b['count']) for b in map(json.loads, stored.stdout.splitlines()))
    b = sorted((x['signature'], x['count']) for x in map(json.loads, open(buck).read().splitlines()))
    if a != b:
        fail('buckets --db differs from batch --buckets')
    print(f'reingest: {len(first["inputs"])} inputs, {len(first["reports"])} reports, second run added 0 rows')


def interrupted_run(btaudit, corpus, db, sig):
    p = subprocess.Popen([btaudit, 'batch', '--progress', 'never', '-q', '-j', '2', '-o', 'none', '--db', db,
                          '--commit-every', '20', corpus], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 300
    while db_inputs(db) < 60 and p.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    if p.poll() is not None:
        fail(f'the run ended (exit {p.returncode}) before it could be interrupted; make the corpus larger')
    p.send_signal(sig)
    p.wait(timeout=300)
    return p.returncode


def check_kill(btaudit, repo, shared, work, sig=signal.SIGKILL):
    corpus, n = replicated_corpus(repo, work, 400)
    whole = os.path.join(work, 'whole.db')
    batch(btaudit, ['-q', '-o', 'none', '--db', whole, corpus])
    db = os.path.join(work, 'killed.db')
    rc = interrupted_run(btaudit, corpus, db, sig)
    want = -signal.SIGKILL if sig == signal.SIGKILL else 130
    if rc != want:
        fail(f'interrupted run exited {rc}, expected {want}')
    kept = db_inputs(db)
    if not 0 < kept < n:
        fail(f'interrupted run kept {kept} of {n} inputs: not a mid-run interruption')
    # Whatever it committed is whole: every stored input has all its reports.
    con = sqlite3.connect(db)
    bad = con.execute('SELECT COUNT(*) FROM inputs i WHERE reports != '
                      '(SELECT COUNT(*) FROM reports r WHERE r.path = i.path)').fetchone()[0]
    con.close()
    if bad:
        fail(f'{bad} inputs stored without all their reports')
    r = batch(btaudit, ['-o', 'none', '--db', db, corpus])
    if canonical_db(db) != canonical_db(whole):
        fail('the resumed database differs from the uninterrupted one')
    print(f'{"kill -9" if sig == signal.SIGKILL else "SIGINT"} after {kept} of {n} inputs, rerun: same database as '
          f'an uninterrupted run ({r.stderr.strip().splitlines()[-1]})')


def check_parallel(btaudit, repo, shared, work):
    if not shutil.which('parallel'):
        print('GNU parallel not installed: skipped')
        sys.exit(77)
    files = []
    for d in corpus_dirs(repo, shared):
        for root, dirs, names in os.walk(d):
            dirs.sort()
            files += [os.path.join(root, n) for n in sorted(names)]
    single = os.path.join(work, 'single.ndjson')
    batch(btaudit, ['-q', '-o', os.path.join(work, 'single-reports.ndjson'), '--buckets', single,
                    *corpus_dirs(repo, shared)])
    parts = os.path.join(work, 'parts')
    os.makedirs(parts)
    # Three job slots on "this host" named as a remote login would be (-S 3/:), each
    # taking slices of up to 50 inputs: what a --sshlogin run over several hosts does. Without
    # ../shared only corpora/ is there (a dozen files): its slices are smaller, so that the
    # merge still has four or more parts to join.
    per_slice = max(1, min(50, len(files) // 4))
    cmd = ['parallel', '--will-cite', '-S', '3/:', '-N', str(per_slice), btaudit, 'batch', '--progress', 'never', '-q',
           '-j', '1', '-o', os.path.join(parts, 'reports-{#}.ndjson'), '--buckets',
           os.path.join(parts, 'buckets-{#}.ndjson'), '{}']
    r = subprocess.run(cmd, input='\n'.join(files) + '\n', capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        fail(f'parallel exited {r.returncode}: {r.stderr.strip()[:500]}')
    bucket_parts = sorted(os.path.join(parts, f) for f in os.listdir(parts) if f.startswith('buckets-'))
    report_parts = sorted(os.path.join(parts, f) for f in os.listdir(parts) if f.startswith('reports-'))
    if len(bucket_parts) < 2:
        fail('parallel ran fewer than two slices')
    for name, inputs in (('bucket summaries', bucket_parts), ('NDJSON reports', report_parts)):
        m = run([btaudit, 'merge', *inputs])
        if m.returncode != 0:
            fail(f'merge of {name} failed: {m.stderr}')
        if m.stdout != open(single).read():
            fail(f'merge of {len(inputs)} {name} differs from the single run\'s buckets')
    # Merging is associative: merge(merge(a, b), c) == merge(a, b, c).
    half = os.path.join(work, 'half.ndjson')
    run([btaudit, 'merge', '-o', half, *bucket_parts[:2]])
    m = run([btaudit, 'merge', half, *bucket_parts[2:]])
    if m.stdout != open(single).read():
        fail('merging in two steps differs from the single run')
    print(f'parallel: {len(bucket_parts)} slices over {len(files)} inputs, merged = single run '
          f'({open(single).read().count(chr(10))} buckets)')


def check_badinput(btaudit, repo, shared, work):
    d = os.path.join(work, 'bad')
    os.makedirs(d)
    good = open(os.path.join(repo, 'corpora', 'warn-4.0.log'), 'rb').read()
    open(os.path.join(d, 'a-good.log'), 'wb').write(good)
    open(os.path.join(d, 'b-binary'), 'wb').write(open(btaudit, 'rb').read()[:65536])
    gz = gzip.compress(good * 20)
    open(os.path.join(d, 'c-truncated.log.gz'), 'wb').write(gz[:len(gz) // 2])
    open(os.path.join(d, 'd-hugeline.log'), 'wb').write(good + b'x' * (3 << 20) + b'\n' + good)
    open(os.path.join(d, 'e-empty.log'), 'wb').write(b'')
    os.mkfifo(os.path.join(d, 'f-fifo'))
    mail_body = good.decode()
    qp = mail_body.replace('=', '=3D')
    mbox = ('From syzbot Mon Jan  1 00:00:00 2024\nMessage-ID: <one@example>\nSubject: [syzbot] WARNING in dev_watchdog\n'
            '\n' + mail_body + '\nFrom other Mon Jan  1 00:00:00 2024\nMessage-ID: <two@example>\n'
            'Subject: Re: oops\nContent-Transfer-Encoding: quoted-printable\n\n' + qp + '\n')
    open(os.path.join(d, 'g-list.mbox'), 'w').write(mbox)
    open(os.path.join(d, 'h-random'), 'wb').write(os.urandom(20000))
    out = os.path.join(work, 'bad.ndjson')
    r = batch(btaudit, ['-o', out, d])
    summary = r.stderr.strip().splitlines()[-1]
    for want in ('8 inputs', '5 skipped', '2 binary', '1 huge line', '1 truncated', '1 not a regular file',
                 '2 mails', '3 reports'):
        if want not in summary:
            fail(f'summary lacks "{want}": {summary}')
    reports = [json.loads(l) for l in open(out)]
    paths = [x['input']['path'] for x in reports]
    if paths.count(os.path.join(d, 'g-list.mbox')) != 2 or paths.count(os.path.join(d, 'a-good.log')) != 1:
        fail(f'reports came from the wrong inputs: {paths}')
    mails = [x for x in reports if 'mail' in x]
    if [m['mail']['message_id'] for m in mails] != ['<one@example>', '<two@example>']:
        fail('mail reports lack their Message-IDs')
    if mails[0]['title'] != mails[1]['title'] or mails[0]['title'] != reports[0]['title']:
        fail('the quoted-printable mail was not decoded into the same report')
    if mails[0]['input']['first_line'] != 5:
        fail(f'the first mail\'s report starts at mbox line {mails[0]["input"]["first_line"]}, expected 5')
    # A missing argument is an error (exit 2) but the other inputs are still analyzed.
    r = batch(btaudit, ['-q', '-o', 'none', os.path.join(d, 'nonexistent'), d], ok=(2,))
    if 'nonexistent: cannot open' not in r.stderr:
        fail('no one-line error for the missing argument: ' + r.stderr)
    print(f'badinput: {summary}')


def check_debuginfo(btaudit, repo, shared, work, vmlinux):
    logs = os.path.join(repo, '..', 'shared', 'lab', 'logs')
    if not vmlinux or not os.path.exists(vmlinux) or not os.path.isdir(logs):
        print('lab vmlinux or console logs absent: skipped')
        sys.exit(77)
    plain, rich = os.path.join(work, 'plain.ndjson'), os.path.join(work, 'rich.ndjson')
    batch(btaudit, ['-q', '-o', 'none', '--buckets', plain, logs])
    out = os.path.join(work, 'rich-reports.ndjson')
    batch(btaudit, ['-q', '-j', '2', '-o', out, '--buckets', rich, '--vmlinux', vmlinux, logs])
    if open(plain).read() != open(rich).read():
        a = {json.loads(l)['signature'] for l in open(plain)}
        b = {json.loads(l)['signature'] for l in open(rich)}
        if a != b:
            fail('--vmlinux changed the buckets\' signatures')
    frames = sourced = 0
    for line in open(out):
        for f in json.loads(line)['frames']:
            if f.get('module') or f.get('function') is None:
                continue
            frames += 1
            sourced += bool(f.get('source'))
    if frames == 0 or sourced < frames * 0.9:
        fail(f'only {sourced} of {frames} vmlinux frames got a source line with --vmlinux')
    print(f'debuginfo: {sourced}/{frames} vmlinux frames symbolized across workers; buckets unchanged')


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 64
    btaudit, repo, check = sys.argv[1], sys.argv[2], sys.argv[3]
    opts = dict(zip(sys.argv[4::2], sys.argv[5::2]))
    shared = opts.get('--shared')
    vmlinux = opts.get('--vmlinux')
    with tempfile.TemporaryDirectory() as work:
        {'jobs': check_jobs, 'reingest': check_reingest, 'kill': check_kill, 'parallel': check_parallel,
         'badinput': check_badinput,
         'debuginfo': lambda *a: check_debuginfo(*a, vmlinux=vmlinux),
         'interrupt': lambda *a: check_kill(*a, sig=signal.SIGINT)}[check](btaudit, repo, shared, work)
    return 0


if __name__ == '__main__':
    sys.exit(main())
