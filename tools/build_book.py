"""Build chuhan's opening book (``src/chuhan/data/book.bin``) from the master games of
the shipped CCPD archive.

Each master game (the archive files a game up to three times: each text is read once,
and games with the same moves are counted once) is read up to :data:`BOOK_PLIES` plies.
For every position it passed (keyed by Zobrist hash and side to move, so transpositions
meet) the move played is counted with the game's result. A move enters the book when at
least :data:`MIN_GAMES` games played it and the side that played it scored at least
:data:`MIN_SCORE` in them (a win 1, a draw 1/2); its weight is the points it scored
(wins + draws / 2, rounded, at least 1). See :mod:`chuhan.book`.

    python tools/build_book.py [--cache /tmp/book-games.pickle] [--workers 2]

prints the size of the book and the start position's moves, and writes the book.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import re
import sys
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from chuhan.book import BOOK_PATH, BOOK_PLIES, MIN_GAMES, MIN_SCORE, Book
from chuhan.explorer.files import iter_collection
from chuhan.explorer.index import _read_files
from chuhan.explorer.masters import MASTERS_ARCHIVE, MASTERS_ENCODING
from chuhan.explorer.text import normalize_result

#: The files read by one worker's job.
BATCH = 400

#: A game: its result, and the (position key, move code, ply) it passed.
Game = tuple[str, tuple[tuple[int, int, int], ...]]


def _opening_text(data: bytes) -> bytes:
    """A record's text (tags and all) cut after move :data:`BOOK_PLIES` / 2."""
    try:
        text = data.decode(MASTERS_ENCODING)
    except UnicodeDecodeError:
        return data
    cut = re.search(rf"(?m)^\s*{BOOK_PLIES // 2 + 1}\.", text)
    return (text[: cut.start()] if cut else text).encode("utf-8")


def _games_of(batch: list[tuple[str, bytes]]) -> list[tuple[str, str, Game]]:
    found = []
    cut = [(name, _opening_text(data)) for name, data in batch]
    for read in _read_files(cut, "xiangqi", "utf-8"):
        for record in read.records:
            result = normalize_result(dict(record.headers).get("Result", ""))
            if record.refusal or record.kind != "game" or result == "*":
                continue
            passed = tuple(entry for entry in record.passed if entry[2] < BOOK_PLIES)
            found.append((record.iccs, result, passed))
    return [(iccs, result, (result, passed)) for iccs, result, passed in found]


def read_games(workers: int) -> list[Game]:
    """Every master game with a result once (by its text, then by its opening moves and
    result: the same game filed twice with different tags counts once)."""
    seen_texts: set[bytes] = set()
    batches: list[list[tuple[str, bytes]]] = [[]]
    for file in iter_collection(MASTERS_ARCHIVE):
        if file.error or "大師對局" not in file.name:
            continue
        digest = hashlib.blake2b(file.data, digest_size=16).digest()
        if digest in seen_texts:
            continue
        seen_texts.add(digest)
        if len(batches[-1]) >= BATCH:
            batches.append([])
        batches[-1].append((file.name, file.data))
    games: dict[tuple[str, str], Game] = {}
    with ProcessPoolExecutor(workers) as pool:
        for number, found in enumerate(pool.map(_games_of, batches)):
            print(f"\r{number + 1}/{len(batches)} batches", end="", file=sys.stderr)
            for iccs, result, game in found:
                games.setdefault((iccs, result), game)
    print(file=sys.stderr)
    return list(games.values())


def build(games: list[Game]) -> dict[int, dict[int, int]]:
    """Position key (unsigned) -> move code -> weight."""
    # key -> code -> [games, points for the mover in half-points]
    counts: dict[int, dict[int, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for result, passed in games:
        for key, code, ply in passed:
            red = ply % 2 == 0
            half = {"1-0": 2 if red else 0, "0-1": 0 if red else 2}.get(result, 1)
            entry = counts[key & (1 << 64) - 1][code]
            entry[0] += 1
            entry[1] += half
    book: dict[int, dict[int, int]] = {}
    for key, moves in counts.items():
        kept = {
            code: max(1, round(half / 2))
            for code, (played, half) in moves.items()
            if played >= MIN_GAMES and half >= 2 * MIN_SCORE * played
        }
        if kept:
            book[key] = kept
    return book


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, help="keep the games read here (a pickle)")
    parser.add_argument("--workers", type=int, default=2)
    options = parser.parse_args()
    if options.cache is not None and options.cache.exists():
        games = pickle.loads(options.cache.read_bytes())
    else:
        games = read_games(options.workers)
        if options.cache is not None:
            options.cache.write_bytes(pickle.dumps(games))
    table = build(games)
    BOOK_PATH.write_bytes(Book.encode(table))
    moves = sum(len(entry) for entry in table.values())
    print(
        f"{len(games):,} master games with a result; book of {len(table):,} positions, "
        f"{moves:,} moves, {BOOK_PATH.stat().st_size:,} bytes: {BOOK_PATH}"
    )
    start = Book.load().entries(Book.start_key())
    print("start position:", ", ".join(f"{move.iccs()} {weight}" for move, weight in start))


if __name__ == "__main__":
    main()
