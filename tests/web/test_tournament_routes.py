"""Tournaments through HTTP against the real server app, on both stores: create, list,
join, withdraw, pair a round (its games made and played over the game websocket, their
ends giving the boards their results), and the refusals."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient
from test_accounts import CHEAP, OPENING, Seat, as_, sign_up
from web_helpers import FakeClock, FakeEngine, MakeClient

from chuhan.records.pgn import read_pgn


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client(**CHEAP)


def create(client: TestClient, cookie: str, clock: FakeClock, **fields: Any) -> Any:
    body = {"name": "Saturday Swiss", "format": "swiss", "rounds": 2, "starts": clock() + 600}
    body.update(fields)
    return client.post("/api/tournaments", json=body, headers=as_(cookie))


def a_swiss(client: TestClient, clock: FakeClock, players: int = 4) -> tuple[str, list[str]]:
    """A Swiss directed by the first of ``players`` accounts, all of them entered."""
    cookies = [sign_up(client, f"Player{n}") for n in range(players)]
    response = create(client, cookies[0], clock)
    assert response.status_code == 201, response.text
    tournament_id = response.json()["tournament"]["id"]
    for cookie in cookies:
        joined = client.post(f"/api/tournaments/{tournament_id}/join", json={}, headers=as_(cookie))
        assert joined.status_code == 200, joined.text
    return tournament_id, cookies


def shown(client: TestClient, tournament_id: str) -> Any:
    response = client.get(f"/api/tournaments/{tournament_id}")
    assert response.status_code == 200, response.text
    return response.json()["tournament"]


def seats_by_game(
    client: TestClient, tournament_id: str, cookies: list[str]
) -> dict[str, dict[str, Seat]]:
    """Every paired player's seat in the game of the round (or the arena) being played,
    by game and seat (a player not paired has none)."""
    games: dict[str, dict[str, Seat]] = {}
    for cookie in cookies:
        url = f"/api/tournaments/{tournament_id}/game"
        response = client.post(url, json={}, headers=as_(cookie))
        if response.status_code != 200:
            continue
        game = response.json()["game"]
        games.setdefault(game["game_id"], {})[game["seat"]] = Seat(
            client, game["game_id"], game["token"], cookie
        )
    return games


def first_moves(seats: dict[str, Seat]) -> None:
    """Both sides of a game say hello and make their first moves."""
    red, black = seats["first"], seats["second"]
    red.hello()
    black.hello()
    red.move("h2e2")
    black.wait_state(lambda state: state["ply"] == 1)
    black.move("h9g7")
    red.wait_state(lambda state: state["ply"] == 2)


def play_to_a_result(client: TestClient, tournament_id: str, cookies: list[str]) -> None:
    """Every paired player opens the game; in each, after the opening, black resigns."""
    games = seats_by_game(client, tournament_id, cookies)
    for seats in games.values():
        red, black = seats["first"], seats["second"]
        red.hello()
        black.hello()
        for ply, move in enumerate(OPENING):
            mover, other = (red, black) if ply % 2 == 0 else (black, red)
            mover.move(move)
            other.wait_state(lambda state, ply=ply: state["ply"] == ply + 1)
        black.do("resign")
    context = client.app.state.context  # type: ignore[attr-defined]
    client.portal.call(context.tournaments.idle)  # type: ignore[union-attr]


def test_a_swiss_is_created_entered_paired_and_played_to_its_standings(
    client: TestClient, clock: FakeClock
) -> None:
    tournament_id, cookies = a_swiss(client, clock)
    listed = client.get("/api/tournaments?status=created").json()["tournaments"]
    assert [(t["id"], t["players"]) for t in listed] == [(tournament_id, 4)]
    paired = client.post(f"/api/tournaments/{tournament_id}/pair", json={}, headers=as_(cookies[0]))
    assert paired.status_code == 200, paired.text
    first_round = paired.json()["tournament"]["paired"][0]
    assert len(first_round) == 2 and all(board["result"] is None for board in first_round)
    play_to_a_result(client, tournament_id, cookies)
    after = shown(client, tournament_id)
    assert after["status"] == "running"
    assert [board["result"] for board in after["paired"][0]] == ["1-0", "1-0"]
    assert sorted(line["points"] for line in after["standings"]) == [0.0, 0.0, 1.0, 1.0]
    second = client.post(f"/api/tournaments/{tournament_id}/pair", json={}, headers=as_(cookies[0]))
    assert second.status_code == 200, second.text
    rounds = second.json()["tournament"]["paired"]
    met = {frozenset((b["red"], b["black"])) for b in rounds[0]}
    assert not met & {frozenset((b["red"], b["black"])) for b in rounds[1]}
    play_to_a_result(client, tournament_id, cookies)
    final = shown(client, tournament_id)
    assert final["standings"][0]["points"] == 2.0
    assert set(final["standings"][0]["tiebreaks"]) == {
        "buchholz",
        "direct_encounter",
        "won",
        "wins_black",
        "games_black",
    }


def test_only_the_director_pairs_and_not_while_games_run(
    client: TestClient, clock: FakeClock
) -> None:
    tournament_id, cookies = a_swiss(client, clock)
    url = f"/api/tournaments/{tournament_id}/pair"
    refused = client.post(url, json={}, headers=as_(cookies[1]))
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_director"
    assert (
        client.post(
            f"/api/tournaments/{tournament_id}/pair", json={}, headers=as_(cookies[0])
        ).status_code
        == 200
    )
    again = client.post(f"/api/tournaments/{tournament_id}/pair", json={}, headers=as_(cookies[0]))
    assert again.status_code == 409
    assert "round 1 still has games without a result" in again.json()["error"]["message"]
    assert len(shown(client, tournament_id)["paired"]) == 1


def test_the_page_is_the_app_and_is_told_who_directs_and_who_entered(
    client: TestClient, clock: FakeClock
) -> None:
    tournament_id, cookies = a_swiss(client, clock, players=2)
    outsider = sign_up(client, "Outsider")
    url = f"/api/tournaments/{tournament_id}"
    director = client.get(url, headers=as_(cookies[0])).json()["tournament"]["you"]
    player = client.get(url, headers=as_(cookies[1])).json()["tournament"]["you"]
    other = client.get(url, headers=as_(outsider)).json()["tournament"]["you"]
    assert director == {"director": True, "entrant": "Player0"}
    assert player == {"director": False, "entrant": "Player1"}
    assert other == {"director": False, "entrant": None}
    client.cookies.clear()
    assert client.get(url).json()["tournament"]["you"] == {"director": False, "entrant": None}
    page = client.get(f"/t/{tournament_id}")
    assert page.status_code == 200 and "<!doctype html>" in page.text
    # Each board names its game once made, for the page's links to watch it.
    paired = client.post(f"{url}/pair", json={}, headers=as_(cookies[0]))
    assert paired.status_code == 200, paired.text
    game = client.post(f"{url}/game", json={}, headers=as_(cookies[1])).json()["game"]
    assert [board["game"] for board in shown(client, tournament_id)["paired"][0]] == [
        game["game_id"]
    ]


def test_a_stale_revision_is_refused(client: TestClient, clock: FakeClock) -> None:
    tournament_id, cookies = a_swiss(client, clock)
    revision = shown(client, tournament_id)["revision"]
    client.post(f"/api/tournaments/{tournament_id}/withdraw", json={}, headers=as_(cookies[3]))
    stale = client.post(
        f"/api/tournaments/{tournament_id}/pair",
        json={"revision": revision},
        headers=as_(cookies[0]),
    )
    assert stale.status_code == 409
    assert "has changed since you read it" in stale.json()["error"]["message"]


def test_a_withdrawn_player_is_not_paired(client: TestClient, clock: FakeClock) -> None:
    tournament_id, cookies = a_swiss(client, clock, players=5)
    withdrawn = client.post(
        f"/api/tournaments/{tournament_id}/withdraw", json={}, headers=as_(cookies[4])
    )
    assert withdrawn.json() == {"withdrawn": {"name": "Player4", "after_round": 0}}
    paired = client.post(f"/api/tournaments/{tournament_id}/pair", json={}, headers=as_(cookies[0]))
    boards = paired.json()["tournament"]["paired"][0]
    assert "Player4" not in {name for board in boards for name in (board["red"], board["black"])}
    assert all(board["black"] is not None for board in boards)


def test_entering_twice_and_entering_without_the_code_are_refused(
    client: TestClient, clock: FakeClock
) -> None:
    director, player = sign_up(client, "Director"), sign_up(client, "Player")
    response = create(client, director, clock, entry="code", code="dragon")
    assert response.status_code == 201, response.text
    assert "code" not in response.text.replace('"entry":"code"', "")
    tournament_id = response.json()["tournament"]["id"]
    url = f"/api/tournaments/{tournament_id}/join"
    wrong = client.post(url, json={"code": "tiger"}, headers=as_(player))
    assert wrong.status_code == 409 and "entered with its code" in wrong.json()["error"]["message"]
    assert client.post(url, json={"code": "dragon"}, headers=as_(player)).status_code == 200
    twice = client.post(url, json={"code": "dragon"}, headers=as_(player))
    assert twice.status_code == 409 and "already entered" in twice.json()["error"]["message"]


@pytest.mark.parametrize(
    ("fields", "status", "message"),
    [
        ({"starts": 1.0}, 409, "the start time is"),
        ({"rounds": 1000}, 409, "a Swiss has 1 to 30 rounds, not 1000"),
        ({"format": "knockout"}, 400, "'format' must be arena, swiss or round_robin"),
        ({"variant": "shogi"}, 400, "shogi"),
        ({"tiebreaks": ["coin toss"]}, 400, "'tiebreaks' has 'coin toss'"),
        ({"name": "   "}, 409, "a tournament needs a name"),
        ({"max_players": 10**9}, 409, "2 to 2000 players"),
        ({"entry": "code"}, 409, "needs its 'code'"),
        ({"starts": "tomorrow"}, 400, "'starts' must be the start time"),
    ],
)
def test_a_bad_tournament_gets_a_sentence(
    client: TestClient, clock: FakeClock, fields: dict[str, Any], status: int, message: str
) -> None:
    cookie = sign_up(client, "Director")
    response = create(client, cookie, clock, **fields)
    assert response.status_code == status, response.text
    assert message in response.json()["error"]["message"]


def test_tournaments_need_an_account(client: TestClient, clock: FakeClock) -> None:
    response = client.post("/api/tournaments", json={"name": "x", "starts": clock() + 60})
    assert response.status_code == 401 and response.json()["error"]["code"] == "not_signed_in"
    missing = client.get("/api/tournaments/nothing-here")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "no_such_tournament"


def test_a_round_robin_is_paired_by_berger_and_exported_in_trf(
    client: TestClient, clock: FakeClock
) -> None:
    cookies = [sign_up(client, f"Player{n}") for n in range(4)]
    response = create(client, cookies[0], clock, format="round_robin", rounds=1, name="Club RR")
    assert response.status_code == 201, response.text
    tournament_id = response.json()["tournament"]["id"]
    for cookie in cookies:
        client.post(f"/api/tournaments/{tournament_id}/join", json={}, headers=as_(cookie))
    for _ in range(3):
        paired = client.post(
            f"/api/tournaments/{tournament_id}/pair", json={}, headers=as_(cookies[0])
        )
        assert paired.status_code == 200, paired.text
        play_to_a_result(client, tournament_id, cookies)
    done = client.post(f"/api/tournaments/{tournament_id}/pair", json={}, headers=as_(cookies[0]))
    assert done.status_code == 409 and "the tournament is over" in done.text
    assert shown(client, tournament_id)["status"] == "finished"
    rounds = shown(client, tournament_id)["paired"]
    games = [frozenset((board["red"], board["black"])) for boards in rounds for board in boards]
    assert len(set(games)) == 6  # everyone met everyone once
    exported = client.get(f"/api/tournaments/{tournament_id}/trf")
    assert exported.status_code == 200
    lines = exported.text.splitlines()
    assert lines[0] == "012 Club RR" and "XXR 3" in lines
    players = [line for line in lines if line.startswith("001")]
    assert len(players) == 4
    # Every game went to red (black resigned): each line's results are its colours.
    for line in players:
        for block in range(3):
            cell = line[91 + 10 * block : 101 + 10 * block]
            assert cell[5:8] in ("w 1", "b 0"), line


def test_the_director_enters_forfeits_and_keeps_players_apart(
    client: TestClient, clock: FakeClock
) -> None:
    tournament_id, cookies = a_swiss(client, clock)
    base = f"/api/tournaments/{tournament_id}"
    director = as_(cookies[0])
    apart = client.post(
        f"{base}/forbid", json={"first": "Player0", "second": "Player2"}, headers=director
    )
    assert apart.status_code == 200, apart.text
    unknown = client.post(
        f"{base}/forbid", json={"first": "Player0", "second": "Nobody"}, headers=director
    )
    assert unknown.status_code == 409 and "'Nobody' is not a player" in unknown.text
    boards = client.post(f"{base}/pair", json={}, headers=director).json()["tournament"]["paired"][
        0
    ]
    assert all({board["red"], board["black"]} != {"Player0", "Player2"} for board in boards)
    not_director = client.post(
        f"{base}/result", json={"round": 1, "board": 1, "result": "+-"}, headers=as_(cookies[1])
    )
    assert not_director.status_code == 403
    bad = client.post(
        f"{base}/result", json={"round": 1, "board": 1, "result": "2-0"}, headers=director
    )
    assert bad.status_code == 400 and "'result' must be one of 1-0, 0-1" in bad.text
    for board in (1, 2):
        entered = client.post(
            f"{base}/result", json={"round": 1, "board": board, "result": "+-"}, headers=director
        )
        assert entered.status_code == 200, entered.text
    twice = client.post(
        f"{base}/result", json={"round": 1, "board": 1, "result": "-+"}, headers=director
    )
    assert twice.status_code == 409 and "already has its result (+-)" in twice.text
    after = shown(client, tournament_id)
    assert [board["result"] for board in after["paired"][0]] == ["+-", "+-"]
    assert sorted(line["points"] for line in after["standings"]) == [0.0, 0.0, 1.0, 1.0]
    # A forfeit is no game: the Swiss may pair the same two again.
    assert client.post(f"{base}/pair", json={}, headers=director).status_code == 200


def test_an_arena_pairs_its_waiting_players_again_as_games_end(
    client: TestClient, clock: FakeClock
) -> None:
    cookies = [sign_up(client, f"Player{n}") for n in range(4)]
    response = create(client, cookies[0], clock, format="arena", minutes=30, name="Blitz arena")
    assert response.status_code == 201, response.text
    tournament_id = response.json()["tournament"]["id"]
    base = f"/api/tournaments/{tournament_id}"
    for cookie in cookies:
        assert client.post(f"{base}/join", json={}, headers=as_(cookie)).status_code == 200
    early = client.post(f"{base}/pair", json={}, headers=as_(cookies[0]))
    assert early.status_code == 409 and "the arena starts in 600 seconds" in early.text
    clock.advance(600)
    started = client.post(f"{base}/pair", json={}, headers=as_(cookies[0]))
    assert started.status_code == 200, started.text
    assert len(started.json()["tournament"]["games"]) == 2
    play_to_a_result(client, tournament_id, cookies)
    after = shown(client, tournament_id)
    games = after["games"]
    # Both games ended (red won each); the four waiting players were paired again as the
    # standings place them, the winners together and the losers together (not the last
    # opponent, whom a player only meets again after another game).
    assert [game["result"] for game in games] == ["1-0", "1-0", None, None]
    first = [frozenset((game["red"], game["black"])) for game in games[:2]]
    winners = frozenset(game["red"] for game in games[:2])
    losers = frozenset(game["black"] for game in games[:2])
    second = [frozenset((game["red"], game["black"])) for game in games[2:]]
    assert sorted(second, key=sorted) == sorted([winners, losers], key=sorted)
    assert not set(first) & set(second)
    assert sorted(line["points"] for line in after["standings"]) == [0, 0, 2, 2]
    clock.advance(30 * 60)
    over = client.post(f"{base}/pair", json={}, headers=as_(cookies[0]))
    assert over.status_code == 409 and "the arena is over" in over.text


def test_an_arenas_games_are_read_a_page_at_a_time_newest_first(
    client: TestClient, clock: FakeClock
) -> None:
    cookies = [sign_up(client, f"Arena{n}") for n in range(4)]
    response = create(client, cookies[0], clock, format="arena", minutes=30, name="Paged arena")
    tournament_id = response.json()["tournament"]["id"]
    base = f"/api/tournaments/{tournament_id}"
    for cookie in cookies:
        assert client.post(f"{base}/join", json={}, headers=as_(cookie)).status_code == 200
    clock.advance(600)
    assert client.post(f"{base}/pair", json={}, headers=as_(cookies[0])).status_code == 200
    play_to_a_result(client, tournament_id, cookies)
    first = client.get(f"{base}/games?limit=3")
    assert first.status_code == 200, first.text
    assert [game["board"] for game in first.json()["games"]] == [4, 3, 2]
    assert first.json()["games_count"] == 4 and first.json()["next"] == 2
    rest = client.get(f"{base}/games?before=2&limit=3").json()
    assert [(game["board"], game["result"]) for game in rest["games"]] == [(1, "1-0")]
    assert rest["next"] is None
    bad = client.get(f"{base}/games?limit=1000")
    assert bad.status_code == 400 and "'limit' must be a whole number from 1 to 100" in bad.text
    swiss = create(client, cookies[0], clock).json()["tournament"]["id"]
    refused = client.get(f"/api/tournaments/{swiss}/games")
    assert refused.status_code == 409 and "only an arena's games are read by page" in refused.text


def drive(client: TestClient) -> None:
    """The driver's look, once (the app's own looks come every beat_seconds as well)."""
    context = client.app.state.context  # type: ignore[attr-defined]
    client.portal.call(context.tournaments.drive)  # type: ignore[union-attr]


def test_the_driver_starts_a_swiss_on_time_pairs_each_round_and_finishes_it(
    client: TestClient, clock: FakeClock
) -> None:
    tournament_id, cookies = a_swiss(client, clock)
    drive(client)
    assert shown(client, tournament_id)["paired"] == []  # (not before its start)
    clock.advance(600)
    drive(client)
    for number in (1, 2):
        paired = shown(client, tournament_id)["paired"]
        assert len(paired) == number and all(board["game"] for board in paired[-1])
        play_to_a_result(client, tournament_id, cookies)
        drive(client)
    over = shown(client, tournament_id)
    assert over["status"] == "finished" and len(over["paired"]) == 2
    assert sorted(line["points"] for line in over["standings"]) == [0, 1, 1, 2]


def test_the_driver_finishes_an_arena_after_its_minutes_once_its_games_are_over(
    client: TestClient, clock: FakeClock
) -> None:
    cookies = [sign_up(client, f"Player{n}") for n in range(2)]
    response = create(client, cookies[0], clock, format="arena", minutes=30, name="Arena")
    tournament_id = response.json()["tournament"]["id"]
    for cookie in cookies:
        client.post(f"/api/tournaments/{tournament_id}/join", json={}, headers=as_(cookie))
    clock.advance(600)
    drive(client)
    started = shown(client, tournament_id)
    assert started["status"] == "running" and len(started["games"]) == 1
    # Both make their first moves (a game not started in time would be called off).
    (seats,) = seats_by_game(client, tournament_id, cookies).values()
    first_moves(seats)
    clock.advance(30 * 60)
    drive(client)
    assert shown(client, tournament_id)["status"] == "running"  # (its game is not over)
    seats["first"].do("resign")
    tournaments = client.app.state.context.tournaments  # type: ignore[attr-defined]
    client.portal.call(tournaments.idle)  # type: ignore[union-attr]
    drive(client)
    assert shown(client, tournament_id)["status"] == "finished"


def test_every_game_of_the_tournament_downloads_in_one_pgn_file(
    client: TestClient, clock: FakeClock
) -> None:
    tournament_id, cookies = a_swiss(client, clock)
    for _ in range(2):
        paired = client.post(
            f"/api/tournaments/{tournament_id}/pair", json={}, headers=as_(cookies[0])
        )
        assert paired.status_code == 200, paired.text
        play_to_a_result(client, tournament_id, cookies)
    response = client.get(f"/api/tournaments/{tournament_id}/pgn")
    assert response.status_code == 200, response.text
    assert f'filename="{tournament_id}.pgn"' in response.headers["content-disposition"]
    text = response.text
    assert text.count('[Event "Saturday Swiss"]') == 4
    rounds = [line for line in text.splitlines() if line.startswith("[Round ")]
    assert rounds == ['[Round "1.1"]', '[Round "1.2"]', '[Round "2.1"]', '[Round "2.2"]']
    assert text.count('[Result "1-0"]') == 4
    # Each game is its own PGN: the same as the game's download, but the event and round.
    game_id = shown(client, tournament_id)["paired"][0][0]["game"]
    alone = client.get(f"/api/games/{game_id}/pgn").text
    moves = alone.split("\n\n", 1)[1].strip()
    assert moves in text
    # The crosstable first, in lines PGN readers skip: the winner of both rounds first.
    table = [line for line in text.splitlines() if line.startswith("%")]
    assert table[0] == "% Saturday Swiss" and table[1].split()[1:4] == ["#", "Name", "1"]
    winner = table[2].split()
    assert winner[1] == "1" and winner[3].startswith("+") and winner[5] == "2"
    records = read_pgn(text)  # (chuhan's own reader skips the table)
    assert len(records) == 4 and not any(record.errors for record in records)
    missing = client.get("/api/tournaments/nope/pgn")
    assert missing.status_code == 404 and "there is no tournament 'nope'" in missing.text


def test_a_round_kept_without_its_games_gets_them_at_the_drivers_next_look(
    client: TestClient, clock: FakeClock
) -> None:
    # A driver that died between keeping a round and making its games, played by keeping
    # the round through the repository alone: the next look makes each board's game once.
    tournament_id, _ = a_swiss(client, clock)
    context = client.app.state.context  # type: ignore[attr-defined]
    repository = context.tournaments.repository
    client.portal.call(repository.pair_round, tournament_id)  # type: ignore[union-attr]
    drive(client)  # (or the app's own look, running beside it: either makes them)
    made = [board["game"] for board in shown(client, tournament_id)["paired"][0]]
    assert all(made) and len(set(made)) == 2
    drive(client)
    assert [board["game"] for board in shown(client, tournament_id)["paired"][0]] == made


def test_a_tournament_of_days_per_move_is_refused_and_a_clock_of_minutes_kept(
    client: TestClient, clock: FakeClock
) -> None:
    cookie = sign_up(client, "Organiser")
    days = create(client, cookie, clock, time_control="3d")
    assert days.status_code == 400, days.text
    assert "'3 days per move': tournaments are played with a clock of minutes" in days.text
    kept = create(client, cookie, clock, time_control="20 3x30")
    assert kept.status_code == 201, kept.text
    assert kept.json()["tournament"]["time_control"] == {
        "base": 1200.0,
        "increment": 0.0,
        "periods": 3,
        "period_seconds": 30.0,
    }


#: Thirteen plies: Red makes seven moves, Black six (then Black resigns).
SEVEN_MOVES = (*OPENING, "i0h0", "b9c7", "b0c2", "a9a8", "a0a1", "c6c5", "g3g4", "c9e7", "c3c4")


def test_a_berserk_halves_the_clock_takes_the_increment_and_scores_a_point_more(
    client: TestClient, clock: FakeClock
) -> None:
    cookies = [sign_up(client, f"Player{n}") for n in range(2)]
    response = create(
        client, cookies[0], clock, format="arena", minutes=30, name="Berserk", time_control="3+2"
    )
    assert response.status_code == 201, response.text
    base = f"/api/tournaments/{response.json()['tournament']['id']}"
    for cookie in cookies:
        assert client.post(f"{base}/join", json={}, headers=as_(cookie)).status_code == 200
    clock.advance(600)
    assert client.post(f"{base}/pair", json={}, headers=as_(cookies[0])).status_code == 200
    seats: dict[str, Seat] = {}
    cookie_of: dict[str, str] = {}
    for cookie in cookies:
        game = client.post(f"{base}/game", json={}, headers=as_(cookie)).json()["game"]
        seats[game["seat"]] = Seat(client, game["game_id"], game["token"], cookie)
        cookie_of[game["seat"]] = cookie
    red, black = seats["first"], seats["second"]
    red.hello()
    black.hello()
    red_cookie = cookie_of["first"]
    berserked = client.post(f"{base}/berserk", json={}, headers=as_(red_cookie))
    assert berserked.status_code == 200, berserked.text
    state = red.wait_state(lambda state: state["clock"]["first"]["remaining_ms"] == 90_000)
    assert state["clock"]["second"]["remaining_ms"] == 180_000
    again = client.post(f"{base}/berserk", json={}, headers=as_(red_cookie))
    assert again.status_code == 409 and "you have berserked already" in again.text
    for ply, move in enumerate(SEVEN_MOVES):
        mover, other = (red, black) if ply % 2 == 0 else (black, red)
        mover.move(move)
        other.wait_state(lambda state, ply=ply: state["ply"] == ply + 1)
    late = client.post(f"{base}/berserk", json={}, headers=as_(cookie_of["second"]))
    assert late.status_code == 409 and "before your first move" in late.text
    clocks = red.state["clock"]
    assert clocks["first"]["remaining_ms"] == 90_000  # (no increment for the berserker)
    assert clocks["second"]["remaining_ms"] == 180_000 + 6 * 2_000
    black.do("resign")
    context = client.app.state.context  # type: ignore[attr-defined]
    client.portal.call(context.tournaments.idle)  # type: ignore[union-attr]
    tournament_id = base.removeprefix("/api/tournaments/")
    assert sorted(line["points"] for line in shown(client, tournament_id)["standings"]) == [0, 3]


def play_against_the_computer(client: TestClient, tournament_id: str, cookie: str) -> None:
    """The player opens their game against a computer, makes a move (the first legal one
    the state offers) once it is their turn and the computer has answered, and resigns."""
    response = client.post(f"/api/tournaments/{tournament_id}/game", json={}, headers=as_(cookie))
    assert response.status_code == 200, response.text
    game = response.json()["game"]
    me = Seat(client, game["game_id"], game["token"], cookie)
    me.hello()
    state = me.wait_state(lambda state: state["you"]["your_turn"])
    assert state["players"]["second" if game["seat"] == "first" else "first"]["kind"] == (
        "computer"
    )
    source, targets = next(iter(state["legal"].items()))
    ply = state["ply"]
    me.move(source + targets[0])
    me.wait_state(lambda state: state["ply"] == ply + 2)  # (the computer answered)
    me.do("resign")
    me.close()


def test_a_swiss_of_two_accounts_and_two_computers_is_played_to_its_standings(
    client: TestClient, clock: FakeClock, engine: FakeEngine
) -> None:
    cookies = [sign_up(client, f"Player{n}") for n in range(2)]
    response = create(client, cookies[0], clock, time_control="5+3")
    assert response.status_code == 201, response.text
    tournament_id = response.json()["tournament"]["id"]
    base = f"/api/tournaments/{tournament_id}"
    for cookie in cookies:
        assert client.post(f"{base}/join", json={}, headers=as_(cookie)).status_code == 200
    for level in (1, 2):
        added = client.post(f"{base}/computer", json={"level": level}, headers=as_(cookies[0]))
        assert added.status_code == 200, added.text
    not_director = client.post(f"{base}/computer", json={"level": 1}, headers=as_(cookies[1]))
    assert not_director.status_code == 403
    absurd = client.post(f"{base}/computer", json={"level": 9}, headers=as_(cookies[0]))
    assert absurd.status_code == 409 and "a computer's level is 1 to 8, not 9" in absurd.text
    names = [entrant["name"] for entrant in shown(client, tournament_id)["entrants"]]
    assert names == ["Player0", "Player1", "Computer 1 (level 1)", "Computer 2 (level 2)"]
    clock.advance(600)
    drive(client)
    for number in (1, 2):
        paired = shown(client, tournament_id)["paired"]
        assert len(paired) == number
        boards = paired[-1]
        # Each board has one computer at most (the two are kept apart).
        assert all(
            sum(name.startswith("Computer") for name in (board["red"], board["black"])) <= 1
            for board in boards
        )
        for board in boards:
            if not any(name.startswith("Computer") for name in (board["red"], board["black"])):
                raise AssertionError(f"two people paired in round {number}: {board}")
        for cookie in cookies:
            play_against_the_computer(client, tournament_id, cookie)
        context = client.app.state.context  # type: ignore[attr-defined]
        client.portal.call(context.tournaments.idle)  # type: ignore[union-attr]
        drive(client)
    over = shown(client, tournament_id)
    assert over["status"] == "finished"
    points = {line["name"]: line["points"] for line in over["standings"]}
    assert points == {
        "Computer 1 (level 1)": 2,
        "Computer 2 (level 2)": 2,
        "Player0": 0,
        "Player1": 0,
    }
    assert {request.level for request in engine.requests} == {1, 2}


def test_an_arena_takes_one_computer_player(client: TestClient, clock: FakeClock) -> None:
    cookie = sign_up(client, "Organiser")
    response = create(client, cookie, clock, format="arena", minutes=30, name="Arena")
    base = f"/api/tournaments/{response.json()['tournament']['id']}"
    first = client.post(f"{base}/computer", json={"level": 4}, headers=as_(cookie))
    assert first.status_code == 200, first.text
    second = client.post(f"{base}/computer", json={"level": 4}, headers=as_(cookie))
    assert second.status_code == 409
    assert "an arena takes one computer player (two computers cannot play" in second.text


def test_a_paused_player_is_not_paired_until_they_come_back(
    client: TestClient, clock: FakeClock
) -> None:
    tournament_id, cookies = a_swiss(client, clock, players=5)
    base = f"/api/tournaments/{tournament_id}"
    paused = client.post(f"{base}/pause", json={}, headers=as_(cookies[4]))
    assert paused.status_code == 200, paused.text
    again = client.post(f"{base}/pause", json={}, headers=as_(cookies[4]))
    assert again.status_code == 409 and "you are paused already" in again.text
    assert [e["paused"] for e in shown(client, tournament_id)["entrants"]] == [False] * 4 + [True]
    clock.advance(600)
    drive(client)
    first = shown(client, tournament_id)["paired"][0]
    assert len(first) == 2 and "Player4" not in {b["red"] for b in first} | {
        b["black"] for b in first
    }
    # Back during round 1 (the app's own driver pairs round 2 as soon as round 1's last
    # result is in, whatever the test does: coming back after that would miss round 2).
    back = client.post(f"{base}/resume", json={}, headers=as_(cookies[4]))
    assert back.status_code == 200, back.text
    play_to_a_result(client, tournament_id, cookies)
    drive(client)
    second = shown(client, tournament_id)["paired"][1]
    assert "Player4" in {b["red"] for b in second} | {b["black"] for b in second}
    points = {line["name"]: line["points"] for line in shown(client, tournament_id)["standings"]}
    assert points["Player4"] == 0  # (round 1 paused: a zero-point bye)


def test_a_round_robin_player_cannot_pause(client: TestClient, clock: FakeClock) -> None:
    cookie = sign_up(client, "Organiser")
    response = create(client, cookie, clock, format="round_robin", rounds=1)
    base = f"/api/tournaments/{response.json()['tournament']['id']}"
    client.post(f"{base}/join", json={}, headers=as_(cookie))
    refused = client.post(f"{base}/pause", json={}, headers=as_(cookie))
    assert refused.status_code == 409 and "a player cannot pause (withdraw instead)" in refused.text


def test_a_game_whose_player_never_moves_is_forfeited_and_the_player_paused(
    client: TestClient, clock: FakeClock
) -> None:
    """A player paired who never makes a first move would hold the opponent, and the
    round, for ever: past the time for a first move (30 s) the driver calls the game off;
    the absent side loses by forfeit and is paused (not paired again until back)."""
    tournament_id, cookies = a_swiss(client, clock)
    clock.advance(600)
    drive(client)  # (the start: round 1 paired, its games made)
    seats = seats_by_game(client, tournament_id, cookies)
    played_id, present = sorted(seats.items())[0]
    unplayed_id = sorted(seats)[1]
    first_moves(present)
    clock.advance(20)
    drive(client)  # (within the time: nothing is called off)
    assert all(board["result"] is None for board in shown(client, tournament_id)["paired"][0])
    clock.advance(11)
    drive(client)
    tournaments = client.app.state.context.tournaments  # type: ignore[attr-defined]
    client.portal.call(tournaments.idle)  # type: ignore[union-attr]
    after = shown(client, tournament_id)
    boards = {board["game"]: board for board in after["paired"][0]}
    assert boards[played_id]["result"] is None  # (both have moved: it plays on)
    assert boards[unplayed_id]["result"] == "-+"  # (Red never moved: Black wins by forfeit)
    absent = boards[unplayed_id]["red"]
    paused = {entrant["name"]: entrant["paused"] for entrant in after["entrants"]}
    assert paused == {name: name == absent for name in paused}
    watcher = Seat(client, unplayed_id, "", None)
    watcher.send("hello")
    state = watcher.expect("state")
    assert state["status"] == "over"
    assert "did not make a first move in time" in state["result"]["reason"]


def test_a_game_called_off_for_an_absent_player_and_left_without_result_is_their_forfeit(
    client: TestClient, clock: FakeClock
) -> None:
    """A game called off because Red never moved, whose end the tournament did not hear
    (its process died before giving the board its result: here the tournament stops
    listening), is found by the driver's next look: the absent side alone loses, by
    forfeit, and is paused; not a double forfeit."""
    context = client.app.state.context  # type: ignore[attr-defined]
    tournament_id, cookies = a_swiss(client, clock, players=2)
    clock.advance(600)
    drive(client)  # (the start: round 1 paired, its game made)
    (game_id,) = seats_by_game(client, tournament_id, cookies)
    service = context.tournaments
    service._unsubscribe()  # (the end is written, the board never told)
    service._unsubscribe = lambda: None  # (the app's close unsubscribes: done already)
    clock.advance(31)
    drive(client)  # (the game is called off: Red did not move in time)
    client.portal.call(context.tournaments.idle)  # type: ignore[union-attr]
    (board,) = shown(client, tournament_id)["paired"][0]
    assert board["game"] == game_id and board["result"] is None
    drive(client)  # (the next look finds the game over without its board's result)
    client.portal.call(context.tournaments.idle)  # type: ignore[union-attr]
    after = shown(client, tournament_id)
    (board,) = after["paired"][0]
    assert board["result"] == "-+"  # (Red never moved: Black wins by forfeit)
    paused = {entrant["name"]: entrant["paused"] for entrant in after["entrants"]}
    assert paused == {name: name == board["red"] for name in paused}


def bye(
    client: TestClient, cookie: str, tournament_id: str, cancel: bool = False, **body: Any
) -> Any:
    url = f"/api/tournaments/{tournament_id}/bye{'/cancel' if cancel else ''}"
    return client.post(url, json=body, headers=as_(cookie))


def refused(response: Any) -> str:
    assert response.status_code == 409, response.text
    return str(response.json()["error"]["message"])


def test_a_player_takes_a_half_point_bye_and_is_not_paired_in_that_round(
    client: TestClient, clock: FakeClock
) -> None:
    cookies = [sign_up(client, f"Player{n}") for n in range(5)]
    created = create(client, cookies[0], clock, rounds=4, half_bye_closed_rounds=2)
    assert created.status_code == 201, created.text
    tournament_id = created.json()["tournament"]["id"]
    assert (
        created.json()["tournament"]["half_byes"],
        created.json()["tournament"]["half_bye_closed_rounds"],
    ) == (1, 2)
    for cookie in cookies:
        assert client.post(f"/api/tournaments/{tournament_id}/join", json={}, headers=as_(cookie))
    asked = bye(client, cookies[4], tournament_id)
    assert asked.status_code == 200, asked.text
    assert asked.json() == {"player": {"name": "Player4", "byes": [1]}}
    assert "has asked for a half-point bye in round 1 already" in refused(
        bye(client, cookies[4], tournament_id)
    )
    assert "may take 1 half-point bye in this tournament" in refused(
        bye(client, cookies[4], tournament_id, round=2)
    )
    assert "no half-point bye in the last rounds 3 to 4" in refused(
        bye(client, cookies[3], tournament_id, round=3)
    )
    # called off, and asked for again
    assert bye(client, cookies[4], tournament_id, cancel=True).json()["player"]["byes"] == []
    assert bye(client, cookies[4], tournament_id, round=1).status_code == 200
    assert client.post(
        f"/api/tournaments/{tournament_id}/withdraw", json={}, headers=as_(cookies[2])
    )
    assert "Player2 has withdrawn" in refused(bye(client, cookies[2], tournament_id))
    paired = client.post(f"/api/tournaments/{tournament_id}/pair", json={}, headers=as_(cookies[0]))
    assert paired.status_code == 200, paired.text
    after = paired.json()["tournament"]
    boards = after["paired"][0]
    assert "Player4" not in {name for board in boards for name in (board["red"], board["black"])}
    # (Player2 withdrew: three paired, one game and the pairing-allocated bye)
    assert [board["black"] is None for board in boards] == [False, True]
    assert after["requested_byes"] == [["Player4"]]
    assert {line["name"]: line["points"] for line in after["standings"]}["Player4"] == 0.5
    assert "round 1 is paired already: its half-point bye is taken" in refused(
        bye(client, cookies[4], tournament_id, cancel=True, round=1)
    )
    assert "round 1 is paired already: a half-point bye is asked for before" in refused(
        bye(client, cookies[1], tournament_id, round=1)
    )
    game = client.post(f"/api/tournaments/{tournament_id}/game", json={}, headers=as_(cookies[4]))
    assert "you have a half-point bye in round 1" in refused(game)
    text = client.get(f"/api/tournaments/{tournament_id}/trf").text
    (line,) = [row for row in text.splitlines() if row.startswith("001") and "Player4" in row]
    assert line[91:101] == "0000 - H  "


def test_a_half_point_bye_is_refused_in_an_arena_a_round_robin_and_to_a_stranger(
    client: TestClient, clock: FakeClock
) -> None:
    cookie = sign_up(client, "Director")
    for fields, message in (
        ({"format": "arena", "minutes": 30}, "an arena has no rounds"),
        ({"format": "round_robin", "rounds": 1}, "a round robin's rounds are fixed"),
        ({"half_byes": 0}, "gives no half-point byes on request"),
    ):
        tournament_id = create(client, cookie, clock, **fields).json()["tournament"]["id"]
        assert (
            client.post(
                f"/api/tournaments/{tournament_id}/join", json={}, headers=as_(cookie)
            ).status_code
            == 200
        )
        assert message in refused(bye(client, cookie, tournament_id))
    tournament_id = create(client, cookie, clock).json()["tournament"]["id"]
    stranger = sign_up(client, "Stranger")
    assert "not in the tournament" in refused(bye(client, stranger, tournament_id))
    bad = bye(client, cookie, tournament_id, round="two")
    assert bad.status_code == 400 and "'round' must be a round's number" in bad.text
    assert bye(client, "", tournament_id).status_code == 401


def test_the_driver_pairs_the_round_of_a_half_point_bye_without_its_player(
    client: TestClient, clock: FakeClock
) -> None:
    tournament_id, cookies = a_swiss(client, clock, players=3)
    assert bye(client, cookies[2], tournament_id).status_code == 200
    clock.advance(600)
    drive(client)
    (board,) = shown(client, tournament_id)["paired"][0]
    assert {board["red"], board["black"]} == {"Player0", "Player1"}
