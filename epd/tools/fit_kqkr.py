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
import sys

import chess

from tablebase_fit import edge, report, samples

FEATURES = {  # name: largest value
    'edge': 3, 'corner': 3, 'kings': 7, 'rook_king': 7, 'rook_own_king': 7,
    'queen_king': 7, 'flights': 8, 'rook_edge': 3, 'own_king_edge': 3,
}


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


def heavy(board, strong):
    """Both heavy pieces on the board: the queen's side's and the rook's side's."""
    return len(board.piece_map()) == 4 and board.pieces(chess.QUEEN, strong) and board.pieces(chess.ROOK, not strong)


def mop_up(f):
    """The fallback's general mop-up terms for a defended king, for comparison."""
    return 30 * (3 - f['edge']) + 20 * (7 - f['kings']) + 12 * (8 - f['flights']) + 8 * f['rook_king']


if __name__ == '__main__':
    report(list(samples(sys.argv[1], heavy, features)), FEATURES, mop_up, 'mop-up terms')
