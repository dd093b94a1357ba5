"""Accounts over the REST API and the game websocket, on both stores: signing up, in and
out, sessions, limits, hostile names, rated games and what the responses never carry."""

from __future__ import annotations

import time
from typing import Any

import pytest
from starlette.testclient import TestClient
from web_helpers import FakeClock, MakeClient, Player, create_game, expect_error, token_of

from chuhan.web.accounts.glicko2 import Glicko, rate
from chuhan.web.accounts.ratings import settle_game
from chuhan.web.settings import Settings

#: Cheap Argon2 for the tests (the hashes say their costs; verification follows them).
CHEAP: dict[str, Any] = {"argon2_time_cost": 1, "argon2_memory_kib": 8192, "argon2_parallelism": 1}
PASSWORD = "correct horse battery"
COOKIE = "chuhan_session"


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client(**CHEAP)


def sign_up(client: TestClient, name: str, password: str = PASSWORD) -> str:
    """Sign up; the session cookie's value (the client's own cookie jar is emptied, so
    each request says which session it uses)."""
    response = client.post("/api/account/signup", json={"name": name, "password": password})
    assert response.status_code == 201, response.text
    cookie = response.cookies[COOKIE]
    client.cookies.clear()
    return cookie


def as_(cookie: str | None) -> dict[str, str]:
    return {"cookie": f"{COOKIE}={cookie}"} if cookie else {}


def me(client: TestClient, cookie: str | None) -> Any:
    return client.get("/api/account", headers=as_(cookie)).json()["account"]


def sign_in(client: TestClient, name: str, password: str = PASSWORD) -> Any:
    response = client.post("/api/account/signin", json={"name": name, "password": password})
    client.cookies.clear()
    return response


class Seat(Player):
    """A websocket player that comes with a session cookie."""

    def __init__(self, client: TestClient, game_id: str, token: str, cookie: str | None) -> None:
        self._context = client.websocket_connect(f"/ws/{game_id}", headers=as_(cookie))
        self.ws = self._context.__enter__()
        from web_helpers import OPEN_PLAYERS

        OPEN_PLAYERS.append(self)
        self.seq = 0
        self.state = {}
        self.seen = []
        self.token = token


def rated_game(client: TestClient, first: str, second: str) -> tuple[dict[str, Any], Seat, Seat]:
    """A rated xiangqi game between the accounts of two cookies, both seated."""
    response = client.post("/api/games", json={"kind": "friend", "rated": True}, headers=as_(first))
    assert response.status_code == 201, response.text
    game = response.json()
    red = Seat(client, game["game_id"], game["token"], first)
    red.hello()
    black = Seat(client, game["game_id"], token_of(game["invite_url"]), second)
    black.hello()
    return game, red, black


#: Four plies: both players have moved twice, so a rated game that ends after them counts.
OPENING = ("h2e2", "h9g7", "h0g2", "i9h9")


def play_opening(red: Player, black: Player) -> None:
    """Play :data:`OPENING` (each player sees every move before it plays the next)."""
    for ply, move in enumerate(OPENING):
        mover, other = (red, black) if ply % 2 == 0 else (black, red)
        mover.move(move)
        other.wait_state(lambda state, ply=ply: state["ply"] == ply + 1)


def settlement(client: TestClient, game_id: str) -> Any:
    return client.get(f"/api/games/{game_id}/rating").json()


def wait_settled(client: TestClient, game_id: str) -> Any:
    context = client.app.state.context  # type: ignore[attr-defined]
    # (at the server's time: settled at 0.0, a game would fall out of the pair's day)
    client.portal.call(settle_game, context.store, game_id, context.now())  # type: ignore[union-attr]
    found = settlement(client, game_id)
    assert found["settlement"] is not None, found
    return found["settlement"]


# ---------------------------------------------------------------------- accounts


def test_signing_up_signs_in(client: TestClient) -> None:
    cookie = sign_up(client, "Ada")
    assert me(client, cookie)["name"] == "Ada"


def test_the_session_cookie_is_http_only_and_same_site(client: TestClient) -> None:
    response = client.post("/api/account/signup", json={"name": "Ada", "password": PASSWORD})
    header = response.headers["set-cookie"].lower()
    assert "httponly" in header and "samesite=lax" in header and "path=/" in header


def test_a_name_is_taken_whatever_its_case_or_width(client: TestClient) -> None:
    sign_up(client, "Ada")
    for same in ("ada", "ADA", "Ａｄａ"):
        response = client.post("/api/account/signup", json={"name": same, "password": PASSWORD})
        assert response.status_code == 409, same
        assert response.json()["error"]["code"] == "name_taken"


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("ab", "3 to 20 characters"),
        ("a" * 21, "3 to 20 characters"),
        ("x" * 5_000, "5000 characters long; at most 20"),
        ("Ada\u202egnp.exe", "control or formatting character (U+202E)"),
        ("Ada\x00", "control or formatting character (U+0000)"),
        ("A\u200dda", "control or formatting character (U+200D)"),
        ("Ada Lovelace", "'name' has a space; use letters"),
        ("Ada\u3000Lovelace", "'name' has a space; use letters"),
        ("<script>", "'name' has '<', which is not a letter, a digit"),
        ("_ada", "begin with a letter or a digit"),
    ],
)
def test_hostile_names_are_refused_naming_the_rule(
    client: TestClient, name: str, says: str
) -> None:
    response = client.post("/api/account/signup", json={"name": name, "password": PASSWORD})
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert says in message and "'name'" in message
    assert "\u202e" not in message and "\x00" not in message


def test_names_in_any_script_are_welcome(client: TestClient) -> None:
    for name in ("楚漢棋手", "장기왕", "Ngọc_Anh-7"):
        assert me(client, sign_up(client, name))["name"] == name


def test_a_short_password_is_refused(client: TestClient) -> None:
    response = client.post("/api/account/signup", json={"name": "Ada", "password": "short"})
    assert response.status_code == 400
    assert "'password' must be 8 to 200 characters" in response.json()["error"]["message"]


def test_a_wrong_password_or_an_unknown_name_does_not_sign_in(client: TestClient) -> None:
    sign_up(client, "Ada")
    wrong = sign_in(client, "Ada", "not the password")
    unknown = sign_in(client, "Nobody", PASSWORD)
    for response in (wrong, unknown):
        assert response.status_code == 401
        assert response.json()["error"]["message"] == "the name or the password is wrong"
        assert COOKIE not in response.cookies


def test_signing_in_with_any_case_of_the_name_works(client: TestClient) -> None:
    sign_up(client, "Ada")
    response = sign_in(client, "aDA")
    assert response.status_code == 200
    assert me(client, response.cookies[COOKIE])["name"] == "Ada"


@pytest.mark.parametrize(
    "tamper",
    [
        lambda c: c[:-1] + ("A" if c[-1] != "A" else "B"),  # the signature
        lambda c: ("A" if c[0] != "A" else "B") + c[1:],  # the session id
        lambda c: c.split(".")[0],  # no signature
        lambda c: c + ".x",
        lambda c: "",
    ],
)
def test_a_tampered_cookie_is_no_session(client: TestClient, tamper: Any) -> None:
    cookie = sign_up(client, "Ada")
    assert me(client, tamper(cookie)) is None


def test_a_cookie_replayed_after_signing_out_is_refused(client: TestClient) -> None:
    cookie = sign_up(client, "Ada")
    assert client.post("/api/account/signout", headers=as_(cookie)).status_code == 200
    assert me(client, cookie) is None
    response = client.post(
        "/api/games", json={"kind": "friend", "rated": True}, headers=as_(cookie)
    )
    assert response.status_code == 403


def test_signing_out_elsewhere_leaves_this_session(client: TestClient) -> None:
    here = sign_up(client, "Ada")
    there = sign_in(client, "Ada").cookies[COOKIE]
    client.post("/api/account/signout", headers=as_(there))
    assert me(client, here)["name"] == "Ada"


def test_a_new_password_ends_the_other_sessions(client: TestClient) -> None:
    here = sign_up(client, "Ada")
    there = sign_in(client, "Ada").cookies[COOKIE]
    response = client.post(
        "/api/account/password",
        json={"password": PASSWORD, "new_password": "a new long password"},
        headers=as_(here),
    )
    assert response.status_code == 200, response.text
    assert me(client, here)["name"] == "Ada"
    assert me(client, there) is None
    assert sign_in(client, "Ada").status_code == 401
    assert sign_in(client, "Ada", "a new long password").status_code == 200


def test_a_new_password_needs_the_current_one(client: TestClient) -> None:
    cookie = sign_up(client, "Ada")
    response = client.post(
        "/api/account/password",
        json={"password": "a wrong password", "new_password": "a new long password"},
        headers=as_(cookie),
    )
    assert response.status_code == 401
    assert sign_in(client, "Ada").status_code == 200


def test_deleting_an_account_ends_its_sessions_and_frees_its_name(client: TestClient) -> None:
    cookie = sign_up(client, "Ada")
    refused = client.post(
        "/api/account/delete", json={"password": "wrong one!"}, headers=as_(cookie)
    )
    assert refused.status_code == 401
    deleted = client.post("/api/account/delete", json={"password": PASSWORD}, headers=as_(cookie))
    assert deleted.status_code == 200
    assert me(client, cookie) is None
    assert client.get("/api/players/Ada").status_code == 404
    sign_up(client, "ada")


def test_a_request_from_another_site_cannot_use_the_account(client: TestClient) -> None:
    cookie = sign_up(client, "Ada")
    response = client.post(
        "/api/account/signout",
        headers={**as_(cookie), "origin": "https://evil.example"},
    )
    assert response.status_code == 403
    assert me(client, cookie)["name"] == "Ada"


# ---------------------------------------------------------------------- limits


def test_failed_sign_ins_are_limited_per_name(make_client: MakeClient) -> None:
    client = make_client(**CHEAP, signin_per_name=3, signin_per_address=100)
    sign_up(client, "Ada")
    for _ in range(3):
        assert sign_in(client, "Ada", "wrong password").status_code == 401
    refused = sign_in(client, "ADA", PASSWORD)  # even the right password, for now
    assert refused.status_code == 429
    assert "too many failed sign-ins" in refused.json()["error"]["message"]
    assert int(refused.headers["retry-after"]) > 0
    assert sign_in(client, "Bob", "wrong password").status_code == 401  # another name


def test_failed_sign_ins_are_limited_per_address(make_client: MakeClient) -> None:
    client = make_client(**CHEAP, signin_per_name=100, signin_per_address=4)
    for number in range(4):
        assert sign_in(client, f"name{number}", "wrong password").status_code == 401
    assert sign_in(client, "another", "wrong password").status_code == 429


def test_successful_sign_ins_do_not_use_up_the_limit(make_client: MakeClient) -> None:
    client = make_client(**CHEAP, signin_per_name=2)
    sign_up(client, "Ada")
    for _ in range(5):
        assert sign_in(client, "Ada").status_code == 200


def test_the_limit_lifts_after_its_window(make_client: MakeClient, clock: FakeClock) -> None:
    client = make_client(**CHEAP, signin_per_name=2, attempt_window_seconds=600)
    sign_up(client, "Ada")
    for _ in range(2):
        sign_in(client, "Ada", "wrong password")
    assert sign_in(client, "Ada").status_code == 429
    clock.advance(601)
    assert sign_in(client, "Ada").status_code == 200


def test_sign_ups_are_limited_per_address(make_client: MakeClient) -> None:
    client = make_client(**CHEAP, signup_per_address=2)
    sign_up(client, "Ada")
    sign_up(client, "Bob")
    response = client.post("/api/account/signup", json={"name": "Cyd", "password": PASSWORD})
    assert response.status_code == 429
    assert "too many sign-ups" in response.json()["error"]["message"]


# ---------------------------------------------------------------------- games


def test_anonymous_play_is_as_before(client: TestClient) -> None:
    game = create_game(client, kind="friend")
    assert game["rated"] is False
    player = Player(client, game["game_id"], token_of(game["invite_url"]))
    player.hello()
    assert settlement(client, game["game_id"])["players"] == {}


def test_a_game_a_signed_in_player_starts_or_joins_is_the_accounts(client: TestClient) -> None:
    ada, bo = sign_up(client, "Ada"), sign_up(client, "Bob")
    response = client.post("/api/games", json={"kind": "friend"}, headers=as_(ada))
    game = response.json()
    joined = Seat(client, game["game_id"], token_of(game["invite_url"]), bo)
    joined.hello()
    assert settlement(client, game["game_id"])["players"] == {"first": "Ada", "second": "Bob"}
    named = joined.wait_state(lambda state: state["players"]["second"]["name"] == "Bob")
    assert named["players"]["first"]["name"] == "Ada"  # (the seats' names are the accounts')
    listed = client.get("/api/players/Bob").json()["games"]
    assert [g["game_id"] for g in listed] == [game["game_id"]]
    assert listed[0]["opponent"] == "Ada" and listed[0]["watch_url"] == f"/w/{game['game_id']}"


def test_a_rated_game_needs_a_signed_in_creator(client: TestClient) -> None:
    response = client.post("/api/games", json={"kind": "friend", "rated": True})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "account_required"


@pytest.mark.parametrize("kind", ["computer", "local"])
def test_only_games_between_two_people_can_be_rated(client: TestClient, kind: str) -> None:
    cookie = sign_up(client, "Ada")
    response = client.post("/api/games", json={"kind": kind, "rated": True}, headers=as_(cookie))
    assert response.status_code == 400
    assert "'rated'" in response.json()["error"]["message"]


def test_a_rated_seat_refuses_an_anonymous_player(client: TestClient) -> None:
    cookie = sign_up(client, "Ada")
    game = client.post(
        "/api/games", json={"kind": "friend", "rated": True}, headers=as_(cookie)
    ).json()
    stranger = Player(client, game["game_id"], token_of(game["invite_url"]))
    stranger.send("hello", token=stranger.token)
    assert "sign in" in expect_error(stranger, "account_required")["message"]
    assert stranger.closed_code() == 4401


def test_a_rated_seat_refuses_the_opponents_own_account(client: TestClient) -> None:
    cookie = sign_up(client, "Ada")
    game = client.post(
        "/api/games", json={"kind": "friend", "rated": True}, headers=as_(cookie)
    ).json()
    herself = Seat(client, game["game_id"], token_of(game["invite_url"]), cookie)
    herself.send("hello", token=herself.token)
    expect_error(herself, "account_required")


def test_a_rated_game_changes_both_ratings_by_glicko2(client: TestClient) -> None:
    ada, bo = sign_up(client, "Ada"), sign_up(client, "Bob")
    game, red, black = rated_game(client, ada, bo)
    play_opening(red, black)
    black.do("resign")
    settled = wait_settled(client, game["game_id"])
    won = rate(Glicko(), [(Glicko(), 1.0)])
    assert settled["counted"] and settled["winner"] == "first"
    assert settled["changes"]["first"]["after"] == round(won.rating)
    assert settled["changes"]["second"]["after"] == round(3000 - won.rating)
    assert settled["changes"]["first"]["change"] == round(won.rating) - 1500
    assert settled["changes"]["first"]["provisional"] is True
    profile = client.get("/api/players/ada").json()
    assert profile["ratings"]["xiangqi"]["rating"] == round(won.rating)
    assert profile["ratings"]["xiangqi"]["wins"] == 1
    assert profile["record"] == {"wins": 1, "losses": 0, "draws": 0, "playing": 0}
    assert [p["rating"] for p in profile["history"]["xiangqi"]] == [round(won.rating)]
    assert me(client, bo)["ratings"]["xiangqi"]["losses"] == 1


def test_the_server_settles_a_rated_game_as_it_ends(client: TestClient) -> None:
    ada, bo = sign_up(client, "Ada"), sign_up(client, "Bob")
    game, red, _black = rated_game(client, ada, bo)
    red.do("resign")
    deadline = time.monotonic() + 60  # a bound on a hang only
    while settlement(client, game["game_id"])["settlement"] is None:
        assert time.monotonic() < deadline, "the game was not settled"
        time.sleep(0.05)
    assert settlement(client, game["game_id"])["settlement"]["winner"] == "second"


def test_settling_again_changes_nothing(client: TestClient) -> None:
    ada, bo = sign_up(client, "Ada"), sign_up(client, "Bob")
    game, red, black = rated_game(client, ada, bo)
    play_opening(red, black)
    red.do("resign")
    first = wait_settled(client, game["game_id"])
    again = wait_settled(client, game["game_id"])
    assert first == again
    assert len(client.get("/api/players/Ada").json()["history"]["xiangqi"]) == 1
    assert client.get("/api/players/Ada").json()["ratings"]["xiangqi"]["games"] == 1


def test_a_pair_of_accounts_counts_one_rated_game_a_day(
    client: TestClient, clock: FakeClock
) -> None:
    ada, bo = sign_up(client, "Ada"), sign_up(client, "Bob")
    ratings = []
    for day_later in (0, 3600, 86400):
        clock.advance(day_later)
        game, red, black = rated_game(client, ada, bo)
        play_opening(red, black)
        black.do("resign")
        ratings.append(wait_settled(client, game["game_id"]))
    assert [s["counted"] for s in ratings] == [True, False, True]
    assert "once a day" in ratings[1]["reason"]
    assert ratings[1]["changes"]["first"]["change"] == 0
    assert client.get("/api/players/Ada").json()["ratings"]["xiangqi"]["games"] == 2


def test_the_leaderboard_ranks_established_ratings_and_lists_newcomers_apart(
    client: TestClient,
) -> None:
    ada, bo = sign_up(client, "Ada"), sign_up(client, "Bob")
    game, red, black = rated_game(client, ada, bo)
    play_opening(red, black)  # (a game of fewer moves does not count)
    black.do("resign")
    wait_settled(client, game["game_id"])
    board = client.get("/api/leaderboard/xiangqi").json()
    # Both are still provisional: no one is ranked, both are listed as newcomers, the
    # winner first.
    assert board["game"] == "xiangqi" and board["players"] == []
    assert [p["name"] for p in board["newcomers"]] == ["Ada", "Bob"]
    assert all(p["provisional"] for p in board["newcomers"])
    assert board["newcomers"][0]["rating"] > board["newcomers"][1]["rating"]
    assert client.get("/api/leaderboard/janggi").json()["newcomers"] == []
    assert client.get("/api/leaderboard/chess").status_code == 404


def test_no_response_carries_a_password_hash_or_another_players_seat_token(
    client: TestClient,
) -> None:
    ada, bo = sign_up(client, "Ada"), sign_up(client, "Bob")
    game, _red, black = rated_game(client, ada, bo)
    black.do("resign")
    wait_settled(client, game["game_id"])
    invite = token_of(game["invite_url"])
    answers = [
        client.get("/api/account", headers=as_(ada)),
        client.get("/api/account", headers=as_(bo)),
        client.get("/api/players/Ada"),
        client.get("/api/players/Bob", headers=as_(ada)),
        client.get(f"/api/games/{game['game_id']}/rating"),
        client.get(f"/api/games/{game['game_id']}"),
        client.get("/api/leaderboard/xiangqi"),
        sign_in(client, "Ada"),
        client.post(
            "/api/account/password",
            json={"password": PASSWORD, "new_password": PASSWORD + "!"},
            headers=as_(ada),
        ),
    ]
    for answer in answers:
        assert "$argon2" not in answer.text, answer.url
        assert game["token"] not in answer.text and invite not in answer.text, answer.url


def test_a_player_that_does_not_exist_is_a_404(client: TestClient) -> None:
    response = client.get("/api/players/Nobody")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "there is no player 'Nobody'"


def test_a_players_page_is_the_app(client: TestClient) -> None:
    response = client.get("/p/Ada")
    assert response.status_code == 200 and "<!doctype html>" in response.text


def test_a_rated_seat_link_opens_the_seat_to_its_account_only(client: TestClient) -> None:
    # A rated game's seat is its account's: another account, or nobody signed in, with the
    # seat's link (leaked, or left in a shared computer's history) cannot play it.
    ada, bo, cy = sign_up(client, "Ada"), sign_up(client, "Bob"), sign_up(client, "Cyd")
    game, red, _black = rated_game(client, ada, bo)
    red.close()
    for cookie in (cy, None):
        intruder = Seat(client, game["game_id"], game["token"], cookie)
        intruder.send("hello", token=intruder.token)
        assert "sign in as Ada" in expect_error(intruder, "account_required")["message"]
        assert intruder.closed_code() == 4401
    back = Seat(client, game["game_id"], game["token"], ada)
    back.hello()
    back.move("h2e2")
    assert settlement(client, game["game_id"])["players"] == {"first": "Ada", "second": "Bob"}
    assert client.get("/api/players/Cyd").json()["games"] == []


def test_a_rematch_of_a_rated_game_is_rated_with_the_seats_swapped(client: TestClient) -> None:
    """Issue 24, 5: the rematch of a rated game between two accounts is rated too."""
    ada, bo = sign_up(client, "Ada"), sign_up(client, "Bob")
    first_game, red, black = rated_game(client, ada, bo)
    play_opening(red, black)
    black.do("resign")
    red.wait_state(lambda s: s["status"] == "over")
    wait_settled(client, first_game["game_id"])
    red.do("rematch")
    black.wait_state(lambda s: s["offers"]["rematch"] == "first")
    black.act("rematch")
    ready = red.expect("rematch_ready")
    rematch = settlement(client, ready["game_id"])
    assert rematch["rated"] is True
    assert rematch["players"] == {"first": "Bob", "second": "Ada"}
    # Each player's rating as it is now (Ada won the first game), and the first game's
    # as they were before it.
    assert rematch["ratings"]["second"]["rating"] > 1500 > rematch["ratings"]["first"]["rating"]
    assert rematch["ratings"]["first"]["provisional"] is True
    before = settlement(client, first_game["game_id"])["ratings"]
    assert {seat: r["rating"] for seat, r in before.items()} == {"first": 1500, "second": 1500}
    # The records say the same.
    record = client.get(f"/api/games/{first_game['game_id']}/pgn").text
    assert '[RedElo "1500?"]' in record and '[BlackElo "1500?"]' in record
    ada_now = rematch["ratings"]["second"]["rating"]
    record = client.get(f"/api/games/{ready['game_id']}/pgn").text
    assert f'[BlackElo "{ada_now}?"]' in record
    casual = client.post("/api/games", json={"kind": "friend"}, headers=as_(ada)).json()
    assert "Elo" not in client.get(f"/api/games/{casual['game_id']}/pgn").text
    # Bob (Red now) and Ada play it out; it is settled like any rated game.
    new_red = Seat(client, ready["game_id"], black.expect("rematch_ready")["token"], bo)
    new_black = Seat(client, ready["game_id"], ready["token"], ada)
    assert new_red.hello()["role"] == "first" and new_black.hello()["role"] == "second"
    play_opening(new_red, new_black)
    new_black.do("resign")
    settled = wait_settled(client, ready["game_id"])
    assert settled["counted"] is False  # (the pair's second rated game within the day)
    assert set(settled["changes"]) == {"first", "second"}


def test_a_rematch_of_a_casual_game_between_accounts_stays_casual(client: TestClient) -> None:
    ada, bo = sign_up(client, "Ada"), sign_up(client, "Bob")
    response = client.post("/api/games", json={"kind": "friend"}, headers=as_(ada))
    game = response.json()
    red = Seat(client, game["game_id"], game["token"], ada)
    red.hello()
    black = Seat(client, game["game_id"], token_of(game["invite_url"]), bo)
    black.hello()
    red.do("resign")
    black.wait_state(lambda s: s["status"] == "over")
    red.do("rematch")
    black.wait_state(lambda s: s["offers"]["rematch"] == "first")
    black.act("rematch")
    ready = red.expect("rematch_ready")
    assert settlement(client, ready["game_id"])["rated"] is False


def test_passwords_are_hashed_at_rfc_9106_costs_unless_the_operator_lowers_them(
    make_client: MakeClient,
) -> None:
    """The server's own costs (the tests' clients hash at the cheapest, conftest.py):
    argon2id at 64 MiB, 3 passes, 4 lanes; an operator's lower costs are what it stores."""
    defaults = {
        name: getattr(Settings(), name)
        for name in ("argon2_time_cost", "argon2_memory_kib", "argon2_parallelism")
    }
    cases = (("Strong", defaults, "m=65536,t=3,p=4"), ("Cheap", CHEAP, "m=8192,t=1,p=1"))
    for name, options, costs in cases:
        client = make_client(**options)  # (a restart on the same database)
        sign_up(client, name)
        accounts = client.app.state.context.accounts.repository  # type: ignore[attr-defined]
        account = client.portal.call(accounts.account_by_name, name)  # type: ignore[union-attr]
        assert account is not None
        assert account.password_hash.startswith(f"$argon2id$v=19${costs}$")
        signed_in = client.post("/api/account/signin", json={"name": name, "password": PASSWORD})
        assert signed_in.status_code == 200, signed_in.text
