"""Streaming jobs on the workers (:meth:`chuhan.web.compute.workers.Workers.stream`), as the
analysis board uses them (:meth:`chuhan.web.compute.service.ProcessCompute.analysis_stream`):
reports arrive as the search deepens, a stop ends the search at once and keeps its worker, a
stream stopped while it waits leaves the queue, and waiting streams are served first come,
first served."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from chuhan.search.limits import SearchLimits
from chuhan.variants import XIANGQI_START_FEN as START
from chuhan.web.compute.service import AnalysisRequest, ProcessCompute

#: A search that would outlast any test: only a stop ends it.
HOUR = 3600


async def until(condition: Callable[[], bool], seconds: float = 60) -> None:
    """Poll until ``condition`` holds (a bound on a hang only)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the state was never reached"
        await asyncio.sleep(0.01)


def request(seconds: float, moves: tuple[str, ...] = ()) -> AnalysisRequest:
    limits = SearchLimits(movetime=round(seconds * 1000))
    return AnalysisRequest("xiangqi:asian", START, moves, limits, 2)


def test_a_stopped_stream_answers_at_once_with_its_lines_and_keeps_its_worker() -> None:
    compute = ProcessCompute(workers=1)

    async def run() -> tuple[list[int], dict[str, Any], float, list[int], list[int]]:
        depths: list[int] = []
        stream = compute.analysis_stream(
            request(HOUR), lambda data: depths.append(data["depth"]), order=0
        )
        while len(depths) < 4:
            await asyncio.sleep(0.05)
        workers = compute._analysis.pids()
        asked = time.monotonic()
        stream.stop()
        answer = await stream.result()
        took = time.monotonic() - asked
        return depths, answer, took, workers, compute._analysis.pids()

    try:
        depths, answer, took, before, after = asyncio.run(run())
    finally:
        compute.close()
    assert depths[:4] == [1, 2, 3, 4]
    assert answer["depth"] >= 4 and len(answer["lines"]) == 2
    assert took < 1800  # at once: not at the end of its hour (a bound on a hang only)
    assert before == after  # the same process, warm for the next analysis: it answered
    # within the stop's grace, else it would have been killed


def test_a_stream_stopped_while_it_waits_leaves_the_queue() -> None:
    compute = ProcessCompute(workers=1)

    async def run() -> tuple[Any, int, int]:
        running = compute.analysis_stream(request(HOUR), lambda data: None, order=0)
        while running.running_since is None:
            await asyncio.sleep(0.05)
        waiting = compute.analysis_stream(request(3, ("h2e2",)), lambda data: None, order=1)
        await until(lambda: compute.analysis_waiting() == 1)
        queued = compute.analysis_waiting()
        waiting.stop()
        answer = await waiting.result()
        left = compute.analysis_waiting()
        running.stop()
        await running.result()
        return answer, queued, left

    try:
        answer, queued, left = asyncio.run(run())
    finally:
        compute.close()
    assert (answer, queued, left) == (None, 1, 0)


def test_waiting_streams_are_served_first_come_first_served() -> None:
    compute = ProcessCompute(workers=1)

    async def run() -> str:
        first = compute.analysis_stream(request(HOUR), lambda data: None, order=0)
        while first.running_since is None:
            await asyncio.sleep(0.05)
        # The later one asks for less time: earliest deadline first would take it first.
        early = compute.analysis_stream(request(5, ("h2e2",)), lambda data: None, order=1)
        late = compute.analysis_stream(request(0.3, ("b0c2",)), lambda data: None, order=2)
        await until(lambda: compute.analysis_waiting() == 2)
        first.stop()
        await first.result()
        while early.running_since is None and late.running_since is None:
            await asyncio.sleep(0.01)
        served = "early" if early.running_since is not None else "late"
        for stream in (early, late):
            stream.stop()
            await stream.result()
        return served

    try:
        assert asyncio.run(run()) == "early"
    finally:
        compute.close()
