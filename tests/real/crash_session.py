"""One crash 8.0.2 session per lab dump, shared by the checks that ask crash about it.

crash's start-up (its gdb reading the debug vmlinux's DWARF, then crash's own kernel
tables) costs about 10 s of CPU per dump on the Debian 6.1 lab; the commands the checks
run after it cost about a second each. So every check that needs crash on a dump runs
the same session -- SESSION_COMMANDS, everything any of them asks -- and, given a cache
folder, keeps its outputs there under a key of everything the outputs depend on (the
crash binary, the vmlinux, the dump and the extension: path, size and mtime of each, and
the command list). A check that finds no entry runs the session itself, under a lock, so
two checks running at once start crash once and each check still works alone.

Without a cache folder the session runs in a temporary folder and nothing is kept.

The order of the commands: `sys` first (it says whether crash opened the dump at all),
then crash's own `bt -T -a` (words_check's oracle), and only then `extend` and the
extension's commands, so that an extension that brought crash down costs the extension's
check its outputs, not the oracle's.
"""
import fcntl, hashlib, json, os, shutil, subprocess, tempfile

# (name, command): each command's output goes to NAME.out, written by crash itself.
CRASH_COMMANDS = [('sys', 'sys'), ('bt_T', 'bt -T -a')]
# The extension's commands (crash_plugin_check.py compares them with `btaudit vmcore`).
EXTENSION_COMMANDS = [
    ('irqstate', 'btaudit irqstate'),
    ('irqstate_json', 'btaudit irqstate -j'),
    ('bt', 'btaudit bt -a'),
    ('bt_json', 'btaudit bt -a -j'),
    ('log', 'btaudit log'),
    ('log_json', 'btaudit log -j'),
    ('analyze', 'btaudit analyze'),
    ('bt_cpu1', 'btaudit bt -c 1'),
    ('bt_cpu1_json', 'btaudit bt -c 1 -j'),
    ('bt_current', 'btaudit bt'),
    ('help', 'help btaudit'),
    ('usage', 'btaudit nosuchcommand'),
]
# After them, when the lab has its own modules' debuginfo (lab_modules()): crash loads it, and the
# extension's log is asked again (crash_plugin_check.py: module frames with file:line).
# (The .ko by name: `mod -S DIR` would take kbuild's labcrash.o, whose sections libdwfl lays out
# elsewhere, so the layout addresses of module frames would differ from `--modules DIR`'s.)
MODULE_COMMANDS = [('mod', 'mod -s labcrash {modules}/labcrash.ko'), ('log_modules_json', 'btaudit log -j')]
FORMAT = 3  # bump when what a session holds changes


def lab_modules(dump):
    """The folder of the lab's labcrash.ko beside the dump's vmcores folder (make-lab.sh's and
    make-lab-src.sh's layouts), or None."""
    folder = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(dump))), 'labcrash')
    return folder if os.path.isfile(os.path.join(folder, 'labcrash.ko')) else None


def _stamp(path):
    st = os.stat(path)
    return [os.path.abspath(path), st.st_size, st.st_mtime_ns]


def _script(work, plugin, modules):
    lines = ['set scroll off'] + [f'{cmd} > {work}/{name}.out' for name, cmd in CRASH_COMMANDS]
    if plugin:
        lines.append(f'extend {plugin} > {work}/extend.out')
        lines += [f'{cmd} > {work}/{name}.out' for name, cmd in EXTENSION_COMMANDS]
        if modules:
            lines += [f'{cmd.format(modules=modules)} > {work}/{name}.out' for name, cmd in MODULE_COMMANDS]
    return '\n'.join(lines + ['q']) + '\n'


def _read(path):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except FileNotFoundError:
        return None


def _run(crash, vmlinux, dump, plugin, modules, work):
    """Runs the session in WORK; returns the document the cache keeps."""
    names = [n for n, _ in CRASH_COMMANDS] + (['extend'] + [n for n, _ in EXTENSION_COMMANDS] if plugin else [])
    names += [n for n, _ in MODULE_COMMANDS] if modules else []
    doc = {}
    for no_panic in (False, True):
        for n in names:
            if os.path.exists(f'{work}/{n}.out'):
                os.unlink(f'{work}/{n}.out')
        argv = [crash, '-s'] + (['--no_panic'] if no_panic else []) + [vmlinux, dump]
        try:
            r = subprocess.run(argv, input=_script(work, plugin, modules), capture_output=True, text=True, cwd=work,
                               env=dict(os.environ, HOME=work), timeout=900)  # HOME: no ~/.crashrc
            console, returncode = r.stdout + r.stderr, r.returncode
        except subprocess.TimeoutExpired:
            console, returncode = 'crash_session: crash did not finish in 900 s', None
        doc = {'vmlinux': vmlinux, 'no_panic': no_panic, 'console': console, 'returncode': returncode,
               'out': {n: _read(f'{work}/{n}.out') for n in names}}
        # crash 8.0.2 gives up during start-up on some dumps (stack_overflow) unless told not to
        # look for the panic task: retried with --no_panic, as make-lab.sh's validation does.
        if 'KERNEL:' in (doc['out'].get('sys') or ''):
            break
    return doc


def start_failure(doc):
    """crash's own error when it could not start on this kernel at all, else None.

    crash 8.0.2 (Debian 12) predates the 6.4 module memory layout (struct module's mem[]): it stops
    in module_init() with "invalid structure member offset: module_core_size" on every 6.4+ kernel,
    so neither its bt -T nor an extension can run in it. That is crash's limit, said as a skip,
    not a finding. The session runs `sys` before `extend`, so a start-up that never reached `sys`
    (even with --no_panic) failed without the extension."""
    if 'KERNEL:' in (doc['out'].get('sys') or ''):
        return None
    errors = [line.strip() for line in doc['console'].splitlines() if line.strip().startswith('crash:')]
    return f'it exits {doc["returncode"]} during start-up' + (f': {errors[0]}' if errors else '')


def crash_version(crash):
    out = subprocess.run([crash, '--version'], capture_output=True, text=True).stdout
    return next((v.strip() for v in out.splitlines() if v.strip()), crash)


def _drop_stale(cache, stem, suffix, keep):
    """Removes STEM.<key>SUFFIX entries other than KEEP: another build of an input made them."""
    for old in os.listdir(cache):
        key = old[len(stem) + 1:-len(suffix)] if old.startswith(stem + '.') and old.endswith(suffix) else ''
        if len(key) == 24 and all(c in '0123456789abcdef' for c in key) and old != keep:
            os.unlink(os.path.join(cache, old))


def _stem(path):
    """PATH's name and its folder's hash: two labs' dumps and vmlinuxes have the same names."""
    return f'{os.path.basename(path)}-{hashlib.sha256(os.path.dirname(path).encode()).hexdigest()[:8]}'


def indexed_vmlinux(vmlinux, cache, make):
    """A copy of VMLINUX with a .gdb_index section, made once in CACHE; VMLINUX itself when it
    cannot be made (no gdb-add-index, no room, no cache folder).

    crash's gdb builds its symbol tables from the whole DWARF at every start-up unless the
    ELF carries an index: on Debian's 6.1 debug vmlinux the index halves crash's start-up CPU
    (about 11.7 s to 5.8 s) for about 17 s of CPU once. The copy is the same ELF with one
    section more (gdb-add-index: gdb writes the index from the same DWARF, objcopy adds it);
    crash reads the same symbols and types from it and prints the same answers (bt -T -a
    byte for byte on the 6.1 lab). The extension inside crash opens the file crash was given
    and names it in its output, so a check comparing the extension with `btaudit vmcore`
    gives both the same file (the session's 'vmlinux').

    MAKE false: the copy if it is there, else VMLINUX at once (also while another thread or
    check is making it). The session makes it only after crash started on VMLINUX, so a
    kernel crash cannot open (crash 8.0.2 on 6.4+) costs no copy."""
    if not cache or not shutil.which('gdb-add-index'):
        return vmlinux
    key = hashlib.sha256(json.dumps([FORMAT, _stamp(vmlinux)]).encode()).hexdigest()[:24]
    stem = _stem(vmlinux)
    copy = os.path.join(cache, f'{stem}.{key}.indexed')
    if os.path.exists(copy) or not make:
        return copy if os.path.exists(copy) else vmlinux
    os.makedirs(cache, exist_ok=True)
    with open(copy + '.lock', 'w') as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return vmlinux  # being made by another session
        if os.path.exists(copy):
            return copy
        _drop_stale(cache, stem, '.indexed', os.path.basename(copy))
        work = copy + '.tmp'
        try:
            shutil.copyfile(vmlinux, work)
            r = subprocess.run(['gdb-add-index', work], capture_output=True, text=True, timeout=900)
            sections = subprocess.run(['readelf', '-S', '-W', work], capture_output=True, text=True).stdout
            if r.returncode != 0 or '.gdb_index' not in sections:
                raise OSError(f'gdb-add-index: {(r.stderr or r.stdout).strip()[:200]}')
            os.replace(work, copy)
        except (OSError, subprocess.SubprocessError):
            if os.path.exists(work):
                os.unlink(work)
            return vmlinux
    return copy


def session(crash, vmlinux, dump, plugin=None, cache=None):
    """The session's document: {'out': {name: text or None}, 'console', 'no_panic', 'returncode',
    'vmlinux'}: 'vmlinux' is the file crash was given (VMLINUX or its indexed copy), which the
    extension reports as its vmlinux.

    'no_panic' is True when crash had to be restarted with --no_panic; out['sys'] without
    'KERNEL:' means crash could not open the dump at all."""
    crash, vmlinux, dump = os.path.abspath(crash), os.path.abspath(vmlinux), os.path.abspath(dump)
    plugin = os.path.abspath(plugin) if plugin else None
    modules = lab_modules(dump) if plugin else None
    if not cache:
        with tempfile.TemporaryDirectory(prefix='btaudit-crash-') as work:
            return _run(crash, vmlinux, dump, plugin, modules, work)
    key_doc = [FORMAT, _stamp(crash), _stamp(vmlinux), _stamp(dump), _stamp(plugin) if plugin else None,
               CRASH_COMMANDS, EXTENSION_COMMANDS if plugin else None,
               [MODULE_COMMANDS, _stamp(os.path.join(modules, 'labcrash.ko'))] if modules else None]
    key = hashlib.sha256(json.dumps(key_doc).encode()).hexdigest()[:24]
    os.makedirs(cache, exist_ok=True)
    entry = os.path.join(cache, f'{_stem(dump)}.{key}.json')
    with open(entry + '.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other check waits for this dump's session
        try:
            with open(entry) as f:
                doc = json.load(f)
            if doc.get('key') == json.loads(json.dumps(key_doc)):  # tuples come back as lists
                return doc
        except (FileNotFoundError, ValueError):
            pass
        crash_vmlinux = indexed_vmlinux(vmlinux, cache, make=False)
        with tempfile.TemporaryDirectory(prefix='btaudit-crash-') as work:
            doc = _run(crash, crash_vmlinux, dump, plugin, modules, work)
        doc['key'] = key_doc
        # Older sessions of this dump (another plugin build, another vmlinux) are stale.
        _drop_stale(cache, _stem(dump), '.json', os.path.basename(entry))
        _drop_stale(cache, _stem(dump), '.json.lock', os.path.basename(entry) + '.lock')
        with tempfile.NamedTemporaryFile('w', dir=cache, delete=False) as f:
            json.dump(doc, f)
        os.replace(f.name, entry)
    if crash_vmlinux == vmlinux and not start_failure(doc):
        indexed_vmlinux(vmlinux, cache, make=True)  # for the next sessions on this kernel
    return doc
