"""Every accepted action is in the database before anyone hears of it: a new app on the
same file has every game as it was, with its clock (which kept running meanwhile)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

from web_helpers import FakeClock, MakeClient, Player, create_game, join_friend_game, token_of

#: Fields that describe the connections, not the game.
_VOLATILE = ("you", "players", "watchers", "clock")


def stable(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k not in _VOLATILE}


def test_restart_keeps_games_offers_and_clocks(
    make_client: MakeClient, clock: FakeClock, db_path: Path
) -> None:
    client = make_client()
    game, red, black = join_friend_game(client, time_control="5+3")
    janggi = create_game(client, kind="local", variant="janggi")
    hands = Player(client, janggi["game_id"], janggi["token"])
    hands.hello()
    hands.do("setup", arrangement="상마마상")
    for move in ("h2e2", "h9g7", "b0c2"):
        mover = red if red.state["turn"] == "first" else black
        clock.advance(7)
        mover.move(move)
        (black if mover is red else red).wait_state(lambda s, p=mover.state["ply"]: s["ply"] == p)
    black.do("draw_offer")
    red.wait_state(lambda s: s["offers"]["draw"] == "second")
    before = red.state
    before_janggi = hands.state
    assert before["clock"]["running"] == "second"
    for player in (red, black, hands):
        player.close()

    clock.advance(20)  # the server is down for 20 s: Black's clock keeps running
    client2 = make_client()
    red2 = Player(client2, game["game_id"], game["token"])
    red2.hello()
    after = red2.state
    assert stable(after) == stable(before)
    assert after["clock"]["first"] == before["clock"]["first"]
    assert (
        after["clock"]["second"]["remaining_ms"]
        == before["clock"]["second"]["remaining_ms"] - 20_000
    )
    hands2 = Player(client2, janggi["game_id"], janggi["token"])
    hands2.hello()
    assert stable(hands2.state) == stable(before_janggi)
    assert hands2.state["setup"]["chooser"] == "first"
    # The game goes on where it was.
    black2 = Player(client2, game["game_id"], token_of(game["invite_url"]))
    black2.hello()
    red2.wait_state(lambda s: s["players"]["second"]["connected"])
    over = red2.do("draw_accept")
    assert over["result"]["termination"] == "agreement"


def test_a_clock_that_ran_out_while_down_ends_the_game_on_restart(
    make_client: MakeClient, clock: FakeClock
) -> None:
    client = make_client()
    game, red, black = join_friend_game(client, time_control="1+0")
    red.move("h2e2")
    red.close()
    black.close()
    clock.advance(3600)
    client2 = make_client()
    red2 = Player(client2, game["game_id"], game["token"])
    red2.hello()
    result = red2.state["result"]
    assert result["termination"] == "time" and result["winner"] == "first"


def test_the_database_is_written_before_the_ack(make_client: MakeClient, db_path: Path) -> None:
    client = make_client()
    game, red, _ = join_friend_game(client)
    red.move("h2e2")
    # Read the file from outside the server, as a new process would after a crash.
    db = sqlite3.connect(db_path)
    try:
        moves, version = db.execute(
            "SELECT moves, version FROM games WHERE id=?", (game["game_id"],)
        ).fetchone()
        kinds = [
            k for (k,) in db.execute("SELECT kind FROM events WHERE game_id=?", (game["game_id"],))
        ]
        mode = db.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        db.close()
    assert moves == "h2e2" and version == red.state["version"]
    assert kinds[0] == "create" and kinds[-1] == "move"
    assert mode == "wal"


def _until(predicate: Any, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()  # type: ignore[no-any-return]


def test_rooms_nobody_needs_are_let_go_and_rebuilt(
    make_client: MakeClient, clock: FakeClock
) -> None:
    client = make_client()
    rooms = client.app.state.manager.rooms  # type: ignore[attr-defined]
    untimed, red, black = join_friend_game(client)
    timed, red_timed, black_timed = join_friend_game(client, time_control="5+0")
    red.move("h2e2")
    red_timed.move("h2e2")
    before = black.wait_state(lambda s: s["ply"] == 1)
    for player in (red, black, red_timed, black_timed):
        player.close()
    # The untimed game waits for its players in the database only; the timed one stays
    # in memory, where its clock can fall.
    assert _until(lambda: untimed["game_id"] not in rooms)
    assert timed["game_id"] in rooms
    black2 = Player(client, untimed["game_id"], token_of(untimed["invite_url"]))
    black2.hello()
    assert stable(black2.state) | {"players": None} == stable(before) | {"players": None}
    assert black2.move("h9g7")["ply"] == 2
    black2.close()
    assert _until(lambda: untimed["game_id"] not in rooms)
    # A request that loads the game does not keep it in memory either.
    assert client.get(f"/api/games/{untimed['game_id']}/pgn").status_code == 200
    assert untimed["game_id"] not in rooms
    # At a start, the untimed unfinished game is not kept either.
    client2 = make_client()
    assert set(client2.app.state.manager.rooms) == {timed["game_id"]}  # type: ignore[attr-defined]
