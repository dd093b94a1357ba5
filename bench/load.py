"""Load test of the web server: N simultaneous games on loopback.

The server runs in its own process (``chuhan serve`` on a free port and a fresh database);
this process plays every side of every game over real websockets: each player waits for
its turn, thinks (``--think-ms``, uniformly 0.5x to 1.5x), picks a random legal move from
the state message and sends it. The move round trip is the time from sending a move to
receiving the state that contains it (the server has checked it, written it to SQLite and
broadcast it by then).

    .venv/bin/python bench/load.py --games 50 200 500 --plies 40 --think-ms 1000

Prints, per N: moves/s, round-trip p50/p90/p99/max, errors, and the CPU use of the
server and of this process (100% = one core): on a 2-core machine the clients compete with
the server, and when this process is at 100% the latencies are its own queueing.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from chuhan.web.server import free_port


@dataclass
class Results:
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    moves: int = 0
    finished_games: int = 0


def start_server(port: int, db: Path, *options: str) -> subprocess.Popen[bytes]:
    """``chuhan serve`` on ``port`` with a fresh database and ``options``, once it answers."""
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "chuhan.cli", "serve"),
            "--port",
            str(port),
            "--db",
            str(db),
            *options,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/options", timeout=1):
                return process
        except OSError:
            if process.poll() is not None:
                output = process.stderr.read() if process.stderr else b""
                raise SystemExit(f"server exited: {output!r}") from None
            time.sleep(0.1)
    process.kill()
    raise SystemExit("server did not start")


def address(number: int) -> str:
    """The address game ``number``'s players are said to come from (RFC 2544's benchmarking
    range; it only travels in a header, to this machine's server)."""
    return f"198.18.{number // 250}.{number % 250 + 1}"


def create_game(port: int, number: int) -> dict[str, Any]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/games",
        data=json.dumps({"kind": "friend", "time_control": "30+0"}).encode(),
        headers={"content-type": "application/json", "x-forwarded-for": address(number)},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        game: dict[str, Any] = json.loads(response.read())
    return game


async def player(
    port: int,
    game_id: str,
    token: str,
    forwarded_for: str,
    plies: int,
    think_ms: float,
    results: Results,
    start: asyncio.Event,
    rng: random.Random,
) -> None:
    seq = 0
    async with connect(
        f"ws://127.0.0.1:{port}/ws/{game_id}",
        open_timeout=60,
        ping_interval=None,
        compression=None,
        additional_headers={"x-forwarded-for": forwarded_for},
    ) as ws:

        async def send(kind: str, **fields: Any) -> None:
            nonlocal seq
            seq += 1
            await ws.send(json.dumps({"type": kind, "seq": seq, **fields}))

        await send("hello", token=token, protocol=2)
        await start.wait()
        await send("resync")
        sent_at: float | None = None
        sent_ply = -1
        while True:
            message = json.loads(await receive(ws))
            kind = message["type"]
            if kind == "error":
                results.errors.append(f"{message['code']}: {message['message']}")
                if message["code"] in ("stale_version", "replayed_seq"):
                    sent_at = None
                continue
            if kind != "state":
                continue
            if sent_at is not None and message["ply"] > sent_ply:
                results.latencies.append(time.perf_counter() - sent_at)
                results.moves += 1
                sent_at = None
            if message["status"] != "playing" or message["ply"] >= plies:
                if message["you"]["role"] == "first":
                    results.finished_games += 1
                return
            if not message["you"]["your_turn"] or sent_at is not None:
                continue
            legal = message["legal"]
            origin = rng.choice(sorted(legal))
            target = rng.choice(legal[origin])
            if think_ms:
                await asyncio.sleep(think_ms * rng.uniform(0.5, 1.5) / 1000)
            sent_ply = message["ply"]
            sent_at = time.perf_counter()
            await send("move", version=message["version"], **{"from": origin, "to": target})


async def receive(ws: ClientConnection) -> str | bytes:
    return await asyncio.wait_for(ws.recv(), timeout=120)


async def run_games(port: int, games: int, plies: int, think_ms: float) -> tuple[Results, float]:
    loop = asyncio.get_running_loop()
    created = await asyncio.gather(
        *[loop.run_in_executor(None, create_game, port, number) for number in range(games)]
    )
    results = Results()
    start = asyncio.Event()
    rng = random.Random(1)
    tasks = []
    for number, game in enumerate(created):
        for token in (game["token"], game["invite_url"].split("?t=")[1]):
            tasks.append(
                asyncio.create_task(
                    player(
                        port,
                        game["game_id"],
                        token,
                        address(number),
                        plies,
                        think_ms,
                        results,
                        start,
                        random.Random(rng.random()),
                    )
                )
            )
            await asyncio.sleep(0.002)  # do not open 1,000 sockets in the same instant
    await asyncio.sleep(1)
    began = time.perf_counter()
    start.set()
    outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    elapsed = time.perf_counter() - began
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            results.errors.append(f"{type(outcome).__name__}: {outcome}")
    return results, elapsed


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def server_cpu_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, nargs="+", default=[50, 200, 500])
    parser.add_argument("--plies", type=int, default=40, help="plies per game (default 40)")
    parser.add_argument(
        "--think-ms", type=float, default=1000, help="mean thinking time per move (default 1000)"
    )
    args = parser.parse_args()
    gc.freeze()  # as the server does: keep GC pauses of this process out of the latencies
    gc.set_threshold(7000, 20, 20)
    print(
        f"{'games':>6} {'moves':>7} {'moves/s':>8} {'p50 ms':>7} {'p90 ms':>7} {'p99 ms':>7} "
        f"{'max ms':>7} {'errors':>6} {'server CPU':>10} {'bench CPU':>10}"
    )
    for games in args.games:
        with tempfile.TemporaryDirectory() as tmp:
            port = free_port()
            # Every game's players come from an address of their own (the X-Forwarded-For
            # header the server trusts here), as they would on the internet: the
            # per-address limits on games and sockets are the server's real ones.
            server = start_server(port, Path(tmp) / "load.sqlite3", "--trust-proxy")
            try:
                cpu_before = server_cpu_seconds(server.pid)
                own_before = time.process_time()
                results, elapsed = asyncio.run(run_games(port, games, args.plies, args.think_ms))
                cpu = server_cpu_seconds(server.pid) - cpu_before
                own = time.process_time() - own_before
            finally:
                server.terminate()
                server.wait(timeout=30)
        ms = [x * 1000 for x in results.latencies]
        print(
            f"{games:>6} {results.moves:>7} {results.moves / elapsed:>8.1f} "
            f"{percentile(ms, 0.5):>7.1f} {percentile(ms, 0.9):>7.1f} {percentile(ms, 0.99):>7.1f} "
            f"{max(ms, default=float('nan')):>7.1f} {len(results.errors):>6} "
            f"{cpu / elapsed * 100:>9.0f}% {own / elapsed * 100:>9.0f}%",
            flush=True,
        )
        if results.errors:
            common = statistics.mode(results.errors)
            print(f"       most common error: {common[:160]}")


if __name__ == "__main__":
    main()
