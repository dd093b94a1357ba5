"""What a write to an arena reads, as the arena ages (issue 23): an arena of ``--players``
with 500 and 5,000 finished games and a game in play for each pair of players, kept in a
real SQLite store (a temporary file), and each of the writes its players make while it
runs, through the store as the server makes them: a game's end given to its board
(``result_of_game``), the two players paired again (``keep_arena_games``), a pause and a
return, a join and a withdrawal. For each, the rows its body read (every row of each
``All``, the row of each ``One``) and the median time of the write (``--repeat`` of each,
on the store's writer thread: what every other write waits for); and the reads the server
makes of the arena around a game's end: whole (``load_tournament``: the arena's matching
and its page) and as its driver and a player's game read it, its boards in play
(``finished=False``).

    PYTHONPATH=src .venv/bin/python bench/arena_writes.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chuhan.adjudication.outcome import Termination
from chuhan.web.db import Store, open_store
from chuhan.web.db.statements import Body, Do, counted
from chuhan.web.tournaments import repository
from chuhan.web.tournaments.repository import Settings, Tournament
from chuhan.web.tournaments.rules import Format, Result, Spec


def seeded(players: int, finished: int) -> Body[None]:
    """An arena of ``players`` (ids ``a:0``...) with ``finished`` games (Red won each, by
    resignation in 20 plies) and one in play for each pair of players."""
    tournament = Tournament(
        id="arena",
        name="Bench arena",
        spec=Spec(Format.ARENA, minutes=600),
        settings=Settings(),
        status="running",
        created_by=None,
        starts=0.0,
        created=0.0,
    )
    yield from repository.create_tournament(tournament)
    for n in range(players):
        yield Do(
            repository.ENTRANT_INSERT,
            ("arena", f"a:{n}", None, f"Arena{n:04d}", 1500 + n, n, 1, None, ""),
        )
    detail = json.dumps({"termination": "resignation", "plies": 20, "berserk": []})
    for number in range(1, finished + players // 2 + 1):
        red, black = (2 * number) % players, (2 * number + 1) % players
        over = number <= finished
        yield Do(
            repository.BOARD_INSERT,
            (
                "arena",
                0,
                number,
                f"a:{red}",
                f"a:{black}",
                Result.RED_WINS.value if over else None,
                f"game{number:08d}",
                detail if over else None,
            ),
        )


async def measure(store: Store, players: int, finished: int, repeat: int) -> list[str]:
    await store.write(seeded(players, finished), "seeding an arena")
    lines = []

    async def timed(name: str, make: Callable[[int], Body[Any]], write: bool = True) -> None:
        rows = [0]
        spent = []
        for index in range(repeat):
            body = counted(make(index), rows)
            began = time.perf_counter()
            if write:
                await store.write(body, name)
            else:
                await store.read(body, name)
            spent.append(time.perf_counter() - began)
        lines.append(
            f"  {name:<38} {rows[0] / repeat:>6,.0f} rows read, "
            f"median {statistics.median(spent) * 1000:6.2f} ms"
        )

    live = finished + 1  # (the first board in play)
    now = 3600.0

    def ended(index: int) -> Body[Any]:
        game = f"game{live + index:08d}"
        return repository.result_of_game(game, Result.RED_WINS, Termination.RESIGNATION)

    await timed("a game's end (result_of_game)", ended)

    def paired(index: int) -> Body[Any]:
        red, black = (2 * (live + index)) % players, (2 * (live + index) + 1) % players
        return repository.keep_arena_games("arena", now, [(f"a:{black}", f"a:{red}")])

    await timed("its players paired (keep_arena_games)", paired)

    def paused(index: int) -> Body[Any]:
        return repository.set_paused("arena", f"a:{players - 1}", index % 2 == 0)

    await timed("a pause or a return (set_paused)", paused)

    def joined(index: int) -> Body[Any]:
        return repository.enter("arena", f"late:{index}", name=f"Late{index}", rating=1500)

    await timed("a join (enter)", joined)

    def withdrawn(index: int) -> Body[Any]:
        return repository.withdraw_entrant("arena", f"late:{index}")

    await timed("a withdrawal (withdraw_entrant)", withdrawn)
    await timed("a reading (load_tournament)", lambda _: repository.load_tournament("arena"), False)
    await timed(
        "the driver's reading (finished=False)",
        lambda _: repository.load_tournament("arena", finished=False),
        False,
    )
    return lines


async def main_async(args: argparse.Namespace) -> None:
    for finished in (500, 5000):
        with tempfile.TemporaryDirectory() as folder:
            store = open_store(Path(folder) / "bench.sqlite3")
            await store.open()
            try:
                lines = await measure(store, args.players, finished, args.repeat)
            finally:
                await store.close()
        print(f"{finished:,} finished games, {args.players // 2} in play:")
        print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=40, help="writes of each kind timed")
    args = parser.parse_args()
    print(f"{platform.node()}, Python {platform.python_version()}; SQLite, {args.players} players")
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
