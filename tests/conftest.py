"""Shared test fixtures: the data files copied from the project's rule sources, and a
throwaway PostgreSQL cluster (``postgres_cluster``) with a fresh database for each test that
asks for one (``postgres_url``)."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hypothesis  # noqa: F401  (see below)
import pytest

from postgres_cluster import Cluster, PostgresNotFound

# hypothesis is imported here, at the start, and not first by its plugin's summary at the end
# of a session. pytest rewrites the asserts of a plugin's modules as it imports them, and
# CPython before 3.11.8 keeps one AST-building depth counter for all threads (gh-106905): a
# parse at the end, while a thread left by a test formats a traceback (3.11's traceback
# module parses the failing line), failed a run with "SystemError: AST constructor
# recursion depth mismatch" after every test had passed.
DATA = Path(__file__).parent / "data"

# The servers the tests start (chuhan serve, in-process apps) do not build the masters'
# explorer index (minutes of CPU, undone when the server stops): a test that needs one
# builds a small one (explorer_sample.py) or sets the variable itself.
os.environ.setdefault("CHUHAN_EXPLORER_BUILD", "0")
# ... and keep their explorer files (the games that end on them) out of the user's folder.
if "CHUHAN_EXPLORER_DB" not in os.environ:
    _EXPLORER_FOLDER = tempfile.mkdtemp(prefix="chuhan-explorer-")
    atexit.register(shutil.rmtree, _EXPLORER_FOLDER, ignore_errors=True)
    os.environ["CHUHAN_EXPLORER_DB"] = os.path.join(_EXPLORER_FOLDER, "explorer.sqlite3")

# The admin address of a running cluster to use instead of starting one, e.g.
# postgresql://postgres@127.0.0.1:5432/postgres (its user must be allowed to create databases).
POSTGRES_ENV = "CHUHAN_TEST_POSTGRES"


def load_json(name: str) -> Any:
    with open(DATA / name, encoding="utf-8") as handle:
        return json.load(handle)


@pytest.fixture(scope="session")
def perft_positions() -> list[dict[str, Any]]:
    positions: list[dict[str, Any]] = load_json("perft.json")["positions"]
    return positions


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    """The PostgreSQL cluster of this test process (each xdist worker has its own), started
    when the first test asks for it and stopped at the end of the session; or the one
    ``CHUHAN_TEST_POSTGRES`` names, used as it is."""
    url = os.environ.get(POSTGRES_ENV)
    cluster = Cluster.attach(url) if url else Cluster()
    # stop() is safe to call twice: atexit covers a session that ends without its
    # finalizers, and the cluster's watchdog a process that is killed.
    atexit.register(cluster.stop)
    missing = None
    try:
        cluster.start()
    except PostgresNotFound as error:
        missing = str(error)
    if missing is not None:  # a failure, not a skip: the server tests need PostgreSQL
        pytest.fail(missing, pytrace=False)
    try:
        yield cluster
    finally:
        cluster.stop()
        atexit.unregister(cluster.stop)


@pytest.fixture(params=["sqlite", "postgresql"])
def explorer_index(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a test's explorer index is (chuhan.explorer.Explorer's location): a new SQLite
    file, then a new PostgreSQL database (a test that takes it runs on both stores)."""
    if request.param == "sqlite":
        return str(tmp_path / "explorer.sqlite3")
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
def postgres_url(postgres_cluster: Cluster) -> Iterator[str]:
    """The address (postgresql://...) of a fresh, empty database for this test, dropped
    afterwards even when the test's server still holds connections to it."""
    url = postgres_cluster.create_database()
    try:
        yield url
    finally:
        postgres_cluster.drop_database(url)
