#!/usr/bin/env python3
"""The include graph of src/ and plugins/, checked against the project's layers.

  scripts/include_graph.py [ROOT] [--dot FILE]

One folder is one layer's library (src/CMakeLists.txt). Every `#include "folder/file.h"`
is an edge; the checks:
  1. no edge from a lower layer to a higher one, and none between two folders of one
     layer except those listed in SAME_LAYER;
  2. render/, dump_render/ and store/ include only model/ (and render/'s own utilities);
  3. one symbol struct: no struct named *Symbol but model/symbol.h's Symbol;
  4. one place for "return address - 1": no symbol, source or ORC lookup of an address
     minus one outside provider/return_address.h.
Prints the edges between folders and every violation; exit 1 on any. --dot writes the
folder graph for Graphviz.
"""
import argparse, collections, os, re, sys

# folder -> layer, lowest first (README "Layout").
LAYERS = {
    'model': 0, 'memory': 0, 'disasm': 0,
    'provider': 1,
    'text': 2, 'input': 2, 'debuginfo': 2, 'vmcore': 2,
    'unwind': 3,
    'analysis': 4,
    'render': 5, 'dump_render': 5, 'store': 5,
    'batch': 6,
    'cli': 7, 'plugins': 7,
}
SAME_LAYER = {('dump_render', 'render')}  # the dump renderer uses the report renderer's utilities
ONLY = {  # folders whose includes are restricted to these folders
    'render': {'model', 'render'},
    'dump_render': {'model', 'render', 'dump_render'},
    'store': {'model', 'store'},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SYMBOL_STRUCT = re.compile(r'\bstruct\s+(\w*Symbol)\s*(?:final\s*)?\{')
# A lookup of "something - 1": the %pB rule written out instead of symbol_lookup_address().
MINUS_ONE = re.compile(r'\b(kallsyms_at|symbol_at|describe_source|find|lookup)\(\s*[^()]*?\s-\s*1\s*\)|'
                       r'lookup_address\s*=\s*[^;]*\s-\s*1\s*;')
RET_MINUS_ONE_HOME = 'src/provider/return_address.h'


def folder_of(rel):
    parts = rel.split('/')
    if parts[0] == 'plugins':
        return 'plugins'
    return parts[1] if parts[0] == 'src' and len(parts) > 2 else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('root', nargs='?', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    ap.add_argument('--dot')
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    edges = collections.Counter()
    problems = []
    files = 0
    for top in ('src', 'plugins'):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if not n.endswith(('.h', '.cpp', '.c')):
                    continue
                path = os.path.join(dirpath, n)
                rel = os.path.relpath(path, root)
                src = folder_of(rel)
                if src is None:
                    continue
                files += 1
                text = open(path, errors='replace').read()
                for lineno, line in enumerate(text.splitlines(), 1):
                    m = INCLUDE.match(line)
                    if m and '/' in m.group(1):
                        dst = m.group(1).split('/')[0]
                        if dst not in LAYERS:
                            continue
                        if dst != src:
                            edges[(src, dst)] += 1
                        where = f'{rel}:{lineno}: includes {m.group(1)}'
                        if src in ONLY and dst not in ONLY[src]:
                            problems.append(f'{where}: {src}/ may include only {", ".join(sorted(ONLY[src]))}')
                        elif LAYERS[dst] > LAYERS[src]:
                            problems.append(f'{where}: {src} (layer {LAYERS[src]}) must not use {dst} '
                                            f'(layer {LAYERS[dst]})')
                        elif LAYERS[dst] == LAYERS[src] and dst != src and (src, dst) not in SAME_LAYER:
                            problems.append(f'{where}: {src} and {dst} are one layer apart from each other')
                    for s in SYMBOL_STRUCT.finditer(line):
                        if rel != 'src/model/symbol.h':
                            problems.append(f'{rel}:{lineno}: struct {s.group(1)}: the one symbol struct is '
                                            'model/symbol.h\'s Symbol (and its borrowed form SymbolView)')
                    if MINUS_ONE.search(line) and rel != RET_MINUS_ONE_HOME:
                        problems.append(f'{rel}:{lineno}: a lookup of "address - 1": use symbol_lookup_address() '
                                        f'({RET_MINUS_ONE_HOME})')
    by_src = collections.defaultdict(list)
    for (s, d), n in sorted(edges.items()):
        by_src[s].append(f'{d}({n})')
    for s in sorted(by_src, key=lambda f: (LAYERS[f], f)):
        print(f'  {s:12s} layer {LAYERS[s]} -> {", ".join(by_src[s])}')
    if args.dot:
        with open(args.dot, 'w') as f:
            f.write('digraph btaudit {\n  rankdir=BT;\n')
            for (s, d), n in sorted(edges.items()):
                f.write(f'  "{s}" -> "{d}" [label={n}];\n')
            f.write('}\n')
    for p in problems:
        print('include_graph: ' + p)
    print(f'include_graph: {files} files, {sum(edges.values())} includes across {len(edges)} folder pairs, '
          f'{len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
