"""Fixtures for the web server tests: an app on a temporary database with a fake wall
clock (tests move time forward instead of sleeping) and a deterministic stand-in engine.
The helpers the tests import are in ``web_helpers.py``.

Every test that opens the app (``make_client``, ``client``) runs twice, on each storage
backend: ``[sqlite]`` on a temporary file and ``[postgresql]`` on a fresh database of the
test run's own PostgreSQL cluster. A test that reads the SQLite file itself (it asks for
``db_path``) or is marked ``sqlite_only`` runs on SQLite alone."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import pytest

with warnings.catch_warnings():
    # Starlette's TestClient warns that it will move from httpx to httpx2.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from web_helpers import OPEN_PLAYERS, FakeClock, FakeEngine, MakeClient

from chuhan.web.app import create_app
from chuhan.web.db.migrations import migrate_postgresql
from chuhan.web.settings import Settings
from postgres_cluster import Cluster, database_of


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def engine() -> FakeEngine:
    return FakeEngine()


@pytest.fixture
def static_dir(tmp_path: Path) -> Path:
    static = tmp_path / "static"
    static.mkdir()
    (static / "index.html").write_text(
        '<!doctype html><title>chuhan</title><script src="/static/app.js"></script>',
        encoding="utf-8",
    )
    (static / "app.js").write_text("console.log('chuhan')", encoding="utf-8")
    return static


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


BACKENDS = ("sqlite", "postgresql")

#: Argon2id at its cheapest costs, for tests that do not test the hashing itself.
CHEAP_ARGON2 = {"argon2_time_cost": 1, "argon2_memory_kib": 8192, "argon2_parallelism": 1}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "database" not in metafunc.fixturenames:
        return
    sqlite_only = "db_path" in metafunc.fixturenames or any(
        mark.name == "sqlite_only" for mark in metafunc.definition.iter_markers()
    )
    metafunc.parametrize("database", BACKENDS[:1] if sqlite_only else BACKENDS, indirect=True)


@pytest.fixture(scope="session")
def migrated_template(postgres_cluster: Cluster) -> str:
    """The name of a PostgreSQL database holding this chuhan's whole schema and nothing else,
    made once per test process: each test's database is copied from it (the migrations,
    about 0.13 CPU-s a database, run once). The app's start finds its schema current;
    tests/web/test_store_migrations.py brings empty and old databases up to date."""
    url = postgres_cluster.create_database()

    async def migrate() -> None:
        connection = await asyncpg.connect(url)
        try:
            await migrate_postgresql(connection, "the tests' template")
        finally:
            await connection.close()

    asyncio.run(migrate())
    return database_of(url)


@pytest.fixture
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str | Path]:
    """Where the app keeps its games: a SQLite file, or a fresh PostgreSQL database (its
    schema in place)."""
    if request.param == "postgresql":
        cluster: Cluster = request.getfixturevalue("postgres_cluster")
        url = cluster.create_database(template=request.getfixturevalue("migrated_template"))
        try:
            yield url
        finally:
            cluster.drop_database(url)
        return
    path: Path = request.getfixturevalue("db_path")
    yield path


@pytest.fixture
def make_client(
    database: str | Path, clock: FakeClock, engine: FakeEngine, static_dir: Path
) -> Iterator[MakeClient]:
    """``make_client(**settings)`` opens the app on the database: a second call is a
    restart (the app before it is shut down first, as one server owns the database at a
    time). Keyword arguments are :class:`Settings` fields, and ``sleep``: the notices'
    pause between tries (:class:`~web_helpers.FakeSleep`; ``asyncio.sleep`` otherwise)."""
    opened: list[TestClient] = []

    def make(**options: Any) -> TestClient:
        for earlier in opened:
            earlier.__exit__(None, None, None)
        opened.clear()
        # Tests create games and imports by the dozen from one address: no budget unless a
        # test sets one.
        options.setdefault("create_burst", 10_000)
        options.setdefault("import_burst", 10_000)
        # Passwords hashed at argon2's cheapest costs unless a test sets them: the default
        # costs (RFC 9106's, tested in test_accounts.py) take about 0.3 CPU-seconds a hash,
        # and every app start hashes once (the stand-in that unknown names are checked
        # against), which summed to minutes of the suite.
        for name, value in CHEAP_ARGON2.items():
            options.setdefault(name, value)
        # The worker deadlines are bounds on a hang only, unless a test sets one: on a
        # loaded machine a worker takes seconds to start (an upload's 5 s deadline was
        # missed at load 14).
        options.setdefault("import_seconds", 120.0)
        options.setdefault("read_seconds", 120.0)
        if "rate_limit" in options:  # (burst, refill per second)
            options["rate_burst"], options["rate_per_second"] = options.pop("rate_limit")
        sleep = options.pop("sleep", asyncio.sleep)
        app = create_app(
            database,
            now=clock,
            compute=engine,
            static_dir=static_dir,
            settings=Settings(**options),
            sleep=sleep,
        )
        client = TestClient(app)
        client.__enter__()
        opened.append(client)
        return client

    yield make
    for player in list(OPEN_PLAYERS):
        player.close()
    for client in reversed(opened):
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client()
