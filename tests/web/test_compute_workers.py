"""Worker processes with deadlines (:class:`chuhan.web.compute.workers.Workers`) and the
computer's moves on them (:class:`chuhan.web.compute.service.ProcessCompute`): a job past its
deadline is killed and its worker replaced, a deep search never holds the last worker, waiting is
bounded, and the computer's thinking time is capped whatever its clock says.

The worker jobs here are standard-library functions (``Path.read_text``, ``os._exit``,
``abs``), so the workers need not import the tests. A job that must be running while the
test does something reads a FIFO (:class:`HeldJob`): the test knows the job has started
when it can open the FIFO's other end, and the job ends when the test closes it, so no
sleep orders what happens."""

from __future__ import annotations

import asyncio
import errno
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from starlette.testclient import TestClient
from web_helpers import FakeEngine, Player, create_game, expect_error

from chuhan.board import Board
from chuhan.book import Book
from chuhan.search.limits import SearchLimits
from chuhan.variants import XIANGQI_START_FEN as START
from chuhan.web.compute.service import (
    MoveRequest,
    ProcessCompute,
    WorkerError,
    WorkersBusy,
    limits_for,
)
from chuhan.web.compute.workers import WorkerCrashed, Workers, WorkerTimeout
from chuhan.web.settings import Settings

T = TypeVar("T")

#: A 10+5 clock at the start of a game (ms).
CLOCK: dict[str, Any] = {"wtime": 600_000, "btime": 600_000, "winc": 5000, "binc": 5000}


def run(coroutine: Awaitable[T]) -> T:
    async def main() -> T:
        return await coroutine

    return asyncio.run(main())


def is_running(pid: int) -> bool:
    """Whether the process exists and is not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        return True


def wait_until_gone(pids: list[int], seconds: float = 60) -> list[int]:
    """The processes among ``pids`` still running after up to ``seconds`` (a bound on a
    hang: they are usually gone at once)."""
    deadline = time.monotonic() + seconds
    while any(is_running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if is_running(pid)]


class HeldJob:
    """A job that runs until the test lets it end: ``Path.read_text`` of a FIFO, which
    blocks in the worker until the test writes and closes the other end."""

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self.path = path
        self.writer: int | None = None

    def started(self) -> bool:
        """Whether the job has opened the FIFO (it is running in a worker); once it has,
        the test holds the other end, so the job runs until :meth:`release`."""
        if self.writer is None:
            try:
                self.writer = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as error:
                if error.errno != errno.ENXIO:  # ENXIO: no reader yet
                    raise
        return self.writer is not None

    async def wait_started(self, seconds: float = 60) -> None:
        """Poll until the job is running (a bound on a hang only)."""
        deadline = time.monotonic() + seconds
        while not self.started():
            assert time.monotonic() < deadline, "the held job never started"
            await asyncio.sleep(0.01)

    def release(self, text: str = "done") -> None:
        """Let the job end, answering ``text`` (nothing to do once its worker is gone)."""
        if self.writer is not None:
            try:
                os.write(self.writer, text.encode())
            except BrokenPipeError:
                pass
            finally:
                os.close(self.writer)
                self.writer = None


async def until(condition: Callable[[], bool], seconds: float = 60) -> None:
    """Poll until ``condition`` holds (a bound on a hang only)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the state was never reached"
        await asyncio.sleep(0.01)


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


# ---------------------------------------------------------------------- Workers


def test_a_job_runs_in_a_worker_process_and_returns_its_result() -> None:
    workers = Workers(1, "test")
    try:
        assert run(workers.run(abs, -3, timeout=30)) == 3
        assert workers.pids() and os.getpid() not in workers.pids()
    finally:
        workers.close()


def test_the_jobs_own_exception_is_raised_again_in_the_caller() -> None:
    workers = Workers(1, "test")
    try:
        with pytest.raises(ValueError, match="invalid literal for int"):
            run(workers.run(int, "x", timeout=30))
        assert run(workers.run(abs, -4, timeout=30)) == 4  # the worker is still there
    finally:
        workers.close()


@needs_proc
def test_a_job_past_its_deadline_is_killed_and_its_worker_replaced() -> None:
    workers = Workers(1, "test")
    try:
        run(workers.run(abs, 0, timeout=30))
        [stuck] = workers.pids()
        # Killed at 0.5 s: a sleep of an hour that returned instead would not raise.
        with pytest.raises(WorkerTimeout, match=r"did not answer within 0\.5 s"):
            run(workers.run(time.sleep, 3600, timeout=0.5))
        assert wait_until_gone([stuck]) == []
        assert run(workers.run(abs, -5, timeout=30)) == 5
        assert stuck not in workers.pids()
    finally:
        workers.close()


def test_a_worker_that_dies_during_its_job_is_reported_and_replaced() -> None:
    workers = Workers(1, "test")
    try:
        with pytest.raises(WorkerCrashed, match="exit code 3"):
            run(workers.run(os._exit, 3, timeout=30))
        assert run(workers.run(abs, -6, timeout=30)) == 6
    finally:
        workers.close()


@needs_proc
def test_a_cancelled_job_stops_its_worker(tmp_path: Path) -> None:
    workers = Workers(1, "test")
    held = HeldJob(tmp_path / "held")

    async def cancel_a_long_job() -> int:
        await workers.run(abs, 0, timeout=30)
        [pid] = workers.pids()
        job = asyncio.create_task(workers.run(Path.read_text, held.path, timeout=3600))
        await held.wait_started()
        job.cancel()
        with pytest.raises(asyncio.CancelledError):
            await job
        return pid

    try:
        pid = run(cancel_a_long_job())
        assert wait_until_gone([pid]) == []
    finally:
        held.release()
        workers.close()


def test_a_lane_never_holds_the_last_worker(tmp_path: Path) -> None:
    workers = Workers(2, "test", lanes={"deep": 1})
    first, second = HeldJob(tmp_path / "first"), HeldJob(tmp_path / "second")

    async def quick_while_deep_jobs_run() -> None:
        await asyncio.gather(workers.run(abs, 0, timeout=30), workers.run(abs, 0, timeout=30))
        deep = [
            asyncio.create_task(workers.run(Path.read_text, held.path, timeout=3600, lane="deep"))
            for held in (first, second)
        ]
        await first.wait_started()
        await until(lambda: workers.waiting() == 1)
        # Not behind the deep jobs: answered while the first runs and the second waits.
        assert await asyncio.wait_for(workers.run(abs, -7, timeout=60), 120) == 7
        assert not second.started() and workers.waiting() == 1
        first.release("first")
        await second.wait_started()  # the second deep job waited for the first
        second.release("second")
        assert await asyncio.gather(*deep) == ["first", "second"]

    try:
        run(quick_while_deep_jobs_run())
    finally:
        first.release()
        second.release()
        workers.close()


def test_waiting_jobs_go_earliest_deadline_first(tmp_path: Path) -> None:
    workers = Workers(1, "test")
    held = HeldJob(tmp_path / "held")

    async def order() -> list[str]:
        finished: list[str] = []

        async def job(name: str, timeout: float) -> None:
            await workers.run(abs, 0, timeout=timeout)
            finished.append(name)

        await workers.run(abs, 0, timeout=30)
        first = asyncio.create_task(workers.run(Path.read_text, held.path, timeout=3600))
        await held.wait_started()
        long = asyncio.create_task(job("long", 6000))
        await until(lambda: workers.waiting() == 1)
        short = asyncio.create_task(job("short", 600))
        await until(lambda: workers.waiting() == 2)
        held.release()
        await asyncio.gather(first, long, short)
        return finished

    try:
        assert run(order()) == ["short", "long"]
    finally:
        held.release()
        workers.close()


def test_a_waiting_job_that_is_cancelled_gives_its_turn_to_the_next(tmp_path: Path) -> None:
    workers = Workers(1, "test")
    held = HeldJob(tmp_path / "held")

    async def cancel_while_waiting() -> int:
        running = asyncio.create_task(workers.run(Path.read_text, held.path, timeout=3600))
        await held.wait_started()
        given_up = asyncio.create_task(workers.run(abs, -1, timeout=30))
        next_one = asyncio.create_task(workers.run(abs, -2, timeout=30))
        await until(lambda: workers.waiting() == 2)
        given_up.cancel()
        held.release()
        await running
        return await asyncio.wait_for(next_one, 120)

    try:
        assert run(cancel_while_waiting()) == 2
    finally:
        held.release()
        workers.close()


def test_jobs_beyond_the_waiting_bound_are_refused_at_once(tmp_path: Path) -> None:
    workers = Workers(1, "test", max_waiting=1)
    held = HeldJob(tmp_path / "held")

    async def overfill() -> None:
        running = asyncio.create_task(workers.run(Path.read_text, held.path, timeout=3600))
        await held.wait_started()
        waiting = asyncio.create_task(workers.run(abs, -1, timeout=30))
        await until(lambda: workers.waiting() == 1)
        with pytest.raises(WorkersBusy, match="1 test job is waiting"):
            await workers.run(abs, -2, timeout=30)
        held.release()
        await running
        assert await waiting == 1

    try:
        run(overfill())
    finally:
        held.release()
        workers.close()


@needs_proc
def test_closing_the_pool_kills_its_workers(tmp_path: Path) -> None:
    workers = Workers(2, "test")
    held = HeldJob(tmp_path / "held")

    async def close_while_busy() -> list[int]:
        await asyncio.gather(workers.run(abs, 0, timeout=30), workers.run(abs, 0, timeout=30))
        pids = workers.pids()
        job = asyncio.create_task(workers.run(Path.read_text, held.path, timeout=3600))
        await held.wait_started()
        workers.close()
        with pytest.raises(WorkerError):
            await job
        return pids

    try:
        pids = run(close_while_busy())
    finally:
        held.release()
    assert len(pids) == 2
    assert wait_until_gone(pids) == []


@needs_proc
def test_workers_die_with_their_parent_process(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import asyncio, pathlib, sys
        from chuhan.web.compute.workers import Workers

        async def main():
            workers = Workers(2, "orphan test")
            await asyncio.gather(workers.run(abs, 0, timeout=30), workers.run(abs, 0, timeout=30))
            print(*workers.pids(), flush=True)
            await workers.run(pathlib.Path.read_text, pathlib.Path(sys.argv[1]), timeout=900)

        if __name__ == "__main__":
            asyncio.run(main())
        """
    )
    (tmp_path / "parent.py").write_text(script, encoding="utf-8")
    held = HeldJob(tmp_path / "held")
    parent = subprocess.Popen(
        [sys.executable, str(tmp_path / "parent.py"), str(held.path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    pids: list[int] = []
    try:
        assert parent.stdout is not None
        pids = [int(pid) for pid in parent.stdout.readline().split()]
        assert len(pids) == 2
        asyncio.run(held.wait_started())  # one of them is in its job
        parent.kill()
        parent.wait(timeout=60)
        assert wait_until_gone(pids) == []
    finally:
        held.release()
        parent.kill()
        parent.wait(timeout=60)
        for pid in pids:
            if is_running(pid):
                os.kill(pid, 9)


# ---------------------------------------------------------------------- the computer's moves

#: Moves to a position out of the opening book (chuhan.book), where level 8 searches: from
#: the start it answers a book move at once.
OUT_OF_BOOK = ("a3a4", "a6a5")


def test_the_computer_opens_from_the_book_at_level_8() -> None:
    book = {move.iccs() for move, _ in Book.load().entries(Board().zobrist_hash())}
    hour = 3_600_000
    engine = ProcessCompute(workers=1, settings=Settings(computer_move_ms=(100,) * 7 + (hour,)))
    clock = SearchLimits(wtime=hour * 24, btime=hour * 24)
    try:
        # An hour a move for level 8: only the book answers it within the bound.
        request = MoveRequest("xiangqi:asian", START, (), 8, clock)
        assert run(asyncio.wait_for(engine.best_move(request), 120)) in book
    finally:
        engine.close()


def test_a_level_8_move_under_an_endless_clock_stops_at_the_level_cap() -> None:
    endless = 99999999999999999999 * 60_000
    limits = SearchLimits(wtime=endless, btime=endless, winc=5000, binc=5000)
    request = MoveRequest("xiangqi:asian", START, OUT_OF_BOOK, 8, limits)
    engine = ProcessCompute(settings=Settings(computer_move_ms=(100,) * 7 + (300,)))
    try:
        # Uncapped, the endless clock would let it think for ever: the bound is on a hang.
        move = run(asyncio.wait_for(engine.best_move(request), 120))
        assert move is not None
    finally:
        engine.close()


def test_a_level_1_move_does_not_wait_behind_two_level_8_searches() -> None:
    # Level 8 may think for an hour a move: it is still thinking when level 1 answers
    # unless level 1 waited behind it.
    hour = 3_600_000
    settings = Settings(computer_move_ms=(1000,) * 7 + (hour,))
    engine = ProcessCompute(workers=2, settings=settings)

    async def level_1_while_level_8_thinks() -> None:
        quick = MoveRequest("xiangqi:asian", START, (), 1, SearchLimits(movetime=100))
        await asyncio.gather(*(engine.best_move(quick) for _ in range(3)))  # workers started
        clock = SearchLimits(wtime=hour * 24, btime=hour * 24)
        deep_request = MoveRequest("xiangqi:asian", START, OUT_OF_BOOK, 8, clock)
        deep = [asyncio.create_task(engine.best_move(deep_request)) for _ in range(2)]
        await asyncio.sleep(0)  # each takes its worker (before any await of its own)
        await asyncio.wait_for(
            engine.best_move(
                MoveRequest("xiangqi:asian", START, ("h2e2",), 1, SearchLimits(**CLOCK))
            ),
            120,
        )
        assert not any(task.done() for task in deep)
        for task in deep:
            task.cancel()
        await asyncio.gather(*deep, return_exceptions=True)

    try:
        run(level_1_while_level_8_thinks())
    finally:
        engine.close()


def test_computer_moves_beyond_the_waiting_bound_are_refused_at_once() -> None:
    settings = Settings(computer_max_waiting=1, computer_move_ms=(100,) * 7 + (600,))
    engine = ProcessCompute(workers=1, settings=settings)
    deep = MoveRequest("xiangqi:asian", START, OUT_OF_BOOK, 8, SearchLimits(**CLOCK))

    async def overfill() -> None:
        # Each task takes its worker, or its place in the queue, before any await of its
        # own: one turn of the event loop orders them, not a sleep.
        thinking = asyncio.create_task(engine.best_move(deep))
        await asyncio.sleep(0)
        waiting = asyncio.create_task(engine.best_move(deep))
        await asyncio.sleep(0)
        with pytest.raises(WorkersBusy, match="computer move"):
            await engine.best_move(deep)
        assert await engine.best_move(
            MoveRequest("xiangqi:asian", START, (), 1, SearchLimits(**CLOCK))
        )
        assert await thinking and await waiting

    try:
        run(overfill())
    finally:
        engine.close()


def test_the_time_a_move_waited_for_a_worker_is_charged_to_the_computers_clock() -> None:
    request = MoveRequest(
        "xiangqi:asian", START, ("h2e2",), 8, SearchLimits(**CLOCK, movetime=4000)
    )
    limits = limits_for(request, turn=False, waited_ms=1500)
    assert (limits.wtime, limits.btime) == (600_000, 598_500)
    assert limits.movetime == 4000


class StuckEngine(FakeEngine):
    """A workers whose worker never answers: it is killed at its deadline."""

    async def best_move(self, request: MoveRequest) -> str | None:
        raise WorkerTimeout("the computer move worker did not answer within 7 s")


@pytest.fixture
def engine() -> FakeEngine:
    return StuckEngine()


def test_a_computer_whose_worker_is_killed_reports_engine_failed(client: TestClient) -> None:
    game = create_game(client, kind="computer", level=8, color="second", time_control="10+5")
    human = Player(client, game["game_id"], game["token"])
    human.hello()
    error = expect_error(human, "engine_failed")
    assert "did not answer within 7 s" in error["message"]
