#!/usr/bin/env python3
"""Clock games from won tablebase positions against a perfect defender.

The engine (a UCI command, given SyzygyPath unless --no-engine-tables) plays the winning side of each position
through python-chess's `engine.play`, with a game clock and the game's moves as history,
as a bot would. The defender plays the tables' best defence, probed with
python-chess's own Syzygy code: the move that keeps its best value, then the longest
distance to the next capture or pawn move (DTZ). The defender claims every draw it can:
the 50-move rule and threefold repetition, on its turn. A game counts as won only by
checkmate; one won in no more moves than the suite's `bm #N` (the start's distance to mate)
is also counted as mated within its DTM.

  python3 tools/tb_games.py --engine target/release/pnmate --syzygy DIR \\
      --epd epd/public/endgames/KBNvK500pv.epd --games 40 --seed 7

Needs python-chess (pip install chess). Prints the games won and every game that was
not won, with its moves.
"""
import argparse
import random
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import chess
import chess.engine
import chess.syzygy


def load(path, games, seed):
    """A seeded sample of the suite's positions, each with its `bm #N` (None without)."""
    fens = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 4 and not line.startswith('#'):
                mate = re.search(r'bm #-?(\d+)', line)
                fens.append((' '.join(fields[:4]) + ' 0 1', int(mate.group(1)) if mate else None))
    return random.Random(seed).sample(fens, min(games, len(fens)))


def defence(tables, board):
    """The tables' best move for the side to move: the best value for it, then the
    longest DTZ (a loss held as long as possible)."""
    best = None
    for move in board.legal_moves:
        board.push(move)
        if board.is_checkmate():
            key = (-3, 0)
        else:
            wdl = -tables.probe_wdl(board)
            dtz = abs(tables.probe_dtz(board))
            key = (wdl, dtz if wdl < 0 else -dtz)
        board.pop()
        if best is None or key > best[0]:
            best = (key, move)
    return best[1]


def play(command, syzygy, fen, base, inc, hash_mb, engine_tables):
    """One game; returns (result, board). The engine's clock is kept by wall time."""
    tables = chess.syzygy.open_tablebase(syzygy)
    board = chess.Board(fen)
    winner = board.turn if tables.probe_wdl(board) > 0 else not board.turn
    engine = chess.engine.SimpleEngine.popen_uci(command.split())
    try:
        engine.configure({'SyzygyPath': syzygy, 'Hash': hash_mb} if engine_tables else {'Hash': hash_mb})
        engine.ping()
        clock = {chess.WHITE: base, chess.BLACK: base}
        game = object()
        while True:
            if board.is_checkmate():
                return ('won' if board.turn != winner else 'lost'), board
            if board.is_stalemate() or board.is_insufficient_material():
                return 'drawn (stalemate or material)', board
            if board.turn != winner and board.can_claim_fifty_moves():
                return 'drawn (50-move claim)', board
            if board.turn != winner and board.can_claim_threefold_repetition():
                return 'drawn (repetition claim)', board
            if board.is_seventyfive_moves() or board.is_fivefold_repetition():
                return 'drawn (automatic)', board
            if board.turn == winner:
                limit = chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                           white_inc=inc, black_inc=inc)
                start = time.monotonic()
                result = engine.play(board, limit, game=game)
                clock[winner] -= time.monotonic() - start
                if clock[winner] < 0:
                    return 'lost on time', board
                clock[winner] += inc
                if result.move is None or result.move not in board.legal_moves:
                    return 'illegal move', board
                board.push(result.move)
            else:
                board.push(defence(tables, board))
    finally:
        engine.quit()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--engine', required=True)
    ap.add_argument('--syzygy', required=True)
    ap.add_argument('--epd', required=True, action='append')
    ap.add_argument('--games', type=int, default=40, help='games per suite')
    ap.add_argument('--seed', type=int, default=7)
    ap.add_argument('--clock', type=float, default=10.0, help='seconds per game for the engine')
    ap.add_argument('--inc', type=float, default=0.1, help='increment per move')
    ap.add_argument('--hash', type=int, default=256)
    ap.add_argument('--jobs', type=int, default=2, help='games played at once')
    ap.add_argument('--no-engine-tables', action='store_true',
                    help='give the engine no SyzygyPath (the defence still plays from the tables)')
    args = ap.parse_args()

    failed = 0
    for path in args.epd:
        fens = load(path, args.games, args.seed)
        with ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(
                lambda game: (*game, *play(args.engine, args.syzygy, game[0], args.clock, args.inc, args.hash,
                                           not args.no_engine_tables)), fens))
        won = sum(r == 'won' for _, _, r, _ in results)
        # The winner's moves: the plies played, rounded up when the winner moved first.
        within = sum(r == 'won' and dtm is not None and (len(b.move_stack) + 1) // 2 <= dtm
                     for _, dtm, r, b in results)
        print(f'{path}: {won}/{len(results)} won by checkmate, {within} within the start\'s distance to mate '
              f'({args.clock:g} s + {args.inc:g} s)')
        for fen, _, result, board in results:
            if result != 'won':
                failed += 1
                moves = ' '.join(m.uci() for m in board.move_stack)
                print(f'  {result}: {fen} moves {moves}')
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
