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
