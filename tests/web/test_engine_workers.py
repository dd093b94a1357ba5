"""The web app's engine in worker processes: computer moves and analyses run in separate
sets of workers (an analysis never makes a computer player wait), and analyses are capped."""

from __future__ import annotations

import asyncio

import pytest

import chuhan
from chuhan._native import COMPILED_MODULES, modules_in_use
from chuhan.search.limits import SearchLimits
from chuhan.variants import XIANGQI_START_FEN as START
from chuhan.web.compute.service import (
    AnalysisRequest,
    MoveRequest,
    ProcessCompute,
    WorkersBusy,
    choose_move,
)
from chuhan.web.compute.workers import Workers


def test_the_computer_searches_with_the_build_the_server_runs() -> None:
    """A worker process that has just chosen a computer move (the job ProcessCompute gives its
    workers) ran the same build as this process: the compiled engine where it is built."""
    workers = Workers(1, "computer move")
    request = MoveRequest("janggi:official", chuhan.JANGGI_START_FEN, (), 8, SearchLimits(depth=3))

    async def run() -> tuple[str | None, dict[str, str]]:
        best = await workers.run(choose_move, request, timeout=60)
        return best, await workers.run(modules_in_use, COMPILED_MODULES, timeout=60)

    try:
        best, in_use = asyncio.run(run())
    finally:
        workers.close()
    assert best is not None
    build = "compiled" if chuhan.BUILD.compiled else "source"
    # The search's modules were all loaded, each of the build this process runs (a worker
    # imports its job's modules only: not the web server's JSON texts, jsontext).
    assert {"movegen", "board", "search.tree", "search.evaluate"} <= in_use.keys()
    assert set(in_use.values()) == {build}


HOUR_MS = 3_600_000


def test_a_computer_move_does_not_wait_behind_analyses() -> None:
    engine = ProcessCompute(workers=1)

    async def run() -> list[str]:
        finished: list[str] = []

        async def analyse() -> None:
            # An analysis of an hour: the move cannot come after it by its being quick.
            lines = await engine.analyse(
                AnalysisRequest("xiangqi:asian", START, (), SearchLimits(movetime=HOUR_MS), 1)
            )
            assert lines and lines[0]["pv"]["iccs"]
            finished.append("analysis")

        async def move() -> None:
            best = await engine.best_move(
                MoveRequest("xiangqi:asian", START, ("h2e2",), 1, SearchLimits(movetime=100))
            )
            assert best is not None
            finished.append("move")

        analysis = asyncio.create_task(analyse())
        await asyncio.sleep(0)  # it takes the analysis worker before any await of its own
        await asyncio.wait_for(move(), 120)  # a bound on a hang only
        analysis.cancel()
        await asyncio.gather(analysis, return_exceptions=True)
        return finished

    try:
        assert asyncio.run(run()) == ["move"]  # while the analysis still ran
    finally:
        engine.close()


def test_analyses_beyond_the_cap_are_refused_at_once() -> None:
    engine = ProcessCompute(workers=1)
    request = AnalysisRequest("xiangqi:asian", START, (), SearchLimits(movetime=500), 1)

    async def run() -> None:
        running = [
            asyncio.create_task(engine.analyse(request)) for _ in range(ProcessCompute.MAX_ANALYSES)
        ]
        await asyncio.sleep(0)  # they are all accepted
        with pytest.raises(WorkersBusy, match="busy with 4 other analyses"):
            await engine.analyse(request)
        for lines in await asyncio.gather(*running):
            assert lines
        assert await engine.analyse(request)  # room again once they are done

    try:
        asyncio.run(run())
    finally:
        engine.close()
