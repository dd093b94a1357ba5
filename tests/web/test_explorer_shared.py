"""The masters' index kept in the server's PostgreSQL database: one index for every server
process, built once. While one process builds it, the others' builds wait and tell the
builder's progress from the database; a build that stops is taken over by a waiting one.

The builder here is a thread of the test (the sample's import, labelled as the shipped
masters, held after its first file until the test lets it go); the apps are two servers'
apps on one database, each with its build process as ``chuhan serve`` has."""

from __future__ import annotations

import asyncio
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import pytest
from test_explorer_site import open_app
from web_helpers import FakeClock, FakeEngine

from chuhan import Board
from chuhan.explorer import Explorer, ImportSummary, default_index_path
from chuhan.explorer.masters import MASTERS_LABEL
from chuhan.explorer.stores import WRITE_LOCK
from chuhan.web.explorer import service as explorer_service
from chuhan.web.explorer.service import BUILD_ENV, index_location
from explorer_sample import SAMPLE_FILES, build_sample_index
from postgres_cluster import Cluster, database_of

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

#: The most seconds a test waits for a build process to see what it waits for (it looks
#: every 5 s; it first counts the archive's files, seconds on a loaded machine).
PATIENCE = 120.0


@pytest.fixture
def shared_database(postgres_cluster: Cluster, migrated_template: str) -> Iterator[str]:
    url = postgres_cluster.create_database(template=migrated_template)
    try:
        yield url
    finally:
        postgres_cluster.drop_database(url)


def _wait_for(what: str, seen: Callable[[], Any]) -> Any:
    """What ``seen`` returns once it is true (a build process's doing, looked at again
    until it is; a failure after :data:`PATIENCE` seconds)."""
    deadline = time.monotonic() + PATIENCE
    while True:
        found = seen()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"not seen in {PATIENCE:.0f} s: {what}")
        time.sleep(0.2)


class _Builder(threading.Thread):
    """Another process's build of the masters' index: the sample imported as the shipped
    masters, its progress noted as a server's build notes it, held after the first file
    until :attr:`go` is set; it then goes on, or dies (its import undone) when ``dies``."""

    def __init__(self, url: str, *, dies: bool = False) -> None:
        super().__init__(name="another server's build")
        self.url = url
        self.dies = dies
        self.noted = threading.Event()
        self.go = threading.Event()
        self.failure: BaseException | None = None

    def run(self) -> None:
        try:
            with Explorer(self.url) as notes:

                def progress(summary: ImportSummary) -> None:
                    if summary.files == 1:
                        notes.note_progress(MASTERS_LABEL, 1, SAMPLE_FILES)
                        self.noted.set()
                        self.go.wait(PATIENCE)
                        if self.dies:
                            raise SystemExit(1)

                build_sample_index(self.url, progress)
        except SystemExit:
            pass
        except BaseException as error:  # (told to the test)
            self.failure = error
        finally:
            self.noted.set()


def _building(client: TestClient) -> dict[str, Any] | None:
    answer: dict[str, Any] = client.get("/api/explorer").json()
    building: dict[str, Any] | None = answer.get("building")
    return building


def _write_lock_holders(url: str) -> list[str]:
    """The application names of the connections holding the index's write lock."""

    async def read() -> list[str]:
        connection = await asyncpg.connect(url)
        try:
            rows = await connection.fetch(
                "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a "
                "ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
                "AND (l.classid::bigint << 32) | l.objid::bigint = $1",
                WRITE_LOCK,
            )
            return [str(row[0]) for row in rows]
        finally:
            await connection.close()

    return asyncio.run(read())


def test_two_servers_on_one_postgresql_database_read_one_masters_index_built_once(
    shared_database: str,
    static_dir: Path,
    clock: FakeClock,
    engine: FakeEngine,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(BUILD_ENV, "1")
    builder = _Builder(shared_database)
    builder.start()
    first: TestClient | None = None
    second: TestClient | None = None
    try:
        assert builder.noted.wait(PATIENCE)
        first = open_app(shared_database, static_dir, None, clock, engine)
        second = open_app(shared_database, static_dir, None, clock, engine)
        # Both servers' builds wait for the one under way and tell its progress.
        for client in (first, second):

            def progress_told(client: TestClient = client) -> Any:
                return (_building(client) or {}).get("total") == SAMPLE_FILES and _building(client)

            told = _wait_for("the builder's progress told by a waiting server", progress_told)
            assert told == {"state": "building", "done": 1, "total": SAMPLE_FILES, "message": ""}
        builder.go.set()
        builder.join(PATIENCE)
        assert builder.failure is None
        with Explorer(shared_database) as explorer:
            expected = explorer.lookup(Board())
            imports = explorer._db.rows("SELECT label FROM imports")
        assert imports == [(MASTERS_LABEL,)]  # built once
        for client in (first, second):

            def ready(client: TestClient = client) -> Any:
                return "moves" in (a := client.get("/api/explorer").json()) and a

            answer = _wait_for("the masters' index ready on both servers", ready)
            assert answer["games"] == expected.games > 50
            assert [m["iccs"] for m in answer["moves"]] == [m.iccs for m in expected.moves]
    finally:
        builder.go.set()
        builder.join(PATIENCE)
        for opened in (first, second):
            if opened is not None:
                opened.__exit__(None, None, None)


def test_a_build_that_stops_is_taken_over_by_a_waiting_server(
    shared_database: str,
    static_dir: Path,
    clock: FakeClock,
    engine: FakeEngine,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(BUILD_ENV, "1")
    builder = _Builder(shared_database, dies=True)
    builder.start()
    client = None
    try:
        assert builder.noted.wait(PATIENCE)
        client = open_app(shared_database, static_dir, None, clock, engine)
        _wait_for(
            "the builder's progress told by the waiting server",
            lambda: (_building(client) or {}).get("total") == SAMPLE_FILES,
        )
        assert _write_lock_holders(shared_database) == ["chuhan explorer"]
        builder.go.set()  # the builder dies: its import undone, its lock let go
        builder.join(PATIENCE)
        assert builder.failure is None
        # The server's build takes the lock and builds the whole archive itself.
        _wait_for(
            "the waiting server's build holding the write lock",
            lambda: (
                _write_lock_holders(shared_database) == ["chuhan explorer"]
                and (_building(client) or {}).get("total", 0) > SAMPLE_FILES
            ),
        )
    finally:
        builder.go.set()
        builder.join(PATIENCE)
        if client is not None:
            client.__exit__(None, None, None)
    # The server stopped: its build stopped with it, undone; nothing holds the lock.
    with Explorer(shared_database) as explorer:
        assert explorer.counts() == {}
    assert _write_lock_holders(shared_database) == []


def test_a_server_on_postgresql_keeps_the_explorer_index_in_its_database() -> None:
    url = "postgresql://chuhan@db.example/site"
    assert index_location(None, url) == url
    assert index_location("/srv/explorer.sqlite3", url) == "/srv/explorer.sqlite3"
    assert index_location(None, None) == default_index_path()
    assert index_location(None, "/home/ada/games.sqlite3") == default_index_path()


def test_a_lost_connection_to_the_index_is_a_503_and_made_again(
    shared_database: str, static_dir: Path, clock: FakeClock, engine: FakeEngine
) -> None:
    build_sample_index(shared_database)
    client = open_app(shared_database, static_dir, None, clock, engine)
    try:
        games = client.get("/api/explorer").json()["games"]
        assert games > 50

        async def cut() -> int:
            connection = await asyncpg.connect(shared_database)
            try:
                return int(
                    await connection.fetchval(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                        "WHERE application_name = 'chuhan explorer' "
                        "AND datname = current_database()"
                    )
                )
            finally:
                await connection.close()

        assert asyncio.run(cut()) == 1  # the server's reading connection
        lost = client.get("/api/explorer")
        assert lost.status_code == 503
        assert lost.json()["error"]["message"].startswith("the explorer's index (postgresql://")
        assert client.get("/api/explorer").json()["games"] == games
    finally:
        client.__exit__(None, None, None)


def test_an_index_database_that_does_not_answer_is_said_and_tried_again(
    shared_database: str,
    postgres_cluster: Cluster,
    migrated_template: str,
    static_dir: Path,
    clock: FakeClock,
    engine: FakeEngine,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The index's database refuses connections when the server first looks (a restart, a
    maintenance): the explorer says it cannot be opened, for now, and the next look once
    it answers again finds the masters (a shared index's failure is not kept for good)."""
    monkeypatch.setattr(explorer_service, "RETRY_SECONDS", 0.0)
    index = postgres_cluster.create_database(template=migrated_template)
    name = database_of(index)
    try:
        build_sample_index(index)
        postgres_cluster.allow_connections(index, False)
        client = open_app(shared_database, static_dir, index, clock, engine)
        try:
            closed = client.get("/api/explorer")
            assert closed.status_code == 200
            message = closed.json()["unavailable"]
            assert message.startswith("the explorer index postgresql://")
            assert "cannot be opened" in message and name in message
            postgres_cluster.allow_connections(index, True)
            assert client.get("/api/explorer").json()["games"] > 50
        finally:
            client.__exit__(None, None, None)
    finally:
        postgres_cluster.drop_database(index)


def test_a_lookup_held_up_by_a_lock_is_cancelled_and_said(
    shared_database: str,
    static_dir: Path,
    clock: FakeClock,
    engine: FakeEngine,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Someone holds the index's tables (a maintenance's lock; a database that stopped
    answering is the same wait): the server's reading thread does not wait for good (every
    player's lookups behind it), the lookup is cancelled after the read bound and answered
    with a 503 that says so; once the tables are free, the next lookup answers."""
    monkeypatch.setattr(explorer_service, "READ_SECONDS", 0.5)
    build_sample_index(shared_database)
    client = open_app(shared_database, static_dir, None, clock, engine)
    loop = asyncio.new_event_loop()
    holder = loop.run_until_complete(asyncpg.connect(shared_database))
    try:
        games = client.get("/api/explorer").json()["games"]
        assert games > 50
        tables = loop.run_until_complete(
            holder.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'explorer_index'")
        )
        listed = ", ".join(f"explorer_index.{row[0]}" for row in tables)
        loop.run_until_complete(holder.execute(f"BEGIN; LOCK TABLE {listed}"))
        held = client.get("/api/explorer")
        assert held.status_code == 503
        message = held.json()["error"]["message"]
        assert message.startswith("the explorer's index (postgresql://")
        assert "took longer than 0.5 s and was cancelled" in message
        loop.run_until_complete(holder.execute("ROLLBACK"))
        assert client.get("/api/explorer").json()["games"] == games
    finally:
        loop.run_until_complete(holder.close())
        loop.close()
        client.__exit__(None, None, None)
