"""Failover of several server processes on one PostgreSQL database, measured.

Each round starts two ``chuhan serve`` processes on one database, creates a timed game on
the first (which then drives its clock), seats Red on the first process and Black on the
second, plays a few moves, and kills the first with SIGKILL while Black's clock runs with
``--left`` seconds to go. Black does not move: the survivor must take the clock over and
flag Black. Then Red reconnects to the survivor and the game is checked: every
acknowledged move is there, once, and the game ended on time exactly once.

    .venv/bin/python bench/failover.py --rounds 10

Prints, per round, how long after the kill the flag fell (that is the takeover time when
it is longer than ``--left``) and a summary. Without ``--db`` a throwaway PostgreSQL
cluster is started (``tests/postgres_cluster.py``) and stopped afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from chuhan.web.db import open_store
from chuhan.web.server import free_port

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).parent.parent / "tests" / "web"))
from process_helpers import Client, create_game, invite_token  # the tests' player

from load import serving  # the same server start as the load test


def random_move(player: Client, rng: random.Random) -> str:
    """Play a random legal move; return it (ICCS)."""
    source, targets = rng.choice(sorted(player.state["legal"].items()))
    move: str = source + rng.choice(targets)
    player.move(move)
    return move


def stored_moves(url: str, game_id: str) -> tuple[list[str], list[str]]:
    async def read() -> tuple[list[str], list[str]]:
        store = open_store(url)
        await store.open()
        try:
            events = await store.events(game_id)
        finally:
            await store.close()
        return [e.data["move"] for e in events if e.kind == "move"], [e.kind for e in events]

    return asyncio.run(read())


def one_round(url: str, period: float, left: float, plies: int, rng: random.Random) -> float:
    first, second = free_port(), free_port()
    servers = [serving(first, url), serving(second, url)]
    try:
        game = create_game(first, kind="friend", time_control=f"0 1x{period:g}")
        with contextlib.ExitStack() as stack:
            red = Client(stack, first, game["game_id"], game["token"])
            black = Client(stack, second, game["game_id"], invite_token(game))
            played = []
            for ply in range(plies):
                mover, other = (red, black) if ply % 2 == 0 else (black, red)
                played.append(random_move(mover, rng))
                other.wait_ply(ply + 1)
            # Red has just moved: Black's period runs. Kill the driver `left` s before the
            # flag is due.
            time.sleep(max(0.0, period - left))
            killed = time.monotonic()
            os.kill(servers[0].pid, signal.SIGKILL)
            servers[0].wait(timeout=10)
            black.wait(lambda state: state["status"] == "over", timeout=30)
            took = time.monotonic() - killed
            assert black.state["last_event"]["kind"] == "flag", black.state["last_event"]
            again = Client(stack, second, game["game_id"], game["token"])
            assert [m["iccs"] for m in again.state["moves"]] == played
        moves, kinds = stored_moves(url, game["game_id"])
        assert moves == played, (moves, played)
        assert kinds.count("flag") == 1, kinds
        return took
    finally:
        for server in servers:
            if server.poll() is None:
                server.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(timeout=10)
            if server.poll() is None:
                server.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument(
        "--db", default=None, help="postgresql://... (default: a throwaway cluster)"
    )
    parser.add_argument("--period", type=float, default=4.0, help="byo-yomi seconds a move")
    parser.add_argument("--left", type=float, default=0.5, help="Black's time left at the kill")
    parser.add_argument("--plies", type=int, default=6, help="moves played before the kill")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    cluster = None
    if args.db is None:
        from postgres_cluster import Cluster

        cluster = Cluster()
        cluster.start()
    try:
        times = []
        for number in range(args.rounds):
            url = args.db or cluster.create_database()  # type: ignore[union-attr]
            took = one_round(url, args.period, args.left, args.plies, rng)
            times.append(took)
            print(f"round {number + 1}: the flag fell {took:.2f} s after the kill", flush=True)
        print(
            f"{len(times)} rounds, every acknowledged move kept, one flag each: "
            f"flag after the kill min {min(times):.2f} s, median "
            f"{statistics.median(times):.2f} s, max {max(times):.2f} s "
            f"(Black had {args.left:g} s left at the kill)"
        )
    finally:
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()
