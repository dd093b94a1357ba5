"""The explorer's second source, this server's own games, kept in the server's database
(step 17; :mod:`chuhan.web.explorer.repository` and :mod:`chuhan.web.explorer.site`) on
both stores: a game counted once however often it is added, the counts held against a
count made by replaying the same games, a game that ends on one process seen by another
on the same PostgreSQL database, a failed write counted at the next start, an older
chuhan's ``explorer-site.sqlite3`` moved in, and the command line reading it."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import sqlite3
import warnings
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import pytest
from web_helpers import FakeClock, FakeEngine, join_friend_game

from chuhan import Board
from chuhan.cli import main
from chuhan.explorer import (
    SITE,
    Explorer,
    game_positions,
    position_key,
    site_index_path,
    site_source,
)
from chuhan.web.app import create_app
from chuhan.web.db import Store, is_database_url, open_store
from chuhan.web.explorer.repository import SiteGame, add_site_game
from chuhan.web.explorer.site import site_lookup
from chuhan.web.settings import Settings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

SPEEDS = ("bullet", "blitz", "rapid")
BANDS = ("casual", "1500-1799", "2100+")
RESULTS = ("1-0", "0-1", "1/2-1/2")


def random_games(count: int, seed: int) -> list[tuple[str, list[str], str, str, str]]:
    """``count`` xiangqi games of random legal moves from the start (3 to 24 plies, many
    sharing their first moves so that positions meet), each ``(id, moves, result, speed,
    band)``."""
    chooser = random.Random(seed)
    games = []
    for number in range(count):
        board = Board()
        moves: list[str] = []
        for ply in range(chooser.randint(3, 24)):
            legal = sorted(board.legal_moves, key=lambda move: move.iccs())
            if not legal:
                break
            # The first two plies from a few moves only: the games meet at their positions.
            move = legal[chooser.randrange(min(3, len(legal)))] if ply < 2 else None
            move = move or chooser.choice(legal)
            moves.append(move.iccs())
            board.push(move)
        games.append(
            (
                f"g{number:03d}",
                moves,
                chooser.choice(RESULTS),
                chooser.choice(SPEEDS),
                chooser.choice(BANDS),
            )
        )
    return games


def entry(game_id: str, moves: list[str], result: str, speed: str, band: str) -> SiteGame:
    return SiteGame(
        game_id=game_id,
        game="xiangqi",
        speed=speed,
        band=band,
        red="Red",
        black="Black",
        date="2026-11-29",
        result=result,
        positions=game_positions(moves),
    )


def run_on_store(database: str | Path, work: Any) -> Any:
    """``work(store)`` on the store at ``database`` (opened, then closed)."""

    async def run() -> Any:
        store = open_store(database)
        await store.open()
        try:
            return await work(store)
        finally:
            await store.close()

    return asyncio.run(run())


def test_a_game_added_twice_counts_once(database: str | Path) -> None:
    game = entry("g1", ["h2e2", "h9g7"], "1-0", "blitz", "casual")

    async def work(store: Store) -> tuple[bool, bool, int, int]:
        first = await store.write(add_site_game(game), "adding")
        again = await store.write(add_site_game(game), "adding again")
        stats = await site_lookup(store, Board())
        return first, again, stats.games, stats.moves[0].red_wins

    assert run_on_store(database, work) == (True, False, 1, 1)


def test_the_counts_are_those_a_replay_of_the_same_games_makes(database: str | Path) -> None:
    games = random_games(60, seed=25)
    # The count made another way: each game replayed here, each (position, move) once.
    counted: Counter[tuple[int, str, str]] = Counter()
    boards: dict[int, Board] = {}
    for _, moves, result, speed, _ in games:
        board = Board()
        seen = set()
        for move in [*moves, "end"]:
            key = position_key(board)
            boards.setdefault(key, board.copy())
            if (key, move) not in seen:
                seen.add((key, move))
                for kind in ("games", result, f"{speed} games"):
                    counted[(key, move, kind)] += 1
            if move != "end":
                board.push_iccs(move)

    async def work(store: Store) -> list[Any]:
        for game in games:
            assert await store.write(add_site_game(entry(*game)), "adding")
        answers = []
        for board in boards.values():
            every = await site_lookup(store, board)
            blitz = await site_lookup(store, board, speeds=["blitz"])
            answers.append((board, every, blitz))
        return answers

    answers = run_on_store(database, work)
    assert len(answers) > 100
    for board, every, blitz in answers:
        key = position_key(board)
        assert every.ended == counted[(key, "end", "games")]
        assert every.games == sum(
            count for (at, _, kind), count in counted.items() if at == key and kind == "games"
        )
        assert blitz.games == sum(
            count for (at, _, kind), count in counted.items() if at == key and kind == "blitz games"
        )
        for stats in every.moves:
            found = (stats.games, stats.red_wins, stats.draws, stats.black_wins)
            assert found == tuple(
                counted[(key, stats.iccs, kind)] for kind in ("games", "1-0", "1/2-1/2", "0-1")
            ), (board.fen(), stats.iccs)
        played = {move for (at, move, kind) in counted if at == key and move != "end"}
        assert {stats.iccs for stats in every.moves} == played
        # Each move's most recent games are its games, the newest first.
        for stats in every.moves:
            numbers = [game.id for game in stats.top_games]
            assert numbers == sorted(numbers, reverse=True)
            assert len(numbers) == min(5, stats.games)


def test_the_counts_are_the_masters_index_counts_of_the_same_games(
    database: str | Path,
) -> None:
    games = random_games(30, seed=7)
    with Explorer(":memory:") as index:
        for game_id, moves, result, speed, band in games:
            source = site_source("xiangqi", speed, band)
            index.add_game(
                source, moves, headers={"Result": result, "Date": "2026.11.29"}, origin=game_id
            )
        boards = [Board()]
        for _, moves, _, _, _ in games[:5]:
            board = Board()
            for move in moves:
                board.push_iccs(move)
                boards.append(board.copy())
        expected = [index.lookup(board, source=SITE).to_json() for board in boards]

    async def work(store: Store) -> list[dict[str, Any]]:
        for game in games:
            await store.write(add_site_game(entry(*game)), "adding")
        return [(await site_lookup(store, board)).to_json() for board in boards]

    def counts(answer: dict[str, Any]) -> Any:
        moves = [
            (m["iccs"], m["games"], m["red_wins"], m["draws"], m["black_wins"])
            for m in answer["moves"]
        ]
        return (answer["games"], answer["ended_here"], answer["average_year"], moves)

    found = run_on_store(database, work)
    assert [counts(answer) for answer in found] == [counts(answer) for answer in expected]
    # The games listed are the same games (the index numbers them as it adds them too).
    assert [[g["origin"] for g in a["top_games"]] for a in found] == [
        [g["origin"] for g in a["top_games"]] for a in expected
    ]


# -- in the app ---------------------------------------------------------------------------


def open_app(
    database: str | Path,
    static_dir: Path,
    index: str | Path | None,
    clock: FakeClock,
    engine: FakeEngine,
) -> TestClient:
    """A server's app on ``database`` with its explorer index at ``index`` (None: where a
    server on that database keeps it)."""
    settings = Settings(argon2_time_cost=1, argon2_memory_kib=8192, argon2_parallelism=1)
    app = create_app(
        database,
        now=clock,
        compute=engine,
        static_dir=static_dir,
        settings=settings,
        explorer_index=index,
    )
    client = TestClient(app)
    client.__enter__()
    return client


def settled(client: TestClient) -> None:
    """Wait for the counts the app has under way (and its start's catch-up)."""
    site_games = client.app.state.context.site_games  # type: ignore[attr-defined]
    client.portal.call(site_games.settled)  # type: ignore[union-attr]


def site(client: TestClient, **params: str) -> dict[str, Any]:
    response = client.get("/api/explorer", params={"source": "site", **params})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def play_and_resign(client: TestClient, moves: list[str], **fields: Any) -> str:
    """A friend game of ``moves`` (Red first) that Black resigns: its id."""
    game, red, black = join_friend_game(client, **fields)
    try:
        players = (red, black)
        for ply, move in enumerate(moves):
            players[ply % 2].move(move)
            players[(ply + 1) % 2].wait_state(lambda s, ply=ply: s["ply"] == ply + 1)
        black.do("resign")  # (its GameFinished is told before the ack: settled() sees it)
    finally:
        red.close()
        black.close()
    return str(game["game_id"])


@pytest.fixture
def apps(
    database: str | Path, static_dir: Path, tmp_path: Path, clock: FakeClock, engine: FakeEngine
) -> Iterator[Any]:
    """``apps()`` opens an app on the database (explorer index in the test's folder); every
    app opened is closed at the end, the last first."""
    opened: list[TestClient] = []
    index = tmp_path / "explorer" / "explorer.sqlite3"

    def make() -> TestClient:
        client = open_app(database, static_dir, index, clock, engine)
        opened.append(client)
        return client

    yield make
    for client in reversed(opened):
        client.__exit__(None, None, None)


def test_a_game_that_ends_here_is_counted_in_the_database(apps: Any) -> None:
    client = apps()
    game_id = play_and_resign(client, ["h2e2", "h9g7"], time_control="3+2")
    settled(client)
    answer = site(client)
    assert [(m["iccs"], m["games"], m["red_wins"]) for m in answer["moves"]] == [("h2e2", 1, 1)]
    assert answer["moves"][0]["top_games"][0]["origin"] == game_id
    assert site(client, speeds="blitz", bands="casual")["games"] == 1
    assert site(client, speeds="bullet")["games"] == 0
    client.__exit__(None, None, None)
    # Kept in the database: a restart finds it.
    assert site(apps())["games"] == 1


def test_a_failed_write_is_counted_at_the_next_start(
    apps: Any, database: str | Path, caplog: pytest.LogCaptureFixture
) -> None:
    client = apps()
    rename(database, "explorer_moves", "explorer_moves_away")  # (the write fails on it)
    with caplog.at_level(logging.ERROR, logger="chuhan.web"):
        game_id = play_and_resign(client, ["h2e2", "h9g7"])
        settled(client)
    assert f"the game {game_id} could not be counted in the explorer" in caplog.text
    assert count_rows(database, "explorer_games") == 0  # (nothing half-written)
    rename(database, "explorer_moves_away", "explorer_moves")
    assert site(client)["games"] == 0
    client.__exit__(None, None, None)
    again = apps()
    settled(again)
    answer = site(again)
    assert (answer["games"], answer["moves"][0]["top_games"][0]["origin"]) == (1, game_id)


def test_an_older_chuhans_site_file_is_moved_into_the_database(
    database: str | Path, static_dir: Path, tmp_path: Path, clock: FakeClock, engine: FakeEngine
) -> None:
    index = tmp_path / "explorer" / "explorer.sqlite3"
    index.parent.mkdir()
    old = site_index_path(index)
    games = random_games(12, seed=3)
    with Explorer(old) as explorer:
        for game_id, moves, result, speed, band in games:
            source = site_source("xiangqi", speed, band)
            explorer.add_game(source, moves, headers={"Result": result}, origin=game_id)
        expected = explorer.lookup(Board(), source=SITE).to_json()
        expected_blitz = explorer.lookup(Board(), source=SITE, speeds=["blitz"]).to_json()
    client = open_app(database, static_dir, index, clock, engine)
    try:
        settled(client)
        assert not old.exists()
        answer = site(client)
        for field in ("games", "red_wins", "draws", "black_wins", "average_year"):
            assert answer[field] == expected[field], field
        assert [(m["iccs"], m["games"], m["draws"]) for m in answer["moves"]] == [
            (m["iccs"], m["games"], m["draws"]) for m in expected["moves"]
        ]
        assert [g["origin"] for g in answer["top_games"]] == [
            g["origin"] for g in expected["top_games"]
        ]
        assert site(client, speeds="blitz")["games"] == expected_blitz["games"]
    finally:
        client.__exit__(None, None, None)


def test_the_command_line_reads_the_servers_games_beside_the_server(
    apps: Any, database: str | Path, capsys: pytest.CaptureFixture[str]
) -> None:
    client = apps()
    play_and_resign(client, ["h2e2", "h9g7"])
    settled(client)
    # (the server still holds its database: the command reads beside it)
    assert main(["explorer", "--source", "site", "--game-db", str(database), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["games"], answer["moves"][0]["iccs"]) == (1, "h2e2")


# -- helpers reaching the database directly -----------------------------------------------


def rename(database: str | Path, table: str, to: str) -> None:
    statement = f"ALTER TABLE {table} RENAME TO {to}"
    if is_database_url(database):

        async def run() -> None:
            connection = await asyncpg.connect(str(database))
            try:
                await connection.execute(statement)
            finally:
                await connection.close()

        asyncio.run(run())
        return
    with sqlite3.connect(database) as connection:
        connection.execute(statement)
    connection.close()


def count_rows(database: str | Path, table: str) -> int:
    statement = f"SELECT count(*) FROM {table}"
    if is_database_url(database):

        async def run() -> int:
            connection = await asyncpg.connect(str(database))
            try:
                return int(await connection.fetchval(statement))
            finally:
                await connection.close()

        return asyncio.run(run())
    with sqlite3.connect(database) as connection:
        found = int(connection.execute(statement).fetchone()[0])
    connection.close()
    return found


# -- two processes on one PostgreSQL database ---------------------------------------------


def test_a_game_ended_on_one_server_is_in_the_explorer_of_another(
    postgres_url: str, static_dir: Path, tmp_path: Path, clock: FakeClock, engine: FakeEngine
) -> None:
    # Each server keeps its masters' index in a folder of its own, as on two machines.
    first = open_app(postgres_url, static_dir, tmp_path / "one" / "explorer.sqlite3", clock, engine)
    try:
        second = open_app(
            postgres_url, static_dir, tmp_path / "two" / "explorer.sqlite3", clock, engine
        )
        try:
            game_id = play_and_resign(first, ["h2e2", "h9g7", "h0g2"])
            settled(first)
            answer = site(second)
            assert answer["games"] == 1
            assert answer["moves"][0]["top_games"][0]["origin"] == game_id
            assert site(second, moves="h2e2,h9g7")["moves"][0]["iccs"] == "h0g2"
        finally:
            second.__exit__(None, None, None)
    finally:
        first.__exit__(None, None, None)


def test_chuhan_db_copy_takes_the_explorers_counts_along(
    db_path: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    games = random_games(10, seed=11)
    boards = [Board(), Board().copy()]
    boards[1].push_iccs(games[0][1][0])

    async def add(store: Store) -> list[dict[str, Any]]:
        for game in games:
            await store.write(add_site_game(entry(*game)), "adding")
        return [(await site_lookup(store, board)).to_json() for board in boards]

    async def read(store: Store) -> list[dict[str, Any]]:
        return [(await site_lookup(store, board)).to_json() for board in boards]

    before = run_on_store(db_path, add)
    assert main(["db", "copy", str(db_path), postgres_url]) == 0
    capsys.readouterr()
    assert run_on_store(postgres_url, read) == before
    assert before[0]["games"] == 10
    # The next game counted there takes the next number (not one of the copied games').
    extra = entry("g-after", ["h2e2"], "1-0", "blitz", "casual")
    run_on_store(postgres_url, lambda store: store.write(add_site_game(extra), "adding"))
    assert count_rows(postgres_url, "explorer_games") == 11
