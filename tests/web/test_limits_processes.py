"""The per-address limits across real server processes on one PostgreSQL database: an
address has one budget of new games whatever process answers, and one count of open
websockets (no sticky sessions needed)."""

from __future__ import annotations

import contextlib
import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from process_helpers import Client, create_game, start_server, stop
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

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
        with urllib.request.urlopen(request, timeout=60) as response:
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


def _refusal(url: str) -> tuple[dict[str, Any], int | None]:
    """The error a websocket at ``url`` is refused with, and its close code."""
    with connect(url) as ws:
        # The server may refuse before the hello arrives (it counts the socket as it
        # opens): the refusal is read whether the hello was sent or not.
        with contextlib.suppress(ConnectionClosed):
            ws.send(json.dumps({"type": "hello", "seq": 1, "token": None, "protocol": 2}))
        while True:
            message: dict[str, Any] = json.loads(ws.recv(timeout=60))
            if message["type"] == "error":
                break
        with contextlib.suppress(ConnectionClosed):
            ws.recv(timeout=60)
        return message, ws.close_code


def _analysis(stack: contextlib.ExitStack, port: int) -> ClientConnection:
    """An analysis board on the server on ``port``, once it is welcomed."""
    ws: ClientConnection = stack.enter_context(connect(f"ws://127.0.0.1:{port}/ws/analysis"))
    ws.send(json.dumps({"type": "hello", "seq": 1}))
    message = json.loads(ws.recv(timeout=60))
    assert message["type"] == "welcome", message
    return ws


def test_the_sockets_of_an_address_are_counted_over_both_processes(ports: list[int]) -> None:
    one, other = ports
    game_id = create_game(one, kind="friend")["game_id"]
    with contextlib.ExitStack() as stack:
        first = contextlib.ExitStack()
        Client(first, one, game_id, None)
        Client(stack, one, game_id, None)
        Client(stack, other, game_id, None)  # the cap of 3, on two processes
        error, code = _refusal(f"ws://127.0.0.1:{other}/ws/{game_id}")
        assert error["code"] == "too_many_sockets" and "3 connections" in error["message"]
        assert code == 4429
        first.close()  # a place is free again, once the first process has seen it close
        deadline = time.monotonic() + 60
        while True:
            try:
                Client(stack, other, game_id, None)
                break
            except (AssertionError, ConnectionClosed) as refused:  # (not given back yet)
                # (refused with an error frame, or closed with 4429 before the hello went)
                if isinstance(refused, ConnectionClosed):
                    assert refused.rcvd is not None and refused.rcvd.code == 4429, refused
                else:
                    assert "too_many_sockets" in str(refused)
                assert time.monotonic() < deadline, "the closed socket was never given back"
                time.sleep(0.05)


def test_the_analysis_boards_of_an_address_are_counted_over_both_processes(
    postgres_url: str,
) -> None:
    processes = []
    try:
        for _ in range(2):
            port = free_port()
            processes.append((port, start_server(port, postgres_url)))
        (one, _), (other, _) = processes
        most = Settings().analysis_sockets_per_address
        with contextlib.ExitStack() as stack:
            for number in range(most):
                _analysis(stack, one if number % 2 else other)
            error, code = _refusal(f"ws://127.0.0.1:{one}/ws/analysis")
            assert error["code"] == "too_many_analyses" and code == 4429
            assert f"{most} analysis boards" in error["message"]
    finally:
        for _, process in processes:
            stop(process)
