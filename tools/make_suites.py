#!/usr/bin/env python3
"""Builds pnmate's own EPD suites from random positions, each value established twice.

Every position is generated here at random (no suite is copied), then
  1. pnmate proves its value: `pnmate solve --mate N --json` must report the mate as
     proven shortest (exact), or a proven "no mate within N";
  2. Stockfish (Debian's 15.1) confirms it independently: for a mate it must report
     "score mate M" (same sign and length) searching the position with `go mate M`
     and a depth search; for a no-mate it must report no mate within N at depth 24.
Only positions on which both agree are written. Run from the repository root:
  python3 tools/make_suites.py --seed 1
Needs: pip install chess; apt-get install stockfish; cargo build --release.
"""
import argparse
import json
import random
import subprocess
import sys
import time

import chess
import chess.engine

PNMATE = "target/release/pnmate"
PER_LENGTH = 12
STAGE_SECONDS = 1200


def log(msg):
    print(msg, file=sys.stderr, flush=True)
SF = "/usr/games/stockfish"


def pn_solve(fen, mate, secs):
    run = subprocess.run([PNMATE, "solve", fen, "--mate", str(mate), "--time", str(secs), "--json"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        return {"result": "error"}
    return json.loads(run.stdout)


def random_position(rng, attacker_pool, defender_pool, n_att, n_def, stm_attacks=True, allow_dead=False):
    board = chess.Board(None)
    squares = list(chess.SQUARES)
    rng.shuffle(squares)
    colors = [chess.WHITE, chess.BLACK]
    att = rng.choice(colors)
    pieces = [(chess.KING, att), (chess.KING, not att)]
    pieces += [(rng.choice(attacker_pool), att) for _ in range(rng.randint(*n_att))]
    pieces += [(rng.choice(defender_pool), not att) for _ in range(rng.randint(*n_def))]
    for (ptype, color), sq in zip(pieces, squares):
        if ptype == chess.PAWN and chess.square_rank(sq) in (0, 7):
            return None
        board.set_piece_at(sq, chess.Piece(ptype, color))
    board.turn = att if stm_attacks else not att
    if not board.is_valid() or board.is_checkmate() or board.is_stalemate():
        return None
    if not allow_dead and board.is_insufficient_material():
        return None
    return board


def sf_mate(sf, board, depth=None, mate=None, time=None):
    info = sf.analyse(board, chess.engine.Limit(depth=depth, mate=mate, time=time))
    return info["score"].pov(board.turn).mate()


def mated_from(path, sf):
    """The mated-side twins of a mates suite: each mate in M >= 2 after its first move."""
    lines = []
    for line in open(path):
        if line.startswith("#") or " bm #" not in line:
            continue
        fen = line.split(" bm ")[0]
        M = int(line.split("bm #")[1].split(";")[0])
        first = line.split("PV: ")[1].split()[0]
        if M < 2:
            continue
        after = chess.Board(fen)
        after.push(chess.Move.from_uci(first))
        r = pn_solve(after.fen(), M, 5)
        if r["result"] == "mated" and r["moves"] == -(M - 1) and r["exact"] and sf_mate(sf, after, depth=22) == -(M - 1):
            lines.append(f'{after.epd()} bm #-{M - 1}; PV: {" ".join(r["pv"])}; c0 "side to move is mated; '
                         f'pnmate exact, {r["nodes"]} nodes; stockfish 15.1 depth 22: mate -{M - 1}";')
            log(f"mated: {len(lines)}")
    return lines


def no_mate_stage(rng, sf, long_lines, seed):
    P, N, B, R = chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK
    # 3. No mate within N: insufficient material, drawn endings, and mates too long for N.
    draws = []
    kinds = [("KBvK", [B], (1, 1), [P], (0, 0)), ("KNvK", [N], (1, 1), [P], (0, 0)),
             ("KNNvK", [N], (2, 2), [P], (0, 0)), ("KBvKB", [B], (1, 1), [B], (1, 1)),
             ("KRvKR", [R], (1, 1), [R], (1, 1)), ("KPvK", [P], (1, 1), [P], (0, 0))]
    for name, ap_, na, dp, nd in kinds:
        got = 0
        while got < 4:
            b = random_position(rng, ap_, dp, na, nd, allow_dead=True)
            if b is None:
                continue
            r = pn_solve(b.fen(), 5, 5)
            if r["result"] != "nomate":
                continue
            m = sf_mate(sf, b, depth=24)
            if m is not None and abs(m) <= 5:
                continue
            draws.append(f'{b.epd()} nm 5; c0 "{name}; pnmate proves no mate within 5 for either side; '
                         f'stockfish 15.1 depth 24: no mate within 5";')
            got += 1
            log(f"no-mate: {len(draws)}")
    # Mates longer than the bound: proven "no mate within M-1".
    for line in long_lines[:6]:
        fen = line.split(" bm ")[0]
        M = int(line.split("bm #")[1].split(";")[0])
        r = pn_solve(fen, M - 1, 10)
        if r["result"] == "nomate":
            draws.append(f'{fen} nm {M - 1}; c0 "mate in {M} exists (endgames.epd); pnmate proves none within {M - 1}";')
    with open("epd/nomate.epd", "w") as f:
        f.write("\n".join(["# No mate within N (op `nm N`): dead and drawn material, and mates longer than N",
                            f"# Generated by tools/make_suites.py (random positions, seed {seed}).",
                            "# Values: pnmate proves the disproof; Stockfish 15.1 depth 24 finds no mate within N.",
                            "# c0 on each line: how its value was established.", ""]))
        f.write("\n".join(draws) + "\n")


def write_traps():
    """Positions of mates.epd, mated.epd and endgames.epd in which the side that mates has
    a move that stalemates, or a capture after which it can no longer mate: the search
    must find the mate around them. Values are those of the source suites."""
    out = []
    for name in ("mates.epd", "endgames.epd"):
        for line in open(f"epd/{name}"):
            if line.startswith("#") or " bm #" not in line:
                continue
            fen = line.split(" bm ")[0]
            board = chess.Board(fen)
            traps = []
            for m in board.legal_moves:
                board.push(m)
                if board.is_stalemate():
                    traps.append(f"{m.uci()} stalemates")
                elif board.has_insufficient_material(not board.turn):
                    traps.append(f"{m.uci()} leaves no mating material")
                board.pop()
            if traps:
                value = line.split(" c0 ")[0]
                out.append(f'{value} c0 "trap: {", ".join(traps[:3])}; value from {name}";')
    with open("epd/traps.epd", "w") as f:
        f.write("\n".join(["# Stalemate and insufficient-material traps: mates where a natural-looking move",
                            "# of the mating side stalemates or throws away its mating material.",
                            "# Selected by tools/make_suites.py --traps from mates.epd and endgames.epd;",
                            "# values (pnmate exact, Stockfish 15.1 agreeing) are those of the source lines.", ""]))
        f.write("\n".join(out) + "\n")
    log(f"traps: {len(out)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mated-from", help="only write epd/mated.epd from the twins of this mates suite")
    ap.add_argument("--nomate-only", action="store_true", help="only write epd/nomate.epd (uses epd/endgames.epd)")
    ap.add_argument("--traps", action="store_true", help="only write epd/traps.epd from the other suites")
    args = ap.parse_args()
    if args.traps:
        write_traps()
        return
    if args.nomate_only:
        sf = chess.engine.SimpleEngine.popen_uci(SF)
        long_lines = [l.strip() for l in open("epd/endgames.epd") if " bm #" in l]
        no_mate_stage(random.Random(args.seed), sf, long_lines, args.seed)
        sf.quit()
        return
    if args.mated_from:
        sf = chess.engine.SimpleEngine.popen_uci(SF)
        sf.configure({"Hash": 64, "Threads": 1})
        lines = mated_from(args.mated_from, sf)
        sf.quit()
        with open("epd/mated.epd", "w") as f:
            f.write("\n".join([
                "# The side to move is mated in 1..9: the twins of mates.epd after the first PV move",
                f"# Generated by tools/make_suites.py --mated-from {args.mated_from}.",
                "# Values: pnmate proves the longest defence; Stockfish 15.1 depth 22 reports mate -M.",
                "# c0 on each line: how its value was established.", ""]))
            f.write("\n".join(lines) + "\n")
        return
    rng = random.Random(args.seed)
    sf = chess.engine.SimpleEngine.popen_uci(SF)
    sf.configure({"Hash": 64, "Threads": 1})
    P, N, B, R, Q = chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN

    def header(title, how):
        return [f"# {title}", "# Generated by tools/make_suites.py (random positions, seed %d)." % args.seed,
                f"# Values: {how}", "# c0 on each line: how its value was established.", ""]

    # 1. Mates in 1..10, both colours to move, and their mated-side twins. Short mates
    #    come from mixed material; long ones mostly from K+major-piece endings.
    mates, mated = {}, {}
    mixed = ([Q, R, R, B, B, N, N, P, P], [P, P, P, N, B, R], (1, 4), (0, 3))
    lone = ([Q, R, R, Q], [P, N, B], (1, 1), (0, 1))
    tries = 0
    def want(m):
        return PER_LENGTH if m <= 8 else PER_LENGTH // 4

    started = time.monotonic()
    while any(len(mates.get(m, [])) < want(m) for m in range(1, 11)) and time.monotonic() - started < STAGE_SECONDS:
        tries += 1
        short_done = all(len(mates.get(m, [])) >= want(m) for m in range(1, 7))
        pools = lone if short_done else mixed
        b = random_position(rng, *pools)
        if b is None:
            continue
        r = pn_solve(b.fen(), 10, 2 if short_done else 0.3)
        if r["result"] != "mate" or not r["exact"]:
            continue
        M = r["moves"]
        if len(mates.get(M, [])) >= want(M):
            continue
        if sf_mate(sf, b, mate=M, time=3 if M < 8 else 15) != M:
            log(f"stockfish disagrees on {b.fen()} (pnmate mate {M}): skipped")
            continue
        color = "white" if b.turn == chess.WHITE else "black"
        mates.setdefault(M, []).append(
            f'{b.epd()} bm #{M}; PV: {" ".join(r["pv"])}; c0 "{color} mates; pnmate exact (no mate in {M - 1} proven), '
            f'{r["nodes"]} nodes; stockfish 15.1 go mate {M}: mate {M}";')
        log(f"try {tries}: mates by length " + " ".join(f"{k}:{len(v)}" for k, v in sorted(mates.items())))
        if M >= 2 and len(mated.get(M - 1, [])) < 4:
            after = b.copy()
            after.push(chess.Move.from_uci(r["pv"][0]))
            r2 = pn_solve(after.fen(), M, 3)
            if r2["result"] == "mated" and r2["moves"] == -(M - 1) and r2["exact"] and sf_mate(sf, after, depth=20) == -(M - 1):
                mated.setdefault(M - 1, []).append(
                    f'{after.epd()} bm #-{M - 1}; PV: {" ".join(r2["pv"])}; c0 "side to move is mated; pnmate exact, '
                    f'{r2["nodes"]} nodes; stockfish 15.1 depth 20: mate -{M - 1}";')
    with open("epd/mates.epd", "w") as f:
        f.write("\n".join(header("Mates in 1..10 for the side to move, both colours",
                                 "pnmate proves the mate shortest; Stockfish 15.1 `go mate M` reports the same mate.")))
        for M in sorted(mates):
            f.write("\n".join(mates[M]) + "\n")
    with open("epd/mated.epd", "w") as f:
        f.write("\n".join(header("The side to move is mated in 1..9 (twins of mates.epd after the first PV move)",
                                 "pnmate proves the longest defence; Stockfish 15.1 depth 20 reports mate -M.")))
        for M in sorted(mated):
            f.write("\n".join(mated[M]) + "\n")

    # 2. Long endgame mates: KQvK and KRvK.
    long_lines = []
    for pool, count in (([Q], 8), ([R], 8)):
        got = 0
        started = time.monotonic()
        while got < count and time.monotonic() - started < STAGE_SECONDS / 6:
            b = random_position(rng, pool, [P], (1, 1), (0, 0))
            if b is None:
                continue
            r = pn_solve(b.fen(), 20, 5)
            if r["result"] != "mate" or not r["exact"] or r["moves"] < (8 if pool == [Q] else 11):
                continue
            M = r["moves"]
            if sf_mate(sf, b, mate=M, time=15) != M:
                continue
            name = "KQvK" if pool == [Q] else "KRvK"
            long_lines.append(f'{b.epd()} bm #{M}; PV: {" ".join(r["pv"])}; c0 "{name}; pnmate exact, {r["nodes"]} nodes; '
                              f'stockfish 15.1 go mate {M}: mate {M}";')
            got += 1
            log(f"endgames: {len(long_lines)}")
    with open("epd/endgames.epd", "w") as f:
        f.write("\n".join(header("Long endgame mates: KQvK and KRvK",
                                 "pnmate proves the mate shortest; Stockfish 15.1 `go mate M` reports the same mate.")))
        f.write("\n".join(long_lines) + "\n")

    no_mate_stage(rng, sf, long_lines, args.seed)
    sf.quit()


if __name__ == "__main__":
    main()
