#!/usr/bin/env python3
"""Fits the prover's progress distances of quiet mates against a lone king
(src/search/progress.rs: `bishop_and_knight_distance`, `bishops_distance`).

Walks the tablebase lines of an EPD suite of K+B+N v K or K+B+B v K mates (`FEN bm #N;
PV: ...;`), takes every position on them with the mating side to move and all four men
on the board, labels it with its distance to mate, and fits an additive model of the
kings' placement: one table per feature, least squares with a small ridge.
- kbn: the defending king's distance to the nearer corner of the bishop's colour, to
  the nearer other corner and to the edge, the kings' distance, the attacking king's
  distance to that mating corner;
- kbb: the defending king's distance to the nearest corner and to the edge, the kings'
  distance, the attacking king's distance to that corner.
Of two corners equally near the defending king, the one nearer the attacking king.
Prints the variance explained on held-out lines (the model against the measure it
replaced: twice the corner distance plus the kings' distance) and the tables in units
of 20 a move, each table's smallest entry 0. `--half` fits on the first half of the
lines only (the split the held-out figures use first), to measure on the other half.
Run from the repository root:
  python3 epd/tools/fit_progress.py kbn ../shared/epd/endgames/KBNvK500pv.epd
  python3 epd/tools/fit_progress.py kbb ../shared/epd/endgames/KBBvK500pv.epd
Needs: pip install chess numpy.
"""
import re
import sys

import chess
import numpy as np

RIDGE = 5.0
KIND = sys.argv[1]
FEATURES = {  # name: largest value
    'kbn': {'corner': 7, 'other_corner': 7, 'edge': 3, 'kings': 7, 'own_king_corner': 7},
    'kbb': {'corner': 3, 'edge': 3, 'kings': 7, 'own_king_corner': 7},
}[KIND]
CORNERS = (chess.A1, chess.A8, chess.H1, chess.H8)


def edge(sq):
    f, r = chess.square_file(sq), chess.square_rank(sq)
    return min(f, 7 - f, r, 7 - r)


def features(board):
    strong, weak = board.turn, not board.turn
    sk, wk = board.king(strong), board.king(weak)
    d = chess.square_distance
    if KIND == 'kbn':
        bishop = next(iter(board.pieces(chess.BISHOP, strong)))
        dark = bool(chess.BB_DARK_SQUARES & chess.BB_SQUARES[bishop])
        mating = (chess.A1, chess.H8) if dark else (chess.A8, chess.H1)
    else:
        mating = CORNERS
    corner = min(mating, key=lambda c: (d(wk, c), d(sk, c)))
    f = {'corner': d(wk, corner), 'edge': edge(wk), 'kings': d(sk, wk), 'own_king_corner': d(sk, corner)}
    if KIND == 'kbn':
        f['other_corner'] = min(d(wk, c) for c in CORNERS if c not in mating)
    return f


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
            if board.turn == strong and len(board.piece_map()) == 4:
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
    data = list(samples(sys.argv[2]))
    lines = np.array([s[0] for s in data])
    y = np.array([s[1] for s in data], float)
    x = one_hot([s[2] for s in data])
    old = np.array([2 * f['corner'] + f['kings'] for _, _, f in data], float)
    print(f'{len(y)} positions from {len(set(lines))} lines')
    for seed in range(3):
        train = (np.random.default_rng(seed).random(lines.max() + 1) < 0.5)[lines]
        c = fit(x[train], y[train])
        model = explained(np.c_[x[~train], np.ones((~train).sum())] @ c, y[~train])
        m = np.c_[old, np.ones(len(y))]
        g, *_ = np.linalg.lstsq(m[train], y[train], rcond=None)
        print(f'held-out half {seed}: model explains {model:.2f}, the old measure {explained(m[~train] @ g, y[~train]):.2f}')
    if '--half' in sys.argv:
        first = (np.random.default_rng(0).random(lines.max() + 1) < 0.5)[lines]
        x, y = x[first], y[first]
    c = fit(x, y)
    i = 0
    for name, top in FEATURES.items():
        table = c[i:i + top + 1]
        i += top + 1
        print(f'{name:>16}: {[int(round(20 * (v - table.min()))) for v in table]}')


if __name__ == '__main__':
    main()
