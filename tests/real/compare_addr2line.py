#!/usr/bin/env python3
"""Compares btaudit's symbolization with eu-addr2line's on real kernel reports.

  compare_addr2line.py BTAUDIT VMLINUX LOG... [--modules DIR]

For every frame btaudit symbolized, the same address goes through one
`eu-addr2line -a -i -f` call; the innermost function, file:line:column and
every inlined caller (function and call location) must be equal. Prints one
line per log and a total; exits 1 on any difference.

Where eu-addr2line finds no CU ("??:0": libdw trusts .debug_aranges, which a clang-built
kernel writes for its assembler's CUs only), LLVM's llvm-addr2line, which reads each CU's own
ranges, is the reference instead: functions and file:line (it prints no column). (binutils 2.40's
addr2line reads those CUs too, but drops the inline chain of clang's DWARF 5 at many addresses.)
"""
import argparse, os, json, re, shutil, subprocess, sys


def addr2line(binary, addresses):
    out = subprocess.run(['eu-addr2line', '-a', '-i', '-f', '-e', binary] + [hex(a) for a in addresses],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    result, cur = {}, None
    i = 0
    while i < len(out):
        line = out[i]
        if line.startswith('0x') and ' ' not in line:
            cur = int(line, 16)
            result[cur] = []
            i += 1
            continue
        name = line.split(' inlined at ')[0]
        loc = out[i + 1] if i + 1 < len(out) else ''
        result[cur].append((name, loc))
        i += 2
    return result


def llvm_addr2line_tool():
    """llvm-addr2line, unversioned or the newest versioned one on PATH (Debian's llvm-NN), or None."""
    if shutil.which('llvm-addr2line'):
        return 'llvm-addr2line'
    for v in range(30, 10, -1):
        if shutil.which(f'llvm-addr2line-{v}'):
            return f'llvm-addr2line-{v}'
    return None


def ranges_addr2line(tool, binary, addresses):
    """`TOOL -a -i -f` (llvm-addr2line's GNU output): {address: [(function, file:line), ...]}."""
    if not addresses:
        return {}
    out = subprocess.run([tool, '-a', '-i', '-f', '-e', binary] + [hex(a) for a in addresses],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    result, cur, i = {}, None, 0
    while i < len(out):
        if re.fullmatch(r'0x[0-9a-f]+', out[i]):
            cur = int(out[i], 16)
            result[cur] = []
            i += 1
            continue
        where = re.sub(r' \(discriminator \d+\)$', '', out[i + 1] if i + 1 < len(out) else '')
        result[cur].append((out[i], where))
        i += 2
    return result


def without_column(location):
    return re.sub(r'^(.*:\d+):\d+$', r'\1', location)


def loc(s):
    if not s or not s.get('file'):
        return '??:0'
    text = f"{s['file']}:{s['line']}"
    return text + (f":{s['column']}" if s.get('column') else '')


def outside_scopes(frame):
    """A frame whose return address - 1 is not in a function's own code.

    function_start frames ("? __pfx_f+0x10/0x10", a pointer to f's first byte, e.g. a
    wait-queue callback left on the stack): the byte before is call padding, which the
    DWARF of gcc 12 leaves inside the previous function's inlined scopes while the line
    table gives f's first line. btaudit describes f itself (its first line, no inline
    chain); eu-addr2line mixes the two. ".part"/".cold" clones: past their DWARF ranges."""
    name = frame['function']
    return frame.get('reason') == 'function_start' or '.part.' in name or '.cold' in name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('btaudit')
    ap.add_argument('vmlinux')
    ap.add_argument('logs', nargs='+')
    ap.add_argument('--modules')
    a = ap.parse_args()
    if not os.path.exists(a.vmlinux):
        print(f'{a.vmlinux} is absent: skipped (../shared/lab/make-lab.sh install brings it)')
        sys.exit(77)
    logs = [l for l in a.logs if os.path.exists(l)]
    if not logs:
        print('no lab console logs: skipped')
        sys.exit(77)
    total = same = 0
    bad = []
    llvm = llvm_addr2line_tool()
    compared_by_ranges = []  # frames whose CU eu-addr2line did not find: compared with llvm-addr2line
    known = []
    for log in logs:
        cmd = [a.btaudit, 'analyze', '--format', 'json', '--vmlinux', a.vmlinux, log]
        if a.modules:
            cmd += ['--modules', a.modules]
        doc = json.loads(subprocess.run(cmd, capture_output=True, text=True).stdout)
        frames = [f for r in doc['reports'] for f in r['frames'] if f.get('source') is not None and not f.get('module')]
        if not frames:
            print(f'{log}: no symbolized frames')
            continue
        want = addr2line(a.vmlinux, sorted({f['debug_address'] - 1 for f in frames}))
        no_cu = sorted(addr for addr, chain in want.items() if chain and chain[0][1].startswith('??:'))
        if no_cu and not llvm:
            print(f'{log}: eu-addr2line finds no CU for {len(no_cu)} addresses and no llvm-addr2line is here: skipped')
            sys.exit(77)
        by_ranges = ranges_addr2line(llvm, a.vmlinux, no_cu)
        n_same = 0
        for f in frames:
            got = [(f.get('source_function') or f['function'], loc(f['source']))]
            got += [(c['function'], loc(c)) for c in f['inlined']]
            exp = want.get(f['debug_address'] - 1, [])
            if f['debug_address'] - 1 in by_ranges:
                exp = by_ranges[f['debug_address'] - 1]
                got = [(name, without_column(where)) for name, where in got]
                compared_by_ranges.append(f['function'])
            # eu-addr2line prints "??" for a function DWARF names only through
            # DW_AT_abstract_origin (".part"/".isra" clones); btaudit follows
            # the origin. Any name matches "??"; locations must be equal.
            if len(got) == len(exp) and all((e[0] == '??' or g[0] == e[0]) and g[1] == e[1]
                                            for g, e in zip(got, exp)):
                n_same += 1
            elif len(got) == 1 and exp and got[0][1] == exp[0][1] and outside_scopes(f):
                known.append((log, f['function'], f['offset']))
            else:
                bad.append((log, f['function'], f['offset'], got, exp))
        total += len(frames)
        same += n_same
        print(f'{log}: {n_same}/{len(frames)} frames equal to eu-addr2line')
    for k in known:
        print('known difference (the byte before is not the function\'s own code; see outside_scopes):', k)
    for b in bad[:20]:
        print('differs:', b)
    if compared_by_ranges:
        print(f'{len(compared_by_ranges)} frames compared with {llvm} (eu-addr2line found no CU for them)')
    print(f'symbolization equal to eu-addr2line: {same}/{total} frames ({100.0 * same / max(1, total):.1f}%)')
    # Known difference (outside_scopes): the byte before the address is not the
    # function's own code -- call padding before a function_start frame's target,
    # or past a ".part" clone's DWARF ranges -- and eu-addr2line 0.188 prints the
    # inline chain of a neighbouring range while btaudit prints none; the line agrees.
    # Every other frame must be equal, and the known ones stay rare.
    sys.exit(0 if total and same + len(known) == total and len(known) <= 0.01 * total else 1)


if __name__ == '__main__':
    main()
