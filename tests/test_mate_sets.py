"""The two mate sets of the tactics benchmark (``bench/tactics.py``), and the engine on a few.

* ``data/xiangqibench-cases.jsonl``: the data file of the MIT-licensed PyPI package
  xiangqibench 0.1.1 (copyright FloatAI; its licence is ``data/XIANGQIBENCH-LICENSE``),
  copied unchanged: 119 composed problems, red to move and mate in ``win_in_plies`` plies
  starting with ``first_winning_move`` (ICCS, ranks 0-9).
* ``data/janggi-mates.jsonl``: made and proved by ``tools/make_janggi_mates.py`` (see its
  docstring); here the mates in 1 and 2 are proved again (the longer ones, and the
  Fairy-Stockfish replay of every proof tree, under ``-m slow``) and the final positions of
  the mates in 1 are put to Fairy-Stockfish.

The proofs use the generator's exhaustive ``MateProver`` (loaded from ``tools/``).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import chuhan
from chuhan.board import Status
from chuhan.squares import Move

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data"


def _load_generator() -> ModuleType:
    path = ROOT / "tools" / "make_janggi_mates.py"
    spec = importlib.util.spec_from_file_location("make_janggi_mates", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_janggi_mates", module)
    spec.loader.exec_module(module)
    return module


generator = _load_generator()
MateProver = generator.MateProver


def _read_jsonl(name: str) -> list[dict[str, Any]]:
    with open(DATA / name, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


XQB = _read_jsonl("xiangqibench-cases.jsonl")
JANGGI = _read_jsonl("janggi-mates.jsonl")
#: Two composed problems keep a black soldier on black's own back rank, where no game can
#: put it; nothing else in either set is unreachable.
XQB_COMPOSED_PLACEMENTS = {"xq_jianghu_endgames_084", "xq_jianghu_endgames_327"}


def _janggi_board(case: dict[str, Any]) -> chuhan.Board:
    return chuhan.Board(case["fen"], variant="janggi", rules=case["rules"])


def _ids(cases: list[dict[str, Any]]) -> list[str]:
    return [case["id"] for case in cases]


# ---------------------------------------------------------------- xiangqibench


def test_xiangqibench_is_the_published_file() -> None:
    assert len(XQB) == 119
    assert len(set(_ids(XQB))) == 119
    assert {case["challenger"] for case in XQB} == {"red"}
    assert Counter(case["win_in_plies"] for case in XQB) == {3: 1, 5: 6, 7: 27, 9: 36, 11: 49}
    assert (DATA / "XIANGQIBENCH-LICENSE").read_text(encoding="utf-8").startswith("MIT License")


@pytest.mark.parametrize("case", XQB, ids=_ids(XQB))
def test_xiangqibench_position_and_first_move(case: dict[str, Any]) -> None:
    board = chuhan.Board(case["fen"])
    assert board.turn  # red to move
    allowed = Status.BAD_PAWN if case["id"] in XQB_COMPOSED_PLACEMENTS else Status.VALID
    assert board.status() == allowed
    assert not board.is_checkmate() and not board.is_stalemate()
    move = Move.from_iccs(case["first_winning_move"])
    assert move in board.legal_moves
    board.push(move)
    assert board.status() == Status.VALID or case["id"] in XQB_COMPOSED_PLACEMENTS
    # Black can move, and has no mate in one in reply (else red could not be winning):
    # 107 of the 119 first moves check; the quiet ones parry a threat of mate in one, or
    # prepare a mate that black cannot stop.
    assert board.legal_moves
    assert MateProver(board).solve(1) is None


@pytest.mark.parametrize(
    "case",
    [c for c in XQB if c["defender_threat_in_plies"] == 1],
    ids=_ids([c for c in XQB if c["defender_threat_in_plies"] == 1]),
)
def test_xiangqibench_counter_threat_is_real(case: dict[str, Any]) -> None:
    """Where the set says black threatens mate at once, black to move would mate in one."""
    placement = case["fen"].split()[0]
    board = chuhan.Board(placement + " b - - 0 1")
    assert MateProver(board).solve(1) is not None


def test_xiangqibench_most_first_moves_check() -> None:
    checking = sum(
        chuhan.Board(c["fen"]).gives_check(Move.from_iccs(c["first_winning_move"])) for c in XQB
    )
    assert checking == 107


@pytest.mark.parametrize(
    "case",
    [c for c in XQB if c["win_in_plies"] <= 3],
    ids=_ids([c for c in XQB if c["win_in_plies"] <= 3]),
)
def test_xiangqibench_short_mates_are_exact(case: dict[str, Any]) -> None:
    solved = MateProver(chuhan.Board(case["fen"])).solve((case["win_in_plies"] + 1) // 2)
    assert solved is not None
    moves, winners = solved
    assert 2 * moves - 1 == case["win_in_plies"]
    assert case["first_winning_move"] in {generator.iccs(m) for m in winners}


@pytest.mark.slow
@pytest.mark.parametrize(
    "case",
    [c for c in XQB if c["win_in_plies"] == 5],
    ids=_ids([c for c in XQB if c["win_in_plies"] == 5]),
)
def test_xiangqibench_five_ply_mates_are_exact(case: dict[str, Any]) -> None:
    test_xiangqibench_short_mates_are_exact(case)


def _load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_tactics", ROOT / "bench" / "tactics.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Dataclasses look their module up in sys.modules.
    sys.modules.setdefault("bench_tactics", module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_xiangqibench_further_winning_first_moves_of_the_bench_win() -> None:
    """bench/tactics.py also accepts a few first moves the set does not list; each mates
    as fast as the listed one. (The exhaustive proof of all 34 problems of 7 plies or fewer
    found no others among them; it takes about ten minutes, so it is not repeated here.)"""
    more = _load_bench().XIANGQI_MORE_WINNERS
    cases = {c["id"]: c for c in XQB}
    for ident, moves in more.items():
        case = cases[ident]
        board = chuhan.Board(case["fen"])
        prover = MateProver(board)
        length = (case["win_in_plies"] + 1) // 2
        for text in moves:
            move = board.parse_iccs(text)
            assert prover.move_wins(move.from_square << 7 | move.to_square, length)


# ---------------------------------------------------------------- our janggi set


def test_janggi_set_shape() -> None:
    assert len(JANGGI) >= 30
    assert len(set(_ids(JANGGI))) == len(JANGGI)
    assert len({case["fen"] for case in JANGGI}) == len(JANGGI)
    lengths = Counter(case["mate_in_plies"] for case in JANGGI)
    assert lengths[3] >= 10 and lengths[5] >= 10 and lengths[1] >= 1
    for case in JANGGI:
        assert case["rules"] == "official"
        assert case["mate_in_plies"] % 2 == 1
        assert case["first_winning_move"] in case["all_winning_first_moves"]
        assert case["source"].startswith("generated by tools/make_janggi_mates.py seed ")


@pytest.mark.parametrize("case", JANGGI, ids=_ids(JANGGI))
def test_janggi_position_and_first_moves(case: dict[str, Any]) -> None:
    board = _janggi_board(case)
    assert board.fen() == case["fen"]
    assert board.turn and board.is_valid()
    assert not board.is_check() and not board.is_bikjang()
    for text in case["all_winning_first_moves"]:
        move = Move.from_iccs(text)
        assert move in board.legal_moves and not move.is_pass()
        assert board.gives_check(move) or case["mate_in_plies"] > 1


@pytest.mark.parametrize(
    "case",
    [c for c in JANGGI if c["mate_in_plies"] <= 3],
    ids=_ids([c for c in JANGGI if c["mate_in_plies"] <= 3]),
)
def test_janggi_mate_is_proved_again(case: dict[str, Any]) -> None:
    solved = MateProver(_janggi_board(case)).solve((case["mate_in_plies"] + 1) // 2)
    assert solved is not None
    moves, winners = solved
    assert 2 * moves - 1 == case["mate_in_plies"]
    assert sorted(generator.iccs(m) for m in winners) == case["all_winning_first_moves"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "case",
    [c for c in JANGGI if c["mate_in_plies"] > 3],
    ids=_ids([c for c in JANGGI if c["mate_in_plies"] > 3]),
)
def test_janggi_long_mate_is_proved_again(case: dict[str, Any]) -> None:
    test_janggi_mate_is_proved_again(case)


@pytest.mark.parametrize(
    "case",
    [c for c in JANGGI if c["mate_in_plies"] == 1],
    ids=_ids([c for c in JANGGI if c["mate_in_plies"] == 1]),
)
def test_janggi_mates_in_one_are_mate_for_fairy_stockfish(case: dict[str, Any]) -> None:
    pyffish = pytest.importorskip("pyffish")
    for text in case["all_winning_first_moves"]:
        moves = [Move.from_iccs(text).fsf()]
        assert pyffish.legal_moves("janggi", case["fen"], moves, False) == []
        assert pyffish.gives_check("janggi", case["fen"], moves, False)


@pytest.mark.slow
@pytest.mark.parametrize("case", JANGGI, ids=_ids(JANGGI))
def test_janggi_proof_tree_agrees_with_fairy_stockfish(case: dict[str, Any]) -> None:
    pytest.importorskip("pyffish")
    board = _janggi_board(case)
    winners = [board.parse_iccs(text) for text in case["all_winning_first_moves"]]
    first = winners[case["all_winning_first_moves"].index(case["first_winning_move"])]
    problem = generator.Problem(
        case["fen"],
        (case["mate_in_plies"] + 1) // 2,
        [first.from_square << 7 | first.to_square],
        capture=False,
        checks=0,
        nodes=0,
    )
    generator.verify_with_fsf(problem)


def test_prover_a_pass_escapes_only_bikjang() -> None:
    """Han's king on d9 in check along rank 9, rank 8 covered: mate, since a side in check
    may not pass; but with Cho's king on the open d-file (bikjang) Han may pass, which ends
    the game on points, so the same placement is no mate."""
    mated = chuhan.Board("3k4R/8R/9/9/9/9/9/9/9/4K4 b - - 0 1", variant="janggi")
    assert mated.is_checkmate()
    assert MateProver(mated)._defender_lost()
    facing = chuhan.Board("3k4R/8R/9/9/9/9/9/9/9/3K5 b - - 0 1", variant="janggi")
    assert facing.is_check() and facing.is_bikjang()
    assert [Move(m >> 7, m & 127).iccs() for m in facing.legal_move_codes()] == ["d9d9"]
    assert not MateProver(facing)._defender_lost()


# ---------------------------------------------------------------- the engine


_ENGINE_XIANGQI = sorted(XQB, key=lambda c: (c["win_in_plies"], c["id"]))[:3]
_ENGINE_JANGGI = [c for c in JANGGI if c["mate_in_plies"] == 1][:1] + [
    c for c in JANGGI if c["mate_in_plies"] == 3
][:2]


@pytest.mark.parametrize(
    ("variant", "case"),
    [("xiangqi", c) for c in _ENGINE_XIANGQI] + [("janggi", c) for c in _ENGINE_JANGGI],
    ids=_ids(_ENGINE_XIANGQI) + _ids(_ENGINE_JANGGI),
)
def test_engine_solves_short_mates(variant: str, case: dict[str, Any]) -> None:
    from chuhan.search import Searcher, SearchLimits

    if variant == "xiangqi":
        board = chuhan.Board(case["fen"])
        plies = case["win_in_plies"]
        winners = {case["first_winning_move"]}
    else:
        board = _janggi_board(case)
        plies = case["mate_in_plies"]
        winners = set(case["all_winning_first_moves"])
    result = Searcher(hash_mb=16).search(board, SearchLimits(depth=plies + 1))
    assert result.best is not None and result.best.iccs() in winners
    assert result.lines[0].mate == (plies + 1) // 2
