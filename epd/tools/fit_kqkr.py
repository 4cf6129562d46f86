#!/usr/bin/env python3
"""Fits the fallback's K+Q v K+R model (src/fallback.rs, `queen_against_rook`).

Walks the tablebase lines of an EPD suite of K+Q v K+R mates (`FEN bm #N; PV: ...;`),
takes every position on them with the queen's side to move and both heavy pieces on
the board, labels it with its distance to mate, and fits an additive model: one table
per placement feature (the defending king's distance to the edge and to a corner, the
kings' distance, the rook's distance to either king and to the edge, the queen's
distance to the defending king, the attacking king's distance to the edge, the
defending king's safe flight squares), least squares with a small ridge.
Prints the variance explained on held-out lines (the model against the fallback's
general mop-up terms) and the tables in the fallback's units (20 a move, each table's
smallest entry 0). Run from the repository root:
  python3 epd/tools/fit_kqkr.py ../shared/epd/KQvKR1000pv.epd
Needs: pip install chess numpy.
"""
import re
import sys

import chess
import numpy as np

RIDGE = 5.0
FEATURES = {  # name: largest value
    'edge': 3, 'corner': 3, 'kings': 7, 'rook_king': 7, 'rook_own_king': 7,
    'queen_king': 7, 'flights': 8, 'rook_edge': 3, 'own_king_edge': 3,
}


def edge(sq):
    f, r = chess.square_file(sq), chess.square_rank(sq)
    return min(f, 7 - f, r, 7 - r)


def features(board):
    strong, weak = board.turn, not board.turn
    sk, wk = board.king(strong), board.king(weak)
    queen = next(iter(board.pieces(chess.QUEEN, strong)))
    rook = next(iter(board.pieces(chess.ROOK, weak)))
    d = chess.square_distance
    without_king = board.copy(stack=False)
    without_king.remove_piece_at(wk)
    flights = sum(1 for sq in chess.SquareSet(chess.BB_KING_ATTACKS[wk])
                  if board.color_at(sq) != weak and not without_king.is_attacked_by(strong, sq))
    return {
        'edge': edge(wk), 'corner': min(d(wk, c) for c in (chess.A1, chess.A8, chess.H1, chess.H8)),
        'kings': d(sk, wk), 'rook_king': d(rook, wk), 'rook_own_king': d(rook, sk),
        'queen_king': d(queen, wk), 'flights': flights, 'rook_edge': edge(rook), 'own_king_edge': edge(sk),
    }


def samples(path):
    """(line number, distance to mate, features) for each position on the lines."""
    for number, line in enumerate(open(path)):
        m = re.search(r'bm #(-?\d+); PV: ([^;]*);', line)
        if not m:
            continue
        n, pv = int(m.group(1)), m.group(2).split()
        board = chess.Board(' '.join(line.split()[:4]) + ' 0 1')
        strong = board.turn if n > 0 else not board.turn
        to_mate = abs(n)
        for move in pv:
            heavy = len(board.piece_map()) == 4 and board.pieces(chess.QUEEN, strong) and board.pieces(chess.ROOK, not strong)
            if board.turn == strong and heavy:
                yield number, to_mate, features(board)
            board.push_uci(move)
            if board.turn == strong:
                to_mate -= 1


def one_hot(rows):
    return np.array([[float(f[name] == v) for name, top in FEATURES.items() for v in range(top + 1)] for f in rows])


def fit(x, y):
    a = np.c_[x, np.ones(len(y))]
    ridge = RIDGE * np.eye(a.shape[1])
    ridge[-1, -1] = 0
    return np.linalg.solve(a.T @ a + ridge, a.T @ y)


def explained(pred, y):
    return 1 - ((pred - y) ** 2).sum() / ((y - y.mean()) ** 2).sum()


def main():
    data = list(samples(sys.argv[1]))
    lines = np.array([s[0] for s in data])
    y = np.array([s[1] for s in data], float)
    x = one_hot([s[2] for s in data])
    # The fallback's general mop-up terms for a defended king, for comparison.
    mop = np.array([30 * (3 - f['edge']) + 20 * (7 - f['kings']) + 12 * (8 - f['flights']) + 8 * f['rook_king']
                    for _, _, f in data], float)
    print(f'{len(y)} positions from {len(set(lines))} lines')
    for seed in range(3):
        train = (np.random.default_rng(seed).random(lines.max() + 1) < 0.5)[lines]
        c = fit(x[train], y[train])
        model = explained(np.c_[x[~train], np.ones((~train).sum())] @ c, y[~train])
        m = np.c_[mop, np.ones(len(y))]
        g, *_ = np.linalg.lstsq(m[train], y[train], rcond=None)
        print(f'held-out half {seed}: model explains {model:.2f}, mop-up terms {explained(m[~train] @ g, y[~train]):.2f}')
    c = fit(x, y)
    i = 0
    for name, top in FEATURES.items():
        table = c[i:i + top + 1]
        i += top + 1
        print(f'{name:>14}: {[int(round(20 * (v - table.min()))) for v in table]}')


if __name__ == '__main__':
    main()
