"""What the server tells the page so that it can explain itself (issue 14's bugs): why a
finished position has nothing to analyse, an imported record's players, a pass that would
end the game at once (or let the opponent end it by passing back), and import errors that
name their game once."""

from __future__ import annotations

from starlette.testclient import TestClient
from web_helpers import MATE_LINE, Player, create_game, join_friend_game

from chuhan.records import GameRecord, write_pgn
from chuhan.squares import Move

MATE_FEN = "3k5/R8/3R5/9/9/9/9/9/9/4K4 w"


def test_analysing_a_mated_position_says_it_is_mate_instead_of_searching(
    client: TestClient,
) -> None:
    game = create_game(client, kind="local", fen=MATE_FEN)
    hands = Player(client, game["game_id"], game["token"])
    hands.hello()
    hands.move("a8d8")
    response = client.post(f"/api/games/{game['game_id']}/analysis", json={})
    body = response.json()
    assert response.status_code == 200, body
    assert body["lines"] == []
    assert body["over"]["termination"] == "checkmate"
    assert body["over"]["reason"] == "Red wins: Black is checkmated by the chariot on d8."


def test_a_position_before_the_end_is_analysed_as_usual(client: TestClient) -> None:
    game = create_game(client, kind="local", fen=MATE_FEN)
    hands = Player(client, game["game_id"], game["token"])
    hands.hello()
    hands.move("a8d8")
    body = client.post(f"/api/games/{game['game_id']}/analysis", json={"ply": 0}).json()
    assert "over" not in body and body["lines"]


def test_a_resigned_position_is_still_analysed(client: TestClient) -> None:
    game, red, black = join_friend_game(client)
    red.move("h2e2")
    black.wait_state(lambda s: s["ply"] == 1)
    black.do("resign")
    body = client.post(f"/api/games/{game['game_id']}/analysis", json={}).json()
    assert "over" not in body and body["lines"]


def test_an_imported_record_names_its_players(client: TestClient) -> None:
    moves = [Move.from_iccs(m) for m in MATE_LINE]
    record = GameRecord.from_moves(moves, headers={"Red": "Alice", "Black": "Bob"})
    record.result = "1-0"
    response = client.post("/api/import", content=write_pgn(record).encode())
    assert response.status_code == 201, response.text
    game_id = response.json()["games"][0]["game_id"]
    players = client.get(f"/api/games/{game_id}").json()["players"]
    assert (players["first"]["name"], players["second"]["name"]) == ("Alice", "Bob")


def test_an_unnamed_player_of_a_record_keeps_the_side_name(client: TestClient) -> None:
    record = GameRecord.from_moves([Move.from_iccs("h2e2")], headers={"Red": "?"})
    response = client.post("/api/import", content=write_pgn(record).encode())
    game_id = response.json()["games"][0]["game_id"]
    players = client.get(f"/api/games/{game_id}").json()["players"]
    assert (players["first"]["name"], players["second"]["name"]) == ("Red", "Black")


def test_import_errors_name_their_game_once(client: TestClient) -> None:
    moves = [Move.from_iccs(m) for m in MATE_LINE]
    record = GameRecord.from_moves(moves, headers={"Event": "Test"})
    record.result = "1-0"
    pgn = write_pgn(record, format="wxf")
    broken = pgn.replace("Test", "Broken").split("\n\n")[0] + "\n\n1. C2.5 C2.5 2. R9+9 *\n"
    response = client.post("/api/import", content=(pgn + "\n" + broken).encode())
    errors = response.json()["errors"]
    assert len(errors) == 1 and errors[0].count("(Broken)") == 1, errors


def test_the_state_says_a_second_pass_would_end_the_game_and_how(client: TestClient) -> None:
    _, cho, han = join_friend_game(client, variant="janggi", rules="modern")
    han.do("setup", arrangement="마상마상")
    cho.wait_state(lambda s: s["setup"] and s["setup"]["chooser"] == "first")
    state = cho.do("setup", arrangement="마상마상")
    assert state["can_pass"] and state["pass_ends"] is None  # the first pass goes on
    cho.do("pass")
    state = han.wait_state(lambda s: s["ply"] == 1)
    ending = state["pass_ends"]
    assert ending["termination"] == "double_pass" and ending["winner"] == "second"
    assert ending["points"] == {"cho": 72, "han": 73.5}
    assert state["pass_back_ends"] is None
    over = han.do("pass")
    assert over["result"] == ending and over["pass_ends"] is None


def test_the_state_says_how_a_pass_back_would_end_the_game(client: TestClient) -> None:
    _, cho, han = join_friend_game(client, variant="janggi", rules="modern")
    han.do("setup", arrangement="마상마상")
    cho.wait_state(lambda s: s["setup"] and s["setup"]["chooser"] == "first")
    state = cho.do("setup", arrangement="마상마상")
    answered = state["pass_back_ends"]  # Cho passes, Han passes back: Han wins on points
    assert answered["termination"] == "double_pass" and answered["winner"] == "second"
    assert answered["points"] == {"cho": 72, "han": 73.5}


def test_the_state_says_a_pass_would_accept_bikjang(client: TestClient) -> None:
    _, cho, han = join_friend_game(client, variant="janggi")
    han.do("setup", arrangement="상마상마")
    cho.wait_state(lambda s: s["setup"] and s["setup"]["chooser"] == "first")
    cho.do("setup", arrangement="마상마상")
    han.wait_state(lambda s: s["status"] == "playing")
    cho.move("e3d3")
    han.wait_state(lambda s: s["ply"] == 1)
    han.move("e6d6")  # the kings face each other: Cho's pass would accept it
    state = cho.wait_state(lambda s: s["ply"] == 2)
    assert state["pass_ends"]["termination"] == "bikjang"
    assert state["pass_ends"]["winner"] == "second"
