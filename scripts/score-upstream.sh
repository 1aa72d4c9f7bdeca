#!/usr/bin/env bash
# Scores btaudit on the FULL test data of the projects the shared corpora sample (about half of
# each is held back from ../shared/corpora as an acceptance set): the way to see whether a rule
# generalises before the held-back half does. Not part of CI (it needs the repositories).
#
# Usage: scripts/score-upstream.sh BTAUDIT MIRRORS [SCORE_PY]
#   MIRRORS holds bare git repositories (as the search tool's fetch leaves them,
#   MIRRORS/<owner>+<name>/repo): google+syzkaller, clearlinux+telemetrics-client,
#   abrt+satyr, abrt+abrt, intel+lkp-tests, kernelci+logspec, Linaro+squad. Missing ones are skipped.
#   SCORE_PY: ../shared/tools/score.py by default.
# Expectations that upstream keeps in test code, not data, are transcribed here the way the
# shared corpora transcribe them: telemetrics-client's tests/check_probes.c ("#N frame"
# asserts per oops file), satyr's tests/koops_stacktrace.c (the test_data table), logspec's
# tests/test_*.py (pytest's parametrize literals) and squad's test_linux_log_parser.py (its
# assertIn lines, in tests/corpus/squad_rates.py).
set -euo pipefail
btaudit=$(realpath "$1")
mirrors=$(realpath "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
score=${3:-$root/../shared/tools/score.py}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# extract OWNER+NAME PATH DEST: PATH of the repository's HEAD into DEST (mkdir'ed).
extract() {
  local git=$mirrors/$1/repo
  [ -d "$git" ] || { echo "($1 not under $mirrors: skipped)"; return 1; }
  mkdir -p "$3"
  git --git-dir="$git" archive HEAD "$2" | tar -x -C "$3" -f -
}

if extract google+syzkaller pkg/report/testdata/linux "$work/s"; then
  mkdir -p "$work/up/syzkaller"
  mv "$work/s/pkg/report/testdata/linux" "$work/up/syzkaller/linux"
  python3 "$score" "$btaudit" titles --corpora "$work/up" || true
  python3 "$score" "$btaudit" signatures --corpora "$work/up" || true
  python3 "$root/tests/corpus/guilty_rates.py" "$btaudit" --corpora "$work/up" | tail -1 || true
fi

if extract clearlinux+telemetrics-client tests "$work/t"; then
  mkdir -p "$work/tc/telemetrics-client/expected"
  mv "$work/t/tests" "$work/tc/telemetrics-client/tests"
  python3 - "$work/tc/telemetrics-client" <<'EOF'
import json, re, sys
root = sys.argv[1]
src = open(f'{root}/tests/check_probes.c').read()
for block in re.split(r'START_TEST\(', src)[1:]:
    name = block.split(')')[0]
    m = re.search(r'TESTOOPSDIR "/([^"]+)"', block)
    frames = re.findall(r'strstr\(pl->str, "(#\d+ [^"]*)"\)', block)
    if m and frames:
        json.dump({'file': 'tests/oops_test_files/' + m.group(1), 'test': name, 'expected_frames_substrings': frames},
                  open(f'{root}/expected/{m.group(1)}.expected.json', 'w'), indent=1)
EOF
  python3 "$score" "$btaudit" frames --corpora "$work/tc" || true
fi

have_frames=
if extract abrt+satyr tests "$work/sa"; then
  mkdir -p "$work/fr/satyr/expected"
  mv "$work/sa/tests/kerneloopses" "$work/fr/satyr/kerneloopses"
  python3 - "$work/sa/tests/koops_stacktrace.c" "$work/fr/satyr/expected" <<'EOF'
import re, sys
src = re.sub(r'/\*.*?\*/', '', open(sys.argv[1]).read(), flags=re.S)
body = src[src.index('test_koops_stacktrace_parse(void)'):]
row = r'\{"(kerneloopses/[^"]+)",\s*(NULL|"[^"]*"),\s*(NULL|"[^"]*"),\s*(\d+),\s*(\d+),\s*(\d+),\s*(NULL|"[^"]*"),\s*(NULL|"[^"]*")\}'
head = 'file\tfirst_function\tlast_function\tframe_count\ttaint_count\tmodule_count\tfirst_frame_stack\tlast_frame_stack\n'
for m in re.finditer(row, body):
    vals = ['' if v == 'NULL' else v.strip('"') for v in m.groups()]
    open(f'{sys.argv[2]}/{vals[0].split("/")[1]}.expected.tsv', 'w').write(head + '\t'.join(vals) + '\n')
EOF
  have_frames=1
fi
if extract intel+lkp-tests spec/fixtures/dmesg/calltrace "$work/fr/lkp-tests"; then have_frames=1; fi
if [ -n "$have_frames" ]; then python3 "$root/tests/corpus/frame_rates.py" "$btaudit" --corpora "$work/fr" | tail -3 || true; fi

# logspec keeps its expectations in pytest's parametrize literals: each becomes the
# logspec/expected/<log>.expected.json the shared corpora hold for the visible half.
if extract kernelci+logspec tests "$work/ls/logspec"; then
  mkdir -p "$work/ls/logspec/expected"
  python3 - "$work/ls/logspec" <<'EOF_LOGSPEC'
import ast, json, sys
root = sys.argv[1]
# test_kbuild.py's logs are kernel builds: the errors it names are the compiler's and modpost's,
# none the kernel's, so every report btaudit makes of them holds none (a build tool's words).
for test, sub in [('test_linux_boot.py', 'linux_boot'), ('test_baseline.py', 'test_baseline'),
                  ('test_kselftest.py', 'test_kselftest'), ('test_kbuild.py', 'kbuild')]:
    for node in ast.walk(ast.parse(open(f'{root}/tests/{test}').read())):
        if isinstance(node, ast.Call) and getattr(node.func, 'attr', '') == 'parametrize':
            names = [n.strip() for n in ast.literal_eval(node.args[0]).split(',')]
            for row in ast.literal_eval(node.args[1]):
                d = dict(zip(names, row))
                json.dump({'log_file': f"tests/logs/{sub}/{d['log_file']}", 'parser_id': d.get('parser_id'),
                           'expected': d['expected']},
                          open(f"{root}/expected/{d['log_file']}.expected.json", 'w'), indent=1)
EOF_LOGSPEC
  python3 "$score" "$btaudit" frames --corpora "$work/ls" | sed 's/telemetrics-client, //' || true
  python3 "$root/tests/corpus/logspec_rates.py" "$btaudit" --corpora "$work/ls" | tail -1 || true
fi

if extract Linaro+squad test/plugins/linux_log_parser "$work/sq/squad"; then
  python3 "$root/tests/corpus/squad_rates.py" "$btaudit" --corpora "$work/sq" | tail -1 || true
fi

if extract abrt+abrt tests/examples "$work/ab/abrt"; then
  python3 "$root/tests/corpus/detection_rates.py" "$btaudit" --corpora "$work/ab" | tail -1 || true
fi
