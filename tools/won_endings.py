#!/usr/bin/env python3
"""Won endings in clock play against Stockfish: issue 9's conversion test.

Draws a mixed set of won positions (per kind, `--per-kind` of them, seeded): K+B+B v K
mates of 10 moves or more, K+B+N v K of 20 or more, K+R v K of 10 or more and K+Q v K+R
of 20 or more from the public suites, and random K+Q v K placements with the queen's
side to move (the queen not hanging). The engine plays the winning side, Stockfish the
other, both through python-chess `engine.play` with a real clock (10 s + 0.1 s each) and
the game's moves sent as history. A game counts only when it ends in checkmate; the
referee ends it on checkmate, stalemate, insufficient material, a position on the board
for the third time, the 50-move rule, a threefold repetition Stockfish, to move, can
claim, or a flag. `--jobs 2` plays two games at once (one per core: each game's two
engines take turns). Prints one line per game and a summary.

Run from the repository root:
  python3 tools/won_endings.py --engine target/release/pnmate --seed 5401 --jobs 2
Needs: pip install chess, and Stockfish (apt-get install stockfish).
"""
import argparse
import random
import time
from concurrent.futures import ThreadPoolExecutor

import chess
import chess.engine

SUITES = 'epd/public'
KINDS = [
    ('K+B+B v K', 'endgames/KBBvK500pv.epd', 10),
    ('K+B+N v K', 'endgames/KBNvK500pv.epd', 20),
    ('K+R v K', 'KRvK1000pv.epd', 10),
    ('K+Q v K+R', 'KQvKR1000pv.epd', 20),
]
INCREMENT = 0.1


def drawn(path, count, min_moves, rng):
    """`count` positions of the suite at `path` whose mate is `min_moves` or longer, as
    (board, the winning side)."""
    picked = []
    with open(path) as f:
        for line in f:
            if ' bm #' not in line:
                continue
            moves = int(line.split('bm #')[1].split(';')[0])
            if abs(moves) >= min_moves:
                picked.append((' '.join(line.split()[:4]), moves))
    out = []
    for fen, moves in rng.sample(picked, count):
        board = chess.Board(fen + ' 0 1')
        out.append((board, board.turn if moves > 0 else not board.turn))
    return out


def queen_against_king(count, rng):
    """`count` random legal K+Q v K placements, the queen's side (white) to move, the queen
    not left to the defending king."""
    out = []
    while len(out) < count:
        wk, wq, bk = rng.sample(range(64), 3)
        board = chess.Board(None)
        board.set_piece_at(wk, chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(wq, chess.Piece(chess.QUEEN, chess.WHITE))
        board.set_piece_at(bk, chess.Piece(chess.KING, chess.BLACK))
        # Not valid: the black king in check with white to move, or the kings side by side.
        if not board.is_valid():
            continue
        if board.is_attacked_by(chess.BLACK, wq) and not board.is_attacked_by(chess.WHITE, wq):
            continue
        out.append((board, chess.WHITE))
    return out


def play(engine_cmd, stockfish, start, strong, hash_mb):
    """One game from `start` with `engine_cmd` playing `strong`: (result, the final board)."""
    ours = chess.engine.SimpleEngine.popen_uci(engine_cmd)
    ours.configure({'Hash': hash_mb})
    theirs = chess.engine.SimpleEngine.popen_uci(stockfish)
    clock = {chess.WHITE: 10.0, chess.BLACK: 10.0}
    game = start.copy()
    try:
        while True:
            if game.is_checkmate():
                return ('mate' if game.turn != strong else 'mated'), game
            if game.is_stalemate():
                return 'stalemate', game
            if game.is_insufficient_material():
                return 'insufficient material', game
            if game.is_repetition(3):
                return 'threefold', game
            if game.halfmove_clock >= 100:
                return '50-move', game
            engine = ours if game.turn == strong else theirs
            if engine is theirs and game.can_claim_threefold_repetition():
                return 'claimed threefold', game
            limit = chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                       white_inc=INCREMENT, black_inc=INCREMENT)
            t0 = time.time()
            move = engine.play(game, limit).move
            clock[game.turn] -= time.time() - t0
            if clock[game.turn] < 0:
                return ('flag' if engine is ours else 'Stockfish flagged'), game
            clock[game.turn] += INCREMENT
            game.push(move)
    finally:
        ours.quit()
        theirs.quit()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--engine', required=True, help='the UCI engine playing the winning side')
    parser.add_argument('--stockfish', default='/usr/games/stockfish')
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--per-kind', type=int, default=4)
    parser.add_argument('--jobs', type=int, default=1)
    parser.add_argument('--hash', type=int, default=256)
    parser.add_argument('--suites', default=SUITES, help='the folder of the public suites')
    args = parser.parse_args()
    rng = random.Random(args.seed)
    games = []
    for kind, path, min_moves in KINDS:
        games += [(kind, *g) for g in drawn(f'{args.suites}/{path}', args.per_kind, min_moves, rng)]
    games += [('K+Q v K', *g) for g in queen_against_king(args.per_kind, rng)]

    def one(game):
        kind, start, strong = game
        return game, play(args.engine, args.stockfish, start, strong, args.hash)

    won = 0
    with ThreadPoolExecutor(args.jobs) as pool:
        for (kind, start, strong), (result, final) in pool.map(one, games):
            won += result == 'mate'
            plies = len(final.move_stack)
            print(f'{kind:10} {start.fen()}\t{result}\t{plies} plies', flush=True)
    print(f'won {won}/{len(games)} by checkmate')


if __name__ == '__main__':
    main()
