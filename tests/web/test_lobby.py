"""The live lobby over its websocket, on both stores: seeks posted, listed, cancelled and
accepted; a seek taken once; rated seeks between two accounts; quick pairing; challenges;
a seek gone with its owner; limits and hostile input."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from test_accounts import CHEAP, Seat, as_, play_opening, sign_up
from web_helpers import QUIET_LOBBY, FakeClock, MakeClient, Player, create_game, join_friend_game

from chuhan.web.accounts.glicko2 import Glicko, rate
from chuhan.web.lobby.repository import Seek, SeekLimits, SeekRepository
from chuhan.web.lobby.service import WATCH_EVERY_SECONDS, owner_of


class LobbyClient:
    """A scripted lobby websocket: numbered messages and the last seek list seen."""

    def __init__(self, client: TestClient, cookie: str | None = None) -> None:
        self._context = client.websocket_connect("/ws/lobby", headers=as_(cookie))
        self.ws = self._context.__enter__()
        self.seq = 0
        self.seeks: list[dict[str, Any]] = []
        self.seen: list[dict[str, Any]] = []
        self.closed = False

    def hello(self, **fields: Any) -> dict[str, Any]:
        self.send("hello", **fields)
        welcome = self.expect("welcome")
        self.expect("seeks")
        return welcome

    def send(self, kind: str, **fields: Any) -> int:
        self.seq += 1
        self.ws.send_text(json.dumps({"type": kind, "seq": self.seq, **fields}))
        return self.seq

    def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = self.ws.receive_json()
        self.seen.append(message)
        if message["type"] == "seeks":
            self.seeks = message["seeks"]
        return message

    def expect(self, kind: str) -> dict[str, Any]:
        while True:
            message = self.receive()
            if message["type"] == kind:
                return message
            if message["type"] == "error":
                raise AssertionError(f"expected {kind}, got error {message}")

    def error(self, code: str) -> dict[str, Any]:
        while True:
            message = self.receive()
            if message["type"] == "error":
                assert message["code"] == code, message
                return message
            assert message["type"] in ("seeks", "ack"), message

    def wait_seeks(self, predicate: Callable[[list[dict[str, Any]]], bool]) -> list[Any]:
        while not predicate(self.seeks):
            self.expect("seeks")
        return self.seeks

    def post(self, **fields: Any) -> str:
        """Post a seek; its id."""
        fields.setdefault("variant", "xiangqi")
        seq = self.send("seek", **fields)
        ack = self.expect("ack")
        assert ack["seq"] == seq
        return str(ack["seek"])

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._context.__exit__(None, None, None)


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client(**CHEAP)


@pytest.fixture
def lobby(client: TestClient) -> Iterator[Callable[..., LobbyClient]]:
    """``lobby(cookie=None, **hello)``: a lobby connection that has said hello (an
    anonymous one with a fresh browser secret unless ``visitor`` is given)."""
    opened: list[LobbyClient] = []

    def connect(cookie: str | None = None, **hello: Any) -> LobbyClient:
        member = LobbyClient(client, cookie)
        opened.append(member)
        if cookie is None:
            hello.setdefault("visitor", secrets.token_urlsafe(24))
        member.hello(**hello)
        return member

    yield connect
    for member in opened:
        member.close()


def ids(seeks: list[dict[str, Any]]) -> list[str]:
    return [seek["id"] for seek in seeks]


def seat_player(client: TestClient, paired: dict[str, Any], cookie: str | None = None) -> Player:
    player = Seat(client, paired["game_id"], paired["token"], cookie)
    player.hello()
    return player


# ---------------------------------------------------------------------------- seeks


def test_a_posted_seek_is_listed_live_to_everyone_in_the_lobby(lobby: Any) -> None:
    ada, bob = lobby(name="Ada"), lobby()
    seek_id = ada.post(time_control="10+5", color="first", rules="chinese")
    shown = bob.wait_seeks(lambda seeks: seek_id in ids(seeks))[0]
    assert shown == {
        "id": seek_id,
        "game": "xiangqi",
        "rules": "chinese",
        "time_control": "10+5",
        "time_control_text": shown["time_control_text"],
        "rated": False,
        "color": "first",
        "name": "Ada",
        "rating": None,
        "provisional": False,
        "range": None,
        "quick": False,
        "challenge": None,
        "mine": False,
        "expires_ms": None,
        "created_ms": shown["created_ms"],
    }
    assert ada.wait_seeks(lambda seeks: bool(seeks))[0]["mine"] is True


def test_a_visitor_who_comes_later_sees_the_seeks_already_open(lobby: Any) -> None:
    seek_id = lobby().post(variant="janggi")
    assert ids(lobby().seeks) == [seek_id]


def test_a_cancelled_seek_leaves_every_list(lobby: Any) -> None:
    ada, bob = lobby(), lobby()
    seek_id = ada.post()
    bob.wait_seeks(lambda seeks: seek_id in ids(seeks))
    ada.send("cancel", seek=seek_id)
    ada.expect("ack")
    assert bob.wait_seeks(lambda seeks: not seeks) == []


def test_only_the_owner_cancels_a_seek(lobby: Any) -> None:
    seek_id = lobby().post()
    bob = lobby()
    bob.send("cancel", seek=seek_id)
    bob.error("no_seek")
    assert ids(bob.seeks) == [seek_id]


def test_accepting_a_seek_takes_both_players_to_the_game_each_with_their_own_seat(
    client: TestClient, lobby: Any
) -> None:
    ada, bob = lobby(name="Ada"), lobby(name="Bob")
    seek_id = ada.post(color="second", time_control="5+3")
    bob.wait_seeks(lambda seeks: seek_id in ids(seeks))
    bob.send("accept", seek=seek_id)
    bobs = bob.expect("paired")
    adas = ada.expect("paired")
    assert (adas["game_id"], adas["seat"], bobs["seat"]) == (bobs["game_id"], "second", "first")
    assert adas["token"] != bobs["token"]
    assert adas["token"] not in json.dumps(bob.seen) and bobs["token"] not in json.dumps(ada.seen)
    black, red = seat_player(client, adas), seat_player(client, bobs)
    assert (black.state["you"]["role"], red.state["you"]["role"]) == ("second", "first")
    assert red.state["players"]["second"]["name"] == "Ada"
    assert red.state["kind"] == "friend" and red.state["time_control"] is not None
    assert bob.wait_seeks(lambda seeks: not seeks) == []
    black.close()
    red.close()


def test_a_seek_is_accepted_once(lobby: Any) -> None:
    ada, bob, cat = lobby(), lobby(), lobby()
    seek_id = ada.post()
    cat.wait_seeks(lambda seeks: seek_id in ids(seeks))
    bob.send("accept", seek=seek_id)
    bob.expect("paired")
    cat.send("accept", seek=seek_id)
    refusal = cat.error("no_seek")
    assert "gone" in refusal["message"]


def test_two_acceptors_racing_in_the_store_exactly_one_takes_the_seek(
    make_client: MakeClient, database: str | Path
) -> None:
    """Two takes of one seek at the same moment, twenty times over: on PostgreSQL from two
    stores (as two server processes are), on SQLite from one (its one writer). (The seeks'
    owners are not in the lobby: its sweep, which would forget their seeks, is quiet.)"""
    from chuhan.web.db import open_store

    client = make_client(**CHEAP, **QUIET_LOBBY)
    store = client.app.state.context.store  # type: ignore[attr-defined]
    limits = SeekLimits(100, 100, 100, 100, 100, 100)

    async def race() -> list[int]:
        other = open_store(database) if store.shared else store
        await other.open()
        try:
            wins = []
            for number in range(20):
                seek = _seek(f"race-{number}", f"v:owner{number}")
                await SeekRepository(store).add_seek(seek, limits)
                taken = await asyncio.gather(
                    SeekRepository(store).take_seek(seek.id),
                    SeekRepository(other).take_seek(seek.id),
                )
                wins.append(sum(found is not None for found in taken))
            return wins
        finally:
            if other is not store:
                await other.close()

    assert client.portal.call(race) == [1] * 20  # type: ignore[union-attr]


def _seek(seek_id: str, owner: str, **changes: Any) -> Seek:
    values: dict[str, Any] = {
        "id": seek_id,
        "owner": owner,
        "address": "192.0.2.1",
        "account_id": None,
        "name": "Someone",
        "game": "xiangqi",
        "rules": "asian",
        "time_control": None,
        "rated": False,
        "color": "random",
        "rating": None,
        "deviation": None,
        "rating_min": None,
        "rating_max": None,
        "target": None,
        "target_name": None,
        "pool": None,
        "created": 1_800_000_000.0,
    }
    return Seek(**(values | changes))


# ---------------------------------------------------------------------------- leaving


def test_a_seek_goes_when_its_owner_leaves_the_lobby(lobby: Any) -> None:
    ada, bob = lobby(), lobby()
    seek_id = ada.post()
    bob.wait_seeks(lambda seeks: seek_id in ids(seeks))
    ada.close()
    assert bob.wait_seeks(lambda seeks: not seeks) == []


def test_a_seek_stays_while_another_tab_of_its_owner_is_open(
    lobby: Any, client: TestClient
) -> None:
    visitor = secrets.token_urlsafe(24)
    tab, other_tab, bob = lobby(visitor=visitor), lobby(visitor=visitor), lobby()
    seek_id = tab.post()
    assert other_tab.wait_seeks(lambda seeks: bool(seeks))[0]["mine"] is True
    members = client.app.state.context.lobby.members  # type: ignore[attr-defined]

    def connections() -> int:  # read on the server's event loop, not beside it
        count: int = client.portal.call(  # type: ignore[union-attr]
            lambda: sum(len(tabs) for tabs in members.values())
        )
        return count

    before = connections()
    tab.close()
    deadline = time.monotonic() + 60  # the server has handled the first tab's leaving
    while connections() != before - 1:
        assert time.monotonic() < deadline, "the closed tab never left the lobby"
        time.sleep(0.01)
    second = other_tab.post()
    assert seek_id in ids(bob.wait_seeks(lambda seeks: second in ids(seeks)))
    other_tab.close()
    assert bob.wait_seeks(lambda seeks: not seeks) == []


def test_the_seeks_of_a_process_that_stopped_beating_are_swept(
    client: TestClient, lobby: Any
) -> None:
    context = client.app.state.context  # type: ignore[attr-defined]
    bob = lobby()

    async def posted_on_a_dead_process() -> None:
        await context.lobby.repository.enter_lobby("v:ghost", "a-process-that-died")
        await context.lobby.repository.add_seek(_seek("ghost", "v:ghost"), context.lobby.limits)

    client.portal.call(posted_on_a_dead_process)  # type: ignore[union-attr]
    client.portal.call(context.lobby.sweep)  # type: ignore[union-attr]
    bob.send("ping")
    bob.expect("pong")
    assert bob.seeks == []
    assert client.portal.call(context.lobby.repository.seek, "ghost") is None  # type: ignore[union-attr]


# ---------------------------------------------------------------------------- rated


def test_a_rated_seek_between_two_accounts_is_a_rated_game_settled_by_glicko_2(
    client: TestClient, lobby: Any
) -> None:
    ada_cookie, bob_cookie = sign_up(client, "Ada"), sign_up(client, "Bob")
    ada, bob = lobby(ada_cookie), lobby(bob_cookie)
    seek_id = ada.post(rated=True, color="first")
    shown = bob.wait_seeks(lambda seeks: seek_id in ids(seeks))[0]
    assert (shown["name"], shown["rating"], shown["provisional"]) == ("Ada", 1500, True)
    bob.send("accept", seek=seek_id)
    red = seat_player(client, ada.expect("paired"), ada_cookie)
    black = seat_player(client, bob.expect("paired"), bob_cookie)
    play_opening(red, black)
    black.do("resign")
    rating = client.get(f"/api/games/{red.state['game_id']}/rating").json()
    deadline = time.monotonic() + 60  # a bound on a hang only
    while rating["settlement"] is None:  # (the keeper settles when it hears the end)
        assert time.monotonic() < deadline
        time.sleep(0.05)
        rating = client.get(f"/api/games/{red.state['game_id']}/rating").json()
    assert rating["rated"] is True and rating["players"] == {"first": "Ada", "second": "Bob"}
    new = Glicko(1500, 350, 0.06)
    expected = rate(new, [(new, 1.0)])
    change = rating["settlement"]["changes"]["first"]
    assert change["after"] == round(expected.rating)
    red.close()
    black.close()


def test_an_anonymous_visitor_cannot_post_a_rated_seek(lobby: Any) -> None:
    anonymous = lobby()
    anonymous.send("seek", variant="xiangqi", rated=True)
    assert "sign in" in anonymous.error("account_required")["message"]


def test_an_anonymous_visitor_cannot_accept_a_rated_seek(client: TestClient, lobby: Any) -> None:
    seek_id = lobby(sign_up(client, "Ada")).post(rated=True)
    anonymous = lobby()
    anonymous.send("accept", seek=seek_id)
    assert "rated seek: sign in" in anonymous.error("account_required")["message"]


def test_a_rated_seek_is_refused_to_its_own_account_in_another_browser(
    client: TestClient, lobby: Any
) -> None:
    cookie = sign_up(client, "Ada")
    seek_id = lobby(cookie).post(rated=True)
    again = sign_in_cookie(client, "Ada")
    other_browser = lobby(again)
    other_browser.send("accept", seek=seek_id)
    assert "your own seek" in other_browser.error("own_seek")["message"]


def sign_in_cookie(client: TestClient, name: str) -> str:
    response = client.post(
        "/api/account/signin", json={"name": name, "password": "correct horse battery"}
    )
    cookie = response.cookies["chuhan_session"]
    client.cookies.clear()
    return str(cookie)


def test_a_rating_range_keeps_out_players_outside_it(client: TestClient, lobby: Any) -> None:
    seek_id = lobby(sign_up(client, "Ada")).post(rating_min=1700, rating_max=2000)
    bob = lobby(sign_up(client, "Bob"))
    assert bob.wait_seeks(lambda seeks: bool(seeks))[0]["range"] == [1700, 2000]
    bob.send("accept", seek=seek_id)
    assert "1700 to 2000; yours is 1500" in bob.error("out_of_range")["message"]


# ---------------------------------------------------------------------------- quick pairing


def test_two_players_pressing_the_same_quick_button_play_each_other(lobby: Any) -> None:
    ada, bob = lobby(), lobby()
    ada.send("quick", variant="xiangqi", time_control="5+3")
    waiting = ada.expect("ack")["seek"]
    assert bob.wait_seeks(lambda seeks: bool(seeks))[0]["quick"] is True
    bob.send("quick", variant="xiangqi", time_control="5+3")
    bobs, adas = bob.expect("paired"), ada.expect("paired")
    assert adas["game_id"] == bobs["game_id"] and adas["seek"] == waiting
    assert {adas["seat"], bobs["seat"]} == {"first", "second"}


def test_quick_pairing_pairs_the_nearest_rating_waiting(client: TestClient, lobby: Any) -> None:
    """Three players wait in the rated 10+5 pool (rated 1900, 1580 and 1380, the last one
    the oldest): a player rated 1500 is paired with the 1580."""
    context = client.app.state.context  # type: ignore[attr-defined]
    control = {"base": 600.0, "increment": 5.0, "periods": 0, "period_seconds": 0.0}
    waiting = {"far": 1900.0, "near": 1580.0, "older": 1380.0}
    secrets_of = {name: secrets.token_urlsafe(24) for name in waiting}
    for name in waiting:
        lobby(visitor=secrets_of[name])  # (in the lobby: their seeks stay)

    async def wait_in_the_pool() -> None:
        for name, rating in waiting.items():
            seek = _seek(
                name,
                owner_of(None, secrets_of[name]),
                account_id=f"account-{name}",
                rating=rating,
                deviation=60.0,
                rated=True,
                time_control=control,
                pool="xiangqi:asian:10+5:rated",
                created=1.0 if name == "older" else 2.0,
            )
            await context.lobby.repository.add_seek(seek, context.lobby.limits)
        await context.lobby.sweep()

    client.portal.call(wait_in_the_pool)  # type: ignore[union-attr]
    ada = lobby(sign_up(client, "Ada"))
    ada.wait_seeks(lambda seeks: len(seeks) == 3)
    ada.send("quick", variant="xiangqi", time_control="10+5", rated=True)
    assert ada.expect("paired")["seek"] == "near"
    assert sorted(ids(ada.wait_seeks(lambda seeks: len(seeks) == 2))) == ["far", "older"]


def test_quick_pairing_respects_the_waiting_player_s_range(client: TestClient, lobby: Any) -> None:
    ada = lobby(sign_up(client, "Ada"))
    ada.send("quick", variant="janggi", time_control="10+5", rated=True, rating_min=1800)
    ada.expect("ack")
    bob = lobby(sign_up(client, "Bob"))
    bob.send("quick", variant="janggi", time_control="10+5", rated=True)
    assert bob.expect("ack")["seek"] is not None  # (left waiting, not paired)
    assert len(bob.wait_seeks(lambda seeks: len(seeks) == 2)) == 2


# ---------------------------------------------------------------------------- challenges


def test_a_challenge_is_shown_to_the_challenged_player_alone_who_may_decline(
    client: TestClient, lobby: Any
) -> None:
    ada = lobby(sign_up(client, "Ada"))
    bob = lobby(sign_up(client, "Bob"))
    onlooker = lobby()
    ada.send("challenge", to="bob", variant="xiangqi", rated=True)
    seek_id = ada.expect("ack")["seek"]
    shown = bob.wait_seeks(lambda seeks: bool(seeks))[0]
    assert shown["challenge"] == {"from": "Ada", "to": "Bob"} and shown["id"] == seek_id
    onlooker.send("ping")
    onlooker.expect("pong")
    assert onlooker.seeks == []
    bob.send("decline", seek=seek_id)
    assert ada.expect("declined") == {"type": "declined", "seek": seek_id, "by": "Bob"}


def test_an_accepted_challenge_starts_a_rated_game(client: TestClient, lobby: Any) -> None:
    ada = lobby(sign_up(client, "Ada"))
    bob = lobby(sign_up(client, "Bob"))
    ada.send("challenge", to="Bob", variant="xiangqi", rated=True)
    seek_id = ada.expect("ack")["seek"]
    bob.wait_seeks(lambda seeks: bool(seeks))
    bob.send("accept", seek=seek_id)
    game_id = bob.expect("paired")["game_id"]
    assert ada.expect("paired")["game_id"] == game_id
    assert client.get(f"/api/games/{game_id}/rating").json()["rated"] is True


def test_a_challenge_to_someone_else_cannot_be_accepted(client: TestClient, lobby: Any) -> None:
    ada = lobby(sign_up(client, "Ada"))
    lobby(sign_up(client, "Bob"))
    ada.send("challenge", to="Bob", variant="xiangqi")
    seek_id = ada.expect("ack")["seek"]
    cat = lobby(sign_up(client, "Cat"))
    cat.send("accept", seek=seek_id)
    cat.error("not_for_you")


def test_a_player_who_does_not_exist_cannot_be_challenged(client: TestClient, lobby: Any) -> None:
    ada = lobby(sign_up(client, "Ada"))
    ada.send("challenge", to="Nobody", variant="xiangqi")
    ada.error("no_player")


# ---------------------------------------------------------------------------- limits


def test_a_player_has_at_most_three_open_seeks(client: TestClient, lobby: Any) -> None:
    ada = lobby(sign_up(client, "Ada"))  # (anonymous, an address has room for two)
    for _ in range(3):
        ada.post()
    ada.send("seek", variant="xiangqi")
    assert "3 open seeks" in ada.error("too_many_seeks")["message"]


def test_one_address_has_at_most_its_limit_of_seeks(make_client: MakeClient) -> None:
    client = make_client(lobby_seeks_per_address=2, **CHEAP)
    members = [LobbyClient(client) for _ in range(3)]
    for member in members:
        member.hello(visitor=secrets.token_urlsafe(24))
    members[0].post()
    members[1].post()
    members[2].send("seek", variant="xiangqi")
    assert "your address" in members[2].error("too_many_seeks")["message"]
    for member in members:
        member.close()


def test_a_flood_on_the_lobby_socket_is_refused_then_closed(make_client: MakeClient) -> None:
    client = make_client(lobby_rate_burst=5, lobby_rate_per_second=0.01, max_dropped=3, **CHEAP)
    member = LobbyClient(client)
    member.hello(visitor=secrets.token_urlsafe(24))
    for _ in range(12):
        member.send("ping")
    codes = []
    with pytest.raises(WebSocketDisconnect) as closed:
        while True:
            message = member.receive()
            if message["type"] == "error":
                codes.append(message["code"])
    assert "rate_limited" in codes and closed.value.code == 1008
    member.close()


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"variant": "chess"}, "chess"),
        ({"variant": "xiangqi", "rules": "official"}, "official"),
        ({"variant": "xiangqi", "time_control": "0+5"}, "at least 10 seconds"),
        ({"variant": "xiangqi", "time_control": "999+0"}, "at most 180 minutes"),
        ({"variant": "xiangqi", "color": "green"}, "'color' must be"),
        ({"variant": "xiangqi", "rating_min": -5}, "0 to 4000"),
        ({"variant": "xiangqi", "rating_min": 1900, "rating_max": 1200}, "range 1900-1200"),
        ({"variant": "xiangqi", "rated": "yes"}, "true or false"),
        ({"variant": "x" * 5000}, "over the 4096-byte limit"),
    ],
)
def test_a_hostile_seek_is_refused_with_a_sentence(
    lobby: Any, fields: dict[str, Any], words: str
) -> None:
    member = lobby()
    member.send("seek", **fields)
    message = member.receive()
    while message["type"] != "error":
        message = member.receive()
    assert message["code"] in ("bad_field", "too_large") and words in message["message"], message
    assert member.seeks == []


def test_a_name_with_a_direction_override_is_refused_by_its_code_point(
    client: TestClient,
) -> None:
    member = LobbyClient(client)
    member.send("hello", visitor=secrets.token_urlsafe(24), name="Ada\u202eevil")
    assert "U+202E" in member.error("bad_field")["message"]
    member.close()


def test_a_short_browser_secret_is_refused(client: TestClient) -> None:
    member = LobbyClient(client)
    member.send("hello", visitor="guessable")
    assert "16 to 100" in member.error("bad_field")["message"]
    member.close()


def test_nothing_is_done_before_hello(client: TestClient) -> None:
    member = LobbyClient(client)
    member.send("seek", variant="xiangqi")
    member.error("hello_first")
    member.close()


def test_the_seek_list_never_carries_an_owner_key_an_address_or_an_account_id(
    client: TestClient, lobby: Any
) -> None:
    visitor = secrets.token_urlsafe(24)
    ada = lobby(sign_up(client, "Ada"))
    ada.post(rated=True)
    bob = lobby(visitor=visitor)
    bob.post()
    text = json.dumps(lobby().wait_seeks(lambda seeks: len(seeks) == 2))
    accounts = client.app.state.context.accounts.repository  # type: ignore[attr-defined]
    account_id = client.portal.call(accounts.account_by_name, "Ada").id  # type: ignore[union-attr]
    assert visitor not in text and account_id not in text and "testclient" not in text


# ---------------------------------------------------------------------- games to watch
# GET /api/lobby/watch (issue 24: "a list of live games to watch and of who is online").


def watch(client: TestClient, clock: FakeClock) -> dict[str, Any]:
    clock.advance(WATCH_EVERY_SECONDS)  # (past the kept answer)
    answer = client.get("/api/lobby/watch")
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_the_games_in_play_are_listed_latest_moved_first(
    client: TestClient, clock: FakeClock
) -> None:
    first, red, _black = join_friend_game(client)
    clock.advance(1)
    second, _red2, _black2 = join_friend_game(client)
    create_game(client, kind="local", variant="xiangqi")  # (at one screen: not listed)
    clock.advance(1)
    computer = create_game(client, kind="computer", variant="xiangqi", level=2)
    listed = [game["game_id"] for game in watch(client, clock)["games"]]
    assert listed[:2] == [computer["game_id"], second["game_id"]]
    assert first["game_id"] in listed and len(listed) == 3
    # A move brings a game to the top; a game that ends leaves the list.
    clock.advance(1)
    red.move("h2e2")
    games = watch(client, clock)["games"]
    assert games[0]["game_id"] == first["game_id"]
    assert games[0]["watch_url"] == f"/w/{first['game_id']}"
    assert (games[0]["variant"], games[0]["kind"], games[0]["rated"]) == (
        "xiangqi",
        "friend",
        False,
    )
    red.do("resign")
    assert first["game_id"] not in [g["game_id"] for g in watch(client, clock)["games"]]


def test_who_is_in_the_lobby_is_counted_and_the_signed_in_are_named(
    client: TestClient, clock: FakeClock, lobby: Callable[..., LobbyClient]
) -> None:
    assert watch(client, clock)["online"] == {"count": 0, "names": []}
    lobby(sign_up(client, "bob"))
    lobby()  # an anonymous visitor
    ada = lobby(sign_up(client, "Ada"))
    assert watch(client, clock)["online"] == {"count": 3, "names": ["Ada", "bob"]}
    ada.close()
    # (the server sees the socket close in its own time: asked until it has, within a bound
    # on a hang)
    deadline = time.monotonic() + 60
    while (online := watch(client, clock)["online"])["count"] != 2:
        assert time.monotonic() < deadline, online
        time.sleep(0.01)
    assert online == {"count": 2, "names": ["bob"]}


def test_the_answer_is_read_once_every_few_seconds_whoever_asks(
    client: TestClient, clock: FakeClock
) -> None:
    before = client.get("/api/lobby/watch").json()
    join_friend_game(client)
    # Within the few seconds the same answer is given without a read; after them, a new one.
    assert client.get("/api/lobby/watch").json() == before
    clock.advance(WATCH_EVERY_SECONDS)
    assert len(client.get("/api/lobby/watch").json()["games"]) == len(before["games"]) + 1
