"""The time controls a new game may have: what people play, refused with a 400 that names
the field and the bound otherwise (a clock of 10^20 minutes, or a billion byo-yomi
periods, made the computer search for ever)."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient
from web_helpers import MakeClient, Player, create_game


@pytest.mark.parametrize(
    ("time_control", "bound"),
    [
        ("99999999999999999999+5", "the main time is at most 180 minutes"),
        ("181+0", "the main time is at most 180 minutes"),
        ("10+121", "the increment is at most 120 seconds"),
        ("10 999999999x30", "at most 10 byo-yomi periods"),
        ("10 3x301", "a byo-yomi period is at most 300 seconds"),
        ("0+5", "without byo-yomi the main time is at least 10 seconds"),
        ("5s+5", "without byo-yomi the main time is at least 10 seconds"),
        ("10 " + "9" * 5000 + "x30", "'time_control' is longer than 40 characters"),
    ],
)
def test_a_time_control_beyond_what_people_play_is_refused(
    client: TestClient, time_control: str, bound: str
) -> None:
    response = client.post("/api/games", json={"kind": "friend", "time_control": time_control})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "bad_field"
    assert error["message"].startswith("'time_control'")
    assert bound in error["message"]


@pytest.mark.parametrize(
    "time_control", ["0 3x30", "180+120", "10s+0 1x5", "12s+0", "20 10x300", "1+0"]
)
def test_time_controls_people_play_are_accepted(client: TestClient, time_control: str) -> None:
    create_game(client, kind="friend", time_control=time_control)


def test_byo_yomi_alone_gives_the_second_player_its_periods(client: TestClient) -> None:
    game = create_game(client, kind="local", time_control="0 3x30")
    hands = Player(client, game["game_id"], game["token"])
    hands.hello()
    state = hands.move("h2e2")
    assert state["status"] == "playing"
    assert state["clock"]["second"]["periods"] == 3


def test_the_bounds_are_settings(make_client: MakeClient) -> None:
    client = make_client(max_main_minutes=5, max_periods=3)
    refused = client.post("/api/games", json={"kind": "friend", "time_control": "10+5"})
    assert "the main time is at most 5 minutes" in refused.json()["error"]["message"]
    refused = client.post("/api/games", json={"kind": "friend", "time_control": "5 4x30"})
    assert "at most 3 byo-yomi periods" in refused.json()["error"]["message"]
