"""Correspondence games over HTTP and the game websocket, on both stores, with a fake clock
of days: two accounts play a rated game of 3 days per move, rated in its own category; the
deadline sweep ends it once the side to move lets its days pass; "your games" lists the
games where it is the account's move first."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient
from test_accounts import CHEAP, Seat, as_, me, sign_up, wait_settled
from web_helpers import FakeClock, MakeClient, expect_error, token_of

DAY = 86400.0
HOUR = 3600.0


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client(**CHEAP)


def correspondence_game(
    client: TestClient, first: str, second: str, days: str = "3d", rated: bool = True
) -> tuple[dict[str, Any], Seat, Seat]:
    response = client.post(
        "/api/games",
        json={"kind": "friend", "rated": rated, "time_control": days},
        headers=as_(first),
    )
    assert response.status_code == 201, response.text
    game = response.json()
    red = Seat(client, game["game_id"], game["token"], first)
    red.hello()
    black = Seat(client, game["game_id"], token_of(game["invite_url"]), second)
    black.hello()
    return game, red, black


def sweep(client: TestClient) -> list[str]:
    context = client.app.state.context  # type: ignore[attr-defined]
    found: list[str] = client.portal.call(context.correspondence.sweep)  # type: ignore[union-attr]
    return found


def your_games(client: TestClient, cookie: str) -> list[dict[str, Any]]:
    response = client.get("/api/account/games", headers=as_(cookie))
    assert response.status_code == 200, response.text
    games: list[dict[str, Any]] = response.json()["games"]
    return games


def test_a_correspondence_game_is_played_over_days_and_lost_on_time(
    client: TestClient, clock: FakeClock
) -> None:
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    game, red, black = correspondence_game(client, ada, bob)
    moves = ("h2e2", "h9g7", "h0g2", "i9h9")
    for ply, move in enumerate(moves):
        mover, other = (red, black) if ply % 2 == 0 else (black, red)
        clock.advance(2 * DAY + 20 * HOUR)  # (each move within its 3 days)
        state = mover.move(move)
        other.wait_state(lambda s, ply=ply: s["ply"] == ply + 1)
    control = state["clock"]["control"]
    assert (control["days"], control["text"]) == (3, "3 days per move")
    for seat in ("first", "second"):  # (full days again: Red's from Black's move)
        assert state["clock"][seat]["remaining_ms"] == 3 * DAY * 1000
    # Red's days run from Black's last move: nothing falls while they last.
    clock.advance(3 * DAY - 2 * HOUR)
    assert sweep(client) == []  # (two hours away: past the sweep's hour)
    clock.advance(HOUR + 30 * 60)
    assert sweep(client) == [game["game_id"]]  # (half an hour away: the room arms it)
    assert red.state["status"] == "playing"
    clock.advance(HOUR)
    assert sweep(client) == [game["game_id"]]
    over = red.wait_state(lambda s: s["status"] == "over")
    assert over["result"]["winner"] == "second" and over["last_event"]["kind"] == "flag"
    black.wait_state(lambda s: s["status"] == "over")
    # Rated apart from the games of minutes.
    assert wait_settled(client, game["game_id"])["counted"]
    ratings = me(client, ada)["ratings"]
    assert list(ratings) == ["xiangqi-correspondence"]
    board = client.get("/api/leaderboard/xiangqi-correspondence").json()
    assert [p["name"] for p in board["newcomers"]] == ["Bob", "Ada"]  # (Bob won)


def test_a_correspondence_move_after_the_deadline_is_refused_as_the_game_is_over(
    client: TestClient, clock: FakeClock
) -> None:
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    _game, red, black = correspondence_game(client, ada, bob, days="1 day", rated=False)
    red.move("h2e2")
    black.wait_state(lambda s: s["ply"] == 1)
    clock.advance(DAY + 1)
    black.act("move", **{"from": "h9", "to": "g7"})
    # The room checks the clock before the move: the flag falls, and the move is refused
    # as played after the end, saying what ended the game.
    message = expect_error(black, "game_over")["message"]
    assert message.startswith("the game is over (") and "your move was not played" in message
    assert "time" in message, message
    over = black.wait_state(lambda s: s["status"] == "over")
    assert over["result"]["winner"] == "first" and over["ply"] == 1


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("0d", "0 days per move is not allowed; choose one of 1, 2, 3, 5, 7, 10, 14"),
        ("15 days", "15 days per move is not allowed"),
        ("2.5d", "days per move must be a whole number"),
        ("soon", "'3d' (days per move)"),
    ],
)
def test_a_bad_correspondence_control_is_named(client: TestClient, text: str, said: str) -> None:
    response = client.post("/api/games", json={"kind": "friend", "time_control": text})
    assert response.status_code == 400
    assert said in response.json()["error"]["message"]


def test_your_games_lists_your_move_first(client: TestClient, clock: FakeClock) -> None:
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    waiting, red1, black1 = correspondence_game(client, ada, bob, rated=False)
    clock.advance(HOUR)
    to_move, red2, black2 = correspondence_game(client, ada, bob, days="5d", rated=False)
    red2.move("h2e2")  # Ada moved in the newer game: her move is in the older one
    black2.wait_state(lambda s: s["ply"] == 1)
    clock.advance(HOUR)
    # The older game moved last: were it sorted by time alone it would come second.
    red1.move("h2e2")
    black1.wait_state(lambda s: s["ply"] == 1)
    black1.move("h9g7")
    red1.wait_state(lambda s: s["ply"] == 2)
    listed = your_games(client, ada)
    assert [(g["game_id"], g["your_move"]) for g in listed] == [
        (waiting["game_id"], True),
        (to_move["game_id"], False),
    ]
    first = listed[0]
    assert first["opponent"] == "Bob" and first["days"] == 3 and first["correspondence"]
    assert first["left_ms"] == 3 * DAY * 1000
    assert first["url"] == f"/g/{waiting['game_id']}?t={waiting['token']}"
    bobs = your_games(client, bob)
    assert [(g["game_id"], g["your_move"]) for g in bobs] == [
        (to_move["game_id"], True),
        (waiting["game_id"], False),
    ]
    assert bobs[0]["left_ms"] == round((5 * DAY - HOUR) * 1000)
    anonymous = client.get("/api/account/games")
    assert anonymous.status_code == 401
    assert anonymous.json()["error"]["code"] == "not_signed_in"


def test_a_correspondence_seek_in_the_lobby_is_a_game_of_days_rated_apart(
    client: TestClient, clock: FakeClock
) -> None:
    from test_lobby import LobbyClient, ids

    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    seeker, acceptor = LobbyClient(client, ada), LobbyClient(client, bob)
    try:
        seeker.hello()
        acceptor.hello()
        bad = seeker.send("seek", variant="xiangqi", time_control="15d", rated=True)
        error = seeker.error("bad_field")
        assert error["seq"] == bad and "15 days per move is not allowed" in error["message"]
        seek_id = seeker.post(time_control="7d", rated=True, color="first")
        shown = acceptor.wait_seeks(lambda seeks: seek_id in ids(seeks))[0]
        assert (shown["time_control"], shown["time_control_text"]) == ("7d", "7 days per move")
        acceptor.send("accept", seek=seek_id)
        paired = seeker.expect("paired")
        acceptor.expect("paired")
    finally:
        seeker.close()
        acceptor.close()
    red = Seat(client, paired["game_id"], paired["token"], ada)
    red.hello()
    assert red.state["clock"]["control"]["days"] == 7
    red.move("h2e2")
    context = client.app.state.context  # type: ignore[attr-defined]
    category = client.portal.call(  # type: ignore[union-attr]
        context.accounts.repository.rated_kind, paired["game_id"]
    )
    assert category == "xiangqi-correspondence"
    # Bob's 7 days: the sweep leaves the game alone until its last hour, then it falls.
    clock.advance(7 * DAY - 2 * HOUR)
    assert sweep(client) == []
    clock.advance(2 * HOUR + 1)
    assert sweep(client) == [paired["game_id"]]
    assert red.wait_state(lambda s: s["status"] == "over")["result"]["winner"] == "first"
    red.close()
