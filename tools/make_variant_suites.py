#!/usr/bin/env python3
"""Makes the variant suites in epd/variants/: won positions of lichess's seven variants,
each with the length of a win that python-chess has replayed.

Six variants come from Fairy-Stockfish self-play (`apt-get install fairy-stockfish`):
games start with a few random moves, then Fairy-Stockfish plays both sides at a short
movetime. A position where it reports a win (`score mate N`, N > 0, for the side to
move) is kept when the game, played on python-chess's board of the variant, then ends
in that side's win within N moves: the game's moves are the replayed line. Atomic, which Fairy-Stockfish 11.1 lacks, comes
from python-chess playouts with a brute-force search for wins within two moves, and
from longer wins that an engine given with --atomic-engine (pnmate) proves, replayed the
same way. Each game gives at most three positions, their lengths three moves apart.

  python3 tools/make_variant_suites.py --per-variant 220 --seed 1 \\
      --atomic-engine target/release/pnmate

Needs python-chess (pip install chess). Lines read `FEN bm #N; source S;`.
"""
import argparse
import os
import random
import sys

import chess
import chess.engine
import chess.variant

from compare import VARIANTS

FAIRY = '/usr/games/fairy-stockfish'


def board_of(variant, fen=None):
    cls = chess.variant.find_variant(variant)
    return cls(fen) if fen else cls()


def winner_of(board):
    """The side that has won at `board`, or None (game on, or drawn)."""
    if not board.is_game_over(claim_draw=False):
        return None
    return board.outcome(claim_draw=False).winner


def replays(variant, fen, mate, line):
    """Whether `line` from `fen` is a win in `mate` moves for the side to move: legal,
    of length 2*mate-1 or 2*mate plies, the game going on until its last move and won by
    the side to move there."""
    board = board_of(variant, fen)
    side = board.turn
    if len(line) not in (2 * mate - 1, 2 * mate):
        return False
    for i, move in enumerate(line):
        if board.is_game_over(claim_draw=False) or move not in board.legal_moves:
            return False
        board.push(move)
    return winner_of(board) == side


def random_opening(variant, rng, plies):
    board = board_of(variant)
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves or board.is_game_over():
            break
        board.push(rng.choice(moves))
    return board


def fairy_games(variant, want, rng, movetime, log):
    """Won positions from Fairy-Stockfish self-play: (fen, mate, source). A position
    where it reports a win in N for the side to move is kept when the game then ends in
    that side's win, on python-chess's board, within N moves: the game's own moves are
    the replayed line, so a line Fairy-Stockfish cut short in its report does not matter."""
    engine = chess.engine.SimpleEngine.popen_uci(FAIRY)
    found, seen, games = [], set(), 0
    try:
        while len(found) < want and games < 40 * want:
            games += 1
            board = random_opening(variant, rng, rng.randint(2, 8))
            claims = []
            while not board.is_game_over(claim_draw=True) and board.ply() < 400:
                info = engine.analyse(board, chess.engine.Limit(time=movetime), game=variant)
                score, pv = info.get('score'), info.get('pv', [])
                mate = score.pov(board.turn).mate() if score else None
                if mate and mate > 0:
                    claims.append((board.fen(), mate, board.turn, board.ply()))
                if not pv:
                    break
                board.push(pv[0])
            winner = winner_of(board)
            # Up to three of the game's claims, drawn at random, so that lengths spread.
            taken = []
            rng.shuffle(claims)
            for fen, mate, side, ply in claims:
                spaced = all(abs(mate - m) >= 3 for m in taken)
                if side == winner and board.ply() - ply <= 2 * mate and spaced and len(taken) < 3 and fen not in seen:
                    taken.append(mate)
                    seen.add(fen)
                    found.append((fen, mate, 'fairy-stockfish'))
            log(f'{variant}: game {games}, {len(found)} positions')
    finally:
        engine.quit()
    return found[:want]


def wins_within(board, plies, side):
    """A line of at most `plies` plies that wins for `side` against every defence, by
    brute force (None when there is none)."""
    if board.is_game_over(claim_draw=False):
        return [] if winner_of(board) == side else None
    if plies == 0:
        return None
    attacking = board.turn == side
    best = None
    for move in list(board.legal_moves):
        board.push(move)
        sub = wins_within(board, plies - 1, side)
        board.pop()
        if attacking and sub is not None:
            if best is None or len(sub) + 1 < len(best):
                best = [move] + sub
        elif not attacking:
            if sub is None:
                return None
            if best is None or len(sub) + 1 > len(best):
                best = [move] + sub
    return best


def atomic_positions(want, rng, engine_cmd, movetime, log):
    """Won atomic positions: brute-forced short wins, then an engine's proven longer
    ones, every line replayed here."""
    found, seen = [], set()
    engine = chess.engine.SimpleEngine.popen_uci(engine_cmd) if engine_cmd else None
    by_engine = 0
    try:
        games = 0
        while len(found) < want and games < 100 * want:
            games += 1
            board = random_opening('atomic', rng, rng.randint(6, 30))
            if board.is_game_over(claim_draw=False):
                continue
            # Captures (and so explosions) first: playouts biased towards decisive play.
            for _ in range(rng.randint(0, 20)):
                moves = list(board.legal_moves)
                if not moves or board.is_game_over():
                    break
                captures = [m for m in moves if board.is_capture(m)]
                board.push(rng.choice(captures if captures and rng.random() < 0.5 else moves))
            if board.is_game_over(claim_draw=False):
                continue
            fen = board.fen()
            if fen in seen:
                continue
            # Wins in one at most a quarter of the suite; wins in two by brute force
            # where the tree is small; longer ones from the engine.
            line = wins_within(board.copy(), 1, board.turn)
            if line is not None and sum(m == 1 for _, m, _ in found) >= want // 4:
                continue
            if line is None and len(list(board.legal_moves)) <= 20:
                line = wins_within(board.copy(), 3, board.turn)
            if line is not None:
                mate = (len(line) + 1) // 2
                if replays('atomic', fen, mate, line):
                    seen.add(fen)
                    found.append((fen, mate, 'brute force'))
            elif engine and by_engine < want // 2:
                info = engine.analyse(board, chess.engine.Limit(time=movetime), game=object())
                score = info.get('score')
                mate = score.pov(board.turn).mate() if score else None
                if mate and mate > 2 and replays('atomic', fen, mate, info.get('pv', [])):
                    seen.add(fen)
                    found.append((fen, mate, 'pnmate'))
                    by_engine += 1
            log(f'atomic: {games} playouts, {len(found)} positions ({by_engine} by engine)')
    finally:
        if engine:
            engine.quit()
    return found[:want]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--per-variant', type=int, default=220)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--movetime', type=float, default=0.03, help="Fairy-Stockfish's seconds per move")
    ap.add_argument('--atomic-engine', help='an engine proving longer atomic wins (pnmate)')
    ap.add_argument('--variant', action='append', help='only these variants (repeat)')
    ap.add_argument('--out', default=os.path.join(os.path.dirname(__file__), '..', 'epd', 'variants'))
    args = ap.parse_args()

    def log(text):
        print('\r' + text + ' ' * 10, end='', file=sys.stderr)

    os.makedirs(args.out, exist_ok=True)
    for variant in args.variant or VARIANTS:
        rng = random.Random(f'{args.seed}-{variant}')
        if variant == 'atomic':
            found = atomic_positions(args.per_variant, rng, args.atomic_engine, 0.5, log)
        else:
            found = fairy_games(variant, args.per_variant, rng, args.movetime, log)
        print(file=sys.stderr)
        path = os.path.join(args.out, f'{variant}.epd')
        with open(path, 'w') as f:
            f.write(f'# {variant}: won positions, made by tools/make_variant_suites.py --seed {args.seed}\n')
            for fen, mate, source in found:
                f.write(f'{fen} bm #{mate}; source {source};\n')
        print(f'{path}: {len(found)} positions', file=sys.stderr)


if __name__ == '__main__':
    main()
