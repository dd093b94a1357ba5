"""The explorer's second source, this server's own games in the game database: adding
games as they end, and lookups, on SQLite and PostgreSQL.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python bench/explorer_site.py     # both stores, 2,000 games
    PYTHONPATH=src .venv/bin/python bench/explorer_site.py --store postgresql --games 5000

Measured, on a fresh database of each store (SQLite: a file in a temporary folder;
PostgreSQL: a throwaway cluster started here on disk with fsync on, as bench/load.py
starts it, or the server at ``--db``):

- a one-row write every 10 ms, a stand-in for the moves of other games: its time alone
  (200 writes), then while the games are added (what a move waits for the explorer's
  writes: on SQLite they share the one writer and its group commits);
- adding ``--games`` games one after another, each one transaction
  (:func:`chuhan.web.explorer.repository.add_site_game`, as a game's end runs it): the
  replay of its moves into the positions it adds (``game_positions``, done off the event
  loop in the server) and the write, each game's write timed (p50, p99, the slowest: on
  SQLite the time the game holds the store's one writer, which the moves of other games
  committed in the same group wait for), and the whole;
- lookups (:func:`chuhan.web.explorer.site.site_lookup`, what ``/api/explorer?source=site``
  runs: the read and the answer built with its notations and games): p50, p99 and the
  slowest over positions taken from the games, each replayed to a seeded random ply (a
  third within the first 10 plies, where positions have hundreds of games, a third to
  ply 40 and the rest anywhere), each board built before the clock starts.

The games are seeded random legal games of 20 to 100 plies whose first six plies are
chosen among a few moves, so that they meet at their openings as real games do; each has
a random result, speed and rating band.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import time
from typing import Any

import chuhan
from chuhan import Board
from chuhan.explorer import game_positions
from chuhan.web.db import Store, open_store
from chuhan.web.explorer.repository import SiteGame, add_site_game
from chuhan.web.explorer.site import site_lookup
from load import Database

SPEEDS = ("bullet", "blitz", "rapid", "classical", "untimed")
BANDS = ("casual", "<1500", "1500-1799", "1800-2099", "2100+")
RESULTS = ("1-0", "0-1", "1/2-1/2")


def random_games(count: int, seed: int) -> list[tuple[list[str], str, str, str]]:
    chooser = random.Random(seed)
    games = []
    for _ in range(count):
        board = Board()
        moves: list[str] = []
        for ply in range(chooser.randint(20, 100)):
            legal = sorted(board.legal_moves, key=lambda move: move.iccs())
            if not legal:
                break
            move = (
                legal[chooser.randrange(min(4, len(legal)))] if ply < 6 else chooser.choice(legal)
            )
            moves.append(move.iccs())
            board.push(move)
        games.append(
            (moves, chooser.choice(RESULTS), chooser.choice(SPEEDS), chooser.choice(BANDS))
        )
    return games


def lookup_boards(
    games: list[tuple[list[str], str, str, str]], count: int, seed: int
) -> list[Board]:
    chooser = random.Random(seed)
    boards = []
    for number in range(count):
        moves = chooser.choice(games)[0]
        reach = (10, 40, len(moves))[number % 3]
        board = Board()
        for move in moves[: chooser.randint(0, min(reach, len(moves)))]:
            board.push_iccs(move)
        boards.append(board)
    return boards


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def run(location: str, args: argparse.Namespace) -> dict[str, Any]:
    games = random_games(args.games, args.seed)
    boards = lookup_boards(games, args.lookups, args.seed + 1)
    replay, entries = [], []
    for number, (moves, result, speed, band) in enumerate(games):
        began = time.perf_counter()
        positions = game_positions(moves)
        replay.append(time.perf_counter() - began)
        entries.append(
            SiteGame(
                f"game-{number:06d}",
                "xiangqi",
                speed,
                band,
                "Red",
                "Black",
                "2026-11-29",
                result,
                positions,
            )
        )
    store: Store = open_store(location)
    await store.open()
    try:
        # A stand-in for the moves of other games: a one-row write every 10 ms, alone,
        # then while the games are added.
        alone = await _small_writes(store, 200)
        during: list[float] = []
        stop = asyncio.Event()
        ticking = asyncio.get_running_loop().create_task(_small_writes(store, None, stop, during))
        writes = []
        started = time.perf_counter()
        for entry in entries:
            written = time.perf_counter()
            assert await store.write(add_site_game(entry), "adding a game")
            writes.append(time.perf_counter() - written)
        whole = time.perf_counter() - started
        stop.set()
        await ticking
        rows = await store.read(_count_rows(), "counting")
        for board in boards[:50]:  # (warm: the first reads fill the caches)
            await site_lookup(store, board)
        lookups = []
        for board in boards:
            began = time.perf_counter()
            await site_lookup(store, board)
            lookups.append(time.perf_counter() - began)
    finally:
        await store.close()
    return {
        "whole": whole,
        "replay": replay,
        "writes": writes,
        "lookups": lookups,
        "rows": rows,
        "plies": sum(len(game[0]) for game in games),
        "alone": alone,
        "during": during,
    }


async def _small_writes(
    store: Store,
    count: int | None,
    stop: asyncio.Event | None = None,
    times: list[float] | None = None,
) -> list[float]:
    """One-row writes every 10 ms (``count`` of them, or until ``stop``): each one's time."""
    times = [] if times is None else times
    while (count is None or len(times) < count) and not (stop is not None and stop.is_set()):
        began = time.perf_counter()
        await store.write(_touch(), "a move's stand-in")
        times.append(time.perf_counter() - began)
        await asyncio.sleep(0.01)
    return times


def _touch() -> Any:
    from chuhan.web.db.statements import Do

    yield Do("UPDATE meta SET value = value WHERE key = 'schema'")
    return None


def _count_rows() -> Any:
    from chuhan.web.db.statements import One

    found = yield One("SELECT count(*) AS n FROM explorer_moves")
    return int(found["n"])


def report(store: str, found: dict[str, Any], args: argparse.Namespace) -> None:
    ms = 1000.0
    writes, lookups = found["writes"], found["lookups"]
    print(
        f"{store}: {args.games:,} games ({found['plies']:,} plies, {found['rows']:,} rows of "
        f"explorer_moves) added in {found['whole']:.1f} s, {args.games / found['whole']:.0f} "
        "games/s"
    )
    print(
        f"  replay per game p50 {statistics.median(found['replay']) * ms:.2f} ms; write per "
        f"game p50 {statistics.median(writes) * ms:.2f} ms, p99 "
        f"{percentile(writes, 0.99) * ms:.2f} ms, slowest {max(writes) * ms:.2f} ms"
    )
    alone, during = found["alone"], found["during"]
    print(
        f"  a one-row write (a move's stand-in) every 10 ms: alone p50 "
        f"{statistics.median(alone) * ms:.2f} ms, p99 {percentile(alone, 0.99) * ms:.2f} ms; "
        f"while the games are added p50 {statistics.median(during) * ms:.2f} ms, p99 "
        f"{percentile(during, 0.99) * ms:.2f} ms ({len(during):,} writes)"
    )
    print(
        f"  {len(lookups):,} site lookups: p50 {statistics.median(lookups) * ms:.2f} ms, p99 "
        f"{percentile(lookups, 0.99) * ms:.2f} ms, slowest {max(lookups) * ms:.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--lookups", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--store", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--db", metavar="URL", help="a postgresql:// server to use")
    parser.add_argument(
        "--pg-memory", action="store_true", help="the throwaway cluster without fsync"
    )
    args = parser.parse_args()
    print(
        f"chuhan {chuhan.__version__} ({chuhan.BUILD.describe()}), Python "
        f"{platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs"
    )
    for store in ("sqlite", "postgresql") if args.store == "both" else (args.store,):
        options = argparse.Namespace(store=store, db=args.db, pg_memory=args.pg_memory)
        database = Database(options)
        try:
            with database.fresh() as (location, _, _):
                report(store, asyncio.run(run(location, args)), args)
        finally:
            database.close()


if __name__ == "__main__":
    main()
