"""The lobby against a hostile user (issue 28, items 8 and 9), on both stores: a few
addresses cannot fill it (30 addresses filled all 300 seek slots), one account cannot be
sent challenges without bound (120 reached one account at once), and a lobby socket
checks rating ranges against the rating its player has now, not the one it read at hello
(a 1993 player accepted a 1400-1600 seek). Every client comes from an address of its own
through the server's trusted proxy (``X-Forwarded-For``) unless a test says otherwise."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_accounts import CHEAP
from test_farming import farm, signed_up
from test_lobby import LobbyClient, _seek
from web_helpers import QUIET_LOBBY, MakeClient

from chuhan.web.accounts.glicko2 import Glicko, rate
from chuhan.web.lobby.repository import SeekLimits, SeekRefused, SeekRepository


class AddressedLobby(LobbyClient):
    """A lobby websocket from ``address`` (signed in by ``cookie``, or anonymous)."""

    def __init__(self, client: TestClient, address: str, cookie: str | None = None) -> None:
        headers = {"x-forwarded-for": address}
        if cookie:
            headers["cookie"] = f"chuhan_session={cookie}"
        self._context = client.websocket_connect("/ws/lobby", headers=headers)
        self.ws = self._context.__enter__()
        self.seq = 0
        self.seeks = []
        self.seen = []
        self.closed = False

    def answer(self, seq: int) -> dict[str, Any]:
        """The ``ack`` or ``error`` of message ``seq``."""
        while True:
            message = self.receive()
            if message["type"] in ("ack", "error") and message.get("seq") == seq:
                return message


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client(trust_proxy=True, **CHEAP)


@pytest.fixture
def lobby(client: TestClient) -> Iterator[Callable[..., AddressedLobby]]:
    """``lobby(address, cookie=None)``: a lobby connection that has said hello."""
    opened: list[AddressedLobby] = []

    def connect(address: str, cookie: str | None = None) -> AddressedLobby:
        member = AddressedLobby(client, address, cookie)
        opened.append(member)
        member.hello(**({} if cookie else {"visitor": secrets.token_urlsafe(24)}))
        return member

    yield connect
    for member in opened:
        member.close()


def try_seek(member: AddressedLobby, **fields: Any) -> dict[str, Any]:
    fields.setdefault("variant", "xiangqi")
    return member.answer(member.send("seek", **fields))


# ---------------------------------------------------------------------------- filling


def test_thirty_addresses_cannot_fill_the_lobby(client: TestClient, lobby: Any) -> None:
    # The attack with the server's defaults: 30 addresses, each with four
    # anonymous browsers posting three seeks each (360 seeks asked for; the lobby holds 300).
    kept: dict[str, int] = {}
    refusals = set()
    for number in range(30):
        address = f"203.0.113.{number + 1}"
        for _ in range(4):
            member = lobby(address)
            for _ in range(3):
                answer = try_seek(member)
                if answer["type"] == "ack":
                    kept[address] = kept.get(address, 0) + 1
                else:
                    refusals.add(answer["code"])
                    assert "Traceback" not in answer["message"]
    assert max(kept.values()) == 2 and sum(kept.values()) == 60  # two anonymous per address
    assert refusals == {"too_many_seeks"}
    # A real player, anonymous or signed in, still posts, and quick pairing still waits.
    player = lobby("192.0.2.50")
    assert try_seek(player)["type"] == "ack"
    quick = player.answer(player.send("quick", variant="janggi", time_control="10+5"))
    assert quick["type"] == "ack" and quick["seek"] is not None
    signed_in = lobby("192.0.2.51", signed_up(client, "RealOne", "192.0.2.51"))
    assert try_seek(signed_in, rated=True)["type"] == "ack"


def test_the_anonymous_share_fills_first_and_a_signed_in_player_still_finds_room(
    make_client: MakeClient,
) -> None:
    # A lobby of 12 seeks, 6 of them for anonymous players (the defaults are 300 and 100).
    client = make_client(trust_proxy=True, lobby_max_seeks=12, lobby_max_anonymous_seeks=6, **CHEAP)
    members = []
    for number in range(4):
        member = AddressedLobby(client, f"203.0.113.{number + 1}")
        member.hello(visitor=secrets.token_urlsafe(24))
        members.append(member)
        for _ in range(2):
            answer = try_seek(member)
            if number < 3:
                assert answer["type"] == "ack", answer
    refused = members[3].answer(members[3].send("seek", variant="xiangqi"))
    assert refused["code"] == "too_many_seeks"
    assert "not signed in is full (6 open seeks); sign in" in refused["message"]
    cookie = signed_up(client, "RealOne", "192.0.2.9")
    real = AddressedLobby(client, "192.0.2.9", cookie)
    real.hello()
    assert try_seek(real)["type"] == "ack"
    for member in [*members, real]:
        member.close()


def test_the_lobby_limits_hold_for_two_processes_posting_at_once(
    make_client: MakeClient, database: str | Path
) -> None:
    """Twenty anonymous seeks from five addresses posted at the same moment, half through
    each store (two server processes on PostgreSQL; SQLite's one writer): the share per
    address and the anonymous total hold exactly. (The seeks' owners are not in the lobby:
    its sweep, which would forget their seeks and so make room, is quiet.)"""
    from chuhan.web.db import open_store

    client = make_client(trust_proxy=True, **CHEAP, **QUIET_LOBBY)
    store = client.app.state.context.store  # type: ignore[attr-defined]
    limits = SeekLimits(3, 6, 300, 2, 7, 5)

    async def race() -> list[bool]:
        other = open_store(database) if store.shared else store
        await other.open()
        try:

            async def post(number: int) -> bool:
                seek = _seek(f"s{number}", f"v:{number}", address=f"198.51.100.{number % 5}")
                try:
                    await SeekRepository((store, other)[number % 2]).add_seek(seek, limits)
                except SeekRefused:
                    return False
                return True

            return list(await asyncio.gather(*(post(n) for n in range(20))))
        finally:
            if other is not store:
                await other.close()

    kept = client.portal.call(race)  # type: ignore[union-attr]
    assert sum(kept) == 7  # the anonymous total (two per address would allow ten)
    per_address = [sum(kept[n] for n in range(20) if n % 5 == a) for a in range(5)]
    assert max(per_address) <= 2


# ---------------------------------------------------------------------------- challenges


def test_one_account_is_sent_a_bounded_number_of_challenges(client: TestClient, lobby: Any) -> None:
    bob = lobby("192.0.2.2", signed_up(client, "Bob", "192.0.2.2"))
    challengers = [
        lobby(f"203.0.113.{n + 1}", signed_up(client, f"Rival{n}", f"203.0.113.{n + 1}"))
        for n in range(7)
    ]
    answers = [c.answer(c.send("challenge", to="Bob", variant="xiangqi")) for c in challengers]
    assert [a["type"] for a in answers] == ["ack"] * 5 + ["error"] * 2
    assert answers[5]["code"] == "too_many_challenges"
    assert "Bob already has 5 challenges waiting" in answers[5]["message"]
    # One at a time from a player, and from an address.
    again = challengers[0].answer(challengers[0].send("challenge", to="Bob", variant="janggi"))
    assert (
        again["code"] == "too_many_challenges"
        and "already have a challenge open to Bob" in (again["message"])
    )
    beside = lobby("203.0.113.1", signed_up(client, "Beside", "203.0.113.1"))
    assert beside.answer(beside.send("challenge", to="Bob", variant="xiangqi"))["code"] == (
        "too_many_challenges"
    )
    # Bob declines one: there is room for another.
    shown = bob.wait_seeks(lambda seeks: len(seeks) == 5)
    bob.answer(bob.send("decline", seek=shown[0]["id"]))
    late = challengers[5].answer(challengers[5].send("challenge", to="Bob", variant="xiangqi"))
    assert late["type"] == "ack"


# ---------------------------------------------------------------------------- ratings now


def test_a_rating_range_is_checked_against_the_rating_the_player_has_now(
    client: TestClient, lobby: Any
) -> None:
    ada = lobby("192.0.2.1", signed_up(client, "Ada", "192.0.2.1"))
    bob_cookie = signed_up(client, "Bob", "192.0.2.2")
    bob = lobby("192.0.2.2", bob_cookie)  # (its hello reads Bob's rating: none, 1500)
    seek = ada.answer(ada.send("seek", variant="xiangqi", rating_min=1400, rating_max=1600))
    # Bob wins a rated game elsewhere while his lobby socket stays open.
    cyd = signed_up(client, "Cyd", "192.0.2.3"), "192.0.2.3"
    settled = farm(client, (bob_cookie, "192.0.2.2"), [cyd], plies=4)
    assert settled[0]["counted"]
    now = round(rate(Glicko(), [(Glicko(), 1.0)]).rating)
    refused = bob.answer(bob.send("accept", seek=seek["seek"]))
    assert refused.get("code") == "out_of_range", refused  # (not paired)
    assert f"1400 to 1600; yours is {now}" in refused["message"]
    # What Bob posts shows the rating he has now, and quick pairing ranks him by it.
    posted = bob.answer(bob.send("seek", variant="xiangqi", rated=True))["seek"]
    shown = ada.wait_seeks(lambda seeks: posted in json.dumps(seeks))
    assert [s["rating"] for s in shown if s["id"] == posted] == [now]
    ada.answer(ada.send("quick", variant="xiangqi", rating_min=1400, rating_max=1600))
    waiting = bob.answer(bob.send("quick", variant="xiangqi"))
    assert waiting["type"] == "ack" and waiting["seek"] is not None  # (not paired with Ada)
