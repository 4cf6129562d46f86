"""Shared by the fitting tools (fit_kqkr.py, fit_progress.py): walks the tablebase lines
of an EPD suite (`FEN bm #N; PV: ...;`), labels positions with their distance to mate,
fits an additive model (one table per feature, least squares with a small ridge) and
prints how much of the variance it explains on held-out lines and its tables in units of
20 a move (each table's smallest entry 0).
"""
import re

import chess
import numpy as np

RIDGE = 5.0


def edge(sq):
    """King steps from `sq` to the nearest edge."""
    f, r = chess.square_file(sq), chess.square_rank(sq)
    return min(f, 7 - f, r, 7 - r)


def samples(path, keep, features):
    """(line number, distance to mate, features(board)) for each position on the lines with
    the mating side to move where keep(board, mating side) holds."""
    for number, line in enumerate(open(path)):
        m = re.search(r'bm #(-?\d+); PV: ([^;]*);', line)
        if not m:
            continue
        n, pv = int(m.group(1)), m.group(2).split()
        board = chess.Board(' '.join(line.split()[:4]) + ' 0 1')
        strong = board.turn if n > 0 else not board.turn
        to_mate = abs(n)
        for move in pv:
            if board.turn == strong and keep(board, strong):
                yield number, to_mate, features(board)
            board.push_uci(move)
            if board.turn == strong:
                to_mate -= 1


def one_hot(rows, tables):
    return np.array([[float(f[name] == v) for name, top in tables.items() for v in range(top + 1)] for f in rows])


def fit(x, y):
    a = np.c_[x, np.ones(len(y))]
    ridge = RIDGE * np.eye(a.shape[1])
    ridge[-1, -1] = 0
    return np.linalg.solve(a.T @ a + ridge, a.T @ y)


def explained(pred, y):
    return 1 - ((pred - y) ** 2).sum() / ((y - y.mean()) ** 2).sum()


def first_half(lines, seed=0):
    """Whether each sample's line is in the random half `seed` draws."""
    return (np.random.default_rng(seed).random(lines.max() + 1) < 0.5)[lines]


def report(data, tables, baseline, baseline_name, half_only=False):
    """Fits the model to `data` (from `samples`), prints the variance it explains on
    three held-out halves against a one-feature fit of `baseline(features)`, then the
    tables of the fit to all lines (to the first half only with `half_only`)."""
    lines = np.array([s[0] for s in data])
    y = np.array([s[1] for s in data], float)
    x = one_hot([s[2] for s in data], tables)
    old = np.array([baseline(f) for _, _, f in data], float)
    print(f'{len(y)} positions from {len(set(lines))} lines')
    for seed in range(3):
        train = first_half(lines, seed)
        c = fit(x[train], y[train])
        model = explained(np.c_[x[~train], np.ones((~train).sum())] @ c, y[~train])
        m = np.c_[old, np.ones(len(y))]
        g, *_ = np.linalg.lstsq(m[train], y[train], rcond=None)
        print(f'held-out half {seed}: model explains {model:.2f}, {baseline_name} {explained(m[~train] @ g, y[~train]):.2f}')
    if half_only:
        x, y = x[first_half(lines)], y[first_half(lines)]
    c = fit(x, y)
    i = 0
    for name, top in tables.items():
        table = c[i:i + top + 1]
        i += top + 1
        print(f'{name:>16}: {[int(round(20 * (v - table.min()))) for v in table]}')
