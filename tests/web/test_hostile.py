"""Everything a hostile or broken client can send: each gets an error (and, for game
actions, the current state), never a traceback, and the game is unharmed."""

from __future__ import annotations

import json
import time

from starlette.testclient import TestClient
from web_helpers import MakeClient, Player, create_game, expect_error, join_friend_game, token_of


def test_malformed_messages_get_errors_and_the_connection_stays(client: TestClient) -> None:
    _, red, _ = join_friend_game(client)
    for text, code in [
        ("{nope", "bad_json"),
        ("[1,2,3]", "not_object"),
        ('{"type": "teleport", "seq": 99}', "unknown_type"),
        ('{"type": "move", "seq": 100, "version": 1, "from": "z9", "to": "e2"}', "bad_field"),
        (json.dumps({"type": "chat", "seq": 101, "text": "x" * 5000}), "too_large"),
    ]:
        red.ws.send_text(text)
        error = expect_error(red, code)
        assert "Traceback" not in error["message"]
    red.ws.send_bytes(b"\xff\xfe binary")
    expect_error(red, "bad_json")
    red.seq = 200
    assert red.move("h2e2")["ply"] == 1  # still playing


def test_hello_first_and_only_once(client: TestClient) -> None:
    game = create_game(client, kind="friend")
    player = Player(client, game["game_id"], game["token"])
    player.send("ping")
    expect_error(player, "hello_first")
    player.hello()
    player.send("hello", token=game["token"])
    expect_error(player, "not_allowed")
    player.send("ping")
    assert player.expect("pong")["seq"] == player.seq


def test_bad_token_closes_the_socket(client: TestClient) -> None:
    game = create_game(client, kind="friend")
    other = create_game(client, kind="friend")
    for token in ("not-a-token", other["token"]):  # unknown, or another game's
        player = Player(client, game["game_id"], token)
        player.send("hello", token=token)
        expect_error(player, "bad_token")
        assert player.closed_code() == 4401
        player.close()


def test_unknown_game_closes_the_socket(client: TestClient) -> None:
    player = Player(client, "no-such-game", None)
    expect_error(player, "no_game")
    assert player.closed_code() == 4404


def test_wrong_side_watcher_and_stale_version(client: TestClient) -> None:
    game, red, black = join_friend_game(client)
    watcher = Player(client, game["game_id"], None)
    watcher.hello()
    black.act("move", **{"from": "h9", "to": "g7"})
    expect_error(black, "not_your_turn")
    assert black.expect("state")["ply"] == 0  # the state follows a rejected action
    watcher.act("move", **{"from": "h2", "to": "e2"})
    expect_error(watcher, "watcher")
    watcher.act("resign")
    expect_error(watcher, "watcher")
    red.act("move", **{"from": "h2", "to": "h8"})
    error = expect_error(red, "illegal_move")
    assert "cannon" in error["message"]
    stale = red.state["version"]
    red.move("h2e2")
    red.act("move", version=stale, **{"from": "b0", "to": "c2"})
    expect_error(red, "stale_version")
    fresh = red.expect("state")
    assert fresh["version"] > stale and fresh["ply"] == 1


def test_a_resignation_stands_when_the_opponent_moved_as_it_was_sent(
    client: TestClient,
) -> None:
    """The player clicks Resign as the opponent's reply arrives: the resignation carries
    the version before the reply, and it stands (a draw offer with that version does not:
    what it offers depends on the position)."""
    _, red, black = join_friend_game(client)
    red.move("h2e2")
    seen = red.state["version"]
    black.wait_state(lambda s: s["ply"] == 1)
    black.move("h9g7")
    red.act("draw_offer", version=seen)
    expect_error(red, "stale_version")
    seq = red.act("resign", version=seen)
    while (message := red.receive())["type"] != "ack":
        assert message["type"] != "error", message
    assert message["seq"] == seq
    over = black.wait_state(lambda s: s["status"] == "over")
    assert over["ply"] == 2 and over["result"]["winner"] == "second", over
    assert over["result"]["termination"] == "resignation"


def test_replayed_seq(client: TestClient) -> None:
    _, red, _ = join_friend_game(client)
    red.move("h2e2")
    red.ws.send_text(
        json.dumps(
            {
                "type": "move",
                "seq": red.seq,
                "version": red.state["version"],
                "from": "b0",
                "to": "c2",
            }
        )
    )
    error = expect_error(red, "replayed_seq")
    assert error["seq"] == red.seq
    assert red.expect("state")["ply"] == 1  # not played twice


def test_flood_is_limited_then_closed(client: TestClient) -> None:
    game, red, black = join_friend_game(client)
    for _ in range(80):
        red.send("ping")
    codes = []
    try:
        while True:
            message = red.receive()
            if message["type"] == "error":
                codes.append(message["code"])
    except Exception as closed:
        assert getattr(closed, "code", None) == 1008
    assert codes and set(codes) == {"rate_limited"}
    # The game and the other player are fine.
    black.send("ping")
    assert black.expect("pong")
    red2 = Player(client, game["game_id"], game["token"])
    red2.hello()
    assert red2.move("h2e2")["ply"] == 1


def test_a_steady_flood_is_closed_too(make_client: MakeClient) -> None:
    """Sent at 100 messages a second against a limit of 10 a second, some messages always
    get through between the dropped ones; the connection is closed all the same."""
    client = make_client(rate_limit=(5, 10))
    _, red, black = join_friend_game(client)
    for _ in range(300):
        red.send("ping")
        time.sleep(0.01)
    kinds: set[str] = set()
    closed_with = None
    try:
        while True:
            kinds.add(red.receive()["type"])
    except Exception as closed:
        closed_with = getattr(closed, "code", None)
    assert kinds == {"pong", "error"}  # some got through, some were dropped
    assert closed_with == 1008
    black.send("ping")
    assert black.expect("pong")


def test_actions_on_a_finished_game(client: TestClient) -> None:
    _, red, black = join_friend_game(client)
    red.do("resign")
    black.wait_state(lambda s: s["status"] == "over")
    for kind, fields in [
        ("move", {"from": "h9", "to": "g7"}),
        ("draw_offer", {}),
        ("takeback_request", {}),
        ("resign", {}),
    ]:
        black.act(kind, **fields)
        expect_error(black, "game_over")
    black.act("flag")
    expect_error(black, "game_over")


def test_rest_rejects_bad_input(client: TestClient) -> None:
    for body, code in [
        ({"kind": "robot"}, "bad_field"),
        ({"variant": "chess"}, "bad_field"),
        ({"variant": "janggi", "rules": "asian"}, "bad_field"),
        ({"time_control": "forever"}, "bad_field"),
        ({"level": 9}, "bad_field"),
        ({"level": "3"}, "bad_field"),
        ({"color": "green"}, "bad_field"),
        ({"name": "n" * 41}, "bad_field"),
    ]:
        response = client.post("/api/games", json=body)
        assert response.status_code == 400, body
        assert response.json()["error"]["code"] == code
    as_json = {"content-type": "application/json"}
    response = client.post("/api/games", content=b"{nope", headers=as_json)
    assert response.json()["error"]["code"] == "bad_json"
    response = client.post("/api/games", content=b"[]", headers=as_json)
    assert response.json()["error"]["code"] == "not_object"
    response = client.post("/api/games", content=b"{" + b" " * 20000 + b"}", headers=as_json)
    assert response.status_code == 413
    assert client.get("/api/games/nope").status_code == 404
    assert client.get("/api/games/nope/pgn").json()["error"]["code"] == "no_game"
    response = client.post("/api/games/mine", json={"tokens": "abc"})
    assert response.status_code == 400


def test_invite_link_opens_the_other_seat(client: TestClient) -> None:
    game = create_game(client, kind="friend", color="second")
    assert game["seat"] == "second"
    guest = Player(client, game["game_id"], token_of(game["invite_url"]))
    assert guest.hello()["role"] == "first"
