"""The engine workers of a real ``chuhan serve`` die with it, however it dies: killed
(SIGKILL, no shutdown code runs) or stopped (SIGTERM), while the computer is searching."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import sys
import time
from pathlib import Path

import pytest
from process_helpers import Client, create_game, start_server

from chuhan.board import Board
from chuhan.book import BOOK_PLIES, Book
from chuhan.web.server import free_port

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads the process table in /proc")


def stat_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (state, parent, ...), or
    None when there is no such process."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def children_of(parent: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            fields = stat_fields(int(name))
            if fields is not None and int(fields[1]) == parent:
                found.append(int(name))
    return found


def is_running(pid: int) -> bool:
    """Whether the process exists and is not a zombie (dead, waiting to be reaped)."""
    fields = stat_fields(pid)
    return fields is not None and fields[0] != "Z"


def cpu_ticks(pid: int) -> int:
    fields = stat_fields(pid)
    return 0 if fields is None else int(fields[11]) + int(fields[12])  # utime + stime


def searching_worker(server: int, seconds: float = 120) -> int:
    """A child of the server that is using the CPU (the computer's search): one that has
    used 0.2 s of CPU since the first look, however long a loaded machine takes to give it
    that (an idle worker uses none; ``seconds`` bounds a hang only)."""
    deadline = time.monotonic() + seconds
    first: dict[int, int] = {}
    while time.monotonic() < deadline:
        for pid in children_of(server):
            ticks = cpu_ticks(pid)
            start = first.setdefault(pid, ticks)
            if ticks - start >= 20:
                return pid
        time.sleep(0.1)
    raise AssertionError("no worker of the server is searching")


#: A position the computer must search for: out of the opening book (from the start, a
#: level-8 computer plays the book's move at once and its worker uses no CPU to be seen).
#: Red has given up a horse; Red, the computer, is to move.
OUT_OF_BOOK = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKAB1R w - - 0 1"


def test_the_position_is_out_of_the_book() -> None:
    assert Book.load().choose(Board(), random.Random(0), plies=BOOK_PLIES) is not None
    board = Board(OUT_OF_BOOK)
    assert Book.load().choose(board, random.Random(0), plies=BOOK_PLIES) is None


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_the_engine_workers_die_with_the_server(tmp_path: Path, how: signal.Signals) -> None:
    port = free_port()
    server = start_server(port, tmp_path / "games.sqlite3")
    stack = contextlib.ExitStack()
    children: list[int] = []
    try:
        game = create_game(
            port, kind="computer", level=8, color="second", time_control="10+5", fen=OUT_OF_BOOK
        )
        Client(stack, port, game["game_id"], game["token"])  # the computer starts thinking
        searching_worker(server.pid)
        children = children_of(server.pid)
        os.kill(server.pid, how)
        server.wait(timeout=60)
        deadline = time.monotonic() + 60  # a bound on a hang only
        while any(is_running(pid) for pid in children) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [pid for pid in children if is_running(pid)] == []
    finally:
        stack.close()
        server.kill()
        server.wait(timeout=60)
        for pid in children:  # the test's own grandchildren, if the check failed
            if is_running(pid):
                os.kill(pid, signal.SIGKILL)
