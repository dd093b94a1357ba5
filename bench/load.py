"""Load test of the web server: N simultaneous games on loopback.

The server runs in processes of its own (``chuhan serve`` on free ports and a fresh
database); this process plays every side of every game over real websockets: each player
waits for its turn, thinks (``--think-ms``, uniformly 0.5x to 1.5x), picks a random legal
move from the state message and sends it. The move round trip is the time from sending a
move to receiving the state that contains it (the server has checked it, committed it to
the store and broadcast it by then).

    .venv/bin/python bench/load.py --games 50 200 500 --plies 40 --think-ms 1000
    .venv/bin/python bench/load.py --games 2000 --plies 30 --store postgresql --servers 2

With ``--store postgresql`` (or ``--db postgresql://USER@HOST/DB``: a fresh database is made
on that server for every N, and dropped after) ``--servers N`` processes share one database.
Game ``i`` is created on process ``i mod N``; its first player connects to that process and
its second to the next one, so with two or more processes the players of every game sit on
different processes (round robin, no affinity: what a reverse proxy without sticky
sessions does) and every move reaches the other player through PostgreSQL's
LISTEN/NOTIFY. Without a URL the bench starts a throwaway cluster (``tests/postgres_cluster
.py``) on disk with PostgreSQL's own durability defaults (fsync and synchronous_commit on),
so that a commit is as durable as PostgreSQL is by default; ``--pg-memory`` keeps the test
suite's settings instead (in /dev/shm, fsync off).

Prints, per N: moves/s, round-trip p50/p90/p99/max, errors, and the CPU seconds of each
part over the playing time (each server process; PostgreSQL: the postmaster and all its
children, from /proc; this process, the load generator), the servers' CPU per move
(``ms/move``) and every part's together (``all ms``: times the moves a second asked for,
the cores the machine needs). On a 2-core machine the clients compete with the servers:
when this process nears a full core, the latencies are partly its own queueing.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from chuhan.web.server import free_port, loop_factory

ROOT = Path(__file__).resolve().parent.parent
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Results:
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    moves: int = 0
    finished_games: int = 0
    logged: list[str] = field(default_factory=list)


def start_server(port: int, db: str, log: Path, *options: str) -> subprocess.Popen[bytes]:
    """``chuhan serve`` on ``port`` with the database ``db`` and ``options`` (not waiting);
    what it logs goes to the file ``log`` (a pipe nobody reads would stop the server once
    it is full)."""
    with open(log, "wb") as output:
        return subprocess.Popen(
            [
                *(sys.executable, "-m", "chuhan.cli", "serve"),
                "--port",
                str(port),
                "--db",
                db,
                *options,
            ],
            stdout=subprocess.DEVNULL,
            stderr=output,
        )


def wait_until_serving(process: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/options", timeout=1):
                return
        except OSError:
            if process.poll() is not None:
                raise SystemExit(f"server exited: {log.read_text(errors='replace')}") from None
            time.sleep(0.1)
    process.kill()
    raise SystemExit("server did not start")


def serving(port: int, db: str | Path, *options: str) -> subprocess.Popen[bytes]:
    """``chuhan serve`` on ``port`` and ``db`` with ``options``, once it answers; what it
    logs goes to a file beside a SQLite database (or in the temporary folder)."""
    folder = Path(db).parent if not str(db).startswith("postgres") else Path(tempfile.gettempdir())
    log = folder / f"chuhan-serve-{port}.log"
    process = start_server(port, str(db), log, *options)
    wait_until_serving(process, port, log)
    return process


def logged(logs: list[Path]) -> list[str]:
    """The lines the servers logged, without the start banner."""
    lines: list[str] = []
    for log in logs:
        lines.extend(
            line
            for line in log.read_text(errors="replace").splitlines()
            if line.strip() and not line.startswith("chuhan: serving")
        )
    return lines


def address(number: int) -> str:
    """The address game ``number``'s players are said to come from (RFC 2544's benchmarking
    range; it only travels in a header, to this machine's server)."""
    return f"198.18.{number // 250}.{number % 250 + 1}"


def create_game(base: str, number: int) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{base}/api/games",
        data=json.dumps({"kind": "friend", "time_control": "30+0"}).encode(),
        headers={"content-type": "application/json", "x-forwarded-for": address(number)},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        game: dict[str, Any] = json.loads(response.read())
    return game


async def player(
    base: str,
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
        f"{base.replace('http', 'ws', 1)}/ws/{game_id}",
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
    async with asyncio.timeout(120):  # (wait_for would make a task of every receive)
        return await ws.recv()


async def run_games(
    bases: list[str], games: int, plies: int, think_ms: float, meter: Meter
) -> tuple[Results, float]:
    """Play ``games`` games: game ``i`` is created on ``bases[i % n]``, its first player
    connects there and its second to ``bases[(i + 1) % n]``. ``meter`` is read when the
    players start and when the last one is done."""
    loop = asyncio.get_running_loop()
    count = len(bases)
    created = await asyncio.gather(
        *[
            loop.run_in_executor(None, create_game, bases[number % count], number)
            for number in range(games)
        ]
    )
    results = Results()
    start = asyncio.Event()
    rng = random.Random(1)
    tasks = []
    for number, game in enumerate(created):
        tokens = (game["token"], game["invite_url"].split("?t=")[1])
        for side, token in enumerate(tokens):
            tasks.append(
                asyncio.create_task(
                    player(
                        bases[(number + side) % count],
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
    meter.begin()
    began = time.perf_counter()
    start.set()
    outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    elapsed = time.perf_counter() - began
    meter.end()
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            results.errors.append(f"{type(outcome).__name__}: {outcome}")
    return results, elapsed


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def stat_fields(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def cpu_seconds(pid: int) -> float:
    """User and system CPU of process ``pid`` (all its threads)."""
    fields = stat_fields(pid)
    if fields is None:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found.extend(int(child) for child in handle.read().split())
    except OSError:
        pass
    return found


def tree_cpu_seconds(pid: int) -> float:
    """CPU of ``pid``, of its children that ended (waited for), and of its live children:
    for the postmaster, all of PostgreSQL's server processes."""
    fields = stat_fields(pid)
    if fields is None:
        return float("nan")
    total = sum(int(fields[i]) for i in (11, 12, 13, 14)) / CLOCK_TICKS
    for child in children(pid):
        child_fields = stat_fields(child)
        if child_fields is not None:
            total += sum(int(child_fields[i]) for i in (11, 12, 13, 14)) / CLOCK_TICKS
    return total


def backends(pid: int, database: str) -> int:
    """The postmaster's children connected to ``database`` (their titles name it)."""
    count = 0
    for child in children(pid):
        try:
            with open(f"/proc/{child}/cmdline", "rb") as handle:
                title = handle.read().decode(errors="replace")
        except OSError:
            continue
        if f" {database} " in title:
            count += 1
    return count


class Meter:
    """CPU seconds of the servers, of PostgreSQL (when local) and of this process between
    :meth:`begin` and :meth:`end`; the most connections to the database seen meanwhile."""

    def __init__(self, servers: list[int], postmaster: int | None, database: str | None):
        self.servers = servers
        self.postmaster = postmaster
        self.database = database
        self.most_connections = 0
        self._before: list[float] = []
        self.used: list[float] = []
        self._sampling = threading.Event()
        self._sampler: threading.Thread | None = None

    def _read(self) -> list[float]:
        postgres = float("nan")
        if self.postmaster is not None:
            postgres = tree_cpu_seconds(self.postmaster)
        return [
            *(cpu_seconds(pid) for pid in self.servers),
            postgres,
            time.process_time(),
        ]

    def begin(self) -> None:
        self._before = self._read()
        if self.postmaster is not None and self.database is not None:
            self._sampling.set()
            self._sampler = threading.Thread(target=self._sample, daemon=True)
            self._sampler.start()

    def _sample(self) -> None:
        assert self.postmaster is not None and self.database is not None
        while self._sampling.is_set():
            self.most_connections = max(
                self.most_connections, backends(self.postmaster, self.database)
            )
            time.sleep(1)

    def end(self) -> None:
        after = self._read()
        self.used = [a - b for a, b in zip(after, self._before, strict=True)]
        self._sampling.clear()
        if self._sampler is not None:
            self._sampler.join()


def postgres_cluster() -> Any:
    """tests/postgres_cluster.py, the test suite's throwaway clusters."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        return importlib.import_module("postgres_cluster")
    finally:
        sys.path.pop(0)


class Database:
    """Where the games go: a fresh SQLite file, or a fresh PostgreSQL database (on a cluster
    started here, or on the server at ``--db``) for each run."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.postgres = args.store == "postgresql"
        self.cluster: Any = None
        if self.postgres:
            module = postgres_cluster()
            if args.db:
                self.cluster = module.Cluster.attach(args.db)
            else:
                if not args.pg_memory:
                    module.SETTINGS.update(module.DURABLE_SETTINGS)
                    cluster = module.Cluster()
                    cluster._temp_parent = lambda: "/var/tmp"  # on disk, not /dev/shm
                else:
                    cluster = module.Cluster()
                cluster.start()
                self.cluster = cluster

    @contextmanager
    def fresh(self) -> Iterator[tuple[str, int | None, str | None]]:
        """A fresh database: its location, the postmaster's pid (None when it is not on
        this machine, or for SQLite) and the database's name."""
        if not self.postgres:
            with tempfile.TemporaryDirectory() as tmp:
                yield str(Path(tmp) / "load.sqlite3"), None, None
            return
        url = self.cluster.create_database()
        try:
            yield url, self._postmaster(url), url.rsplit("/", 1)[1]
        finally:
            self.cluster.drop_database(url)

    @staticmethod
    def _postmaster(url: str) -> int | None:
        import asyncpg  # type: ignore[import-untyped]

        async def parent() -> int | None:
            connection = await asyncpg.connect(url)
            try:
                fields = stat_fields(await connection.fetchval("SELECT pg_backend_pid()"))
                return None if fields is None else int(fields[1])  # (while it lives)
            finally:
                await connection.close()

        return asyncio.run(parent())

    def close(self) -> None:
        if self.cluster is not None:
            self.cluster.stop()


def run_one(
    args: argparse.Namespace, database: Database, games: int
) -> tuple[Results, float, Meter]:
    with database.fresh() as (location, postmaster, name), tempfile.TemporaryDirectory() as tmp:
        ports = [free_port() for _ in range(args.servers)]
        logs = [Path(tmp) / f"server-{port}.log" for port in ports]
        # Every game's players come from an address of their own (the X-Forwarded-For
        # header the server trusts here), as they would on the internet: the per-address
        # limits on games and sockets are the server's real ones.
        servers = [
            start_server(port, location, log, "--trust-proxy")
            for port, log in zip(ports, logs, strict=True)
        ]
        try:
            for server, port, log in zip(servers, ports, logs, strict=True):
                wait_until_serving(server, port, log)
            meter = Meter([s.pid for s in servers], postmaster, name)
            bases = [f"http://127.0.0.1:{port}" for port in ports]
            # The players run on the servers' event loop too (uvloop, when installed):
            # the load generator shares the machine, and the less CPU it takes the more
            # the figures are the servers'.
            with asyncio.Runner(loop_factory=loop_factory()) as runner:
                results, elapsed = runner.run(
                    run_games(bases, games, args.plies, args.think_ms, meter)
                )
        finally:
            for server in servers:
                server.terminate()
            for server in servers:
                try:
                    server.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()
        results.logged = logged(logs)
    return results, elapsed, meter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, nargs="+", default=[50, 200, 500])
    parser.add_argument("--plies", type=int, default=40, help="plies per game (default 40)")
    parser.add_argument(
        "--think-ms", type=float, default=1000, help="mean thinking time per move (default 1000)"
    )
    parser.add_argument(
        "--store",
        choices=("sqlite", "postgresql"),
        default=None,
        help="sqlite (default; one process) or postgresql (a cluster started here unless "
        "--db names one)",
    )
    parser.add_argument(
        "--db",
        metavar="URL",
        help="postgresql://USER@HOST/DB: a server where the bench may create and drop "
        "databases (implies --store postgresql)",
    )
    parser.add_argument(
        "--servers", type=int, default=1, help="server processes on one database (default 1)"
    )
    parser.add_argument(
        "--pg-memory",
        action="store_true",
        help="the started cluster with the test suite's settings (/dev/shm, fsync off)",
    )
    args = parser.parse_args()
    if args.db and args.store == "sqlite":
        parser.error("--db is a postgresql:// address: it cannot go with --store sqlite")
    args.store = args.store or ("postgresql" if args.db else "sqlite")
    if args.store == "sqlite" and args.servers != 1:
        parser.error("a SQLite database takes one server process: use --store postgresql")
    if args.servers < 1:
        parser.error("--servers must be at least 1")
    gc.freeze()  # as the server does: keep GC pauses of this process out of the latencies
    gc.set_threshold(7000, 20, 20)
    database = Database(args)
    try:
        report(args, database)
    finally:
        database.close()


def report(args: argparse.Namespace, database: Database) -> None:
    where = "SQLite" if args.store == "sqlite" else "PostgreSQL"
    plural = "es" if args.servers > 1 else ""
    print(f"{where}, {args.servers} server process{plural}; CPU in seconds while playing")
    print(
        f"{'games':>6} {'moves':>7} {'moves/s':>8} {'p50 ms':>7} {'p90 ms':>7} {'p99 ms':>7} "
        f"{'max ms':>7} {'errors':>6} {'secs':>5} {'server CPU':>12} {'pg CPU':>6} "
        f"{'bench CPU':>9} {'ms/move':>7} {'all ms':>7} {'conns':>5}"
    )
    for games in args.games:
        results, elapsed, meter = run_one(args, database, games)
        ms = [x * 1000 for x in results.latencies]
        *servers, postgres, own = meter.used
        server_cpu = "+".join(f"{s:.1f}" for s in servers)
        moves = results.moves or float("nan")
        per_move = sum(servers) / moves * 1000
        # Every part's CPU per move (servers, PostgreSQL, load generator): the cores the
        # offered moves a second would need on this machine.
        whole = (sum(servers) + (postgres if database.postgres else 0.0) + own) / moves * 1000
        connections = str(meter.most_connections) if database.postgres else "-"
        pg_cpu = f"{postgres:.1f}" if database.postgres else "-"
        print(
            f"{games:>6} {results.moves:>7} {results.moves / elapsed:>8.1f} "
            f"{percentile(ms, 0.5):>7.1f} {percentile(ms, 0.9):>7.1f} {percentile(ms, 0.99):>7.1f} "
            f"{max(ms, default=float('nan')):>7.1f} {len(results.errors):>6} {elapsed:>5.1f} "
            f"{server_cpu:>12} {pg_cpu:>6} {own:>9.1f} {per_move:>7.2f} {whole:>7.2f} "
            f"{connections:>5}",
            flush=True,
        )
        if results.errors:
            common = statistics.mode(results.errors)
            print(f"       most common error: {common[:160]}")
        if results.logged:
            print(f"       the servers logged {len(results.logged)} lines, such as:")
            for line in list(dict.fromkeys(results.logged))[:3]:
                print(f"         {line[:200]}")


if __name__ == "__main__":
    main()
