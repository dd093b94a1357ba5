"""The analysis board's engine, as the server runs it (``ProcessCompute`` on the analysis
worker): the depth reached over time in the start position (one line and three), and the
time a whole-game review takes (every position of a 63-ply game at the review's node budget).

    PYTHONPATH=src python bench/analysis.py [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from chuhan.search.limits import SearchLimits
from chuhan.variants import XIANGQI_START_FEN
from chuhan.web.compute.service import AnalysisRequest, ProcessCompute
from chuhan.web.settings import Settings

#: A game of chuhan's engine (Red) against random moves, mate on ply 63 (tests/web).
_GAME_TEXT = (
    "b0c2 h7d7 h2g2 b7b5 g2g6 d7d8 g6c6 h9i7 c6i6 b5f5 i6i9 f5d5 h0g2 b9c7 a0a1 d5b5 a1d1 "
    "i7h5 d1d8 a6a5 g3g4 b5c5 g4g5 c7b9 g5h5 c5c6 c2e1 c6d6 d8d6 e6e5 i9f9 b9c7 b2c2 c9e7 "
    "d6f6 c7e8 c2e2 e7c5 f6f8 c5e7 e2e5 a9a7 f9d9 a7a6 d9g9 a5a4 f8e8 e9f9 e8e9 f9f8 a3a4 "
    "a6c6 e9e7 c6c8 a4a5 c8c3 e5e6 c3c6 g2f4 c6d6 g9g3 d6a6 g3f3"
)
GAME = _GAME_TEXT.split()


async def stream(compute: ProcessCompute, multipv: int, seconds: float) -> None:
    start = time.monotonic()
    seen: list[str] = []

    def reported(data: dict[str, Any]) -> None:
        seen.append(f"d{data['depth']}@{time.monotonic() - start:.1f}s")

    limits = SearchLimits(movetime=round(seconds * 1000))
    request = AnalysisRequest("xiangqi:asian", XIANGQI_START_FEN, (), limits, multipv)
    answer = await compute.analysis_stream(request, reported, order=0).result()
    rate = answer["nodes"] * 1000 // max(1, answer["time_ms"])
    print(f"multipv {multipv}: {' '.join(seen)}  ({answer['nodes']:,} nodes, {rate:,} nodes/s)")


async def review(compute: ProcessCompute, settings: Settings, *, mate_search: bool) -> None:
    nodes = settings.review_nodes
    start = time.monotonic()
    for ply in range(len(GAME) + 1):
        request = AnalysisRequest(
            "xiangqi:asian",
            XIANGQI_START_FEN,
            tuple(GAME[:ply]),
            SearchLimits(nodes=nodes),
            1,
            mate_moves=settings.review_mate_moves if mate_search else 0,
            mate_nodes=settings.review_mate_nodes if mate_search else 0,
        )
        await compute.evaluate(request, order=time.monotonic())
    took = time.monotonic() - start
    mate = f" + a mate search of {settings.review_mate_nodes:,}" if mate_search else ""
    print(f"review: {len(GAME) + 1} positions at {nodes:,} nodes{mate} in {took:.1f} s")


async def main(seconds: float) -> None:
    compute = ProcessCompute(workers=1)
    try:
        await stream(compute, 1, 1.0)  # the worker starts
        await stream(compute, 1, seconds)
        await stream(compute, 3, seconds)
        await review(compute, Settings(), mate_search=False)
        await review(compute, Settings(), mate_search=True)  # as the server reviews
    finally:
        compute.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    asyncio.run(main(parser.parse_args().seconds))
