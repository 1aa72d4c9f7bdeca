#!/usr/bin/env python3
"""Metamorphic robustness of the text front end.

Every sample of corpora/ and of the shared corpora is read into printk records (level, time,
caller id, message), re-emitted under each transformation below, and analyzed; each variant
must give the same reports (kind, title, frames with their marks, stacks and verdicts,
guilty frame, corrupted flag, signature) as the plain dmesg form carrying the same facts.
A transport that cannot carry a fact (journalctl short-iso has no kernel time, the journal
no caller id) is compared with the plain form without it. A difference is a front-end bug.

  metamorphic.py BTAUDIT [--corpora DIR] [--sample N] [-v]
--sample N takes every Nth sample (the ASan build in CI); the plain build runs all of them.
Exits 0 when every variant of every sample agrees, 77 when no sample is found.
"""
import argparse, json, os, re, subprocess, sys, tempfile

PREFIX = re.compile(r'^(?:<(\d)>)?(?:\[\s*(\d+)\.(\d+)\])?(?:\s?\[\s*([TC])(\d+)\])?(?: |$)?')
SYSLOG = re.compile(r'^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ (\S+?)(?:\[\d+\])?: ?')
DMESG_X = re.compile(r'^[a-z]+\s*:[a-z]+\s*: ')
MONTHS = 'Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec'.split()


def records(text):
    """The sample as (level, usec, caller, message) records; None for a field it lacks."""
    out = []
    for raw in re.split(r'\r\n|\n|\r', text):
        line = raw
        m = SYSLOG.match(line)
        if m:
            if m.group(1) not in ('kernel', 'vmunix'):
                continue  # another program's line: not the kernel's record
            line = line[m.end():]
        line = DMESG_X.sub('', line, count=1)
        m = PREFIX.match(line)
        level = usec = caller = None
        if m and (m.group(2) or m.group(4) or m.group(1)):
            level = m.group(1)
            if m.group(2):
                frac = (m.group(3) + '000000')[:6]
                usec = int(m.group(2)) * 1000000 + int(frac)
            if m.group(4):
                caller = m.group(4) + m.group(5)
            line = line[m.end():]
        out.append((level, usec, caller, line))
    while out and out[-1][3] == '' and out[-1][1] is None:
        out.pop()
    if not any(r[1] is not None for r in out):
        # A console without printk times: every transport that carries one (dmesg, /dev/kmsg,
        # the journal) is tried with times made up here, against the plain form with the same times.
        out = [(lv, 1000000 + 1000 * i, c, m) for i, (lv, _, c, m) in enumerate(out)]
    return out


def ts(usec):
    return '[%5d.%06d]' % (usec // 1000000, usec % 1000000)


def plain(recs, keep_ts=True, keep_caller=True):
    lines = []
    for level, usec, caller, msg in recs:
        p = ''
        if keep_ts and usec is not None:
            p += ts(usec)
        if keep_caller and caller:
            p += '[%6s]' % caller
        lines.append(p + (' ' if p else '') + msg)
    return '\n'.join(lines) + '\n'


def need(recs):
    return any(r[1] is not None for r in recs), any(r[2] for r in recs)


def human(usec):
    s = usec // 1000000
    return '[Mon Jan %2d %02d:%02d:%02d 2024]' % (1 + s // 86400 % 28, s // 3600 % 24, s // 60 % 60, s % 60)


def kmsg_escape(msg):
    out = []
    for b in msg.encode('utf-8', 'surrogateescape'):
        out.append('\\x%02x' % b if b < 32 or b >= 127 or b == 92 else chr(b))
    return ''.join(out)


def v_dmesg_T(recs):
    return '\n'.join((human(u) + ' ' if u is not None else '') + ('[%6s] ' % c if c else '') + m
                     for _, u, c, m in recs) + '\n'


def v_kmsg(recs):
    lines = []
    for i, (lv, u, c, m) in enumerate(recs):
        if u is None:
            # Not a kernel record (user space sharing the console, a note of the capture tool):
            # /dev/kmsg has no such record, a console capture keeps it as it was.
            lines.append(m)
            continue
        head = '%s,%d,%d,-' % (lv or '4', i, u)
        if c:
            head += ',caller=' + c
        lines.append(head + ';' + kmsg_escape(m))
        if i % 5 == 0:
            lines.append(' SUBSYSTEM=btaudit')
            lines.append(' DEVICE=+btaudit:test')
    return '\n'.join(lines) + '\n'


def v_rfc3164(recs):
    out = []
    for i, (lv, u, c, m) in enumerate(recs):
        p = (ts(u) + ' ' if u is not None else '') + ('[%6s] ' % c if c else '')
        out.append('Jan  1 00:00:%02d host kernel: %s%s' % (i % 60, p, m))
        if i % 9 == 4:
            out.append('Jan  1 00:00:%02d host systemd[1]: Started btaudit-noise.service.' % (i % 60))
    return '\n'.join(out) + '\n'


def v_rfc5424(recs):
    out = []
    for i, (lv, u, c, m) in enumerate(recs):
        p = (ts(u) + ' ' if u is not None else '') + ('[%6s] ' % c if c else '')
        out.append('<%d>1 2024-01-01T00:00:%02d.000000+00:00 host kernel - - - %s%s' % (int(lv or 4), i % 60, p, m))
    return '\n'.join(out) + '\n'


def v_short_iso(recs):
    return '\n'.join('2024-01-01T00:00:%02d+0000 host kernel: %s' % (i % 60, m)
                     for i, (_, _, _, m) in enumerate(recs)) + '\n'


def v_json(recs):
    out = []
    for i, (lv, u, c, m) in enumerate(recs):
        rec = {'__CURSOR': 's=%d' % i, 'PRIORITY': lv or '4', '_TRANSPORT': 'kernel', 'MESSAGE': m}
        if u is not None:
            rec['_SOURCE_MONOTONIC_TIMESTAMP'] = str(u)
        out.append(json.dumps(rec))
        if i % 11 == 3:
            out.append(json.dumps({'MESSAGE': 'Started btaudit-noise.service.', '_TRANSPORT': 'journal'}))
    return '\n'.join(out) + '\n'


def v_tab(recs):
    return '\n'.join(('[\t%d.%06d]' % (u // 1000000, u % 1000000) if u is not None else '') +
                     ('[%s]' % c if c else '') + m for _, u, c, m in recs) + '\n'


def v_levels(recs):
    return '\n'.join('<%s>' % (lv or '4') + (ts(u) + ' ' if u is not None else '') + ('[%6s] ' % c if c else '') + m
                     for lv, u, c, m in recs) + '\n'


def v_caller_layout(recs):
    # printk's other caller-id layout: "[ts] [T12] msg" rather than "[ts][   T12] msg".
    return '\n'.join((ts(u) + ' ' if u is not None else '') + ('[%s] ' % c if c else '') + m
                     for _, u, c, m in recs) + '\n'


def v_crlf(recs):
    return plain(recs).replace('\n', '\r\n')


def v_cr(recs):
    return plain(recs).replace('\n', '\r')


def v_noise(recs):
    # A serial console shared with user space (systemd's coloured status lines) and a
    # netconsole listener's own notes: lines that are not the kernel's.
    out = []
    for i, line in enumerate(plain(recs).split('\n')[:-1]):
        out.append(line)
        if i % 13 == 6:
            out.append('[\x1b[0;32m  OK  \x1b[0m] Started btaudit-noise.service.' if i % 2 else
                       '[\x1b[0;1;31mFAILED\x1b[0m] Failed to start btaudit-noise.service.')
    return '\n'.join(out) + '\n'


def v_pstore(recs):
    # /sys/fs/pstore/dmesg-ramoops-N: a header line, then "<N>[ts] msg" records.
    return 'Panic#1 Part1\n' + v_levels(recs)


# journalctl's short forms (systemd src/shared/logs-show.c, output_short): a "-- Boot --" note,
# then "TIME HOST IDENT[PID]: message", other programs' records among the kernel's.
def journal(recs, stamp, monotonic):
    # The journal holds records only, each with its times: a sample with console lines that are
    # no kernel record (user space, "** N printk messages dropped **") has no monotonic form.
    if monotonic and any(u is None for _, u, _, _ in recs):
        return None
    out = ['-- Boot 0123456789abcdef0123456789abcdef --']
    for i, (lv, u, c, m) in enumerate(recs):
        out.append('%s host kernel: %s' % (stamp(i, u), m))
        if i % 9 == 4:
            out.append('%s host systemd[1]: Started btaudit-noise.service.' % stamp(i, u))
    return '\n'.join(out) + '\n'


def mono(u):
    return '[%5d.%06d]' % (u // 1000000, u % 1000000)


def v_short_monotonic(recs):
    return journal(recs, lambda i, u: mono(u), True)


def v_short_delta(recs):
    return journal(recs, lambda i, u: '[%5d.%06d <%5d.%06d>]' % (u // 1000000, u % 1000000, 0, i), True)


def v_short_full(recs):
    return journal(recs, lambda i, u: 'Mon 2024-01-01 00:%02d:%02d UTC' % (i // 60 % 60, i % 60), False)


def v_short_unix(recs):
    return journal(recs, lambda i, u: '%d.%06d' % (1704067200 + i, i), False)


# journalctl on a terminal: the message of a record at LOG_ERR or above in bold red, at
# LOG_WARNING in bold yellow, at LOG_NOTICE bold (logs-show.c, get_highlight_colors).
COLOURS = {'0': '\x1b[0;1;31m', '1': '\x1b[0;1;31m', '2': '\x1b[0;1;31m', '3': '\x1b[0;1;31m',
           '4': '\x1b[0;1;38;5;185m', '5': '\x1b[0;1;39m'}


def v_journal_colour(recs):
    out = []
    for i, (lv, u, c, m) in enumerate(recs):
        on = COLOURS.get(lv or '4', '')
        out.append('Jan 01 00:00:%02d host kernel: %s%s%s' % (i % 60, on, m, '\x1b[0m' if on else ''))
    return '\n'.join(out) + '\n'


# crash's `log -m` and `log -c -m` on a dump (crash printk.c, dump_record): the time, the caller
# id, then the record's level as "<%x>" with no space before the message. Records only.
def v_crash_log(recs):
    if any(u is None for _, u, _, _ in recs):
        return None
    return '\n'.join(ts(u) + ' ' + ('[%6s] ' % c if c else '') + '<%x>' % int(lv or '4') + m
                     for lv, u, c, m in recs) + '\n'


# A report quoted in a mail reply (RFC 3676 section 4.5): "> " before each line, ">" alone before
# an empty one; a second level as one client writes it ("> > ") and as another does (">> ").
def v_mail_quote(recs):
    return '\n'.join(('> ' + line) if line else '>' for line in plain(recs).split('\n')[:-1]) + '\n'


def v_mail_quote_nested(recs):
    lines = plain(recs).split('\n')[:-1]
    return '\n'.join((('> > ' if i % 2 else '>> ') + line) if line else '>>' for i, line in enumerate(lines)) + '\n'


# util-linux dmesg --json (2.38+; "caller" from 2.39), as its JSON writer lays records out
# (lib/jsonwrt.c): the time as printk's "%5ld.%06ld", raw. Records only.
def v_dmesg_json(recs):
    if any(u is None for _, u, _, _ in recs):
        return None
    objs = []
    for lv, u, c, m in recs:
        fields = ['"pri": %d' % int(lv or '4'), '"time": %12s' % ('%d.%06d' % (u // 1000000, u % 1000000))]
        if c:
            fields.append('"caller": "%s"' % c)
        fields.append('"msg": ' + json.dumps(m))
        objs.append('      {\n' + ',\n'.join('         ' + f for f in fields) + '\n      }')
    return '{\n   "dmesg": [\n' + ',\n'.join(objs) + '\n   ]\n}\n'


# netconsole's extended records with the target's `release` option and its sysdata lines
# (drivers/net/netconsole.c: "%s,%s" of the release and the record; " cpu=%u", " taskname=%s").
def v_netconsole_release(recs):
    out = []
    for i, (lv, u, c, m) in enumerate(recs):
        if u is None:
            out.append(m)  # a console line among the records, as in v_kmsg
            continue
        head = '6.4.0-rc5-btaudit+,%s,%d,%d,-' % (lv or '4', i, u) + (',caller=' + c if c else '')
        out.append(head + ';' + kmsg_escape(m))
        out.append(' cpu=0')
        out.append(' taskname=syz-executor')
    return '\n'.join(out) + '\n'


# name -> (emit, carries kernel time, carries caller ids)
VARIANTS = {
    'dmesg-T': (v_dmesg_T, True, True),
    'kmsg': (v_kmsg, True, True),
    'syslog-rfc3164': (v_rfc3164, True, True),
    'syslog-rfc5424': (v_rfc5424, True, True),
    'journal-short-iso': (v_short_iso, False, False),
    'journal-json': (v_json, True, False),
    'tab-no-space': (v_tab, True, True),
    'levels': (v_levels, True, True),
    'caller-layout': (v_caller_layout, True, True),
    'crlf': (v_crlf, True, True),
    'cr-only': (v_cr, True, True),
    'console-noise': (v_noise, True, True),
    'pstore': (v_pstore, True, True),
    'journal-short-monotonic': (v_short_monotonic, True, False),
    'journal-short-delta': (v_short_delta, True, False),
    'journal-short-full': (v_short_full, False, False),
    'journal-short-unix': (v_short_unix, False, False),
    'journal-colour': (v_journal_colour, False, False),
    'crash-log-c-m': (v_crash_log, True, True),
    'mail-quote': (v_mail_quote, True, True),
    'mail-quote-nested': (v_mail_quote_nested, True, True),
    'dmesg-json': (v_dmesg_json, True, True),
    'netconsole-release': (v_netconsole_release, True, True),
}

# util-linux's own dmesg, reading the records from a file (-F: syslog(2)'s "<N>[time] message",
# the caller id in the message as a console prints it), in each of its output forms
# (sys-utils/dmesg.c, print_record): name -> (options, carries kernel time, carries caller ids).
DMESG_VARIANTS = {
    'dmesg-colour': (['--color=always'], True, True),
    'dmesg-x': (['-x'], True, True),
    'dmesg-delta': (['-d'], True, True),
    'dmesg-reltime': (['-e'], True, True),
    'dmesg-ctime-delta': (['-T', '-d'], True, True),
    'dmesg-delta-only': (['--time-format=delta'], True, True),
    'dmesg-iso': (['--time-format=iso'], True, True),
    'dmesg-x-notime-colour': (['-x', '-t', '--color=always'], False, True),
}


# systemd's own journalctl, on a journal file systemd-journal-remote writes from the sample's
# records (Journal Export Format on its standard input), in each of its output forms:
# name -> (options, carries kernel time, carries caller ids). The journal keeps no caller id.
JOURNAL_VARIANTS = {
    'journalctl-short': (['-o', 'short'], False, False),
    'journalctl-short-precise': (['-o', 'short-precise'], False, False),
    'journalctl-short-iso-precise': (['-o', 'short-iso-precise'], False, False),
    'journalctl-short-full': (['-o', 'short-full'], False, False),
    'journalctl-short-unix': (['-o', 'short-unix'], False, False),
    'journalctl-short-monotonic': (['-o', 'short-monotonic'], True, False),
    'journalctl-short-delta': (['-o', 'short-delta'], True, False),
    'journalctl-with-unit': (['-o', 'with-unit'], False, False),
    'journalctl-cat': (['-o', 'cat'], False, False),
    'journalctl-verbose': (['-o', 'verbose'], True, False),
    'journalctl-export': (['-o', 'export'], True, False),
    'journalctl-json': (['-o', 'json'], True, False),
    'journalctl-json-pretty': (['-o', 'json-pretty'], True, False),
    'journalctl-json-seq': (['-o', 'json-seq'], True, False),
    'journalctl-json-sse': (['-o', 'json-sse'], True, False),
    'journalctl-colour': (['-o', 'short'], False, False),  # SYSTEMD_COLORS=1: warnings in bold colour
}
JOURNAL_REMOTE = [p for p in ('/lib/systemd/systemd-journal-remote', '/usr/lib/systemd/systemd-journal-remote')
                  if os.access(p, os.X_OK)]


def journal_export(recs):
    """The records in the Journal Export Format, as the kernel's transport stores them."""
    out = []
    for i, (lv, u, c, m) in enumerate(recs):
        fields = ['__REALTIME_TIMESTAMP=%d' % (1704067200000000 + u), '__MONOTONIC_TIMESTAMP=%d' % u,
                  '_BOOT_ID=0123456789abcdef0123456789abcdef', '_TRANSPORT=kernel', 'PRIORITY=%s' % (lv or '4'),
                  'SYSLOG_FACILITY=0', 'SYSLOG_IDENTIFIER=kernel', '_HOSTNAME=host',
                  '_SOURCE_MONOTONIC_TIMESTAMP=%d' % u]
        data = ('\n'.join(fields) + '\n').encode()
        msg = m.encode('utf-8', 'surrogateescape')
        if b'\n' in msg:
            data += b'MESSAGE\n' + len(msg).to_bytes(8, 'little') + msg + b'\n'
        else:
            data += b'MESSAGE=' + msg + b'\n'
        out.append(data)
    return b'\n'.join(out) + b'\n'


def journal_file(recs, path):
    """False when systemd-journal-remote does not write the journal."""
    if os.path.exists(path):
        os.unlink(path)
    r = subprocess.run([JOURNAL_REMOTE[0], '-o', path, '-'], input=journal_export(recs), capture_output=True,
                       timeout=60)
    return r.returncode == 0 and os.path.exists(path)


def journal_variant(journal, name, options, out_path):
    env = dict(os.environ, TZ='UTC', LC_ALL='C.UTF-8', SYSTEMD_COLORS='1' if name.endswith('colour') else '0')
    with open(out_path, 'wb') as out:
        r = subprocess.run(['journalctl', '--file', journal, '--no-pager', '--all', *options], stdout=out,
                           stderr=subprocess.DEVNULL, timeout=60, env=env)
    return r.returncode == 0


def dmesg_works():
    try:
        with tempfile.NamedTemporaryFile('w', suffix='.raw') as f:
            f.write('<4>[    1.000000] probe\n')
            f.flush()
            r = subprocess.run(['dmesg', '--noescape', '-F', f.name], capture_output=True, timeout=30)
            return r.returncode == 0 and b'probe' in r.stdout
    except (OSError, subprocess.SubprocessError):
        return False


def dmesg_variant(raw_path, options, out_path):
    """False when dmesg itself fails on the sample (2.38.1 segfaults on a few records with -x -t)."""
    with open(out_path, 'wb') as out:
        r = subprocess.run(['dmesg', '--noescape', '-F', raw_path, *options], stdout=out, stderr=subprocess.DEVNULL,
                           timeout=60, env=dict(os.environ, TZ='UTC', LC_ALL='C'))
    return r.returncode == 0


def samples(repo, corpora):
    out = []
    for name in sorted(os.listdir(os.path.join(repo, 'corpora'))):
        if name.endswith('.log'):
            out.append(('corpora/' + name, open(os.path.join(repo, 'corpora', name), 'rb').read()))
    index = os.path.join(corpora, 'index.tsv')
    if os.path.exists(index):
        for row in open(index, encoding='utf-8', errors='replace').read().split('\n')[1:]:
            f = row.split('\t')
            if len(f) < 3 or 'input' not in f[2]:
                continue
            raw = open(os.path.join(corpora, f[1]), 'rb').read()
            if f[1].startswith('syzkaller/linux/report/'):
                raw = raw[1:] if raw.startswith(b'\n') else raw.partition(b'\n\n')[2]
                raw = raw.split(b'\n\nREPORT:\n')[0]
            out.append((f[1], raw))
    return out


def key(rep):
    frames = [(f.get('function'), f.get('offset'), f.get('module'), f.get('printed_unreliable'), f.get('stack'),
               f.get('verdict'), f.get('reason')) for f in rep.get('frames', [])]
    g = rep.get('guilty') or {}
    guilty = (g.get('function'), g.get('offset'), g.get('module'), g.get('stack'), g.get('verdict'))
    # Line numbers are left out: a transport adds or removes lines (headers, dictionaries, noise).
    return {'kind': rep.get('kind'), 'title': rep.get('title'), 'frames': frames, 'guilty': guilty,
            'corrupted': rep.get('corrupted'), 'signature': rep.get('signature'), 'cpu': rep.get('cpu'),
            'kaslr_offset': rep.get('kaslr_offset')}


def analyze(btaudit, paths):
    out = {}
    for i in range(0, len(paths), 200):
        chunk = paths[i:i + 200]
        r = subprocess.run([btaudit, 'analyze', '--format', 'json', *chunk], capture_output=True, timeout=600)
        doc = json.loads(r.stdout)
        for rep in doc.get('reports', []):
            out.setdefault(rep.get('input', {}).get('path'), []).append(key(rep))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('btaudit')
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.normpath(os.path.join(here, '..', '..'))
    ap.add_argument('--corpora', default=os.path.join(repo, '..', 'shared', 'corpora'))
    ap.add_argument('--sample', type=int, default=1)
    ap.add_argument('-v', '--verbose', action='store_true')
    a = ap.parse_args()
    all_samples = samples(repo, a.corpora)[::max(1, a.sample)]
    if not all_samples:
        print('no samples found: skipped')
        return 77
    use_dmesg = dmesg_works()
    if not use_dmesg:
        print('util-linux dmesg -F not usable here: its %d forms are left out' % len(DMESG_VARIANTS))
    use_journal = bool(JOURNAL_REMOTE) and subprocess.run(['journalctl', '--version'], capture_output=True).returncode == 0
    if not use_journal:
        print('systemd-journal-remote or journalctl missing: their %d forms are left out' % len(JOURNAL_VARIANTS))
    names = (list(VARIANTS) + (list(DMESG_VARIANTS) if use_dmesg else []) +
             (list(JOURNAL_VARIANTS) if use_journal else []))
    dmesg_failed = []
    with tempfile.TemporaryDirectory() as work:
        jobs = []  # (sample, variant, path, reference path)
        paths = []
        for n, (rel, raw) in enumerate(all_samples):
            recs = records(raw.decode('utf-8', 'surrogateescape'))
            has_ts, has_caller = need(recs)
            refs = {}
            for t in (True, False):
                for c in (True, False):
                    p = os.path.join(work, '%d.plain-%d%d.log' % (n, t, c))
                    open(p, 'w', encoding='utf-8', errors='surrogateescape').write(plain(recs, t, c))
                    refs[(t, c)] = p
                    paths.append(p)
            for name, (emit, t, c) in VARIANTS.items():
                text = emit(recs)
                if text is None:
                    continue  # no such form of this sample
                p = os.path.join(work, '%d.%s.log' % (n, name))
                with open(p, 'w', encoding='utf-8', errors='surrogateescape', newline='') as f:
                    f.write(text)
                paths.append(p)
                jobs.append((rel, name, p, refs[(t, c)]))
            # dmesg prints kernel records only, each with its time: a sample holding lines of
            # another kind (user space on the console, "** N printk messages dropped **") has no
            # such form.
            if use_dmesg and all(r[1] is not None for r in recs):
                raw_path = os.path.join(work, '%d.raw' % n)
                with open(raw_path, 'w', encoding='utf-8', errors='surrogateescape', newline='') as f:
                    f.write(v_levels(recs))
                journal = os.path.join(work, 'sample.journal')  # 8 MiB each: one at a time
                if use_journal and journal_file(recs, journal):
                    for name, (options, t, c) in JOURNAL_VARIANTS.items():
                        p = os.path.join(work, '%d.%s.log' % (n, name))
                        if journal_variant(journal, name, options, p):
                            paths.append(p)
                            jobs.append((rel, name, p, refs[(t, c)]))
                    os.unlink(journal)
                for name, (options, t, c) in DMESG_VARIANTS.items():
                    p = os.path.join(work, '%d.%s.log' % (n, name))
                    if not dmesg_variant(raw_path, options, p):
                        dmesg_failed.append('%s (%s)' % (rel, name))
                        continue
                    paths.append(p)
                    jobs.append((rel, name, p, refs[(t, c)]))
        got = analyze(a.btaudit, paths)
        failures = {}
        for rel, name, p, ref in jobs:
            if got.get(p, []) != got.get(ref, []):
                failures.setdefault(name, []).append(rel)
        total = len(jobs)
        bad = sum(len(v) for v in failures.values())
        made = {}
        for _, name, _, _ in jobs:
            made[name] = made.get(name, 0) + 1
        for name in names:
            f = failures.get(name, [])
            print('%-20s %d/%d identical%s' % (name, made.get(name, 0) - len(f), made.get(name, 0),
                                                (': ' + ', '.join(f[:5]) + (' ...' if len(f) > 5 else '')) if f else ''))
            if a.verbose:
                for rel in f:
                    print('   ', rel)
        if dmesg_failed:
            print('dmesg itself failed on %d: %s' % (len(dmesg_failed), ', '.join(dmesg_failed[:5])))
        print('%d samples x %d transformations: %d identical, %d different' %
              (len(all_samples), len(names), total - bad, bad))
        print('%d passed, %d failed' % (total - bad, bad))
        return 0 if bad == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
