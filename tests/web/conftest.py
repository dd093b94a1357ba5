"""Fixtures for the web server tests: an app on a temporary database with a fake wall
clock (tests move time forward instead of sleeping) and a deterministic stand-in engine.
The helpers the tests import are in ``web_helpers.py``."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    # Starlette's TestClient warns that it will move from httpx to httpx2.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from web_helpers import OPEN_PLAYERS, FakeClock, FakeEngine

from chuhan.web.app import create_app
from chuhan.web.settings import Settings


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


@pytest.fixture
def make_client(
    db_path: Path, clock: FakeClock, engine: FakeEngine, static_dir: Path
) -> Iterator[Any]:
    """``make_client(**settings)`` opens the app on the database: a second call is a
    restart (the app before it is shut down first, as one server owns the database at a
    time). Keyword arguments are :class:`Settings` fields."""
    opened: list[TestClient] = []

    def make(**options: Any) -> TestClient:
        for earlier in opened:
            earlier.__exit__(None, None, None)
        opened.clear()
        # Tests create games and imports by the dozen from one address: no budget unless a
        # test sets one.
        options.setdefault("create_burst", 10_000)
        options.setdefault("import_burst", 10_000)
        if "rate_limit" in options:  # (burst, refill per second)
            options["rate_burst"], options["rate_per_second"] = options.pop("rate_limit")
        app = create_app(
            db_path, now=clock, pool=engine, static_dir=static_dir, settings=Settings(**options)
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
def client(make_client: Any) -> TestClient:
    return make_client()  # type: ignore[no-any-return]
