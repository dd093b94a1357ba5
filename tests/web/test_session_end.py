"""A session's end reaches its open sockets, on both stores, as a hostile client would test
it: after a sign-out, a new password set in another browser, the account deleted, or the
session ended by the bound on an account's sessions, the game socket opened with it can no
longer move as the player and the lobby socket can no longer post as the account (each is
told ``session_ended`` and closed 4403); sockets of other sessions stay."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from test_accounts import CHEAP, PASSWORD, Seat, as_, me, rated_game, sign_in, sign_up
from test_lobby import LobbyClient
from web_helpers import FakeClock, MakeClient

from chuhan.web.sockets.sessions import SESSION_ENDED, cookie_session_key

COOKIE = "chuhan_session"


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client(**CHEAP)


def cookie_of(client: TestClient, name: str) -> str:
    """A new session of ``name`` (another browser signing in)."""
    response = sign_in(client, name)
    assert response.status_code == 200, response.text
    return str(response.cookies[COOKIE])


def refused_after(send: Any, receive: Any) -> list[dict[str, Any]]:
    """Send one message on a socket whose session has ended; the messages it gets until the
    server closes it (the message is never answered: no ``ack``, no ``pong``)."""
    send()
    got: list[dict[str, Any]] = []
    try:
        while True:
            message = receive()
            got.append(message)
            assert message["type"] not in ("ack", "pong"), f"the message was answered: {got}"
    except WebSocketDisconnect as closed:
        assert closed.code == SESSION_ENDED, (closed.code, got)
    assert [m["code"] for m in got if m["type"] == "error"] == ["session_ended"], got
    return got


def still_open(seat: Seat) -> None:
    seq = seat.send("ping")
    assert seat.expect("pong")["seq"] == seq


#: The lobby sockets a test opened (closed after it, before its server stops).
OPENED: list[LobbyClient] = []


@pytest.fixture(autouse=True)
def close_lobby_sockets(make_client: MakeClient) -> Iterator[None]:
    """(After the server starts, so closed before it stops.)"""
    yield
    while OPENED:
        with contextlib.suppress(Exception):
            OPENED.pop().close()


def lobby_member(client: TestClient, cookie: str) -> LobbyClient:
    member = LobbyClient(client, cookie)
    OPENED.append(member)
    member.hello()
    return member


def test_signing_out_stops_the_game_socket_of_a_rated_seat(client: TestClient) -> None:
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    game, red, black = rated_game(client, ada, bob)
    # Ada signs out (in this browser or another): her open socket cannot move, resign or
    # chat for her account any more.
    assert client.post("/api/account/signout", headers=as_(ada)).status_code == 200
    refused_after(lambda: red.act("move", **{"from": "h2", "to": "e2"}), red.receive)
    still_open(black)
    assert client.get(f"/api/games/{game['game_id']}").json()["ply"] == 0
    # Her cookie, replayed on a new socket, does not open the rated seat.
    again = Seat(client, game["game_id"], game["token"], ada)
    again.send("hello", token=game["token"])
    message = again.receive()
    while message["type"] != "error":
        message = again.receive()
    assert message["code"] == "account_required"
    assert again.closed_code() == 4401
    black.close()


def test_a_new_password_stops_the_sockets_of_the_other_browsers_only(client: TestClient) -> None:
    here = sign_up(client, "Ada")
    there = cookie_of(client, "Ada")
    bob = sign_up(client, "Bob")
    game, red, black = rated_game(client, there, bob)
    lobby_there, lobby_here = lobby_member(client, there), lobby_member(client, here)
    response = client.post(
        "/api/account/password",
        json={"password": PASSWORD, "new_password": "a new long password"},
        headers=as_(here),
    )
    assert response.status_code == 200, response.text
    refused_after(lambda: red.act("resign"), red.receive)
    refused_after(
        lambda: lobby_there.send("seek", variant="xiangqi", rated=True), lobby_there.receive
    )
    seq = lobby_here.send("seek", variant="xiangqi", rated=True)
    assert lobby_here.expect("ack")["seq"] == seq  # (this browser's session stays)
    still_open(black)
    assert client.get(f"/api/games/{game['game_id']}").json()["status"] == "playing"
    lobby_here.close()
    black.close()


def test_signing_out_stops_the_lobby_socket_posting_as_the_account(client: TestClient) -> None:
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    member, watcher = lobby_member(client, ada), lobby_member(client, bob)
    seek = member.post(rated=True)
    watcher.wait_seeks(lambda seeks: [s["id"] for s in seeks] == [seek])
    client.post("/api/account/signout", headers=as_(ada))
    refused_after(lambda: member.send("seek", variant="xiangqi", rated=True), member.receive)
    # Its seek went with its only connection: nobody can be handed Ada's seat any more.
    watcher.wait_seeks(lambda seeks: seeks == [])
    watcher.send("accept", seek=seek)
    assert "gone" in watcher.error("no_seek")["message"]
    watcher.close()


def test_deleting_the_account_stops_its_sockets(client: TestClient) -> None:
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    _, red, black = rated_game(client, ada, bob)
    deleted = client.post("/api/account/delete", json={"password": PASSWORD}, headers=as_(ada))
    assert deleted.status_code == 200
    refused_after(lambda: red.send("chat", text="still here?"), red.receive)
    still_open(black)
    black.close()


def test_sessions_are_bounded_per_account_and_the_oldest_ends_with_its_sockets(
    make_client: MakeClient, clock: FakeClock
) -> None:
    client = make_client(sessions_per_account=3, **CHEAP)
    first = sign_up(client, "Ada")
    member = lobby_member(client, first)
    later = []
    for _ in range(3):
        clock.advance(1)
        later.append(cookie_of(client, "Ada"))
    assert me(client, first) is None  # the oldest of four ended
    assert all(me(client, cookie)["name"] == "Ada" for cookie in later)
    refused_after(lambda: member.send("seek", variant="xiangqi", rated=True), member.receive)
    clock.advance(1)
    newest = cookie_of(client, "Ada")
    assert me(client, later[0]) is None and me(client, newest)["name"] == "Ada"


def test_a_socket_whose_session_expired_is_closed_by_the_sweep(
    make_client: MakeClient, clock: FakeClock
) -> None:
    client = make_client(session_days=1, **CHEAP)
    ada = sign_up(client, "Ada")
    bob_first = sign_up(client, "Bob")
    member, other = lobby_member(client, ada), lobby_member(client, bob_first)
    context = client.app.state.context  # type: ignore[attr-defined]
    clock.advance(3600)
    bob = cookie_of(client, "Bob")  # (a session of an hour later)
    newer = lobby_member(client, bob)
    clock.advance(86_400 - 1800)  # Ada's and Bob's first sessions have expired

    async def sweep() -> int:
        repository = context.accounts.repository
        closed: int = await context.sessions.sweep(
            lambda keys: repository.live_sessions(keys, context.now())
        )
        return closed

    assert client.portal.call(sweep) == 2  # type: ignore[union-attr]
    refused_after(lambda: member.send("ping"), member.receive)
    refused_after(lambda: other.send("ping"), other.receive)
    seq = newer.send("ping")
    assert newer.expect("pong")["seq"] == seq
    newer.close()


def test_a_session_notice_from_another_process_closes_the_sockets_here(
    client: TestClient,
) -> None:
    from chuhan.web.db import Notice

    ada = sign_up(client, "Ada")
    member = lobby_member(client, ada)
    context = client.app.state.context  # type: ignore[attr-defined]
    key = cookie_session_key(ada)

    async def hear() -> None:
        context.manager.hear(Notice("session", "", "another", {"ended": [key]}))

    client.portal.call(hear)  # type: ignore[union-attr]
    refused_after(lambda: member.send("ping"), member.receive)
    assert context.sessions.count() == 0
