#!/usr/bin/env python3
"""Times pnmate builds side by side: `pnmate bench` (nodes per second), `pnmate bench
--long` (time to the first proof of four long quiet mates) and the peak memory of a UCI
search. Runs alternate between the builds, so that a busy machine slows each alike;
medians are reported.

  python3 tools/speed.py --engine /tmp/pnmate-before --engine target/release/pnmate [--runs 5]

With two engines the last column is the second's figure over the first's (nodes per
second, or time before over time after: above 1 is faster). The node counts of builds
of the same search are equal; the script says so when they are not.
tools/results.py writes the same figures for one build into docs/results.md.

  python3 tools/speed.py --engine OLD --engine NEW --paired 12

instead runs `pnmate bench` of both builds at once, one on each of two cores, swapping
the cores every round, and prints the median and mean of the rounds' ratios (NEW over
OLD). Both builds then share whatever else the machine does at that moment; on a shared
machine this tells changes of a few hundredths apart, which alternating runs do not.
"""
import argparse
import re
import statistics
import subprocess
import time

# The peak memory search: a UCI engine with this Hash searching the K+Q v K+R position
# of the long bench for SECONDS.
MEMORY_HASH_MB = 256
MEMORY_FEN = '4r3/7Q/8/6K1/8/4k3/8/8 w - - 0 1'
MEMORY_SECONDS = 3


def bench_figures(out):
    """(nodes, nodes per second) from the output of `pnmate bench`."""
    m = re.search(r'(\d+) nodes (\d+) nps', out)
    return int(m.group(1)), int(m.group(2))


def bench(engine):
    """One `pnmate bench`: (nodes, nodes per second)."""
    return bench_figures(subprocess.run([engine, 'bench'], capture_output=True, text=True, check=True).stdout)


def long_bench(engine):
    """One `pnmate bench --long`: {name: (mate, nodes, ms)}."""
    out = subprocess.run([engine, 'bench', '--long'], capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        m = re.match(r'(.+?)\s+(mate \d+|none)\s+(\d+) nodes\s+(\d+) ms\b', line)
        if m:
            rows[m.group(1)] = (m.group(2), int(m.group(3)), int(m.group(4)))
    return rows


def peak_memory(engine):
    """The peak resident memory (MB) of a UCI search with Hash MEMORY_HASH_MB."""
    p = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    p.stdin.write(f'uci\nsetoption name Hash value {MEMORY_HASH_MB}\nisready\n')
    p.stdin.write(f'position fen {MEMORY_FEN}\ngo movetime {MEMORY_SECONDS * 1000}\n')
    p.stdin.flush()
    for line in p.stdout:
        if line.startswith('bestmove'):
            break
    with open(f'/proc/{p.pid}/status') as f:
        hwm = next(int(line.split()[1]) for line in f if line.startswith('VmHWM'))
    p.stdin.write('quit\n')
    p.stdin.flush()
    p.wait()
    return hwm / 1024


def measure(engines, runs):
    """Every figure of every engine, runs alternating: {engine: {...}}."""
    figures = {e: {'nodes': set(), 'nps': [], 'long': {}} for e in engines}
    for _ in range(runs):
        for e in engines:
            nodes, nps = bench(e)
            figures[e]['nodes'].add(nodes)
            figures[e]['nps'].append(nps)
            for name, (mate, nodes, ms) in long_bench(e).items():
                entry = figures[e]['long'].setdefault(name, {'mate': mate, 'nodes': set(), 'ms': []})
                entry['nodes'].add(nodes)
                entry['ms'].append(ms)
            time.sleep(0.1)
    for e in engines:
        figures[e]['memory'] = peak_memory(e)
    return figures


def table(figures, runs):
    """Markdown rows: one per figure, a column per engine (and their ratio for two)."""
    engines = list(figures)
    two = len(engines) == 2
    head = '| figure | ' + ' | '.join(f'`{e}`' for e in engines) + (' | ratio |' if two else ' |')
    lines = [head, '|---|' + '---|' * (len(engines) + two)]

    def row(label, cells, ratio=None):
        lines.append(f'| {label} | ' + ' | '.join(cells) + (f' | {ratio} |' if two else ' |'))

    def nodes(values):
        return '/'.join(f'{n:,}' for n in sorted(values))

    nps = [statistics.median(figures[e]['nps']) for e in engines]
    row('`pnmate bench` nodes', [nodes(figures[e]['nodes']) for e in engines], '')
    row(f'`pnmate bench` nodes per second (median of {runs})', [f'{v:,.0f}' for v in nps],
        f'{nps[1] / nps[0]:.2f}x' if two else None)
    for name in figures[engines[0]]['long']:
        entries = [figures[e]['long'].get(name) for e in engines]
        ms = [statistics.median(x['ms']) for x in entries]
        row(f'{name}: {entries[0]["mate"]}, nodes to the first proof', [nodes(x['nodes']) for x in entries], '')
        row(f'{name}: ms to the first proof (median of {runs})', [f'{v:,.0f}' for v in ms],
            f'{ms[0] / ms[1]:.2f}x' if two else None)
    total = [sum(statistics.median(x['ms']) for x in figures[e]['long'].values()) for e in engines]
    row('long mates: total ms (sum of medians)', [f'{v:,.0f}' for v in total],
        f'{total[0] / total[1]:.2f}x' if two else None)
    row(f'peak memory of a {MEMORY_SECONDS} s UCI search, Hash {MEMORY_HASH_MB} (MB)',
        [f'{figures[e]["memory"]:.0f}' for e in engines], '')
    return lines


def paired(old, new, rounds):
    """Both builds' `pnmate bench` at once, one per core, sides swapped each round: the
    per-round ratios of nodes per second (new over old), and whether every round's node
    counts were equal."""
    ratios, same = [], True
    for i in range(rounds):
        cores = (0, 1) if i % 2 == 0 else (1, 0)
        procs = [subprocess.Popen(['taskset', '-c', str(core), engine, 'bench'], stdout=subprocess.PIPE, text=True)
                 for engine, core in zip((old, new), cores)]
        outs = [p.communicate()[0] for p in procs]
        for p in procs:
            if p.returncode:
                raise subprocess.CalledProcessError(p.returncode, p.args)
        (old_nodes, old_nps), (new_nodes, new_nps) = (bench_figures(out) for out in outs)
        same &= old_nodes == new_nodes
        ratios.append(new_nps / old_nps)
    return ratios, same


def report_nodes(same):
    """The line that says whether the builds compared searched the same nodes."""
    print('\nnode counts ' + ('identical' if same else 'DIFFER: the builds search differently'))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--engine', action='append', required=True,
                    help='a pnmate binary (repeat for more; with two, a ratio column)')
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--paired', type=int, metavar='ROUNDS',
                    help='instead, ROUNDS rounds of both builds\' bench at once (two engines, two cores)')
    args = ap.parse_args()
    if args.paired:
        if len(args.engine) != 2:
            ap.error('--paired compares two engines')
        r, same = paired(*args.engine, args.paired)
        print(f'pnmate bench, {len(r)} rounds, nodes per second of the second build over the first: '
              f'median {statistics.median(r):.3f}, mean {statistics.mean(r):.3f}, '
              f'range {min(r):.3f} to {max(r):.3f}')
        report_nodes(same)
        return
    figures = measure(args.engine, args.runs)
    print('\n'.join(table(figures, args.runs)))
    if len(args.engine) > 1:
        first, *others = (figures[e] for e in args.engine)
        same = all(f['nodes'] == first['nodes']
                   and all(f['long'][n]['nodes'] == first['long'][n]['nodes'] for n in first['long'])
                   for f in others)
        report_nodes(same)


if __name__ == '__main__':
    main()
