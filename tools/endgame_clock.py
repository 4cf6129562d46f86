#!/usr/bin/env python3
"""Clock games of K+Q v K+R or K+B+N v K against a perfect defence.

An engine plays the winning side of random positions of the ending (mates in 20 moves
or more, either colour, either side to move) through python-chess `engine.play` with a
real clock (10 s + 0.1 s, the game's moves sent as history); the defence plays from the
distance-to-mate tables of the `kqkr_lines` or `kbnk_table` example, always a move that
keeps the mate furthest away (ties broken at random, seeded). A game counts only when
it ends in checkmate; the referee ends it on checkmate, stalemate, insufficient
material, a position on the board for the third time, the 50-move rule, a threefold
repetition the defence can claim, or the engine's flag. Prints one line per game
(result, plies, the ply a defender's piece was taken, plies beyond the start's distance
to mate) and a summary.

Run from the repository root:
  cargo run --release --example kqkr_lines -- tables /tmp/kqkr
  python3 tools/endgame_clock.py --ending kqkr --tables /tmp/kqkr --engine target/release/pnmate --games 60 --seed 11
  cargo run --release --example kbnk_table -- /tmp/kbnk
  python3 tools/endgame_clock.py --ending kbnk --tables /tmp/kbnk --engine target/release/pnmate --games 60 --seed 11
Needs: pip install chess numpy.
"""
import argparse
import random
import time

import chess
import chess.engine
import numpy as np

NONE = 255


def load(folder, name):
    return np.fromfile(f'{folder}/{name}.bin', dtype=np.uint8)


class Tables:
    """What the two endings share: the defence's move and the random starts. An ending
    names its men (white mates; the tables' index holds their squares, 6 bits each) and
    says how far a position is from mate."""
    MEN = []

    def winner(self, board):
        """The side with the ending's first piece besides the king."""
        piece = self.MEN[1]
        return chess.WHITE if board.pieces(piece.piece_type, chess.WHITE) else chess.BLACK

    def entry(self, board):
        """The table (by side to move) and index of `board`, with white the winning side;
        None where it left the ending."""
        raise NotImplementedError

    def plies(self, board, strong):
        """Plies to mate for `strong`, None where it does not win (or left the ending)."""
        if board.is_checkmate():
            return 0 if board.turn != strong else None
        b = board if strong == chess.WHITE else board.mirror()
        found = self.entry(b)
        if found is None:
            return None
        table, index = found
        v = table[b.turn][index]
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
        """A random position with the winning side mating in `min_plies` or more."""
        while True:
            index = rng.randrange(1 << 24)
            turn = rng.choice([chess.WHITE, chess.BLACK])
            v = self.table[turn][index]
            if v == NONE or v < min_plies:
                continue
            board = chess.Board(None)
            for shift, piece in zip((0, 6, 12, 18), self.MEN):
                board.set_piece_at((index >> shift) & 63, piece)
            board.turn = turn
            return board.mirror() if rng.random() < 0.5 else board


class QueenRook(Tables):
    """K+Q v K+R (and K+Q v K once the rook is taken), from `kqkr_lines -- tables`."""
    MEN = [chess.Piece(chess.KING, chess.WHITE), chess.Piece(chess.QUEEN, chess.WHITE),
           chess.Piece(chess.KING, chess.BLACK), chess.Piece(chess.ROOK, chess.BLACK)]

    def __init__(self, folder):
        self.table = {chess.WHITE: load(folder, 'kqkr_white'), chess.BLACK: load(folder, 'kqkr_black')}
        self.kqk = {chess.WHITE: load(folder, 'kqk_white'), chess.BLACK: load(folder, 'kqk_black')}

    def entry(self, b):
        queens = list(b.pieces(chess.QUEEN, chess.WHITE))
        rooks = list(b.pieces(chess.ROOK, chess.BLACK))
        if len(queens) != 1 or len(b.piece_map()) != 3 + len(rooks):
            return None
        index = b.king(chess.WHITE) | queens[0] << 6 | b.king(chess.BLACK) << 12
        return (self.table, index | rooks[0] << 18) if rooks else (self.kqk, index)


class BishopKnight(Tables):
    """K+B+N v K, from `kbnk_table`."""
    MEN = [chess.Piece(chess.KING, chess.WHITE), chess.Piece(chess.BISHOP, chess.WHITE),
           chess.Piece(chess.KNIGHT, chess.WHITE), chess.Piece(chess.KING, chess.BLACK)]

    def __init__(self, folder):
        self.table = {chess.WHITE: load(folder, 'kbnk_white'), chess.BLACK: load(folder, 'kbnk_black')}

    def entry(self, b):
        bishops = list(b.pieces(chess.BISHOP, chess.WHITE))
        knights = list(b.pieces(chess.KNIGHT, chess.WHITE))
        if len(bishops) != 1 or len(knights) != 1 or len(b.piece_map()) != 4:
            return None
        return self.table, b.king(chess.WHITE) | bishops[0] << 6 | knights[0] << 12 | b.king(chess.BLACK) << 18


ENDINGS = {'kqkr': QueenRook, 'kbnk': BishopKnight}


def play(engine_cmd, tables, start, seed, hash_mb):
    """One game from `start`: (result, the game's board, ply of the capture of a
    defender's piece or None)."""
    strong = tables.winner(start)
    rng = random.Random(seed)
    engine = chess.engine.SimpleEngine.popen_uci(engine_cmd)
    engine.configure({'Hash': hash_mb})
    game, clock, taken = start.copy(), 10.0, None
    try:
        while True:
            if game.is_checkmate():
                return 'mate', game, taken
            if game.is_stalemate() or game.is_insufficient_material():
                return 'draw', game, taken
            if game.is_repetition(3):
                return 'threefold', game, taken
            if game.halfmove_clock >= 100:
                return '50-move', game, taken
            if game.turn == strong:
                limit = chess.engine.Limit(white_clock=clock if strong == chess.WHITE else 10.0,
                                           black_clock=clock if strong == chess.BLACK else 10.0,
                                           white_inc=0.1, black_inc=0.1)
                t0 = time.time()
                move = engine.play(game, limit).move
                clock -= time.time() - t0
                if clock < 0:
                    return 'flag', game, taken
                clock += 0.1
            else:
                if game.can_claim_threefold_repetition():
                    return 'claimed threefold', game, taken
                move = tables.defend(game, strong, rng)
            if taken is None and game.turn == strong and game.color_at(move.to_square) == (not strong):
                taken = len(game.move_stack) + 1
            game.push(move)
    finally:
        engine.quit()


def annotated(tables, start, moves, strong):
    """The game's moves in SAN, each of the winning side's followed by the plies to mate
    after it (- where the position is not won)."""
    board, out = start.copy(), []
    for move in moves:
        mover = board.turn
        san = board.san(move)
        board.push(move)
        if mover == strong:
            after = tables.plies(board, strong)
            san += f' ({"-" if after is None else after})'
        out.append(san)
    return ' '.join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--ending', choices=sorted(ENDINGS), default='kqkr')
    parser.add_argument('--tables', required=True, help='folder of the kqkr_lines or kbnk_table tables')
    parser.add_argument('--engine', required=True, help='the UCI engine playing the winning side')
    parser.add_argument('--games', type=int, default=60)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--hash', type=int, default=256)
    parser.add_argument('--moves', action='store_true',
                        help='print the moves of each game not won, each of the engine\'s with the plies to mate after it')
    args = parser.parse_args()
    tables = ENDINGS[args.ending](args.tables)
    rng = random.Random(args.seed)
    starts = [tables.start(rng, 39) for _ in range(args.games)]
    won = beyond = 0
    for number, start in enumerate(starts):
        strong = tables.winner(start)
        to_mate = tables.plies(start, strong)
        result, game, taken = play(args.engine, tables, start, args.seed * 1000 + number, args.hash)
        plies = len(game.move_stack)
        extra = plies - to_mate if result == 'mate' else '-'
        won += result == 'mate'
        beyond += plies - to_mate if result == 'mate' else 0
        print(f'{start.fen()}\tto mate {to_mate}\t{result}\t{plies} plies\tpiece taken at {taken}\tbeyond {extra}',
              flush=True)
        if args.moves and result != 'mate':
            print(annotated(tables, start, game.move_stack, strong), flush=True)
    print(f'won {won}/{len(starts)}, plies beyond the distance to mate over the games won: {beyond}')


if __name__ == '__main__':
    main()
