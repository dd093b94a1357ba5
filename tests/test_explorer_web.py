"""The explorer in the web app: ``GET /api/explorer`` and ``/api/explorer/games/{id}`` on a
small masters' index (tests/explorer_sample.py), the masters' build in the background
while the explorer says how far it has gone, and the answers to bad questions."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from chuhan import Board
from chuhan.explorer import Explorer
from chuhan.web.app import create_app
from explorer_sample import build_sample_index

sys.path.insert(0, str(Path(__file__).resolve().parent / "web"))


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def sample_index(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The sample masters' index in a SQLite file, then in a PostgreSQL database (the app's
    games in a SQLite file either way: ``chuhan serve --explorer-db``)."""
    if request.param == "sqlite":
        yield str(build_sample_index(tmp_path_factory.mktemp("explorer") / "explorer.sqlite3"))
        return
    cluster = request.getfixturevalue("postgres_cluster")
    url = cluster.create_database()
    try:
        yield str(build_sample_index(url))
    finally:
        cluster.drop_database(url)


def _client(tmp_path: Path, index: str | Path) -> TestClient:
    static = tmp_path / "static"
    static.mkdir(exist_ok=True)
    (static / "index.html").write_text("<!doctype html><title>chuhan</title>", encoding="utf-8")
    return TestClient(
        create_app(tmp_path / "games.sqlite3", static_dir=static, explorer_index=index)
    )


@pytest.fixture
def client(tmp_path: Path, sample_index: str) -> Iterator[TestClient]:
    with _client(tmp_path, sample_index) as opened:
        yield opened


def test_the_start_position_answers_the_masters_moves(
    client: TestClient, sample_index: str
) -> None:
    answer = client.get("/api/explorer").json()
    with Explorer(sample_index) as explorer:
        expected = explorer.lookup(Board())
    assert answer["games"] == expected.games > 50
    moves = {move["iccs"]: move for move in answer["moves"]}
    assert moves["h2e2"]["chinese"] == "炮二平五"
    assert moves["h2e2"]["games"] == expected.moves[0].games
    first = moves["h2e2"]
    assert first["red_wins"] + first["draws"] + first["black_wins"] <= first["games"]
    assert "Yu-Han Tseng" in answer["credit"]


def test_a_position_is_asked_by_its_fen_or_by_moves(client: TestClient) -> None:
    after = Board()
    after.push_iccs("h2e2")
    by_fen = client.get("/api/explorer", params={"fen": after.fen()}).json()
    by_moves = client.get("/api/explorer", params={"moves": "h2e2"}).json()
    assert by_fen["moves"] == by_moves["moves"] and by_fen["moves"]
    assert by_fen["games"] == by_moves["games"]


def test_a_janggi_position_has_no_master_games(client: TestClient) -> None:
    response = client.get("/api/explorer", params={"variant": "janggi"})
    assert response.status_code == 200
    assert response.json()["note"] == "no master games for janggi: the masters are xiangqi games"


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ({"fen": "rnbakabnr/9 w"}, "'fen' 'rnbakabnr/9 w' does not read"),
        ({"moves": "h2e2,a0a5"}, "'moves': 'a0a5'"),
        ({"source": "elsewhere"}, "'source' must be one of masters"),
        ({"variant": "chess"}, "'variant'"),
    ],
)
def test_a_bad_question_gets_a_sentence(
    client: TestClient, params: dict[str, str], said: str
) -> None:
    response = client.get("/api/explorer", params=params)
    assert response.status_code == 400
    assert said in response.json()["error"]["message"]


def test_a_server_told_not_to_build_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHUHAN_EXPLORER_BUILD", "0")
    with _client(tmp_path, tmp_path / "new.sqlite3") as client:
        response = client.get("/api/explorer")
    assert response.status_code == 200
    message = response.json()["unavailable"]
    assert message == "the masters' index is not built here (CHUHAN_EXPLORER_BUILD=0)"


def test_a_master_game_is_read_with_its_players_and_pgn(client: TestClient) -> None:
    top = client.get("/api/explorer").json()["moves"][0]["top_games"][0]
    game = client.get(f"/api/explorer/games/{top['id']}").json()
    assert (game["red"], game["black"]) == (top["red"], top["black"])
    assert game["moves"][0] == "h2e2"
    assert "炮二平五" in game["pgn"] and f'[Red "{top["red"]}"]' in game["pgn"]
    missing = client.get("/api/explorer/games/999999")
    assert missing.status_code == 404
    assert missing.json()["error"]["message"] == "there is no master game '999999'"


def test_the_explorer_says_how_far_the_masters_index_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHUHAN_EXPLORER_BUILD", "1")
    with _client(tmp_path, tmp_path / "new.sqlite3") as client:
        answer: dict[str, Any] = client.get("/api/explorer").json()
        assert answer["building"]["state"] == "building"
        assert answer["building"]["done"] >= 0
        assert "moves" not in answer
    # The app stopped: the build stopped with it, its import undone.
    with Explorer(tmp_path / "new.sqlite3") as explorer:
        assert explorer.counts() == {}


# -- this server's own games ----------------------------------------------------------------


def _site(client: TestClient, **params: str) -> dict[str, Any]:
    response = client.get("/api/explorer", params={"source": "site", **params})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_a_game_that_ends_here_is_counted_in_the_site_source(
    tmp_path: Path, sample_index: str
) -> None:
    from web_helpers import join_friend_game  # (tests/web: the game's websocket players)

    with _client(tmp_path, sample_index) as client:
        assert _site(client)["games"] == 0
        game, red, black = join_friend_game(client, time_control="3+2")
        red.move("h2e2")
        black.wait_state(lambda s: s["ply"] == 1)
        black.move("h9g7")
        red.wait_state(lambda s: s["ply"] == 2)
        black.do("resign")
        # The game is counted after its end is told: waited for.
        site_games = client.app.state.context.site_games  # type: ignore[attr-defined]
        client.portal.call(site_games.settled)  # type: ignore[union-attr]
        answer = _site(client)
        assert answer["games"] == 1
        assert [(m["iccs"], m["games"], m["red_wins"]) for m in answer["moves"]] == [("h2e2", 1, 1)]
        assert _site(client, moves="h2e2")["moves"][0]["iccs"] == "h9g7"
        # Its listing names the game by its id here (the analysis board opens it so).
        assert answer["moves"][0]["top_games"][0]["origin"] == game["game_id"]
        assert _site(client, speeds="blitz", bands="casual")["games"] == 1
        assert _site(client, speeds="bullet")["games"] == 0
        bad = client.get("/api/explorer", params={"source": "site", "speeds": "slow"})
        assert bad.status_code == 400 and "'speeds' holds 'slow'" in bad.text
        # The masters' index is its own file: its counts are the sample's alone.
        with Explorer(sample_index) as masters:
            assert client.get("/api/explorer").json()["games"] == masters.lookup(Board()).games
        red.close()
        black.close()


def test_a_janggi_game_is_counted_from_the_position_its_setup_made(
    tmp_path: Path, sample_index: str
) -> None:
    from web_helpers import join_friend_game

    with _client(tmp_path, sample_index) as client:
        _, cho, han = join_friend_game(client, variant="janggi")
        try:
            han.do("setup", arrangement="상마상마")
            cho.wait_state(lambda s: s["setup"] and s["setup"]["chooser"] == "first")
            start = cho.do("setup", arrangement="HEHE")["fen"]
            han.wait_state(lambda s: s["status"] == "playing")
            cho.move("e3d3")
            han.wait_state(lambda s: s["ply"] == 1)
            han.move("e6d6")  # the kings face each other: a pass ends it in bikjang
            cho.wait_state(lambda s: s["ply"] == 2)
            assert cho.do("pass")["status"] == "over"
            params = {"source": "site", "variant": "janggi", "fen": start}
            # (counted after the end is told: waited for)
            site_games = client.app.state.context.site_games  # type: ignore[attr-defined]
            client.portal.call(site_games.settled)  # type: ignore[union-attr]
            answer = _site(client, variant="janggi", fen=start)
            assert [(m["iccs"], m["black_wins"]) for m in answer["moves"]] == [("e3d3", 1)]
            after = client.get("/api/explorer", params={**params, "moves": "e3d3,e6d6"}).json()
            assert after["games"] == 1 and after["moves"][0]["games"] == 1  # the pass
            assert _site(client)["games"] == 0  # no xiangqi game
        finally:
            cho.close()
            han.close()


def test_a_master_game_names_its_ecco_opening_in_its_tags_and_pgn(client: TestClient) -> None:
    top = client.get("/api/explorer").json()["top_games"][0]
    game = client.get(f"/api/explorer/games/{top['id']}").json()
    code = game["ecco"] or game["found"]
    assert game["ecco_opening"]["code"] == code and game["ecco_opening"]["name_en"]
    assert f'[ECCO "{code}"]' in game["pgn"]
    assert f'[Opening "{game["ecco_opening"]["name_zh"]}"]' in game["pgn"]
    assert f'[Variation "{game["ecco_opening"]["name_en"]}"]' in game["pgn"]


def test_a_master_games_pgn_names_its_codes_own_opening(client: TestClient) -> None:
    found = client.get("/api/explorer/search", params={"ecco": "D24"}).json()
    assert found["total"] > 0  # the sample holds six games of D24
    game = client.get(f"/api/explorer/games/{found['games'][0]['id']}").json()
    assert game["ecco_opening"]["name_zh"] == "顺炮直车对横车 红过河车"
    assert '[ECCO "D24"]' in game["pgn"]
    assert '[Opening "顺炮直车对横车 红过河车"]' in game["pgn"]
    english = game["ecco_opening"]["name_en"]
    assert english.endswith("; Red: the River-Crossing Chariot")
    assert f'[Variation "{english}"]' in game["pgn"]


def test_the_search_finds_a_player_in_either_script(client: TestClient, sample_index: str) -> None:
    traditional = client.get("/api/explorer/search", params={"player": "楊官璘"}).json()
    simplified = client.get("/api/explorer/search", params={"player": "杨官璘"}).json()
    assert traditional["games"] == simplified["games"] and simplified["total"] > 0
    assert all("楊官璘" in (game["red"] + game["black"]) for game in simplified["games"])
    assert "Yu-Han Tseng" in simplified["credit"]


def test_the_search_by_position_lists_every_game_that_reached_it(
    client: TestClient, sample_index: str
) -> None:
    answer = client.get(
        "/api/explorer/search", params={"moves": "h2e2 h9g7", "limit": "100"}
    ).json()
    board = Board()
    for move in ("h2e2", "h9g7"):
        board.push_iccs(move)
    with Explorer(sample_index) as explorer:
        counted = explorer.lookup(board).games
    assert answer["total"] == counted > 0
    assert {game["ply"] for game in answer["games"]} == {2}


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ({"year": "19x"}, "'year' must be a year or two"),
        ({"ecco": "Z1"}, "'Z1' is not an ECCO code or its start"),
        ({"limit": "1000"}, "'limit' must be a number from 0 to 100"),
        ({"player": "x" * 61}, "'player' is longer than 60 characters"),
        ({"variant": "janggi"}, "the masters are xiangqi games"),
        ({"moves": "h2e9"}, "'moves': 'h2e9'"),
    ],
)
def test_a_bad_search_gets_a_sentence(
    client: TestClient, params: dict[str, str], said: str
) -> None:
    response = client.get("/api/explorer/search", params=params)
    assert response.status_code == 400
    assert said in response.json()["error"]["message"]


def test_the_explorer_names_the_positions_opening(client: TestClient) -> None:
    answer = client.get("/api/explorer", params={"moves": "h2e2 b7e7"}).json()
    assert answer["opening"] == {
        "code": "D50",
        "name_zh": "中炮对列炮",
        "name_zh_hant": "中炮對列炮",
        "name_en": "Central Cannon against Opposite-Direction Cannons",
    }
    assert client.get("/api/explorer").json()["opening"] is None


def test_the_explorer_names_a_position_by_its_codes_own_name(client: TestClient) -> None:
    # 炮二平五 炮8平5 马二进三 马8进7 车一平二 车9进1 车二进六: D24, which ECCO names
    # itself (its family D20-D29 is 顺炮直车对横车).
    moves = "h2e2 h7e7 h0g2 h9g7 i0h0 i9i8 h0h6"
    answer = client.get("/api/explorer", params={"moves": moves}).json()
    assert answer["opening"] == {
        "code": "D24",
        "name_zh": "顺炮直车对横车 红过河车",
        "name_zh_hant": "順炮直車對橫車 紅過河車",
        "name_en": "Same-Direction Cannons with the Straight Chariot against the Crossing "
        "Chariot; Red: the River-Crossing Chariot",
    }
