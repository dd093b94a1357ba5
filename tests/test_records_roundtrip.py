"""Every writer reads back: a game written in any format and move notation is read to the
same moves, from the start position it was written from.

The games are random playouts of both games (uniform and biased towards captures and
checks, which reach the crowded files, tandem pieces and endings that real games and
composed problems hold) and playouts from the positions in ``tests/data`` (the repetition
casebook and the xiangqi mate problems). ``make test`` runs a few hundred; the slow run
(``make test-slow``) several thousand.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chuhan
import oracle
from chuhan.records import (
    PGN_FORMATS,
    GameRecord,
    encode_gib,
    read_gib,
    read_pgn,
    read_text_record,
    read_xqf,
    write_gib,
    write_pgn,
    write_text_record,
    write_xqf,
)
from chuhan.squares import Move

DATA = Path(__file__).parent / "data"
BIASES = oracle.JANGGI_BIASES + oracle.XIANGQI_BIASES


def _data_starts() -> list[str]:
    """The xiangqi positions the test data holds: casebook and mate problems."""
    cases = json.loads((DATA / "xiangqi-repetition-cases.json").read_text(encoding="utf-8"))
    rows = cases if isinstance(cases, list) else cases.get("cases", [])
    fens = [row["fen"] for row in rows if isinstance(row, dict) and row.get("fen")]
    with (DATA / "xiangqibench-cases.jsonl").open(encoding="utf-8") as lines:
        fens.extend(json.loads(line)["fen"] for line in lines if line.strip())
    return fens


DATA_STARTS = _data_starts()


def random_game(seed: int) -> GameRecord:
    """One playout, its game, start, length and move bias all drawn from ``seed``."""
    rng = random.Random(seed)
    kind = rng.random()
    fen: str | None = None
    if kind < 0.4:
        variant = "janggi"
        fen = chuhan.janggi_start_fen(
            cho=rng.choice(oracle.ARRANGEMENTS), han=rng.choice(oracle.ARRANGEMENTS)
        )
    else:
        variant = "xiangqi"
        if kind > 0.8 and DATA_STARTS:
            fen = rng.choice(DATA_STARTS)
    board = oracle.random_board(
        variant, rng.randrange(2**32), rng.randrange(1, 200), fen=fen, bias=rng.choice(BIASES)
    )
    return GameRecord.from_moves(
        list(board.move_stack), variant=board.variant, fen=board.root().fen()
    )


def _first_difference(expected: list[Move], got: GameRecord) -> str:
    moves = got.main_line_moves()
    for ply, (want, have) in enumerate(zip(expected, moves, strict=False), start=1):
        if want != have:
            return f"ply {ply}: wrote {want.iccs()}, read {have.iccs()}"
    return f"wrote {len(expected)} plies, read {len(moves)}: {got.errors[:1]}"


def assert_reads_back(record: GameRecord) -> None:
    """``record`` written in every format its game allows reads back to its moves."""
    moves = record.main_line_moves()
    for notation in PGN_FORMATS:
        text = write_pgn(record, notation)
        back = read_pgn(text)
        assert len(back) == 1 and not back[0].errors and back[0].main_line_moves() == moves, (
            f"{notation}: {_first_difference(moves, back[0])}\n{text}"
        )
        assert back[0].fen.split()[:2] == record.fen.split()[:2]
    text_back = read_text_record(write_text_record(record))
    assert text_back.main_line_moves() == moves
    if record.variant.is_janggi and chuhan.records.janggi_arrangements(record.fen):
        for encoding in ("utf-8", "euc-kr"):
            gib = read_gib(encode_gib(write_gib(record), encoding))
            assert not gib[0].errors and gib[0].main_line_moves() == moves, _first_difference(
                moves, gib[0]
            )
    if not record.variant.is_janggi:
        xqf = read_xqf(write_xqf(record))
        assert not xqf.errors and xqf.main_line_moves() == moves


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_every_writer_reads_back_a_random_game(seed: int) -> None:
    assert_reads_back(random_game(seed))


@pytest.mark.parametrize("block", range(4))
def test_every_writer_reads_back_fifty_seeded_games(block: int) -> None:
    for seed in range(block * 50, block * 50 + 50):
        assert_reads_back(random_game(seed))


@pytest.mark.slow
@pytest.mark.parametrize("block", range(20))
def test_every_writer_reads_back_five_thousand_games(block: int) -> None:
    for seed in range(10_000 + block * 250, 10_000 + block * 250 + 250):
        assert_reads_back(random_game(seed))


def test_the_data_starts_are_found() -> None:
    assert len(DATA_STARTS) > 200
