"""Aborting a game before it starts: a player who has not moved yet may call the game off
(no one wins, nothing is rated); a player who has moved may, once the opponent has let
the time for a first move pass; once both have moved, the game is played or resigned."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient
from web_helpers import FakeClock, expect_error, join_friend_game

FIRST_MOVE = 30.0  # Settings.first_move_seconds by default


@pytest.mark.parametrize("plies", [0, 1])
def test_the_player_who_has_not_moved_may_abort(client: TestClient, plies: int) -> None:
    _game, red, black = join_friend_game(client, time_control="10+5")
    if plies:
        red.move("h2e2")
        assert black.wait_state(lambda s: s["ply"] == 1)["abortable"] == ["second"]
    over = black.do("abort")
    result = over["result"]
    assert over["status"] == "over"
    assert (result["winner"], result["termination"], result["result"]) == (
        None,
        "aborted",
        "*",
    )
    assert result["reason"] == "Game aborted by Black."
    assert red.wait_state(lambda s: s["status"] == "over")["result"] == result


def test_either_player_may_abort_before_the_first_move(client: TestClient) -> None:
    _game, red, _black = join_friend_game(client)
    assert red.do("abort")["result"]["reason"] == "Game aborted by Red."


def test_a_player_who_has_moved_may_not_abort_before_the_opponents_time_is_up(
    client: TestClient, clock: FakeClock
) -> None:
    _game, red, _black = join_friend_game(client, time_control="10+5")
    moved = red.move("h2e2")
    assert moved["abortable"] == ["second"]
    assert moved["first_move_deadline_ms"] == round((clock() + FIRST_MOVE) * 1000)
    clock.advance(FIRST_MOVE - 10)
    red.act("abort")
    error = expect_error(red, "not_allowed")
    assert "Black has 10 s left to make a first move" in error["message"]


def test_a_player_may_abort_once_the_opponent_let_the_first_move_time_pass(
    client: TestClient, clock: FakeClock
) -> None:
    _game, red, black = join_friend_game(client)
    red.move("h2e2")
    clock.advance(FIRST_MOVE)
    result = red.do("abort")["result"]
    assert (result["winner"], result["termination"]) == (None, "aborted")
    assert result["reason"] == "Game aborted: Black did not make a first move in time."
    black.wait_state(lambda s: s["status"] == "over")


def test_a_game_both_players_have_moved_in_cannot_be_aborted(
    client: TestClient, clock: FakeClock
) -> None:
    _game, red, black = join_friend_game(client)
    red.move("h2e2")
    black.wait_state(lambda s: s["ply"] == 1)
    state = black.move("h9g7")
    red.wait_state(lambda s: s["ply"] == 2)
    assert (state["abortable"], state["first_move_deadline_ms"]) == ([], None)
    clock.advance(FIRST_MOVE * 10)
    for player in (red, black):
        player.act("abort")
        error = expect_error(player, "not_allowed")
        assert "only before each side's first move" in error["message"]
