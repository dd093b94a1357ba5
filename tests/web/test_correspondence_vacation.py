"""Vacations in correspondence games, on both stores, with a fake clock of days: a player
on vacation does not lose a game whose deadline passes meanwhile, and their clock runs
again after it; ending early gives back the days not begun; the allowance is counted per
calendar year and a vacation longer than what is left is refused; the opponent sees it;
games on a clock of minutes are not touched."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient
from test_accounts import CHEAP, COOKIE, as_, sign_in, sign_up
from test_correspondence import DAY, HOUR, correspondence_game, sweep, your_games
from web_helpers import FakeClock, MakeClient, expect_error


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client(**CHEAP)


def take(client: TestClient, cookie: str, days: Any) -> Any:
    return client.post("/api/account/vacation", json={"days": days}, headers=as_(cookie))


def deadline(client: TestClient, cookie: str) -> float:
    """The deadline of the account's one game, in seconds."""
    (game,) = your_games(client, cookie)
    return float(game["deadline_ms"]) / 1000


def status(client: TestClient, game_id: str) -> str:
    return str(client.get(f"/api/games/{game_id}").json()["status"])


def test_a_deadline_that_passes_during_a_vacation_does_not_lose_the_game(
    client: TestClient, clock: FakeClock
) -> None:
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    game, red, black = correspondence_game(client, ada, bob)
    red.move("h2e2")
    black.wait_state(lambda s: s["ply"] == 1)
    clock.advance(DAY)
    taken = take(client, bob, 5)
    assert taken.status_code == 200, taken.text
    until = clock() + 5 * DAY
    assert taken.json() == {
        "year": 2027,
        "allowance": 30,
        "used": 5,
        "left": 25,
        "until_ms": round(until * 1000),
    }
    (seen,) = your_games(client, ada)
    assert seen["opponent_vacation_ms"] == round(until * 1000)
    black.wait_state(lambda s: (s["last_event"] or {}).get("kind") == "vacation")
    clock.advance(3 * DAY)  # (Bob's 3 days have passed: a day before, two during)
    sweep(client)
    black.move("h9g7")  # (the room checks the clock first: Bob still has time)
    red.wait_state(lambda s: s["ply"] == 2)
    assert status(client, game["game_id"]) == "playing"


def test_after_a_vacation_the_clock_runs_again_even_after_a_restart(
    make_client: MakeClient, clock: FakeClock
) -> None:
    client = make_client(**CHEAP)
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    game, red, black = correspondence_game(client, ada, bob)
    red.move("h2e2")
    black.wait_state(lambda s: s["ply"] == 1)
    moved = clock()
    assert deadline(client, bob) == moved + 3 * DAY
    clock.advance(DAY)
    assert take(client, bob, 2).status_code == 200
    assert deadline(client, bob) == moved + 5 * DAY  # (the 2 days on top)
    red.close()
    black.close()
    client = make_client(**CHEAP)  # (a restart: the game's log gives the same clock)
    assert deadline(client, bob) == moved + 5 * DAY
    clock.advance(4 * DAY - HOUR / 2)
    sweep(client)
    assert status(client, game["game_id"]) == "playing"
    clock.advance(HOUR)
    sweep(client)
    assert status(client, game["game_id"]) == "over"


def test_a_move_of_the_opponent_during_a_vacation_gives_the_full_days_after_it(
    client: TestClient, clock: FakeClock
) -> None:
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    _game, red, black = correspondence_game(client, ada, bob)
    assert take(client, bob, 4).status_code == 200  # (Ada is to move: Bob waits)
    until = clock() + 4 * DAY
    red.wait_state(lambda s: (s["last_event"] or {}).get("kind") == "vacation")
    clock.advance(DAY)
    red.move("h2e2")
    black.wait_state(lambda s: s["ply"] == 1)
    assert deadline(client, bob) == until + 3 * DAY


def test_a_game_begun_during_a_vacation_gets_it_at_the_next_sweep(
    client: TestClient, clock: FakeClock
) -> None:
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    assert take(client, bob, 4).status_code == 200
    until = clock() + 4 * DAY
    clock.advance(DAY)
    _game, red, black = correspondence_game(client, ada, bob)
    red.move("h2e2")
    black.wait_state(lambda s: s["ply"] == 1)
    assert deadline(client, bob) == clock() + 3 * DAY  # (the game began without it)
    clock.advance(HOUR)
    sweep(client)  # (the vacation counts from the sweep: the hour before it ran)
    assert deadline(client, bob) == until + 3 * DAY - HOUR
    (seen,) = your_games(client, ada)
    assert seen["opponent_vacation_ms"] == round(until * 1000)


def test_ending_a_vacation_early_gives_back_the_days_not_begun(
    client: TestClient, clock: FakeClock
) -> None:
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    _game, red, black = correspondence_game(client, ada, bob)
    red.move("h2e2")
    black.wait_state(lambda s: s["ply"] == 1)
    moved = clock()
    assert take(client, bob, 10).json()["left"] == 20
    clock.advance(2.5 * DAY)
    ended = client.delete("/api/account/vacation", headers=as_(bob))
    assert ended.status_code == 200, ended.text
    assert (ended.json()["used"], ended.json()["left"], ended.json()["until_ms"]) == (3, 27, None)
    assert deadline(client, bob) == moved + 3 * DAY + 2.5 * DAY
    (seen,) = your_games(client, ada)
    assert seen["opponent_vacation_ms"] is None
    again = client.delete("/api/account/vacation", headers=as_(bob))
    assert again.status_code == 409 and again.json()["error"]["message"] == (
        "you are not on vacation"
    )


def test_a_vacation_longer_than_the_days_left_this_year_is_refused(
    client: TestClient, clock: FakeClock
) -> None:
    bob = sign_up(client, "Bob")
    assert take(client, bob, 20).status_code == 200
    running = take(client, bob, 1)
    assert running.status_code == 409
    assert "you are on vacation already, until" in running.json()["error"]["message"]
    clock.advance(20 * DAY)
    refused = take(client, bob, 11)
    assert refused.status_code == 409
    assert refused.json()["error"]["message"] == (
        "a vacation of 11 days is longer than the 10 days you have left in 2027 "
        "(30 a year, 20 used)"
    )
    for bad in (0, -3):
        answer = take(client, bob, bad)
        assert answer.status_code == 409 and "at least 1" in answer.json()["error"]["message"]
    assert take(client, bob, "ten").status_code == 400
    clock.advance(365 * DAY)  # (a new calendar year: the allowance is whole again)
    bob = sign_in(client, "Bob").cookies[COOKIE]  # (the session of a year ago has ended)
    now = client.get("/api/account/vacation", headers=as_(bob)).json()
    assert (now["year"], now["used"], now["left"]) == (2028, 0, 30)


def test_the_vacation_allowance_is_a_setting(make_client: MakeClient) -> None:
    client = make_client(vacation_days_per_year=5, **CHEAP)
    bob = sign_up(client, "Bob")
    refused = take(client, bob, 6)
    assert refused.status_code == 409
    assert "the 5 days you have left" in refused.json()["error"]["message"]


def test_a_vacation_leaves_games_on_a_clock_of_minutes_alone(
    client: TestClient, clock: FakeClock
) -> None:
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    game, red, black = correspondence_game(client, ada, bob, days="10+5")
    red.move("h2e2")
    before = black.wait_state(lambda s: s["ply"] == 1)
    assert take(client, bob, 3).status_code == 200
    read = client.get(f"/api/games/{game['game_id']}").json()
    assert (read["version"], read["last_event"]["kind"]) == (before["version"], "move")
    clock.advance(2 * HOUR)  # (far past Bob's 10 minutes)
    black.act("move", **{"from": "h9", "to": "g7"})
    assert "ran out of time" in expect_error(black, "game_over")["message"]
    over = black.wait_state(lambda s: s["status"] == "over")
    assert over["last_event"]["kind"] == "flag"
