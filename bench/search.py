"""Search speed: nodes per second of chuhan's engine in middlegame positions.

Run from the repository root::

    .venv/bin/python bench/search.py              # depth 7, best of 2 runs
    .venv/bin/python bench/search.py --depth 5    # quicker

Each position is searched from a fresh :class:`~chuhan.search.search.Searcher` to a fixed
depth, so the node counts are the same on every machine (they change only when the
search changes); the time, and so the nodes per second, is the machine's. The positions
are middlegames reached from common openings in both games. CPU time
(``time.process_time``) is reported beside wall time because shared machines are noisy.
"""

from __future__ import annotations

import argparse
import platform
import time

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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    print(f"chuhan search speed, depth {args.depth}, best of {args.repeat}")
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}")
    total_nodes = 0
    total_wall = 0.0
    total_cpu = 0.0
    for name, variant, fen in POSITIONS:
        best: tuple[float, float, int] | None = None
        for _ in range(args.repeat):
            board = Board(fen, variant=variant)
            searcher = Searcher(hash_mb=64)
            wall = time.perf_counter()
            cpu = time.process_time()
            result = searcher.search(board, SearchLimits(depth=args.depth))
            wall = time.perf_counter() - wall
            cpu = time.process_time() - cpu
            nodes = result.lines[0].nodes
            if best is None or cpu < best[1]:
                best = (wall, cpu, nodes)
        assert best is not None
        wall, cpu, nodes = best
        total_nodes += nodes
        total_wall += wall
        total_cpu += cpu
        print(
            f"  {name:42s} {nodes:8,d} nodes  {wall:6.2f} s  "
            f"{nodes / wall:8,.0f} n/s (wall)  {nodes / cpu:8,.0f} n/s (cpu)"
        )
    print(
        f"total {total_nodes:,d} nodes in {total_wall:.2f} s: {total_nodes / total_wall:,.0f} "
        f"nodes/s wall, {total_nodes / total_cpu:,.0f} nodes/s cpu"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
