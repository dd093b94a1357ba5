"""A club director's tournament over the board, through HTTP on both stores: players
entered by name, club and rating (edited and removed before round 1), rounds paired by the
director and played on real boards (no game on the site), results entered, corrected and a
round's pairing undone, moves entered per board (checked by the rules) and exported as PGN
and TRF; and each bad input's clear message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_accounts import CHEAP, as_, sign_up
from web_helpers import FakeClock, MakeClient

from chuhan.records.pgn import read_pgn

PLAYERS = (
    ("Lü Qin", "Guangdong", 2550),
    ("Xu Yinchuan", "Guangdong", 2500),
    ("Kim Min-jun", "Seoul club", 2100),
    ("Anna Weber", "", 1800),
)


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client(**CHEAP)


def an_event(
    client: TestClient, clock: FakeClock, *, players: int = 4, **fields: Any
) -> tuple[str, str]:
    """An over-the-board Swiss of ``players`` of :data:`PLAYERS`; its id and the director's
    cookie."""
    director = sign_up(client, "Director")
    body = {
        "name": "Club championship",
        "format": "swiss",
        "rounds": 3,
        "starts": clock() + 600,
        "over_the_board": True,
        "tiebreaks": "wxf",
    }
    body.update(fields)
    created = client.post("/api/tournaments", json=body, headers=as_(director))
    assert created.status_code == 201, created.text
    tournament_id = created.json()["tournament"]["id"]
    for name, club, rating in PLAYERS[:players]:
        entered = post(
            client, director, tournament_id, "players", name=name, club=club, rating=rating
        )
        assert entered.status_code == 201, entered.text
    return tournament_id, director


def post(client: TestClient, cookie: str, tournament_id: str, what: str, **body: Any) -> Any:
    return client.post(f"/api/tournaments/{tournament_id}/{what}", json=body, headers=as_(cookie))


def shown(client: TestClient, tournament_id: str) -> Any:
    response = client.get(f"/api/tournaments/{tournament_id}")
    assert response.status_code == 200, response.text
    return response.json()["tournament"]


def refusal(response: Any, status: int = 409) -> str:
    assert response.status_code == status, response.text
    return str(response.json()["error"]["message"])


def test_a_director_runs_a_swiss_over_the_board_to_its_standings(
    client: TestClient, clock: FakeClock
) -> None:
    tournament_id, director = an_event(client, clock)
    before = shown(client, tournament_id)
    assert before["over_the_board"] is True
    assert [(e["id"], e["name"], e["club"], e["rating"]) for e in before["entrants"]] == [
        (f"p:{n}", name, club, rating) for n, (name, club, rating) in enumerate(PLAYERS, 1)
    ]
    paired = post(client, director, tournament_id, "pair")
    assert paired.status_code == 200, paired.text
    boards = paired.json()["tournament"]["paired"][0]
    # Round 1 by pairing numbers (1 v 3, 4 v 2 as the Dutch system pairs four): clubs,
    # ratings and scores for the pairing sheet, and no game made on the site.
    assert [(b["red"], b["red_club"], b["red_rating"], b["red_score"]) for b in boards] == [
        ("Lü Qin", "Guangdong", 2550, 0.0),
        ("Anna Weber", "", 1800, 0.0),
    ]
    assert [b["game"] for b in boards] == [None, None]
    context = client.app.state.context  # type: ignore[attr-defined]
    client.portal.call(context.tournaments.drive)  # type: ignore[union-attr]
    assert [b["game"] for b in shown(client, tournament_id)["paired"][0]] == [None, None]
    assert (
        post(client, director, tournament_id, "result", round=1, board=1, result="1-0").status_code
        == 200
    )
    assert (
        post(
            client, director, tournament_id, "result", round=1, board=2, result="1/2-1/2"
        ).status_code
        == 200
    )
    # The director corrects board 2: the second player won it.
    corrected = post(client, director, tournament_id, "correct", round=1, board=2, result="0-1")
    assert corrected.status_code == 200, corrected.text
    moves = post(
        client,
        director,
        tournament_id,
        "moves",
        round=1,
        board=1,
        moves="1. h2e2 h9g7 2. H2+3 i9h9",
    )
    assert moves.status_code == 200, moves.text
    assert moves.json()["board"]["moves"] == "h2e2 h9g7 h0g2 i9h9"
    assert post(client, director, tournament_id, "pair").status_code == 200
    # The second round paired by mistake (a player was late): undone and paired again.
    undone = post(client, director, tournament_id, "unpair")
    assert undone.status_code == 200 and undone.json()["undone"] == 2
    assert len(undone.json()["tournament"]["paired"]) == 1
    again = post(client, director, tournament_id, "pair")
    assert again.status_code == 200, again.text
    second = again.json()["tournament"]["paired"][1]
    assert sorted(b["red_score"] + b["black_score"] for b in second) == [0.0, 2.0]
    for board in second:
        assert (
            post(
                client,
                director,
                tournament_id,
                "result",
                round=2,
                board=board["board"],
                result="+-",
            ).status_code
            == 200
        )
    assert post(client, director, tournament_id, "pair").status_code == 200
    for board in shown(client, tournament_id)["paired"][2]:
        assert (
            post(
                client,
                director,
                tournament_id,
                "result",
                round=3,
                board=board["board"],
                result="1-0",
            ).status_code
            == 200
        )
    final = shown(client, tournament_id)
    assert final["status"] == "finished"
    assert sum(line["points"] for line in final["standings"]) == 6.0
    assert set(final["standings"][0]["tiebreaks"]) >= {"sonneborn_berger"}
    pgn = client.get(f"/api/tournaments/{tournament_id}/pgn")
    assert pgn.status_code == 200, pgn.text
    (record,) = read_pgn(pgn.text)
    assert (record.headers["Red"], record.headers["Round"], record.result) == (
        "Lü Qin",
        "1.1",
        "1-0",
    )
    assert [move.iccs() for move in record.main_line_moves()] == ["h2e2", "h9g7", "h0g2", "i9h9"]
    trf = client.get(f"/api/tournaments/{tournament_id}/trf")
    assert trf.status_code == 200 and "Kim Min-jun" in trf.text


def test_players_are_edited_and_removed_before_round_one_only(
    client: TestClient, clock: FakeClock
) -> None:
    tournament_id, director = an_event(client, clock)
    url = f"/api/tournaments/{tournament_id}/players"
    edited = client.post(
        f"{url}/4",
        json={"name": "Anna Weber", "club": "Berlin", "rating": 1850},
        headers=as_(director),
    )
    assert edited.status_code == 200, edited.text
    removed = client.delete(f"{url}/3", headers=as_(director))
    assert removed.status_code == 200, removed.text
    entrants = shown(client, tournament_id)["entrants"]
    assert [(e["name"], e["club"], e["rating"]) for e in entrants] == [
        ("Lü Qin", "Guangdong", 2550),
        ("Xu Yinchuan", "Guangdong", 2500),
        ("Anna Weber", "Berlin", 1850),
    ]
    assert post(client, director, tournament_id, "pair").status_code == 200
    late = client.post(
        f"{url}/4", json={"name": "A. Weber", "club": "", "rating": 1}, headers=as_(director)
    )
    assert "once round 1 is paired" in refusal(late)
    assert "once round 1 is paired" in refusal(client.delete(f"{url}/1", headers=as_(director)))
    assert "has no player 'p:9'" in refusal(client.delete(f"{url}/9", headers=as_(director)))
    outsider = sign_up(client, "Outsider")
    assert refusal(client.delete(f"{url}/1", headers=as_(outsider)), 403)


def test_two_directors_editing_the_same_round_get_a_clear_message(
    client: TestClient, clock: FakeClock
) -> None:
    tournament_id, director = an_event(client, clock)
    assert post(client, director, tournament_id, "pair").status_code == 200
    read = shown(client, tournament_id)["revision"]
    first = post(
        client, director, tournament_id, "result", round=1, board=1, result="1-0", revision=read
    )
    assert first.status_code == 200, first.text
    # The second director's laptop read the round before the first's entry.
    second = post(
        client, director, tournament_id, "result", round=1, board=2, result="0-1", revision=read
    )
    assert "has changed since you read it" in refusal(second)
    undo = post(client, director, tournament_id, "unpair", revision=read)
    assert "has changed since you read it" in refusal(undo)
    assert [b["result"] for b in shown(client, tournament_id)["paired"][0]] == ["1-0", None]


def test_the_bad_inputs_of_a_director_each_get_a_clear_message(
    client: TestClient, clock: FakeClock
) -> None:
    tournament_id, director = an_event(client, clock)
    players = "players"
    assert "is empty" in refusal(
        post(client, director, tournament_id, players, name="  ", rating=1500)
    )
    long = post(client, director, tournament_id, players, name="N" * 61, rating=1500)
    assert "61 characters long; at most 60" in refusal(long)
    bell = post(client, director, tournament_id, players, name="Ring\x07er", rating=1500)
    assert "control character (U+0007)" in refusal(bell)
    tab_club = post(client, director, tournament_id, players, name="Tab", club="a\tb", rating=1500)
    assert "the club" in refusal(tab_club)
    assert "not 9000" in refusal(
        post(client, director, tournament_id, players, name="X", rating=9000)
    )
    twice = post(client, director, tournament_id, players, name="Lü Qin", rating=1500)
    assert "named 'Lü Qin' already" in refusal(twice)
    assert "'rating' must be a int" in refusal(
        post(client, director, tournament_id, players, name="Y", rating="high"), 400
    )
    # Results: twice, a board not in the round, a correction of a board without one.
    assert post(client, director, tournament_id, "pair").status_code == 200
    assert (
        post(client, director, tournament_id, "result", round=1, board=1, result="1-0").status_code
        == 200
    )
    again = post(client, director, tournament_id, "result", round=1, board=1, result="0-1")
    assert "already has its result (1-0)" in refusal(again)
    assert "round 1 has no board 7" in refusal(
        post(client, director, tournament_id, "result", round=1, board=7, result="1-0")
    )
    assert "round 4 has no board 1" in refusal(
        post(client, director, tournament_id, "correct", round=4, board=1, result="1-0")
    )
    assert "no result to correct" in refusal(
        post(client, director, tournament_id, "correct", round=1, board=2, result="1-0")
    )
    # A pairing asked for while a result is missing; undoing a round that has begun.
    assert "round 1 still has games without a result (boards 2)" in refusal(
        post(client, director, tournament_id, "pair")
    )
    assert "round 1 has started" in refusal(post(client, director, tournament_id, "unpair"))
    # A bad move says which.
    bad = post(client, director, tournament_id, "moves", round=1, board=1, moves="h2e2 h9g7 h2h9")
    assert "move 3 ('h2h9') is refused" in refusal(bad)
    assert "move 1 ('zz')" in refusal(
        post(client, director, tournament_id, "moves", round=1, board=1, moves="zz")
    )
    # Accounts do not join and computers do not play over the board.
    player = sign_up(client, "Walker")
    assert "entered by its director" in refusal(post(client, player, tournament_id, "join"))
    assert "real board" in refusal(post(client, director, tournament_id, "computer", level=2))


def test_an_absurd_event_or_a_start_in_the_past_is_refused(
    client: TestClient, clock: FakeClock
) -> None:
    director = sign_up(client, "Director")
    base = {
        "name": "Open",
        "format": "swiss",
        "rounds": 5,
        "starts": clock() + 60,
        "over_the_board": True,
    }
    cases: list[tuple[dict[str, object], str]] = [
        ({"rounds": 500}, "a Swiss has 1 to 30 rounds, not 500"),
        ({"max_players": 100000}, "a tournament takes 2 to 2000 players, not 100000"),
        ({"starts": clock() - 3600}, "the start time is 3600 seconds in the past"),
        ({"name": "Open\nfinal"}, "control character (U+000A)"),
        ({"name": ""}, "a tournament needs a name"),
    ]
    for change, message in cases:
        response = client.post("/api/tournaments", json={**base, **change}, headers=as_(director))
        assert message in refusal(response), change
    small = client.post("/api/tournaments", json={**base, "max_players": 2}, headers=as_(director))
    tournament_id = small.json()["tournament"]["id"]
    for name, club, rating in PLAYERS[:2]:
        assert (
            post(
                client, director, tournament_id, "players", name=name, club=club, rating=rating
            ).status_code
            == 201
        )
    full = post(client, director, tournament_id, "players", name="Third", rating=1500)
    assert "the tournament is full (2 players)" in refusal(full)


def test_online_tournaments_keep_their_players_and_rounds_to_themselves(
    client: TestClient, clock: FakeClock
) -> None:
    director = sign_up(client, "Director")
    body = {"name": "Online", "format": "swiss", "rounds": 2, "starts": clock() + 60}
    tournament_id = client.post("/api/tournaments", json=body, headers=as_(director)).json()[
        "tournament"
    ]["id"]
    entered = post(client, director, tournament_id, "players", name="Someone", rating=1500)
    assert "only an over-the-board tournament" in refusal(entered)
    assert "only an over-the-board round" in refusal(
        post(client, director, tournament_id, "unpair")
    )


def test_the_printed_pages_are_served_by_name_and_an_unknown_one_is_not(
    client: TestClient, clock: FakeClock, static_dir: Path
) -> None:
    tournament_id, _ = an_event(client, clock, players=2)
    missing = client.get(f"/t/{tournament_id}/print/pairings")
    assert missing.status_code == 500 and "print.html" in missing.text  # (no such file here)
    (static_dir / "print.html").write_text("<!doctype html><title>print</title>", encoding="utf-8")
    for kind in ("pairings", "scoresheets", "standings"):
        page = client.get(f"/t/{tournament_id}/print/{kind}")
        assert page.status_code == 200 and page.text.startswith("<!doctype html>"), kind
    unknown = client.get(f"/t/{tournament_id}/print/crosstable")
    assert unknown.status_code == 404
    assert unknown.text == "Not Found: a tournament prints pairings, scoresheets, standings"


def test_a_player_marked_absent_gets_a_zero_point_bye_until_marked_back(
    client: TestClient, clock: FakeClock
) -> None:
    tournament_id, director = an_event(client, clock, players=4)
    url = f"/api/tournaments/{tournament_id}/players"
    absent = client.post(f"{url}/4/pause", json={}, headers=as_(director))
    assert absent.status_code == 200 and absent.json()["player"] == {"id": "p:4", "paused": True}
    twice = client.post(f"{url}/4/pause", json={}, headers=as_(director))
    assert "paused already" in refusal(twice)
    assert "has no player 'p:9'" in refusal(
        client.post(f"{url}/9/pause", json={}, headers=as_(director))
    )
    assert post(client, director, tournament_id, "pair").status_code == 200
    first = shown(client, tournament_id)["paired"][0]
    # Three present: one board and the pairing bye; Anna Weber is not paired.
    assert "Anna Weber" not in {b["red"] for b in first} | {b["black"] for b in first}
    for board in first:
        if board["black"] is not None:
            assert (
                post(
                    client,
                    director,
                    tournament_id,
                    "result",
                    round=1,
                    board=board["board"],
                    result="1-0",
                ).status_code
                == 200
            )
    assert client.post(f"{url}/4/resume", json={}, headers=as_(director)).status_code == 200
    assert post(client, director, tournament_id, "pair").status_code == 200
    after = shown(client, tournament_id)
    second = after["paired"][1]
    assert "Anna Weber" in {b["red"] for b in second} | {b["black"] for b in second}
    (weber,) = [line for line in after["standings"] if line["name"] == "Anna Weber"]
    assert weber["points"] == 0.0


def test_the_director_gives_a_player_a_half_point_bye_and_the_exports_show_it(
    client: TestClient, clock: FakeClock
) -> None:
    tournament_id, director = an_event(
        client, clock, players=4, half_byes=1, half_bye_closed_rounds=1
    )
    url = f"/api/tournaments/{tournament_id}/players"
    revision = shown(client, tournament_id)["revision"]
    asked = client.post(
        f"{url}/3/bye", json={"round": 2, "revision": revision}, headers=as_(director)
    )
    assert asked.status_code == 200, asked.text
    assert asked.json() == {"player": {"name": "Kim Min-jun", "byes": [2]}}
    assert "changed since you read it" in refusal(
        client.post(f"{url}/3/bye/cancel", json={"revision": revision}, headers=as_(director))
    )
    assert "no half-point bye in the last round 3" in refusal(
        client.post(f"{url}/4/bye", json={"round": 3}, headers=as_(director))
    )
    assert "has no player 'p:9'" in refusal(
        client.post(f"{url}/9/bye", json={}, headers=as_(director))
    )
    player = sign_up(client, "Kim")
    assert "given by its director" in refusal(post(client, player, tournament_id, "bye"))
    assert refusal(client.post(f"{url}/3/bye", json={}, headers=as_(player)), 403)
    for number in (1, 2):
        assert post(client, director, tournament_id, "pair").status_code == 200
        boards = shown(client, tournament_id)["paired"][number - 1]
        for board in boards:
            if board["black"] is not None:
                entered = post(
                    client,
                    director,
                    tournament_id,
                    "result",
                    round=number,
                    board=board["board"],
                    result="1/2-1/2",
                )
                assert entered.status_code == 200, entered.text
    after = shown(client, tournament_id)
    second = after["paired"][1]
    assert "Kim Min-jun" not in {b["red"] for b in second} | {b["black"] for b in second}
    assert after["requested_byes"] == [[], ["Kim Min-jun"]]
    # Every game drawn: Kim ½ + the half-point bye's ½; of the three others in round 2,
    # two drew (1 each) and one had the pairing-allocated bye (½ + 1).
    points = {line["name"]: line["points"] for line in after["standings"]}
    assert points["Kim Min-jun"] == 1.0
    assert sorted(points.values()) == [1.0, 1.0, 1.0, 1.5]
    pgn = client.get(f"/api/tournaments/{tournament_id}/pgn").text
    (kim,) = [line for line in pgn.splitlines() if "Kim Min-jun" in line and line.startswith("%")]
    assert "½bye" in kim.split()
    trf_text = client.get(f"/api/tournaments/{tournament_id}/trf").text
    (line,) = [row for row in trf_text.splitlines() if "Kim Min-jun" in row]
    assert line[101:111] == "0000 - H  "
