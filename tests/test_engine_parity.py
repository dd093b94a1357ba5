"""python-chess's Score / PovScore API (mate(), is_mate(), white(), ordering, Cp / Mate)
and the streaming analysis() context manager of SimpleEngine and AsyncEngine, with a limit or
open-ended (issue 27)."""

from __future__ import annotations

import asyncio
import pickle
import sys
import time
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
    SimpleAnalysisResult,
    SimpleEngine,
    popen_uci,
)

FAKE = [sys.executable, str(Path(__file__).parent / "fake_engine.py")]
#: chuhan's own engine, which holds its answer to "go infinite" until it is told to stop.
OWN = [sys.executable, "-m", "chuhan", "engine"]


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
        Cp(1).cp = 2


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


def _still_running(analysis: SimpleAnalysisResult) -> bool:
    """Read what the engine has said so far; True if the search has not ended (raises
    AnalysisComplete, failing the test, if it has)."""
    while not analysis.would_block():
        analysis.get()
    return True


@pytest.mark.parametrize("protocol", ["uci", "ucci"])
def test_analysis_without_a_limit_runs_until_it_is_stopped(protocol: str) -> None:
    popen = SimpleEngine.popen_uci if protocol == "uci" else SimpleEngine.popen_ucci
    with popen(OWN) as engine:
        board = Board()
        with engine.analysis(board) as analysis:
            depths = []
            for info in analysis:
                depths.append(info.get("depth", 0))
                if depths[-1] >= 3:
                    break
            # A search to depth 3 would be over long before this: this one goes on.
            time.sleep(1.0)
            assert _still_running(analysis)
        final = analysis.wait()
        assert depths[0] == 1 and max(depths) >= 3
        assert final and final[0]["pv"] and final[0]["pv"][0] in board.legal_moves
        assert analysis.info["depth"] >= 3 and "score" in analysis.info
        # The engine answered the stop and takes the next command.
        assert engine.analyse(board, Limit(depth=1))["depth"] == 1


def test_analysis_without_a_limit_ends_at_its_timeout_or_at_stop() -> None:
    with SimpleEngine.popen_uci(OWN) as engine:
        started = time.monotonic()
        analysis = engine.analysis(Board(), timeout=0.5)
        lines = analysis.wait()
        assert 0.5 <= time.monotonic() - started < 30 and lines[0]["pv"]
        analysis = engine.analysis(Board(), multipv=2)
        assert next(analysis)
        analysis.stop()
        assert len(analysis.wait()) == 2 and len(analysis.multipv) == 2


def test_async_analysis_without_a_limit_runs_until_it_is_stopped() -> None:
    async def run() -> tuple[list[int], bool, int, int]:
        async with await popen_uci(OWN) as engine:
            board = Board()
            with await engine.analysis(board) as analysis:
                depths = []
                async for info in analysis:
                    depths.append(info.get("depth", 0))
                    if depths[-1] >= 3:
                        break
                await asyncio.sleep(1.0)
                while not analysis.would_block():
                    await analysis.get()  # AnalysisComplete here: it ended by itself
                running = analysis.would_block()
            final = await analysis.wait()
            again = await engine.analyse(board, Limit(depth=1))
            return depths, running, len(final[0]["pv"]), again["depth"]

    depths, running, pv, depth = asyncio.run(run())
    assert max(depths) >= 3 and running and pv > 0 and depth == 1


@pytest.mark.parametrize("flags", [[], ["--ucci"]])
def test_analysis_without_a_limit_sends_go_infinite(flags: list[str], tmp_path: Path) -> None:
    """UCI's "go infinite", and the same words to a UCCI engine (see _go_command); with
    banned moves, UCI's searchmoves after it."""
    log = tmp_path / "log.txt"
    popen = SimpleEngine.popen_ucci if flags else SimpleEngine.popen_uci
    board = Board()
    banned = [board.parse_iccs("h2e2")]
    with popen([*FAKE, *flags, "--log", str(log)]) as engine:
        with engine.analysis(board, ban_moves=banned) as analysis:
            pass
        analysis.wait()
    go = [line for line in log.read_text().splitlines() if line.startswith("go")]
    if flags:
        assert go == ["go infinite"]
    else:
        assert len(go) == 1 and go[0].startswith("go infinite searchmoves ")
        assert "h2e2" not in go[0] and len(go[0].split()) == 3 + len(board.legal_moves) - 1
