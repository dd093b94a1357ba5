"""The game's chat over the websocket: the players' room and the spectators' own (neither
sees the other's), and the length and flood limits, each refused with a sentence."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient
from web_helpers import FakeClock, MakeClient, Player, expect_error, join_friend_game


def chat_texts(player: Player, count: int) -> list[str]:
    """The texts of the next ``count`` chat messages this connection gets."""
    return [player.expect("chat")["text"] for _ in range(count)]


def refusal(player: Player, text: str) -> dict[str, Any] | None:
    """Send a chat line; the error that answers it, or None if it was taken (a ``ping``
    after it bounds the wait)."""
    player.send("chat", text=text)
    player.send("ping")
    answers: list[dict[str, Any]] = []
    while not answers or answers[-1]["type"] != "pong":
        answers.append(player.receive())
    return next((m for m in answers if m["type"] == "error"), None)


def say(player: Player, text: str) -> None:
    seq = player.send("chat", text=text)
    assert player.expect("ack")["seq"] == seq


def test_spectators_talk_in_their_own_room_and_players_in_theirs(client: TestClient) -> None:
    game, red, black = join_friend_game(client, time_control="10+5")
    lin = Player(client, game["game_id"], None)
    lin.hello(name="Lin")
    kim = Player(client, game["game_id"], None)
    kim.hello()
    say(lin, "what a game")
    heard = kim.expect("chat")
    assert (heard["room"], heard["from"], heard["name"]) == ("spectators", "watcher", "Lin")
    say(red, "good luck")
    say(lin, "red is nervous")
    # The spectators' next line is theirs: the players' line never reached them.
    assert chat_texts(kim, 1) == ["red is nervous"]
    # The players see their own line and none of the spectators'.
    assert chat_texts(black, 1) == ["good luck"]
    say(black, "you too")
    assert chat_texts(red, 2) == ["good luck", "you too"]  # (its own line comes back too)


def test_newcomers_get_the_history_of_their_own_room(client: TestClient) -> None:
    game, red, _black = join_friend_game(client)
    lin = Player(client, game["game_id"], None)
    lin.hello(name="Lin")
    say(red, "hello Black")
    say(lin, "hello everyone")
    for token, expected in ((None, ["hello everyone"]), (game["token"], ["hello Black"])):
        newcomer = Player(client, game["game_id"], token)
        newcomer.send("hello", token=token, protocol=2)
        history = newcomer.expect("chat_history")["messages"]
        assert [m["text"] for m in history] == expected


def test_spectators_cannot_push_the_players_lines_out_of_the_history(
    make_client: MakeClient, clock: FakeClock
) -> None:
    client = make_client(rate_limit=(1000, 1000))
    game, red, _black = join_friend_game(client)
    say(red, "hello Black")
    crowd = Player(client, game["game_id"], None)
    crowd.hello()
    for n in range(120):
        clock.advance(2)  # (within the flood limit)
        say(crowd, f"line {n}")
    newcomer = Player(client, game["game_id"], game["token"])
    newcomer.send("hello", token=game["token"], protocol=2)
    history = newcomer.expect("chat_history")["messages"]
    assert [m["text"] for m in history] == ["hello Black"]


def test_a_line_over_300_characters_is_refused_with_a_sentence(client: TestClient) -> None:
    _game, red, _black = join_friend_game(client)
    red.send("chat", text="x" * 301)
    error = expect_error(red, "chat_too_long")
    assert "at most 300 characters" in error["message"] and "301" in error["message"]


def test_a_flooding_player_is_refused_until_the_budget_refills(
    client: TestClient, clock: FakeClock
) -> None:
    game, red, black = join_friend_game(client)
    for n in range(5):
        say(red, f"line {n}")
    error = refusal(red, "one too many")
    assert error is not None and error["code"] == "chat_flood"
    assert "too fast" in error["message"] and "wait 2 s" in error["message"]
    # Coming back on a new connection does not give a new budget: it is the seat's.
    again = Player(client, game["game_id"], game["token"])
    again.hello()
    error = refusal(again, "still me")
    assert error is not None and error["code"] == "chat_flood"
    clock.advance(2)
    say(again, "after a pause")
    assert chat_texts(black, 6)[-1] == "after a pause"
    # The other seat's budget is its own.
    say(black, "calm down")


def test_spectators_of_one_address_share_a_flood_budget(client: TestClient) -> None:
    game, _red, _black = join_friend_game(client)
    first = Player(client, game["game_id"], None)
    first.hello()
    second = Player(client, game["game_id"], None)
    second.hello()
    for n in range(5):
        say(first, f"line {n}")
    error = refusal(second, "me too")
    assert error is not None and error["code"] == "chat_flood"
