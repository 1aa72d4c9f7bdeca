#!/usr/bin/env python3
"""Kernel debuginfo through a real debuginfod server, with /usr/lib/debug hidden.

  debuginfod_check.py BTAUDIT VMLINUX LAB_DIR LOG... [--debuginfod PATH]

Starts Debian's `debuginfod -F` on 127.0.0.1 and a free port over a folder
holding (symlinks to) the lab's debug vmlinux and labcrash.ko, and a kernel
root like an installed system: boot/vmlinuz-<release> (the lab's image) and a
stripped labcrash.ko under lib/modules/<release>. Then, with --debug-dir
pointing at an empty folder, checks that:
  - analyze --debuginfod gives every lab log the same reports (frames,
    sources, inlined calls, call sites, verdicts, titles) as --vmlinux with
    the local file and the unstripped module;
  - vmcore --debuginfod opens every lab dump (vmlinux by VMCOREINFO BUILD-ID)
    and prints the same walk as with the local vmlinux;
  - batch --debuginfod writes the same NDJSON reports as batch --vmlinux;
  - a download on a terminal shows a progress line;
  - no server, a build id the server lacks, and a server that never answers
    each give one line naming the problem, and exit 2.
One server and one client cache serve every case (the first download of the
590 MB vmlinux is the slow part; the figures are printed). Exit 77 when the
debuginfod package, the lab vmlinux, the module or the logs are absent.
"""
import argparse, json, os, pty, select, shutil, socket, subprocess, sys, tempfile, threading, time, urllib.request

ap = argparse.ArgumentParser()
ap.add_argument('btaudit')
ap.add_argument('vmlinux')
ap.add_argument('lab')
ap.add_argument('logs', nargs='*')
ap.add_argument('--debuginfod', default=shutil.which('debuginfod') or '')
args = ap.parse_args()

module = os.path.join(args.lab, 'labcrash', 'labcrash.ko')
logs = [l for l in args.logs if os.path.exists(l)]
missing = [what for what, ok in [('debuginfod (apt-get install debuginfod)', os.path.exists(args.debuginfod or '/x')),
                                  (args.vmlinux, os.path.exists(args.vmlinux)), (module, os.path.exists(module)),
                                  ('lab logs', bool(logs))] if not ok]
if missing:
    print('skipped: missing ' + ', '.join(missing))
    sys.exit(77)

release = os.path.basename(args.vmlinux)[len('vmlinux-'):]
image = os.path.join(args.lab, 'kpkg', 'boot', 'vmlinuz-' + release)
dumps_dir = os.path.join(args.lab, 'vmcores')
dumps = sorted(os.path.join(dumps_dir, n) for n in (os.listdir(dumps_dir) if os.path.isdir(dumps_dir) else [])
               if n.endswith('.kdump-zlib') and os.access(os.path.join(dumps_dir, n), os.R_OK))
problems = []
figures = []


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run(cmd, env=None, timeout=900):
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)


def check(ok, what):
    if not ok:
        problems.append(what)
        print('PROBLEM: ' + what)
    return ok


work = tempfile.mkdtemp(prefix='btaudit-debuginfod-')
server = None
try:
    files = os.path.join(work, 'served')
    os.makedirs(files)
    os.symlink(os.path.abspath(args.vmlinux), os.path.join(files, os.path.basename(args.vmlinux)))
    os.symlink(os.path.abspath(module), os.path.join(files, 'labcrash.ko'))
    empty = os.path.join(work, 'empty-debug-dir')
    os.makedirs(empty)
    # An installed system's view: the release's image, and its module stripped of DWARF.
    root = os.path.join(work, 'root')
    moddir = os.path.join(root, 'lib', 'modules', release, 'extra')
    os.makedirs(moddir)
    os.makedirs(os.path.join(root, 'boot'))
    if os.path.exists(image):
        os.symlink(os.path.abspath(image), os.path.join(root, 'boot', 'vmlinuz-' + release))
    stripped = os.path.join(moddir, 'labcrash.ko')
    subprocess.run(['objcopy', '--strip-debug', module, stripped], check=True)
    local_modules = os.path.join(work, 'local-modules')
    os.makedirs(local_modules)
    shutil.copy(module, local_modules)

    port = free_port()
    url = f'http://127.0.0.1:{port}'
    t0 = time.time()
    server = subprocess.Popen([args.debuginfod, '-F', '-L', '--disable-source-scan', '-t', '0', '-g', '0',
                               '-d', os.path.join(work, 'server.sqlite'), '-p', str(port), files],
                              stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, 'server.log'), 'w'))
    # Ready when its traversal is done and both files are scanned.
    scanned = False
    for _ in range(600):
        if server.poll() is not None:
            break
        try:
            metrics = urllib.request.urlopen(url + '/metrics', timeout=5).read().decode()
            scanned = ('scanned_files_total{source="file"} 2' in metrics and 'thread_busy{role="scan"} 0' in metrics
                       and 'thread_work_pending{role="scan"} 0' in metrics)
        except OSError:
            pass
        if scanned:
            break
        time.sleep(0.2)
    if not check(scanned, f'debuginfod did not index {files} (see {work}/server.log)'):
        sys.exit(1)
    figures.append(f'server up and indexed in {time.time() - t0:.1f} s')

    env = dict(os.environ, DEBUGINFOD_CACHE_PATH=os.path.join(work, 'cache'), DEBUGINFOD_TIMEOUT='60')
    env.pop('DEBUGINFOD_URLS', None)
    via_server = ['--debuginfod', url, '--debug-dir', empty, '--kernel-root', root]
    dump_via_server = ['--debuginfod', url, '--debug-dir', empty]  # a dump names its own build id

    # analyze: every lab log, the same reports as with the local files.
    def comparable(doc):
        reports = json.loads(doc)['reports']
        for r in reports:
            r.pop('debug_warnings', None)
        return reports

    if check(os.path.exists(image), f'{image} absent: analyze by release cannot find the build id'):
        t1 = time.time()
        for i, log in enumerate(logs):
            got = run([args.btaudit, 'analyze', '--format', 'json', *via_server, log], env=env)
            if i == 0:
                figures.append(f'first analyze (image build id, 590 MB vmlinux download) {time.time() - t1:.1f} s')
            want = run([args.btaudit, 'analyze', '--format', 'json', '--vmlinux', args.vmlinux, '--modules',
                        local_modules, log])
            name = os.path.basename(log)
            if not check(got.returncode == 0, f'analyze {name} through debuginfod: exit {got.returncode}: {got.stderr}'):
                continue
            a, b = comparable(got.stdout), comparable(want.stdout)
            frames = sum(len(r['frames']) for r in a)
            sourced = sum(1 for r in a for f in r['frames'] if f.get('source'))
            check(a == b, f'analyze {name}: reports through debuginfod differ from the local vmlinux')
            check(sourced > 0, f'analyze {name}: no frame has a source line through debuginfod')
            if a == b:
                print(f'analyze {name}: {len(a)} reports, {frames} frames, {sourced} with sources: identical')
        figures.append(f'analyze of {len(logs)} lab logs through the server {time.time() - t1:.1f} s (cache warm after the first)')

    # vmcore: vmlinux by the dump's VMCOREINFO BUILD-ID.
    t2 = time.time()
    for d in dumps:
        got = run([args.btaudit, 'vmcore', *dump_via_server, d, 'bt'], env=env)
        want = run([args.btaudit, 'vmcore', d, 'bt'])
        name = os.path.basename(d)
        # The header names the vmlinux used: the client's cache file instead of the local one.
        cache_file = os.path.join(env['DEBUGINFOD_CACHE_PATH'], '')
        vm_line = [l for l in got.stdout.splitlines() if l.startswith('vmlinux: ')]
        check(bool(vm_line) and vm_line[0].startswith('vmlinux: ' + cache_file),
              f'vmcore {name}: vmlinux not from the client cache: {vm_line}')
        strip = lambda out: '\n'.join(l for l in out.splitlines() if not l.startswith('vmlinux: '))
        if check(got.returncode == 0 and strip(got.stdout) == strip(want.stdout) and got.stdout,
                 f'vmcore {name} bt through debuginfod: exit {got.returncode}, '
                 f'{"same" if strip(got.stdout) == strip(want.stdout) else "different"} output: {got.stderr.strip()}'):
            print(f'vmcore {name} bt: identical through debuginfod')
    if dumps:
        figures.append(f'vmcore bt of {len(dumps)} dumps through the server {time.time() - t2:.1f} s')
    else:
        print(f'no readable dumps in {dumps_dir}: the vmcore case is skipped')

    # batch: the same NDJSON as with the local files.
    if os.path.exists(image):
        out_a, out_b = os.path.join(work, 'a.ndjson'), os.path.join(work, 'b.ndjson')
        got = run([args.btaudit, 'batch', '-j', '2', '-q', '-o', out_a, *via_server, *logs], env=env)
        want = run([args.btaudit, 'batch', '-j', '2', '-q', '-o', out_b, '--vmlinux', args.vmlinux, '--modules',
                    local_modules, *logs])

        def lines(p):
            out = []
            for line in open(p):
                r = json.loads(line)
                r.pop('debug_warnings', None)
                out.append(json.dumps(r, sort_keys=True))
            return sorted(out)

        if check(got.returncode == 0 and want.returncode == 0, f'batch exit {got.returncode}/{want.returncode}: '
                                                               f'{got.stderr.strip()} {want.stderr.strip()}'):
            if check(lines(out_a) == lines(out_b), 'batch --debuginfod NDJSON differs from batch --vmlinux'):
                print(f'batch: {len(lines(out_a))} reports identical through debuginfod')

    # A download on a terminal shows a progress line (the module, into a fresh cache).
    pty_env = dict(env, DEBUGINFOD_CACHE_PATH=os.path.join(work, 'cache-tty'))
    module_log = next((l for l in logs if 'labcrash' in open(l, errors='replace').read()), logs[0])
    pid, fd = pty.fork()
    if pid == 0:  # the child: btaudit with its standard error on the terminal, or nothing at all
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            os.execve(args.btaudit, [args.btaudit, 'analyze', '--vmlinux', args.vmlinux, '--debuginfod', url,
                                     '--kernel-root', root, module_log], pty_env)
        finally:
            os._exit(127)
    seen = b''
    deadline = time.time() + 300
    while time.time() < deadline:
        r, _, _ = select.select([fd], [], [], 1)
        if not r:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.waitpid(pid, 0)
    check(b'debuginfod: downloading module labcrash' in seen,
          f'no progress line on a terminal: {seen.decode(errors="replace")[-300:]!r}')

    # Errors: one line each, exit 2.
    err_env = dict(env, DEBUGINFOD_CACHE_PATH=os.path.join(work, 'cache-errors'), DEBUGINFOD_TIMEOUT='2')
    fake = os.path.join(work, 'fake-build-id.log')
    with open(fake, 'w') as f:
        f.write('[ 1.0] WARNING: CPU: 0 PID: 1 at kernel/x.c:1 foo+0x1/0x10\n'
                '[ 1.0] CPU: 0 PID: 1 Comm: init Not tainted 6.13.0 #1 ' + 'ab' * 20 + '\n'
                '[ 1.0] RIP: 0010:foo+0x1/0x10\n[ 1.0] Call Trace:\n[ 1.0]  <TASK>\n'
                '[ 1.0]  bar+0x2/0x20\n[ 1.0]  </TASK>\n[ 1.0] ---[ end trace 0000000000000000 ]---\n')
    silent = socket.socket()
    silent.bind(('127.0.0.1', 0))
    silent.listen(8)
    held = []
    stop = threading.Event()

    def hold():  # accepts and never answers: a server that hangs
        silent.settimeout(0.5)
        while not stop.is_set():
            try:
                held.append(silent.accept()[0])
            except OSError:
                pass

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    cases = [
        ('no server', f'http://127.0.0.1:{free_port()}', 'no debuginfod server answered'),
        ('404', url, 'not found on'),
        ('timeout', f'http://127.0.0.1:{silent.getsockname()[1]}', 'timed out'),
    ]
    for label, server_url, want in cases:
        t = time.time()
        # A cache of its own per case: the client remembers a miss for 10 minutes (cache_miss_s).
        case_env = dict(err_env, DEBUGINFOD_CACHE_PATH=os.path.join(work, 'cache-' + label.replace(' ', '-')))
        r = run([args.btaudit, 'analyze', '--debuginfod', server_url, '--debug-dir', empty, fake], env=case_env,
                timeout=120)
        lines_ = [l for l in r.stderr.splitlines() if 'debuginfod:' in l]
        if check(r.returncode == 2 and len(lines_) == 1 and want in lines_[0] and 'ab' * 20 in lines_[0],
                 f'{label}: exit {r.returncode}, stderr {r.stderr.strip()!r} (want exit 2, one line with {want!r})'):
            print(f'{label}: {lines_[0]}  ({time.time() - t:.1f} s)')
    stop.set()
    holder.join()
    for c in held:
        c.close()
    silent.close()
    r = run([args.btaudit, 'analyze', '--debuginfod', 'none', '--vmlinux', 'auto', '--debug-dir', empty, fake],
            env=dict(err_env, DEBUGINFOD_URLS=url))
    check(r.returncode == 0 and 'debuginfod:' not in r.stderr, f'--debuginfod none still asked: {r.stderr.strip()!r}')
finally:
    if server:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
    shutil.rmtree(work, ignore_errors=True)

for f in figures:
    print('figure: ' + f)
print(f'debuginfod: {len(problems)} problems')
sys.exit(1 if problems else 0)
