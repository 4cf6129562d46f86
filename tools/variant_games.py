#!/usr/bin/env python3
"""lichess-bot-style games in lichess's variants: python-chess `engine.play` with a real
clock (10 s + 0.1 s by default), the game's moves sent as history, as a bot sends them.

Two kinds of games per variant:
  * from won positions of the variant's suite (epd/variants/NAME.epd, a sample drawn
    with --seed): the engine plays the side that wins, the opponent defends; the game
    counts as converted when it ends in the engine's win;
  * from the start position, colours alternating.
The referee (python-chess's variant board) ends a game on the variant's end, a draw by
rule (threefold repetition, 50 moves, insufficient material), an illegal move, a crash
(the engine process died or answered nothing) or a flag. Prints one line per game and a
summary per variant: converted, converted within the suite's length (the win in at most
2N plies of a `bm #N` position), illegal moves, crashes, time losses.

  python3 tools/variant_games.py --engine target/release/pnmate \\
      --opponent /usr/games/fairy-stockfish --won 20 --start 10 --seed 1
  python3 tools/variant_games.py --engine target/release/pnmate --won 0 --start 10 \\
      --opponent-option "Skill Level=0"

Fairy-Stockfish 11.1 has no atomic: there, --atomic-opponent plays (default: the engine
itself). Needs python-chess (pip install chess).
"""
import argparse
import os
import random
import time

import chess
import chess.engine
import chess.variant

from compare import VARIANTS, Engine, load, use_variant

SUITES = os.path.join(os.path.dirname(__file__), '..', 'epd', 'variants')


def play(variant, fen, engine, opponent, engine_color, base, inc, max_plies=600):
    """One game; the result word and the plies played (from `fen`, whose move number
    does not count)."""
    board = chess.variant.find_variant(variant)(fen) if fen else chess.variant.find_variant(variant)()
    clocks = {chess.WHITE: base, chess.BLACK: base}
    players = {engine_color: engine, not engine_color: opponent}
    game = object()
    for p in players.values():
        if p.process is None:
            p.start()
    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            if outcome.winner is None:
                return 'draw', len(board.move_stack)
            return ('win' if outcome.winner == engine_color else 'loss'), len(board.move_stack)
        if len(board.move_stack) >= max_plies:
            return 'draw (ply limit)', len(board.move_stack)
        mover = board.turn
        player = players[mover]
        limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                   white_inc=inc, black_inc=inc)
        started = time.monotonic()
        try:
            result = player.process.play(board, limit, game=game)
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError) as e:
            player.close()
            return ('crash' if mover == engine_color else 'opponent crash') + f' ({type(e).__name__})', len(board.move_stack)
        spent = time.monotonic() - started
        clocks[mover] -= spent
        if clocks[mover] < 0:
            return ('time loss' if mover == engine_color else 'opponent time loss'), len(board.move_stack)
        clocks[mover] += inc
        if result.move is None or result.move not in board.legal_moves:
            return ('illegal' if mover == engine_color else 'opponent illegal') + f' ({result.move})', len(board.move_stack)
        board.push(result.move)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--engine', required=True)
    ap.add_argument('--opponent', default='/usr/games/fairy-stockfish')
    ap.add_argument('--atomic-opponent', help='the opponent in atomic (default: the engine itself)')
    ap.add_argument('--variant', action='append', help='only these variants (repeat)')
    ap.add_argument('--won', type=int, default=20, help='games from won suite positions per variant')
    ap.add_argument('--start', type=int, default=10, help='games from the start position per variant')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--base', type=float, default=10.0)
    ap.add_argument('--inc', type=float, default=0.1)
    ap.add_argument('--hash', type=int, default=256)
    ap.add_argument('--opponent-option', action='append', default=[], metavar='NAME=VALUE',
                    help='a UCI option for the opponent, where it has it (repeat)')
    args = ap.parse_args()
    opponent_options = dict(o.split('=', 1) for o in args.opponent_option)

    print(f'{"variant":<14} {"games":>5} {"converted":>9} {"in time":>7} {"start W/D/L":>12} {"illegal":>7} '
          f'{"crash":>5} {"flag":>5}')
    for variant in args.variant or VARIANTS:
        rng = random.Random(f'{args.seed}-{variant}')
        opponent_cmd = (args.atomic_opponent or args.engine) if variant == 'atomic' else args.opponent
        engine = Engine(args.engine, args.hash, 1)
        opponent = Engine(opponent_cmd, args.hash, 1, options=opponent_options)
        use_variant(variant)
        items = load(os.path.join(SUITES, f'{variant}.epd'))
        won = rng.sample(items, min(args.won, len(items)))
        results, in_time = [], 0
        for i, (fen, bm) in enumerate(won):
            side = chess.variant.find_variant(variant)(fen).turn
            result, plies = play(variant, fen, engine, opponent, side, args.base, args.inc)
            results.append(('won', result))
            in_time += result == 'win' and plies <= 2 * bm
            print(f'  {variant} won #{i + 1} bm #{bm}: {result} in {plies} plies  {fen}', flush=True)
        for i in range(args.start):
            color = chess.WHITE if i % 2 == 0 else chess.BLACK
            result, plies = play(variant, None, engine, opponent, color, args.base, args.inc)
            results.append(('start', result))
            print(f'  {variant} start #{i + 1} as {"white" if color else "black"}: {result} in {plies} plies', flush=True)
        engine.close()
        opponent.close()
        words = [r for _, r in results]
        converted = sum(1 for k, r in results if k == 'won' and r == 'win')
        start = [r for k, r in results if k == 'start']
        wdl = f'{start.count("win")}/{sum(r.startswith("draw") for r in start)}/{start.count("loss")}'
        print(f'{variant:<14} {len(results):>5} {converted:>5}/{len(won):<3} {in_time:>7} {wdl:>12} '
              f'{sum(w.startswith("illegal") for w in words):>7} {sum(w.startswith("crash") for w in words):>5} '
              f'{words.count("time loss"):>5}', flush=True)


if __name__ == '__main__':
    main()
