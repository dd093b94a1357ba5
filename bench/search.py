"""Search speed: nodes per second of chuhan's engine in middlegame positions, as a ratio to
a yardstick run in the same process.

Run from the repository root::

    .venv/bin/python bench/search.py              # depth 7, best of 2 runs
    .venv/bin/python bench/search.py --depth 5    # quicker

Each position is searched from a fresh :class:`~chuhan.search.search.Searcher` to a fixed
depth, so the node counts are the same on every machine (they change only when the
search changes); the time, and so the nodes per second, is the machine's. The positions
are middlegames reached from common openings in both games. CPU time
(``time.process_time``) is reported beside wall time because shared machines are noisy.

Absolute speed drifts with the machine and its load, so each run also times a yardstick in
the same process, before each round of searches: python-chess's perft(4) from the chess
start, pushing and popping every leaf (the "full" perft of ``bench/perft.py``). The figure
to compare between versions is the ratio of the search's nodes per second (CPU time, best
of the runs) to the yardstick's, per game and in total.

The build runs as installed: compiled by mypyc where it was built (see the README), and
``CHUHAN_PURE=1`` for pure Python; the second line of the output says which.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

import chuhan
from chuhan.board import Board
from chuhan.search.limits import SearchLimits
from chuhan.search.search import Searcher

# (name, variant, FEN): middlegames after about eight to fifteen moves.
POSITIONS = [
    (
        "xiangqi central cannon vs screen horses",
        "xiangqi",
        "r1bakab1r/9/1cn4cn/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R b - - 3 2",
    ),
    (
        "xiangqi developed both sides",
        "xiangqi",
        "r2akab1r/9/1cn1b1n2/p1p1p3p/6p2/2P6/P3P1P1P/1CN1B1N2/4C4/R2AKABR1 w - - 0 8",
    ),
    (
        "xiangqi rook out early",
        "xiangqi",
        "2bakab1r/r8/2n1c1n2/p1p1p1p1p/9/2P6/P3P1P1P/1CN3N2/9/R1BAKAB1R w - - 0 6",
    ),
    (
        "xiangqi open middlegame",
        "xiangqi",
        "2bakab2/9/2n1c1n2/p3p3p/2p3p2/6P2/P1P1P3P/2N1C1N2/4A4/2BAK1B2 w - - 0 14",
    ),
    (
        "janggi start (official)",
        "janggi",
        "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1",
    ),
    (
        "janggi developed",
        "janggi",
        "r1ba1a1nr/4k4/1cn2b1c1/p1p1p1p1p/9/2P6/P3P1P1P/1CN3NC1/4K4/R1BA1AB1R w - - 0 6",
    ),
]


YARDSTICK_DEPTH = 4
YARDSTICK_NODES = 197_281  # chess perft(4) from the start


def yardstick() -> tuple[float, float]:
    """Wall and CPU seconds of python-chess's perft(4), push/pop at every leaf."""
    import chess

    def perft(board: chess.Board, depth: int) -> int:
        moves = list(board.legal_moves)
        if depth == 1:
            for m in moves:
                board.push(m)
                board.pop()
            return len(moves)
        total = 0
        for m in moves:
            board.push(m)
            total += perft(board, depth - 1)
            board.pop()
        return total

    wall = time.perf_counter()
    cpu = time.process_time()
    nodes = perft(chess.Board(), YARDSTICK_DEPTH)
    wall = time.perf_counter() - wall
    cpu = time.process_time() - cpu
    if nodes != YARDSTICK_NODES:
        raise SystemExit(f"python-chess perft(4) gave {nodes:,d}, not {YARDSTICK_NODES:,d}")
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    try:
        import chess
    except ImportError as exc:
        sys.exit(f"bench/search.py needs the bench extras ({exc}): pip install -e '.[bench]'")
    print(f"chuhan search speed, depth {args.depth}, best of {args.repeat}")
    print(f"build: {chuhan.BUILD.describe()}")
    print(
        f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, "
        f"python-chess {chess.__version__}"
    )
    # Per position: the best (lowest CPU time) run's wall, cpu and nodes.
    best: list[tuple[float, float, int] | None] = [None] * len(POSITIONS)
    yard_cpu = float("inf")
    yard_runs: list[float] = []
    for _ in range(args.repeat):
        _, cpu = yardstick()
        yard_runs.append(YARDSTICK_NODES / cpu)
        yard_cpu = min(yard_cpu, cpu)
        for index, (_, variant, fen) in enumerate(POSITIONS):
            board = Board(fen, variant=variant)
            searcher = Searcher(hash_mb=64)
            wall = time.perf_counter()
            cpu = time.process_time()
            result = searcher.search(board, SearchLimits(depth=args.depth))
            wall = time.perf_counter() - wall
            cpu = time.process_time() - cpu
            nodes = result.lines[0].nodes
            kept = best[index]
            if kept is None or cpu < kept[1]:
                best[index] = (wall, cpu, nodes)
    yard_nps = YARDSTICK_NODES / yard_cpu
    totals: dict[str, list[float]] = {
        group: [0, 0.0, 0.0] for group in ("xiangqi", "janggi", "total")
    }
    for (name, variant, _), kept in zip(POSITIONS, best, strict=True):
        assert kept is not None
        wall, cpu, nodes = kept
        for group in (variant, "total"):
            sums = totals[group]
            sums[0] += nodes
            sums[1] += wall
            sums[2] += cpu
        print(
            f"  {name:42s} {nodes:8,d} nodes  {wall:6.2f} s  "
            f"{nodes / wall:8,.0f} n/s (wall)  {nodes / cpu:8,.0f} n/s (cpu)"
        )
    spread = ", ".join(f"{n:,.0f}" for n in yard_runs)
    print(
        f"yardstick: python-chess perft({YARDSTICK_DEPTH}) push/pop, {yard_nps:,.0f} nodes/s cpu "
        f"(runs: {spread})"
    )
    for group, (group_nodes, wall, cpu) in totals.items():
        nps = group_nodes / cpu
        print(
            f"{group:8s} {int(group_nodes):8,d} nodes in {cpu:6.2f} s cpu ({wall:6.2f} s wall): "
            f"{nps:8,.0f} nodes/s cpu, {nps / yard_nps:.4f} x yardstick"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
