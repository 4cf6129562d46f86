#!/usr/bin/env python3
"""Fits the prover's progress distances of quiet mates against a lone king
(src/knowledge/progress.rs: `bishop_and_knight_distance`, `bishops_distance`).

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
  python3 tools/fit_progress.py kbn epd/public/endgames/KBNvK500pv.epd --write src/knowledge/fitted/kbn.rs
  python3 tools/fit_progress.py kbb epd/public/endgames/KBBvK500pv.epd --half --write src/knowledge/fitted/kbb.rs
(--write writes the tables as the generated Rust file the engine reads.)
Needs: pip install chess numpy.
"""
import sys

import chess

from tablebase_fit import edge, report, samples, write_rust

KIND = sys.argv[1]
FEATURES = {  # name: largest value
    'kbn': {'corner': 7, 'other_corner': 7, 'edge': 3, 'kings': 7, 'own_king_corner': 7},
    'kbb': {'corner': 3, 'edge': 3, 'kings': 7, 'own_king_corner': 7},
}[KIND]
CORNERS = (chess.A1, chess.A8, chess.H1, chess.H8)


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


def four_men(board, strong):
    return len(board.piece_map()) == 4


if __name__ == '__main__':
    data = list(samples(sys.argv[2], four_men, features))
    fitted = report(data, FEATURES, lambda f: 2 * f['corner'] + f['kings'], 'the old measure', '--half' in sys.argv)
    if '--write' in sys.argv:
        doc = {'kbn': 'The K+B+N v K kings\' distance.', 'kbb': 'The K+B+B v K kings\' distance.'}[KIND]
        write_rust(sys.argv[sys.argv.index('--write') + 1], 'tools/fit_progress.py', KIND, doc, fitted)
