#!/usr/bin/env python3
"""Runs UCI engines side by side on an EPD mate suite and checks every mate they claim.

Each engine gets the same positions and the same `go movetime`, one engine per process
(engines run in parallel with --jobs). Every `score mate M` an engine reports is kept
with the time it came; its line is checked here with python-chess, trusting nothing the
engine says:
  * every move is legal,
  * the line is exactly 2M-1 plies for "mate M" and 2|M| for "mate -M",
  * it ends in checkmate,
  * the mated side could claim no draw (50-move rule, threefold repetition) on its
    turns along the line.
A position counts as found at time t when the last claim by t is such a line with the
suite's sign, and as best when its length is also the suite's |N| (or shorter: a better
mate, whose line proves it). A claim whose line fails a check is a bad claim.

  python3 tools/compare.py --engine target/release/pnmate --engine /usr/games/stockfish \\
      --epd epd/public/matetrack.epd --sample 200 --seed 1 --time 1

--syzygy DIR gives every engine that offers SyzygyPath the same tablebases.

--variant NAME runs a suite of one of lichess's variants (epd/variants/NAME.epd, lines
`FEN bm #N;` with the variant's FEN); python-chess sends UCI_Variant, and lines are
checked on its board of the variant: legal, 2|M|-1 or 2|M| plies (the win falls on
the winner's move or on the loser's, as when an antichess player must take the last
man), the game going on until the last move and won there by the claimant, and no
draw the loser could claim on its turns along the line. Moves a line gives after the
game has ended are dropped before it is judged.

--fresh starts a new engine process for every position, as a user who starts the engine
to ask one question does: what the engine does on first contact (allocating its table,
building or reading its exact tables) counts. An answer (`bestmove`) later than the
time plus --grace seconds counts as late; claims made after that are not counted.

Needs python-chess (pip install chess). Prints one row per engine; --json writes every
position's claims.
"""
import argparse
import json
import random
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import chess
import chess.engine

LINE = re.compile(r'^(\S+ [wb] \S+ \S+)(?: (\d+) (\d+))?.*?\bbm #(-?\d+);')


VARIANT_LINE = re.compile(r'^(.*?) bm #(-?\d+);')

BOARD = chess.Board

# lichess's variants, by the names python-chess and UCI_Variant give them.
VARIANTS = ['antichess', 'atomic', 'crazyhouse', 'horde', 'kingofthehill', 'racingkings', '3check']


def load(path, sample=None, seed=1):
    """The suite's (fen, bm) pairs, legal positions only, each FEN once; a random sample
    of `sample` of them drawn with `seed`, in file order."""
    items, seen = [], set()
    with open(path) as f:
        for line in f:
            if BOARD is chess.Board:
                m = LINE.match(line.strip())
                if not m or m.group(1) in seen:
                    continue
                key, fen, bm = m.group(1), m.group(1) + (f' {m.group(2)} {m.group(3)}' if m.group(2) else ' 0 1'), m.group(4)
            else:
                m = VARIANT_LINE.match(line.strip())
                if not m or line.startswith('#') or m.group(1) in seen:
                    continue
                key, fen, bm = m.group(1), m.group(1), m.group(2)
            try:
                if not BOARD(fen).is_valid():
                    continue
            except ValueError:
                continue
            seen.add(key)
            items.append((fen, int(bm)))
    if sample and sample < len(items):
        keep = set(random.Random(seed).sample(range(len(items)), sample))
        items = [x for i, x in enumerate(items) if i in keep]
    return items


def check_variant_line(fen, mate, line):
    """None when `line` proves a win in |`mate`| from `fen` for the side to move (mate > 0)
    or its opponent (mate < 0) under the variant's rules, else why it does not."""
    board = BOARD(fen)
    winner = board.turn if mate > 0 else not board.turn
    for ply, move in enumerate(line):
        if board.is_game_over(claim_draw=False):
            return f'the game is over before ply {ply}'
        if board.turn != winner and (board.can_claim_fifty_moves() or board.can_claim_threefold_repetition()):
            return f'the losing side can claim a draw at ply {ply}'
        if move not in board.legal_moves:
            return f'illegal move {move.uci()} at ply {ply}'
        board.push(move)
    if len(line) not in (2 * abs(mate) - 1, 2 * abs(mate)):
        return f'{len(line)} plies for a win in {mate}'
    outcome = board.outcome(claim_draw=False)
    return None if outcome is not None and outcome.winner == winner else 'does not end in a win'


def _variation_to_the_end(root_board, line):
    """python-chess's parser of a `pv`, except that the moves after the game has ended
    are dropped instead of the whole line: Fairy-Stockfish's racing kings lines go on
    one ply past the win, and python-chess would otherwise report no line at all."""
    board = root_board.copy(stack=False)
    moves = []
    while True:
        token, rest = chess.engine._next_token(line)
        if not chess.engine.UCI_REGEX.match(token):
            return moves, line
        if not board.is_variant_end():
            moves.append(board.push_uci(token))
        line = rest


def use_variant(name):
    """Judges the suites and lines of lichess's variant `name` from now on."""
    global BOARD
    import chess.variant
    BOARD = chess.variant.find_variant(name)
    chess.engine._create_variation_line = _variation_to_the_end


def check_line(fen, mate, line):
    """None when `line` proves "mate `mate`" from `fen`, else why it does not."""
    if BOARD is not chess.Board:
        return check_variant_line(fen, mate, line)
    board = chess.Board(fen)
    mated = board.turn if mate < 0 else not board.turn
    for ply, move in enumerate(line):
        if board.turn == mated and (board.can_claim_fifty_moves() or board.can_claim_threefold_repetition()):
            return f'the mated side can claim a draw at ply {ply}'
        if move not in board.legal_moves:
            return f'illegal move {move.uci()} at ply {ply}'
        board.push(move)
    want = 2 * mate - 1 if mate > 0 else -2 * mate
    if len(line) != want:
        return f'{len(line)} plies for mate {mate}'
    return None if board.is_checkmate() else 'does not end in checkmate'


def judge(fen, bm, claim):
    """'none', 'bad', 'wrong sign', 'found' or 'best' for the claim (mate, line) or None."""
    if claim is None:
        return 'none'
    mate, line = claim
    if check_line(fen, mate, line) is not None:
        return 'bad'
    if (mate > 0) != (bm > 0):
        return 'wrong sign'
    return 'best' if abs(mate) <= abs(bm) else 'found'


class Engine:
    """One UCI engine process, restarted if it dies."""

    def __init__(self, command, hash_mb, threads, syzygy=None, options=None):
        self.command, self.hash_mb, self.threads, self.syzygy = command, hash_mb, threads, syzygy
        self.options = options or {}
        self.process = None
        self.name = command

    def start(self):
        self.process = chess.engine.SimpleEngine.popen_uci(self.command.split(), timeout=30)
        self.name = self.process.id.get('name', self.command)
        options = {}
        if 'Hash' in self.process.options:
            options['Hash'] = self.hash_mb
        if 'Threads' in self.process.options:
            options['Threads'] = self.threads
        if self.syzygy and 'SyzygyPath' in self.process.options:
            options['SyzygyPath'] = self.syzygy
        options.update({k: v for k, v in self.options.items() if k in self.process.options})
        self.process.configure(options)

    def claims(self, fen, seconds):
        """Every mate claim of one search as (time, mate, line), and its wall time."""
        if self.process is None:
            self.start()
        board = BOARD(fen)
        claims, start = [], time.monotonic()
        try:
            # A new game object per search: python-chess sends ucinewgame, so every
            # position starts from an empty table.
            with self.process.analysis(board, chess.engine.Limit(time=seconds), game=object()) as search:
                for info in search:
                    score = info.get('score')
                    if info.get('multipv', 1) != 1 or score is None or 'lowerbound' in info or 'upperbound' in info:
                        continue
                    mate = score.pov(board.turn).mate()
                    if mate:
                        claims.append((time.monotonic() - start, mate, info.get('pv', [])))
        except chess.engine.EngineError:
            self.close()
        return claims, time.monotonic() - start

    def close(self):
        if self.process is not None:
            try:
                self.process.quit()
            except Exception:
                self.process.close()
            self.process = None


def run_engine(command, suite, seconds, hash_mb, threads, syzygy, progress, fresh=False):
    """Every position's claims by one engine: a list of dicts, in suite order. With
    `fresh`, a new engine process searches each position."""
    engine = Engine(command, hash_mb, threads, syzygy)
    results = []
    for i, (fen, bm) in enumerate(suite):
        if fresh:
            engine.close()
        claims, wall = engine.claims(fen, seconds)
        results.append({'fen': fen, 'bm': bm, 'wall': wall,
                        'claims': [(t, m, [mv.uci() for mv in line]) for t, m, line in claims]})
        progress(command, i + 1, len(suite))
    name = engine.name
    engine.close()
    return name, results


def verdict_at(result, t):
    """The verdict of a position's last claim made by `t` seconds."""
    made = [(m, [chess.Move.from_uci(u) for u in line]) for at, m, line in result['claims'] if at <= t]
    return judge(result['fen'], result['bm'], made[-1] if made else None)


def tally(results, t):
    """Counts of found (found or best), best and bad claims by `t` seconds."""
    verdicts = [verdict_at(r, t) for r in results]
    return {
        'found': sum(v in ('found', 'best') for v in verdicts),
        'best': verdicts.count('best'),
        'bad': verdicts.count('bad') + verdicts.count('wrong sign'),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--engine', action='append', required=True, help='an engine command (repeat for more)')
    ap.add_argument('--epd', required=True)
    ap.add_argument('--sample', type=int)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--time', type=float, default=1.0, help='seconds per position')
    ap.add_argument('--hash', type=int, default=256)
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--jobs', type=int, default=1, help='engines searched at once')
    ap.add_argument('--json', help='write every claim here')
    ap.add_argument('--syzygy', help='SyzygyPath for every engine that has the option')
    ap.add_argument('--variant', help="the suite's variant (python-chess's UCI name, e.g. atomic)")
    ap.add_argument('--fresh', action='store_true', help='a new engine process for every position')
    ap.add_argument('--grace', type=float, default=0.15, help='seconds past --time before an answer is late')
    args = ap.parse_args()
    if args.variant and args.variant != 'chess':
        use_variant(args.variant)

    suite = load(args.epd, args.sample, args.seed)
    done = {}

    def progress(command, i, n):
        done[command] = i
        print('\r' + '  '.join(f'{c} {k}/{n}' for c, k in done.items()), end='', file=sys.stderr)

    with ThreadPoolExecutor(args.jobs) as pool:
        runs = list(pool.map(lambda c: run_engine(c, suite, args.time, args.hash, args.threads, args.syzygy, progress,
                                                  args.fresh), args.engine))
    print(file=sys.stderr)
    print(f'{args.epd}: {len(suite)} positions (seed {args.seed}), {args.time:g} s each, '
          f'{args.threads} thread(s), Hash {args.hash}' + (f', SyzygyPath {args.syzygy}' if args.syzygy else '')
          + (', a new engine per position' if args.fresh else ''))
    limit = args.time + args.grace
    print(f'{"engine":<40} {"found":>6} {"best":>6} {"bad":>5} {"late":>5} {"slowest":>8}')
    names = [n for n, _ in runs]
    for command, (name, results) in zip(args.engine, runs):
        c = tally(results, limit)
        late = sum(r['wall'] > limit for r in results)
        slowest = max(r['wall'] for r in results)
        label = name if names.count(name) == 1 else f'{name} ({command})'
        print(f'{label[:40]:<40} {c["found"]:>6} {c["best"]:>6} {c["bad"]:>5} {late:>5} {slowest:>7.2f}s')
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'epd': args.epd, 'seed': args.seed, 'time': args.time,
                       'engines': [{'command': c, 'name': n, 'results': r} for c, (n, r) in zip(args.engine, runs)]}, f)
    if any(tally(r, float('inf'))['bad'] for _, r in runs):
        sys.exit(1)


if __name__ == '__main__':
    main()
