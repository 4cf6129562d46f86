#!/usr/bin/env python3
"""Runs Popeye's own input files through Popeye and pnmate and compares, for every twin of
every problem that pnmate reads (the orthodox ones), the solutions both print: the keys
in battle play, every solution line in help and series play.

  python3 tools/popeye_files.py --popeye PY FILE.inp ... [--time 10] [--by-stip]

Popeye is not packaged: build it from github.com/thomas-maeder/popeye with
`make -f makefile.unx`; its files are in its EXAMPLES, TESTS and BEISPIEL folders. Both
solvers read each file whole, in its language (English, German or French), each with
`--time`/`-maxtime` seconds a problem and one thread; Popeye runs with the options the
file sets (`option intelligent` where it asks for it). A file's `protocol` line is taken
out first, so that neither writes files.

Per twin: agreed (both finished, same lines), differ (both finished, other lines),
unsolved (a solver ran out of time). Prints one row per stipulation (or per file) with
twins, Popeye's and pnmate's solved, agreed, differ, and the median ratio of pnmate's
time to Popeye's per problem both finished. Exits 1 if any twin differs.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

FINISHED = re.compile(r'^(solution finished\.|Loesung beendet\.|solution terminee\.|partial solution|Partielle Loesung|solution partielle)\s*(Time|Zeit|Temps) = ([0-9.]+) s')
LABEL = re.compile(r'^\+?[a-z]\)( |$)')
PROTOCOL = re.compile(r'^\s*(prot\w*)\s+\S+\s*$', re.I)


def solution_lines(lines):
    """The lines of a twin's solution that say what it is: help and series solutions
    (`  1.` at two spaces), keys (`   1.X !` at three, the move only). Tries, threats and
    variations are left out."""
    out = set()
    for line in lines:
        if re.match(r'^  1\.|^  1\.\.\.', line):
            out.add(' '.join(line.split()))
        m = re.match(r'^   1\.(\S+(?: [+#=])?)(?: [+#=])? !', line)
        if m:
            out.add('key ' + m.group(1))
    return frozenset(out)


def split_problems(text, pnmate):
    """A solver's output as problems, each a list of (label, lines) twins and its time
    (None: it did not finish). pnmate names a problem it skipped."""
    problems, twins, label, lines = [], [], '', []
    for line in text.splitlines():
        if pnmate and re.match(r'^problem \d+ skipped', line):
            problems.append(('skipped', None))
            continue
        m = FINISHED.match(line)
        if m:
            twins.append((label, lines))
            # A problem's header comes before its first twin's label.
            if len(twins) > 1 and twins[0][0] == '':
                twins = twins[1:]
            partial = m.group(1).lower().startswith(('partial', 'partielle', 'solution partielle'))
            problems.append((twins, None if partial else float(m.group(3))))
            twins, label, lines = [], '', []
            continue
        if LABEL.match(line) or line.strip() in ('zeroposition', 'NullStellung'):
            if lines or label:
                twins.append((label, lines))
            label, lines = line.split(')')[0] if ')' in line else line.strip(), []
            continue
        lines.append(line)
    return problems


def finished(lines, pnmate):
    text = '\n'.join(lines)
    if pnmate:
        return 'unknown (the limits ran out' not in text
    return not re.search(r'maximum time|interrupted|Maximale Zeit|temps maximum|abgebrochen', text, re.I)


def stipulation_of(lines):
    for line in lines:
        m = re.match(r'^(\S+)  \S+/\S+', line)
        if m:
            return m.group(1)
    return '?'


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('files', nargs='+')
    ap.add_argument('--popeye', required=True)
    ap.add_argument('--engine', default='target/release/pnmate')
    ap.add_argument('--time', type=float, default=10.0)
    ap.add_argument('--by-file', action='store_true', help='one row per file instead of per stipulation')
    args = ap.parse_args()
    args.popeye, args.engine = os.path.abspath(args.popeye), os.path.abspath(args.engine)
    rows, differ, skipped = {}, 0, 0
    for path in args.files:
        text = open(path, encoding='latin-1').read()
        text = '\n'.join(l for l in text.splitlines() if not PROTOCOL.match(l)) + '\n'
        with tempfile.NamedTemporaryFile('w', suffix='.inp', delete=False, encoding='latin-1') as f:
            f.write(text)
            tmp = f.name
        cwd = tempfile.mkdtemp()
        pop = subprocess.run([args.popeye, '-maxmem', '1G', '-maxtime', str(int(args.time)), tmp],
                             capture_output=True, text=True, encoding='latin-1', cwd=cwd).stdout
        pn = subprocess.run([args.engine, 'problem', tmp, '--time', str(args.time), '--threads', '1'],
                            capture_output=True, text=True, encoding='latin-1', cwd=cwd)
        os.unlink(tmp)
        pops, pns = split_problems(pop, False), split_problems(pn.stdout, True)
        name = os.path.basename(path)
        for i, (ours, our_time) in enumerate(pns):
            if ours == 'skipped':
                skipped += 1
                continue
            if i >= len(pops):
                print(f'{name} problem {i + 1}: Popeye printed no such problem', file=sys.stderr)
                continue
            theirs, their_time = pops[i]
            ours_twins = ours
            if len(theirs) != len(ours_twins):
                print(f'{name} problem {i + 1}: {len(theirs)} twins in Popeye, {len(ours_twins)} in pnmate',
                      file=sys.stderr)
            all_done = True
            for (label, their_lines), (our_label, our_lines) in zip(theirs, ours_twins):
                stip = stipulation_of(our_lines)
                kind = re.sub(r'\d+(\.5)?$', 'n', stip) + ('.5' if stip.endswith('.5') else '')
                key = name if args.by_file else kind
                row = rows.setdefault(key, {'twins': 0, 'popeye': 0, 'pnmate': 0, 'agreed': 0, 'differ': 0,
                                            'ratios': []})
                row['twins'] += 1
                p_done = their_time is not None and finished(their_lines, False)
                o_done = finished(our_lines, True)
                row['popeye'] += p_done
                row['pnmate'] += o_done
                all_done &= p_done and o_done
                if p_done and o_done:
                    a, b = solution_lines(their_lines), solution_lines(our_lines)
                    if a == b:
                        row['agreed'] += 1
                    else:
                        row['differ'] += 1
                        differ += 1
                        print(f'DIFFER {name} problem {i + 1} {label} {stip}\n  popeye only: {sorted(a - b)[:4]}\n'
                              f'  pnmate only: {sorted(b - a)[:4]}')
            if all_done and their_time is not None and our_time is not None and theirs:
                rows[key]['ratios'].append(our_time / max(their_time, 0.001))
    print(f'{len(args.files)} files, {args.time:g} s a problem, one thread each; {skipped} problems skipped by pnmate')
    print(f"{'':14} {'twins':>6} {'popeye':>7} {'pnmate':>7} {'agreed':>7} {'differ':>7} {'median time ratio':>18}")
    for key, r in sorted(rows.items()):
        ratio = f"{statistics.median(r['ratios']):.2f}" if r['ratios'] else '-'
        print(f"{key:14} {r['twins']:6} {r['popeye']:7} {r['pnmate']:7} {r['agreed']:7} {r['differ']:7} {ratio:>18}")
    sys.exit(1 if differ else 0)


if __name__ == '__main__':
    main()
