#!/usr/bin/env python3
"""Fits the K+R v K model of the prover's progress numbers and writes it as Rust
(src/knowledge/fitted/rook_mate.rs), as fit_kqkr.py does for K+Q v K+R.

Walks the tablebase lines of an EPD suite of K+R v K mates (`FEN bm #N; PV: ...;`),
takes every position on them with the rook's side to move and the rook on the board,
labels it with its distance to mate, turns the board so that the defending king stands
in the triangle a1-d1-d4, and fits an additive model, least squares with a small ridge:
one table for the defending king's square there, one for its safe flight squares, and
one for each of three placements as offsets (file and rank steps, -7..7 each): the
attacking king and the rook seen from the defending king, the rook seen from the
attacking king.

Prints the variance explained on held-out halves of the lines, the model against the
measure it replaced (twice the defending king's edge distance plus the kings' distance)
and against tables of those two distances, then writes the tables in units of 20 a move,
each table's smallest entry 0. Run from the repository root:
  python3 tools/fit_krk.py epd/public/KRvK1000pv.epd src/knowledge/fitted/rook_mate.rs
Needs: pip install chess numpy.
"""
import sys

import chess
import numpy as np

from fit_kqkr import TRIANGLE, fitted_tables, held_out, offset, one_hot, rust_table, safe_flights, turn, write_tables
from tablebase_fit import RIDGE, edge, samples

OFFSETS = {
    'king': 'The attacking king seen from the defending king',
    'rook': 'The rook seen from the defending king',
    'rook_from_king': 'The rook seen from the attacking king',
}
SIZES = {'defender': len(TRIANGLE), 'flights': 9, **{name: 225 for name in OFFSETS}}


def features(board):
    strong, weak = board.turn, not board.turn
    sk, wk = board.king(strong), board.king(weak)
    rook = next(iter(board.pieces(chess.ROOK, strong)))
    flights = safe_flights(board, strong)
    at = turn(wk, sk)
    w, s, r = at(wk), at(sk), at(rook)
    plain = {'edge': edge(wk), 'kings': chess.square_distance(sk, wk)}
    new = {'defender': TRIANGLE.index(w), 'flights': flights, 'king': offset(s, w), 'rook': offset(r, w),
           'rook_from_king': offset(r, s)}
    return plain, new


def rook_alone(board, strong):
    """The rook on the board (not yet taken by the defending king)."""
    return len(board.piece_map()) == 3 and board.pieces(chess.ROOK, strong)


def main(path, target):
    data = list(samples(path, rook_alone, features))
    lines = np.array([s[0] for s in data])
    y = np.array([s[1] for s in data], float)
    xn = one_hot([s[2][1] for s in data], SIZES)
    xt = one_hot([s[2][0] for s in data], {'edge': 4, 'kings': 8})
    xo = np.array([[2 * s[2][0]['edge'] + s[2][0]['kings']] for s in data], float)
    print(f'{len(y)} positions from {len(set(lines))} lines')
    for seed, scores in held_out(lines, y, (xn, xo, xt)):
        print(f'held-out half {seed}: model explains {scores[0]:.3f}, twice the edge plus the kings\' distance '
              f'{scores[1]:.3f}, tables of those two {scores[2]:.3f} (ridge {RIDGE})')
    write_tables(target, 'tools/fit_krk.py', rust_table(fitted_tables(xn, y, SIZES), OFFSETS), 'rook_mate')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
