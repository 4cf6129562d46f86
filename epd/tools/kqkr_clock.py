#!/usr/bin/env python3
"""Clock games of K+Q v K+R against a perfect defence.

An engine plays the queen's side of random K+Q v K+R positions (mates in 20 moves or
more, either colour, either side to move) through python-chess `engine.play` with a
real clock (10 s + 0.1 s, the game's moves sent as history); the rook's side plays from
the distance-to-mate tables of the `kqkr_lines` example, always a move that keeps the
mate furthest away (ties broken at random, seeded). A game counts only when it ends in
checkmate; the referee ends it on checkmate, stalemate, insufficient material, a
position on the board for the third time, the 50-move rule, a threefold repetition the
defence can claim, or the engine's flag. Prints one line per game (result, plies, the
ply the rook was taken, plies beyond the start's distance to mate) and a summary.

Run from the repository root:
  cargo run --release --example kqkr_lines -- tables /tmp/kqkr
  python3 epd/tools/kqkr_clock.py --tables /tmp/kqkr --engine target/release/pnmate --games 60 --seed 11
Needs: pip install chess numpy.
"""
import argparse
import random
import time

import chess
import chess.engine
import numpy as np

NONE = 255
PIECES = [chess.Piece(chess.KING, chess.WHITE), chess.Piece(chess.QUEEN, chess.WHITE),
          chess.Piece(chess.KING, chess.BLACK), chess.Piece(chess.ROOK, chess.BLACK)]


class Tables:
    def __init__(self, folder):
        def load(name):
            return np.fromfile(f'{folder}/{name}.bin', dtype=np.uint8)
        self.kqkr = {chess.WHITE: load('kqkr_white'), chess.BLACK: load('kqkr_black')}
        self.kqk = {chess.WHITE: load('kqk_white'), chess.BLACK: load('kqk_black')}

    def plies(self, board, strong):
        """Plies to mate for `strong`, None where it does not win (or left the ending)."""
        if board.is_checkmate():
            return 0 if board.turn != strong else None
        b = board if strong == chess.WHITE else board.mirror()
        queens = list(b.pieces(chess.QUEEN, chess.WHITE))
        rooks = list(b.pieces(chess.ROOK, chess.BLACK))
        if len(queens) != 1 or len(b.piece_map()) != 3 + len(rooks):
            return None
        index = b.king(chess.WHITE) | queens[0] << 6 | b.king(chess.BLACK) << 12
        if rooks:
            v = self.kqkr[b.turn][index | rooks[0] << 18]
        else:
            v = self.kqk[b.turn][index]
        return None if v == NONE else int(v)

    def defend(self, board, strong, rng):
        """The defence's move: the one that keeps the mate furthest away (a draw first)."""
        best, moves = -1, []
        for move in board.legal_moves:
            board.push(move)
            v = self.plies(board, strong)
            board.pop()
            v = 1000 if v is None else v
            if v > best:
                best, moves = v, [move]
            elif v == best:
                moves.append(move)
        return rng.choice(moves)

    def start(self, rng, min_plies):
        """A random position with the queen's side mating in `min_plies` or more."""
        while True:
            index = rng.randrange(1 << 24)
            turn = rng.choice([chess.WHITE, chess.BLACK])
            v = self.kqkr[turn][index]
            if v == NONE or v < min_plies:
                continue
            board = chess.Board(None)
            for shift, piece in zip((0, 6, 12, 18), PIECES):
                board.set_piece_at((index >> shift) & 63, piece)
            board.turn = turn
            return board.mirror() if rng.random() < 0.5 else board


def play(engine_cmd, tables, start, seed, hash_mb):
    """One game from `start`: (result, plies, ply of the rook's capture or None)."""
    strong = chess.WHITE if start.pieces(chess.QUEEN, chess.WHITE) else chess.BLACK
    rng = random.Random(seed)
    engine = chess.engine.SimpleEngine.popen_uci(engine_cmd)
    engine.configure({'Hash': hash_mb})
    game, clock, taken = start.copy(), 10.0, None
    try:
        while True:
            if game.is_checkmate():
                return 'mate', len(game.move_stack), taken
            if game.is_stalemate() or game.is_insufficient_material():
                return 'draw', len(game.move_stack), taken
            if game.is_repetition(3):
                return 'threefold', len(game.move_stack), taken
            if game.halfmove_clock >= 100:
                return '50-move', len(game.move_stack), taken
            if game.turn == strong:
                limit = chess.engine.Limit(white_clock=clock if strong == chess.WHITE else 10.0,
                                           black_clock=clock if strong == chess.BLACK else 10.0,
                                           white_inc=0.1, black_inc=0.1)
                t0 = time.time()
                move = engine.play(game, limit).move
                clock -= time.time() - t0
                if clock < 0:
                    return 'flag', len(game.move_stack), taken
                clock += 0.1
            else:
                if game.can_claim_threefold_repetition():
                    return 'claimed threefold', len(game.move_stack), taken
                move = tables.defend(game, strong, rng)
            if taken is None and game.piece_type_at(move.to_square) == chess.ROOK:
                taken = len(game.move_stack) + 1
            game.push(move)
    finally:
        engine.quit()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--tables', required=True, help='folder of the kqkr_lines tables')
    parser.add_argument('--engine', required=True, help='the UCI engine playing the queen\'s side')
    parser.add_argument('--games', type=int, default=60)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--hash', type=int, default=256)
    args = parser.parse_args()
    tables = Tables(args.tables)
    rng = random.Random(args.seed)
    starts = [tables.start(rng, 39) for _ in range(args.games)]
    won = beyond = 0
    for number, start in enumerate(starts):
        strong = chess.WHITE if start.pieces(chess.QUEEN, chess.WHITE) else chess.BLACK
        to_mate = tables.plies(start, strong)
        result, plies, taken = play(args.engine, tables, start, args.seed * 1000 + number, args.hash)
        extra = plies - to_mate if result == 'mate' else '-'
        won += result == 'mate'
        beyond += plies - to_mate if result == 'mate' else 0
        print(f'{start.fen()}\tto mate {to_mate}\t{result}\t{plies} plies\trook taken at {taken}\tbeyond {extra}',
              flush=True)
    print(f'won {won}/{len(starts)}, plies beyond the distance to mate over the games won: {beyond}')


if __name__ == '__main__':
    main()
