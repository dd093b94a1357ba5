"""The opening explorer: importing the shipped master games, and lookups.

Run from the repository root::

    .venv/bin/python bench/explorer.py                       # import the archive, then look up
    .venv/bin/python bench/explorer.py --index /tmp/x.sqlite3 --lookups 5000
    .venv/bin/python bench/explorer.py --index postgresql    # into a throwaway PostgreSQL
    .venv/bin/python bench/explorer.py --index postgresql://user@host/db --sample 2000

``--index`` is a SQLite file (default: a new one in a temporary folder), a PostgreSQL
database's address, or the word ``postgresql``: a fresh database on a throwaway cluster
started here on disk (``/var/tmp``) with fsync on, as bench/load.py starts it.
``--sample N`` imports the archive's first N files of master games
(``tests/explorer_sample.py``'s sample) instead of the whole archive.

Measured:

- the import of the whole shipped archive (``src/chuhan/explorer/data/ccpd.tar.xz``,
  58,468 files) into a new index: wall time, the CPU time of the importing process and of
  its reading workers (``--workers N``; default one per CPU), the peak resident memory
  (``ru_maxrss``), and what the import summary says;
- the index's size on disk (the SQLite file after a checkpoint; on PostgreSQL the
  ``pg_total_relation_size`` of the index's tables, their indexes included);
- lookups (:meth:`Explorer.lookup`, in process, the moves with their notations and top
  games): p50, p99 and the slowest over positions taken from the games themselves, each
  game replayed to a seeded random ply (a third within the first 10 plies, where every
  position has hundreds of games, a third to ply 40 and the rest anywhere), each board
  built before the clock starts.

With ``--index`` an existing index is looked up in (and built there first if it holds no
master games).
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import random
import resource
import sqlite3
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

try:
    import chuhan
    from chuhan.explorer import MASTERS_ARCHIVE, Explorer, ImportSummary, open_masters
    from chuhan.explorer.stores import PG_SCHEMA, is_index_url
except ImportError:  # run from a checkout without ``pip install -e .``
    sys.path.insert(0, str(ROOT / "src"))
    import chuhan
    from chuhan.explorer import MASTERS_ARCHIVE, Explorer, ImportSummary, open_masters
    from chuhan.explorer.stores import PG_SCHEMA, is_index_url


def _tests_module(name: str) -> Any:
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)


@contextmanager
def throwaway_database() -> Iterator[str]:
    """A fresh database on a PostgreSQL cluster started here on disk, fsync on."""
    module = _tests_module("postgres_cluster")
    module.SETTINGS.update(module.DURABLE_SETTINGS)
    cluster = module.Cluster()
    cluster._temp_parent = lambda: "/var/tmp"  # on disk, not /dev/shm
    cluster.start()
    try:
        url = cluster.create_database()
        print(f"PostgreSQL: a throwaway cluster ({cluster.datadir}), fsync on")
        yield url
    finally:
        cluster.stop()


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


def build(index: str, workers: int | None, sample: int | None) -> None:
    """Import the shipped archive (or its sample) into a new index at ``index`` and print
    the numbers."""
    _, show = _progress()
    wall = time.perf_counter()
    cpu = time.process_time()
    if sample is None:
        explorer = open_masters(index, progress=show, workers=workers)  # type: ignore[arg-type]
    else:
        from chuhan.explorer.masters import MASTERS_ENCODING, MASTERS_LABEL, masters_digest

        files = _tests_module("explorer_sample").sample_files(sample)
        print(f"sample: the archive's first {len(files):,} files of master games")
        wall = time.perf_counter()
        cpu = time.process_time()
        explorer = Explorer(index)
        explorer.import_files(
            files,
            label=MASTERS_LABEL,
            digest=masters_digest(),
            encoding=MASTERS_ENCODING,
            workers=workers,
            progress=show,  # type: ignore[arg-type]
        )
    wall = time.perf_counter() - wall
    cpu = time.process_time() - cpu
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    read_cpu = children.ru_utime + children.ru_stime
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    peak_worker = children.ru_maxrss / 1024
    counts = explorer.counts()
    db = explorer._db  # (the bench reads the index's tables as they are)
    rows = db.rows("SELECT count(*) FROM positions")[0][0]
    summary = db.rows("SELECT files, games, others, duplicates, refused FROM imports")[0]
    if is_index_url(index):
        size = int(
            db.rows(
                "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = ? AND c.relkind = 'r'",
                (PG_SCHEMA,),
            )[0][0]
        )
        explorer.close()
    else:
        explorer.close()
        checkpoint = sqlite3.connect(index)
        checkpoint.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        checkpoint.close()
        size = Path(index).stat().st_size
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
    print(f"load average after the import: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


def lookups(index: str, count: int, seed: int) -> None:
    """Time ``count`` lookups of positions from the index's games."""
    explorer = Explorer(index)
    rng = random.Random(seed)
    games = [
        (str(fen), str(moves).split())
        for fen, moves in explorer._db.rows(
            "SELECT fen, moves FROM games WHERE kind = 'game' ORDER BY id"
        )
    ]
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
    parser.add_argument(
        "--index",
        default=None,
        help="index file, postgresql:// address, or 'postgresql' (a throwaway cluster); "
        "default: a new file",
    )
    parser.add_argument(
        "--sample", type=int, default=None, help="import the first N master files only"
    )
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
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as folder:
        if args.index == "postgresql":
            with throwaway_database() as url:
                build(url, args.workers, args.sample)
                lookups(url, args.lookups, args.seed)
            return
        index = args.index or str(Path(folder) / "explorer.sqlite3")
        with Explorer(index) as explorer:
            built = bool(explorer.counts())
        if not built:
            build(index, args.workers, args.sample)
        lookups(index, args.lookups, args.seed)


if __name__ == "__main__":
    main()
