"""Challenges to players who are not online, on both stores: a signed-in player's
challenge is kept (through its sender's leaving and a server restart), shown to its
target when they come, answered later, and expires (its sender told); a real-time one
waits for its sender; the limits still hold. Time is a fake clock moved by hand."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_accounts import CHEAP, as_, sign_up
from test_lobby import LobbyClient, _seek, ids
from web_helpers import FakeClock, MakeClient

DAY = 86400.0


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client(**CHEAP)


@pytest.fixture
def lobby(client: TestClient) -> Iterator[Callable[..., LobbyClient]]:
    """``lobby(cookie)``: a signed-in lobby connection that has said hello."""
    opened: list[LobbyClient] = []

    def connect(cookie: str) -> LobbyClient:
        member = LobbyClient(client, cookie)
        opened.append(member)
        member.hello()
        return member

    yield connect
    for member in opened:
        member.close()


def challenge(member: LobbyClient, to: str, time_control: str = "10+5", **fields: Any) -> str:
    """Send a challenge; its id."""
    seq = member.send("challenge", to=to, variant="xiangqi", time_control=time_control, **fields)
    ack = member.expect("ack")
    assert ack["seq"] == seq
    return str(ack["seek"])


def sweep(client: TestClient) -> None:
    context = client.app.state.context  # type: ignore[attr-defined]
    client.portal.call(context.lobby.sweep)  # type: ignore[union-attr]


def stored(client: TestClient, seek_id: str) -> Any:
    context = client.app.state.context  # type: ignore[attr-defined]
    return client.portal.call(context.lobby.repository.seek, seek_id)  # type: ignore[union-attr]


def test_a_challenge_to_a_player_away_survives_its_sender_leaving_and_a_restart(
    make_client: MakeClient, clock: FakeClock
) -> None:
    client = make_client(**CHEAP)
    ada_cookie, bob_cookie = sign_up(client, "Ada"), sign_up(client, "Bob")
    ada = LobbyClient(client, ada_cookie)
    ada.hello()
    seek_id = challenge(ada, "Bob", "3d", rated=True)
    assert ada.wait_seeks(lambda seeks: bool(seeks))[0]["expires_ms"] == round(
        (clock() + 7 * DAY) * 1000
    )
    ada.close()
    sweep(client)
    assert stored(client, seek_id) is not None
    client = make_client(**CHEAP)  # (a restart)
    clock.advance(2 * DAY)
    bob = LobbyClient(client, bob_cookie)
    bob.hello()
    shown = bob.wait_seeks(lambda seeks: seek_id in ids(seeks))[0]
    assert shown["challenge"] == {"from": "Ada", "to": "Bob"} and shown["mine"] is False
    bob.send("accept", seek=seek_id)
    game_id = bob.expect("paired")["game_id"]
    bob.close()
    games = client.get("/api/account/games", headers=as_(ada_cookie)).json()["games"]
    assert [(g["game_id"], g["opponent"], g["days"]) for g in games] == [(game_id, "Bob", 3)]


def test_a_real_time_challenge_is_accepted_only_while_its_sender_is_in_the_lobby(
    client: TestClient, lobby: Callable[..., LobbyClient]
) -> None:
    ada_cookie, bob_cookie = sign_up(client, "Ada"), sign_up(client, "Bob")
    ada = lobby(ada_cookie)
    seek_id = challenge(ada, "Bob", "10+5")
    ada.close()
    sweep(client)
    bob = lobby(bob_cookie)
    bob.wait_seeks(lambda seeks: seek_id in ids(seeks))
    bob.send("accept", seek=seek_id)
    assert "Ada is not in the lobby now" in bob.error("sender_away")["message"]
    ada = lobby(ada_cookie)
    bob.send("accept", seek=seek_id)
    game_id = bob.expect("paired")["game_id"]
    assert ada.expect("paired")["game_id"] == game_id


def test_an_unanswered_challenge_expires_after_its_time_and_its_sender_is_told(
    client: TestClient, clock: FakeClock, lobby: Callable[..., LobbyClient]
) -> None:
    ada = lobby(sign_up(client, "Ada"))
    sign_up(client, "Bob")
    sign_up(client, "Cat")
    real_time = challenge(ada, "Bob", "10+5")
    by_days = challenge(ada, "Cat", "5d")
    clock.advance(DAY - 1)
    sweep(client)
    assert stored(client, real_time) is not None
    clock.advance(1)
    sweep(client)
    assert ada.expect("expired") == {"type": "expired", "seek": real_time, "to": "Bob"}
    assert stored(client, real_time) is None
    assert ids(ada.wait_seeks(lambda seeks: real_time not in ids(seeks))) == [by_days]
    clock.advance(6 * DAY)
    sweep(client)
    assert ada.expect("expired") == {"type": "expired", "seek": by_days, "to": "Cat"}
    assert stored(client, by_days) is None


def test_the_challenge_expiry_is_a_setting(make_client: MakeClient, clock: FakeClock) -> None:
    client = make_client(challenge_realtime_hours=1.0, **CHEAP)
    ada = LobbyClient(client, sign_up(client, "Ada"))
    ada.hello()
    sign_up(client, "Bob")
    seek_id = challenge(ada, "Bob")
    clock.advance(3600)
    sweep(client)
    assert ada.expect("expired")["seek"] == seek_id
    ada.close()


def test_a_player_not_signed_in_cannot_challenge_a_player_who_is_away(
    client: TestClient,
) -> None:
    sign_up(client, "Bob")
    anonymous = LobbyClient(client)
    anonymous.hello(visitor="a-visitor-secret-of-24-chars")
    anonymous.send("challenge", to="Bob", variant="xiangqi")
    message = anonymous.error("not_in_lobby")["message"]
    assert "Bob is not in the lobby" in message and "sign in" in message
    anonymous.close()


def test_kept_challenges_still_meet_the_limits_per_target_and_per_sender(
    make_client: MakeClient, clock: FakeClock
) -> None:
    client = make_client(lobby_challenges_per_target=2, **CHEAP)
    context = client.app.state.context  # type: ignore[attr-defined]
    sign_up(client, "Bob")
    accounts = context.accounts.repository
    bob_id = client.portal.call(accounts.account_by_name, "Bob").id  # type: ignore[union-attr]

    async def two_from_elsewhere() -> None:  # (two senders on other networks, gone since)
        for n in (1, 2):
            seek = _seek(f"kept{n}", f"a:sender{n}", account_id=f"sender{n}")
            seek = replace(seek, address=f"198.51.100.{n}", target=bob_id, target_name="Bob")
            seek = replace(seek, created=clock(), expires=clock() + DAY)
            await context.lobby.repository.add_seek(seek, context.lobby.limits)

    client.portal.call(two_from_elsewhere)  # type: ignore[union-attr]
    sweep(client)  # (their senders are in no lobby: the challenges stay, and count)
    assert stored(client, "kept1") is not None and stored(client, "kept2") is not None
    ada = LobbyClient(client, sign_up(client, "Ada"))
    ada.hello()
    try:
        ada.send("challenge", to="Bob", variant="xiangqi", time_control="3d")
        message = ada.error("too_many_challenges")["message"]
        assert "Bob already has 2 challenges waiting" in message
        ada.send("decline", seek="kept1")  # (not Ada's to decline: still two)
        ada.error("no_seek")
        context.lobby.limits = replace(context.lobby.limits, per_target=3)
        challenge(ada, "Bob", "3d")
        ada.send("challenge", to="Bob", variant="xiangqi", time_control="3d")
        message = ada.error("too_many_challenges")["message"]
        assert "already have a challenge open to Bob" in message
    finally:
        ada.close()
