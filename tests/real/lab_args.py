"""Options every real-lab check takes after its positional arguments, so that one script
serves the Debian 6.1 lab (vmlinux found by release under /usr/lib/debug) and the labs
built from source (vmlinux in the lab's own kernel/ folder).

  --vmlinux PATH   passed to every `btaudit vmcore` call
"""
import sys


def split_vmcore_options(argv):
    """(positional arguments, extra `btaudit vmcore` arguments) from argv[1:]."""
    args, extra = [], []
    it = iter(argv[1:])
    for a in it:
        if a == '--vmlinux':
            extra += ['--vmlinux', next(it)]
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
