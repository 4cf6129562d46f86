#!/usr/bin/env python3
"""Prints the import graph of pnmate's source files and every cycle in it.

Each file under src/ is a node; an edge A -> B means A names something of B's module
(`crate::x::y`, `super::`, `pnmate::x` in the binaries, or a `use` of a sibling). A
path is resolved to the longest module prefix that is a file: `crate::dfpn::solver::Call`
is src/dfpn/solver.rs, `crate::dfpn::Call` is src/dfpn/mod.rs. A file's own tests
(after its first `#[cfg(test)]`) are left out, as are `mod` declarations and a module's
re-exports of its own children.

  python3 tools/imports.py            # the graph, one line per file, then the cycles
  python3 tools/imports.py --cycles   # the cycles only; exit status 1 if there is one
  python3 tools/imports.py --modules  # the same between top-level modules (src/x/ is x)

Python only (no packages).
"""
import argparse
import os
import re
import sys

SRC = 'src'
PATH = re.compile(r'\b(crate|super|self|pnmate)((?:::[A-Za-z_][A-Za-z0-9_]*)+)')


def module_of(path):
    """The module path of a source file: src/dfpn/solver.rs -> ['dfpn', 'solver']."""
    rel = os.path.relpath(path, SRC)[:-3].split(os.sep)
    if rel[-1] in ('mod', 'lib', 'main'):
        rel = rel[:-1]
    return rel


def files():
    out = {}
    for root, _, names in os.walk(SRC):
        for n in names:
            if n.endswith('.rs'):
                p = os.path.join(root, n)
                out[tuple(module_of(p))] = p
    return out


def body(path):
    """The file's text before its first `#[cfg(test)]`, without comments."""
    text = open(path).read()
    text = text.split('#[cfg(test)]')[0]
    text = re.sub(r'//[^\n]*', '', text)
    return text


def expand_uses(text):
    """Every `a::b::{c, d::e}` group written out as `a::b::c`, `a::b::d::e`."""
    out = []
    for m in re.finditer(r'\buse\s+([^;]+);', text):
        out += flatten(m.group(1).replace('\n', ' '))
    return out + [m.group(0) for m in PATH.finditer(re.sub(r'\buse\s+[^;]+;', '', text))]


def flatten(tree):
    tree = tree.strip()
    if '{' not in tree:
        return [tree.split(' as ')[0].strip()]
    head, rest = tree.split('{', 1)
    inner = rest.rsplit('}', 1)[0]
    parts, depth, cur = [], 0, ''
    for ch in inner:
        if ch == ',' and depth == 0:
            parts.append(cur)
            cur = ''
            continue
        depth += ch == '{'
        depth -= ch == '}'
        cur += ch
    parts.append(cur)
    return [x for p in parts if p.strip() for x in flatten(head + p)]


def resolve(mod, path, mods, binary):
    """The file an import path of module `mod` points at, if any."""
    segs = [s for s in path.split('::') if s]
    if not segs:
        return None
    if segs[0] == 'crate':
        # A binary's crate is its own: main.rs's modules, or its folder under src/bin/.
        base, segs = (['__bin__'] if binary is True else list(binary or [])), segs[1:]
    elif segs[0] == 'pnmate':
        base, segs = [], segs[1:]
    elif segs[0] == 'super':
        base = list(mod)
        while segs and segs[0] == 'super':
            base, segs = base[:-1], segs[1:]
    elif segs[0] == 'self':
        base, segs = list(mod), segs[1:]
    else:
        return None
    if base == ['__bin__']:
        base = []
        if segs and (segs[0],) in BIN_MODULES:
            return BIN_MODULES[(segs[0],)]
        return None
    best = None
    for k in range(len(segs) + 1):
        key = tuple(base + segs[:k])
        if key in mods:
            best = key
    return best


BIN_MODULES = {}


def graph():
    mods = files()
    binary_files = {k: v for k, v in mods.items() if v.startswith(os.path.join(SRC, 'bin')) or k and k[0] == 'main'}
    # The `pnmate` binary's own modules (declared in main.rs): cli, problem_cli, ...
    main_rs = os.path.join(SRC, 'main.rs')
    for m in re.finditer(r'^\s*mod\s+(\w+)\s*;', open(main_rs).read(), re.M):
        for cand in (os.path.join(SRC, m.group(1) + '.rs'), os.path.join(SRC, m.group(1), 'mod.rs')):
            if os.path.exists(cand):
                BIN_MODULES[(m.group(1),)] = (m.group(1),)
    edges = {}
    for key, path in mods.items():
        is_bin = path == main_rs or key in BIN_MODULES or (key and key[0] in [b[0] for b in BIN_MODULES])
        if len(key) >= 2 and key[0] == 'bin' and os.path.isdir(os.path.join(SRC, 'bin', key[1])):
            is_bin = key[:2]
        text = body(path)
        targets = set()
        for use in expand_uses(text):
            t = resolve(list(key), use, mods, is_bin)
            if t is not None and t != key:
                # A module's re-export of its own child is not an import of it.
                if len(t) > len(key) and t[:len(key)] == key and path.endswith('mod.rs'):
                    continue
                targets.add(t)
        edges[key] = targets
    return mods, edges


def cycles(edges):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(edges):
        if v not in index:
            visit(v)
    return out


def name(key, mods):
    if key in mods and mods[key].endswith('/'):
        return mods[key]
    return os.path.relpath(mods[key], SRC) if key in mods else '::'.join(key)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--cycles', action='store_true', help='print the cycles only')
    ap.add_argument('--modules', action='store_true', help='between top-level modules, not files')
    args = ap.parse_args()
    mods, edges = graph()
    if args.modules:
        top = lambda k: k[:1]  # noqa: E731
        merged = {}
        for k, ts in edges.items():
            merged.setdefault(top(k), set()).update(top(t) for t in ts if top(t) != top(k))
        edges = merged
        mods = {k: (k[0] + '/' if k and os.path.isdir(os.path.join(SRC, k[0])) else os.path.join(SRC, (k[0] if k else 'lib') + '.rs'))
                for k in edges}
    if not args.cycles:
        for key in sorted(edges, key=lambda k: name(k, mods)):
            print(f'{name(key, mods)} -> {", ".join(sorted(name(t, mods) for t in edges[key]))}')
        print()
    found = cycles(edges)
    for comp in found:
        print('cycle: ' + ' <-> '.join(name(k, mods) for k in comp))
    print(f'{len(found)} import cycles between {len(edges)} ' + ('modules' if args.modules else 'source files'))
    sys.exit(1 if found and args.cycles else 0)


if __name__ == '__main__':
    main()
