"""Options every real-lab check takes after its positional arguments, so that one script
serves the Debian 6.1 lab (vmlinux found by release under /usr/lib/debug) and the labs
built from source (vmlinux in the lab's own kernel/ folder).

  --vmlinux PATH   passed to every `btaudit vmcore` call
  --modules DIR    the same (the lab's own modules' debuginfo, for the reports of a dump's log)
"""
import sys


def split_vmcore_options(argv):
    """(positional arguments, extra `btaudit vmcore` arguments) from argv[1:]."""
    args, extra = [], []
    it = iter(argv[1:])
    for a in it:
        if a in ('--vmlinux', '--modules'):
            extra += [a, next(it)]
        else:
            args.append(a)
    return args, extra


def lab_dump_names(dumps):
    """The ELF and kdump-compressed dumps in a lab's vmcores folder, sorted; exits 77 (ctest's
    skip) when there are none."""
    import os
    names = sorted(n for n in (os.listdir(dumps) if os.path.isdir(dumps) else [])
                   if n.endswith(('.elf', '.kdump-zlib')))
    if not names:
        print('no lab dumps found: skipped (run ../shared/lab/make-lab.sh)')
        sys.exit(77)
    return names


def vmcore_json(btaudit, vmcore_opts, path):
    """`btaudit vmcore --format json PATH` parsed, or (None, its one-line error) when it failed."""
    import json, subprocess
    r = subprocess.run([btaudit, 'vmcore', *vmcore_opts, '--format', 'json', path], capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    return json.loads(r.stdout), None


def vmcore_docs(btaudit, vmcore_opts, dumps, failed):
    """(name, path, document) for each lab dump `btaudit vmcore --format json` reads; a dump it
    fails on is printed with its error and appended to `failed`."""
    import os
    for name in lab_dump_names(dumps):
        path = os.path.join(dumps, name)
        doc, error = vmcore_json(btaudit, vmcore_opts, path)
        if doc is None:
            print(f'{name}: btaudit vmcore failed: {error}')
            failed.append(name)
            continue
        yield name, path, doc
