"""A damaged game database: garbage written over one page of a real file. The games whose
rows lie on that page are reported and left out; every other game is served, over REST
and the websocket; the start never dies with a traceback, and what was found is said."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import sqlite3
import struct
import subprocess
import sys
import urllib.error
import urllib.request
import warnings
from pathlib import Path
from typing import Any

import pytest
from test_store_checkpoint import start_server
from web_helpers import FakeClock, FakeEngine, MakeClient, Player, create_game, expect_error

from chuhan.cli import main
from chuhan.web.app import create_app
from chuhan.web.db.backup import backup_database
from chuhan.web.db.health import readable_rows
from chuhan.web.server import free_port
from chuhan.web.settings import Settings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

PAGE = 4096

# ---------------------------------------------------------------------- a file's pages


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = 0
    for index in range(9):
        byte = data[at + index]
        if index == 8:
            return (value << 8) | byte, at + 9
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + index + 1
    raise AssertionError("unreachable")


def btree_pages(db: Path, name: str) -> tuple[list[int], list[int]]:
    """The leaf pages and the interior pages of a table or index, read from the file."""
    reader = sqlite3.connect(db)
    try:
        (root,) = reader.execute(
            "SELECT rootpage FROM sqlite_master WHERE name=?", (name,)
        ).fetchone()
    finally:
        reader.close()
    data = db.read_bytes()
    leaves: list[int] = []
    interior: list[int] = []

    def walk(page: int) -> None:
        start = (page - 1) * PAGE
        head = start + (100 if page == 1 else 0)
        if data[head] in (0x0D, 0x0A):
            leaves.append(page)
            return
        interior.append(page)
        (cells,) = struct.unpack(">H", data[head + 3 : head + 5])
        for index in range(cells):
            (pointer,) = struct.unpack(">H", data[head + 12 + 2 * index : head + 14 + 2 * index])
            (child,) = struct.unpack(">I", data[start + pointer : start + pointer + 4])
            walk(child)
        walk(struct.unpack(">I", data[head + 8 : head + 12])[0])

    walk(root)
    return leaves, interior


def rowids_on(db: Path, page: int) -> list[int]:
    """The rowids of the rows stored on a leaf page of a table."""
    data = db.read_bytes()
    start = (page - 1) * PAGE
    (cells,) = struct.unpack(">H", data[start + 3 : start + 5])
    rowids = []
    for index in range(cells):
        (pointer,) = struct.unpack(">H", data[start + 8 + 2 * index : start + 10 + 2 * index])
        _, after = _varint(data, start + pointer)
        rowids.append(_varint(data, after)[0])
    return rowids


def damage(db: Path, page: int, *, at: int = 0, count: int = 1500) -> None:
    """Overwrite ``count`` bytes of a page with garbage."""
    with open(db, "r+b") as file:
        file.seek((page - 1) * PAGE + at)
        file.write(bytes((index * 37 + 11) % 256 for index in range(count)))


def middle(pages: list[int]) -> int:
    assert len(pages) >= 3, pages
    return pages[len(pages) // 2]


def ids_of(db: Path, query: str, rowids: list[int]) -> set[str]:
    reader = sqlite3.connect(db)
    try:
        marks = ", ".join("?" * len(rowids))
        return {str(r[0]) for r in reader.execute(query.format(marks=marks), rowids)}
    finally:
        reader.close()


# ---------------------------------------------------------------------- the games


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """A database of 40 games played over the websocket (moves, chat), closed cleanly."""
    folder = tmp_path_factory.mktemp("template")
    static = folder / "static"
    static.mkdir()
    db = folder / "games.sqlite3"
    games = []
    settings = Settings(create_burst=10_000)  # hundreds of games from one address
    app = create_app(
        db, now=FakeClock(), compute=FakeEngine(), static_dir=static, settings=settings
    )
    with TestClient(app) as client:
        for number in range(40):
            game = create_game(client, kind="local", time_control="10+5" if number % 2 else None)
            hands = Player(client, game["game_id"], game["token"])
            hands.hello()
            for move in ("h2e2", "h9g7", "h0g2", "i9h9"):
                hands.move(move)
            hands.send("chat", text=f"game {number}: good luck")
            hands.expect("chat")
            hands.close()
            games.append(game)
    return db, games


@pytest.fixture
def games(template: tuple[Path, list[dict[str, Any]]], db_path: Path) -> list[dict[str, Any]]:
    shutil.copyfile(template[0], db_path)
    return template[1]


def served(client: TestClient, games: list[dict[str, Any]]) -> dict[str, int]:
    return {g["game_id"]: client.get(f"/api/games/{g['game_id']}").status_code for g in games}


def store_said(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("chuhan"))


def test_a_damaged_page_of_events_leaves_out_only_the_games_on_it(
    games: list[dict[str, Any]],
    db_path: Path,
    make_client: MakeClient,
    caplog: pytest.LogCaptureFixture,
) -> None:
    page = middle(btree_pages(db_path, "events")[0])
    lost = ids_of(
        db_path, "SELECT game_id FROM events WHERE rowid IN ({marks})", rowids_on(db_path, page)
    )
    damage(db_path, page)
    with caplog.at_level(logging.WARNING):
        client = make_client()
        status = served(client, games)
    # A game is left out if a row it needs lies on the page (one whose last move is on
    # the next page plays on); no other game is.
    unavailable = {game_id for game_id, code in status.items() if code != 200}
    assert unavailable and unavailable <= lost and len(lost) < len(games)
    answer = client.get(f"/api/games/{sorted(unavailable)[0]}").json()
    assert answer["error"]["message"].endswith("cannot be loaded: its stored record is damaged")
    assert "is damaged (SQLite's quick check): rows of events cannot all be read" in store_said(
        caplog
    )


def test_a_damaged_page_of_games_does_not_stop_the_start(
    games: list[dict[str, Any]],
    db_path: Path,
    make_client: MakeClient,
    caplog: pytest.LogCaptureFixture,
) -> None:
    page = middle(btree_pages(db_path, "games")[0])
    lost = ids_of(
        db_path, "SELECT id FROM games WHERE rowid IN ({marks})", rowids_on(db_path, page)
    )
    damage(db_path, page)
    with caplog.at_level(logging.WARNING):
        client = make_client()
        status = served(client, games)
    assert {game_id for game_id, code in status.items() if code != 200} == lost
    said = store_said(caplog)
    assert (
        f"about {len(lost)} stored games cannot be read (a damaged page of the table games)" in said
    )
    # The list of my games has every game that can be read.
    mine = client.post("/api/games/mine", json={"tokens": [g["token"] for g in games]})
    assert mine.status_code == 200
    assert {g["game_id"] for g in mine.json()["games"]} == set(status) - lost
    # Over the websocket: a game that can be read plays on; one that cannot says why.
    good = next(g for g in games if g["game_id"] not in lost)
    hands = Player(client, good["game_id"], good["token"])
    hands.hello()
    assert hands.move("i0h0")["ply"] == 5
    bad = next(g for g in games if g["game_id"] in lost)
    broken = Player(client, bad["game_id"], bad["token"])
    assert "its stored record is damaged" in expect_error(broken, "internal")["message"]
    assert broken.closed_code() == 1011


def test_a_damaged_index_loses_no_game(
    games: list[dict[str, Any]],
    db_path: Path,
    make_client: MakeClient,
    caplog: pytest.LogCaptureFixture,
) -> None:
    for index in ("events_game", "sqlite_autoindex_games_1", "seats_game"):
        leaves, interior = btree_pages(db_path, index)
        damage(db_path, (leaves + interior)[0], at=8)
    with caplog.at_level(logging.WARNING):
        client = make_client()
        status = served(client, games)
    assert set(status.values()) == {200}
    assert (
        "the indexes of games, seats, events are damaged but every row can be read"
        in store_said(caplog)
    )


def test_a_damaged_chat_leaves_the_games_playable(
    games: list[dict[str, Any]], db_path: Path, make_client: MakeClient
) -> None:
    leaves, _ = btree_pages(db_path, "chat")
    for page in leaves:
        damage(db_path, page)
    client = make_client()
    hands = Player(client, games[0]["game_id"], games[0]["token"])
    hands.send("hello", token=games[0]["token"])
    hands.expect("state")
    assert hands.expect("chat_history")["messages"] == []
    assert hands.move("i0h0")["ply"] == 5


def test_a_backup_of_a_damaged_database_keeps_it_as_it_is(
    games: list[dict[str, Any]], db_path: Path, tmp_path: Path
) -> None:
    damage(db_path, middle(btree_pages(db_path, "events")[0]))
    copy = backup_database(db_path, tmp_path / "copy.sqlite3")
    assert copy.games == len(games) and copy.damaged == ["events"]
    assert "the database is damaged (in: events) and so is the copy" in copy.describe()


def test_rows_on_damaged_pages_are_skipped_and_counted(tmp_path: Path) -> None:
    db = tmp_path / "rows.sqlite3"
    writer = sqlite3.connect(db)
    writer.execute("CREATE TABLE events (data TEXT)")
    writer.executemany("INSERT INTO events VALUES (?)", [(f"{n:06d}" * 20,) for n in range(2000)])
    writer.commit()
    writer.close()
    leaves, _ = btree_pages(db, "events")
    lost = [leaves[3], leaves[4], leaves[20], leaves[-1]]
    gone = sorted(rowid for page in lost for rowid in rowids_on(db, page))
    for page in lost:
        damage(db, page)
    reader = sqlite3.connect(db)
    reader.row_factory = sqlite3.Row
    try:
        rows, skipped = readable_rows(reader, "events", "data")
    finally:
        reader.close()
    assert [row["row_id"] for row in rows] == sorted(set(range(1, 2001)) - set(gone))
    assert skipped is None  # the last page is damaged: nobody knows how many rows it had


def test_a_database_whose_schema_cannot_be_read_is_refused_in_one_sentence(
    games: list[dict[str, Any]], db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damage(db_path, 1, at=100)
    assert main(["serve", "--db", str(db_path), "--port", "0"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert error.startswith(
        f"chuhan: error: cannot open the game database {db_path}: SQLite cannot read its list "
        "of tables (database disk image is malformed)"
    )


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.skipif(sys.platform == "win32", reason="reads the server's console")
def test_chuhan_serve_on_a_damaged_database_says_so_and_serves_the_other_games(
    games: list[dict[str, Any]], db_path: Path
) -> None:
    page = middle(btree_pages(db_path, "games")[0])
    lost = ids_of(
        db_path, "SELECT id FROM games WHERE rowid IN ({marks})", rowids_on(db_path, page)
    )
    damage(db_path, page)
    port = free_port()
    server, said = start_server(port, db_path)
    try:
        assert "Traceback" not in said and "chuhan: serving on" in said
        assert f"chuhan: error: the game database {db_path} is damaged" in said
        base = f"http://127.0.0.1:{port}/api/games/"
        good = next(g["game_id"] for g in games if g["game_id"] not in lost)
        assert _get(base + good) == 200
        assert _get(base + sorted(lost)[0]) == 500
    finally:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=60)
        server.kill()


def test_a_save_that_finds_no_row_is_an_error_not_a_silent_success(tmp_path: Path) -> None:
    from web_helpers import stored_game

    from chuhan.web.db import StoreError
    from chuhan.web.db.sqlite import SqliteStore

    async def run() -> None:
        store = SqliteStore(tmp_path / "games.sqlite3")
        try:
            with pytest.raises(StoreError, match="game 'game-0007' is not where it was stored"):
                await store.save_game(stored_game(7), "move", {"move": "h2e2"})
            assert await store.events("game-0007") == []
        finally:
            await store.close()

    asyncio.run(run())
