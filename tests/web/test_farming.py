"""Ratings cannot be farmed (issue 28, item 7), tried as the hostile user did, on both
stores: a farmer signs up sock puppets and wins rated games against them. Every client
here comes from an address of its own unless a test says otherwise (the server trusts its
"proxy"'s ``X-Forwarded-For``, as ``chuhan serve --trust-proxy`` does), so each rule is met
on its own.

Before the rules, a game resigned at ply 0 was rated, and ten puppets took a farmer from
1500 to 1993 in two seconds."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_accounts import CHEAP, OPENING, PASSWORD, play_opening, wait_settled
from web_helpers import OPEN_PLAYERS, FakeClock, MakeClient, Player, token_of

from chuhan.web.accounts.glicko2 import Glicko, rate
from chuhan.web.accounts.ratings import NEW_OPPONENT_GAMES_PER_DAY


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client(trust_proxy=True, **CHEAP)


class Addressed(Player):
    """A game's websocket from ``address``, signed in by ``cookie``."""

    def __init__(
        self, client: TestClient, game_id: str, token: str, cookie: str, address: str
    ) -> None:
        headers = {"cookie": f"chuhan_session={cookie}", "x-forwarded-for": address}
        self._context = client.websocket_connect(f"/ws/{game_id}", headers=headers)
        self.ws = self._context.__enter__()
        OPEN_PLAYERS.append(self)
        self.seq = 0
        self.state = {}
        self.seen = []
        self.token = token


def signed_up(client: TestClient, name: str, address: str) -> str:
    """Sign up from ``address``; the session cookie."""
    response = client.post(
        "/api/account/signup",
        json={"name": name, "password": PASSWORD},
        headers={"x-forwarded-for": address},
    )
    assert response.status_code == 201, response.text
    cookie = str(response.cookies["chuhan_session"])
    client.cookies.clear()
    return cookie


def rated_game(
    client: TestClient, red: tuple[str, str], black: tuple[str, str], **hello: Any
) -> tuple[str, Addressed, Addressed]:
    """A rated game: ``red`` (cookie, address) creates it and sits, ``black`` joins."""
    response = client.post(
        "/api/games",
        json={"kind": "friend", "rated": True},
        headers={"cookie": f"chuhan_session={red[0]}", "x-forwarded-for": red[1]},
    )
    assert response.status_code == 201, response.text
    game = response.json()
    client.cookies.clear()
    first = Addressed(client, game["game_id"], game["token"], *red)
    first.hello(**hello)
    second = Addressed(client, game["game_id"], token_of(game["invite_url"]), *black)
    second.hello(**hello)
    return str(game["game_id"]), first, second


def rating_of(client: TestClient, name: str) -> Any:
    """The player's xiangqi rating as its profile shows it (None: never counted)."""
    return client.get(f"/api/players/{name}").json()["ratings"].get("xiangqi")


def farm(
    client: TestClient, farmer: tuple[str, str], puppets: list[tuple[str, str]], plies: int
) -> list[Any]:
    """The farmer beats each puppet: they play ``plies`` of :data:`OPENING`, then the
    puppet resigns. The settlements."""
    settled = []
    for puppet in puppets:
        game_id, red, black = rated_game(client, farmer, puppet)
        for ply, move in enumerate(OPENING[:plies]):
            mover, other = (red, black) if ply % 2 == 0 else (black, red)
            mover.move(move)
            other.wait_state(lambda state, ply=ply: state["ply"] == ply + 1)
        black.do("resign")
        settled.append(wait_settled(client, game_id))
        red.close()
        black.close()
    return settled


def after_wins(count: int) -> int:
    """A new player's rating after ``count`` wins over new players (Glicko-2)."""
    rating = Glicko()
    for _ in range(count):
        rating = rate(rating, [(Glicko(), 1.0)])
    return round(rating.rating)


@pytest.fixture
def farmer(client: TestClient) -> tuple[str, str]:
    return signed_up(client, "Farmer", "198.51.100.1"), "198.51.100.1"


def puppets(client: TestClient, count: int, address: str | None = None) -> Iterator[Any]:
    """``count`` fresh sock puppets, each signed up and playing from its own address (or
    all from ``address``)."""
    for number in range(count):
        at = address or f"203.0.113.{number + 10}"
        yield signed_up(client, f"Puppet{number:02d}", at), at


def test_games_resigned_at_once_are_not_rated(client: TestClient, farmer: tuple[str, str]) -> None:
    settled = farm(client, farmer, list(puppets(client, 10)), plies=0)
    assert rating_of(client, "Farmer") is None  # no rated game counted: still unrated
    assert [s["counted"] for s in settled] == [False] * 10
    assert [s["code"] for s in settled] == ["too_short"] * 10
    assert "after 0 moves" in settled[0]["reason"] and not settled[0]["counted"]
    assert all(c["change"] == 0 for s in settled for c in s["changes"].values())


def test_a_game_ends_before_both_players_moved_twice_is_not_rated(
    client: TestClient, farmer: tuple[str, str]
) -> None:
    settled = farm(client, farmer, list(puppets(client, 2)), plies=3)
    assert rating_of(client, "Farmer") is None
    assert [s["code"] for s in settled] == ["too_short"] * 2
    assert "after 3 moves" in settled[0]["reason"]


def test_puppets_made_and_played_beside_their_farmer_give_nothing(make_client: MakeClient) -> None:
    # The setting: every client on one address (here without the sign-up limit
    # per address, which the attacker waited out).
    client = make_client(trust_proxy=True, signup_per_address=100, **CHEAP)
    farmer = signed_up(client, "Farmer", "127.0.0.1"), "127.0.0.1"
    same = list(puppets(client, 10, address=farmer[1]))
    settled = farm(client, farmer, same, plies=len(OPENING))
    assert rating_of(client, "Farmer") is None
    assert [s["code"] for s in settled] == ["same_network"] * 10
    assert "same network" in settled[0]["reason"] and farmer[1] not in json.dumps(settled)


def test_a_puppet_made_elsewhere_but_played_from_the_farmers_network_gives_nothing(
    client: TestClient, farmer: tuple[str, str]
) -> None:
    cookie, _ = next(puppets(client, 1))
    # An IPv6 host has its whole /64: another address of it is the same network.
    one, other = "2001:db8:5:7::1", "2001:db8:5:7:ffff::2"
    ipv6_farmer = signed_up(client, "Farmer6", one), one
    settled = farm(client, ipv6_farmer, [(cookie, other)], plies=len(OPENING))
    assert not settled[0]["counted"] and settled[0]["code"] == "same_network"


def test_sock_puppets_each_on_a_network_of_their_own_count_two_a_day(
    client: TestClient, clock: FakeClock, farmer: tuple[str, str]
) -> None:
    allowance = NEW_OPPONENT_GAMES_PER_DAY
    settled = farm(client, farmer, list(puppets(client, 10)), plies=len(OPENING))
    assert rating_of(client, "Farmer")["rating"] == after_wins(allowance)  # not 1993
    counted_for_farmer = [s["changes"]["first"]["counted"] for s in settled]
    assert counted_for_farmer == [True] * allowance + [False] * (10 - allowance)
    held = settled[allowance]
    assert held["code"] == "new_opponents" and "counted for Puppet" in held["reason"]
    assert held["changes"]["first"]["change"] == 0
    assert held["changes"]["second"]["counted"]  # (the puppet's own rating still moves)
    # The next day, two more: a farmer's climb is two real-looking wins a day.
    clock.advance(86400 + 1)
    tomorrow = [
        (signed_up(client, f"Later{n}", f"192.0.2.{n + 1}"), f"192.0.2.{n + 1}") for n in range(3)
    ]
    settled = farm(client, farmer, tomorrow, plies=len(OPENING))
    assert [s["changes"]["first"]["counted"] for s in settled] == [True, True, False]
    assert rating_of(client, "Farmer")["games"] == 2 * allowance


def test_a_rated_game_between_established_players_of_two_networks_still_counts(
    client: TestClient, farmer: tuple[str, str]
) -> None:
    # The rules leave an ordinary game alone: two players of their own networks, a real
    # game, resigned after both moved twice.
    other = signed_up(client, "Rival", "192.0.2.77"), "192.0.2.77"
    settled = farm(client, farmer, [other], plies=len(OPENING))
    assert settled[0]["counted"] and settled[0]["code"] is None
    assert rating_of(client, "Farmer")["rating"] == after_wins(1)


def test_a_rated_game_shows_the_accounts_names_whatever_names_the_players_give(
    client: TestClient,
) -> None:
    # (issue 28, item 9) A rated game's creator asks for a name of its own, and both say
    # another name in hello: every seat, for the players and for a watcher, shows the
    # account's name.
    ada = signed_up(client, "Ada", "192.0.2.1"), "192.0.2.1"
    bob = signed_up(client, "Bob", "192.0.2.2"), "192.0.2.2"
    response = client.post(
        "/api/games",
        json={"kind": "friend", "rated": True, "name": "Magnus"},
        headers={"cookie": f"chuhan_session={ada[0]}", "x-forwarded-for": ada[1]},
    )
    game = response.json()
    client.cookies.clear()
    early = client.get(f"/api/games/{game['game_id']}").json()
    assert early["players"]["first"]["name"] == "Ada"
    red = Addressed(client, game["game_id"], game["token"], *ada)
    red.hello(name="Magnus")
    black = Addressed(client, game["game_id"], token_of(game["invite_url"]), *bob)
    black.hello(name="Hikaru")
    shown = red.wait_state(lambda state: state["players"]["second"]["name"] == "Bob")
    assert shown["players"]["first"]["name"] == "Ada"
    watcher = Player(client, game["game_id"], None)
    watcher.hello()
    names = {seat: player["name"] for seat, player in watcher.state["players"].items()}
    assert names == {"first": "Ada", "second": "Bob"}
    play_opening(red, black)  # (the game goes on as any other)


def test_an_unrated_game_keeps_the_names_players_choose(client: TestClient) -> None:
    ada = signed_up(client, "Ada", "192.0.2.1")
    response = client.post(
        "/api/games",
        json={"kind": "friend", "name": "Lady A"},
        headers={"cookie": f"chuhan_session={ada}"},
    )
    client.cookies.clear()
    assert (
        client.get(f"/api/games/{response.json()['game_id']}").json()["players"]["first"]["name"]
        == "Lady A"
    )
