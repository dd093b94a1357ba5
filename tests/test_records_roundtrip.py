"""Every writer reads back: a game written in any format and move notation is read to the
same moves, from the start position it was written from; and so does a xiangqi game in the
shapes other programs give it (WinBoard's SAN with ranks 0-9 and soldiers without a
letter, Chinese moves in GB18030, WXF in full-width characters).

The games are random playouts of both games (uniform and biased towards captures and
checks, which reach the crowded files, tandem pieces and endings that real games and
composed problems hold) and playouts from the positions in ``tests/data`` (the repetition
casebook and the xiangqi mate problems). ``make test`` runs 130 (100 seeded, 30 drawn by
hypothesis); the slow run (``make test-slow``) 5,000 more.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chuhan
import oracle
from chuhan.records import (
    PGN_FORMATS,
    XIANGQI_FORMATS,
    GameRecord,
    encode_gib,
    parse_san,
    read_gib,
    read_pgn,
    read_text_record,
    read_xqf,
    to_san,
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


_SAN_MOVE = re.compile(r"\b([KAEHRCP])([a-i]?)(10|[1-9])?(x?)([a-i])(10|[1-9])")


def _from_zero(rank: str | None) -> str:
    return "" if rank is None else str(int(rank) - 1)


def winboard_move(board: chuhan.Board, move: Move) -> str:
    """One move as WinBoard writes xiangqi SAN: ranks 0-9, and a soldier without its
    letter: ``g4`` straight on, ``gf5`` sideways, ``axa3`` capturing (its file always)."""
    san = to_san(board, move)
    mark = san[len(san.rstrip("+#")) :]
    if abs(board.piece_code_at(move.from_square)) != chuhan.PAWN:
        return _SAN_MOVE.sub(
            lambda m: f"{m[1]}{m[2]}{_from_zero(m[3])}{m[4]}{m[5]}{_from_zero(m[6])}", san
        )
    origin, target = move.iccs()[:2], move.iccs()[2:]
    if board.piece_code_at(move.to_square):
        return f"{origin[0]}x{target}{mark}"
    if origin[0] == target[0]:
        return f"{target}{mark}"
    return f"{origin[0]}{target}{mark}"


def winboard_san(record: GameRecord) -> str:
    """``record`` as WinBoard writes xiangqi: SAN with ranks 0-9 and soldiers without a
    letter, ``[Variant "xiangqi"]``."""
    text = write_pgn(record, "san").replace('[Format "SAN"]', '[Variant "xiangqi"]')
    head = text.partition("\n\n")[0]
    board = record.start_board()
    tokens = []
    for move in record.main_line_moves():
        if board.turn:
            tokens.append(f"{board.fullmove_number}.")
        elif not tokens:
            tokens.append(f"{board.fullmove_number}...")
        tokens.append(winboard_move(board, move))
        board.push(move)
    return f"{head}\n\n{' '.join(tokens)} {record.result}\n"


def reads_counting_from_one(record: GameRecord, text: str) -> bool:
    """Whether WinBoard ``text`` is also a legal game when its ranks count from 1, with
    every capture mark on a capture: a game both numberings read, which the reader cannot
    tell apart (it takes Fairy-Stockfish's numbering then)."""
    board = record.start_board()
    for token in text.partition("\n\n")[2].split():
        if not token[0].isalpha():
            continue
        try:
            move = parse_san(board, token, first_rank=1)
        except chuhan.ChuhanError:
            return False
        if ("x" in token) != bool(board.piece_code_at(move.to_square)):
            return False
        board.push(move)
    return True


def full_width(text: str) -> str:
    """The movetext of ``text`` in full-width letters, digits and signs."""
    head, _, moves = text.partition("\n\n")
    wide = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" and c not in "{}" else c for c in moves)
    return f"{head}\n\n{wide}"


def assert_reads_back(record: GameRecord) -> None:
    """``record`` written in every format its game allows reads back to its moves."""
    moves = record.main_line_moves()
    for notation in PGN_FORMATS if record.variant.is_janggi else XIANGQI_FORMATS:
        text = write_pgn(record, notation)
        back = read_pgn(text)
        assert len(back) == 1 and not back[0].errors and back[0].main_line_moves() == moves, (
            f"{notation}: {_first_difference(moves, back[0])}\n{text}"
        )
        assert back[0].fen.split()[:2] == record.fen.split()[:2]
    conventions = {}
    if not record.variant.is_janggi:
        conventions["WinBoard SAN"] = winboard_san(record).encode("utf-8")
        conventions["Chinese, GB18030"] = write_pgn(record, "chinese").encode("gb18030")
        conventions["full-width WXF"] = full_width(write_pgn(record, "wxf")).encode("utf-8")
    for name, data in conventions.items():
        if name == "WinBoard SAN" and reads_counting_from_one(record, data.decode()):
            continue  # legal either way: one ply such as 'Cb4' (1 game in 1,000)
        back = read_pgn(data)
        assert len(back) == 1 and not back[0].errors and back[0].main_line_moves() == moves, (
            f"{name}: {_first_difference(moves, back[0])}\n{data.decode(errors='replace')}"
        )
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


@settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_every_writer_reads_back_a_random_game(seed: int) -> None:
    assert_reads_back(random_game(seed))


@pytest.mark.parametrize("block", range(2))
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
