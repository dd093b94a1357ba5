"""An arena's pairing on both stores: the matching is worked out on a reading of the
tournament outside any transaction (it takes about a second for 200 waiting players, which
no write or event loop should wait for), and the write keeps only the games whose two
players are still waiting then."""

from __future__ import annotations

import asyncio
from pathlib import Path

from chuhan.web.db import Store, open_store
from chuhan.web.tournaments.repository import (
    Settings,
    Tournament,
    TournamentRepository,
    arena_games,
    create_tournament,
    enter,
    keep_arena_games,
    withdraw_entrant,
)
from chuhan.web.tournaments.rules import Format, Spec, TournamentError

STARTS = 1_800_000_000.0


def run(database: str | Path, work: object) -> None:
    async def main() -> None:
        store: Store = open_store(database)
        await store.open()
        try:
            await work(store)  # type: ignore[operator]
        finally:
            await store.close()

    asyncio.run(main())


def test_an_arena_keeps_only_the_games_of_players_still_waiting(database: str | Path) -> None:
    async def work(store: Store) -> None:
        arena = Tournament(
            id="arena-1",
            name="Arena",
            spec=Spec(format=Format.ARENA, minutes=60),
            settings=Settings(),
            status="created",
            created_by=None,
            starts=STARTS,
            created=STARTS - 600,
        )
        await store.write(create_tournament(arena), "test")
        for number in range(1, 5):
            body = enter("arena-1", f"p:{number}", name=f"P{number}", rating=1400 + 100 * number)
            await store.write(body, "test")
        repository = TournamentRepository(store)
        now = STARTS + 1
        read = await repository.tournament("arena-1")
        assert read is not None
        games = arena_games(read, now)
        assert len(games) == 2
        # Meanwhile a player of the first game withdraws: that game is not started, the
        # other is; the one left waits for the next pairing.
        gone = games[0][0]
        await store.write(withdraw_entrant("arena-1", gone), "test")
        boards = await store.write(keep_arena_games("arena-1", now, games), "test")
        assert [(board.red, board.black) for board in boards] == [games[1]]
        after = await repository.tournament("arena-1")
        assert after is not None and after.status == "running"
        revision = after.revision
        # The same reading kept twice (two looks at once) starts nothing more, and spends
        # no revision.
        assert await store.write(keep_arena_games("arena-1", now, games), "test") == ()
        again = await repository.tournament("arena-1")
        assert again is not None and again.revision == revision
        # Before the start and after the end, the write refuses as the reading does.
        for when, said in ((STARTS - 5, "the arena starts in 5 seconds"), (STARTS + 3600, "over")):
            try:
                await store.write(keep_arena_games("arena-1", when, games), "test")
            except TournamentError as error:
                assert said in str(error)
            else:
                raise AssertionError(f"kept at {when}")

    run(database, work)
