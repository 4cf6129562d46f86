#!/usr/bin/env python3
"""Runs pnmate and Popeye (the problemists' reference solver) side by side on orthodox
chess problems and compares what they print: the set of keys in battle play, the set
of solutions in help and series play, written as Popeye writes them.

  python3 tools/popeye_check.py --popeye /path/to/py --problems tools/problems.txt --time 10

A problem file has one problem a line, `FEN | stipulation` (`#` starts a comment).
--random N adds N random positions of few men with random stipulations (seeded), so
that both solvers meet positions no one chose. Popeye is not packaged: build it from
github.com/thomas-maeder/popeye with `make -f makefile.unx`.

With --intelligent, Popeye runs help and series play with `option intelligent`, as
problemists run it. That mode is not complete: where it lists fewer lines than pnmate,
Popeye runs again without it (six times the time), and if that lists pnmate's lines the
problem counts as agreed and is named after the table. With --full, battle play is compared whole: Popeye runs with `option vari try` (and
`set` with --set), pnmate with `--variations --tries` (`--set-play`), and the two
outputs are read as trees by their indentation (each key or try with its threat,
defences, continuations and refutations), compared with the order of moves at every
level left out.

A problem counts as agreed when both finish and print the same set of lines (or tree);
as wrong when both finish and differ; as unsolved by a solver that ran out of time. Prints one
row per stipulation with problems solved by each, agreed, wrong and the median ratio of
pnmate's time to Popeye's on the problems both solved. Exits 1 if any is wrong.
"""
import argparse
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time

import chess

STIPS = ['#1', '#2', '#3', 's#1', 's#2', 's#3', 'r#1', 'r#2', 'r#3', 'h#1', 'h#2', 'h#3', 'h#1.5', 'h#2.5',
         'ser-h#2', 'ser-h#3', 'ser-h#4', 'ser-#2', 'ser-#3', 'ser-#4', '=1', '=2', '=3', 's=1', 's=2',
         'h=1', 'h=2', 'h=3', 'ser-h=2', 'ser-h=3']


# Popeye prints every solution; pnmate's default cap (1000) would cut a random helpmate's
# hundreds of thousands short, so it gets one that no problem here reaches.
MAX_SOLUTIONS = 10_000_000


def first_mover(stip):
    if stip.startswith('ser-h') or (stip.startswith('h') and not stip.endswith('.5')):
        return chess.BLACK
    return chess.WHITE


def popeye_input(fen, stip, seconds, options=''):
    board = chess.Board(fen)
    men = {chess.WHITE: [], chess.BLACK: []}
    for sq, piece in board.piece_map().items():
        letter = {'n': 's'}.get(piece.symbol().lower(), piece.symbol().lower())
        men[piece.color].append(letter + chess.square_name(sq))
    return (f"begin\npieces white {' '.join(men[chess.WHITE])} black {' '.join(men[chess.BLACK])}\n"
            f"stipulation {stip}\noption noboard maxtime {int(seconds)} {options}\nend\n")


# A key (`1.Kb6-a6 !`) or a help or series solution; not a try (`?`) nor Popeye's mark of
# a forced goal that fails the stipulation (`?!?`, a reflex side's mate).
SOLUTION = re.compile(r'^\s+1\.(?!.*\?$)')


def tree_of(lines):
    """The solution as a tree by indentation, each level's entries sorted: what both
    solvers print, whatever order they generate moves in. Popeye's `?!?` lines (a reflex
    side's forced goal that fails the stipulation) and their play are left out."""
    root = []
    stack = [(-1, root)]
    skip = None
    for line in lines:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if skip is not None:
            if indent > skip:
                continue
            skip = None
        text = ' '.join(line.split())
        if text.endswith('?!?'):
            skip = indent
            continue
        while stack[-1][0] >= indent:
            stack.pop()
        node = (text, [])
        stack[-1][1].append(node)
        stack.append((indent, node[1]))

    def canon(children):
        return tuple(sorted((t, canon(c)) for t, c in children))
    return canon(root)


def flat(tree, depth=0):
    """A tree's lines, indented by depth, for a report."""
    for text, children in tree:
        yield '  ' * depth + text
        yield from flat(children, depth + 1)


def intelligent_allowed(stip):
    """Whether Popeye's intelligent mode takes `stip`: help and series play."""
    return stip.startswith(('h', 'ser-'))


def run_popeye(py, fen, stip, seconds, full=False, set_play=False, intelligent=False):
    options = ('vari try' + (' set' if set_play else '')) if full else ''
    if intelligent and intelligent_allowed(stip):
        options += ' intelligent'
    with tempfile.NamedTemporaryFile('w', suffix='.inp', delete=False) as f:
        f.write(popeye_input(fen, stip, seconds, options))
        path = f.name
    start = time.monotonic()
    try:
        out = subprocess.run([py, '-maxmem', '1G', path], capture_output=True, text=True, timeout=seconds + 30).stdout
    except subprocess.TimeoutExpired:
        return None, seconds
    took = time.monotonic() - start
    if 'solution finished' not in out or 'maximum time' in out.lower() or 'interrupted' in out.lower():
        return None, took
    if full:
        body = out.split('\n', 1)[1].split('solution finished')[0].splitlines()
        return tree_of(body), took
    lines = {' '.join(l.split()) for l in out.splitlines() if SOLUTION.match(l)}
    return lines, took


def run_pnmate(engine, fen, stip, seconds, full=False, set_play=False, cap=MAX_SOLUTIONS):
    start = time.monotonic()
    extra = (['--variations', '--tries'] + (['--set-play'] if set_play else [])) if full else []
    extra += ['--max-solutions', str(cap)]
    try:
        p = subprocess.run([engine, 'solve', fen, '--stip', stip, '--time', str(seconds)] + extra,
                           capture_output=True, text=True, timeout=seconds + 30)
    except subprocess.TimeoutExpired:
        return None, seconds
    took = time.monotonic() - start
    if p.returncode != 0:
        if p.returncode == 2:
            sys.exit(f'pnmate refused {fen} {stip}: {p.stderr.strip()}')
        return None, took
    if full:
        return tree_of([l for l in p.stdout.splitlines() if l.startswith(' ')]), took
    lines = {' '.join(l.split()) for l in p.stdout.splitlines() if SOLUTION.match(l)}
    return lines, took


KINDS = ['#', 's#', 'r#', 'h#', 'h#.5', 'ser-h#', 'ser-#', '=', 's=', 'h=', 'ser-h=']


def random_stip(rng, moves):
    """A stipulation of a random kind with n drawn from `moves` (h#n.5 is h#(n-1).5)."""
    kind, n = rng.choice(KINDS), rng.randint(*moves)
    return f'h#{n - 1}.5' if kind == 'h#.5' else f'{kind}{n}'


def random_problem(rng, men=(4, 7), moves=None, fixed=None):
    """A legal position of `men` men (4 to 7 by default) without castling or en
    passant, with a random stipulation (from STIPS, or n drawn from `moves`) whose first
    mover is to move and is not in check."""
    while True:
        stip = fixed or (random_stip(rng, moves) if moves else rng.choice(STIPS))
        board = chess.Board(None)
        squares = rng.sample(range(64), men[1] + 1)
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for sq in squares[2:rng.randint(*men)]:
            role = rng.choice([chess.QUEEN, chess.ROOK, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN, chess.PAWN])
            if role == chess.PAWN and chess.square_rank(sq) in (0, 7):
                continue
            board.set_piece_at(sq, chess.Piece(role, rng.random() < 0.55))
        board.turn = first_mover(stip)
        # Popeye lets a king and rook on their first squares castle; the FEN does not.
        home = any(board.piece_at(k) == chess.Piece(chess.KING, c) and
                   any(board.piece_at(r) == chess.Piece(chess.ROOK, c) for r in rooks)
                   for c, k, rooks in [(chess.WHITE, chess.E1, (chess.A1, chess.H1)),
                                       (chess.BLACK, chess.E8, (chess.A8, chess.H8))])
        if not home and board.is_valid() and not board.is_game_over() and not board.is_check():
            return board.fen(), stip


def stratified(rng, count, share, engine, men, moves):
    """`count` random problems, each of which has a solution (by a 2 s pnmate run) with
    probability `share`: most random positions have none, and a comparison of keys needs
    problems that have some. For each problem a stipulation is drawn, then positions for
    it until one of the wanted kind (up to 500). Popeye still judges every problem, so a
    wrong claim shows in either part."""
    problems = []
    for _ in range(count):
        stip = random_stip(rng, moves) if moves else rng.choice(STIPS)
        want = rng.random() < share
        for _ in range(500):
            fen, stip = random_problem(rng, men, moves, stip)
            p = subprocess.run([engine, 'solve', fen, '--stip', stip, '--time', '2', '--json'],
                               capture_output=True, text=True)
            result = json.loads(p.stdout)['result'] if p.stdout.startswith('{') else None
            if (result == 'solution') == want:
                break
        problems.append((fen, stip))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--engine', default='target/release/pnmate')
    ap.add_argument('--popeye', required=True, help="Popeye's binary (py)")
    ap.add_argument('--problems', help='a file of `FEN | stipulation` lines')
    ap.add_argument('--random', type=int, default=0, help='random problems to add')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--with-solution', type=float, default=0.0,
                    help='random problems: this share drawn from those pnmate solves in 2 s with a solution')
    ap.add_argument('--men', default='4-7', help='random problems: men on the board, LO-HI')
    ap.add_argument('--moves', help='random problems: n drawn from LO-HI for every kind (default: STIPS)')
    ap.add_argument('--time', type=float, default=10.0, help='seconds per problem for each solver')
    ap.add_argument('--json', help='write every problem and both outputs here')
    ap.add_argument('--full', action='store_true', help='compare battle play whole: threats, variations, tries')
    ap.add_argument('--set', action='store_true', help='with --full, set play too')
    ap.add_argument('--intelligent', action='store_true',
                    help="run Popeye with `option intelligent` where it applies (help and series play)")
    args = ap.parse_args()
    problems = []
    if args.problems:
        for line in open(args.problems):
            line = line.split('#', 1)[0] if line.lstrip().startswith('#') else line
            if '|' in line:
                fen, stip = (x.strip() for x in line.rsplit('|', 1))
                problems.append((fen, stip))
    rng = random.Random(args.seed)
    men = tuple(int(x) for x in args.men.split('-'))
    moves = tuple(int(x) for x in args.moves.split('-')) if args.moves else None
    if args.with_solution:
        problems += stratified(rng, args.random, args.with_solution, args.engine, men, moves)
    else:
        problems += [random_problem(rng, men, moves) for _ in range(args.random)]
    rows, records, wrong, missed = {}, [], 0, []
    for i, (fen, stip) in enumerate(problems):
        full = args.full and not stip.startswith(('h', 'ser-'))
        pop, pop_t = run_popeye(args.popeye, fen, stip, args.time, full, args.set, args.intelligent)
        pn, pn_t = run_pnmate(args.engine, fen, stip, args.time, full, args.set)
        kind = re.sub(r'\d+(\.5)?$', 'n', stip)
        row = rows.setdefault(kind, {'problems': 0, 'popeye': 0, 'pnmate': 0, 'agreed': 0, 'wrong': 0, 'ratios': []})
        row['problems'] += 1
        row['popeye'] += pop is not None
        row['pnmate'] += pn is not None
        verdict = 'unsolved'
        if pop is not None and pn is not None:
            if pop == pn:
                verdict = 'agreed'
                row['agreed'] += 1
                row['ratios'].append(pn_t / max(pop_t, 1e-3))
            elif args.intelligent and intelligent_allowed(stip) and pn > pop and \
                    run_popeye(args.popeye, fen, stip, 6 * args.time)[0] == pn:
                # Popeye's intelligent mode is not complete: where it lists fewer lines
                # and its brute force lists pnmate's, the two agree.
                verdict = 'agreed'
                row['agreed'] += 1
                missed.append(f'{fen} | {stip}: {len(pn - pop)}')
            else:
                verdict = 'WRONG'
                row['wrong'] += 1
                wrong += 1
                if full:
                    a, b = list(flat(pop)), list(flat(pn))
                    print(f'DIFFER {fen} | {stip}\n  popeye:\n    ' + '\n    '.join(a[:40]) +
                          '\n  pnmate:\n    ' + '\n    '.join(b[:40]))
                else:
                    print(f'DIFFER {fen} | {stip}\n  popeye only: {sorted(pop - pn)[:5]}\n'
                          f'  pnmate only: {sorted(pn - pop)[:5]}')
        show = (lambda t: list(flat(t))) if full else (lambda t: sorted(t))
        records.append({'fen': fen, 'stip': stip, 'verdict': verdict, 'popeye': show(pop or []),
                        'pnmate': show(pn or []), 'popeye_s': pop_t, 'pnmate_s': pn_t})
        print(f'[{i + 1}/{len(problems)}] {stip:8} {verdict:8} lines {len(pn or []):3} '
              f'pnmate {pn_t:6.2f}s popeye {pop_t:6.2f}s', file=sys.stderr)
    print(f'{len(problems)} problems, {args.time:g} s each, one thread each')
    print(f"{'stipulation':12} {'problems':>8} {'popeye':>7} {'pnmate':>7} {'agreed':>7} {'wrong':>6} {'median time ratio':>18}")
    for kind, r in sorted(rows.items()):
        ratio = f"{statistics.median(r['ratios']):.2f}" if r['ratios'] else '-'
        print(f"{kind:12} {r['problems']:8} {r['popeye']:7} {r['pnmate']:7} {r['agreed']:7} {r['wrong']:6} {ratio:>18}")
    for m in missed:
        print(f"Popeye's intelligent mode missed lines its brute force finds, as pnmate does: {m}")
    if args.json:
        json.dump(records, open(args.json, 'w'), indent=1)
    sys.exit(1 if wrong else 0)


if __name__ == '__main__':
    main()
