"""The web app's engine in worker processes: computer moves and analyses run in separate
pools (an analysis never makes a computer player wait), and analyses are capped."""

from __future__ import annotations

import asyncio

import pytest

from chuhan.search.limits import SearchLimits
from chuhan.variants import XIANGQI_START_FEN as START
from chuhan.web.pool import AnalysisRequest, MoveRequest, PoolBusy, ProcessPool


def test_a_computer_move_does_not_wait_behind_analyses() -> None:
    engine = ProcessPool(workers=1)

    async def run() -> list[str]:
        finished: list[str] = []

        async def analyse() -> None:
            lines = await engine.analyse(
                AnalysisRequest("xiangqi:asian", START, (), SearchLimits(movetime=3000), 1)
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
        await asyncio.sleep(0.2)  # the analysis has the analysis worker
        await move()
        await analysis
        return finished

    try:
        assert asyncio.run(run()) == ["move", "analysis"]
    finally:
        engine.close()


def test_analyses_beyond_the_cap_are_refused_at_once() -> None:
    engine = ProcessPool(workers=1)
    request = AnalysisRequest("xiangqi:asian", START, (), SearchLimits(movetime=500), 1)

    async def run() -> None:
        running = [
            asyncio.create_task(engine.analyse(request)) for _ in range(ProcessPool.MAX_ANALYSES)
        ]
        await asyncio.sleep(0)  # they are all accepted
        with pytest.raises(PoolBusy, match="busy with 4 other analyses"):
            await engine.analyse(request)
        for lines in await asyncio.gather(*running):
            assert lines
        assert await engine.analyse(request)  # room again once they are done

    try:
        asyncio.run(run())
    finally:
        engine.close()
