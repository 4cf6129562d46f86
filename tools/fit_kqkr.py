#!/usr/bin/env python3
"""Fits the K+Q v K+R model and writes it as Rust (src/knowledge/fitted/queen_rook.rs), where the
prover's progress numbers and the fallback's evaluation read it.

Reads training positions made by the `kqkr_lines` example from a distance-to-mate table
of the whole ending: positions on tablebase-optimal lines (kind 0) and, beside each, the
positions after the other white moves that keep the win and black's best reply (kind 1),
each with the queen's side to move and its distance to mate. The model must rank exactly
those: a search compares the position after the best move with those after its siblings.
A fit to the lines alone (such as the public suite's 1,000 lines) explains the lines well and the siblings badly; the siblings weigh
DEVIATION_WEIGHT each.

The model is additive, least squares with a small ridge. The board is first turned
(mirrored and flipped along the diagonal) so that the defending king stands in the
triangle a1-d1-d4; the model then has one table for the defending king's square there,
one for the safe flight squares it has, and one for each of five placements as offsets
(file and rank steps, -7..7 each): the attacking king, the rook and the queen seen from
the defending king, the rook seen from the attacking king and from the queen. Offsets
say what plain distances cannot: the opposition of the kings, a rook cut off on the far
side of its king, a queen a knight's move away.

Prints the variance explained on the held-out second half of the records (lines and
siblings apart), then writes the tables of the fit to all records in the fallback's
units (20 a move, each table's smallest entry 0). Run from the repository root:
  cargo run --release --example kqkr_lines -- lines 6000 2 /tmp/kqkr.bin epd/public/KQvKR1000pv.epd
  python3 tools/fit_kqkr.py /tmp/kqkr.bin src/knowledge/fitted/queen_rook.rs
Needs: pip install chess numpy.
"""
import sys

import chess
import numpy as np

from tablebase_fit import RIDGE, explained, first_half, fit

# The defending king's squares after turning the board, as (file, rank).
TRIANGLE = [(f, r) for f in range(4) for r in range(f + 1)]
OFFSETS = ['king', 'rook', 'queen', 'rook_from_king', 'rook_from_queen']
SIZES = {'defender': len(TRIANGLE), 'flights': 9, **{name: 225 for name in OFFSETS}}

# What each position beside the lines weighs in the fit against one on them (kind 1
# against kind 0): the value that explains both about equally well. Variance explained
# on the held-out lines and siblings (`kqkr_lines -- lines 6000 2`): 0 (lines alone)
# 0.845 and 0.557, 0.1 0.797 and 0.807, 1 0.722 and 0.830.
DEVIATION_WEIGHT = 0.1

def turn(wk, sk):
    """The map of squares to (file, rank) that puts `wk` in the triangle a1-d1-d4 and,
    with `wk` on its diagonal, `sk` on or below the diagonal."""
    wf, wr = chess.square_file(wk), chess.square_rank(wk)
    mirror, flip = wf > 3, wr > 3

    def mirrored(sq):
        f, r = chess.square_file(sq), chess.square_rank(sq)
        return (7 - f if mirror else f), (7 - r if flip else r)
    (wf, wr), (sf, sr) = mirrored(wk), mirrored(sk)
    transpose = wr > wf or (wr == wf and sr > sf)

    def at(sq):
        f, r = mirrored(sq)
        return (r, f) if transpose else (f, r)
    return at


def offset(to, frm):
    """Index of the step from `frm` to `to`: (file step + 7) * 15 + rank step + 7."""
    return (to[0] - frm[0] + 7) * 15 + (to[1] - frm[1] + 7)


def safe_flights(board, strong):
    """The squares next to the defending king it could step to: not its own men's, not
    attacked by `strong` with the king itself out of the way."""
    wk = board.king(not strong)
    without_king = board.copy(stack=False)
    without_king.remove_piece_at(wk)
    return sum(1 for sq in chess.SquareSet(chess.BB_KING_ATTACKS[wk])
               if board.color_at(sq) != (not strong) and not without_king.is_attacked_by(strong, sq))


def square_features(sk, queen, wk, rook):
    """The model's features of a position from its squares: the queen's side's king
    `sk` and queen, the defending king `wk` and its rook."""
    through_king = chess.BB_SQUARES[sk] | chess.BB_SQUARES[queen] | chess.BB_SQUARES[rook]
    flights = 0
    for sq in chess.SquareSet(chess.BB_KING_ATTACKS[wk] & ~chess.BB_SQUARES[rook] & ~chess.BB_KING_ATTACKS[sk]):
        seen = sq != queen and chess.BB_RAYS[queen][sq] and not chess.between(queen, sq) & through_king
        flights += not seen
    at = turn(wk, sk)
    w, s, q, r = at(wk), at(sk), at(queen), at(rook)
    return (TRIANGLE.index(w), flights, offset(s, w), offset(r, w), offset(q, w), offset(r, s), offset(r, q))


def one_hot(rows, sizes):
    x = np.zeros((len(rows), sum(sizes.values())))
    base = 0
    for name, size in sizes.items():
        x[np.arange(len(rows)), base + np.array([f[name] for f in rows])] = 1
        base += size
    return x


DOCS = {
    'king': 'The attacking king seen from the defending king',
    'rook': 'The rook seen from its king',
    'queen': 'The queen seen from the defending king',
    'rook_from_king': 'The rook seen from the attacking king',
    'rook_from_queen': 'The rook seen from the queen',
}


def rust_table(tables, docs):
    """The tables as a Rust module's constants: DEFENDER, FLIGHTS, then one offset table
    for each name of `docs` (with its doc line)."""
    out = []

    def row(values):
        return '[' + ', '.join(f'{v:3d}' for v in values) + ']'
    tri = tables['defender']
    grid = [[tri[TRIANGLE.index((f, r))] if r <= f else 0 for r in range(4)] for f in range(4)]
    out.append('/// The defending king on (file, rank) of the triangle a1-d1-d4 (rank <= file; the\n'
               '/// other entries are never read).')
    out.append('#[rustfmt::skip]')
    out.append('pub(crate) const DEFENDER: [[i16; 4]; 4] = [\n' + ''.join(f'    {row(g)},\n' for g in grid) + '];')
    out.append('/// The defending king\'s safe flight squares, 0 to 8.')
    out.append('#[rustfmt::skip]')
    out.append(f'pub(crate) const FLIGHTS: [i16; 9] = {row(tables["flights"])};')
    for name, doc in docs.items():
        t = np.array(tables[name]).reshape(15, 15)
        out.append(f'/// {doc}: [file step + 7][rank step + 7].')
        out.append('#[rustfmt::skip]')
        out.append(f'pub(crate) const {name.upper()}: Steps = [\n' + ''.join(f'    {row(r)},\n' for r in t) + '];')
    return '\n'.join(out) + '\n'


def held_out(lines, y, xs):
    """For three random halves of the lines: the half's seed and the variance of the mate
    distances `y` of the other half that a fit of each of the feature matrices `xs` to
    the half explains."""
    for seed in range(3):
        train = first_half(lines, seed)
        scores = []
        for x in xs:
            c = fit(x[train], y[train])
            scores.append(explained(np.c_[x[~train], np.ones((~train).sum())] @ c, y[~train]))
        yield seed, scores


def scaled_tables(c, sizes):
    """The fitted coefficients `c` (tables of `sizes`, in that order) as tables in units
    of 20 a move, each table's smallest entry 0."""
    tables, base = {}, 0
    for name, size in sizes.items():
        t = c[base:base + size]
        base += size
        tables[name] = [int(round(20 * (v - t.min()))) for v in t]
    return tables


def fitted_tables(x, y, sizes):
    """The fit of the one-hot features `x` (tables of `sizes`) to the mate distances `y`,
    as tables in units of 20 a move, each table's smallest entry 0."""
    return scaled_tables(fit(x, y), sizes)


def write_tables(target, tool, text, model):
    """Writes the generated Rust file `target` (src/knowledge/fitted/MODEL.rs) whole."""
    head = (f'//! Generated by `{tool}`: do not edit by hand. The fitted tables of the\n'
            f'//! [`{model}`](crate::knowledge::{model}) model, in units of 20 a move.\n\n'
            'use crate::knowledge::turned::Steps;\n\n')
    with open(target, 'w') as f:
        f.write(head + text)
    print(f'wrote {target}')


def sparse_fit(columns, y, weight, size):
    """Weighted least squares with RIDGE of `y` on one-hot features given as the column
    index of each feature (one row per position), plus a constant."""
    columns = np.c_[columns, np.full(len(y), size)]
    normal, right = np.zeros((size + 1, size + 1)), np.zeros(size + 1)
    for i in range(columns.shape[1]):
        for j in range(columns.shape[1]):
            np.add.at(normal, (columns[:, i], columns[:, j]), weight)
        np.add.at(right, columns[:, i], weight * y)
    ridge = RIDGE * np.eye(size + 1)
    ridge[-1, -1] = 0
    return np.linalg.solve(normal + ridge, right)


def main(path, target):
    records = np.fromfile(path, dtype=np.uint8).reshape(-1, 6).astype(int)
    bases = np.cumsum([0] + list(SIZES.values())[:-1])
    size = sum(SIZES.values())
    columns = np.array([square_features(*map(int, r[:4])) for r in records.tolist()]) + bases
    y = (records[:, 4] + 1) / 2  # plies to moves
    kind = records[:, 5]
    weight = np.where(kind == 0, 1.0, DEVIATION_WEIGHT)
    print(f'{len(y)} positions, {(kind == 0).sum()} on the lines')
    first = np.arange(len(y)) < len(y) // 2  # the records come line by line
    c = sparse_fit(columns[first], y[first], weight[first], size)
    predicted = c[columns].sum(1) + c[-1]
    for name, which in (('lines', 0), ('siblings', 1)):
        held = ~first & (kind == which)
        print(f'held-out second half, {name}: the model explains {explained(predicted[held], y[held]):.3f}')
    tables = scaled_tables(sparse_fit(columns, y, weight, size), SIZES)
    write_tables(target, 'tools/fit_kqkr.py', rust_table(tables, DOCS), 'queen_rook')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
