"""The SQLite store's main file is never far behind its write-ahead log, and a database
found without the log it needed (or with a log cut short) is reported, not served as if
nothing were missing. A crash copies the files while the store has them open."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from web_helpers import stored_game

from chuhan.web.db import connection
from chuhan.web.db.sqlite import CHECKPOINT_SECONDS, SqliteStore
from chuhan.web.server import free_port

#: Long enough that no checkpoint runs unless a test asks for one.
NEVER = 3600.0


async def save_games(store: SqliteStore, first: int, count: int) -> None:
    for number in range(first, first + count):
        row = stored_game(number)
        await store.create_game(row, {f"token-{number}": "both"})
        for move in ("h2e2", "h9g7", "h0g2"):
            row.moves.append(move)
            row.version += 1
            await store.save_game(row, "move", {"move": move})


def crash_copy(db: Path, to: Path, *, with_log: bool = True) -> Path:
    """The files as a crash (or a plain file copy) leaves them, the store still open."""
    to.mkdir(exist_ok=True)
    shutil.copyfile(db, to / db.name)
    if with_log and Path(f"{db}-wal").exists():
        shutil.copyfile(f"{db}-wal", to / f"{db.name}-wal")
    return to / db.name


def stored_games(db: Path) -> int:
    reader = sqlite3.connect(db)
    try:
        return int(reader.execute("SELECT count(*) FROM games").fetchone()[0])
    finally:
        reader.close()


def main_file_holds(db: Path, to: Path, *, games: int) -> bool:
    """Whether the main file alone (no log) holds ``games`` games: a copy taken while
    a checkpoint writes may be torn, which is a no for now."""
    try:
        return stored_games(crash_copy(db, to, with_log=False)) >= games
    except sqlite3.DatabaseError:
        return False


def said(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(r.getMessage() for r in caplog.records if r.name == "chuhan.web.db")


def open_and_count(db: Path) -> int:
    async def run() -> int:
        store = SqliteStore(db, checkpoint_seconds=NEVER)
        try:
            return len(await store.unfinished_game_ids())
        finally:
            await store.close()

    return asyncio.run(run())


def test_the_main_file_alone_has_the_games_a_few_seconds_after_they_are_saved(
    tmp_path: Path,
) -> None:
    db = tmp_path / "games.sqlite3"

    async def run() -> int:
        store = SqliteStore(db, checkpoint_seconds=0.05)
        try:
            await save_games(store, 0, 12)
            deadline = time.monotonic() + 60  # a bound on a hang only
            while time.monotonic() < deadline:
                await asyncio.sleep(0.05)
                copy = crash_copy(db, tmp_path / "copy", with_log=False)
                if stored_games(copy) == 12:
                    break
            return stored_games(copy)
        finally:
            await store.close()

    assert asyncio.run(run()) == 12


def test_a_clean_close_leaves_one_complete_file(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"

    async def run() -> None:
        store = SqliteStore(db, checkpoint_seconds=NEVER)
        await save_games(store, 0, 5)
        await store.close()

    asyncio.run(run())
    assert not Path(f"{db}-wal").exists()
    moved = crash_copy(db, tmp_path / "moved", with_log=False)
    assert stored_games(moved) == 5


def test_a_copy_made_without_its_log_while_served_is_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "games.sqlite3"

    async def run() -> Path:
        store = SqliteStore(db, checkpoint_seconds=NEVER)
        try:
            await save_games(store, 0, 3)
            return crash_copy(db, tmp_path / "copy", with_log=False)
        finally:
            await store.close()

    copy = asyncio.run(run())
    with caplog.at_level(logging.WARNING):
        open_and_count(copy)
    assert "was copied or restored without its write-ahead log (games.sqlite3-wal)" in said(caplog)
    assert "chuhan backup DEST" in said(caplog)


def test_a_crash_that_keeps_the_log_loses_nothing_and_says_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "games.sqlite3"

    async def run() -> Path:
        store = SqliteStore(db, checkpoint_seconds=NEVER)
        try:
            await save_games(store, 0, 3)
            await store.checkpoint()
            await save_games(store, 3, 4)  # these are in the log only
            return crash_copy(db, tmp_path / "crashed")
        finally:
            await store.close()

    crashed = asyncio.run(run())
    with caplog.at_level(logging.INFO):
        assert open_and_count(crashed) == 7
    assert said(caplog) == ""
    with caplog.at_level(logging.INFO):
        assert open_and_count(crashed) == 7  # and a second start, after a clean close
    assert said(caplog) == ""


def test_a_database_closed_cleanly_and_moved_alone_is_not_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "games.sqlite3"
    open_and_count(db)
    moved = crash_copy(db, tmp_path / "moved", with_log=False)
    with caplog.at_level(logging.INFO):
        open_and_count(moved)
    assert said(caplog) == ""


def test_a_log_cut_short_is_reported_and_a_copy_of_it_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "games.sqlite3"

    async def run() -> Path:
        store = SqliteStore(db, checkpoint_seconds=NEVER)
        try:
            await save_games(store, 0, 30)
            return crash_copy(db, tmp_path / "crashed")
        finally:
            await store.close()

    crashed = asyncio.run(run())
    log = Path(f"{crashed}-wal")
    size = log.stat().st_size // 2 + 1000  # in the middle of a frame
    with open(log, "r+b") as cut:
        cut.truncate(size)
    with caplog.at_level(logging.WARNING):
        left = open_and_count(crashed)
    assert 0 < left < 30
    assert "(games.sqlite3-wal) is damaged: it is cut short" in said(caplog)
    kept = list(crashed.parent.glob("games.sqlite3-wal.damaged-*"))
    assert [path.stat().st_size for path in kept] == [size]
    assert f"a copy of the log as found is kept as {kept[0]}" in said(caplog)


def cut_between_frames(database: Path) -> None:
    """Cut the log to half its frames: a cut SQLite cannot notice."""
    log = Path(f"{database}-wal")
    frame = 24 + 4096
    frames = max(0, log.stat().st_size - 32) // frame
    if frames:
        with open(log, "r+b") as cut:
            cut.truncate(32 + frames // 2 * frame)


def is_intact(database: Path) -> bool:
    reader = sqlite3.connect(database)
    try:
        return reader.execute("PRAGMA quick_check").fetchall() == [("ok",)]
    finally:
        reader.close()


def test_a_log_cut_short_after_a_checkpoint_keeps_every_game_checkpointed(
    tmp_path: Path,
) -> None:
    # A log that still held frames already copied into the main file would, cut short,
    # mix their old pages with the main file's newer ones: games vanish and the file is
    # damaged. The store empties the log when it copies it.
    db = tmp_path / "games.sqlite3"

    async def run() -> tuple[Path, Path]:
        store = SqliteStore(db, checkpoint_seconds=NEVER)
        try:
            await save_games(store, 0, 300)
            assert await store.checkpoint()
            idle = crash_copy(db, tmp_path / "idle")  # crashed with nothing new since
            await save_games(store, 300, 20)
            return idle, crash_copy(db, tmp_path / "busy")  # crashed with 20 new games
        finally:
            await store.close()

    idle, busy = asyncio.run(run())
    cut_between_frames(idle)
    cut_between_frames(busy)
    assert stored_games(idle) == 300 and is_intact(idle)
    assert 300 <= stored_games(busy) < 320 and is_intact(busy)


def test_a_checkpoint_does_not_wait_for_a_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A checkpoint that waited for the reader would wait the busy timeout: made ten
    # minutes here, so the bound below only tells waiting from not waiting.
    monkeypatch.setattr(connection, "BUSY_MS", 600_000)
    db = tmp_path / "games.sqlite3"

    async def run() -> tuple[bool, float, int]:
        store = SqliteStore(db, checkpoint_seconds=NEVER)
        reader = sqlite3.connect(db, isolation_level=None)
        try:
            await save_games(store, 0, 2)
            reader.execute("BEGIN")
            reader.execute("SELECT count(*) FROM games").fetchone()  # holds a snapshot
            await save_games(store, 2, 2)
            started = time.monotonic()
            complete = await store.checkpoint()
            waited = time.monotonic() - started
            reader.execute("COMMIT")
            await save_games(store, 4, 1)
            return complete, waited, len(await store.unfinished_game_ids())
        finally:
            reader.close()
            await store.close()

    complete, waited, games = asyncio.run(run())
    assert not complete and waited < 300 and games == 5
    assert stored_games(crash_copy(db, tmp_path / "after", with_log=False)) == 5


# ---------------------------------------------------------------------- a real server, killed


def start_server(port: int, db: Path) -> tuple[subprocess.Popen[str], str]:
    """``chuhan serve`` in a process of its own; what it printed until it served."""
    server = subprocess.Popen(
        [sys.executable, "-m", "chuhan.cli", "serve", "--port", str(port), "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert server.stdout is not None
    console = []
    deadline = time.monotonic() + 60  # bounds on a hang only
    while time.monotonic() < deadline:
        line = server.stdout.readline()
        console.append(line)
        if not line or line.startswith("chuhan: serving on"):
            break
    # The line comes as the server starts to listen, not once it does: on a loaded
    # machine the first request could come before the socket is open.
    while line and server.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert time.monotonic() < deadline, "the server never listened"
            time.sleep(0.05)
    return server, "".join(console)


def stop(server: subprocess.Popen[str]) -> None:
    server.terminate()
    with contextlib.suppress(subprocess.TimeoutExpired):
        server.wait(timeout=60)
    server.kill()
    server.wait(timeout=60)


def new_game(port: int) -> str:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/games",
        data=json.dumps({"kind": "local"}).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return str(json.loads(response.read())["game_id"])


def status_of(port: int, game_id: str) -> int:
    try:
        with urllib.request.urlopen(
            f"http://127.0.0.1:{port}/api/games/{game_id}", timeout=60
        ) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")
def test_a_killed_server_restarts_quietly_with_its_log_and_warns_without_it(
    tmp_path: Path,
) -> None:
    db = tmp_path / "games.sqlite3"
    port = free_port()
    server, _ = start_server(port, db)
    try:
        saved = [new_game(port) for _ in range(3)]
        # The periodic checkpoint (every CHECKPOINT_SECONDS) copies them into the main
        # file: polled, not slept for (a bound on a hang only).
        deadline = time.monotonic() + 60 + CHECKPOINT_SECONDS
        while not main_file_holds(db, tmp_path / "checkpointed", games=3):
            assert time.monotonic() < deadline, "the games never reached the main file"
            time.sleep(0.1)
        recent = new_game(port)  # in the log only
    finally:
        os.kill(server.pid, signal.SIGKILL)
        server.wait(timeout=60)
    alone = crash_copy(db, tmp_path / "alone", with_log=False)

    server, console = start_server(port, db)
    try:
        assert "chuhan: serving on" in console and "warning" not in console
        assert [status_of(port, game_id) for game_id in [*saved, recent]] == [200] * 4
    finally:
        stop(server)

    server, console = start_server(port, alone)
    try:
        assert console.startswith(
            f"chuhan: warning: the game database {alone} was copied or restored without its "
            "write-ahead log (games.sqlite3-wal) while a chuhan server had it open (opened "
        )
        assert [status_of(port, game_id) for game_id in [*saved, recent]] == [200] * 3 + [404]
    finally:
        stop(server)


def test_a_store_left_open_when_the_program_ends_is_closed_cleanly(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "games.sqlite3"
    script = (
        "import asyncio, sys\n"
        "from chuhan.web.db.sqlite import SqliteStore\n"
        "from test_store_checkpoint import save_games\n"
        "store = SqliteStore(sys.argv[1], checkpoint_seconds=3600)\n"
        "asyncio.run(save_games(store, 0, 2))\n"  # and never closed
    )
    subprocess.run(
        [sys.executable, "-c", script, str(db)],
        check=True,
        cwd=Path(__file__).parent,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert not Path(f"{db}-wal").exists()
    moved = crash_copy(db, tmp_path / "moved", with_log=False)
    with caplog.at_level(logging.INFO):
        assert open_and_count(moved) == 2
    assert said(caplog) == ""
