"""Storms against the web server, on loopback only, bounded in count and time.

Each storm starts a fresh server in its own process (on a free port of 127.0.0.1 and a
fresh database), attacks it from this process while two players play a game on it, and
prints what the players felt: the move round trip (from sending a move to receiving the
state that contains it) and whether they kept their seats.

    .venv/bin/python bench/attack.py watchers --watchers 1000
    .venv/bin/python bench/attack.py imports
    .venv/bin/python bench/attack.py kill
    .venv/bin/python bench/attack.py reads
    .venv/bin/python bench/attack.py reviews
    .venv/bin/python bench/attack.py lobby

- ``watchers``: N token-less sockets join one game as fast as they can (and stay) while
  its players play; the server's per-address socket cap is raised for the storm (every
  socket comes from 127.0.0.1), its per-game watcher cap is left as it is unless
  ``--max-watchers`` says otherwise, so the refusals are counted too.
- ``imports``: every hostile record shape at the 256 KB upload limit (runs of ``[``,
  ``{``, ``(``, ``"``, ``;``, ``$``, ``%``, nested and sibling variations, a 16,000-ply
  game) is posted to ``/api/import``, one after the other, while the players play: the
  time each import took to be answered, its status, and the players' round trips.
- ``reads``: ``--readers`` clients (each from an address of its own, as the server is
  told behind ``--trust-proxy``) read one finished 600-ply game (its state, PGN and FEN)
  as fast as they can while the players play: the reads answered and refused, and the
  players' round trips. (Before the fix, each read replayed the game on the event loop.)
- ``reviews``: one analysis socket asks for reviews of 100 imported games, and
  ``--analysts`` deep analyses come from 5 addresses, while the players play: what the
  socket and the analysts were answered, how long a newcomer's analysis waited for its
  first lines, and the players' round trips.
- ``lobby``: ``--addresses`` addresses each post seeks (as visitors) until the lobby
  refuses them, then a newcomer from another address posts one: what each was answered,
  and the players' round trips meanwhile.
- ``kill``: a real ``chuhan serve`` with a level-8 computer game thinking is killed with
  SIGKILL (then, on a second server, SIGTERM); the processes it had started are listed
  before and a few seconds after.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import signal
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect as sync_connect

from chuhan.game import Game
from chuhan.records import GameRecord, write_pgn
from chuhan.squares import Move
from chuhan.web.server import free_port

sys.path.insert(0, str(Path(__file__).parent))
from load import serving  # the same server start as the load test

#: Nothing here runs longer than this.
STORM_SECONDS = 120


def post(
    port: int, path: str, body: bytes, content_type: str, forwarded_for: str | None = None
) -> tuple[int, dict[str, Any]]:
    headers = {"content-type": content_type}
    if forwarded_for is not None:  # a server run with --trust-proxy counts this address
        headers["x-forwarded-for"] = forwarded_for
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=STORM_SECONDS) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def create_game(port: int, **fields: Any) -> dict[str, Any]:
    status, game = post(port, "/api/games", json.dumps(fields).encode(), "application/json")
    if status != 201:
        raise SystemExit(f"cannot create a game: {status} {game}")
    return game


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def describe(latencies: list[float]) -> str:
    if not latencies:
        return "no moves"
    ms = [1000 * x for x in latencies]
    return (
        f"{len(ms)} moves, round trip p50 {statistics.median(ms):.1f} ms, "
        f"p90 {percentile(ms, 0.9):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms, "
        f"max {max(ms):.1f} ms"
    )


class Seat:
    """One player's socket: numbered messages and the newest state."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.seq = 0
        self.state: dict[str, Any] = {}
        self.moves: list[str] = []
        self.closed: int | None = None

    @classmethod
    async def open(cls, port: int, game_id: str, token: str) -> Seat:
        ws = await connect(f"ws://127.0.0.1:{port}/ws/{game_id}", max_size=2**24)
        seat = cls(ws)
        await seat.send("hello", token=token, protocol=2)
        await seat.until(lambda m: m["type"] == "state")
        return seat

    async def send(self, kind: str, **fields: Any) -> None:
        self.seq += 1
        await self.ws.send(json.dumps({"type": kind, "seq": self.seq, **fields}))

    async def until(self, done: Any) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(await self.ws.recv())
            if message["type"] == "state":
                self.moves = self.moves[: message["moves_from"]] + [
                    entry["iccs"] for entry in message["moves"]
                ]
                self.state = message
            if done(message):
                return message


async def play_move(mover: Seat, number: int, others: tuple[Seat, ...] = ()) -> float:
    """``mover`` plays a legal move (the ``number``-th from-square's first destination)
    and waits, 30 s at most, until it and ``others`` see the new ply: the seconds it took.
    Raises ``ConnectionClosed`` or ``TimeoutError``."""
    legal = mover.state["legal"]
    source = sorted(legal)[number % len(legal)]
    ply = mover.state["ply"]
    started = time.perf_counter()
    await mover.send(
        "move", version=mover.state["version"], **{"from": source, "to": legal[source][0]}
    )
    for seat in (mover, *others):
        await asyncio.wait_for(seat.until(lambda m: m["type"] == "state" and m["ply"] > ply), 30)
    return time.perf_counter() - started


def problem(error: Exception) -> str:
    if isinstance(error, ConnectionClosed):
        return f"a player's socket was closed ({error.rcvd and error.rcvd.code})"
    return "a move was not answered in 30 s"


async def play(
    port: int, plies: int, pause: float, deadline: float
) -> tuple[list[float], list[str]]:
    """A local game (one seat plays both sides) moving every ``pause`` seconds: the move
    round trips, and what went wrong."""
    game = create_game(port, kind="local")
    seat = await Seat.open(port, game["game_id"], game["token"])
    latencies: list[float] = []
    problems: list[str] = []
    for number in range(plies):
        if time.monotonic() > deadline or not seat.state.get("legal"):
            break
        try:
            latencies.append(await play_move(seat, number))
        except (ConnectionClosed, TimeoutError) as error:
            problems.append(problem(error))
            break
        await asyncio.sleep(pause)
    await seat.ws.close()
    return latencies, problems


# ---------------------------------------------------------------------- watchers


async def watcher(
    port: int, game_id: str, hold: float, tally: dict[str, int], delay: float = 0.0
) -> None:
    """One token-less socket: after ``delay``, hello, then read (without parsing) until
    ``hold`` is over."""
    await asyncio.sleep(delay)
    try:
        async with connect(f"ws://127.0.0.1:{port}/ws/{game_id}", max_size=2**24) as ws:
            await ws.send(json.dumps({"type": "hello", "seq": 1, "token": None, "protocol": 2}))
            end = time.monotonic() + hold
            first = json.loads(await asyncio.wait_for(ws.recv(), hold))
            if first["type"] == "welcome":
                tally["admitted"] += 1
            else:
                tally[first.get("code", first["type"])] = tally.get(first.get("code", "?"), 0) + 1
                return
            while time.monotonic() < end:
                try:
                    await asyncio.wait_for(ws.recv(), end - time.monotonic())
                except TimeoutError:
                    break
    except (ConnectionClosed, OSError, TimeoutError) as error:
        tally[type(error).__name__] = tally.get(type(error).__name__, 0) + 1


async def crowd(args: argparse.Namespace) -> None:
    """The watchers, in a process of their own (so that reading their frames does not
    slow the players this benchmark times); prints the tally as JSON."""
    # The attackers would be on other machines: here they share the server's two cores, so
    # they yield the processor to it rather than measure their own load.
    os.nice(19)
    tally: dict[str, int] = {"admitted": 0}
    await asyncio.gather(
        *(
            watcher(args.port, args.game, args.hold, tally, args.ramp * n / args.watchers)
            for n in range(args.watchers)
        )
    )
    print(json.dumps(tally), flush=True)


async def watcher_storm(args: argparse.Namespace) -> None:
    port = free_port()
    options = ["--max-sockets-per-address", str(args.watchers + 100)]
    if args.max_watchers is not None:
        options += ["--max-watchers", str(args.max_watchers)]
    with tempfile.TemporaryDirectory() as folder:
        server = serving(port, Path(folder) / "games.sqlite3", *options)
        try:
            deadline = time.monotonic() + STORM_SECONDS
            baseline, problems = await play(port, 20, 0.1, deadline)
            print(f"before the storm: {describe(baseline)}")
            game = create_game(port, kind="friend")
            red = await Seat.open(port, game["game_id"], game["token"])
            black = await Seat.open(port, game["game_id"], game["invite_url"].split("?t=")[1])
            started = time.perf_counter()
            crowd = await asyncio.create_subprocess_exec(
                sys.executable, __file__, "crowd", "--port", str(port), "--game",
                game["game_id"], "--watchers", str(args.watchers), "--hold", str(args.hold),
                "--ramp", str(args.ramp), stdout=asyncio.subprocess.PIPE,
            )  # fmt: skip
            latencies: list[float] = []
            for ply in range(args.plies):
                mover, other = (red, black) if ply % 2 == 0 else (black, red)
                if not mover.state.get("legal") or time.monotonic() > deadline:
                    break
                at = time.perf_counter() - started
                try:
                    latencies.append(await play_move(mover, ply, (other,)))
                except (ConnectionClosed, TimeoutError) as error:
                    problems.append(problem(error))
                    break
                if args.verbose:
                    print(f"  {at:6.2f} s: {latencies[-1] * 1000:7.1f} ms")
                await asyncio.sleep(args.pause)
            output, _ = await crowd.communicate()
            tally = json.loads(output or b"{}")
            took = time.perf_counter() - started
            print(
                f"{args.watchers} watcher sockets on one game over {took:.1f} s: "
                + ", ".join(f"{k} {v}" for k, v in sorted(tally.items()))
            )
            print(f"during the storm, the players: {describe(latencies)}")
            print("players kept their seats" if not problems else f"PROBLEMS: {problems}")
            for seat in (red, black):
                await seat.ws.close()
        finally:
            server.terminate()
            server.wait(timeout=30)


# ---------------------------------------------------------------------- imports


def hostile_records(size: int) -> dict[str, bytes]:
    """Record shapes that made parsers slow, each about ``size`` bytes."""
    header = b'[Event "storm"]\n\n'

    def fill(unit: bytes, prefix: bytes = b"", suffix: bytes = b"") -> bytes:
        room = size - len(prefix) - len(suffix)
        return prefix + unit * (room // len(unit)) + suffix

    moves = b" ".join(b"h2e2 h7e7 e2h2 e7h7".split()) + b" "
    return {
        "[ x 256 KB": fill(b"["),
        "{ x 256 KB": fill(b"{"),
        "( x 256 KB": fill(b"("),
        '" x 256 KB': fill(b'"'),
        "; x 256 KB": fill(b";"),
        "$ x 256 KB": fill(b"$1 "),
        "% lines": fill(b"%escape\n"),
        "[[Key lines": fill(b'[[[[Key "v"]\n'),
        "nested ( 1. h2e2": fill(b"(1. h2e2 ", header + b"1. h2e2 "),
        "sibling variations": fill(b"(h7e7) ", header + b"1. h2e2 "),
        "16,000-ply game": fill(moves, header),
    }


async def import_storm(args: argparse.Namespace) -> None:
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        # Imports are limited per address: each upload comes from another (forwarded) one.
        server = serving(port, Path(folder) / "games.sqlite3", "--trust-proxy")
        try:
            deadline = time.monotonic() + STORM_SECONDS
            game = asyncio.create_task(play(port, 400, 0.05, deadline))
            loop = asyncio.get_running_loop()
            slowest = 0.0
            for number, (name, body) in enumerate(hostile_records(args.size).items()):
                started = time.perf_counter()
                status, answer = await loop.run_in_executor(
                    None,
                    post,
                    port,
                    "/api/import",
                    body,
                    "application/octet-stream",
                    f"198.51.100.{number + 1}",
                )
                took = time.perf_counter() - started
                slowest = max(slowest, took)
                said = (
                    answer.get("error", {}).get("message", "")
                    or f"{len(answer.get('games', []))} game(s)"
                )
                print(
                    f"{name:22} {len(body):7} bytes: {status} in {took * 1000:7.1f} ms  {said[:90]}"
                )
            latencies, problems = await game
            print(f"slowest answer {slowest * 1000:.0f} ms; during the imports, a game's")
            print(f"  {describe(latencies)}")
            if problems:
                print(f"PROBLEMS: {problems}")
        finally:
            server.terminate()
            server.wait(timeout=30)


# ---------------------------------------------------------------------- reads, reviews, lobby


def long_game(plies: int, seed: int) -> list[str]:
    """A legal xiangqi game of ``plies`` plies (fewer if it cannot go on) that the referee
    lets run: random moves, quiet ones first, none that ends the game."""
    rng = random.Random(seed)
    moves: list[str] = []
    game = Game.new("xiangqi")
    while len(moves) < plies:
        codes = game.legal_move_codes()
        rng.shuffle(codes)
        board = game.board
        codes.sort(key=lambda code: board.piece_code_at(code & 127) != 0)
        for code in codes:
            move = Move(code >> 7, code & 127)
            game.push(move)
            if not game.is_over():
                moves.append(move.iccs())
                break
            game = Game.new("xiangqi")  # (no undo: played again without that move)
            for played in moves:
                game.push(Move.from_iccs(played))
        else:
            break
    return moves


def pgn_of(games: list[list[str]]) -> bytes:
    texts = []
    for number, moves in enumerate(games):
        record = GameRecord.from_moves(
            [Move.from_iccs(m) for m in moves],
            headers={"Event": f"storm {number}", "Red": "Attacker", "Black": "Attacker"},
        )
        record.result = "1/2-1/2"
        texts.append(write_pgn(record))
    return "\n".join(texts).encode()


def import_games(port: int, games: list[list[str]], address: str) -> list[str]:
    """Import ``games`` (50 a file) from ``address``; their ids."""
    ids: list[str] = []
    for start in range(0, len(games), 50):
        status, answer = post(
            port, "/api/import", pgn_of(games[start : start + 50]), "text/plain", address
        )
        if status != 201:
            raise SystemExit(f"cannot import the storm's games: {status} {answer}")
        ids += [game["game_id"] for game in answer["games"]]
    return ids


def get(port: int, path: str, address: str) -> int:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", headers={"x-forwarded-for": address}
    )
    try:
        with urllib.request.urlopen(request, timeout=STORM_SECONDS) as response:
            response.read()
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


def read_crowd(args: argparse.Namespace) -> None:
    """The readers, in a process of their own at the lowest priority (as the watchers):
    each reads the game's state, PGN and FEN in turn until ``--seconds`` are over; prints
    the answers' statuses as JSON."""
    os.nice(19)
    tally: dict[str, int] = {}
    lock = threading.Lock()
    end = time.monotonic() + args.seconds
    paths = [f"/api/games/{args.game}{tail}" for tail in ("", "/pgn", "/fen")]

    def reader(number: int) -> None:
        address = f"203.0.113.{number + 1}"
        turn = 0
        while time.monotonic() < end:
            status = get(args.port, paths[turn % 3], address)
            turn += 1
            with lock:
                tally[str(status)] = tally.get(str(status), 0) + 1

    threads = [threading.Thread(target=reader, args=(n,)) for n in range(args.readers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps(tally), flush=True)


async def read_storm(args: argparse.Namespace) -> None:
    port = free_port()
    moves = long_game(600, seed=7)
    with tempfile.TemporaryDirectory() as folder:
        server = serving(port, Path(folder) / "games.sqlite3", "--trust-proxy")
        try:
            [game_id] = import_games(port, [moves], "198.51.100.1")
            deadline = time.monotonic() + STORM_SECONDS
            baseline, problems = await play(port, 20, 0.1, deadline)
            print(f"before the storm: {describe(baseline)}")
            readers = await asyncio.create_subprocess_exec(
                sys.executable, __file__, "read-crowd", "--port", str(port), "--game", game_id,
                "--readers", str(args.readers), "--seconds", str(args.seconds),
                stdout=asyncio.subprocess.PIPE,
            )  # fmt: skip
            await asyncio.sleep(1)  # (the readers are under way)
            latencies, more = await play(port, args.plies, args.pause, deadline)
            output, _ = await readers.communicate()
            tally = json.loads(output or b"{}")
            print(
                f"{args.readers} readers of a finished {len(moves)}-ply game for "
                f"{args.seconds:g} s: answers "
                + ", ".join(f"{k} x {v}" for k, v in sorted(tally.items()))
            )
            print(f"during the storm, a game's {describe(latencies)}")
            if problems + more:
                print(f"PROBLEMS: {problems + more}")
        finally:
            server.terminate()
            server.wait(timeout=30)


class ForwardedSocket:
    """A websocket to ``path`` that says it comes from ``address`` (the server runs with
    ``--trust-proxy``), with numbered messages; ``answers`` says which message answers
    the one numbered ``seq``."""

    PATH = ""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.seq = 0

    @classmethod
    async def connect(cls, port: int, address: str) -> Any:
        ws = await connect(
            f"ws://127.0.0.1:{port}{cls.PATH}",
            additional_headers={"x-forwarded-for": address},
            max_size=2**24,
        )
        return cls(ws)

    def answers(self, message: dict[str, Any], seq: int) -> bool:
        return message.get("seq") == seq

    async def send(self, kind: str, **fields: Any) -> int:
        self.seq += 1
        await self.ws.send(json.dumps({"type": kind, "seq": self.seq, **fields}))
        return self.seq

    async def ask(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send, and return the first message that answers it: its own answer, or an error
        without a seq (``rate_limited``: the server dropped the message unread)."""
        seq = await self.send(kind, **fields)
        while True:
            message: dict[str, Any] = json.loads(await self.ws.recv())
            if self.answers(message, seq) or (message["type"] == "error" and "seq" not in message):
                return message


class Analyst(ForwardedSocket):
    """One analysis socket: its answers are those with its seq that are not lines."""

    PATH = "/ws/analysis"

    @classmethod
    async def open(cls, port: int, address: str) -> Analyst:
        analyst: Analyst = await cls.connect(port, address)
        await analyst.ask("hello")
        return analyst

    def answers(self, message: dict[str, Any], seq: int) -> bool:
        return message.get("seq") == seq and message["type"] != "lines"


async def drain(analysts: list[Analyst]) -> None:
    """Read (and drop) what the analysts are sent, so that their sockets stay open."""

    async def one(analyst: Analyst) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for _ in analyst.ws:
                pass

    await asyncio.gather(*(one(analyst) for analyst in analysts))


async def review_storm(args: argparse.Namespace) -> None:
    port = free_port()
    games = [long_game(60, seed=100 + n) for n in range(100)]
    with tempfile.TemporaryDirectory() as folder:
        server = serving(port, Path(folder) / "games.sqlite3", "--trust-proxy")
        try:
            ids = import_games(port, games[:50], "198.51.100.1")
            ids += import_games(port, games[50:], "198.51.100.2")
            deadline = time.monotonic() + STORM_SECONDS
            baseline, problems = await play(port, 20, 0.1, deadline)
            print(f"before the storm: {describe(baseline)}")
            # One address asks for every review, opening a new socket whenever the server
            # closes one (for a flood of messages), until it refuses the connection.
            reviewers = [await Analyst.open(port, "203.0.113.1")]
            reviews: dict[str, int] = {}
            for game_id in ids:
                try:
                    said = await reviewers[-1].ask("review", game=game_id)
                    kind = said.get("code", said["type"])
                except ConnectionClosed as closed:
                    kind = f"socket closed {closed.rcvd and closed.rcvd.code}"
                    try:
                        reviewers.append(await Analyst.open(port, "203.0.113.1"))
                    except (ConnectionClosed, InvalidStatus, OSError):
                        reviews["a new socket refused"] = 1
                        break
                reviews[kind] = reviews.get(kind, 0) + 1
            analysts: list[Analyst] = []
            deep: dict[str, int] = {}
            for number in range(args.analysts):
                try:
                    analyst = await Analyst.open(port, f"203.0.113.{10 + number % 5}")
                except ConnectionClosed as closed:
                    key = f"closed {closed.rcvd and closed.rcvd.code}"
                    deep[key] = deep.get(key, 0) + 1
                    continue
                moves = games[number][:10]
                said = await analyst.ask(
                    "position", variant="xiangqi", moves=moves, engine=True, longer=9
                )
                kind = said.get("code", said["type"])
                deep[kind] = deep.get(kind, 0) + 1
                analysts.append(analyst)
            draining = asyncio.create_task(drain([*reviewers, *analysts]))
            newcomer = await Analyst.open(port, "192.0.2.1")
            asked = time.perf_counter()
            seq = await newcomer.send("position", variant="xiangqi", moves=["h2e2"], engine=True)
            first: dict[str, Any] = {}
            while not first:
                message = json.loads(await asyncio.wait_for(newcomer.ws.recv(), STORM_SECONDS))
                if message.get("seq") == seq and message["type"] in ("lines", "error"):
                    first = message
            waited = time.perf_counter() - asked
            latencies, more = await play(port, args.plies, args.pause, deadline)
            print(
                f"one socket asked for {len(ids)} reviews: "
                + ", ".join(f"{k} x {v}" for k, v in sorted(reviews.items()))
            )
            print(
                f"{args.analysts} deep analyses from 5 addresses: "
                + ", ".join(f"{k} x {v}" for k, v in sorted(deep.items()))
            )
            print(
                f"a newcomer's analysis: first {first['type']} after {waited * 1000:.0f} ms"
                + (f" ({first.get('code')})" if first["type"] == "error" else "")
            )
            print(f"during the storm, a game's {describe(latencies)}")
            if problems + more:
                print(f"PROBLEMS: {problems + more}")
            for analyst in (*reviewers, newcomer, *analysts):
                await analyst.ws.close()
            draining.cancel()
        finally:
            server.terminate()
            server.wait(timeout=30)


class LobbyVisitor(ForwardedSocket):
    """One lobby socket of a visitor: an error answers whatever it asked."""

    PATH = "/ws/lobby"

    @classmethod
    async def open(cls, port: int, address: str) -> LobbyVisitor:
        visitor: LobbyVisitor = await cls.connect(port, address)
        await visitor.ask("hello", visitor=secrets.token_hex(16))
        return visitor

    def answers(self, message: dict[str, Any], seq: int) -> bool:
        return message.get("seq") == seq or message["type"] == "error"


async def lobby_storm(args: argparse.Namespace) -> None:
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        server = serving(port, Path(folder) / "games.sqlite3", "--trust-proxy")
        try:
            deadline = time.monotonic() + STORM_SECONDS
            game = asyncio.create_task(play(port, args.plies, args.pause, deadline))
            tally: dict[str, int] = {}
            visitors = []
            for number in range(args.addresses):
                for _tab in range(args.tabs):
                    visitor = await LobbyVisitor.open(port, f"203.0.113.{number + 1}")
                    visitors.append(visitor)
                    for _seek in range(args.seeks):
                        said = await visitor.ask("seek", variant="xiangqi")
                        kind = said.get("code", said["type"])
                        tally[kind] = tally.get(kind, 0) + 1
            newcomer = await LobbyVisitor.open(port, "192.0.2.1")
            answer = await newcomer.ask("seek", variant="xiangqi")
            latencies, problems = await game
            print(
                f"{args.addresses} addresses x {args.tabs} tabs x {args.seeks} seeks: "
                + ", ".join(f"{k} x {v}" for k, v in sorted(tally.items()))
            )
            print(
                "a newcomer's seek then: "
                + (answer["type"] if answer["type"] != "error" else f"error {answer['code']}")
            )
            print(f"during the storm, a game's {describe(latencies)}")
            if problems:
                print(f"PROBLEMS: {problems}")
            for visitor in (*visitors, newcomer):
                await visitor.ws.close()
        finally:
            server.terminate()
            server.wait(timeout=30)


# ---------------------------------------------------------------------- kill


def children_of(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def kill_storm(args: argparse.Namespace) -> None:
    for how in (signal.SIGKILL, signal.SIGTERM):
        port = free_port()
        with tempfile.TemporaryDirectory() as folder:
            server = serving(port, Path(folder) / "games.sqlite3")
            game = create_game(port, kind="computer", level=8, color="second", time_control="10+5")
            # The computer (Red) starts thinking once its opponent is here.
            seat = sync_connect(f"ws://127.0.0.1:{port}/ws/{game['game_id']}")
            seat.send(json.dumps({"type": "hello", "seq": 1, "token": game["token"]}))
            time.sleep(3)
            workers = children_of(server.pid)
            os.kill(server.pid, how)
            server.wait(timeout=30)
            seat.close()
            time.sleep(args.wait)
            left = sorted(pid for pid in workers if alive(pid))
            print(
                f"{how.name}: the server had {len(workers)} child process(es); "
                f"{len(left)} left {args.wait:.0f} s after it died {left if left else ''}"
            )
            for pid in left:  # clean up what the server did not
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    storms = parser.add_subparsers(dest="storm", required=True)
    p = storms.add_parser("watchers", help="watcher sockets storm one game")
    p.add_argument("--watchers", type=int, default=1000)
    p.add_argument("--max-watchers", type=int, default=None, help="the server's cap per game")
    p.add_argument("--hold", type=float, default=20.0, help="seconds each watcher stays")
    p.add_argument(
        "--ramp", type=float, default=0.0, help="seconds over which they arrive (0: at once)"
    )
    p.add_argument("--plies", type=int, default=80)
    p.add_argument("--pause", type=float, default=0.2, help="seconds between moves")
    p.add_argument("--verbose", action="store_true", help="print every move's round trip")
    p = storms.add_parser("crowd", help="(used by the watchers storm)")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--game", required=True)
    p.add_argument("--watchers", type=int, default=1000)
    p.add_argument("--hold", type=float, default=20.0)
    p.add_argument("--ramp", type=float, default=0.0)
    p = storms.add_parser("imports", help="hostile records at the upload limit")
    p.add_argument("--size", type=int, default=256 * 1024 - 64)
    p = storms.add_parser("reads", help="readers of a long finished game")
    p.add_argument("--readers", type=int, default=16)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--plies", type=int, default=150)
    p.add_argument("--pause", type=float, default=0.1, help="seconds between moves")
    p = storms.add_parser("read-crowd", help="(used by the reads storm)")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--game", required=True)
    p.add_argument("--readers", type=int, default=16)
    p.add_argument("--seconds", type=float, default=20.0)
    p = storms.add_parser("reviews", help="reviews and deep analyses on the analysis worker")
    p.add_argument("--analysts", type=int, default=30)
    p.add_argument("--plies", type=int, default=100)
    p.add_argument("--pause", type=float, default=0.1, help="seconds between moves")
    p = storms.add_parser("lobby", help="addresses fill the lobby with seeks")
    p.add_argument("--addresses", type=int, default=30)
    p.add_argument("--tabs", type=int, default=2, help="lobby sockets per address")
    p.add_argument("--seeks", type=int, default=10, help="seeks each socket tries")
    p.add_argument("--plies", type=int, default=100)
    p.add_argument("--pause", type=float, default=0.1, help="seconds between moves")
    p = storms.add_parser("kill", help="kill the server while its workers search")
    p.add_argument("--wait", type=float, default=5.0)
    args = parser.parse_args()
    if args.storm == "watchers":
        asyncio.run(watcher_storm(args))
    elif args.storm == "crowd":
        asyncio.run(crowd(args))
    elif args.storm == "imports":
        asyncio.run(import_storm(args))
    elif args.storm == "reads":
        asyncio.run(read_storm(args))
    elif args.storm == "read-crowd":
        read_crowd(args)
    elif args.storm == "reviews":
        asyncio.run(review_storm(args))
    elif args.storm == "lobby":
        asyncio.run(lobby_storm(args))
    else:
        kill_storm(args)


if __name__ == "__main__":
    main()
