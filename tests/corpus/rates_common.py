"""What the corpus rate scripts share: their command line and btaudit's reports of one log."""
import argparse, json, os, subprocess


def arguments():
    """BTAUDIT [--corpora DIR] [-v]; DIR defaults to ../shared/corpora beside the checkout."""
    ap = argparse.ArgumentParser()
    ap.add_argument('btaudit')
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument('--corpora', default=os.path.join(here, '..', '..', '..', 'shared', 'corpora'))
    ap.add_argument('-v', '--verbose', action='store_true')
    return ap.parse_args()


def reports_of(btaudit, path, timeout=300):
    """btaudit's JSON reports of `path` (raises CalledProcessError when it fails)."""
    r = subprocess.run([btaudit, 'analyze', '--format', 'json', path], capture_output=True, timeout=timeout)
    if r.returncode != 0:
        raise subprocess.CalledProcessError(r.returncode, r.args, r.stdout, r.stderr)
    return json.loads(r.stdout).get('reports', [])


def report_spans(btaudit, path):
    """The reports of `path` and the text of each one's input lines (first_line..last_line)."""
    lines = open(path, 'rb').read().decode('utf-8', 'replace').split('\n')
    reports = reports_of(btaudit, path)
    return reports, ['\n'.join(lines[rep['input']['first_line'] - 1:rep['input']['last_line']]) for rep in reports]
