"""Accounts and ratings across real processes on one PostgreSQL database: a session made
on one server process is good on another and ends on both; a rated game played across two
processes is settled once; and two OS processes settling the same rated games at the same
moment change every rating exactly once."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from process_helpers import Client, invite_token, start_server, stop
from test_store_accounts import account, established, finished_game
from websockets.sync.client import connect

from chuhan.web.accounts.ratings import NEW_ACCOUNT_GAMES
from chuhan.web.accounts.repository import AccountRepository
from chuhan.web.db import Store, open_store
from chuhan.web.server import free_port

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

PASSWORD = "correct horse battery"


@pytest.fixture
def two_servers(postgres_url: str) -> Iterator[tuple[int, int]]:
    processes, ports = [], []
    for _ in range(2):
        port = free_port()
        # (behind a "proxy": each player below comes from an address of its own, as two
        # people do, so their rated game counts)
        processes.append(start_server(port, postgres_url, "--trust-proxy"))
        ports.append(port)
    yield ports[0], ports[1]
    for process in processes:
        stop(process)


def call(
    port: int,
    path: str,
    body: dict[str, Any] | None = None,
    cookie: str | None = None,
    address: str = "198.51.100.1",
) -> tuple[int, Any, str | None]:
    """A request to one server (from ``address``, as its proxy says): its status, JSON body
    and the session cookie it set."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=None if body is None else json.dumps(body).encode(),
        headers={"content-type": "application/json", "x-forwarded-for": address}
        | ({"cookie": f"chuhan_session={cookie}"} if cookie else {}),
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, text, headers = response.status, response.read(), response.headers
    except urllib.error.HTTPError as error:
        status, text, headers = error.code, error.read(), error.headers
    set_cookie = headers.get("set-cookie") or ""
    found = None
    if set_cookie.startswith("chuhan_session="):
        found = set_cookie.split(";", 1)[0].split("=", 1)[1].strip('"') or None
    return status, json.loads(text), found


def seat(
    stack: contextlib.ExitStack,
    port: int,
    game_id: str,
    token: str,
    cookie: str,
    address: str = "198.51.100.1",
) -> Client:
    """A player on one server, signed in by ``cookie`` (from ``address``)."""
    url = f"ws://127.0.0.1:{port}/ws/{game_id}"
    client = Client.__new__(Client)
    headers = {"cookie": f"chuhan_session={cookie}", "x-forwarded-for": address}
    client.ws = stack.enter_context(connect(url, additional_headers=headers))
    client.seq, client.state, client.presence, client.chat = 0, {}, {}, []
    client.send("hello", token=token, protocol=2)
    client.until("chat_history")
    return client


def test_a_session_holds_on_every_process_and_ends_on_every_process(
    two_servers: tuple[int, int],
) -> None:
    one, other = two_servers
    status, _, cookie = call(one, "/api/account/signup", {"name": "Ada", "password": PASSWORD})
    assert status == 201 and cookie
    assert call(other, "/api/account", cookie=cookie)[1]["account"]["name"] == "Ada"
    assert call(other, "/api/account/signout", {}, cookie=cookie)[0] == 200
    assert call(one, "/api/account", cookie=cookie)[1]["account"] is None  # replayed


def test_a_rated_game_across_two_processes_is_settled_once(
    two_servers: tuple[int, int], postgres_url: str
) -> None:
    one, other = two_servers
    bobs = "203.0.113.2"  # (Bob's own address; Ada's is the default)
    ada = call(one, "/api/account/signup", {"name": "Ada", "password": PASSWORD})[2]
    bob = call(other, "/api/account/signup", {"name": "Bob", "password": PASSWORD}, None, bobs)[2]
    status, game, _ = call(other, "/api/games", {"kind": "friend", "rated": True}, cookie=ada)
    assert status == 201, game
    with contextlib.ExitStack() as stack:
        red = seat(stack, one, game["game_id"], game["token"], str(ada))
        black = seat(stack, other, game["game_id"], invite_token(game), str(bob), bobs)
        for ply, move in enumerate(("h2e2", "h9g7", "h0g2", "i9h9")):  # both move twice
            (red, black)[ply % 2].move(move)
            (black, red)[ply % 2].wait_ply(ply + 1, timeout=60)
        black.send("resign", version=black.state["version"])
        black.until("ack", timeout=60)
        red.wait(lambda state: state["status"] == "over", timeout=60)
    deadline = time.monotonic() + 120  # a bound on a hang only
    while (found := call(one, f"/api/games/{game['game_id']}/rating")[1])["settlement"] is None:
        assert time.monotonic() < deadline, found
        time.sleep(0.1)
    assert found["settlement"]["winner"] == "first"
    for port in (one, other):
        profile = call(port, "/api/players/Ada")[1]
        assert profile["ratings"]["xiangqi"]["games"] == 1
        assert len(profile["history"]["xiangqi"]) == 1


#: One OS process: open the store, wait for the start time, settle every game given.
_SETTLER = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from chuhan.web.accounts.ratings import settle_game
    from chuhan.web.db import open_store

    async def main():
        store = open_store(sys.argv[1])
        await store.open()
        try:
            games = json.loads(sys.argv[3])
            time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
            done = await asyncio.gather(*(settle_game(store, g, 1e9) for g in games))
            print(json.dumps([s.to_json() for s in done]))
        finally:
            await store.close()

    asyncio.run(main())
    """
)


def test_two_processes_settling_the_same_games_at_once_rate_each_once(
    postgres_url: str,
) -> None:
    pairs = [(a, b) for a in range(5) for b in range(a + 1, 5)]

    async def fill(store: Store) -> list[str]:
        for number in range(5):
            await AccountRepository(store).create_account(account(number))
            await established(store, number)
        return [await finished_game(store, n, a, b, "first") for n, (a, b) in enumerate(pairs)]

    async def opened(work: Any) -> Any:
        store = open_store(postgres_url)
        await store.open()
        try:
            return await work(store)
        finally:
            await store.close()

    games = asyncio.run(opened(fill))
    start = time.time() + 2.0
    settlers = [
        subprocess.Popen(
            [sys.executable, "-c", _SETTLER, postgres_url, str(start), json.dumps(games)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [json.loads(settler.communicate(timeout=60)[0]) for settler in settlers]
    assert outputs[0] == outputs[1]  # both were told the one settlement of each game

    async def check(store: Store) -> None:
        for number in range(5):
            rating = (await AccountRepository(store).ratings_of(f"account-{number}"))["xiangqi"]
            history = await AccountRepository(store).rating_history(
                f"account-{number}", "xiangqi", 100
            )
            assert rating.games - NEW_ACCOUNT_GAMES == len(history) == 4

    asyncio.run(opened(check))
