"""Reading a large record database: the whole file at once against a game at a time.

Run from the repository root::

    .venv/bin/python bench/records_stream.py                # 1,391 games, ICCS, UTF-8
    .venv/bin/python bench/records_stream.py --games 5000 --format chinese --encoding gb18030

The database is made here (the repository holds no master games): seeded random playouts of
60-160 plies, biased towards captures like real games, written with ``write_pgn`` in the
notation asked for and encoded as asked (the encoding is then detected when reading). Four
ways of reading it are timed (CPU time, ``time.process_time``) with their peak of Python
memory (``tracemalloc``; the timing runs without it):

- ``read_pgn`` on the bytes: every game in a list;
- ``iter_pgn`` on the open file, each game dropped after it is counted: the memory of one
  game (and one 64 KB block) whatever the size of the file;
- ``iter_headers`` on the open file: the tags alone, no moves replayed;
- ``convert`` to a PGN in WXF, a game at a time.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

try:
    import chuhan
    import chuhan.records as records
except ImportError:  # run from a checkout without ``pip install -e .``
    sys.path.insert(0, str(ROOT / "src"))
    import chuhan
    import chuhan.records as records


def playout(seed: int) -> records.GameRecord:
    rng = random.Random(seed)
    board = chuhan.Board()
    for _ in range(rng.randrange(60, 160)):
        moves = list(board.legal_moves)
        if not moves:
            break
        captures = [m for m in moves if board.piece_at(m.to_square)]
        board.push(rng.choice(captures if captures and rng.random() < 0.5 else moves))
    headers = {"Event": f"Bench {seed}", "Red": "Red", "Black": "Black"}
    return records.GameRecord.from_moves(list(board.move_stack), headers=headers)


def database(games: int, notation: str, encoding: str) -> bytes:
    text = "\n".join(records.write_pgn(playout(seed), notation) for seed in range(games))
    return text.encode(encoding)


def measure(work: Callable[[], int]) -> tuple[float, int, int]:
    """(CPU seconds, what ``work`` returned, peak traced bytes)."""
    start = time.process_time()
    result = work()
    seconds = time.process_time() - start
    tracemalloc.start()
    work()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, result, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1391)
    # The games are xiangqi: every move notation but Korean (janggi's) can write them.
    formats = sorted(set(records.PGN_FORMATS) - {"korean"})
    parser.add_argument("--format", default="iccs", choices=formats)
    parser.add_argument("--encoding", default="utf-8")
    args = parser.parse_args()
    data = database(args.games, args.format, args.encoding)
    print(f"{platform.machine()}, Python {platform.python_version()}")
    print(
        f"{args.games} games, {args.format}, {args.encoding}: {len(data) / 1e6:.1f} MB, "
        f"{sum(1 for _ in records.iter_headers(data))} read by iter_headers"
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "games.pgn"
        path.write_bytes(data)

        def read_all() -> int:
            return sum(len(r.main_line_moves()) for r in records.read_pgn(data))

        def stream() -> int:
            with path.open("rb") as handle:
                return sum(len(r.main_line_moves()) for r in records.iter_pgn(handle))

        def headers() -> int:
            with path.open("rb") as handle:
                return sum(1 for _ in records.iter_headers(handle))

        def convert() -> int:
            return records.convert(path, Path(folder) / "out.pgn", format="wxf").written

        for name, work in (
            ("read_pgn (list)", read_all),
            ("iter_pgn (stream)", stream),
            ("iter_headers", headers),
            ("convert to WXF", convert),
        ):
            seconds, result, peak = measure(work)
            print(f"{name:20} {seconds:7.2f} s  peak {peak / 1e6:7.1f} MB  ({result})")


if __name__ == "__main__":
    main()
