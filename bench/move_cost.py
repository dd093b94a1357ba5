"""What a move costs the server, in process: the rooms, the referee, the store and the
rendering of every state, without sockets or a load generator.

Plays ``--games`` friend games of ``--plies`` random legal moves (from a fixed seed) through
the game rooms of one :class:`~chuhan.web.round.manager.GameManager` on a fresh SQLite
database, as the websocket would: each move is parsed as a client frame by its player's
reader task (one per socket for the whole game, as the server has: no task is made per
move, which the server does not do), acted on under the room's lock, written to the store,
and each connection's queued frames (the ack, the states its writer renders) are drained
after every round of moves. The clock is fake and the game
ids and seat links are numbered, so the frames are the same on every run: ``--dump FILE``
writes them all, to check that a change to the server leaves what it sends unchanged.

    .venv/bin/python bench/move_cost.py --games 50 --plies 40            # seconds per move
    .venv/bin/python bench/move_cost.py --dump /tmp/frames.txt           # every frame sent
    bench/move_cost.py --instructions                                    # valgrind's count

``--instructions`` runs the benchmark twice under valgrind's callgrind (with the moves
played and with the games only set up) and prints the instructions per move: unlike
seconds, the count is the same on a busy machine, so it is the number to compare two
versions of the server with. ``--zones`` runs the same two and prints, per move, the
inclusive count of the compiled and C functions a move spends most in (the legal moves,
the premoves, SQLite's statements, the store's thread, the JSON encoder...): the
difference of the two runs' ``callgrind_annotate --inclusive=yes``, so what the setup
costs is taken out as it is from the total.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from chuhan.clock import TimeControl
from chuhan.game import Game
from chuhan.variants import get_variant
from chuhan.web.bus import Bus
from chuhan.web.db.sqlite import SqliteStore
from chuhan.web.round import manager as manager_module
from chuhan.web.round.connection import GameConnection
from chuhan.web.round.manager import GameManager
from chuhan.web.round.room import Room
from chuhan.web.round.view import render_state
from chuhan.web.sockets.connection import STATE
from chuhan.web.sockets.protocol import TokenBucket, parse_client_message

ARRANGEMENT = "마상상마"


class Clock:
    def __init__(self) -> None:
        self.t = 1_800_000_000.0

    def __call__(self) -> float:
        return self.t


def random_games(games: int, plies: int, variants: list[str], seed: int) -> list[list[str]]:
    """Each game's moves (ICCS), random legal ones from ``seed``, stopping at the end."""
    rng = random.Random(seed)
    out = []
    for number in range(games):
        game = Game.new(get_variant(variants[number % len(variants)]))
        while game.setup_pending is not None:
            game.choose_setup(game.setup_pending, ARRANGEMENT)
        moves: list[str] = []
        while len(moves) < plies and game.outcome() is None:
            legal = sorted(m.iccs() for m in game.board.legal_moves)
            move = rng.choice(legal)
            game.push(game.board.parse_iccs(move))
            moves.append(move)
        out.append(moves)
    return out


def drain(conn: GameConnection, room: Room, now: float, sink: list[str] | None) -> int:
    """What the connection's writer would send now (as :meth:`GameConnection.frames` does)."""
    sent = 0
    outbox = conn._outbox
    while outbox:
        kind, text = outbox.popleft()
        if kind == "close":
            break
        if kind == STATE:
            text = render_state(room, conn, now)
        elif kind == "presence":
            text = room.presence_text()
        else:
            conn._texts -= 1
        assert text is not None
        sent += len(text)
        if sink is not None:
            sink.append(text)
    conn._ready.clear()
    return sent


async def run(
    args: argparse.Namespace, sequences: list[list[str]]
) -> tuple[int, float, float, int]:
    counter = itertools.count()
    manager_module.new_game_id = lambda: f"game{next(counter):05d}"  # type: ignore[attr-defined]
    manager_module.new_token = lambda: f"token{next(counter):05d}"  # type: ignore[attr-defined]
    clock = Clock()
    sink: list[str] | None = [] if args.dump else None
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteStore(Path(tmp) / "bench.sqlite3")
        await store.open()
        manager = GameManager(store, None, Bus(store), clock)  # type: ignore[arg-type]
        await manager.start()
        players: list[tuple[Room, dict[str, GameConnection]]] = []
        for number in range(len(sequences)):
            variant = get_variant(args.variants[number % len(args.variants)])
            row, _ = await manager.create(
                kind="friend",
                variant=variant,
                time_control=TimeControl(1800, 0),
                level=None,
                human_seat="first",
                name=None,
            )
            room = await manager.room(row.id)
            assert room is not None
            conns = {}
            for seat in ("first", "second"):
                conn = GameConnection(TokenBucket(), TokenBucket(), "198.18.0.1")
                conn.deltas = True
                assert room.admit(conn, seat, max_watchers=100)
                await room.join(conn, None)
                conns[seat] = conn
            for _ in range(args.watchers):
                conn = GameConnection(TokenBucket(), TokenBucket(), "198.18.0.2")
                conn.deltas = True
                assert room.admit(conn, "watcher", max_watchers=100)
                await room.join(conn, None)
                conns[f"watcher{_}"] = conn
            players.append((room, conns))
        await asyncio.sleep(0.3)  # the presence updates
        for room, conns in players:
            for conn in conns.values():
                drain(conn, room, clock.t, sink)

        seqs = {id(conn): 0 for _, conns in players for conn in conns.values()}
        # Each player's socket has one reader task for the whole game, as the server's
        # socket does (a frame wakes it; no task is made per move), and a round of moves
        # is over once every frame sent in it was acted on.
        inboxes: dict[int, asyncio.Queue[str]] = {}
        waiting = [0]
        round_over = asyncio.Event()
        failures: list[BaseException] = []

        async def reader(room: Room, conn: GameConnection, inbox: asyncio.Queue[str]) -> None:
            while True:
                text = await inbox.get()
                try:
                    await room.act(conn, parse_client_message(text))
                except Exception as error:  # (the bench's moves are legal: a bug)
                    failures.append(error)
                waiting[0] -= 1
                if not waiting[0]:
                    round_over.set()

        readers = []
        for room, conns in players:
            for seat in ("first", "second"):
                conn = conns[seat]
                inbox = inboxes[id(conn)] = asyncio.Queue()
                readers.append(asyncio.create_task(reader(room, conn, inbox)))

        def act(room: Room, conn: GameConnection, kind: str, **fields: object) -> None:
            """The client sends a frame (its reader acts on it)."""
            seqs[id(conn)] += 1
            waiting[0] += 1
            inboxes[id(conn)].put_nowait(
                json.dumps({"type": kind, "seq": seqs[id(conn)], **fields})
            )

        def send_move(conn: GameConnection, version: int, move: str) -> None:
            """The client sends a move: the text ``json.dumps`` makes of it, put together
            directly (json.dumps costs about 25 k instructions a frame, the client's work
            and not the server's)."""
            seqs[id(conn)] += 1
            waiting[0] += 1
            inboxes[id(conn)].put_nowait(
                f'{{"type": "move", "seq": {seqs[id(conn)]}, "version": {version}, '
                f'"from": "{move[:2]}", "to": "{move[2:]}"}}'
            )

        async def sent_all() -> None:
            if waiting[0]:
                round_over.clear()
                await round_over.wait()
            if failures:
                raise failures[0]

        moves = 0
        sent = 0
        began, cpu = time.perf_counter(), time.process_time()
        if not args.setup_only:
            # janggi setups (the moves do not count)
            for _ in range(2):
                for room, conns in players:
                    pending = room.state.game.setup_pending
                    if pending is not None:
                        seat = "first" if pending else "second"
                        act(
                            room,
                            conns[seat],
                            "setup",
                            version=room.state.version,
                            arrangement=ARRANGEMENT,
                        )
                await sent_all()
            for ply in range(max(map(len, sequences))):
                clock.t += 1.0
                for (room, conns), sequence in zip(players, sequences, strict=True):
                    if ply < len(sequence):
                        seat = "first" if room.state.game.board.turn else "second"
                        move = sequence[ply]
                        if move[:2] == move[2:]:
                            act(room, conns[seat], "pass", version=room.state.version)
                        else:
                            send_move(conns[seat], room.state.version, move)
                        moves += 1
                await sent_all()
                for room, conns in players:
                    for conn in conns.values():
                        sent += drain(conn, room, clock.t, sink)
        seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
        for task in readers:
            task.cancel()
        manager.close()
        await store.close()
    if args.dump:
        Path(args.dump).write_text("\n".join(sink or []) + "\n")
    return moves, seconds, cpu, sent


def instructions(argv: list[str]) -> int:
    """valgrind's instruction count for this script with ``argv``."""
    done = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            __file__,
            *argv,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    for line in done.stderr.splitlines():
        if "refs:" in line:
            return int(line.split()[-1].replace(",", ""))
    raise SystemExit(f"no instruction count from valgrind: {done.stderr[-500:]}")


#: The functions ``--zones`` names (a part of the C function's name, and what it is).
ZONES = (
    ("CPyDef_board___Board___legal_move_codes", "the side to move's legal moves"),
    ("CPyDef_board___Board___pseudo_legal_move_codes", "the waiting side's premoves"),
    ("CPyDef_jsontext___moves_json", "moves_json (legal and premoves)"),
    ("CPyDef_board___Board___fen", "the FEN"),
    ("CPyDef_jsontext___pieces_json", "the pieces' JSON"),
    ("CPyDef_board___Board___history_state", "Game's judgment keys"),
    ("_sqlite/connection.c:pysqlite_connection_execute", "SQLite's statements (Python's C)"),
    (":sqlite3_step", "SQLite's statements (the library)"),
    ("_threadmodule.c:thread_run", "the store's thread, all of it"),
    ("_json.c:encoder_call", "the JSON encoder (C)"),
    ("_asynciomodule.c:task_step_impl", "tasks' steps (all the round's Python in them)"),
)


def callgrind_counts(argv: list[str], out: Path) -> dict[str, int]:
    """Each function's inclusive instruction count for this script with ``argv``."""
    subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            *argv,
        ],
        capture_output=True,
        check=True,
    )
    done = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    counts: dict[str, int] = {}
    for line in done.stdout.splitlines():
        found = re.match(r"\s*([\d,]+) \([^)]*\)\s+([^=\s].*?)(?: \[.*\])?$", line)
        if found and "'" not in found[2].rsplit(":", 1)[-1]:  # (not a recursion's entry)
            name, count = found[2], int(found[1].replace(",", ""))
            counts[name] = max(counts.get(name, 0), count)
    return counts


def zones(argv: list[str], moves: int) -> None:
    """Print the instructions per move of :data:`ZONES` (moves played minus set up)."""
    with tempfile.TemporaryDirectory() as tmp:
        full = callgrind_counts(argv, Path(tmp) / "full.out")
        setup = callgrind_counts([*argv, "--setup-only"], Path(tmp) / "setup.out")
    print(
        f"{moves} moves: {(full['PROGRAM TOTALS'] - setup['PROGRAM TOTALS']) / moves:,.0f} "
        "instructions per move; inclusive counts per move:"
    )
    for part, label in ZONES:
        names = [name for name in full if part in name]
        if not names:
            print(f"{'-':>10}  {label} (not run: {part})")
            continue
        per_move = max(full[name] - setup.get(name, 0) for name in names) / moves
        print(f"{per_move:10,.0f}  {label}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--plies", type=int, default=30)
    parser.add_argument("--watchers", type=int, default=0, help="watchers per game")
    parser.add_argument("--variants", nargs="+", default=["xiangqi"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dump", help="write every frame sent to this file")
    parser.add_argument("--setup-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions with valgrind"
    )
    parser.add_argument(
        "--zones",
        action="store_true",
        help="count instructions with valgrind, per move, in the functions a move spends most in",
    )
    args = parser.parse_args()
    if args.instructions or args.zones:
        argv = [
            *("--games", str(args.games), "--plies", str(args.plies)),
            *("--watchers", str(args.watchers), "--seed", str(args.seed)),
            "--variants",
            *args.variants,
        ]
        sequences = random_games(args.games, args.plies, args.variants, args.seed)
        moves = sum(map(len, sequences))
        if args.zones:
            zones(argv, moves)
            return
        full, setup = instructions(argv), instructions([*argv, "--setup-only"])
        print(f"{moves} moves: {(full - setup) / moves:,.0f} instructions per move")
        return
    sequences = random_games(args.games, args.plies, args.variants, args.seed)
    moves, seconds, cpu, sent = asyncio.run(run(args, sequences))
    if moves:
        print(
            f"{moves} moves in {seconds:.2f} s: {cpu / moves * 1e6:.0f} µs of CPU per move, "
            f"{sent / moves:.0f} bytes sent per move"
        )


if __name__ == "__main__":
    main()
