"""PostgreSQL's limits for the chuhan server, measured on this machine.

Three measurements against a fresh database (on a throwaway cluster started here, on disk
with PostgreSQL's durability defaults, as ``bench/load.py`` starts it; or on the server at
``--db URL``, where the bench may create and drop databases):

- ``writes``: the store's own save (``PostgresStore.save_game``: the game row and its
  event in one statement and one transaction, then its notice in the next batch of
  notices, :class:`~chuhan.web.db.notices.Notices`) on many games at once, from
  ``--processes`` client processes with a pool of 10 connections each (the server's pool),
  while ``--listeners`` connections LISTEN (one per server process in a real deployment).
  Also the same saves without their notices, to show what the notices cost.
- ``notices``: ``SELECT pg_notify('chuhan', payload)`` with a payload the size of a move's
  notice, as fast as 20 connections can send them, to 1, 4 and 16 listening connections:
  notices sent per second and delivered per second (every listener receives every notice).
- ``connections``: ``max_connections`` and what one idle backend costs in memory.

    PYTHONPATH=src .venv/bin/python bench/pglimits.py --seconds 10

Prints rates and the CPU seconds PostgreSQL (the postmaster and its children) and the
clients used. On a 2-core machine the clients compete with the database for the cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import statistics
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from multiprocessing.queues import Queue
from typing import Any

import asyncpg  # type: ignore[import-untyped]

from chuhan.web.db import GameRow
from chuhan.web.db import postgres as pg
from chuhan.web.db.migrations import migrate_postgresql
from chuhan.web.db.notices import NOTIFY
from chuhan.web.db.postgres import PostgresStore
from load import Database, children, tree_cpu_seconds


def _move_notice() -> str:
    """A move's notice alone in a payload, as the store sends it (origin, kind, game id,
    revision)."""
    notices = pg.PostgresStore("postgresql://x@y/z").notices
    item = json.dumps(["game", "g" * 22, {"revision": 31}], separators=(",", ":"))
    [payload] = notices._payloads([item])
    return payload


#: A move's notice, as the store sends it.
NOTICE = _move_notice()
GAMES_PER_PROCESS = 400
POOL = 10  # the server's pool


def game(number: int, process: int) -> GameRow:
    """A friend game with a clock, 30 plies in, as the load test's games are."""
    now = time.time()
    return GameRow(
        id=f"bench-{process}-{number:06d}",
        kind="friend",
        variant="xiangqi",
        rules="asian",
        start_fen=None,
        time_control={"base": 1800, "increment": 0, "periods": 0, "period_seconds": 0},
        level=None,
        computer_side=None,
        names={},
        created=now,
        updated=now,
        status="playing",
        offers={"draw": None, "takeback": None, "rematch": None},
        moves=["h2e2", "h9g7"] * 15,
        clock={"first": 1790.5, "second": 1788.25, "running": "first", "periods": [0, 0]},
        clock_at=now,
    )


async def open_pool(url: str, size: int) -> Any:
    return await asyncpg.create_pool(
        url, min_size=size, max_size=size, reset=pg._keep_session, command_timeout=30
    )


async def write_loop(
    url: str, process: int, start_at: float, seconds: float, notify: bool
) -> dict[str, Any]:
    store = PostgresStore(url, max_connections=POOL)
    if not notify:
        store.notices.announce = lambda *_args, **_kwargs: None  # type: ignore[method-assign]
    store._connections = await open_pool(url, POOL)  # the store's pool, without its listener
    rows = [game(n, process) for n in range(GAMES_PER_PROCESS)]
    for row in rows:
        await store.create_game(row, {f"t{process}-{row.id}-{s}": s for s in ("first", "second")})
    latencies: list[float] = []
    await asyncio.sleep(max(0.0, start_at - time.time()))
    cpu = time.process_time()
    stop = time.perf_counter() + seconds

    async def worker(mine: list[GameRow]) -> None:
        while True:
            for row in mine:
                if time.perf_counter() >= stop:
                    return
                row.version += 1
                row.moves.append("h2e2")
                if len(row.moves) > 60:
                    del row.moves[30:]
                row.updated = row.clock_at = time.time()
                began = time.perf_counter()
                await store.save_game(row, "move", {"move": "h2e2"})
                latencies.append(time.perf_counter() - began)

    await asyncio.gather(*(worker(rows[i::POOL]) for i in range(POOL)))
    cpu = time.process_time() - cpu
    await store._connections.close()
    return {"writes": len(latencies), "latencies": latencies, "cpu": cpu}


async def notify_loop(url: str, start_at: float, seconds: float) -> dict[str, Any]:
    pool = await open_pool(url, POOL)
    sent = 0
    await asyncio.sleep(max(0.0, start_at - time.time()))
    cpu = time.process_time()
    stop = time.perf_counter() + seconds

    async def worker() -> None:
        nonlocal sent
        async with pool.acquire() as connection:
            while time.perf_counter() < stop:
                await connection.execute(NOTIFY, NOTICE)
                sent += 1

    await asyncio.gather(*(worker() for _ in range(POOL)))
    cpu = time.process_time() - cpu
    await pool.close()
    return {"sent": sent, "cpu": cpu}


async def listen_loop(
    url: str, count: int, start_at: float, seconds: float, drain: float
) -> dict[str, Any]:
    heard = [0] * count
    in_time = [0] * count
    stop = start_at + seconds
    connections = []
    for i in range(count):
        connection = await asyncpg.connect(url)

        def heard_one(*_args: Any, i: int = i) -> None:
            heard[i] += 1
            if time.time() <= stop:
                in_time[i] += 1

        await connection.add_listener(pg.CHANNEL, heard_one)
        connections.append(connection)
    await asyncio.sleep(max(0.0, start_at - time.time()))
    cpu = time.process_time()
    await asyncio.sleep(seconds)
    cpu_in_time = time.process_time() - cpu
    # Then until nothing more arrives for a second (or ``drain`` seconds at most).
    deadline = time.time() + drain
    last = -1
    while sum(heard) != last and time.time() < deadline:
        last = sum(heard)
        await asyncio.sleep(1)
    drained = time.time() - stop
    for connection in connections:
        await connection.close()
    return {"heard": heard, "in_time": in_time, "cpu": cpu_in_time, "drained": drained}


def prepare(url: str) -> None:
    """The store's schema in the fresh database at ``url``."""

    async def run() -> None:
        connection = await asyncpg.connect(url)
        try:
            await migrate_postgresql(connection, url)
        finally:
            await connection.close()

    asyncio.run(run())


def child(queue: Queue[Any], job: str, *args: Any) -> None:
    loops: dict[str, Callable[..., Coroutine[Any, Any, Any]]] = {
        "write": write_loop,
        "notify": notify_loop,
        "listen": listen_loop,
    }
    coroutine = loops[job]
    try:
        queue.put((job, asyncio.run(coroutine(*args))))
    except BaseException as error:
        queue.put(("failed", {"error": f"{job}: {type(error).__name__}: {error}"}))
        raise


@dataclass
class Run:
    results: list[tuple[str, dict[str, Any]]]
    postgres_cpu: float


def run(
    postmaster: int | None,
    jobs: list[tuple[str, tuple[Any, ...]]],
    start_at: float,
    seconds: float,
) -> Run:
    """Run ``jobs`` in processes of their own; PostgreSQL's CPU is read from ``start_at``
    for ``seconds`` (the timed part of every job)."""
    context = multiprocessing.get_context("spawn")
    queue: Queue[Any] = context.Queue()
    processes = [context.Process(target=child, args=(queue, job, *args)) for job, args in jobs]
    for process in processes:
        process.start()
    time.sleep(max(0.0, start_at - time.time()))
    before = tree_cpu_seconds(postmaster) if postmaster else float("nan")
    time.sleep(seconds)
    after = tree_cpu_seconds(postmaster) if postmaster else float("nan")
    results = [queue.get() for _ in processes]
    for job, result in results:
        if job == "failed":
            raise SystemExit(result["error"])
    for process in processes:
        process.join()
    return Run(results, after - before)


def measure_writes(args: argparse.Namespace, database: Database) -> None:
    print(
        f"save_game: {args.processes} client processes x {POOL} connections, "
        f"{args.processes * GAMES_PER_PROCESS} games, {args.seconds:g} s"
    )
    print(
        f"{'notice':>7} {'listeners':>9} {'writes/s':>9} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'pg CPU s':>8} {'pg ms/write':>11} {'clients CPU s':>13} {'heard/s each':>12}"
    )
    for notify, listeners in ((False, 0), (True, 0), (True, 2), (True, 8)):
        with database.fresh() as (url, postmaster, _name):
            prepare(url)
            start_at = time.time() + 4 + args.processes  # creating the games first
            jobs: list[tuple[str, tuple[Any, ...]]] = [
                ("write", (url, p, start_at, args.seconds, notify)) for p in range(args.processes)
            ]
            if listeners:
                jobs.append(("listen", (url, listeners, start_at, args.seconds, 30.0)))
            done = run(postmaster, jobs, start_at, args.seconds)
        writes = [r for job, r in done.results if job == "write"]
        heard = [r for job, r in done.results if job == "listen"]
        total = sum(r["writes"] for r in writes)
        latencies = sorted(x * 1000 for r in writes for x in r["latencies"])
        clients = sum(r["cpu"] for r in writes)
        each = f"{statistics.mean(heard[0]['in_time']) / args.seconds:>12.0f}" if heard else "-"
        print(
            f"{'yes' if notify else 'no':>7} {listeners:>9} {total / args.seconds:>9.0f} "
            f"{latencies[len(latencies) // 2]:>7.1f} {latencies[int(len(latencies) * 0.99)]:>7.1f} "
            f"{done.postgres_cpu:>8.1f} {done.postgres_cpu / total * 1000:>11.3f} "
            f"{clients:>13.1f} {each:>12}",
            flush=True,
        )


def measure_notices(args: argparse.Namespace, database: Database) -> None:
    print(
        f"pg_notify ({len(NOTICE)}-byte payload): {args.processes} sending processes x {POOL} "
        f"connections, {args.seconds:g} s"
    )
    print(
        f"{'listeners':>9} {'sent/s':>8} {'heard/s each':>12} {'delivered/s':>11} "
        f"{'drained after':>13} {'pg CPU s':>8} {'clients CPU s':>13}"
    )
    for listeners in (1, 4, 16):
        with database.fresh() as (url, postmaster, _name):
            prepare(url)
            start_at = time.time() + 4
            jobs: list[tuple[str, tuple[Any, ...]]] = [
                ("notify", (url, start_at, args.seconds)) for _ in range(args.processes)
            ]
            jobs.append(("listen", (url, listeners, start_at, args.seconds, 60.0)))
            done = run(postmaster, jobs, start_at, args.seconds)
        sent = sum(r["sent"] for job, r in done.results if job == "notify")
        heard = next(r for job, r in done.results if job == "listen")
        clients = sum(r["cpu"] for _job, r in done.results)
        each = statistics.mean(heard["in_time"]) / args.seconds
        lost = sent * listeners - sum(heard["heard"])
        print(
            f"{listeners:>9} {sent / args.seconds:>8.0f} {each:>12.0f} "
            f"{each * listeners:>11.0f} {heard['drained']:>12.1f}s "
            f"{done.postgres_cpu:>8.1f} {clients:>13.1f}"
            + (f"  ({lost} never heard)" if lost else ""),
            flush=True,
        )


def measure_connections(database: Database) -> None:
    with database.fresh() as (url, postmaster, name):
        prepare(url)

        async def measure() -> tuple[int, int, list[int]]:
            connection = await asyncpg.connect(url)
            try:
                most = int(await connection.fetchval("SHOW max_connections"))
                reserved = int(await connection.fetchval("SHOW superuser_reserved_connections"))
            finally:
                await connection.close()
            # 20 connections that have each run the save statement once, then sit idle.
            pool = await open_pool(url, 20)
            store = PostgresStore(url)
            store._connections = pool
            rows = [game(n, 0) for n in range(20)]
            await asyncio.gather(*(store.create_game(row, {}) for row in rows))
            await asyncio.gather(*(store.save_game(row, "move", {"move": "h2e2"}) for row in rows))
            await asyncio.sleep(1)
            assert postmaster is not None and name is not None
            private = [private_kb(pid) for pid in children(postmaster) if in_database(pid, name)]
            await pool.close()
            return most, reserved, private

        most, reserved, private = asyncio.run(measure())
    servers = (most - reserved) // (POOL + 1)
    print(
        f"max_connections {most}, {reserved} reserved for superusers: {most - reserved} for "
        f"the servers, {servers} server processes at {POOL} + 1 connections each; a backend "
        f"that has run the save statement holds {statistics.mean(private) / 1024:.1f} MB of "
        f"private memory (mean of {len(private)})"
    )


def measure_beat(args: argparse.Namespace, database: Database) -> None:
    """One process's beat (``PostgresStore.beat``) with many unfinished games in the
    database, half of them driven by the beating process and half by another live one."""
    for games in args.beat_games:
        with database.fresh() as (url, postmaster, _name):
            prepare(url)

            async def measure(url: str = url, games: int = games) -> tuple[float, float, int]:
                ours, theirs = PostgresStore(url), PostgresStore(url)
                for store in (ours, theirs):
                    store._connections = await open_pool(url, POOL)
                    await store.beat(3.0)
                rows = [game(n, 0) for n in range(games)]
                for i in range(0, games, 200):
                    await asyncio.gather(
                        *(
                            (ours if n % 2 else theirs).create_game(row, {})
                            for n, row in enumerate(rows[i : i + 200], start=i)
                        )
                    )
                    for store in (ours, theirs):  # both stay alive while the games are made
                        await store.beat(3.0)
                times = []
                cpu = tree_cpu_seconds(postmaster) if postmaster else float("nan")
                for _ in range(20):
                    began = time.perf_counter()
                    driving = await ours.beat(3.0)
                    times.append(time.perf_counter() - began)
                cpu = (tree_cpu_seconds(postmaster) if postmaster else float("nan")) - cpu
                for store in (ours, theirs):
                    await store._connections.close()
                return statistics.median(times), cpu / 20, len(driving)

            median, cpu, driving = asyncio.run(measure())
        print(
            f"beat with {games} unfinished games ({driving} driven by the beating process): "
            f"{median * 1000:.1f} ms (median of 20), PostgreSQL CPU {cpu * 1000:.1f} ms a beat",
            flush=True,
        )


def in_database(pid: int, name: str) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return f" {name} ".encode() in handle.read()
    except OSError:
        return False


def private_kb(pid: int) -> int:
    total = 0
    with open(f"/proc/{pid}/smaps_rollup") as handle:
        for line in handle:
            if line.startswith(("Private_Clean", "Private_Dirty")):
                total += int(line.split()[1])
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", metavar="URL", help="a postgresql:// server to use")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--processes", type=int, default=2, help="client processes (2)")
    parser.add_argument(
        "--pg-memory", action="store_true", help="the test suite's cluster settings"
    )
    parser.add_argument(
        "what",
        nargs="*",
        default=["writes", "notices", "beat", "connections"],
        help="what to measure",
    )
    parser.add_argument(
        "--beat-games", type=int, nargs="+", default=[1000, 4000, 16000], help="for beat"
    )
    args = parser.parse_args()
    args.store, args.servers = "postgresql", 1
    database = Database(args)
    try:
        if "writes" in args.what:
            measure_writes(args, database)
        if "notices" in args.what:
            measure_notices(args, database)
        if "beat" in args.what:
            measure_beat(args, database)
        if "connections" in args.what:
            measure_connections(database)
    finally:
        database.close()


if __name__ == "__main__":
    main()
