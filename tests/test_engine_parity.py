"""python-chess's Score / PovScore API (mate(), is_mate(), white(), ordering, Cp / Mate)
and the streaming analysis() context manager of SimpleEngine (issue 27)."""

from __future__ import annotations

import asyncio
import pickle
import sys
from pathlib import Path

import pytest

from chuhan import Board
from chuhan.engine import (
    AnalysisComplete,
    Cp,
    Limit,
    Mate,
    PovScore,
    Score,
    SimpleEngine,
    popen_uci,
)

FAKE = [sys.executable, str(Path(__file__).parent / "fake_engine.py")]


def test_score_methods() -> None:
    assert Mate(3).mate() == 3 and Mate(3).is_mate() and Mate(-1).mate() == -1
    assert Cp(35).mate() is None and not Cp(35).is_mate() and Cp(35).score() == 35
    assert Cp(35) == Score(cp=35) and Mate(2) == Score(mate=2) and Cp(1) != Mate(1)
    assert Mate(2).score() is None and Mate(-2).score(mate_score=1000) == -998
    assert -Cp(35) == Cp(-35) and -Mate(3) == Mate(-3) and abs(Cp(-5)) == Cp(5)
    assert str(Mate(3)) == "#+3" and str(Cp(-20)) == "-20"
    assert hash(Cp(3)) == hash(Score(cp=3))
    assert pickle.loads(pickle.dumps(Mate(-4))) == Mate(-4)
    with pytest.raises(AttributeError):
        Cp(1).cp = 2  # type: ignore[misc]


def test_score_ordering_is_python_chess_s() -> None:
    ranked = [Mate(-1), Mate(-5), Mate(0), Cp(-300), Cp(0), Cp(300), Mate(7), Mate(1)]
    ranked_python_chess = [Mate(0), Mate(-1), Mate(-5), Cp(-300), Cp(0), Cp(300), Mate(7), Mate(1)]
    assert sorted(ranked) == ranked_python_chess
    assert max(Cp(10_000), Mate(30)) == Mate(30)


def test_pov_score_white_and_black_are_the_first_and_second_mover() -> None:
    score = PovScore(Mate(3), turn=False)
    assert score.white() == score.first() == Mate(-3)
    assert score.black() == score.second() == Mate(3)
    assert score.pov(False) == Mate(3) and score.is_mate()
    assert not PovScore(Cp(10), True).is_mate()


def test_analysis_streams_infos_and_stops_on_exit() -> None:
    board = Board()
    with SimpleEngine.popen_uci(FAKE) as engine:
        with engine.analysis(board, Limit(depth=3), multipv=2) as analysis:
            infos = list(analysis)
        assert infos and all("score" in info for info in infos)
        assert {info["multipv"] for info in infos} == {1, 2}
        assert analysis.info["multipv"] == 1 and analysis.info["depth"] == 3
        assert len(analysis.multipv) == 2
        assert isinstance(analysis.info["score"].white(), Score)
        final = analysis.wait()
        assert [info["multipv"] for info in final] == [1, 2]
        assert analysis.empty() and not analysis.would_block()
        with pytest.raises(AnalysisComplete):
            analysis.get()
        # The engine takes commands again once the analysis is over.
        assert engine.play(board, Limit(depth=1)).move is not None


def test_analysis_leaving_early_stops_the_search() -> None:
    with SimpleEngine.popen_uci(FAKE) as engine:
        with engine.analysis(Board(), Limit(depth=2)) as analysis:
            first = next(iter(analysis))
        assert "score" in first
        assert analysis.wait()
        assert engine.analyse(Board(), Limit(depth=1))["depth"] == 1


def test_async_analysis_streams_infos() -> None:
    async def run() -> tuple[list[int], int, int, int]:
        async with await popen_uci(FAKE) as engine:
            board = Board()
            with await engine.analysis(board, Limit(depth=3), multipv=2) as analysis:
                seen = [info["multipv"] async for info in analysis]
            final = await analysis.wait()
            assert analysis.empty() and not analysis.would_block()
            with pytest.raises(AnalysisComplete):
                await analysis.get()
            # Stopped early, then the engine takes the next command.
            with await engine.analysis(board, Limit(depth=2)) as early:
                first = await early.get()
            await early.wait()
            again = await engine.analyse(board, Limit(depth=1))
            return seen, len(final), first["multipv"], again["depth"]

    seen, final, first, depth = asyncio.run(run())
    assert set(seen) == {1, 2} and final == 2 and first == 1 and depth == 1
