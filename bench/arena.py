"""An arena of N players on one server process (issue 23's numbers): the time to pair the
waiting players, and the players' move round trip while the pairings run.

``chuhan serve`` runs in a process of its own on a fresh SQLite database (``--trust-proxy``,
each player coming from an address of its own); this process plays every player over real
websockets, as ``bench/load.py`` plays games. Each player signs up, joins the arena, and
watches the tournament's page socket (``/ws/t/{id}``); when the page is told of a game of
theirs (``your_game``, or a board of theirs with its game made), the player asks for its
seat (``POST .../game``), opens the game's socket and plays random legal moves, each after
``--think-ms`` (0.5x to 1.5x); the side to move at
ply ``--plies`` resigns, and the player waits to be paired again, until the arena ends.

    PYTHONPATH=src .venv/bin/python bench/arena.py                      # 200 players
    PYTHONPATH=src .venv/bin/python bench/arena.py --players 50 --minutes 2 --plies 20

Prints: the first pairing (from the arena's start to the last player's game shown on their
page), each later wait (from a player's game ending to their next game shown: the result
given, the matching, the boards kept and the page told; a player who finished while
nobody else was waiting waits for the next game to end, so the tail of these is the
arena's own), the move round trip p50/p90/p99/max over all moves and over the moves sent
within a second after any pairing, the games played, errors, and the server's CPU seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chuhan.web.server import free_port
from load import cpu_seconds, percentile, serving

PASSWORD = "arena bench password"


@dataclass
class Numbers:
    round_trips: list[tuple[float, float]] = field(default_factory=list)  # (sent at, seconds)
    pairings: list[float] = field(default_factory=list)  # when a pairing was first seen
    first_game: list[float] = field(default_factory=list)  # when each player's first came
    waits: list[float] = field(default_factory=list)
    games: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    #: The ``tournament`` frames the pages were sent while the arena ran, and their bytes.
    frames: int = 0
    frame_bytes: int = 0
    #: The tournament's revisions the pages saw (each a reading the server sent).
    revisions: set[int] = field(default_factory=set)
    #: The ``your_game`` frames (a player's game told as it is made).
    told: int = 0


def address(number: int) -> str:
    return f"198.18.{number // 250}.{number % 250 + 1}"


def call(
    base: str, path: str, body: dict[str, Any] | None, cookie: str | None, at: str
) -> tuple[int, Any, str | None]:
    """An HTTP call from ``at``: status, JSON answer, the session cookie set (if any)."""
    headers = {"content-type": "application/json", "x-forwarded-for": at}
    if cookie:
        headers["cookie"] = f"chuhan_session={cookie}"
    request = urllib.request.Request(
        base + path,
        data=None if body is None else json.dumps(body).encode(),
        headers=headers,
        method="GET" if body is None else "POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            cookies = [
                part.split(";")[0].split("=", 1)[1]
                for part in response.headers.get_all("set-cookie") or ()
                if part.startswith("chuhan_session=")
            ]
            return response.status, json.loads(response.read()), cookies[0] if cookies else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read()), None


async def receive(ws: ClientConnection, seconds: float = 300) -> dict[str, Any]:
    async with asyncio.timeout(seconds):
        message: dict[str, Any] = json.loads(await ws.recv())
        return message


async def play(
    base: str,
    game: dict[str, Any],
    at: str,
    think_ms: float,
    plies: int,
    numbers: Numbers,
    rng: random.Random,
) -> None:
    """Play one seat of one game to its end."""
    seq = 0
    url = f"{base.replace('http', 'ws', 1)}/ws/{game['game_id']}"
    async with connect(url, compression=None, additional_headers={"x-forwarded-for": at}) as ws:

        async def send(kind: str, **fields: Any) -> None:
            nonlocal seq
            seq += 1
            await ws.send(json.dumps({"type": kind, "seq": seq, **fields}))

        await send("hello", token=game["token"], protocol=2)
        sent_at: float | None = None
        sent_ply = -1
        while True:
            message = await receive(ws)
            if message["type"] == "error":
                numbers.errors.append(f"game {message['code']}: {message['message']}")
                sent_at = None
                continue
            if message["type"] != "state":
                continue
            if sent_at is not None and message["ply"] > sent_ply:
                numbers.round_trips.append((sent_at, time.perf_counter() - sent_at))
                sent_at = None
            if message["status"] != "playing":
                return
            if not message["you"]["your_turn"] or sent_at is not None:
                continue
            await asyncio.sleep(think_ms * rng.uniform(0.5, 1.5) / 1000)
            if message["ply"] >= plies:
                await send("resign", version=message["version"])
                sent_at = None
                continue
            legal = message["legal"]
            origin = rng.choice(sorted(legal))
            sent_ply = message["ply"]
            sent_at = time.perf_counter()
            await send(
                "move",
                version=message["version"],
                **{"from": origin, "to": rng.choice(legal[origin])},
            )


async def player(
    base: str,
    tournament_id: str,
    name: str,
    cookie: str,
    at: str,
    args: argparse.Namespace,
    numbers: Numbers,
    started: float,
) -> None:
    """One arena player: watch the page, play each game it is paired in, until the end."""
    rng = random.Random(name)
    loop = asyncio.get_running_loop()
    played: set[str] = set()
    ended_at: float | None = None
    headers = {"x-forwarded-for": at, "cookie": f"chuhan_session={cookie}"}
    url = f"{base.replace('http', 'ws', 1)}/ws/t/{tournament_id}"
    async with connect(
        url, ping_interval=None, compression=None, additional_headers=headers
    ) as page:
        # The page is read all the time, as the browser reads it (a page left unread while
        # its player plays fills its buffer, stops answering the server's pings and is
        # closed): the newest tournament is kept, and a change wakes the player.
        latest: dict[str, Any] = {}
        changed = asyncio.Event()

        async def read_page() -> None:
            while True:
                async with asyncio.timeout(3600):
                    text = await page.recv()
                message = json.loads(text)
                if message["type"] == "tournament":
                    numbers.frames += 1
                    numbers.frame_bytes += len(text.encode() if isinstance(text, str) else text)
                    numbers.revisions.add(message["tournament"]["revision"])
                    latest["tournament"] = message["tournament"]
                    changed.set()
                elif message["type"] == "your_game":  # (told as it is made, as the page is)
                    numbers.told += 1
                    latest["told"] = message["game"]
                    changed.set()

        reader = asyncio.create_task(read_page())
        await page.send(json.dumps({"type": "hello", "seq": 1}))
        try:
            while True:
                await changed.wait()
                changed.clear()
                tournament = latest["tournament"]
                if tournament["status"] == "finished":
                    return
                mine = [
                    board["game"]
                    for board in tournament.get("games", [])
                    if board["result"] is None
                    and board["game"]
                    and board["game"] not in played
                    and name in (board["red"], board["black"])
                ]
                told = latest.get("told")
                if told is not None and told not in played:
                    mine.insert(0, told)
                if not mine:
                    continue
                now = time.perf_counter()
                numbers.pairings.append(now)
                if ended_at is None:
                    numbers.first_game.append(now - started)
                else:
                    numbers.waits.append(now - ended_at)
                status, answer, _ = await loop.run_in_executor(
                    None, call, base, f"/api/tournaments/{tournament_id}/game", {}, cookie, at
                )
                if status != 200:
                    numbers.errors.append(f"seat {status}: {answer}")
                    played.add(mine[0])
                    continue
                game = answer["game"]
                played.add(game["game_id"])
                numbers.games.add(game["game_id"])
                await play(base, game, at, args.think_ms, args.plies, numbers, rng)
                ended_at = time.perf_counter()
                changed.set()  # (look again: the next pairing may have come meanwhile)
        finally:
            reader.cancel()


async def run(base: str, args: argparse.Namespace, server_pid: int) -> None:
    loop = asyncio.get_running_loop()
    count = args.players
    print(f"signing up {count} players (each from an address of its own)…", flush=True)

    def sign_up(number: int) -> str:
        status, answer, cookie = call(
            base,
            "/api/account/signup",
            {"name": f"Arena{number:04d}", "password": PASSWORD},
            None,
            address(number),
        )
        if status != 201 or cookie is None:
            raise RuntimeError(f"cannot sign up player {number}: {status} {answer}")
        return cookie

    cookies = await asyncio.gather(
        *[loop.run_in_executor(None, sign_up, number) for number in range(count)]
    )
    print(f"{count} signed up; the arena starts {args.lead:.0f} s after its creation", flush=True)
    starts = time.time() + args.lead
    status, created, _ = call(
        base,
        "/api/tournaments",
        {
            "name": "Bench arena",
            "format": "arena",
            "minutes": args.minutes,
            "starts": starts,
            "time_control": args.time_control,
        },
        cookies[0],
        address(0),
    )
    if status != 201:
        raise SystemExit(f"cannot create the arena: {status} {created}")
    tournament_id = created["tournament"]["id"]
    for number, cookie in enumerate(cookies):
        _, answer, _ = call(
            base, f"/api/tournaments/{tournament_id}/join", {}, cookie, address(number)
        )
        if status not in (200, 201):
            raise SystemExit(f"player {number} cannot join: {status} {answer}")
    print(f"{count} entered; playing for {args.minutes} min…", flush=True)
    numbers = Numbers()
    cpu_before = cpu_seconds(server_pid)
    client_cpu_before = time.process_time()
    wall_before = time.perf_counter()
    started = time.perf_counter() + (starts - time.time())
    tasks = [
        asyncio.create_task(
            player(
                base,
                tournament_id,
                f"Arena{number:04d}",
                cookie,
                address(number),
                args,
                numbers,
                started,
            )
        )
        for number, cookie in enumerate(cookies)
    ]
    outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    numbers.errors += [f"{type(o).__name__}: {o}" for o in outcomes if isinstance(o, BaseException)]
    cpu = cpu_seconds(server_pid) - cpu_before
    client_cpu = time.process_time() - client_cpu_before
    wall = time.perf_counter() - wall_before
    reading = await loop.run_in_executor(None, time_reading, base, tournament_id, cookies[0])
    report(args, numbers, cpu, client_cpu, wall, reading)


def time_reading(base: str, tournament_id: str, cookie: str) -> tuple[float, int]:
    """The finished arena read through ``GET /api/tournaments/{id}`` (what the page is
    sent, as the server reads and renders it): the median of 9 reads' seconds, and its
    size in bytes."""
    seconds: list[float] = []
    size = 0
    for _ in range(9):
        began = time.perf_counter()
        _, answer, _ = call(base, f"/api/tournaments/{tournament_id}", None, cookie, address(0))
        seconds.append(time.perf_counter() - began)
        size = len(json.dumps(answer, ensure_ascii=False).encode())
    return percentile(seconds, 0.5), size


def report(
    args: argparse.Namespace,
    numbers: Numbers,
    cpu: float,
    client_cpu: float,
    wall: float,
    reading: tuple[float, int],
) -> None:
    trips = [seconds for _, seconds in numbers.round_trips]
    near = [
        seconds
        for sent, seconds in numbers.round_trips
        if any(0 <= sent - paired <= 1.0 for paired in numbers.pairings)
    ]

    def line(values: list[float]) -> str:
        shown = (percentile(values, q) * 1000 for q in (0.5, 0.9, 0.99))
        p50, p90, p99 = shown
        worst = max(values, default=float("nan")) * 1000
        return f"p50 {p50:.1f} ms, p90 {p90:.1f} ms, p99 {p99:.1f} ms, max {worst:.1f} ms"

    print(
        f"{platform.node()}: {platform.processor() or platform.machine()}, Python "
        f"{platform.python_version()}; {args.players} players, {args.minutes} min, think "
        f"{args.think_ms:.0f} ms, resign at ply {args.plies}, {args.time_control}"
    )
    firsts = sorted(numbers.first_game)
    if firsts:
        print(
            f"first pairing: every player's game on their page {firsts[-1]:.2f} s after the "
            f"start (the first {firsts[0]:.2f} s; {len(firsts)} players)"
        )
    if numbers.waits:
        print(
            f"paired again after a game: {len(numbers.waits)} waits, p50 "
            f"{percentile(numbers.waits, 0.5):.2f} s, p90 {percentile(numbers.waits, 0.9):.2f}"
            f" s, max {max(numbers.waits):.2f} s"
        )
    print(f"moves: {len(trips)}; round trip {line(trips)}")
    print(f"moves sent within 1 s after a pairing: {len(near)}; {line(near)}")
    print(
        f"games: {len(numbers.games)}; server CPU {cpu:.1f} s, this process's (the clients') "
        f"CPU {client_cpu:.1f} s, in {wall:.0f} s; errors: {len(numbers.errors)}"
    )
    pages = max(1, args.players)
    print(
        f"tournament frames: {numbers.frames:,} ({numbers.frames / pages / wall:.2f} per page "
        f"per second; {len(numbers.revisions):,} revisions seen), {numbers.frame_bytes:,} bytes "
        f"({numbers.frame_bytes / max(1, numbers.frames):,.0f} a frame, "
        f"{numbers.frame_bytes / pages / wall:,.0f} per page per second); your_game frames: "
        f"{numbers.told:,}"
    )
    print(
        f"the finished arena read by GET /api/tournaments/{{id}}: {reading[0] * 1000:.1f} ms "
        f"(median of 9), {reading[1]:,} bytes"
    )
    for error in numbers.errors[:10]:
        print(f"  {error}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--minutes", type=int, default=3)
    parser.add_argument("--think-ms", type=float, default=1000)
    parser.add_argument("--plies", type=int, default=20, help="the side to move here resigns")
    parser.add_argument("--time-control", default="5+0")
    parser.add_argument("--lead", type=float, default=30, help="seconds from entries to start")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        server = serving(port, Path(folder) / "arena.db", "--trust-proxy")
        try:
            asyncio.run(run(f"http://127.0.0.1:{port}", args, server.pid))
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
