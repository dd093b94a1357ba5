"""The tournament page's websocket, on both stores: a page is sent the tournament whenever
it changes (nobody asks), with its reader's part; the tournament's chat for signed-in
accounts, kept across a restart, within the flood and length limits; bad input named."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from test_accounts import CHEAP, as_, sign_up
from test_tournament_routes import a_swiss, create
from web_helpers import FakeClock, MakeClient

from chuhan.web.sockets.protocol import MAX_CHAT_CHARS


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client(**CHEAP)


class Page:
    """A tournament page's websocket: numbered messages, the last tournament seen."""

    def __init__(self, client: TestClient, tournament_id: str, cookie: str | None = None) -> None:
        self._context = client.websocket_connect(f"/ws/t/{tournament_id}", headers=as_(cookie))
        self.ws = self._context.__enter__()
        self.seq = 0
        self.tournament: dict[str, Any] = {}
        self.you: dict[str, Any] = {}
        self.lines: list[dict[str, Any]] = []

    def close(self) -> None:
        self._context.__exit__(None, None, None)

    def send(self, kind: str, **fields: Any) -> int:
        self.seq += 1
        self.ws.send_text(json.dumps({"type": kind, "seq": self.seq, **fields}))
        return self.seq

    def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = self.ws.receive_json()
        if message["type"] == "tournament":
            self.tournament, self.you = message["tournament"], message["you"]
        elif message["type"] == "chat_history":
            self.lines = list(message["lines"])
        elif message["type"] == "chat":
            self.lines.append(message["line"])
        return message

    def expect(self, kind: str) -> dict[str, Any]:
        while True:
            message = self.receive()
            if message["type"] == kind:
                return message
            if message["type"] == "error":
                raise AssertionError(f"expected {kind}, got error {message}")

    def error(self) -> dict[str, Any]:
        while True:
            message = self.receive()
            if message["type"] == "error":
                return message

    def hello(self) -> dict[str, Any]:
        self.send("hello")
        welcome = self.expect("welcome")
        self.expect("tournament")
        self.expect("chat_history")
        return welcome

    def wait(self, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        while not predicate(self.tournament):
            self.expect("tournament")
        return self.tournament


def test_a_page_is_sent_the_tournament_when_it_changes_with_its_readers_part(
    client: TestClient, clock: FakeClock
) -> None:
    director = sign_up(client, "Director")
    created = create(client, director, clock).json()["tournament"]
    tournament_id = created["id"]
    visitor = Page(client, tournament_id)
    assert visitor.hello()["you"] == {"name": None}
    assert visitor.tournament["players"] == 0 and visitor.lines == []
    assert visitor.you == {"director": False, "entrant": None}
    mine = Page(client, tournament_id, director)
    assert mine.hello()["you"] == {"name": "Director"}
    assert mine.you == {"director": True, "entrant": None}
    # Joins by HTTP reach both pages by themselves, each with its own part.
    joined = client.post(f"/api/tournaments/{tournament_id}/join", json={}, headers=as_(director))
    assert joined.status_code == 200, joined.text
    entrant = sign_up(client, "Entrant")
    client.post(f"/api/tournaments/{tournament_id}/join", json={}, headers=as_(entrant))
    for page in (visitor, mine):
        shown = page.wait(lambda tournament: tournament["players"] == 2)
        assert [line["name"] for line in shown["entrants"]] == ["Director", "Entrant"]
    assert mine.you == {"director": True, "entrant": "Director"}
    assert visitor.you == {"director": False, "entrant": None}
    # The pairing, too: the page shows round 1's boards without asking.
    paired = client.post(f"/api/tournaments/{tournament_id}/pair", json={}, headers=as_(director))
    assert paired.status_code == 200, paired.text
    shown = visitor.wait(lambda tournament: len(tournament["paired"]) == 1)
    assert (
        shown["status"] == "running"
        and shown["revision"] == paired.json()["tournament"]["revision"]
    )
    visitor.close()
    mine.close()


def test_the_chat_is_for_accounts_within_its_limits_and_kept(
    make_client: MakeClient, client: TestClient, clock: FakeClock
) -> None:
    tournament_id, cookies = a_swiss(client, clock, players=2)
    player = Page(client, tournament_id, cookies[1])
    player.hello()
    visitor = Page(client, tournament_id)
    visitor.hello()
    seq = player.send("chat", text="  good luck, everyone  ")
    ack = player.expect("ack")
    assert ack["seq"] == seq
    for page in (player, visitor):
        while not page.lines:
            page.expect("chat")
        assert [(line["name"], line["text"]) for line in page.lines] == [
            ("Player1", "good luck, everyone")
        ]
    visitor.send("chat", text="hello?")
    refused = visitor.error()
    assert refused["code"] == "not_signed_in" and "sign in to chat" in refused["message"]
    player.send("chat", text="x" * (MAX_CHAT_CHARS + 1))
    too_long = player.error()
    assert (
        too_long["code"] == "chat_too_long"
        and f"this one has {MAX_CHAT_CHARS + 1}" in (too_long["message"])
    )
    player.send("chat", text="\u200b \u0007")
    assert "'text' is empty" in player.error()["message"]
    # The flood limit: the burst (5 by default, one line already sent), then a refusal.
    for number in range(4):
        player.send("chat", text=f"line {number}")
        player.expect("ack")
    player.send("chat", text="one too many")
    flood = player.error()
    assert flood["code"] == "chat_flood" and "wait" in flood["message"]
    clock.advance(2.0)  # (the budget grows back with the server's clock)
    player.send("chat", text="later")
    player.expect("ack")
    player.close()
    visitor.close()
    # Kept: a page after a restart is sent the last lines, oldest first.
    restarted = make_client(**CHEAP)
    again = Page(restarted, tournament_id)
    again.hello()
    assert [line["text"] for line in again.lines] == [
        "good luck, everyone",
        "line 0",
        "line 1",
        "line 2",
        "line 3",
        "later",
    ]
    again.close()


def test_a_page_of_no_tournament_and_bad_messages_are_named(client: TestClient) -> None:
    nowhere = Page(client, "no-such-one")
    nowhere.send("hello")
    refused = nowhere.error()
    assert refused["code"] == "no_such_tournament" and "'no-such-one'" in refused["message"]
    with pytest.raises(WebSocketDisconnect) as closed:
        nowhere.receive()
    assert closed.value.code == 4404
    nowhere.close()
    director = sign_up(client, "Director")
    tournament_id = create(client, director, FakeClock()).json()["tournament"]["id"]
    page = Page(client, tournament_id, director)
    page.send("chat", text="too early")
    assert page.error()["code"] == "hello_first"
    page.ws.send_text("{not json")
    assert page.error()["code"] == "bad_json"
    page.send("move", uci="h2e2")
    unknown = page.error()
    assert unknown["code"] == "unknown_type" and "'move'" in unknown["message"]
    page.hello()
    page.send("hello")
    assert page.error()["code"] == "not_allowed"
    page.close()


def test_a_page_is_sent_one_reading_per_interval_with_every_change_made_meanwhile(
    make_client: MakeClient, clock: FakeClock
) -> None:
    """A tournament is read for its pages at most once per ``tournament_page_seconds``
    (the server's clock): a change within it is not sent at once; the next reading, when
    the time is up, has it and every change since."""
    client = make_client(**CHEAP, tournament_page_seconds=60.0)
    director = sign_up(client, "Director")
    tournament_id = create(client, director, clock).json()["tournament"]["id"]
    page = Page(client, tournament_id)
    page.hello()
    live = client.app.state.context.tournaments.live  # type: ignore[attr-defined]
    before = live.readings
    cookies = [sign_up(client, f"Player{n}") for n in range(4)]

    def join(cookie: str) -> None:
        joined = client.post(f"/api/tournaments/{tournament_id}/join", json={}, headers=as_(cookie))
        assert joined.status_code == 200, joined.text

    try:
        join(cookies[0])  # (the first change since the page came is read at once)
        assert page.expect("tournament")["tournament"]["players"] == 1
        join(cookies[1])
        join(cookies[2])
        # Within the minute: no reading is sent (the pong comes first, the socket's frames in
        # order), and none was taken.
        seq = page.send("ping")
        assert page.receive() == {"type": "pong", "seq": seq, "server_time_ms": page_ms(clock)}
        assert live.readings == before + 1
        clock.advance(60.0)
        join(cookies[3])  # (the minute is up: this change is read at once, with the two before)
        shown = page.expect("tournament")["tournament"]
        assert shown["players"] == 4
        assert [entrant["name"] for entrant in shown["entrants"]] == [
            "Player0",
            "Player1",
            "Player2",
            "Player3",
        ]
        assert live.readings == before + 2
    finally:  # (a socket left open holds the app's shutdown)
        page.close()


def page_ms(clock: FakeClock) -> int:
    return round(clock() * 1000)


def test_a_players_page_is_told_of_their_game_at_once_and_only_theirs(
    make_client: MakeClient, clock: FakeClock
) -> None:
    """The game made for a board is told to its two players' pages as it is made, not at
    the tournament's next reading (here an hour away); a visitor's page is not told."""
    client = make_client(**CHEAP, tournament_page_seconds=3600.0)
    tournament_id, cookies = a_swiss(client, clock, players=2)
    pages = [Page(client, tournament_id, cookie) for cookie in cookies]
    visitor = Page(client, tournament_id)
    try:
        for page in (*pages, visitor):
            page.hello()
        paired = client.post(
            f"/api/tournaments/{tournament_id}/pair", json={}, headers=as_(cookies[0])
        )
        assert paired.status_code == 200, paired.text
        (board,) = paired.json()["tournament"]["paired"][0]
        assert board["game"]
        for page in pages:
            assert page.expect("your_game") == {"type": "your_game", "game": board["game"]}
        visitor.send("ping")
        seen = [visitor.receive()["type"]]
        while seen[-1] != "pong":
            seen.append(visitor.receive()["type"])
        assert "your_game" not in seen
        seat = client.post(
            f"/api/tournaments/{tournament_id}/game", json={}, headers=as_(cookies[1])
        )
        assert seat.json()["game"]["game_id"] == board["game"]
    finally:
        for page in (*pages, visitor):
            page.close()
