"""Build chuhan's ECCO opening classifier (``src/chuhan/explorer/data/ecco.tsv``) from the
master games of the shipped CCPD archive, and measure it on games it was not built from.

Each master game whose record carries an ``[ECCO]`` tag is read once (the archive files a
game up to three times); its positions up to :data:`DEPTH` plies are keyed by Zobrist hash
and side to move (:func:`chuhan.explorer.position_key`), so that transpositions meet. One
game in five (by a hash of its moves: the same split every run) is held out. For every
position the other games reached at least :data:`MIN_GAMES` times, the table keeps the
code most of them carry when at least :data:`MIN_SHARE` of them carry it, else the family
(``C0`` for ``C00``-``C09``) most of them are of when that share is. A game is classified
by the deepest position of its first :data:`DEPTH` plies whose code the table holds, else
the deepest whose family it holds (:mod:`chuhan.explorer.ecco`).

    python tools/build_ecco.py [--cache /tmp/ecco-games.pickle] [--write]

prints the held-out agreement with the games' own tags; ``--write`` writes the table built
from every tagged game (the held-out ones included) into the package.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import re
import sys
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from chuhan.explorer.ecco import DATA_PATH, DEPTH, classify_keys
from chuhan.explorer.files import iter_collection
from chuhan.explorer.index import _read_files
from chuhan.explorer.masters import MASTERS_ARCHIVE, MASTERS_ENCODING
from chuhan.explorer.text import normalize_ecco

#: A position enters the table when this many games reached it ...
MIN_GAMES = 3
#: ... and this share of them carry its most common code.
MIN_SHARE = 0.7
#: The files read by one worker's job.
BATCH = 400

Game = tuple[str, tuple[int, ...], bool]


def _opening_text(data: bytes) -> bytes:
    """A record's text cut after move :data:`DEPTH` / 2 (reading the rest is most of the
    work and tells the classifier nothing)."""
    try:
        text = data.decode(MASTERS_ENCODING)
    except UnicodeDecodeError:
        return data
    cut = re.search(rf"(?m)^\s*{DEPTH // 2 + 1}\.", text)
    return (text[: cut.start()] if cut else text).encode("utf-8")


def _games_of(batch: list[tuple[str, bytes]]) -> list[tuple[str, str, tuple[int, ...]]]:
    found = []
    cut = [(name, _opening_text(data)) for name, data in batch]
    for read in _read_files(cut, "xiangqi", "utf-8"):
        for record in read.records:
            code = normalize_ecco(dict(record.headers).get("ECCO", ""))
            if record.refusal or record.kind != "game" or not code:
                continue
            keys = [key for key, _, ply in record.passed if ply <= DEPTH]
            if record.plies <= DEPTH and record.ended is not None:
                keys.append(record.ended)
            found.append((code, record.iccs, tuple(keys)))
    return found


def read_games(workers: int) -> list[Game]:
    """Every tagged master game once: its code, its keys in order, whether held out."""
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
    games: dict[str, Game] = {}
    with ProcessPoolExecutor(workers) as pool:
        for number, found in enumerate(pool.map(_games_of, batches)):
            print(f"\r{number + 1}/{len(batches)} batches", end="", file=sys.stderr)
            for code, iccs, keys in found:
                held_out = hashlib.blake2b(iccs.encode(), digest_size=8).digest()[0] % 5 == 0
                games.setdefault(iccs, (code, keys, held_out))
    print(file=sys.stderr)
    return list(games.values())


def build_table(games: list[Game]) -> dict[int, str]:
    """The positions the games share with the code (else the family) most of them
    carry."""
    counts: dict[int, Counter[str]] = defaultdict(Counter)
    for code, keys, _ in games:
        for key in set(keys):
            counts[key][code] += 1
    table: dict[int, str] = {}
    for key, codes in counts.items():
        total = sum(codes.values())
        if total < MIN_GAMES:
            continue
        code, count = codes.most_common(1)[0]
        if count >= MIN_SHARE * total:
            table[key] = code
            continue
        families: Counter[str] = Counter()
        for code, count in codes.items():
            families[code[:2]] += count
        family, count = families.most_common(1)[0]
        if count >= MIN_SHARE * total:
            table[key] = family
    return table


def agreement(table: dict[int, str], games: list[Game]) -> tuple[int, int, int, int]:
    """Of ``games``: how many the table names with their own code, with their family (the
    code's letter and first digit), not at all, and how many in all."""
    same = family = unnamed = 0
    for code, keys, _ in games:
        found = classify_keys(table, keys)
        same += found == code
        family += found[:2] == code[:2]
        unnamed += not found
    return same, family, unnamed, len(games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, help="keep the games read here (a pickle)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--write", action="store_true", help="write the package's table")
    options = parser.parse_args()
    if options.cache is not None and options.cache.exists():
        games = pickle.loads(options.cache.read_bytes())
    else:
        games = read_games(options.workers)
        if options.cache is not None:
            options.cache.write_bytes(pickle.dumps(games))
    training = [game for game in games if not game[2]]
    held_out = [game for game in games if game[2]]
    table = build_table(training)
    same, family, unnamed, total = agreement(table, held_out)
    print(
        f"{len(games):,} tagged master games ({len(held_out):,} held out); table of "
        f"{len(table):,} positions from the others: of the held-out games, the table names "
        f"the game's own ECCO code for {same / total:.1%}, its family for "
        f"{family / total:.1%}, nothing for {unnamed / total:.1%}"
    )
    if options.write:
        full = build_table(games)
        lines = [f"{key & (1 << 64) - 1:016x}\t{code}" for key, code in sorted(full.items())]
        header = [
            "# chuhan's ECCO classifier: a position (Zobrist key, hex) and the ECCO code of",
            "# the master games that reached it. Built by tools/build_ecco.py from the ECCO",
            "# tags of the Chinese Chess Practical Dataset by Yu-Han Tseng (CC BY 4.0;",
            "# changed: derived table; see NOTICE).",
        ]
        DATA_PATH.write_text("\n".join(header + lines) + "\n", encoding="ascii")
        print(f"wrote {len(full):,} positions to {DATA_PATH}")


if __name__ == "__main__":
    main()
