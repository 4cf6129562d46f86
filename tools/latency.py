#!/usr/bin/env python3
"""Measures how fast pnmate answers the UCI commands a GUI waits on, over pipes.

The tests check that these commands are answered at all (with generous hang guards);
this tool measures how soon, which depends on the machine:
  * stop:     `bestmove` after `stop` during `go infinite` (a long mate search);
  * isready:  `readyok` during `go infinite`;
  * hash go:  `bestmove` of `go movetime 300` sent right behind `setoption name Hash
              value 1024` (the table is faulted in beside the search, not before it);
  * build stop, build isready, build quit: `bestmove` after `stop`, `readyok` after
              `isready`, the process's exit after `quit`, each 0.3 s into `go infinite` on
              K+Q v K+P in a fresh engine with an empty tables cache directory (its nine
              exact tables are being built).
Prints the median and the largest of each over --runs sessions.

  python3 tools/latency.py --engine target/release/pnmate --runs 5

--cold-mate times instead the first proven mate (`score mate`) after `go infinite` on
K+Q v K+P in a fresh engine with an empty tables cache, for each --engine in turn (runs
alternate, so two builds meet the same machine):

  python3 tools/latency.py --cold-mate --engine OLD --engine NEW --runs 3
"""
import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import tempfile
import time

HARD = 'position fen 2N5/p4P2/p4RqP/P2krb2/5RNK/2PPB1P1/3P1pP1/4nQ2 b - - 0 1'


class Uci:
    def __init__(self, command, env=None):
        self.p = subprocess.Popen(command.split(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
                                  env=env)

    def send(self, line):
        self.p.stdin.write(line + '\n')
        self.p.stdin.flush()

    def wait_for(self, prefix):
        """Seconds until a line starting with `prefix` arrives."""
        start = time.monotonic()
        for line in self.p.stdout:
            if line.startswith(prefix):
                return time.monotonic() - start
        raise RuntimeError('engine exited')

    def close(self):
        self.send('quit')
        self.p.wait(timeout=10)


def during_search(engine, command, answer):
    """Seconds from `command` to `answer` half a second into `go infinite`."""
    u = Uci(engine)
    u.send(HARD)
    u.send('go infinite')
    time.sleep(0.5)
    u.send(command)
    t = u.wait_for(answer)
    if answer != 'bestmove':
        u.send('stop')
        u.wait_for('bestmove')
    u.close()
    return t


def stop_latency(engine):
    return during_search(engine, 'stop', 'bestmove')


def isready_latency(engine):
    return during_search(engine, 'isready', 'readyok')


def hash_go_latency(engine):
    u = Uci(engine)
    u.send('setoption name Hash value 1024')
    u.send('position startpos')
    u.send('go movetime 300')
    t = u.wait_for('bestmove')
    u.close()
    return t


KQKP = 'position fen 8/2K5/8/8/8/Q7/3p4/5k2 w - - 0 1'


@contextlib.contextmanager
def cold_kqkp(engine):
    """A fresh engine with an empty tables cache, searching K+Q v K+P (`go infinite`)."""
    cache = tempfile.mkdtemp(prefix='pnmate-latency-')
    try:
        u = Uci(engine, env=dict(os.environ, XDG_CACHE_HOME=cache))
        u.send(KQKP)
        u.send('go infinite')
        yield u
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def during_build(engine, command, answer):
    """Seconds from `command` to `answer` 0.3 s into `go infinite` on K+Q v K+P, in a fresh
    engine with an empty tables cache; `answer` None: the process's exit."""
    with cold_kqkp(engine) as u:
        time.sleep(0.3)
        start = time.monotonic()
        u.send(command)
        if answer is None:
            u.p.wait(timeout=30)
            return time.monotonic() - start
        t = u.wait_for(answer)
        if answer != 'bestmove':
            u.send('stop')
            u.wait_for('bestmove')
        u.close()
        return t


def cold_mate(engine):
    """Seconds from `go infinite` on K+Q v K+P to the first `score mate`, in a fresh engine
    with an empty tables cache."""
    with cold_kqkp(engine) as u:
        start = time.monotonic()
        for line in u.p.stdout:
            if ' score mate ' in line:
                break
        t = time.monotonic() - start
        u.send('stop')
        u.wait_for('bestmove')
        u.close()
        return t


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--engine', action='append')
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--cold-mate', action='store_true', help='time the first proven mate from cold instead')
    args = ap.parse_args()
    engines = args.engine or ['target/release/pnmate']
    if args.cold_mate:
        times = {e: [] for e in engines}
        for _ in range(args.runs):
            for e in engines:
                times[e].append(cold_mate(e))
        for e in engines:
            print(f'{e}: first mate from cold, median {statistics.median(times[e]):6.2f} s   '
                  f'runs {" ".join(f"{t:.2f}" for t in times[e])}')
        return
    args.engine = engines[0]
    measures = [('stop', stop_latency), ('isready', isready_latency), ('hash go', hash_go_latency),
                ('build stop', lambda e: during_build(e, 'stop', 'bestmove')),
                ('build isready', lambda e: during_build(e, 'isready', 'readyok')),
                ('build quit', lambda e: during_build(e, 'quit', None))]
    for name, measure in measures:
        times = [measure(args.engine) for _ in range(args.runs)]
        print(f'{name:<14} median {1000 * statistics.median(times):8.1f} ms   largest {1000 * max(times):8.1f} ms')


if __name__ == '__main__':
    main()
