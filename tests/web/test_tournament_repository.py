"""Tournaments as stored: the bodies fed rows, and run on both stores (a whole Swiss kept
and read back, the refusals, no round paired twice by two writers at once, a stale
director's change refused)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from chuhan.web.db import Store, open_store
from chuhan.web.db.statements import Body, Do, One, Statement, counted, run_fed
from chuhan.web.tournaments.repository import (
    Settings,
    Tournament,
    TournamentRepository,
    enter,
    keep_arena_games,
    keep_round,
    load_tournament,
    result_of_game,
    set_paused,
    settings_json,
    settings_of,
    withdraw_entrant,
)
from chuhan.web.tournaments.rules import (
    JANGGI_ARENA_SCORING,
    WXF_ORDER,
    Board,
    Format,
    Result,
    Spec,
    TournamentError,
    standings,
)

SWISS = Spec(Format.SWISS, rounds=3)


def run(location: str | Path, work: Callable[[TournamentRepository], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        store: Store = open_store(location)
        await store.open()
        try:
            return await work(TournamentRepository(store))
        finally:
            await store.close()

    return asyncio.run(main())


def a_tournament(spec: Spec = SWISS, tournament_id: str = "t1") -> Tournament:
    return Tournament(
        id=tournament_id,
        name="Saturday Swiss",
        spec=spec,
        settings=Settings(game="xiangqi", rules="wxf", time_control={"minutes": 10}),
        status="created",
        created_by=None,
        starts=1_000.0,
        created=900.0,
    )


async def with_players(repository: TournamentRepository, count: int, spec: Spec = SWISS) -> None:
    await repository.create(a_tournament(spec))
    for number in range(count):
        await repository.enter("t1", f"p{number}", name=f"Player {number}", rating=2000 - number)


def test_the_settings_are_kept_as_they_were_chosen() -> None:
    spec = Spec(Format.ARENA, minutes=45, tiebreaks=WXF_ORDER, scoring=JANGGI_ARENA_SCORING)
    settings = Settings(game="janggi", rules="kja", rated=True, entry="code", code_sha256="ab")
    assert settings_of(settings_json(spec, settings)) == (spec, settings)


def test_a_round_paired_on_an_old_revision_is_not_kept() -> None:
    # The body fed rows: the tournament now at revision 4, the round paired at 3.
    row = {
        "id": "t1",
        "name": "Club",
        "format": "swiss",
        "status": "running",
        "created_by": None,
        "starts": 0.0,
        "created": 0.0,
        "revision": 4,
        "settings": settings_json(SWISS, Settings()),
    }
    answers = iter([row, [], [], []])
    seen: list[Statement] = []

    def answer(statement: Statement) -> Any:
        seen.append(statement)
        return next(answers)

    boards = (Board(1, 1, "p0", "p1"),)
    with pytest.raises(TournamentError, match="changed while the round was being paired"):
        run_fed(keep_round("t1", 3, boards), answer)
    assert isinstance(seen[0], One) and seen[0].for_update
    assert not any(isinstance(statement, Do) for statement in seen)


def test_a_swiss_is_kept_round_by_round(database: str | Path) -> None:
    async def work(repository: TournamentRepository) -> None:
        await with_players(repository, 5)
        first = await repository.pair_round("t1")
        assert [board.is_bye for board in first].count(True) == 1
        for board in first:
            if not board.is_bye:
                await repository.set_result("t1", 1, board.number, Result.RED_WINS)
        second = await repository.pair_round("t1")
        stored = await repository.tournament("t1")
        assert stored is not None
        assert stored.status == "running"
        played = tuple(
            board if board.is_bye else replace(board, result=Result.RED_WINS) for board in first
        )
        assert stored.boards == played + second
        assert [entrant.id for entrant in stored.entrants] == [f"p{n}" for n in range(5)]
        assert stored.rounds_paired == 2
        lines = standings(stored.spec, stored.entrants, stored.boards)
        # Two games and a bye in round 1; round 2's bye, whose point is its own.
        assert sum(line.points for line in lines) == 4.0
        listed = await repository.listed("running")
        assert [tournament.id for tournament in listed] == ["t1"]

    run(database, work)


def test_a_result_entered_twice_is_refused_and_the_first_kept(database: str | Path) -> None:
    async def work(repository: TournamentRepository) -> None:
        await with_players(repository, 2)
        await repository.pair_round("t1")
        await repository.set_result("t1", 1, 1, Result.DRAW)
        with pytest.raises(TournamentError, match="already has its result"):
            await repository.set_result("t1", 1, 1, Result.RED_WINS)
        stored = await repository.tournament("t1")
        assert stored is not None and stored.boards[0].result is Result.DRAW

    run(database, work)


def test_a_round_is_not_paired_while_games_run(database: str | Path) -> None:
    async def work(repository: TournamentRepository) -> None:
        await with_players(repository, 4)
        await repository.pair_round("t1")
        with pytest.raises(TournamentError, match="still has games without a result"):
            await repository.pair_round("t1")
        stored = await repository.tournament("t1")
        assert stored is not None and stored.rounds_paired == 1 and len(stored.boards) == 2

    run(database, work)


def test_two_writers_pairing_at_once_pair_the_round_once(database: str | Path) -> None:
    async def work(repository: TournamentRepository) -> None:
        await with_players(repository, 6)
        outcomes = await asyncio.gather(
            repository.pair_round("t1"), repository.pair_round("t1"), return_exceptions=True
        )
        paired = [outcome for outcome in outcomes if isinstance(outcome, tuple)]
        refused = [outcome for outcome in outcomes if isinstance(outcome, TournamentError)]
        assert len(paired) == 1 and len(refused) == 1, outcomes
        stored = await repository.tournament("t1")
        assert stored is not None and stored.boards == paired[0]

    run(database, work)


def test_a_change_made_on_an_old_revision_is_refused(database: str | Path) -> None:
    async def work(repository: TournamentRepository) -> None:
        await with_players(repository, 2)
        seen = await repository.tournament("t1")
        assert seen is not None
        await repository.pair_round("t1", revision=seen.revision)
        with pytest.raises(TournamentError, match="has changed since you read it"):
            await repository.set_result("t1", 1, 1, Result.DRAW, revision=seen.revision)
        stored = await repository.tournament("t1")
        assert stored is not None and stored.boards[0].result is None

    run(database, work)


def test_entries_withdrawals_and_forbidden_pairs_are_kept(database: str | Path) -> None:
    async def work(repository: TournamentRepository) -> None:
        await with_players(repository, 4, Spec(Format.SWISS, rounds=5))
        with pytest.raises(TournamentError, match="already entered"):
            await repository.enter("t1", "p1", name="Again", rating=1500)
        await repository.forbid("t1", "p0", "p2")
        with pytest.raises(TournamentError, match="already kept apart"):
            await repository.forbid("t1", "p2", "p0")
        with pytest.raises(TournamentError, match="'nobody' is not in the tournament"):
            await repository.forbid("t1", "p0", "nobody")
        first = await repository.pair_round("t1")
        assert all({board.red, board.black} != {"p0", "p2"} for board in first)
        withdrawn = await repository.withdraw("t1", "p3")
        assert withdrawn.last_round == 1
        for board in first:
            await repository.set_result("t1", 1, board.number, Result.BLACK_WINS)
        second = await repository.pair_round("t1")
        assert all("p3" not in (board.red, board.black) for board in second)
        late = await repository.enter("t1", "late", name="Late", rating=1800)
        assert late.first_round == 3
        stored = await repository.tournament("t1")
        assert stored is not None
        assert stored.forbidden == (("p0", "p2"),)
        assert [entrant.last_round for entrant in stored.entrants] == [None, None, None, 1, None]

    run(database, work)


def test_a_games_end_gives_its_board_the_result_once(database: str | Path) -> None:
    async def work(repository: TournamentRepository) -> None:
        await with_players(repository, 2)
        await repository.pair_round("t1")
        assert await repository.attach_game("t1", 1, 1, "game-1")
        assert not await repository.attach_game("t1", 1, 1, "game-2")
        assert await repository.result_of_game("nobodys-game", Result.DRAW) is None
        found = await repository.result_of_game("game-1", Result.BLACK_WINS)
        assert found is not None and found[0] == "t1" and found[1].result is Result.BLACK_WINS
        assert await repository.result_of_game("game-1", Result.RED_WINS) is None
        stored = await repository.tournament("t1")
        assert stored is not None and stored.boards[0].result is Result.BLACK_WINS

    run(database, work)


def test_a_two_player_round_robin_finishes_with_its_last_result(database: str | Path) -> None:
    # Its one round's game ends (as its game's end gives it): the tournament is over, with
    # its final standings, and pairs no more.
    async def work(repository: TournamentRepository) -> None:
        await with_players(repository, 2, Spec(Format.ROUND_ROBIN, rounds=1))
        (board,) = await repository.pair_round("t1")
        await repository.attach_game("t1", 1, board.number, "game-1")
        running = await repository.tournament("t1")
        assert running is not None and running.status == "running"
        await repository.result_of_game("game-1", Result.RED_WINS)
        over = await repository.tournament("t1")
        assert over is not None and over.status == "finished"
        lines = standings(over.spec, over.entrants, over.boards)
        assert [(line.entrant_id, line.points) for line in lines] == [
            (board.red, 1.0),
            (board.black, 0.0),
        ]
        with pytest.raises(TournamentError, match="the tournament is over"):
            await repository.pair_round("t1")
        assert [t.id for t in await repository.listed("finished")] == ["t1"]

    run(database, work)


def test_a_swiss_finishes_when_its_last_round_has_every_result(database: str | Path) -> None:
    async def work(repository: TournamentRepository) -> None:
        await with_players(repository, 3, Spec(Format.SWISS, rounds=1))
        (game,) = [board for board in await repository.pair_round("t1") if not board.is_bye]
        await repository.set_result("t1", 1, game.number, Result.DRAW)
        over = await repository.tournament("t1")
        assert over is not None and over.status == "finished"

    run(database, work)


def test_a_finished_tournament_takes_no_entry_and_no_round(database: str | Path) -> None:
    async def work(repository: TournamentRepository) -> None:
        await with_players(repository, 2)
        await repository.set_status("t1", "finished")
        with pytest.raises(TournamentError, match="the tournament is over"):
            await repository.enter("t1", "new", name="New", rating=1500)
        with pytest.raises(TournamentError, match="the tournament is over"):
            await repository.pair_round("t1")
        with pytest.raises(TournamentError, match="there is no tournament 'nope'"):
            await repository.pair_round("nope")

    run(database, work)


def test_an_absurd_tournament_is_not_kept(database: str | Path) -> None:
    async def work(repository: TournamentRepository) -> None:
        with pytest.raises(TournamentError, match="a Swiss has 1 to 30 rounds, not 99"):
            await repository.create(a_tournament(Spec(Format.SWISS, rounds=99)))
        assert await repository.tournament("t1") is None

    run(database, work)


def test_an_arenas_writes_read_its_boards_in_play_not_its_finished_games(
    database: str | Path,
) -> None:
    # Two arenas alike but for their age (4 and 40 finished games, one in play): each write
    # of their players reads as many rows in both; a whole reading does not.
    arena = Spec(Format.ARENA, minutes=60)
    now = 1_100.0

    async def aged(repository: TournamentRepository, tournament_id: str, finished: int) -> None:
        await repository.create(a_tournament(arena, tournament_id))
        for number in range(4):
            await repository.enter(tournament_id, f"p{number}", name=f"P{number}", rating=2000)
        for number in range(1, finished + 2):
            players = (
                [("p0", "p1"), ("p1", "p0")][number % 2] if number <= finished else ("p2", "p3")
            )
            (board,) = await repository.db.write(
                keep_arena_games(tournament_id, now, [players]), "pairing"
            )
            game = f"{tournament_id}-{board.number}"
            assert await repository.attach_game(tournament_id, 0, board.number, game)
            if number <= finished:
                assert await repository.result_of_game(game, Result.RED_WINS)

    async def rows_read(
        repository: TournamentRepository, tournament_id: str, finished: int
    ) -> dict[str, int]:
        writes: dict[str, Body[Any]] = {
            "a game's end": result_of_game(f"{tournament_id}-{finished + 1}", Result.DRAW),
            "a pairing": keep_arena_games(tournament_id, now, [("p0", "p1")]),
            "a pause": set_paused(tournament_id, "p2", True),
            "an entry": enter(tournament_id, "late", name="Late", rating=1500),
            "a withdrawal": withdraw_entrant(tournament_id, "late"),
        }
        read = {}
        for name, body in writes.items():
            rows = [0]
            await repository.db.write(counted(body, rows), name)
            read[name] = rows[0]
        whole = [0]
        await repository.db.read(counted(load_tournament(tournament_id), whole), "reading")
        read["a whole reading"] = whole[0]
        return read

    async def work(repository: TournamentRepository) -> dict[int, dict[str, int]]:
        read = {}
        for finished in (4, 40):
            await aged(repository, f"t{finished}", finished)
            read[finished] = await rows_read(repository, f"t{finished}", finished)
        return read

    read = run(database, work)
    young, old = read[4], read[40]
    assert old.pop("a whole reading") == young.pop("a whole reading") + 36
    assert old == young
