"""tools/texel.py, the texel tuning of the evaluation: its model is the evaluation (xiangqi's
and janggi's), its fit finds a known scale and known weights on data made from them, its
output is what the evaluation reads, its positions are quiet and labelled from the first
mover's view, and janggi's self-play source (tools/selfplay_games.py) plays the same games
for a seed."""

from __future__ import annotations

import importlib.util
import random
import runpy
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

from chuhan.board import Board
from chuhan.search.evaluate import (
    JANGGI_WEIGHTS,
    XIANGQI_WEIGHTS,
    EvalWeights,
    evaluate_with,
    evaluator_for,
)
from chuhan.variants import JANGGI_ARRANGEMENTS, janggi_start_fen

ROOT = Path(__file__).resolve().parent.parent


def _load() -> ModuleType:
    """``tools/texel.py`` as a module (it imports ``tools/tune.py`` beside it, as it does
    when run as a script)."""
    if str(ROOT / "tools") not in sys.path:
        sys.path.insert(0, str(ROOT / "tools"))
    spec = importlib.util.spec_from_file_location("texel", ROOT / "tools" / "texel.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("texel", module)
    spec.loader.exec_module(module)
    return module


texel = _load()
selfplay = sys.modules["selfplay_games"]
#: The scale of the synthetic data's logistic.
K_TRUE = 0.004
#: The weights the fits start from: the evaluation of the rules of thumb (so that the
#: tests do not move with the weights the engine plays with).
BASE = texel.RULES_OF_THUMB


def _random_positions(
    count: int, seed: int, start: Callable[[random.Random], Board], plies: int
) -> list[Board]:
    """Positions of random games from ``start``'s boards, 8 to ``plies`` plies in (in
    janggi, a pass now and then)."""
    rng = random.Random(seed)
    boards: list[Board] = []
    while len(boards) < count:
        board = start(rng)
        for _ in range(rng.randrange(8, plies)):
            moves = board.legal_move_codes()
            if not moves:
                break
            board.push_code(rng.choice(moves))
        if board.legal_move_codes():
            boards.append(Board(board.fen(), variant=board.variant.game))
    return boards


def _janggi_start(rng: random.Random) -> Board:
    """A janggi start from random arrangements of both sides."""
    fen = janggi_start_fen(rng.choice(JANGGI_ARRANGEMENTS), rng.choice(JANGGI_ARRANGEMENTS))
    return Board(fen, variant="janggi")


BOARDS = _random_positions(240, 7, lambda _: Board(), 60)
JANGGI_BOARDS = _random_positions(160, 8, _janggi_start, 80)


def _labelled(truth: object) -> list:  # type: ignore[type-arg]
    """Samples whose score is the logistic of ``truth``'s evaluation (soft labels)."""
    samples = [texel.sample_of(board, 0.0, BASE) for board in BOARDS]
    evals = texel.scores(samples, truth)
    return [
        replace(s, score=texel.sigmoid(K_TRUE * e)) for s, e in zip(samples, evals, strict=True)
    ]


def _more_chariot(w: object, extra: float) -> object:
    rook = range(4 * texel.HALF, 5 * texel.HALF)
    squares = tuple(v + extra if i in rook else v for i, v in enumerate(w.squares))  # type: ignore[attr-defined]
    return texel.Vector(squares, w.dense)  # type: ignore[attr-defined]


def _mean_chariot(w: object) -> float:
    """The chariots' value, the mean over the squares as often as chariots stand there."""
    counts = texel.square_counts(texel.sample_of(board, 0.0, BASE) for board in BOARDS)
    rook = range(4 * texel.HALF, 5 * texel.HALF)
    total = sum(w.squares[i] * counts[i] for i in rook)  # type: ignore[attr-defined]
    return float(total / sum(counts[i] for i in rook))


@pytest.mark.parametrize("weights", [BASE, XIANGQI_WEIGHTS], ids=["rules of thumb", "engine's"])
def test_the_model_is_the_evaluation_from_reds_side(weights: EvalWeights) -> None:
    ev = evaluator_for("xiangqi", weights)
    current = texel.Vector.of(weights)
    for board in BOARDS:
        model = texel.scores([texel.sample_of(board, 0.0, weights)], current)[0]
        score = evaluate_with(ev, board.placement, board.turn)
        assert abs(model - (score if board.turn else -score)) <= 2, board.fen()


@pytest.mark.parametrize(
    "weights", [texel.JANGGI_RULES_OF_THUMB, JANGGI_WEIGHTS], ids=["rules of thumb", "engine's"]
)
def test_the_janggi_model_is_the_evaluation_from_chos_side(weights: EvalWeights) -> None:
    ev = evaluator_for("janggi", weights)
    current = texel.Vector.of(weights, "janggi")
    for board in JANGGI_BOARDS:
        model = texel.scores([texel.sample_of(board, 0.0, weights)], current)[0]
        score = evaluate_with(ev, board.placement, board.turn)
        assert abs(model - (score if board.turn else -score)) <= 2, board.fen()


def test_hans_bonus_is_added_as_it_is_not_fitted() -> None:
    weights = texel.JANGGI_RULES_OF_THUMB
    sample = texel.sample_of(JANGGI_BOARDS[0], 0.0, weights)
    assert sample.fixed == -weights.second_player_bonus
    assert len(sample.dense) == len(texel.DENSE)


def test_k_is_found_on_data_made_with_a_known_k() -> None:
    current = texel.Vector.of(BASE)
    k = texel.fit_k(_labelled(current), current)
    assert k == pytest.approx(K_TRUE, rel=0.01)


def test_the_fit_lowers_the_error_towards_known_weights() -> None:
    current = texel.Vector.of(BASE)
    truth = _more_chariot(current, 150.0)
    samples = _labelled(truth)
    k = texel.fit_k(samples, current)
    before = texel.mean_squared_error(samples, current, k)
    fitted = texel.fit(samples, current, k, iterations=120, rate=2.0, ridge=0.0, log=False)
    after = texel.mean_squared_error(samples, fitted, k)
    assert after < before / 4
    # The chariots' values rose towards the truth's (a quarter of the way at least: in
    # few of these positions do the sides' chariots differ).
    assert _mean_chariot(fitted) - _mean_chariot(current) > 150 / 4


def test_the_ridge_keeps_the_weights_nearer_the_start() -> None:
    current = texel.Vector.of(BASE)
    samples = _labelled(_more_chariot(current, 150.0))
    free = texel.fit(samples, current, K_TRUE, iterations=60, rate=2.0, ridge=0.0, log=False)
    held = texel.fit(samples, current, K_TRUE, iterations=60, rate=2.0, ridge=1.0, log=False)
    assert _mean_chariot(held) < _mean_chariot(free)


def test_the_written_module_gives_the_fitted_evaluation(tmp_path: Path) -> None:
    current = texel.Vector.of(BASE)
    samples = _labelled(_more_chariot(current, 150.0))
    fitted = texel.fit(samples, current, K_TRUE, iterations=30, rate=2.0, ridge=0.0, log=False)
    weights = fitted.weights(texel.square_counts(samples), BASE)
    path = tmp_path / "texel_xiangqi.py"
    path.write_text(texel.module_text(weights, ["a test"]), encoding="utf-8")
    read = runpy.run_path(str(path))
    assert read["MATERIAL"] == weights.material
    assert read["TABLES"] == weights.tables
    # Rounded to whole units, the evaluator's values are the fitted ones.
    again = texel.Vector.of(weights)
    for i, (a, b) in enumerate(zip(again.squares, fitted.squares, strict=True)):
        assert abs(a - b) <= 0.5, i
    ev = evaluator_for("xiangqi", weights)
    for board in BOARDS[:40]:
        model = texel.scores([texel.sample_of(board, 0.0, weights)], again)[0]
        score = evaluate_with(ev, board.placement, board.turn)
        assert abs(model - (score if board.turn else -score)) <= 2


def test_the_written_janggi_module_gives_the_fitted_evaluation(tmp_path: Path) -> None:
    base = texel.JANGGI_RULES_OF_THUMB
    current = texel.Vector.of(base, "janggi")
    samples = [texel.sample_of(board, 0.0, base) for board in JANGGI_BOARDS]
    truth = _more_chariot(current, 150.0)
    evals = texel.scores(samples, truth)
    samples = [
        replace(s, score=texel.sigmoid(K_TRUE * e)) for s, e in zip(samples, evals, strict=True)
    ]
    fitted = texel.fit(samples, current, K_TRUE, iterations=30, rate=2.0, ridge=0.0, log=False)
    weights = fitted.weights(texel.square_counts(samples), base)
    path = tmp_path / "texel_janggi.py"
    path.write_text(texel.module_text(weights, ["a test"], "janggi"), encoding="utf-8")
    read = runpy.run_path(str(path))
    assert read["TABLES"] == weights.tables
    assert read["SECOND_PLAYER_BONUS"] == base.second_player_bonus
    again = texel.Vector.of(weights, "janggi")
    ev = evaluator_for("janggi", weights)
    for board in JANGGI_BOARDS[:40]:
        model = texel.scores([texel.sample_of(board, 0.0, weights)], again)[0]
        score = evaluate_with(ev, board.placement, board.turn)
        assert abs(model - (score if board.turn else -score)) <= 2


def test_a_position_with_no_capture_is_quiet() -> None:
    assert texel.is_quiet(Board("3akab2/9/4b4/9/9/8r/9/4B4/R8/3AKAB2 w - - 0 1"))


def test_a_hanging_chariot_is_not_quiet() -> None:
    # Black to move takes the chariot on h2, which nothing defends.
    board = Board("4k4/7r1/9/9/9/9/9/7R1/9/3K5 b - - 0 1")
    assert not texel.is_quiet(board)


def test_a_position_in_check_is_not_quiet() -> None:
    board = Board("4k4/9/9/9/9/9/9/9/4R4/3K5 b - - 0 1")
    assert board.is_check()
    assert not texel.is_quiet(board)


def test_positions_skip_the_opening_and_carry_the_result_from_reds_side() -> None:
    moves = "h2e2 h9g7 h0g2 i9h9 i0h0 b9c7 b2c2 a9b9 b0a2 g6g5 c3c4 b7a7"
    game = texel.MasterGame("00" * 16, moves, "0-1")
    positions = texel.positions_of(game, per_game=2, skip=8, seed=1, validation=0.5)
    assert len(positions) == 2
    assert all(texel.is_quiet(Board(p.fen)) for p in positions)
    replayed = Board()
    later = set()
    for ply, text in enumerate(moves.split()):
        if ply >= 8:
            later.add(replayed.fen())
        replayed.push_iccs(text)
    assert {p.fen for p in positions} <= later
    assert all(p.score == 0.0 and p.validation for p in positions)


def test_a_selfplay_game_gives_quiet_janggi_positions_labelled_from_chos_side() -> None:
    moves = "i0i2 e8d7 i2i0 f9e9 b0a2 d9e8 a3b3 g9f7 a2b4 c6b6 b4d5 b6c6 d5f4 g6f6 h0g2"
    game = selfplay.SelfPlayGame(0, "마상상마", "상마마상", moves, "1-0", "points")
    positions = texel.positions_of(game, per_game=3, skip=8, seed=1, validation=0.0)
    assert len(positions) == 3
    replayed = Board(game.start_fen, variant="janggi")
    later = set()
    for ply, text in enumerate(moves.split()):
        if ply >= 8:
            later.add(replayed.fen())
        replayed.push_iccs(text)
    assert {p.fen for p in positions} <= later
    assert all(texel.is_quiet(Board(p.fen, variant="janggi")) for p in positions)
    assert all(p.score == 1.0 and not p.validation for p in positions)


def test_janggi_records_are_read_once_each_and_what_is_left_out_is_counted(
    tmp_path: Path,
) -> None:
    """``--records``: a file of janggi games (as ``chuhan match`` writes them, from any
    arrangements), a game filed twice counted once, a broken record and a game without a
    result left out by reason; its positions come from its own start, from Cho's view."""
    moves = "i0i2 e8d7 i2i0 f9e9 b0a2 d9e8 a3b3 g9f7 a2b4 c6b6 b4d5 b6c6 d5f4 g6f6 h0g2"
    fen = janggi_start_fen("마상상마", "상마마상")

    def record(result: str, text: str) -> str:
        tags = f'[Variant "Janggi"]\n[FEN "{fen}"]\n[Result "{result}"]\n'
        return f"{tags}\n{text} {result}\n\n"

    numbered = " ".join(
        f"{i // 2 + 1}. {m}" if i % 2 == 0 else m for i, m in enumerate(moves.split())
    )
    pgn = tmp_path / "games.pgn"
    pgn.write_text(
        record("0-1", numbered)
        + record("0-1", numbered)
        + record("1-0", "1. i0i2 e8d7 2. a0a9")
        + record("*", "1. i0i2 e8d7"),
        encoding="utf-8",
    )
    games, refused, events = texel.record_games([pgn], "janggi")
    assert events == {"no event": 1}
    assert [(g.moves, g.result, g.start_fen) for g in games] == [(moves, "0-1", fen)]
    assert sum(refused.values()) == 2 and refused["no result"] == 1
    broken = next(why for why in refused if why != "no result")
    assert "a0a9" in broken
    positions = texel.positions_of(
        games[0], per_game=3, skip=8, seed=1, validation=0.0, variant="janggi"
    )
    assert len(positions) == 3 and all(p.score == 0.0 for p in positions)
    assert all(Board(p.fen, variant="janggi").variant.game == "janggi" for p in positions)
    # The same file is no janggi game to xiangqi.
    assert texel.record_games([pgn], "xiangqi")[0] == []


def test_the_selfplay_games_are_the_same_for_a_seed_and_kept(tmp_path: Path) -> None:
    cache = tmp_path / "games.jsonl"
    options = {"seed": 3, "nodes": 150, "random_plies": 4, "cache": cache}
    played: list[int] = []
    games, _ = selfplay.generate(2, **options, on_game=lambda _, g: played.append(g.number))
    assert sorted(played) == [0, 1]
    assert all(g.result in ("1-0", "0-1", "1/2-1/2") and g.termination for g in games)
    assert games[0] != games[1]
    # Kept: a second run reads them and plays none.
    again, _ = selfplay.generate(2, **options, on_game=lambda _, g: played.append(g.number))
    assert again == games and played == [0, 1]
    # The same seed and number play the same game again.
    weights = texel.JANGGI_RULES_OF_THUMB
    replay = selfplay.play(1, seed=3, nodes=150, random_plies=4, weights=weights)
    assert replay == games[1]


@pytest.mark.slow
def test_a_small_run_on_the_masters_fits_and_writes_its_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (Its validation error may rise: it starts from the weights fitted to the whole
    # archive, and 3,600 positions are too few to better them.)
    out = tmp_path / "texel_xiangqi.py"
    argv = ["--positions", "4000", "--iterations", "40", "--jobs", "1", "--cache", str(tmp_path)]
    assert texel.main([*argv, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "4,000 quiet positions" in text
    before = float(text.split("mean squared error before: training")[1].split(",")[0])
    after = float(text.split("mean squared error after:  training")[1].split(",")[0])
    assert after < before
    assert len(runpy.run_path(str(out))["TABLES"]) == 8
