"""Schema versions: a database of the previous release opens, a new migration step is
applied once, and a database this chuhan cannot read is refused with a sentence."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path

import pytest

from chuhan.cli import main
from chuhan.web.db import QUIET_EVENTS, StoreError, migrations
from chuhan.web.db.migrations import MIGRATIONS, SCHEMA_VERSION, Migration
from chuhan.web.db.sqlite import SqliteStore

#: The schema the first release wrote (version 1), frozen here: a release appends steps,
#: it never edits one that has shipped, so this must keep opening.
RELEASE_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE games (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, variant TEXT NOT NULL, rules TEXT NOT NULL,
    start_fen TEXT, time_control TEXT, level INTEGER, computer_side TEXT, names TEXT NOT NULL,
    created REAL NOT NULL, updated REAL NOT NULL, version INTEGER NOT NULL,
    status TEXT NOT NULL, setup TEXT NOT NULL, setup_deadline REAL, moves TEXT NOT NULL,
    clock TEXT, clock_at REAL, offers TEXT NOT NULL, ending TEXT, result TEXT,
    headers TEXT NOT NULL, rematch TEXT
);
CREATE TABLE seats (
    token TEXT PRIMARY KEY, game_id TEXT NOT NULL REFERENCES games(id), seat TEXT NOT NULL
);
CREATE INDEX seats_game ON seats(game_id);
CREATE TABLE events (
    game_id TEXT NOT NULL, version INTEGER NOT NULL, at REAL NOT NULL, kind TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX events_game ON events(game_id, version);
CREATE TABLE chat (
    game_id TEXT NOT NULL, at REAL NOT NULL, sender TEXT NOT NULL, name TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX chat_game ON chat(game_id, at);
INSERT INTO meta VALUES ('schema', '1');
INSERT INTO games VALUES (
    'old-game', 'friend', 'xiangqi', 'asian', NULL,
    '{"base": 300, "increment": 5, "periods": 0, "period_seconds": 0}', NULL, NULL,
    '{"first": "Ada"}', 1800000000.0, 1800000010.0, 3, 'playing', '{}', NULL, 'h2e2 h9g7',
    '{"first": {"remaining": 295.0}, "second": {"remaining": 300.0}, "running": "first"}',
    1800000010.0, '{"draw": null, "takeback": null, "rematch": null}', NULL, NULL, '{}', NULL
);
INSERT INTO seats VALUES ('red-token', 'old-game', 'first'), ('black-token', 'old-game', 'second');
INSERT INTO events VALUES
    ('old-game', 1, 1800000000.0, 'create', '{}'),
    ('old-game', 2, 1800000005.0, 'move', '{"move": "h2e2"}'),
    ('old-game', 3, 1800000010.0, 'move', '{"move": "h9g7"}');
INSERT INTO chat VALUES ('old-game', 1800000001.0, 'first', 'Ada', 'hello');
"""

#: A step a later release might append.
NOTES_STEP = Migration(
    "notes", "ALTER TABLE games ADD COLUMN notes TEXT", "ALTER TABLE games ADD COLUMN notes text"
)


def release_1_database(path: Path) -> Path:
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(RELEASE_1)
    db.close()
    return path


def version_of(path: Path) -> str:
    db = sqlite3.connect(path)
    try:
        return str(db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0])
    finally:
        db.close()


def columns_of(path: Path, table: str) -> list[str]:
    db = sqlite3.connect(path)
    try:
        return [str(r[1]) for r in db.execute(f"PRAGMA table_info({table})")]
    finally:
        db.close()


def test_a_database_of_the_first_release_opens_as_it_is(tmp_path: Path) -> None:
    db = release_1_database(tmp_path / "games.sqlite3")

    async def run() -> None:
        store = SqliteStore(db)
        try:
            row = await store.load_game("old-game")
            assert row is not None and row.moves == ["h2e2", "h9g7"]
            assert row.names == {"first": "Ada"} and row.time_control is not None
            assert await store.seats_of("old-game") == {
                "first": "red-token",
                "second": "black-token",
            }
            changes = [e for e in await store.events("old-game") if e.kind not in QUIET_EVENTS]
            assert (changes[-1].kind, changes[-1].data) == ("move", {"move": "h9g7"})
            assert [line.text for line in await store.chat_history("old-game")] == ["hello"]
            assert await store.unfinished_game_ids() == ["old-game"]
            # Version 2 numbered its events: the game goes on from the revision it reached.
            events = await store.events("old-game")
            assert row.revision == len(events) > 0
            since = await store.game_since("old-game", row.revision - 1)
            assert since is not None and since[1] == events[-1:]
            row.version += 1
            await store.save_game(row, "resign", {"side": "first"})
            assert row.revision == len(events) + 1
            assert (await store.events("old-game"))[-1].kind == "resign"
        finally:
            await store.close()

    asyncio.run(run())
    assert version_of(db) == str(SCHEMA_VERSION)


def test_a_new_step_is_applied_once_and_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    db = release_1_database(tmp_path / "games.sqlite3")
    monkeypatch.setattr(migrations, "MIGRATIONS", (*MIGRATIONS, NOTES_STEP))
    with caplog.at_level(logging.INFO):
        asyncio.run(SqliteStore(db).close())
    assert version_of(db) == str(SCHEMA_VERSION + 1) and columns_of(db, "games")[-1] == "notes"
    assert (
        f"the game database {db} was brought from schema version 1 to {SCHEMA_VERSION + 1}"
        in caplog.text
    )
    # Opened again, the step is not applied twice (adding the column again would fail).
    asyncio.run(SqliteStore(db).close())

    async def old_game_is_there() -> bool:
        store = SqliteStore(db)
        try:
            return await store.load_game("old-game") is not None
        finally:
            await store.close()

    assert asyncio.run(old_game_is_there())


def test_a_new_database_gets_every_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(migrations, "MIGRATIONS", (*MIGRATIONS, NOTES_STEP))
    db = tmp_path / "games.sqlite3"
    asyncio.run(SqliteStore(db).close())
    assert version_of(db) == str(SCHEMA_VERSION + 1) and "notes" in columns_of(db, "games")


def test_a_step_that_fails_leaves_the_database_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = release_1_database(tmp_path / "games.sqlite3")
    failing = "ALTER TABLE games ADD COLUMN notes TEXT; CREATE TABLE games (x)"
    steps = (*MIGRATIONS, Migration("notes, then a mistake", failing, failing))
    monkeypatch.setattr(migrations, "MIGRATIONS", steps)
    with pytest.raises(
        StoreError,
        match=rf"cannot bring the game database .* from schema version {SCHEMA_VERSION} to "
        rf"{SCHEMA_VERSION + 1}: table games already exists; it is left at version "
        rf"{SCHEMA_VERSION}",
    ):
        SqliteStore(db)
    # (the steps before the one that failed are kept: each is its own transaction)
    assert version_of(db) == str(SCHEMA_VERSION) and "notes" not in columns_of(db, "games")


def test_a_database_of_a_newer_chuhan_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = release_1_database(tmp_path / "games.sqlite3")
    writer = sqlite3.connect(db)
    newer = SCHEMA_VERSION + 1
    writer.execute("UPDATE meta SET value=? WHERE key='schema'", (str(newer),))
    writer.commit()
    writer.close()
    assert main(["serve", "--db", str(db), "--port", "0"]) == 2
    assert capsys.readouterr().err == (
        f"chuhan: error: the game database {db} has schema version {newer}, newer than this "
        f"chuhan's ({SCHEMA_VERSION}): it was written by a newer chuhan; upgrade chuhan to "
        "open it\n"
    )
    assert version_of(db) == str(newer)


def test_another_programs_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    db = tmp_path / "notes.sqlite3"
    writer = sqlite3.connect(db)
    writer.execute("CREATE TABLE notes (text TEXT)")
    writer.commit()
    writer.close()
    with pytest.raises(
        StoreError, match=r"is a SQLite database but not a chuhan game database \(it has the "
    ):
        SqliteStore(db)
    assert columns_of(db, "notes") == ["text"]
    reader = sqlite3.connect(db)
    try:
        tables = [r[0] for r in reader.execute("SELECT name FROM sqlite_master")]
    finally:
        reader.close()
    assert tables == ["notes"]


def test_a_schema_version_that_is_not_a_number_is_refused(tmp_path: Path) -> None:
    db = release_1_database(tmp_path / "games.sqlite3")
    writer = sqlite3.connect(db)
    writer.execute("UPDATE meta SET value='one' WHERE key='schema'")
    writer.commit()
    writer.close()
    with pytest.raises(StoreError, match="records a schema version chuhan cannot read \\('one'\\)"):
        SqliteStore(db)
