"""A session's end reaches its sockets on every process: two real ``chuhan serve`` processes
on one PostgreSQL database, the sockets on one, the sign-out or the new password on the
other."""

from __future__ import annotations

import contextlib
import json
import secrets
import sys
from typing import Any

import pytest
from test_account_processes import PASSWORD, call, seat, two_servers
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from chuhan.web.sockets.sessions import SESSION_ENDED

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

__all__ = ["two_servers"]  # (the fixture, used here)


def lobby(stack: contextlib.ExitStack, port: int, cookie: str) -> ClientConnection:
    ws = stack.enter_context(
        connect(
            f"ws://127.0.0.1:{port}/ws/lobby",
            additional_headers={"cookie": f"chuhan_session={cookie}"},
        )
    )
    ws.send(json.dumps({"type": "hello", "seq": 1}))
    while json.loads(ws.recv(timeout=60))["type"] != "welcome":
        pass
    return ws


def closed_for_its_session(ws: ClientConnection) -> list[dict[str, Any]]:
    """What the socket gets until the server closes it (30 s at most: a socket left open
    fails the test with TimeoutError)."""
    got = []
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            got.append(json.loads(ws.recv(timeout=60)))
    assert closed.value.rcvd is not None and closed.value.rcvd.code == SESSION_ENDED
    assert [m.get("code") for m in got if m["type"] == "error"] == ["session_ended"], got
    return got


def test_a_session_ended_on_one_process_closes_its_sockets_on_the_other(
    two_servers: tuple[int, int],
) -> None:
    one, other = two_servers
    status, _, here = call(other, "/api/account/signup", {"name": "Ada", "password": PASSWORD})
    assert status == 201 and here
    there = call(one, "/api/account/signin", {"name": "Ada", "password": PASSWORD})[2]
    assert there
    status, game, _ = call(one, "/api/games", {"kind": "friend"}, cookie=there)
    assert status == 201, game
    with contextlib.ExitStack() as stack:
        player = seat(stack, one, game["game_id"], game["token"], there)
        lobby_there = lobby(stack, one, there)
        lobby_here = lobby(stack, one, here)
        # A new password on the other process ends the session "there": its sockets on
        # this process are closed; the session "here" keeps its own.
        status, answer, _ = call(
            other,
            "/api/account/password",
            {"password": PASSWORD, "new_password": secrets.token_urlsafe(12)},
            cookie=here,
        )
        assert status == 200, answer
        closed_for_its_session(player.ws)
        closed_for_its_session(lobby_there)
        lobby_here.send(json.dumps({"type": "ping", "seq": 2}))
        while (message := json.loads(lobby_here.recv(timeout=60)))["type"] != "pong":
            assert message["type"] != "error", message
        # Signing out on the other process closes the last one.
        assert call(other, "/api/account/signout", {}, cookie=here)[0] == 200
        closed_for_its_session(lobby_here)
