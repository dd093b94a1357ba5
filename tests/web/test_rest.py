"""Pages, security headers, the REST API: options, my games, export, import, analysis."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient
from web_helpers import MATE_LINE, MakeClient, Player, create_game, join_friend_game

from chuhan.records import GameRecord, write_pgn, write_xqf
from chuhan.squares import Move


def test_pages_are_the_app_shell_with_a_csp(client: TestClient, static_dir: Path) -> None:
    for path in ("/", "/g/abc?t=xyz", "/w/abc"):
        response = client.get(path)
        assert response.status_code == 200
        assert response.text.startswith("<!doctype html>")
        csp = response.headers["content-security-policy"]
        assert "default-src 'self'" in csp and "script-src 'self'" in csp
        assert "unsafe-inline" not in csp
        assert response.headers["referrer-policy"] == "no-referrer"
    script = client.get("/static/app.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert client.get("/static/missing.js").status_code == 404
    # A file beside the static folder is out of reach however the dots are written (the
    # client would resolve a plain '/static/../' itself; these reach the server as is).
    (static_dir.parent / "secret.txt").write_text("not for the web", encoding="utf-8")
    for path in (
        "/static/%2e%2e/secret.txt",
        "/static/..%2fsecret.txt",
        "/static/%2E%2E%2Fsecret.txt",
    ):
        response = client.get(path)
        assert response.status_code == 404 and "not for the web" not in response.text


def test_unknown_api_addresses_and_methods_get_json_errors(client: TestClient) -> None:
    missing = client.get("/api/nothing-here")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    wrong = client.delete("/api/options")
    assert wrong.status_code == 405 and wrong.json()["error"]["code"] == "bad_method"
    assert "GET" in wrong.headers["allow"]
    assert client.get("/static/nothing.js").text == "Not Found"


def test_options(client: TestClient) -> None:
    options = client.get("/api/options").json()
    assert options["variants"]["janggi"] == ["official", "traditional", "modern", "classic"]
    assert options["levels"] == list(range(1, 9)) and options["engine_available"] is True


def test_options_give_the_address_friends_use(make_client: MakeClient) -> None:
    # Default (as the tests make it): nothing known about the network.
    options = make_client().get("/api/options").json()
    assert options["share_origin"] is None and options["local_only"] is False
    options = make_client(share_origin="http://192.0.2.7:8000").get("/api/options").json()
    assert options["share_origin"] == "http://192.0.2.7:8000"
    assert make_client(local_only=True).get("/api/options").json()["local_only"] is True


def test_my_games_by_tokens(client: TestClient) -> None:
    one = create_game(client, kind="computer", variant="janggi", level=2)
    two = create_game(client, kind="friend", time_control="10+5", name="Bo")
    three = create_game(client, kind="local")
    tokens = [one["token"], two["token"], three["token"], "unknown-token"]
    games = client.post("/api/games/mine", json={"tokens": tokens}).json()["games"]
    assert {g["game_id"] for g in games} == {one["game_id"], two["game_id"], three["game_id"]}
    by_id = {g["game_id"]: g for g in games}
    assert by_id[two["game_id"]]["time_control"] == "10 min + 5 s"
    assert by_id[two["game_id"]]["your_turn"] is True
    assert by_id[two["game_id"]]["names"] == {"first": "Bo"}
    assert by_id[one["game_id"]]["status"] == "setup"
    assert by_id[three["game_id"]]["seat"] == "both"


def test_public_state_and_analysis(client: TestClient) -> None:
    game, red, black = join_friend_game(client)
    red.move("h2e2")
    state = client.get(f"/api/games/{game['game_id']}").json()
    assert state["ply"] == 1 and "legal" not in state and "you" not in state
    assert state["moves"][0]["chinese"] == "炮二平五"
    response = client.post(f"/api/games/{game['game_id']}/analysis", json={})
    assert response.status_code == 403  # no engine help during a game
    black.wait_state(lambda s: s["ply"] == 1)
    black.do("resign")
    response = client.post(f"/api/games/{game['game_id']}/analysis", json={"ply": 0, "multipv": 2})
    body = response.json()
    assert response.status_code == 200, body
    assert body["ply"] == 0 and body["turn"] == "first" and len(body["lines"]) == 2
    bad = client.post(f"/api/games/{game['game_id']}/analysis", json={"movetime_ms": 10})
    assert bad.status_code == 400


def test_import_pgn_and_xqf(client: TestClient) -> None:
    moves = [Move.from_iccs(m) for m in MATE_LINE]
    record = GameRecord.from_moves(moves, headers={"Event": "Test", "Red": "R", "Black": "B"})
    record.result = "1-0"
    pgn = write_pgn(record, format="wxf")
    broken = pgn.replace("Test", "Broken").split("\n\n")[0] + "\n\n1. C2.5 C2.5 2. R9+9 *\n"
    response = client.post("/api/import", content=(pgn + "\n" + broken).encode())
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["games"][0]["plies"] == len(MATE_LINE)
    assert any("Broken" in error for error in body["errors"])
    game_id = body["games"][0]["game_id"]
    watcher = Player(client, game_id, None)
    watcher.hello()
    state = watcher.state
    assert state["kind"] == "imported" and state["status"] == "over"
    assert state["result"]["termination"] == "checkmate" and len(state["moves"]) == 63
    assert state["headers"]["Event"] == "Test"
    watcher.act("move", **{"from": "a0", "to": "a1"})
    assert watcher.expect("error")["code"] == "watcher"

    xqf = write_xqf(record)
    response = client.post("/api/import?format=xqf", content=xqf)
    assert response.status_code == 201, response.text
    assert response.json()["games"][0]["plies"] == len(MATE_LINE)

    for content, code in [
        (b"", "empty"),
        (b"XQ" + b"\x00" * 10, "bad_record"),
        (b"just some text", "bad_record"),
    ]:
        response = client.post("/api/import", content=content)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == code
    response = client.post("/api/import", content=b"x" * (300 * 1024))
    assert response.status_code == 413


def test_games_from_a_fen(client: TestClient) -> None:
    assert client.get("/api/options").json()["custom_fen"] is True
    game = create_game(client, kind="local", fen="3k5/R8/3R5/9/9/9/9/9/9/4K4 w")
    hands = Player(client, game["game_id"], game["token"])
    hands.hello()
    assert hands.state["fen"] == "3k5/R8/3R5/9/9/9/9/9/9/4K4 w - - 0 1"
    over = hands.move("a8d8")
    assert over["result"]["termination"] == "checkmate"
    janggi = create_game(
        client,
        kind="friend",
        variant="janggi",
        fen="rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1",
    )
    cho = Player(client, janggi["game_id"], janggi["token"])
    cho.hello()
    assert cho.state["status"] == "playing" and cho.state["setup"] is None
    for fen in ("not a fen", "9/9/9/9/9/9/9/9/9/9 w"):
        response = client.post("/api/games", json={"kind": "local", "fen": fen})
        assert response.status_code == 400
        assert "FEN" in response.json()["error"]["message"] or "king" in response.text
