#!/usr/bin/env python3
"""The reports in a real dump's kernel log are read with the dump's own vmlinux and KASLR offset.

  vmcore_log_debuginfo_check.py BTAUDIT VMCORE_DIR [--vmlinux PATH] [--modules DIR]

For every NAME.elf / NAME.kdump-zlib in VMCORE_DIR, `btaudit vmcore --format json DUMP`:
- each report of the dump's log carries the dump's KASLR offset (VMCOREINFO's: kaslr_source
  "dump", or the report's own "Kernel Offset:" line, which must agree);
- every frame of vmlinux that names a function has a code address, and that address is the
  function's ELF symbol (read here with nm, not btaudit) plus the printed offset;
- the innermost function eu-addr2line (elfutils, not btaudit's libdwfl session; llvm-addr2line
  where it finds no CU) names at the frame's lookup address is the frame's source_function (or
  its function, when none is inlined);
- with --modules (the lab's own labcrash.ko), every frame of a module found there has a code
  address and a source line, in the log's reports and in the walks of the dump's stacks alike,
  and a walk's frame has the source line of the same frame (function+offset) in a report;
- the reports are those `btaudit analyze --vmlinux V` makes of the same log (`btaudit vmcore
  DUMP log`), field by field, but for where the input came from and the KASLR offset, which a
  log alone may not tell.
Exit 77 when no dump is there (ctest skips), 1 on any difference.
"""
import json, os, subprocess, sys, tempfile

from compare_addr2line import addr2line, llvm_addr2line_tool, ranges_addr2line
from lab_args import lab_dump_names, split_vmcore_options, vmcore_docs


def nm_functions(vmlinux, cache={}):
    """name -> addresses of vmlinux's text symbols (several for a static name)."""
    if vmlinux not in cache:
        out = subprocess.run(['nm', vmlinux], capture_output=True, text=True, check=True).stdout
        table = {}
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in 'tTwW':
                table.setdefault(parts[2], set()).add(int(parts[0], 16))
        cache[vmlinux] = table
    return cache[vmlinux]


def innermost(vmlinux, addresses):
    """address -> the innermost function elfutils' eu-addr2line -i -f names there; where it finds
    no CU ("??:0": libdw trusts .debug_aranges, which clang writes for assembler CUs only),
    llvm-addr2line's, which reads each CU's ranges (compare_addr2line.py)."""
    found = addr2line(vmlinux, addresses) if addresses else {}
    result = {a: chain[0][0] for a, chain in found.items() if chain and not chain[0][1].startswith('??')}
    unfound = [a for a in addresses if a not in result]
    tool = llvm_addr2line_tool()
    if unfound and tool:
        for a, chain in ranges_addr2line(tool, vmlinux, unfound).items():
            if chain and not chain[0][1].startswith('??'):
                result[a] = chain[0][0]
    return result


(btaudit, dumps), vmcore_opts = split_vmcore_options(sys.argv)
bad = checked_frames = module_frames = 0
# The modules whose debuginfo --modules gives (each DIR's *.ko files), by the name traces print.
given = [vmcore_opts[k + 1] for k, a in enumerate(vmcore_opts) if a == '--modules']
given_modules = {n[:-3].replace('-', '_') for d in given if os.path.isdir(d) for n in os.listdir(d) if n.endswith('.ko')}
names, failed = lab_dump_names(dumps), []
with tempfile.TemporaryDirectory(prefix='btaudit-logdebug-') as tmp:
    for name, path, doc in vmcore_docs(btaudit, vmcore_opts, dumps, failed):
        dump = doc['dump']
        vmlinux, kaslr = dump['vmlinux'], dump['kaslr_offset']
        symbols = nm_functions(vmlinux)
        problems = []
        lookups = {}  # lookup address -> (report index, frame index, the function expected there)
        for i, r in enumerate(doc['reports']):
            if r.get('kaslr_offset') != kaslr or r.get('kaslr_source') not in ('dump', 'kernel_offset_line'):
                problems.append(f'report {i}: KASLR {r.get("kaslr_offset")} ({r.get("kaslr_source")}), '
                                f'the dump\'s is {kaslr}')
            for j, f in enumerate(r['frames']):
                if f['module'] in given_modules and f['function'] is not None and f['offset'] is not None:
                    module_frames += 1
                    if 'debug_address' not in f or 'source' not in f:
                        problems.append(f'report {i} frame {j} {f["function"]} [{f["module"]}]: not located '
                                        f'though its module\'s debuginfo was given')
                if f['module'] is not None or f['function'] is None or f['offset'] is None:
                    continue
                checked_frames += 1
                if 'debug_address' not in f:
                    problems.append(f'report {i} frame {j} {f["function"]}: no code address')
                    continue
                starts = {f['debug_address'] - f['offset']}
                if not starts & symbols.get(f['function'], set()):
                    problems.append(f'report {i} frame {j} {f["function"]}+{f["offset"]:#x}: address '
                                    f'{f["debug_address"]:#x} is not the symbol\'s (nm) plus the offset')
                # A return address is looked up one byte back (the call), as the symbolizer does.
                at = f['debug_address'] - (1 if f['offset'] > 0 else 0)
                lookups[at] = (i, j, f.get('source_function') or f['function'])
        # The walks' frames of the given modules: located, and as the reports' same frames.
        printed = {(f['module'], f['function'], f['offset']): f.get('source') for r in doc['reports']
                   for f in r['frames'] if f['module'] in given_modules}
        for walk in doc['cpus'] + doc.get('tasks', []):
            for f in walk['frames']:
                # The padding and kCFI hash before a function (__pfx_f, __cfi_f) have no source line.
                if f.get('module') not in given_modules or f.get('function') is None or \
                        f['function'].startswith(('__pfx_', '__cfi_')):
                    continue
                module_frames += 1
                key = (f['module'], f['function'], f['offset'])
                if not f.get('source'):
                    problems.append(f'walk of CPU {walk.get("cpu")}: {f["function"]}+{f["offset"]:#x} '
                                    f'[{f["module"]}] has no source line though its debuginfo was given')
                elif key in printed and printed[key] != f['source']:
                    problems.append(f'walk of CPU {walk.get("cpu")}: {f["function"]}+{f["offset"]:#x} '
                                    f'[{f["module"]}] at {f["source"]}, the report\'s same frame at {printed[key]}')
        named = innermost(vmlinux, sorted(lookups))
        for at, (i, j, want) in lookups.items():
            if named.get(at, want) != want:
                problems.append(f'report {i} frame {j}: addr2line names {named.get(at)} at {at:#x}, '
                                f'btaudit {want}')
        # Entry assembly has no DWARF of its own: no more than a few frames go uncompared.
        if len(lookups) - len(named) > max(3, len(lookups) // 10):
            problems.append(f'addr2line located {len(named)} of {len(lookups)} frames only')
        # The same log through the text front end, with the same vmlinux.
        log = os.path.join(tmp, name + '.log')
        with open(log, 'w') as out:
            subprocess.run([btaudit, 'vmcore', *vmcore_opts, path, 'log'], stdout=out, check=True)
        modules_tree = f'/usr/lib/debug/lib/modules/{dump["release"]}'
        extra = [a for d in given for a in ('--modules', d)]
        extra += ['--modules', modules_tree] if os.path.isdir(modules_tree) else []
        text = subprocess.run([btaudit, 'analyze', '--vmlinux', vmlinux, *extra, '--format', 'json', log],
                              capture_output=True, text=True)
        text_reports = json.loads(text.stdout)['reports'] if text.returncode == 0 else []
        if len(text_reports) != len(doc['reports']):
            problems.append(f'{len(doc["reports"])} reports in the dump, {len(text_reports)} from its log as text')
        ignored = {'input', 'kernel_offset', 'kaslr_offset', 'kaslr_source', 'kaslr_agreeing_frames'}
        for i, (a, b) in enumerate(zip(doc['reports'], text_reports)):
            for key in sorted((set(a) | set(b)) - ignored):
                if a.get(key) != b.get(key):
                    problems.append(f'report {i}: {key} differs from the text front end\'s: '
                                    f'{str(a.get(key))[:160]} != {str(b.get(key))[:160]}')
        for p in problems[:20]:
            print(f'{name}: {p}')
        bad += bool(problems)
        print(f'{name}: {len(doc["reports"])} reports, {len(lookups)} vmlinux frames located, {len(named)} compared'
              + ('' if problems else ', as nm, eu-addr2line and the text front end have them'))
bad += len(failed)
print(f'{len(names) - bad}/{len(names)} dumps: the log\'s reports read with the dump\'s vmlinux and KASLR '
      f'({checked_frames} vmlinux frames, {module_frames} of the given modules)')
sys.exit(1 if bad else 0)
