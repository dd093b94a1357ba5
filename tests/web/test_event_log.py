"""A game is rebuilt from its stored event log: every action replays through the same
function that applied it, at the time it happened, so position, offers, ending and clock
come back as they were; a log that does not replay is reported, never guessed at."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from web_helpers import FakeClock, MakeClient, Player, create_game, join_friend_game, token_of

_VOLATILE = ("you", "players", "watchers")


def _game_part(state: dict[str, Any]) -> dict[str, Any]:
    part = {k: v for k, v in state.items() if k not in _VOLATILE}
    part["clock"] = {k: v for k, v in state["clock"].items() if k != "server_time_ms"}
    return part


def _event_kinds(db: Path, game_id: str) -> list[str]:
    """The kinds of a game's stored events (read beside the running server)."""
    with sqlite3.connect(db) as connection:
        query = "SELECT kind FROM events WHERE game_id=? ORDER BY rowid"
        return [kind for (kind,) in connection.execute(query, (game_id,))]


def test_every_action_replays_to_the_same_game_and_clock(
    make_client: MakeClient, clock: FakeClock, db_path: Path
) -> None:
    client = make_client()
    game, red, black = join_friend_game(client, time_control="3+2")
    for ply, (mover, move) in enumerate([(red, "h2e2"), (black, "h9g7"), (red, "h0g2")], 1):
        clock.advance(5)
        mover.move(move)
        (black if mover is red else red).wait_state(lambda s, p=ply: s["ply"] == p)
    black.do("draw_offer")
    red.wait_state(lambda s: s["offers"]["draw"] == "second")
    red.do("draw_decline")
    black.wait_state(lambda s: s["offers"]["draw"] is None)
    clock.advance(3)
    black.do("takeback_request")  # Black takes back Red's reply and its own move
    red.wait_state(lambda s: s["offers"]["takeback"] == "second")
    clock.advance(2)
    red.do("takeback_accept")
    black.wait_state(lambda s: s["ply"] == 1)
    clock.advance(4)
    black.move("b9c7")
    red.wait_state(lambda s: s["ply"] == 2)
    red.do("draw_offer")
    black.wait_state(lambda s: s["offers"]["draw"] == "first")
    black.do("draw_offer")  # offers crossing each other: a draw by agreement
    red.wait_state(lambda s: s["status"] == "over")
    before = red.state
    for player in (red, black):
        player.close()
    assert _event_kinds(db_path, game["game_id"]) == [
        "create", "move", "move", "move", "draw_offer", "draw_declined", "takeback_request",
        "takeback", "move", "draw_offer", "draw_agreed",
    ]  # fmt: skip

    clock.advance(100)
    client2 = make_client()
    red2 = Player(client2, game["game_id"], game["token"])
    red2.hello()
    after = red2.state
    assert _game_part(after) == _game_part(before)  # the clock too: it stopped at the end
    assert after["result"]["termination"] == "agreement"
    assert [m["iccs"] for m in after["moves"]] == ["h2e2", "b9c7"]


def test_a_computer_game_replays_its_instant_answers(
    make_client: MakeClient, db_path: Path
) -> None:
    client = make_client()
    game = create_game(client, kind="computer", level=1, color="first")
    player = Player(client, game["game_id"], game["token"])
    player.hello()
    player.move("h2e2")
    player.wait_state(lambda s: s["ply"] == 2)
    player.do("draw_offer")  # declined by the computer at once
    player.do("takeback_request")  # accepted by the computer at once
    player.wait_state(lambda s: s["ply"] == 0)
    before = player.state
    player.close()
    client2 = make_client()
    again = Player(client2, game["game_id"], game["token"])
    again.hello()
    assert again.state["ply"] == 0 and again.state["version"] == before["version"]
    assert again.state["last_event"] == before["last_event"]


def test_a_log_that_does_not_replay_is_reported_and_other_games_are_served(
    make_client: MakeClient, db_path: Path
) -> None:
    client = make_client()
    broken, red, black = join_friend_game(client)
    red.move("h2e2")
    black.wait_state(lambda s: s["ply"] == 1)
    black.move("h9g7")
    red.wait_state(lambda s: s["ply"] == 2)
    fine = create_game(client, kind="local")
    for player in (red, black):
        player.close()
    client.__exit__(None, None, None)
    with sqlite3.connect(db_path) as db:  # the log loses Red's move; the row still has it
        db.execute(
            "DELETE FROM events WHERE game_id=? AND kind='move' AND data LIKE '%h2e2%'",
            (broken["game_id"],),
        )
    client2 = make_client()
    refused = client2.get(f"/api/games/{broken['game_id']}")
    assert refused.status_code == 500
    assert "cannot be loaded" in refused.json()["error"]["message"]
    assert client2.get(f"/api/games/{fine['game_id']}").status_code == 200
    black2 = Player(client2, broken["game_id"], token_of(broken["invite_url"]))
    black2.send("hello", token=token_of(broken["invite_url"]))
    message = black2.ws.receive_json()
    assert message["type"] == "error" and "cannot be loaded" in message["message"]
