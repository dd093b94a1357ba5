"""The opening explorer: importing the shipped master games, and lookups.

Run from the repository root::

    .venv/bin/python bench/explorer.py                       # import the archive, then look up
    .venv/bin/python bench/explorer.py --index /tmp/x.sqlite3 --lookups 5000

Measured:

- the import of the whole shipped archive (``src/chuhan/explorer/data/ccpd.tar.xz``,
  58,468 files) into a new index: wall time, the CPU time of the importing process and of
  its reading workers (``--workers N``; default one per CPU), the peak resident memory
  (``ru_maxrss``), and what the import summary says;
- the index's size on disk (the SQLite file after a checkpoint);
- lookups (:meth:`Explorer.lookup`, in process, the moves with their notations and top
  games): p50, p99 and the slowest over positions taken from the games themselves, each
  game replayed to a seeded random ply (a third within the first 10 plies, where every
  position has hundreds of games, a third to ply 40 and the rest anywhere), each board
  built before the clock starts.

With ``--index`` an existing index is looked up in (and built there first if missing).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import resource
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

try:
    import chuhan
    from chuhan.explorer import MASTERS_ARCHIVE, Explorer, ImportSummary, open_masters
except ImportError:  # run from a checkout without ``pip install -e .``
    sys.path.insert(0, str(ROOT / "src"))
    import chuhan
    from chuhan.explorer import MASTERS_ARCHIVE, Explorer, ImportSummary, open_masters


def _progress() -> tuple[list[float], object]:
    last = [0.0]

    def show(summary: ImportSummary) -> None:
        now = time.monotonic()
        if now - last[0] >= 5:
            last[0] = now
            print(
                f"  {summary.files:,} files, {summary.games:,} games", file=sys.stderr, flush=True
            )

    return last, show


def build(index: Path, workers: int | None) -> None:
    """Import the shipped archive into a new index at ``index`` and print the numbers."""
    _, show = _progress()
    wall = time.perf_counter()
    cpu = time.process_time()
    explorer = open_masters(index, progress=show, workers=workers)  # type: ignore[arg-type]
    wall = time.perf_counter() - wall
    cpu = time.process_time() - cpu
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    read_cpu = children.ru_utime + children.ru_stime
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    peak_worker = children.ru_maxrss / 1024
    counts = explorer.counts()
    explorer.close()
    checkpoint = sqlite3.connect(index)
    checkpoint.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    rows = checkpoint.execute("SELECT count(*) FROM positions").fetchone()[0]
    summary = checkpoint.execute(
        "SELECT files, games, others, duplicates, refused FROM imports"
    ).fetchone()
    checkpoint.close()
    size = index.stat().st_size
    print(f"archive: {MASTERS_ARCHIVE.name}, {MASTERS_ARCHIVE.stat().st_size / 1e6:.1f} MB")
    print(
        "import: files {:,}, games {:,}, other records {:,}, duplicates {:,}, refused {:,}".format(
            *summary
        )
    )
    print(f"records by kind: {dict(sorted(counts.items()))}")
    print(
        f"import time: {wall:.1f} s wall, {cpu:.1f} s CPU in the importing process and "
        f"{read_cpu:.1f} s in its reading workers ({workers or 'one per CPU'}); peak resident "
        f"memory {peak:.0f} MB (a worker's {peak_worker:.0f} MB)"
    )
    print(f"index: {size / 1e6:.1f} MB on disk, {rows:,} (position, move) rows")


def lookups(index: Path, count: int, seed: int) -> None:
    """Time ``count`` lookups of positions from the index's games."""
    explorer = Explorer(index)
    rng = random.Random(seed)
    db = sqlite3.connect(index)
    games = [
        (fen, moves.split())
        for fen, moves in db.execute("SELECT fen, moves FROM games WHERE kind = 'game'")
    ]
    db.close()
    boards = []
    for number in range(count):
        fen, moves = rng.choice(games)
        limit = (10, 40, len(moves))[number % 3]
        board = chuhan.Board(fen)
        for text in moves[: rng.randint(0, min(limit, len(moves)))]:
            board.push_iccs(text)
        boards.append(board)
    explorer.lookup(boards[0])  # the first opens the file's pages
    times = []
    found = 0
    for board in boards:
        start = time.perf_counter()
        stats = explorer.lookup(board)
        times.append(time.perf_counter() - start)
        found += stats.games > 0
    explorer.close()
    times.sort()

    def at(share: float) -> float:
        return times[min(len(times) - 1, int(share * len(times)))] * 1000

    print(
        f"lookups: {count:,} positions ({found:,} with games): p50 {at(0.5):.2f} ms, "
        f"p99 {at(0.99):.2f} ms, slowest {times[-1] * 1000:.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, default=None, help="index file (default: new)")
    parser.add_argument("--lookups", type=int, default=3000, help="positions looked up")
    parser.add_argument("--seed", type=int, default=1, help="seed of the positions chosen")
    parser.add_argument(
        "--workers", type=int, default=None, help="processes reading records (default: per CPU)"
    )
    args = parser.parse_args()
    print(
        f"chuhan {chuhan.__version__}, {chuhan.BUILD.describe()}; Python "
        f"{platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs"
    )
    with tempfile.TemporaryDirectory() as folder:
        index = args.index or Path(folder) / "explorer.sqlite3"
        if not index.exists():
            build(index, args.workers)
        lookups(index, args.lookups, args.seed)


if __name__ == "__main__":
    main()
