"""The per-address limits across real server processes on one PostgreSQL database: an
address has one budget of new games whatever process answers, and one count of open
websockets (no sticky sessions needed)."""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from process_helpers import start_server, stop

from chuhan.web.server import free_port
from chuhan.web.settings import Settings

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")


@pytest.fixture
def ports(postgres_url: str) -> Iterator[list[int]]:
    processes: list[Any] = []
    ports: list[int] = []
    try:
        for _ in range(2):
            port = free_port()
            processes.append(start_server(port, postgres_url, "--max-sockets-per-address", "3"))
            ports.append(port)
        yield ports
    finally:
        for process in processes:
            stop(process)


def create(port: int) -> tuple[int, dict[str, str]]:
    """POST a new local game to the server on ``port``: the status and the headers."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/games",
        data=json.dumps({"kind": "local"}).encode(),
        headers={"content-type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers)
    except urllib.error.HTTPError as refused:
        return refused.code, {k.lower(): v for k, v in refused.headers.items()}


def test_a_create_budget_spent_on_one_process_is_spent_on_the_other(ports: list[int]) -> None:
    one, other = ports
    rate = Settings()
    started = time.monotonic()
    made = 0
    while (answer := create(one))[0] == 201:
        made += 1
        assert made <= 2 * rate.create_burst, "the first process never refused"
    assert answer[0] == 429
    while (answer := create(other))[0] == 201:
        made += 1
        assert made <= 2 * rate.create_burst, "the second process never refused"
    assert answer[0] == 429 and int(answer[1]["retry-after"]) >= 1
    # One budget: the burst, and what refilled while the test ran (a slow machine only
    # allows more). Each process alone would have given its own burst.
    refilled = (time.monotonic() - started) / rate.create_every_seconds
    assert made <= rate.create_burst + refilled + 1
