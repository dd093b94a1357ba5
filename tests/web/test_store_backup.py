"""``chuhan backup DEST``: a complete copy in one file, made while a server may be using
the database, and the destinations it refuses."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from pathlib import Path

import pytest
from test_store_checkpoint import NEVER, crash_copy, save_games, stored_games

from chuhan.cli import build_parser, main
from chuhan.web.db import StoreError
from chuhan.web.db.backup import backup_database
from chuhan.web.db.sqlite import SqliteStore


def served_database(db: Path, games: int) -> SqliteStore:
    """A store that has the database open (and its owner lock), its games in the log."""

    async def run() -> SqliteStore:
        store = SqliteStore(db, checkpoint_seconds=NEVER)
        await save_games(store, 0, games)
        return store

    return asyncio.run(run())


def test_a_backup_made_while_served_is_complete_and_one_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "games.sqlite3"
    store = served_database(db, 6)
    try:
        assert Path(f"{db}-wal").stat().st_size > 0  # the games are in the log
        copy = backup_database(db, tmp_path / "backup" / "copy.sqlite3")
    finally:
        asyncio.run(store.close())
    dest = tmp_path / "backup" / "copy.sqlite3"
    assert sorted(p.name for p in dest.parent.iterdir()) == ["copy.sqlite3"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "backup",
        "games.sqlite3",
        "games.sqlite3.lock",
    ]
    assert copy.games == 6 and copy.bytes == dest.stat().st_size and copy.damaged is None
    assert stored_games(dest) == 6
    with caplog.at_level(logging.INFO):  # the copy does not look like a server's open file
        asyncio.run(SqliteStore(dest).close())
    assert not [r for r in caplog.records if r.name == "chuhan.web.db"]


def test_a_backup_is_one_snapshot_while_the_server_writes(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    store = served_database(db, 3)
    loop = asyncio.new_event_loop()
    writing = threading.Event()

    def write() -> None:
        writing.set()
        loop.run_until_complete(save_games(store, 3, 60))

    writer = threading.Thread(target=write)
    try:
        writer.start()
        writing.wait()
        copies = [backup_database(db, tmp_path / f"copy{n}.sqlite3") for n in range(5)]
        writer.join()
        loop.run_until_complete(store.close())
    finally:
        loop.close()
    for copy in copies:
        reader = sqlite3.connect(copy.dest)
        try:
            assert reader.execute("PRAGMA quick_check").fetchall() == [("ok",)]
            # Each game in a copy has all the moves it had at that moment, and its events.
            for moves, events in reader.execute(
                "SELECT g.moves, (SELECT count(*) FROM events e WHERE e.game_id = g.id) "
                "FROM games g"
            ):
                assert events == 1 + len(moves.split())
        finally:
            reader.close()
        assert 3 <= (copy.games or 0) <= 63


def test_chuhan_backup_says_what_it_copied(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "games.sqlite3"
    store = served_database(db, 2)
    try:
        assert main(["backup", str(tmp_path / "copy.sqlite3"), "--db", str(db)]) == 0
    finally:
        asyncio.run(store.close())
    out = capsys.readouterr().out
    size = (tmp_path / "copy.sqlite3").stat().st_size
    assert out.startswith(
        f"chuhan: copied 2 games ({size:,} bytes) from {db} to {tmp_path / 'copy.sqlite3'} in "
    )


def test_backup_replaces_a_file_only_when_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "games.sqlite3"
    asyncio.run(served_database(db, 2).close())
    dest = tmp_path / "copy.sqlite3"
    dest.write_text("an older copy")
    assert main(["backup", str(dest), "--db", str(db)]) == 2
    assert f"chuhan: error: {dest} exists; add --force to replace it" in capsys.readouterr().err
    assert dest.read_text() == "an older copy"
    Path(f"{dest}-wal").write_bytes(b"another database's log")
    assert main(["backup", str(dest), "--db", str(db), "--force"]) == 0
    assert not Path(f"{dest}-wal").exists() and stored_games(dest) == 2


def test_backup_refuses_to_copy_a_database_onto_itself(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    asyncio.run(served_database(db, 1).close())
    link = tmp_path / "link.sqlite3"
    link.symlink_to(db)
    for dest in (db, link, Path(f"{db}-wal"), tmp_path / "." / "games.sqlite3"):
        with pytest.raises(StoreError, match=r"is the game database .* itself"):
            backup_database(db, dest, force=True)
    assert stored_games(db) == 1


def test_backup_refuses_a_database_another_server_has_open(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    asyncio.run(served_database(db, 1).close())
    other = served_database(tmp_path / "other.sqlite3", 1)
    try:
        with pytest.raises(StoreError, match="a chuhan server has open"):
            backup_database(db, tmp_path / "other.sqlite3", force=True)
    finally:
        asyncio.run(other.close())


def test_backup_of_nothing_or_not_a_game_database_is_a_sentence(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"there is no game database at .*missing\.sqlite3"):
        backup_database(tmp_path / "missing.sqlite3", tmp_path / "copy.sqlite3")
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database" * 100)
    with pytest.raises(StoreError, match=r"notes.txt is not a chuhan game database"):
        backup_database(notes, tmp_path / "copy.sqlite3")
    other = tmp_path / "other.sqlite3"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(StoreError, match=r"other\.sqlite3 is not a chuhan game database"):
        backup_database(other, tmp_path / "copy.sqlite3")
    assert not (tmp_path / "copy.sqlite3").exists()


def test_backup_is_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "backup" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["backup", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "SQLite's backup API" in text and "--force" in text and "--db DB" in text
    args = build_parser().parse_args(["backup", "dest.sqlite3"])
    assert (args.dest, args.db, args.force) == ("dest.sqlite3", None, False)


def test_a_backup_of_a_crashed_database_has_its_log_and_changes_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "games.sqlite3"
    store = served_database(db, 4)
    crashed = crash_copy(db, tmp_path / "crashed")
    asyncio.run(store.close())
    files = (crashed, Path(f"{crashed}-wal"))  # (SQLite may add its index of the log)
    before = [path.read_bytes() for path in files]
    assert backup_database(crashed, tmp_path / "copy.sqlite3").games == 4
    assert [path.read_bytes() for path in files] == before
    # A file copied without its log stays as it was too, so its next start still says so.
    alone = crash_copy(db, tmp_path / "alone", with_log=False)
    backup_database(alone, tmp_path / "copy2.sqlite3")
    assert sorted(p.name for p in alone.parent.iterdir()) == ["games.sqlite3"]
