"""Self-play of the engine under every rule set (bench/selfplay.py): every move legal,
every game ended by the referee."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from chuhan.game import Game
from chuhan.search.evaluate import XIANGQI_WEIGHTS, EvalWeights
from chuhan.search.limits import SearchLimits, SearchResult
from chuhan.search.search import Searcher
from chuhan.squares import Move
from chuhan.variants import VARIANTS

BENCH = Path(__file__).parent.parent / "bench"


def _load(name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


sp = _load("selfplay")

# Positions a few dozen plies from an ending, one per rule set: the referee ends each game
# (mate, stalemate, bikjang, a double pass or repetition) well inside the ply cap.
NEAR_END = {
    "xiangqi:asian": "3k5/4a4/9/9/9/9/9/9/4R4/3K5 w - - 0 1",
    "xiangqi:chinese": "3k5/4a4/9/9/9/9/9/9/4R4/3K5 w - - 0 1",
    "janggi:official": "3k5/4a4/9/9/9/9/9/9/4R4/3K5 w - - 0 1",
    "janggi:traditional": "3k5/4a4/9/9/9/9/9/9/4R4/3K5 w - - 0 1",
    "janggi:modern": "3k5/4a4/9/9/9/9/9/9/4R4/3K5 w - - 0 1",
    "janggi:classic": "4k4/4a4/9/9/9/9/9/9/9/R2K4R w - - 0 1",
}


def _replay(report: object) -> Game:
    """The game replayed from its start through the referee."""
    game = Game.new(report.variant, fen=report.start_fen)  # type: ignore[attr-defined]
    for text in report.moves:  # type: ignore[attr-defined]
        game.play(text)
    return game


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_game_ends_by_the_referee(variant: str) -> None:
    spec = sp.GameSpec(
        index=0,
        variant=variant,
        a_first=True,
        seed=5,
        random_plies=2,
        fen=NEAR_END[variant],
        max_plies=400,
    )
    report = sp.play_game(spec, sp.Player(depth=1), sp.Player(depth=1))
    assert report.error is None, report.error
    assert report.result in ("1-0", "0-1", "1/2-1/2")
    assert report.plies == len(report.moves) > 0
    # The recorded moves replay legally, and the referee gives the same verdict.
    outcome = _replay(report).outcome()
    assert outcome is not None
    assert outcome.result() == report.result
    assert outcome.termination.value == report.termination


def test_openings_pairs_and_janggi_arrangements() -> None:
    specs = sp.schedule(8, ["xiangqi:asian", "janggi:official"], seed=3, random_plies=6)
    assert [s.variant for s in specs] == ["xiangqi:asian"] * 2 + ["janggi:official"] * 2 + [
        "xiangqi:asian"
    ] * 2 + ["janggi:official"] * 2
    assert [s.a_first for s in specs] == [True, False] * 4
    from chuhan.variants import get_variant

    games = [sp.opening(get_variant(s.variant), s) for s in specs]
    # Both games of a pair start alike; the pairs differ.
    assert games[0].board.fen() == games[1].board.fen()
    assert games[2].board.fen() == games[3].board.fen()
    assert games[0].board.fen() != games[4].board.fen()
    assert all(g.board.ply == 6 for g in games)
    # Janggi openings start from a chosen arrangement (Han first, then Cho).
    assert set(games[2].setup) == {"han", "cho"}
    arrangements = {(g.setup["han"], g.setup["cho"]) for g in games if g.setup}
    assert len(arrangements) >= 1
    unpaired = sp.schedule(4, ["xiangqi:asian"], seed=3, random_plies=6, paired=False)
    assert len({s.seed for s in unpaired}) == 4


def test_a_move_the_referee_refuses_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def illegal(self: Searcher, board: object, limits: SearchLimits, **kw: object) -> SearchResult:
        return SearchResult(best=Move.from_iccs("a0a9"))

    monkeypatch.setattr(Searcher, "search", illegal)
    spec = sp.GameSpec(index=0, variant="xiangqi:asian", a_first=True, seed=1)
    report = sp.play_game(spec, sp.Player(depth=1), sp.Player(depth=1))
    assert report.error is not None and "illegal move a0a9" in report.error
    assert sp.summary([report], 1.0)["errors"] == 1


def test_no_move_while_the_game_goes_on_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Searcher, "search", lambda self, board, limits, **kw: SearchResult(None))
    spec = sp.GameSpec(index=0, variant="janggi:modern", a_first=False, seed=1)
    report = sp.play_game(spec, sp.Player(depth=1), sp.Player(depth=1))
    assert report.error is not None and "no move" in report.error


def test_weights_reach_the_search() -> None:
    from chuhan.board import Board

    # Black has no chariot on a9: the chariot's value decides the score.
    board = Board("1nbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1")
    plain = Searcher().search(board, SearchLimits(depth=1)).lines[0].score_cp
    rich = EvalWeights(
        material=(0, 0, 200, 200, 420, 1900, 450, 100), pawn_crossed=XIANGQI_WEIGHTS.pawn_crossed
    )
    with sp._weights(rich):
        heavy = Searcher().search(board, SearchLimits(depth=1)).lines[0].score_cp
    after = Searcher().search(board, SearchLimits(depth=1)).lines[0].score_cp
    assert plain is not None and heavy is not None
    assert 800 <= heavy - plain <= 1200
    assert after == plain


def test_record_and_elo(tmp_path: Path) -> None:
    spec = sp.GameSpec(
        index=0,
        variant="janggi:classic",
        a_first=True,
        seed=2,
        fen=NEAR_END["janggi:classic"],
        sample_every=1,
    )
    report = sp.play_game(spec, sp.Player(depth=1), sp.Player(depth=1))
    assert report.error is None and report.result == "1-0"
    assert len(report.samples) == report.plies
    for sample in report.samples:
        cho_to_move = sample["fen"].split()[1] == "w"
        assert sample["result"] == (1.0 if cho_to_move else 0.0)
        assert sample["variant"] == "janggi:classic"
    assert sp.elo_with_error([1.0, 0.0] * 10)[:2] == (0.5, 0.0)
    score, elo, error = sp.elo_with_error([1.0, 1.0, 0.5, 0.0] * 10)
    assert score == 0.625 and round(elo) == 89 and 0 < error < 200
    # A clean sweep has no normal-approximation error, but a finite Wilson interval.
    assert sp.elo_with_error([1.0] * 20)[2] == float("inf")
    low, high = sp.elo_interval([1.0] * 19 + [0.0])
    assert 150 < low < 250 and 700 < high < 900
    weights = tmp_path / "w.json"
    weights.write_text(json.dumps({"xiangqi": {"material": [0, 0, 1, 2, 3, 4, 5, 6]}}))
    assert sp.load_weights(str(weights))["xiangqi"].material == (0, 0, 1, 2, 3, 4, 5, 6)


@pytest.mark.slow
def test_sixty_games_every_rule_set() -> None:
    specs = sp.schedule(60, list(VARIANTS), seed=11, random_plies=6, paired=False)
    reports = sp.run(specs, sp.Player(depth=1), sp.Player(depth=1), jobs=2)
    summary = sp.summary(reports, 0.0)
    assert summary["errors"] == 0, summary["error_games"]
    assert sum(sum(c.values()) for c in summary["results"].values()) == 60
    assert set(summary["results"]) == set(VARIANTS)
