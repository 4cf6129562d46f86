#!/usr/bin/env python3
"""Finds deep helpmates with a unique solution in random positions of few men, with
Popeye's intelligent mode as the judge, and writes them as a problem file for
tools/popeye_check.py (`FEN | h#n` a line).

  python3 tools/deep_helpmates.py --popeye PY --count 40 --men 3-6 --moves 2-13 --seed 1 > deep.txt
  python3 tools/popeye_check.py --popeye PY --problems deep.txt --time 1 --intelligent

For each random position (Black to move, not in check, no castling), Popeye solves h#n
for n = 2, 3, ... up to the longest of --moves, `--time` seconds each; the first n with a
solution is the position's shortest helpmate. The position is kept when that n is within
--moves and the solution is unique: the kind of problem a composer checks for soundness.
"""
import argparse
import random
import subprocess
import sys
import tempfile

import chess

from popeye_check import popeye_input


def random_position(rng, men):
    """A legal position of `men` men, Black to move and not in check."""
    while True:
        board = chess.Board(None)
        count = rng.randint(*men)
        squares = rng.sample(range(64), count)
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        # White gets the first extra man, so that a mate can be given; the others go
        # to either side.
        for i, sq in enumerate(squares[2:]):
            role = rng.choice([chess.QUEEN, chess.ROOK, chess.BISHOP, chess.BISHOP, chess.KNIGHT, chess.KNIGHT,
                               chess.PAWN, chess.PAWN])
            if role == chess.PAWN and chess.square_rank(sq) in (0, 7):
                role = chess.KNIGHT
            board.set_piece_at(sq, chess.Piece(role, i == 0 or rng.random() < 0.5))
        board.turn = chess.BLACK
        board.castling_rights = 0
        home = any(board.piece_at(k) == chess.Piece(chess.KING, c) and
                   any(board.piece_at(r) == chess.Piece(chess.ROOK, c) for r in rooks)
                   for c, k, rooks in [(chess.WHITE, chess.E1, (chess.A1, chess.H1)),
                                       (chess.BLACK, chess.E8, (chess.A8, chess.H8))])
        if not home and board.is_valid() and not board.is_game_over() and not board.is_check():
            return board.fen()


def solutions(py, fen, stip, seconds):
    """Popeye's solution lines of `stip`, or None when it did not finish."""
    with tempfile.NamedTemporaryFile('w', suffix='.inp') as f:
        f.write(popeye_input(fen, stip, seconds, 'intelligent'))
        f.flush()
        try:
            out = subprocess.run([py, '-maxmem', '1G', f.name], capture_output=True, text=True,
                                 timeout=seconds + 30).stdout
        except subprocess.TimeoutExpired:
            return None
    if 'solution finished' not in out or 'maximum time' in out.lower():
        return None
    return [line for line in out.splitlines() if line.strip().startswith('1.')]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--popeye', required=True)
    ap.add_argument('--count', type=int, default=40)
    ap.add_argument('--men', default='3-6')
    ap.add_argument('--moves', default='2-13')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--time', type=int, default=5, help="Popeye's seconds for each h#n tried")
    args = ap.parse_args()
    men = tuple(int(x) for x in args.men.split('-'))
    low, high = (int(x) for x in args.moves.split('-'))
    rng = random.Random(args.seed)
    found = tried = 0
    while found < args.count:
        fen = random_position(rng, men)
        tried += 1
        for n in range(1, high + 1):
            lines = solutions(args.popeye, fen, f'h#{n}', args.time)
            if lines is None or lines:
                break
        print(f'  {fen}: h#{n} {"unfinished" if lines is None else len(lines)}', file=sys.stderr, flush=True)
        if lines and len(lines) == 1 and n >= low:
            print(f'{fen} | h#{n}', flush=True)
            found += 1
            print(f'[{found}/{args.count}] h#{n} after {tried} positions', file=sys.stderr)


if __name__ == '__main__':
    main()
