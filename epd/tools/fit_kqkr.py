#!/usr/bin/env python3
"""Fits the K+Q v K+R model and writes it as Rust (src/search/queen_rook.rs), where the
prover's progress numbers and the fallback's evaluation read it.

Walks the tablebase lines of an EPD suite of K+Q v K+R mates (`FEN bm #N; PV: ...;`),
takes every position on them with the queen's side to move and both heavy pieces on
the board, labels it with its distance to mate, and fits an additive model, least
squares with a small ridge. The board is first turned (mirrored and flipped along the
diagonal) so that the defending king stands in the triangle a1-d1-d4; the model then has
one table for the defending king's square there, one for the safe flight squares it has,
and one for each of five placements as offsets (file and rank steps, -7..7 each): the
attacking king, the rook and the queen seen from the defending king, the rook seen from
the attacking king and from the queen. Offsets say what plain distances cannot: the
opposition of the kings, a rook cut off on the far side of its king, a queen a knight's
move away.

Prints the variance explained on held-out halves of the lines, the new model against the
additive model of plain distances the fallback used before (stop 40: nine tables of the
defending king's distance to the edge and to a corner, the kings' distance, ...), then
writes the tables in the fallback's units (20 a move, each table's smallest entry 0).
Run from the repository root:
  python3 epd/tools/fit_kqkr.py ../shared/epd/KQvKR1000pv.epd src/search/queen_rook.rs
Needs: pip install chess numpy.
"""
import sys

import chess
import numpy as np

from tablebase_fit import RIDGE, edge, explained, first_half, fit, samples

# The defending king's squares after turning the board, as (file, rank).
TRIANGLE = [(f, r) for f in range(4) for r in range(f + 1)]
OFFSETS = ['king', 'rook', 'queen', 'rook_from_king', 'rook_from_queen']
SIZES = {'defender': len(TRIANGLE), 'flights': 9, **{name: 225 for name in OFFSETS}}

# The plain-distance model of stop 40, for comparison.
PLAIN = {'edge': 3, 'corner': 3, 'kings': 7, 'rook_king': 7, 'rook_own_king': 7,
         'queen_king': 7, 'flights': 8, 'rook_edge': 3, 'own_king_edge': 3}


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


def features(board):
    strong, weak = board.turn, not board.turn
    sk, wk = board.king(strong), board.king(weak)
    queen = next(iter(board.pieces(chess.QUEEN, strong)))
    rook = next(iter(board.pieces(chess.ROOK, weak)))
    flights = safe_flights(board, strong)
    at = turn(wk, sk)
    w, s, q, r = at(wk), at(sk), at(queen), at(rook)
    d = chess.square_distance
    plain = {
        'edge': edge(wk), 'corner': min(d(wk, c) for c in (chess.A1, chess.A8, chess.H1, chess.H8)),
        'kings': d(sk, wk), 'rook_king': d(rook, wk), 'rook_own_king': d(rook, sk),
        'queen_king': d(queen, wk), 'flights': flights, 'rook_edge': edge(rook), 'own_king_edge': edge(sk),
    }
    new = {'defender': TRIANGLE.index(w), 'flights': flights, 'king': offset(s, w), 'rook': offset(r, w),
           'queen': offset(q, w), 'rook_from_king': offset(r, s), 'rook_from_queen': offset(r, q)}
    return plain, new


def heavy(board, strong):
    """Both heavy pieces on the board: the queen's side's and the rook's side's."""
    return len(board.piece_map()) == 4 and board.pieces(chess.QUEEN, strong) and board.pieces(chess.ROOK, not strong)


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
    out.append('const DEFENDER: [[i16; 4]; 4] = [\n' + ''.join(f'    {row(g)},\n' for g in grid) + '];')
    out.append('/// The defending king\'s safe flight squares, 0 to 8.')
    out.append('#[rustfmt::skip]')
    out.append(f'const FLIGHTS: [i16; 9] = {row(tables["flights"])};')
    for name, doc in docs.items():
        t = np.array(tables[name]).reshape(15, 15)
        out.append(f'/// {doc}: [file step + 7][rank step + 7].')
        out.append('#[rustfmt::skip]')
        out.append(f'const {name.upper()}: Steps = [\n' + ''.join(f'    {row(r)},\n' for r in t) + '];')
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


def fitted_tables(x, y, sizes):
    """The fit of the one-hot features `x` (tables of `sizes`) to the mate distances `y`,
    as tables in units of 20 a move, each table's smallest entry 0."""
    c = fit(x, y)
    tables, base = {}, 0
    for name, size in sizes.items():
        t = c[base:base + size]
        base += size
        tables[name] = [int(round(20 * (v - t.min()))) for v in t]
    return tables


def write_tables(target, tool, text):
    """Replaces the tables between the markers of `tool` in the Rust file `target`."""
    with open(target) as f:
        old = f.read()
    begin, end = f'// BEGIN TABLES ({tool})\n', '// END TABLES\n'
    head, rest = old.split(begin)
    _, tail = rest.split(end)
    with open(target, 'w') as f:
        f.write(head + begin + text + end + tail)
    print(f'wrote the tables into {target}')


def main(path, target):
    data = list(samples(path, heavy, features))
    lines = np.array([s[0] for s in data])
    y = np.array([s[1] for s in data], float)
    plain = {k: v + 1 for k, v in PLAIN.items()}
    xp = one_hot([s[2][0] for s in data], plain)
    xn = one_hot([s[2][1] for s in data], SIZES)
    print(f'{len(y)} positions from {len(set(lines))} lines')
    for seed, scores in held_out(lines, y, (xn, xp)):
        print(f'held-out half {seed}: model explains {scores[0]:.3f}, the plain distances {scores[1]:.3f} '
              f'(ridge {RIDGE})')
    write_tables(target, 'epd/tools/fit_kqkr.py', rust_table(fitted_tables(xn, y, SIZES), DOCS))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
