"""Two scripted players (and watchers) over the websocket: a whole game to checkmate,
offers, takebacks, resignation, rematches, janggi setups, passes and bikjang, clocks and
the computer player."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient
from web_helpers import (
    MATE_LINE,
    FakeClock,
    FakeEngine,
    Player,
    create_game,
    expect_error,
    join_friend_game,
)


def play_line(first: Player, second: Player, moves: list[str]) -> dict[str, Any]:
    players = (first, second)
    state: dict[str, Any] = {}
    for ply, move in enumerate(moves):
        mover = players[ply % 2]
        state = mover.move(move)
        assert state["ply"] == ply + 1
        other = players[1 - ply % 2]
        other.wait_state(lambda s, n=ply + 1: s["ply"] == n)
    return state


def test_a_whole_game_to_checkmate(client: TestClient) -> None:
    game, red, black = join_friend_game(client, name="Ada")
    assert red.state["you"] == {"role": "first", "your_turn": True}
    assert black.state["you"] == {"role": "second", "your_turn": False}
    assert red.state["players"]["first"]["name"] == "Ada"
    assert "h2" in red.state["legal"] and "e2" in red.state["legal"]["h2"]
    watcher = Player(client, game["game_id"], None)
    assert watcher.hello()["role"] == "watcher"

    state = play_line(red, black, MATE_LINE)
    assert state["status"] == "over"
    assert state["result"]["winner"] == "first"
    assert state["result"]["termination"] == "checkmate"
    assert state["result"]["reason"] == "Red wins: Black is checkmated by the cannon on f3."
    assert state["result"]["result"] == "1-0"
    assert state["check"] == "f8" and state["legal"] == {}
    last = state["moves"][-1]
    assert (last["iccs"], last["check"], last["korean"]) == ("g3f3", True, None)
    assert last["wxf"] and last["chinese"]
    final = watcher.wait_state(lambda s: s["status"] == "over")
    assert final["you"]["role"] == "watcher" and final["result"] == state["result"]

    # Nothing moves after the end.
    black.act("move", **{"from": "f8", "to": "f9"})
    expect_error(black, "game_over")
    red.act("resign")
    expect_error(red, "game_over")

    pgn = client.get(f"/api/games/{game['game_id']}/pgn?format=chinese")
    assert pgn.status_code == 200
    assert '[Result "1-0"]' in pgn.text and '[Red "Ada"]' in pgn.text
    assert "炮" in pgn.text and "checkmated" in pgn.text
    fen = client.get(f"/api/games/{game['game_id']}/fen").json()
    assert fen == {"fen": state["fen"], "ply": len(MATE_LINE)}
    start = client.get(f"/api/games/{game['game_id']}/fen?ply=0").json()
    assert start["fen"].startswith("rnbakabnr/9/1c5c1/")
    for bad in ("999", "-1", "%C2%B2", "9" * 5000, "1e3", ""):
        response = client.get(f"/api/games/{game['game_id']}/fen?ply={bad}")
        assert response.status_code == 400, bad
        assert response.json()["error"]["code"] == "bad_field"
    pgn_kinds = client.get(f"/api/games/{game['game_id']}/pgn?format=korean")
    assert pgn_kinds.status_code == 400 and "janggi" in pgn_kinds.json()["error"]["message"]
    for player in (red, black, watcher):
        player.close()


def test_draw_offers(client: TestClient) -> None:
    _, red, black = join_friend_game(client)
    red.move("h2e2")
    red.do("draw_offer")
    offered = black.wait_state(lambda s: s["offers"]["draw"] == "first")
    assert offered["last_event"] == {"kind": "draw_offer", "side": "first"}
    red.act("draw_accept")  # cannot accept one's own offer
    expect_error(red, "not_allowed")
    assert black.do("draw_decline")["offers"]["draw"] is None
    red.wait_state(lambda s: s["offers"]["draw"] is None)
    # An offer lapses when the opponent moves instead.
    red.do("draw_offer")
    black.wait_state(lambda s: s["offers"]["draw"] == "first")
    state = black.move("h9g7")
    assert state["offers"]["draw"] is None
    black.do("draw_offer")
    red.wait_state(lambda s: s["offers"]["draw"] == "second")
    over = red.do("draw_accept")
    assert over["status"] == "over"
    assert over["result"]["termination"] == "agreement" and over["result"]["winner"] is None


def test_takebacks_and_resignation(client: TestClient) -> None:
    _, red, black = join_friend_game(client)
    red.move("h2e2")
    black.wait_state(lambda s: s["ply"] == 1)
    black.move("h9g7")
    red.wait_state(lambda s: s["ply"] == 2)
    red.do("takeback_request")  # Red's last move and Black's reply
    black.wait_state(lambda s: s["offers"]["takeback"] == "first")
    state = black.do("takeback_accept")
    assert state["ply"] == 0 and state["moves"] == [] and state["turn"] == "first"
    red.wait_state(lambda s: s["ply"] == 0)
    black.act("takeback_request")
    expect_error(black, "not_allowed")  # Black has no move to take back
    red.move("b0c2")
    black.wait_state(lambda s: s["ply"] == 1)
    red.do("takeback_request")
    black.wait_state(lambda s: s["offers"]["takeback"] == "first")
    assert black.do("takeback_decline")["offers"]["takeback"] is None
    black.act("resign", side="first")  # a seat acts only for itself
    expect_error(black, "not_allowed")
    over = black.do("resign")
    assert over["result"]["winner"] == "first"
    assert over["result"]["reason"] == "Red wins: Black resigned."


def test_friend_rematch_swaps_colours(client: TestClient) -> None:
    game, red, black = join_friend_game(client)
    red.act("rematch")
    expect_error(red, "not_allowed")  # not over yet
    red.do("resign")
    black.wait_state(lambda s: s["status"] == "over")
    red.do("rematch")
    assert black.wait_state(lambda s: s["offers"]["rematch"] == "first")
    black.act("rematch")
    ready_black = black.expect("rematch_ready")
    ready_red = red.expect("rematch_ready")
    assert ready_red["game_id"] == ready_black["game_id"] != game["game_id"]
    assert (ready_red["seat"], ready_black["seat"]) == ("second", "first")
    new_red = Player(client, ready_black["game_id"], ready_black["token"])
    assert new_red.hello()["role"] == "first"
    assert new_red.state["you"]["your_turn"]
    # Someone who was away gets the new seat on reconnecting to the old game.
    again = Player(client, game["game_id"], game["token"])
    again.send("hello", token=game["token"])
    assert again.expect("rematch_ready")["token"] == ready_red["token"]


def test_local_game_one_token_for_both_seats(client: TestClient) -> None:
    game = create_game(client, kind="local", variant="xiangqi")
    assert game["seat"] == "both" and "invite_url" not in game
    hands = Player(client, game["game_id"], game["token"])
    assert hands.hello()["role"] == "both"
    hands.move("h2e2")
    state = hands.move("h9g7")
    assert state["you"] == {"role": "both", "your_turn": True} and state["ply"] == 2
    hands.do("takeback_request")
    assert hands.do("takeback_accept")["ply"] == 1  # Black's own last move
    assert hands.do("resign", side="first")["result"]["winner"] == "second"
    hands.act("rematch")
    ready = hands.expect("rematch_ready")
    assert ready["seat"] == "both"


def test_computer_game(client: TestClient, engine: FakeEngine) -> None:
    game = create_game(client, kind="computer", variant="xiangqi", level=5, color="second")
    assert game["seat"] == "second"
    human = Player(client, game["game_id"], game["token"])
    human.hello()
    state = human.wait_state(lambda s: s["ply"] == 1)  # the computer opened
    assert state["players"]["first"]["kind"] == "computer"
    assert state["you"]["your_turn"] and not state["thinking"]
    assert engine.requests[0].level == 5 and engine.requests[0].limits.movetime
    human.move("h9g7")
    state = human.wait_state(lambda s: s["ply"] == 3)
    assert state["last_event"]["computer"] is True
    declined = human.do("draw_offer")
    assert declined["offers"]["draw"] is None
    assert declined["last_event"] == {"kind": "draw_declined", "side": "first", "computer": True}
    back = human.do("takeback_request")  # the computer agrees at once: Black to move
    assert back["ply"] == 1 and back["you"]["your_turn"]
    human.do("move", version=back["version"], **{"from": "a6", "to": "a5"})
    human.wait_state(lambda s: s["ply"] == 3)
    assert human.do("resign")["result"]["winner"] == "first"
    human.act("rematch")
    ready = human.expect("rematch_ready")
    assert ready["seat"] == "first"


def test_janggi_setup_pass_and_bikjang(client: TestClient) -> None:
    game, cho, han = join_friend_game(client, variant="janggi")
    state = han.state
    assert state["status"] == "setup" and state["setup"]["chooser"] == "second"
    assert state["side_names"] == {"first": "cho", "second": "han"}
    assert han.state["you"]["your_turn"] and not cho.state["you"]["your_turn"]
    cho.act("setup", arrangement="마상마상")
    expect_error(cho, "not_your_turn")  # Han chooses first
    han.act("setup", arrangement="XYZW")
    expect_error(han, "bad_field")
    han.act("move", **{"from": "a6", "to": "a5"})
    expect_error(han, "not_allowed")  # setup not finished
    han.do("setup", arrangement="상마상마")
    state = cho.wait_state(lambda s: s["setup"] and s["setup"]["chooser"] == "first")
    assert state["setup"]["chosen"] == {"second": "상마상마"}
    state = cho.do("setup", arrangement="HEHE")
    assert state["status"] == "playing" and state["setup"] is None
    # Han's 상마상마 reads from Han's left (file i), Cho's from Cho's left (file a).
    assert state["fen"] == (
        "rnba1anbr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ANBR w - - 0 1"
    )
    assert state["can_pass"] is True  # official rules: a side not in check may pass
    han.wait_state(lambda s: s["status"] == "playing")
    cho.move("e3d3")
    han.wait_state(lambda s: s["ply"] == 1)
    state = han.move("e6d6")  # the kings now face each other
    assert state["bikjang"] and state["can_pass"]
    cho.wait_state(lambda s: s["ply"] == 2)
    over = cho.do("pass")
    assert over["moves"][-1]["pass"] and over["moves"][-1]["korean"] == "한수쉼"
    result = over["result"]
    assert result["termination"] == "bikjang" and result["winner"] == "second"
    assert result["points"] == {"cho": 72, "han": 73.5}
    pgn = client.get(f"/api/games/{game['game_id']}/pgn?format=korean")
    assert "Janggi" in pgn.text and '[Result "0-1"]' in pgn.text


def test_janggi_double_pass_and_setup_deadline(client: TestClient, clock: FakeClock) -> None:
    _, cho, han = join_friend_game(client, variant="janggi", rules="modern")
    deadline = han.state["setup"]["deadline_ms"]
    assert deadline == round((clock() + 60) * 1000)
    clock.advance(61)
    han.send("resync")
    state = han.wait_state(lambda s: s["setup"] and s["setup"]["chooser"] == "first")
    assert state["setup"]["chosen"] == {"second": "마상상마"}
    assert state["last_event"]["default"] is True
    cho.wait_state(lambda s: s["setup"] and s["setup"]["chooser"] == "first")
    cho.do("setup", arrangement="상마마상")
    han.wait_state(lambda s: s["status"] == "playing")
    cho.do("pass")
    han.wait_state(lambda s: s["ply"] == 1)
    over = han.do("pass")
    assert over["result"]["termination"] == "double_pass"
    assert "both sides passed in a row" in over["result"]["reason"]


def test_xiangqi_has_no_pass(client: TestClient) -> None:
    _, red, _ = join_friend_game(client)
    red.act("pass")
    expect_error(red, "illegal_move")
    red.act("move", **{"from": "h2", "to": "h2"})
    expect_error(red, "illegal_move")


def test_computer_chooses_its_janggi_setup(client: TestClient) -> None:
    game = create_game(client, kind="computer", variant="janggi", color="first")
    cho = Player(client, game["game_id"], game["token"])
    cho.hello()
    state = cho.wait_state(lambda s: s["setup"] and s["setup"]["chooser"] == "first")
    assert "second" in state["setup"]["chosen"] and state["you"]["your_turn"]
    assert cho.do("setup", arrangement="마상상마")["status"] == "playing"
    cho.move("a3b3")
    assert cho.wait_state(lambda s: s["ply"] == 2)["you"]["your_turn"]


def test_fischer_clock_and_flag(client: TestClient, clock: FakeClock) -> None:
    _, red, black = join_friend_game(client, time_control="1+2")
    assert red.state["clock"]["running"] is None  # the first move is not timed
    clock.advance(30)
    state = red.move("h2e2")
    assert state["clock"]["first"]["remaining_ms"] == 60_000
    assert state["clock"]["running"] == "second"
    black.wait_state(lambda s: s["ply"] == 1)
    clock.advance(10)
    state = black.move("h9g7")
    assert state["clock"]["second"]["remaining_ms"] == 52_000  # 60 - 10 + 2
    red.wait_state(lambda s: s["ply"] == 2)
    clock.advance(5)
    state = red.move("b0c2")
    assert state["clock"]["first"]["remaining_ms"] == 57_000
    black.wait_state(lambda s: s["ply"] == 3)
    clock.advance(53)
    red.act("flag")
    red.expect("ack")
    over = red.expect("state")
    assert over["result"]["termination"] == "time"
    assert over["result"]["reason"] == "Red wins: Black ran out of time."
    assert over["clock"]["running"] is None
    assert over["clock"]["second"]["remaining_ms"] == 0


def test_moving_too_late_loses_on_time(client: TestClient, clock: FakeClock) -> None:
    _, red, black = join_friend_game(client, time_control="10s+0 1x5")
    red.move("h2e2")
    black.wait_state(lambda s: s["ply"] == 1)
    clock.advance(14)  # 10 s main time, then 4 s of the 5 s period
    state = black.move("h9g7")
    assert state["clock"]["second"] == {"remaining_ms": 0, "periods": 1}
    red.wait_state(lambda s: s["ply"] == 2)
    red.act("flag", version=red.state["version"])
    expect_error(red, "not_flagged")
    clock.advance(30)
    red.act("move", **{"from": "b0", "to": "c2"})
    refused = expect_error(red, "game_over")  # the flag fell first
    assert refused["message"].startswith("the game is over ("), refused
    assert refused["message"].endswith("your move was not played"), refused
    over = red.expect("state")
    assert over["result"]["winner"] == "second"


def test_chat(client: TestClient) -> None:
    game, red, black = join_friend_game(client, name="Ada")
    red.send("chat", text="<script>alert(1)</script>\n hi")
    red.expect("ack")
    message = black.expect("chat")
    assert message["text"] == "<script>alert(1)</script> hi"
    assert (message["from"], message["name"], message["room"]) == ("first", "Ada", "players")
    black.send("chat", text="x" * 301)
    expect_error(black, "chat_too_long")
    later = Player(client, game["game_id"], game["token"])
    later.send("hello", token=game["token"])
    later.expect("welcome")
    later.expect("state")
    history = later.expect("chat_history")["messages"]
    assert [m["text"] for m in history] == [message["text"]]
