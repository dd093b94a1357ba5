"""A player who leaves a timed game: the opponent sees it at once and, after the grace
period, may claim the win or a draw; the server refuses a claim while the opponent is
here, before the grace period, in an untimed game, and once they are back."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient
from web_helpers import FakeClock, MakeClient, Player, create_game, expect_error, join_friend_game

GRACE = 30.0  # Settings.abandon_seconds by default


def left(player: Player, seat: str) -> dict[str, Any]:
    """Wait until ``player`` is told that ``seat``'s player is gone; the presence saying so."""
    while True:
        message = player.receive()
        if message["type"] == "presence" and not message["players"][seat]["connected"]:
            return message


def back(player: Player, seat: str) -> None:
    while True:
        message = player.receive()
        if message["type"] == "presence" and message["players"][seat]["connected"]:
            return


def started_game(client: TestClient, **fields: Any) -> tuple[dict[str, Any], Player, Player]:
    """A friend game with both players here and a move each (the clocks run)."""
    game, red, black = join_friend_game(client, **fields)
    red.move("h2e2")
    black.wait_state(lambda s: s["ply"] == 1)
    black.move("h9g7")
    red.wait_state(lambda s: s["ply"] == 2)
    return game, red, black


def test_the_stayer_sees_at_once_when_and_until_when_the_opponent_left(
    client: TestClient, clock: FakeClock
) -> None:
    _game, red, black = started_game(client, time_control="10+5")
    black.close()
    gone = left(red, "second")["players"]["second"]
    assert gone["left_ms"] == round(clock() * 1000)
    assert gone["claim_ms"] == round((clock() + GRACE) * 1000)


def test_a_claim_is_refused_while_the_opponent_is_here(client: TestClient) -> None:
    _game, red, _black = started_game(client, time_control="10+5")
    red.act("claim_abandoned")
    error = expect_error(red, "not_allowed")
    assert "your opponent is here" in error["message"]
    assert red.expect("state")["status"] == "playing"


def test_a_claim_is_refused_before_the_grace_period(client: TestClient, clock: FakeClock) -> None:
    _game, red, black = started_game(client, time_control="10+5")
    black.close()
    left(red, "second")
    clock.advance(GRACE - 10)
    red.act("claim_abandoned")
    error = expect_error(red, "not_allowed")
    assert "left 20 s ago" in error["message"] and "in 10 s" in error["message"]


def test_a_claim_is_refused_in_an_untimed_game(client: TestClient, clock: FakeClock) -> None:
    _game, red, black = started_game(client)
    black.close()
    left(red, "second")
    clock.advance(GRACE + 60)
    red.act("claim_abandoned")
    error = expect_error(red, "not_allowed")
    assert "only a timed game" in error["message"]


def test_a_claim_is_refused_against_the_computer(client: TestClient, clock: FakeClock) -> None:
    game = create_game(client, kind="computer", time_control="10+5", color="first")
    red = Player(client, game["game_id"], game["token"])
    red.hello()
    red.move("h2e2")
    red.wait_state(lambda s: s["ply"] == 2)
    clock.advance(GRACE + 1)
    red.act("claim_abandoned")
    assert "your opponent is here" in expect_error(red, "not_allowed")["message"]


def test_no_claim_once_the_opponent_is_back(client: TestClient, clock: FakeClock) -> None:
    game, red, black = started_game(client, time_control="10+5")
    black.close()
    left(red, "second")
    clock.advance(GRACE + 1)
    again = Player(client, game["game_id"], black.token)
    again.hello()
    back(red, "second")
    red.act("claim_abandoned")
    assert "your opponent is here" in expect_error(red, "not_allowed")["message"]


def test_the_stayer_claims_the_win_after_the_grace_period(
    make_client: MakeClient, clock: FakeClock
) -> None:
    client = make_client()
    game, red, black = started_game(client, time_control="10+5")
    watcher = Player(client, game["game_id"], None)
    watcher.hello()
    black.close()
    left(red, "second")
    clock.advance(GRACE)
    over = red.do("claim_abandoned")
    result = over["result"]
    assert (result["winner"], result["termination"]) == ("first", "abandonment")
    assert result["reason"] == "Red wins: Black left the game."
    assert watcher.wait_state(lambda s: s["status"] == "over")["result"] == result
    # The claim is an event of the game's log: a restart rebuilds the same ending.
    red.close()
    watcher.close()
    restarted = make_client()
    returning = Player(restarted, game["game_id"], black.token)
    returning.hello()
    assert returning.state["result"] == result and returning.state["last_event"]["kind"] == (
        "abandoned"
    )


def test_the_stayer_may_call_it_a_draw_instead(client: TestClient, clock: FakeClock) -> None:
    _game, red, black = started_game(client, time_control="10+5")
    red.close()
    left(black, "first")
    clock.advance(GRACE + 5)
    result = black.do("claim_abandoned", draw=True)["result"]
    assert (result["winner"], result["termination"]) == (None, "abandonment")
    assert result["reason"] == "Draw: Red left the game and Black called it a draw."
