"""Tournaments on several real server processes sharing one PostgreSQL database: a game's
end written by a process that died before giving its board the result is still recorded
(the driver's look), and the process driving a tournament killed with SIGKILL: another
takes its clock and pairings over, no round is paired twice and no game is lost.

The waits are bounds on a hang (generous deadlines), never what orders the events."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from process_helpers import Client, start_server, stop
from websockets.sync.client import connect

from chuhan.web.db import open_store
from chuhan.web.db.statements import All, Do
from chuhan.web.http.clients import SESSION_COOKIE
from chuhan.web.round.state import Event, evolve, replay, row_of
from chuhan.web.server import free_port

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")

HANG = 120.0  # seconds: a bound on a hang only


@pytest.fixture
def servers(postgres_url: str) -> Iterator[Callable[[], tuple[int, subprocess.Popen[str]]]]:
    """``servers()`` starts one more server on a fresh database: its port and process."""
    started: list[subprocess.Popen[str]] = []

    def start() -> tuple[int, subprocess.Popen[str]]:
        port = free_port()
        started.append(start_server(port, postgres_url))
        return port, started[-1]

    yield start
    for process in started:
        stop(process)


def call(port: int, method: str, path: str, cookie: str | None = None, **body: Any) -> Any:
    """An HTTP call; the JSON answer (an error's too) and, for a sign-up, the cookie."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=None if method == "GET" else json.dumps(body).encode(),
        headers={"content-type": "application/json"}
        | ({"cookie": f"{SESSION_COOKIE}={cookie}"} if cookie else {}),
        method=method,
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            answer = json.loads(response.read())
            for header in response.headers.get_all("set-cookie") or ():
                if header.startswith(f"{SESSION_COOKIE}="):
                    answer["cookie"] = header.split(";")[0].split("=", 1)[1]
            return answer
    except urllib.error.HTTPError as error:
        return {"status": error.code, **json.loads(error.read())}


def sign_up(port: int, name: str) -> str:
    answer = call(port, "POST", "/api/account/signup", name=name, password="a good password")
    assert "cookie" in answer, answer
    return str(answer["cookie"])


def until(what: Callable[[], Any], message: str) -> Any:
    """``what()`` once it is true (asked four times a second, within the hang bound)."""
    deadline = time.monotonic() + HANG
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(0.25)
    raise AssertionError(f"{message} (not within {HANG:.0f} s)")


def shown(port: int, tournament_id: str) -> Any:
    return call(port, "GET", f"/api/tournaments/{tournament_id}")["tournament"]


def read(url: str, sql: str, *parameters: Any) -> list[dict[str, Any]]:
    async def work() -> list[dict[str, Any]]:
        store = open_store(url)
        await store.open()
        try:

            def body() -> Any:
                return (yield All(sql, parameters))

            return [dict(row) for row in await store.read(body(), "a test's read")]
        finally:
            await store.close()

    return asyncio.run(work())


def write(url: str, sql: str, *parameters: Any) -> None:
    async def work() -> None:
        store = open_store(url)
        await store.open()
        try:

            def body() -> Any:
                yield Do(sql, parameters)

            await store.write(body(), "a test's write")
        finally:
            await store.close()

    asyncio.run(work())


def end_unannounced(url: str, game_id: str, side: str) -> None:
    """``side`` resigns the game, written as a process would that died before telling
    anyone (its notices cut off) and before its tournaments heard of it."""

    async def write() -> None:
        store = open_store(url)
        await store.open()
        store._announce = lambda *args, **options: None  # type: ignore[attr-defined]
        try:
            row = await store.load_game(game_id)
            assert row is not None
            state = replay(row, await store.events(game_id))
            state = evolve(state, Event("resign", {"side": side}, time.time()))
            await store.save_game(row_of(state), "resign", {"side": side})
        finally:
            await store.close()

    asyncio.run(write())


def a_tournament(port: int, cookies: list[str], **fields: Any) -> str:
    """A tournament directed by the first account, every account entered; its id."""
    created = call(port, "POST", "/api/tournaments", cookies[0], **fields)
    assert "tournament" in created, created
    tournament_id = str(created["tournament"]["id"])
    for cookie in cookies:
        joined = call(port, "POST", f"/api/tournaments/{tournament_id}/join", cookie)
        assert "status" not in joined, joined
    return tournament_id


def test_a_game_ended_by_a_process_that_died_still_gets_its_result(
    servers: Any, postgres_url: str
) -> None:
    port, _ = servers()
    cookies = [sign_up(port, "Player0"), sign_up(port, "Player1")]
    tournament_id = a_tournament(
        port, cookies, name="Pair", format="round_robin", rounds=1, starts=time.time() + 3600
    )
    paired = call(port, "POST", f"/api/tournaments/{tournament_id}/pair", cookies[0])
    assert "status" not in paired, paired
    game = until(
        lambda: call(port, "POST", f"/api/tournaments/{tournament_id}/game", cookies[0]).get(
            "game"
        ),
        "the round's game made",
    )
    black = "second" if game["seat"] == "first" else "first"
    end_unannounced(postgres_url, game["game_id"], black)
    over = until(
        lambda: (t := shown(port, tournament_id))["status"] == "finished" and t,
        "the tournament finished by the game's result",
    )
    (board,) = over["paired"][0]
    assert board["result"] == "1-0"
    assert [line["points"] for line in over["standings"]] == [1.0, 0.0]


def test_a_killed_driver_s_tournament_is_driven_on_by_another_process(
    servers: Any, postgres_url: str
) -> None:
    """A 4-player Swiss of 2 rounds started by its driver on time; the driver is killed
    after round 1 is paired: its games go on through the other process, which then pairs
    round 2 once, makes its games, and finishes the tournament."""
    one, first = servers()
    cookies = [sign_up(one, f"Player{number}") for number in range(4)]
    tournament_id = a_tournament(
        one, cookies, name="Swiss", format="swiss", rounds=2, starts=time.time() + 3600
    )
    # Everyone entered, the start is brought to now: the driver pairs round 1 by itself at
    # the start (a start a few seconds ahead would race the entries on a loaded machine).
    write(
        postgres_url, "UPDATE tournaments SET starts = ? WHERE id = ?", time.time(), tournament_id
    )

    def driver() -> Any:
        found = read(postgres_url, "SELECT driver FROM tournaments WHERE id = ?", tournament_id)
        return found[0]["driver"]

    first_driver = until(driver, "the first process driving the tournament")
    two, _ = servers()

    def round_with_games(port: int, number: int) -> Any:
        rounds = shown(port, tournament_id)["paired"]
        if len(rounds) < number:
            return None
        boards = rounds[number - 1]
        return boards if all(board.get("game") for board in boards) else None

    until(lambda: round_with_games(one, 1), "round 1 paired and its games made")
    assert driver() == first_driver  # (the second process, alive beside it, took nothing)
    killed = time.monotonic()
    os.kill(first.pid, signal.SIGKILL)
    first.wait(timeout=60)

    def play_round(number: int) -> None:
        """In each game of the round, on the surviving process, black resigns after the
        first two moves."""
        with contextlib.ExitStack() as stack:
            seats: dict[str, dict[str, Client]] = {}
            for cookie in cookies:
                game = call(two, "POST", f"/api/tournaments/{tournament_id}/game", cookie)
                if "game" not in game:
                    continue
                game = game["game"]
                assert game["round"] == number
                client = Client(stack, two, game["game_id"], game["token"])
                seats.setdefault(game["game_id"], {})[game["seat"]] = client
            assert len(seats) == 2
            for pair in seats.values():
                red, black = pair["first"], pair["second"]
                red.move("h2e2")
                black.wait_ply(1, HANG)
                black.move("h9g7")
                red.wait_ply(2, HANG)
                black.send("resign", version=black.state["version"])
                black.until("ack", HANG)
                red.wait(lambda state: state["status"] == "over", HANG)

    play_round(1)
    second_round = until(lambda: round_with_games(two, 2), "round 2 paired by the survivor")
    print(
        f"takeover: round 2 paired with its games {time.monotonic() - killed:.2f} s after the kill"
    )
    assert driver() not in (None, first_driver)
    assert len(second_round) == 2
    play_round(2)
    over = until(
        lambda: (t := shown(two, tournament_id))["status"] == "finished" and t,
        "the tournament finished",
    )
    # Each round paired once, every board with one game and its result; no game lost.
    boards = read(
        postgres_url,
        "SELECT round, board, game_id, result FROM tournament_boards WHERE tournament_id = ? "
        "ORDER BY round, board",
        tournament_id,
    )
    assert [(b["round"], b["board"]) for b in boards] == [(1, 1), (1, 2), (2, 1), (2, 2)]
    assert all(b["game_id"] and b["result"] == "1-0" for b in boards)
    games = read(
        postgres_url,
        "SELECT g.status FROM games AS g JOIN tournament_boards AS b ON b.game_id = g.id "
        "WHERE b.tournament_id = ?",
        tournament_id,
    )
    assert [game["status"] for game in games] == ["over"] * 4
    assert sorted(line["points"] for line in over["standings"]) == [0.0, 1.0, 1.0, 2.0]


class Page:
    """A tournament page's websocket on one server (with an account's cookie or none)."""

    def __init__(
        self, stack: contextlib.ExitStack, port: int, tournament_id: str, cookie: str | None
    ) -> None:
        headers = {"cookie": f"{SESSION_COOKIE}={cookie}"} if cookie else {}
        url = f"ws://127.0.0.1:{port}/ws/t/{tournament_id}"
        self.ws = stack.enter_context(connect(url, additional_headers=headers))
        self.seq = 0
        self.tournament: dict[str, Any] = {}
        self.lines: list[dict[str, Any]] = []
        self.send("hello")
        self.until("chat_history")

    def send(self, kind: str, **fields: Any) -> int:
        self.seq += 1
        self.ws.send(json.dumps({"type": kind, "seq": self.seq, **fields}))
        return self.seq

    def until(self, kind: str) -> dict[str, Any]:
        deadline = time.monotonic() + HANG
        while True:
            text = self.ws.recv(timeout=max(0.01, deadline - time.monotonic()))
            message: dict[str, Any] = json.loads(text)
            if message["type"] == "error":
                raise AssertionError(message)
            if message["type"] == "tournament":
                self.tournament = message["tournament"]
            elif message["type"] == "chat":
                self.lines.append(message["line"])
            if message["type"] == kind:
                return message


def test_a_tournament_page_hears_the_changes_and_the_chat_of_another_process(
    servers: Any,
) -> None:
    """A page on one process is sent the tournament when an entrant joins through the
    other, and the chat lines said on either (each line once); an entrant's pages on both
    are told of the entrant's game as it is made."""
    first, _ = servers()
    second, _ = servers()
    director = sign_up(first, "Director")
    tournament_id = a_tournament(first, [director], name="Club", starts=time.time() + 3600)
    with contextlib.ExitStack() as stack:
        here = Page(stack, first, tournament_id, director)
        there = Page(stack, second, tournament_id, None)
        assert there.tournament["players"] == 1
        entrant = sign_up(second, "Entrant")
        joined = call(second, "POST", f"/api/tournaments/{tournament_id}/join", entrant)
        assert "status" not in joined, joined
        while here.tournament["players"] != 2:
            here.until("tournament")
        assert [line["name"] for line in here.tournament["entrants"]] == ["Director", "Entrant"]
        here.send("chat", text="welcome to the club")
        here.until("ack")
        while not there.lines:
            there.until("chat")
        talker = Page(stack, second, tournament_id, entrant)
        talker.send("chat", text="thank you")
        talker.until("ack")
        while len(here.lines) < 2:
            here.until("chat")
        expected = [("Director", "welcome to the club"), ("Entrant", "thank you")]
        assert [(line["name"], line["text"]) for line in here.lines] == expected
        while len(there.lines) < 2:
            there.until("chat")
        assert [(line["name"], line["text"]) for line in there.lines] == expected
        # The game made for the entrant's board is told at once to the entrant's pages on
        # both processes: by the process that made it, and in its notice by the other.
        pages = [Page(stack, port, tournament_id, entrant) for port in (first, second)]
        paired = call(first, "POST", f"/api/tournaments/{tournament_id}/pair", director)
        assert "tournament" in paired, paired
        told = [page.until("your_game")["game"] for page in pages]
        seat = call(second, "POST", f"/api/tournaments/{tournament_id}/game", entrant)
        assert told == [seat["game"]["game_id"]] * 2
