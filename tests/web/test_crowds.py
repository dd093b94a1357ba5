"""Many connections on one game and one address: states travel as changes, presence as
small coalesced updates, a slow reader skips to the newest state instead of being
thrown out, and the caps on watchers, sockets, silent sockets and game creation hold
with a clear message."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from web_helpers import (
    FakeClock,
    MakeClient,
    Player,
    create_game,
    expect_error,
    join_friend_game,
    wait_held,
)

from chuhan.web.bus import GameFinished, StateChanged
from chuhan.web.db.sqlite import SqliteStore
from chuhan.web.sockets.connection import PRESENCE, STATE, Connection
from chuhan.web.sockets.protocol import TokenBucket


def _states(player: Player) -> list[dict[str, Any]]:
    return [m for m in player.seen if m["type"] == "state"]


def _raw_state(player: Player) -> dict[str, Any]:
    """The next state as it came over the wire (not completed by the helper)."""
    while True:
        message: dict[str, Any] = player.ws.receive_json()
        if message["type"] == "state":
            return message


def test_a_state_carries_only_the_moves_the_client_does_not_have(client: TestClient) -> None:
    game = create_game(client, kind="local")
    hands = Player(client, game["game_id"], game["token"])
    hands.send("hello", token=game["token"], protocol=2)
    hands.expect("welcome")
    first = _raw_state(hands)
    assert first["moves_from"] == 0 and first["moves"] == []
    version = first["version"]
    for ply, move in enumerate(["h2e2", "h9g7", "h0g2"]):
        hands.send("move", version=version, **{"from": move[:2], "to": move[2:]})
        state = _raw_state(hands)
        assert state["moves_from"] == ply and [e["iccs"] for e in state["moves"]] == [move]
        version = state["version"]
    # A newcomer asking for changes gets the whole list first, then changes.
    watcher = Player(client, game["game_id"], None)
    watcher.send("hello", token=None, protocol=2)
    state = _raw_state(watcher)
    assert state["moves_from"] == 0 and len(state["moves"]) == 3
    hands.send("move", version=version, **{"from": "i9", "to": "h9"})
    state = _raw_state(watcher)
    assert state["moves_from"] == 3 and [e["iccs"] for e in state["moves"]] == ["i9h9"]


def test_a_takeback_resends_the_moves_that_changed(client: TestClient) -> None:
    _, red, black = join_friend_game(client)
    red.move("h2e2")
    black.wait_state(lambda s: s["ply"] == 1)
    black.move("h9g7")
    red.wait_state(lambda s: s["ply"] == 2)
    black.do("takeback_request")
    red.wait_state(lambda s: s["offers"]["takeback"] == "second")
    red.do("takeback_accept")
    black.wait_state(lambda s: s["ply"] == 1)
    black.move("b9c7")
    red.wait_state(lambda s: s["ply"] == 2)
    for player in (red, black):  # the lists the helper rebuilt from the changes are right
        assert [m["iccs"] for m in player.state["moves"]] == ["h2e2", "b9c7"]


def test_a_client_that_does_not_ask_for_changes_gets_whole_lists(client: TestClient) -> None:
    game = create_game(client, kind="local")
    hands = Player(client, game["game_id"], game["token"])
    hands.send("hello", token=game["token"])  # protocol 1: the whole list every time
    version = _raw_state(hands)["version"]
    for move in ("h2e2", "h9g7"):
        hands.send("move", version=version, **{"from": move[:2], "to": move[2:]})
        state = _raw_state(hands)
        assert state["moves_from"] == 0
        version = state["version"]
    assert [m["iccs"] for m in state["moves"]] == ["h2e2", "h9g7"]


def test_arrivals_travel_as_presence_not_as_states(client: TestClient) -> None:
    _, red, _ = join_friend_game(client)
    version = red.state["version"]
    count_before = len(_states(red))
    watchers = [Player(client, red.state["game_id"], None) for _ in range(5)]
    for watcher in watchers:
        watcher.hello()
    red.wait_state(lambda s: s["watchers"] == 5)
    assert len(_states(red)) == count_before  # no state re-sent to the players
    presence = [m for m in red.seen if m["type"] == "presence"]
    assert presence and presence[-1] == {
        "type": "presence",
        "players": {"first": {"connected": True}, "second": {"connected": True}},
        "watchers": 5,
    }
    assert len(presence) < 5  # gathered, not one per arrival
    assert red.state["version"] == version
    for watcher in watchers:
        watcher.close()
    red.wait_state(lambda s: s["watchers"] == 0)


def test_watchers_beyond_the_cap_are_refused_players_are_not(make_client: MakeClient) -> None:
    client = make_client(max_watchers_per_game=2)
    game = create_game(client, kind="friend")
    admitted = [Player(client, game["game_id"], None) for _ in range(2)]
    for watcher in admitted:
        watcher.hello()
    late = Player(client, game["game_id"], None)
    late.send("hello", token=None)
    error = expect_error(late, "too_many_watchers")
    assert "2 watchers" in error["message"]
    assert late.closed_code() == 4429
    late.close()
    red = Player(client, game["game_id"], game["token"])
    assert red.hello()["role"] == "first"


def test_sockets_beyond_the_cap_of_an_address_are_refused(make_client: MakeClient) -> None:
    client = make_client(max_sockets_per_address=3)
    game = create_game(client, kind="friend")
    open_ones = [Player(client, game["game_id"], None) for _ in range(3)]
    for each in open_ones:
        each.hello()
    extra = Player(client, game["game_id"], game["token"])
    error = expect_error(extra, "too_many_sockets")
    assert "3 connections" in error["message"]
    assert extra.closed_code() == 4429
    extra.close()
    open_ones[0].close()  # a place is free again, once the server has seen it close
    wait_held(client, "sockets address testclient", 2)
    again = Player(client, game["game_id"], game["token"])
    assert again.hello()["role"] == "first"


def test_a_socket_that_never_says_hello_is_closed(make_client: MakeClient) -> None:
    client = make_client(hello_timeout=0.2)
    game = create_game(client, kind="friend")
    silent = Player(client, game["game_id"], None)
    expect_error(silent, "hello_timeout")
    assert silent.closed_code() == 4408
    silent.close()


@pytest.mark.parametrize("path", ["/ws/lobby", "/ws/analysis"])
def test_a_lobby_or_analysis_socket_that_never_says_hello_is_closed(
    make_client: MakeClient, path: str
) -> None:
    client = make_client(hello_timeout=0.2)
    with client.websocket_connect(path) as ws:
        said = ws.receive_json()
        assert said["type"] == "error" and said["code"] == "hello_timeout", said
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4408


def test_creating_games_is_rate_limited_per_address(make_client: MakeClient) -> None:
    client = make_client(create_burst=2, create_every_seconds=60)
    for _ in range(2):
        assert client.post("/api/games", json={"kind": "local"}).status_code == 201
    refused = client.post("/api/games", json={"kind": "local"})
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert "too many new games" in refused.json()["error"]["message"]
    assert int(refused.headers["retry-after"]) >= 1
    # The forwarded address is not believed unless the server is told to trust its proxy.
    spoofed = client.post(
        "/api/games", json={"kind": "local"}, headers={"x-forwarded-for": "198.51.100.7"}
    )
    assert spoofed.status_code == 429


def test_a_spent_budget_comes_back_by_the_servers_clock(
    make_client: MakeClient, clock: FakeClock
) -> None:
    client = make_client(create_burst=2, create_every_seconds=60)
    for _ in range(2):
        assert client.post("/api/games", json={"kind": "local"}).status_code == 201
    refused = client.post("/api/games", json={"kind": "local"})
    assert refused.status_code == 429 and refused.headers["retry-after"] == "60"
    clock.advance(45)
    refused = client.post("/api/games", json={"kind": "local"})
    assert refused.status_code == 429 and refused.headers["retry-after"] == "15"
    clock.advance(15)
    assert client.post("/api/games", json={"kind": "local"}).status_code == 201


def test_a_spent_budget_stays_spent_when_the_server_restarts(make_client: MakeClient) -> None:
    client = make_client(create_burst=1, create_every_seconds=60)
    assert client.post("/api/games", json={"kind": "local"}).status_code == 201
    client = make_client(create_burst=1, create_every_seconds=60)  # (the same database)
    assert client.post("/api/games", json={"kind": "local"}).status_code == 429


def test_behind_a_trusted_proxy_each_forwarded_address_has_its_own_budget(
    make_client: MakeClient,
) -> None:
    client = make_client(create_burst=1, create_every_seconds=60, trust_proxy=True)

    def create(address: str) -> int:
        headers = {"x-forwarded-for": f"203.0.113.9, {address}"}
        return client.post("/api/games", json={"kind": "local"}, headers=headers).status_code

    assert create("198.51.100.1") == 201
    assert create("198.51.100.1") == 429
    assert create("198.51.100.2") == 201


def test_imports_are_rate_limited_per_address(make_client: MakeClient) -> None:
    client = make_client(import_burst=1, import_every_seconds=60)
    pgn = b'[Event "x"]\n\n1. h2e2 h9g7 *\n'
    assert client.post("/api/import", content=pgn).status_code == 201
    refused = client.post("/api/import", content=pgn)
    assert refused.status_code == 429 and "too many imports" in refused.text


def test_the_end_of_a_game_is_published_once(client: TestClient) -> None:
    changes: list[StateChanged] = []
    endings: list[GameFinished] = []
    bus = client.app.state.context.bus  # type: ignore[attr-defined]
    bus.subscribe(StateChanged, changes.append)
    bus.subscribe(GameFinished, endings.append)
    _, red, black = join_friend_game(client)
    red.move("h2e2")
    black.wait_state(lambda s: s["ply"] == 1)
    black.do("resign")
    red.wait_state(lambda s: s["status"] == "over")
    assert [c.kind for c in changes] == ["move", "resign"]
    assert len(endings) == 1 and endings[0].result["result"] == "1-0"
    assert endings[0].kind == "friend" and endings[0].variant == "xiangqi:asian"


# ---------------------------------------------------------------------- the outbox


def _connection() -> Connection:
    return Connection(TokenBucket(40, 20), TokenBucket(20, 1))


def _drain(conn: Connection, rendered: list[str]) -> list[str]:
    """Run the writer's loop until the outbox is empty; markers render as their name and
    a counter, so the test sees which rendering was sent."""

    async def run() -> list[str]:
        sent: list[str] = []

        def render(marker: str) -> str:
            rendered.append(marker)
            return f"{marker}#{len(rendered)}"

        conn.close()
        async for text in conn.frames(render):
            sent.append(text)
        return sent

    return asyncio.run(run())


def test_a_slow_reader_gets_the_newest_state_not_a_backlog() -> None:
    conn = _connection()
    for _ in range(10_000):  # ten thousand changes while the client read nothing
        conn.mark(STATE)
    conn.mark(PRESENCE)
    assert not conn.closing and not conn.overflowed
    rendered: list[str] = []
    assert _drain(conn, rendered) == ["state#1", "presence#2"]


def test_an_ack_is_always_followed_by_a_state_at_least_as_new() -> None:
    conn = _connection()
    conn.mark(STATE)
    conn.send({"type": "ack", "seq": 1})
    conn.mark(STATE)  # moves behind the ack instead of staying in front of it
    rendered: list[str] = []
    sent = _drain(conn, rendered)
    assert [json.loads(t)["type"] if t.startswith("{") else t for t in sent] == ["ack", "state#1"]


def test_chat_is_dropped_before_anyone_is_closed_and_a_client_that_never_reads_is() -> None:
    conn = _connection()
    for n in range(Connection.MAX_QUEUE + 50):
        conn.send({"type": "chat", "text": str(n)}, droppable=True)
    assert not conn.closing  # chat beyond the cap is dropped
    for n in range(Connection.MAX_QUEUE):
        conn.send({"type": "ack", "seq": n})
    assert not conn.closing  # the chat made room for the acks
    conn.send({"type": "ack", "seq": 10_000})
    assert conn.closing and conn.close_code == 1008 and conn.overflowed


@pytest.mark.parametrize("count", [3])
def test_a_watcher_that_disconnects_does_not_disturb_the_game(
    client: TestClient, count: int
) -> None:
    _, red, black = join_friend_game(client)
    crowd = [Player(client, red.state["game_id"], None) for _ in range(count)]
    for watcher in crowd:
        watcher.hello()
        watcher.close()
    assert red.move("h2e2")["ply"] == 1
    black.wait_state(lambda s: s["ply"] == 1 and s["watchers"] == 0)


@pytest.mark.sqlite_only  # (it slows the SQLite store's chat reads down)
def test_a_crowd_saying_hello_together_cannot_pass_the_watcher_cap(
    make_client: MakeClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    reading = SqliteStore.chat_history

    async def slow_read(self: SqliteStore, game_id: str, limit: int = 50) -> Any:
        await asyncio.sleep(0.3)  # the first arrival holds the room while the others come
        return await reading(self, game_id, limit)

    monkeypatch.setattr(SqliteStore, "chat_history", slow_read)
    client = make_client(max_watchers_per_game=2)
    game = create_game(client, kind="friend")
    crowd = [Player(client, game["game_id"], None) for _ in range(8)]
    for watcher in crowd:  # every hello is sent before any answer is read
        watcher.send("hello", token=None, protocol=2)
    answers = [watcher.ws.receive_json() for watcher in crowd]
    welcomed = [a for a in answers if a["type"] == "welcome"]
    refused = [a for a in answers if a.get("code") == "too_many_watchers"]
    assert len(welcomed) == 2 and len(refused) == 6
