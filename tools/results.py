#!/usr/bin/env python3
"""Writes docs/results.md and docs/results.png: pnmate beside Stockfish on fixed samples.

For each suite below, both engines search every position of a fixed sample for LIMIT
seconds (`go movetime`, 1 thread, Hash 256, a new game per position), side by side, one
process each. tools/compare.py checks every mate they claim; a position counts as found
at t seconds when the last claim made by then has a valid line, and as best when that
line is also as short as the suite's mate. The picture draws found and best mates
against the time per position (0.1, 0.3, 1 and 3 s), as matetrack publishes its own.

  cargo build --release
  python3 tools/results.py --pnmate target/release/pnmate --stockfish /usr/games/stockfish \\
      [--syzygy DIR]

With --syzygy (a directory of the 3- and 4-men Syzygy tables), both engines are also run
with the tables on four endings (TABLE_SUITES: 100 positions each, seed 7, 1 s), and
`pnmate bench --syzygy DIR` gives the speed of a search outside the tables with and
without them loaded.

The variants section runs pnmate beside Fairy-Stockfish (`apt-get install
fairy-stockfish`) on samples of the variant suites (epd/variants/, VARIANT_SAMPLE
positions each, seed VARIANT_SEED, 1 s); atomic, which Fairy-Stockfish 11.1 lacks, with
pnmate alone. --variants-only rewrites that section alone; --variant-games adds the
lichess-bot-style clock games of tools/variant_games.py (about an hour).

With --popeye PY (Popeye's binary, built from github.com/thomas-maeder/popeye), the chess
problems section runs tools/popeye_check.py on the random orthodox problems of
PROBLEM_SETS (PROBLEM_LIMIT s each, one thread each, Popeye first, then pnmate, Popeye's
intelligent mode for help and series play); with --popeye-src DIR (Popeye's source tree)
also tools/popeye_files.py on its composed problems (POPEYE_FILES); --problems-only
rewrites that section alone.

The speed section comes from tools/speed.py (`pnmate bench`, `pnmate bench --long` and
the peak memory of a UCI search, five runs); --pgo BIN times the profile-guided build of
tools/pgo.sh beside --pnmate, runs alternating. --speed-only rewrites that section alone
and needs neither Stockfish nor python-chess.

Needs python-chess and matplotlib (pip install chess matplotlib) and Stockfish
(apt-get install stockfish). Takes about ten minutes on two cores, 17 with --syzygy.
"""
import argparse
import os
import subprocess
import sys

import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import speed  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

LIMIT = 3.0
TIMES = [0.1, 0.3, 1.0, 3.0]
SEED = 1
SUITES = [
    ('matetrack', 'epd/public/matetrack.epd', 100),
    ('K+B+N v K', 'epd/public/endgames/KBNvK500pv.epd', 25),
    ('K+R+B v K+R', 'epd/public/endgames/KRBvKR500pv.epd', 25),
    ('K+Q v K+R', 'epd/public/KQvKR1000pv.epd', 25),
]


TABLE_SEED = 7
TABLE_LIMIT = 1.0
TABLE_SUITES = [
    ('K+R v K', 'epd/public/KRvK1000pv.epd', 100),
    ('K+Q v K+R', 'epd/public/KQvKR1000pv.epd', 100),
    ('K+B+B v K', 'epd/public/endgames/KBBvK500pv.epd', 100),
    ('K+B+N v K', 'epd/public/endgames/KBNvK500pv.epd', 100),
]


PROBLEM_LIMIT = 10.0
# (title, (count, seed, more popeye_check.py arguments)).
PROBLEM_SETS = [
    ('4 to 7 men, n from 1 to 4', (200, 1)),
    ('8 to 12 men, n from 3 to 5', (100, 3, '--men', '8-12', '--moves', '3-5')),
]
PROBLEMS_HEADING = '## Chess problems\n'
# Popeye's composed problems, in its source tree, and the time each gets.
POPEYE_FILES = ['BEISPIEL/intell.inp']
POPEYE_FILES_LIMIT = 1.0

VARIANT_SEED = 1
VARIANT_SAMPLE = 100
VARIANT_LIMIT = 1.0
VARIANTS_HEADING = '## Variants\n'

TABLES_HEADING = '## Exact tables as a user meets them\n'
TABLES_SEED = 21
TABLES_SAMPLE = 22
TABLES_LIMIT = 1.0
TABLES_SUITES = [
    ('K+R v K', 'epd/public/KRvK1000pv.epd'),
    ('K+Q v K+R', 'epd/public/KQvKR1000pv.epd'),
    ('K+B+B v K', 'epd/public/endgames/KBBvK500pv.epd'),
    ('K+B+N v K', 'epd/public/endgames/KBNvK500pv.epd'),
    ('K+Q v K+P', 'epd/public/endgames/KQvKP500pv.epd'),
]


def quiet(*_):
    pass


def variants_section(pnmate, fairy, games):
    """pnmate beside Fairy-Stockfish on each variant suite's sample (atomic: pnmate
    alone), and with `games` the clock games of tools/variant_games.py."""
    import compare
    out = [VARIANTS_HEADING,
           f'Samples of {VARIANT_SAMPLE} positions of each suite in `epd/variants/` (seed {VARIANT_SEED}), '
           f'{VARIANT_LIMIT:g} s a position, 1 thread, Hash 256, both engines side by side, one process each. '
           'A win counts when its line replays on python-chess\'s board of the variant: legal, 2M-1 or 2M '
           'plies for a win in M, won by the claimant at its last move and not before, no draw claim for the '
           'loser on the way. Best: as short as the suite\'s win or shorter. Moves a line gives after the game '
           'has ended are dropped first (Fairy-Stockfish\'s racing kings lines go on one ply past the win). '
           'Fairy-Stockfish 11.1 has no atomic: there pnmate runs alone.', '',
           '| variant | positions | pnmate found / best / bad | Fairy-Stockfish found / best / bad | found ratio | best ratio |',
           '|---|---|---|---|---|---|']
    for variant in compare.VARIANTS:
        compare.use_variant(variant)
        suite = compare.load(f'epd/variants/{variant}.epd', VARIANT_SAMPLE, VARIANT_SEED)
        engines = [pnmate] + ([fairy] if variant != 'atomic' else [])
        print(f'{variant}: {len(suite)} positions', file=sys.stderr)
        with ThreadPoolExecutor(2) as pool:
            runs = list(pool.map(lambda c: compare.run_engine(c, suite, VARIANT_LIMIT, 256, 1, None, quiet), engines))
        counts = [compare.tally(results, VARIANT_LIMIT) for _, results in runs]
        cells = [f'{c["found"]} / {c["best"]} / {c["bad"]}' for c in counts]
        if len(counts) == 2:
            ratio = lambda a, b: f'{a / b:.2f}' if b else ('inf' if a else '-')  # noqa: E731
            row = cells + [ratio(counts[0]['found'], counts[1]['found']), ratio(counts[0]['best'], counts[1]['best'])]
        else:
            row = cells + ['(not run)', '', '']
        out.append(f'| {variant} | {len(suite)} | ' + ' | '.join(row) + ' |')
    out.append('')
    if games:
        command = [sys.executable, os.path.join(os.path.dirname(__file__), 'variant_games.py'), '--engine', pnmate,
                   '--opponent', fairy, '--won', '20', '--start', '10', '--seed', str(VARIANT_SEED)]
        text = subprocess.run(command, capture_output=True, text=True).stdout.splitlines()
        out += ['Clock games, 10 s + 0.1 s, through python-chess `engine.play` (`python3 tools/variant_games.py '
                f'--won 20 --start 10 --seed {VARIANT_SEED}`): 20 games from won suite positions, pnmate playing '
                'the winning side against Fairy-Stockfish (in atomic against itself), and 10 from the start '
                'position, colours alternating. In time: converted within 2N plies of the suite\'s `bm #N`. '
                'Start W/D/L is pnmate\'s.', '', '```',
                *[line for line in text if not line.startswith('  ')], '```', '']
    out.append('')
    return '\n'.join(out)


def replace_section(path, heading, body):
    """Rewrites the section of `path` under `heading` (up to the next `## ` heading) with
    `body`, or adds it before the speed section."""
    with open(path) as f:
        text = f.read()
    if heading in text:
        head, rest = text.split(heading, 1)
        tail = rest[rest.index('\n## ') + 1:] if '\n## ' in rest else ''
    else:
        head, tail = text.split(SPEED_HEADING)[0], SPEED_HEADING + text.split(SPEED_HEADING)[1]
    with open(path, 'w') as f:
        f.write(head + body + tail)


def tables_section(pnmate):
    """The exact tables as a user meets them: every table of up to four men built and
    stored by `pnmate tables build --men 4` (time and size of each), then a fresh engine
    per position on samples of the 3-4-men suites, cold (an empty cache directory for
    each suite's run: the tables are built beside the searches) and warm (the stored
    tables), and how soon `stop`, `isready` and `quit` are answered during a build."""
    import tempfile
    import shutil
    import compare
    import latency
    work = tempfile.mkdtemp(prefix='pnmate-results-')
    stored = os.path.join(work, 'stored')
    build = subprocess.run([pnmate, '--tables-cache', stored, 'tables', 'build', '--men', '4'],
                           capture_output=True, text=True).stdout.strip().splitlines()
    on_disk = sum(os.path.getsize(os.path.join(stored, f)) for f in os.listdir(stored))
    out = [TABLES_HEADING,
           'Every table of up to four men, built and stored by `pnmate tables build --men 4` in an empty '
           f'directory ({on_disk / (1 << 20):.1f} MB on disk when done):', '', '```', *build, '```', '',
           f'A new engine process for every position (`tools/compare.py --fresh`), {TABLES_SAMPLE} positions of '
           f'each suite (seed {TABLES_SEED}), `go movetime {TABLES_LIMIT * 1000:g}`, Hash 256, 1 thread. Cold: '
           'the engine\'s cache directory (`XDG_CACHE_HOME`) is empty when a suite\'s run begins, so the '
           'tables are built beside the searches and kept for the positions after; warm: the tables stored '
           'above. Late: a `bestmove` more than 0.15 s after the limit. Slowest: the latest `bestmove`.', '',
           '| suite | cold found / best / bad | cold late, slowest | warm found / best / bad | warm late, slowest |',
           '|---|---|---|---|---|']
    for title, epd in TABLES_SUITES:
        suite = compare.load(epd, TABLES_SAMPLE, TABLES_SEED)
        print(f'{title}: {len(suite)} positions, cold and warm', file=sys.stderr)
        cold_dir = os.path.join(work, 'cold-' + title.replace(' ', '').replace('+', ''))
        os.makedirs(cold_dir)
        cells = []
        for command in [f'env XDG_CACHE_HOME={cold_dir} {pnmate}', f'{pnmate} --tables-cache {stored}']:
            _, results = compare.run_engine(command, suite, TABLES_LIMIT, 256, 1, None, quiet, fresh=True)
            c = compare.tally(results, TABLES_LIMIT + 0.15)
            late = sum(r['wall'] > TABLES_LIMIT + 0.15 for r in results)
            slowest = max(r['wall'] for r in results)
            cells += [f'{c["found"]} / {c["best"]} / {c["bad"]}', f'{late}, {slowest:.2f} s']
        out.append(f'| {title} | ' + ' | '.join(cells) + ' |')
    out += ['', 'Answers during a build (`python3 tools/latency.py`: 0.3 s into `go infinite` on K+Q v K+P, a '
            'fresh engine with an empty cache directory, five runs):', '', '```']
    for name, command, answer in [('stop', 'stop', 'bestmove'), ('isready', 'isready', 'readyok'),
                                  ('quit', 'quit', None)]:
        times = [latency.during_build(pnmate, command, answer) for _ in range(5)]
        out.append(f'{name:<8} median {1000 * sorted(times)[2]:6.1f} ms   largest {1000 * max(times):6.1f} ms')
    out += ['```', '', '']
    shutil.rmtree(work, ignore_errors=True)
    return '\n'.join(out)


def problems_section(pnmate, popeye, popeye_src=None):
    """pnmate beside Popeye: its composed problems (Popeye's own files, with popeye_src,
    Popeye's source tree) and random orthodox problems (tools/popeye_check.py's tables,
    one for each set of PROBLEM_SETS)."""
    out = [PROBLEMS_HEADING]
    if popeye_src:
        files = [os.path.join(popeye_src, f) for f in POPEYE_FILES]
        command = [sys.executable, os.path.join(os.path.dirname(__file__), 'popeye_files.py'), '--engine', pnmate,
                   '--popeye', popeye, '--time', f'{POPEYE_FILES_LIMIT:g}'] + files
        text = subprocess.run(command, capture_output=True, text=True).stdout.splitlines()
        table = [line for line in text if not line.startswith(('DIFFER', '  popeye only', '  pnmate only'))]
        out += ['Composed problems: Popeye\'s own files, each read whole by both solvers (Popeye with the '
                'options the file sets, `option intelligent` in intell.inp), one thread each, '
                f'{POPEYE_FILES_LIMIT:g} s a problem; twins counted one by one, fairy problems left out. '
                f'`python3 tools/popeye_files.py --popeye PY --time {POPEYE_FILES_LIMIT:g} '
                + ' '.join('POPEYE/' + f for f in POPEYE_FILES) + '`', '', '```', *table, '```', '']
    out += [f'Random legal positions under random orthodox stipulations, Popeye 4.104 (help and series '
            f'play in its intelligent mode) then pnmate on each problem, one thread each, {PROBLEM_LIMIT:g} s '
            'a problem. A solver solved a problem when it finished within the time; agreed: both finished '
            'and printed the same keys (battle play) or the same solutions (help and series play); wrong: '
            'both finished and differ. The time ratio is pnmate\'s time over Popeye\'s, wall clock of each '
            'process, on the problems both solved.', '']
    for title, extra in PROBLEM_SETS:
        args = ['--random', str(extra[0]), '--seed', str(extra[1])] + list(extra[2:]) + ['--time', f'{PROBLEM_LIMIT:g}',
                                                                                        '--intelligent']
        command = [sys.executable, os.path.join(os.path.dirname(__file__), 'popeye_check.py'), '--engine', pnmate,
                   '--popeye', popeye] + args
        text = subprocess.run(command, capture_output=True, text=True).stdout.splitlines()
        table = [line for line in text if not line.startswith(('DIFFER', '  '))]
        out += [f'{title}: `python3 tools/popeye_check.py --popeye PY {" ".join(args)}`', '', '```', *table, '```', '']
    return '\n'.join(out + [''])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--pnmate', default='target/release/pnmate')
    ap.add_argument('--stockfish', default='/usr/games/stockfish')
    ap.add_argument('--out', default='docs')
    ap.add_argument('--syzygy', help='a directory of Syzygy tables: also run the table section')
    ap.add_argument('--speed-only', action='store_true', help='rewrite the speed section alone')
    ap.add_argument('--pgo', help="tools/pgo.sh's build (target/pgo/release/pnmate): timed beside --pnmate")
    ap.add_argument('--fairy', default='/usr/games/fairy-stockfish', help='Fairy-Stockfish, for the variants')
    ap.add_argument('--variants-only', action='store_true', help='rewrite the variants section alone')
    ap.add_argument('--variant-games', action='store_true', help='add the variant clock games (about an hour)')
    ap.add_argument('--popeye', help="Popeye's binary (py): also run the chess problems section")
    ap.add_argument('--popeye-src', help="Popeye's source tree (github.com/thomas-maeder/popeye): its composed problems")
    ap.add_argument('--problems-only', action='store_true', help='rewrite the chess problems section alone')
    ap.add_argument('--tables-only', action='store_true', help='rewrite the exact tables section alone')
    args = ap.parse_args()
    results_md = os.path.join(args.out, 'results.md')
    if args.problems_only:
        if not args.popeye:
            sys.exit('--problems-only needs --popeye')
        return replace_section(results_md, PROBLEMS_HEADING, problems_section(args.pnmate, args.popeye, args.popeye_src))
    if args.variants_only:
        return replace_section(results_md, VARIANTS_HEADING,
                               variants_section(args.pnmate, args.fairy, args.variant_games))
    if args.tables_only:
        return replace_section(results_md, TABLES_HEADING, tables_section(args.pnmate))
    if args.speed_only:
        return replace_section(results_md, SPEED_HEADING, speed_section(args.pnmate, args.syzygy, args.pgo))
    from compare import load, run_engine, tally  # python-chess: not needed for the speed section

    engines = [args.pnmate, args.stockfish]

    def side_by_side(label, epd, size, seed, limit, syzygy):
        """Both engines on a sample of `epd`, at once, one process each: its size and
        each engine's (name, results)."""
        suite = load(epd, size, seed)
        print(f'{label}: {len(suite)} positions', file=sys.stderr)
        with ThreadPoolExecutor(2) as pool:
            return len(suite), list(pool.map(lambda c: run_engine(c, suite, limit, 256, 1, syzygy, quiet), engines))

    rows, curves = [], {}
    for title, epd, size in SUITES:
        n, runs = side_by_side(title, epd, size, SEED, LIMIT, None)
        for (name, results) in runs:
            counts = [tally(results, t) for t in TIMES]
            rows.append((title, n, name, counts))
            curves.setdefault(title, []).append((name, counts))

    tables = []
    if args.syzygy:
        syzygy = os.path.abspath(args.syzygy)
        for title, epd, size in TABLE_SUITES:
            n, runs = side_by_side(f'{title} with tables', epd, size, TABLE_SEED, TABLE_LIMIT, syzygy)
            for (name, results) in runs:
                tables.append((title, n, name, tally(results, TABLE_LIMIT)))
    os.makedirs(args.out, exist_ok=True)
    draw(curves, {title: size for title, _, size in SUITES}, os.path.join(args.out, 'results.png'))
    with open(results_md, 'w') as f:
        problems = problems_section(args.pnmate, args.popeye, args.popeye_src) if args.popeye else ''
        f.write(report(rows, tables) + tables_section(args.pnmate)
                + variants_section(args.pnmate, args.fairy, args.variant_games)
                + problems + speed_section(args.pnmate, args.syzygy, args.pgo))
    readme_table(rows, 'README.md')


def draw(curves, sizes, path):
    """Found (solid) and best (dashed) mates against the time per position, one panel a
    suite, each on a scale of its sample's size."""
    n = len(sizes)
    fig, axes = plt.subplots(1, n, figsize=(4 * n, 3.6), squeeze=False)
    for ax, (title, lines) in zip(axes[0], curves.items()):
        for (name, counts), colour in zip(lines, ['tab:blue', 'tab:orange']):
            label = name.split()[0]
            ax.plot(TIMES, [c['found'] for c in counts], '-o', color=colour, label=f'{label} found')
            ax.plot(TIMES, [c['best'] for c in counts], '--s', color=colour, label=f'{label} best')
        ax.set_xscale('log')
        ax.set_xticks(TIMES, [f'{t:g}' for t in TIMES])
        ax.set_xlabel('seconds per position')
        ax.set_ylim(0, sizes[title])
        ax.set_title(f'{title} ({sizes[title]} positions)')
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel('mates')
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def readme_table(rows, path):
    """Rewrites the results table of the README between its markers: found / best at
    1 s and 3 s, pnmate and Stockfish side by side."""
    engines = {}
    for title, size, name, counts in rows:
        engines.setdefault((title, size), []).append(counts)
    lines = ['| suite | positions | pnmate 1 s | Stockfish 1 s | pnmate 3 s | Stockfish 3 s |', '|---|---|---|---|---|---|']
    for (title, size), (ours, theirs) in engines.items():
        cell = lambda c: f'{c["found"]} / {c["best"]}'  # noqa: E731
        lines.append(f'| {title} | {size} | {cell(ours[2])} | {cell(theirs[2])} | {cell(ours[3])} | {cell(theirs[3])} |')
    with open(path) as f:
        text = f.read()
    begin, end = '<!-- results: tools/results.py -->\n', '<!-- end of results -->\n'
    head, rest = text.split(begin)
    _, tail = rest.split(end)
    with open(path, 'w') as f:
        f.write(head + begin + '\n'.join(lines) + '\n' + end + tail)


SPEED_HEADING = '## Speed\n'
SPEED_RUNS = 5


def speed_section(engine, syzygy, pgo=None):
    """The speed section: tools/speed.py's figures for `engine` (and beside it `pgo`, the
    profile-guided build), and with `syzygy` the bench outside the tables with and
    without them."""
    engines = [engine] + ([pgo] if pgo else [])
    figures = speed.measure(engines, SPEED_RUNS)
    command = ' '.join(f'--engine {e}' for e in engines)
    out = [SPEED_HEADING,
           f'`python3 tools/speed.py {command} --runs {SPEED_RUNS}` on the machine that '
           'made this page: `pnmate bench` (12 positions to 400,000 nodes each, 16 MB table) and `pnmate bench '
           '--long` (four long quiet mates, each until its first proof, the build of the exact tables included, 64 MB table), one thread. Node counts '
           'are fixed by the search; times vary with the machine and its load. Compare two builds with '
           '`tools/speed.py --engine OLD --engine NEW`, which alternates their runs.', '']
    if pgo:
        out += ['The second build is the same source built by `tools/pgo.sh`, with profile-guided '
                'optimisation trained on suite positions that are not bench positions; the last column is its '
                'speed over the plain release build\'s.', '']
    out += [*speed.table(figures, SPEED_RUNS), '']
    if syzygy:
        command = [engine, 'bench', '--syzygy', os.path.abspath(syzygy)]
        bench = subprocess.run(command, capture_output=True, text=True).stdout.strip().splitlines()
        out += ['The bench positions outside the tables (more than 4 men), searched without and with the '
                'tables loaded, three times each in turn (`pnmate bench --syzygy DIR`):', '', '```', *bench[1:],
                '```', '']
    return '\n'.join(out)


def report(rows, tables):
    out = ['# Current results', '',
           'Generated by `python3 tools/results.py` (see its header for what it runs); do not edit by hand.',
           f'Fixed samples drawn with seed {SEED}; {LIMIT:g} s a position, 1 thread, Hash 256, a new game '
           'per position; pnmate and Stockfish side by side, one process each, on one machine at once.',
           'Found: the last mate claimed by then has a line that replays legally to checkmate in exactly '
           'the claimed length, with no draw claim on the way. Best: also as short as the suite\'s mate. '
           'Bad: a claim whose line fails those checks.', '',
           '![found and best mates against time](results.png)', '',
           '| suite | positions | engine | ' + ' | '.join(f'{t:g} s found / best' for t in TIMES) + ' | bad |',
           '|---|---|---|' + '---|' * len(TIMES) + '---|']
    for title, size, name, counts in rows:
        cells = ' | '.join(f'{c["found"]} / {c["best"]}' for c in counts)
        out.append(f'| {title} | {size} | {name} | {cells} | {counts[-1]["bad"]} |')
    out += ['', '## With Syzygy tables', '']
    if tables:
        out += [f'Both engines given the 3- and 4-men Syzygy tables (`SyzygyPath`); samples of {TABLE_SUITES[0][2]} '
                f'positions drawn with seed {TABLE_SEED}, {TABLE_LIMIT:g} s a position, 1 thread, Hash 256.', '',
                '| suite | positions | engine | found | best | bad |', '|---|---|---|---|---|---|']
        for title, size, name, c in tables:
            out.append(f'| {title} | {size} | {name} | {c["found"]} | {c["best"]} | {c["bad"]} |')
    else:
        out.append('Not run: give `--syzygy DIR`.')
    out += ['', '']
    return '\n'.join(out)


if __name__ == '__main__':
    main()
