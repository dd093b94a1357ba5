"""The opening book from the masters (chuhan.book): its lookup, its file, and its start
position held against the archive's records counted another way."""

from __future__ import annotations

import hashlib
import random
import re
from collections import defaultdict
from pathlib import Path

import pytest

from chuhan import Board, Move
from chuhan.book import BOOK_PATH, BOOK_PLIES, MIN_GAMES, MIN_SCORE, Book, BookError
from chuhan.explorer import MASTERS_ARCHIVE, iter_collection, normalize_result
from chuhan.explorer.masters import MASTERS_ENCODING
from chuhan.records import iter_data


def _start() -> dict[str, int]:
    return {move.iccs(): weight for move, weight in Book.load().entries(Board().zobrist_hash())}


def test_the_start_positions_book_moves_are_the_masters_openings() -> None:
    start = _start()
    assert next(iter(start)) == "h2e2"  # 炮二平五, the central cannon, heaviest
    for iccs in ("h2e2", "g0e2", "h0g2", "c3c4"):  # 炮二平五 相三进五 马二进三 兵七进一
        assert iccs in start, iccs
    assert all(Board().is_legal(Move.from_iccs(iccs)) for iccs in start)


def test_the_book_is_small_and_reaches_its_depth() -> None:
    assert 10_000 < BOOK_PATH.stat().st_size < 400_000
    board = Board()
    for iccs in ("h2e2", "h9g7", "h0g2", "i9h9"):  # 中炮对屏风马, transposed or not
        assert Book.load().entries(board.zobrist_hash()), board.fen()
        board.push_iccs(iccs)


def test_a_transposition_finds_the_same_book_moves() -> None:
    one, two = Board(), Board()
    for iccs in ("c3c4", "b7c7", "h2e2"):  # 仙人指路 对卒底炮, then 中炮
        one.push_iccs(iccs)
    for iccs in ("h2e2", "b7c7", "c3c4"):
        two.push_iccs(iccs)
    book = Book.load()
    assert book.entries(one.zobrist_hash()) == book.entries(two.zobrist_hash()) != []


def test_choose_draws_by_weight_and_leaves_the_book() -> None:
    book = Book({Board().zobrist_hash(): {_code("h2e2"): 30, _code("b2e2"): 10}})
    rng = random.Random(4)
    picks = [book.choose(Board(), rng) for _ in range(400)]
    assert 240 < picks.count(Move.from_iccs("h2e2")) < 360
    assert picks.count(Move.from_iccs("b2e2")) == 400 - picks.count(Move.from_iccs("h2e2"))
    assert book.choose(Board(), rng, plies=0) is None
    both = [Move.from_iccs("h2e2"), Move.from_iccs("b2e2")]
    assert book.choose(Board(), rng, banned=both) is None
    after = Board()
    after.push_iccs("h2e2")
    assert book.choose(after, rng) is None
    assert book.choose(Board(variant="janggi"), rng) is None


def _code(iccs: str) -> int:
    move = Move.from_iccs(iccs)
    return move.from_square << 7 | move.to_square


def test_a_broken_book_file_is_refused_with_its_name(tmp_path: Path) -> None:
    broken = tmp_path / "book.bin"
    broken.write_bytes(b"12345")
    with pytest.raises(BookError, match=r"book\.bin.*not a multiple of 12 bytes"):
        Book.load(broken)
    with pytest.raises(BookError, match="cannot be read"):
        Book.load(tmp_path / "missing.bin")


@pytest.mark.slow
def test_the_start_position_matches_the_records_counted_another_way() -> None:
    """The archive's master games read by the records' reader (each text once, each game
    once by its opening and result, as the tool does), their first moves counted with
    the points Red scored: the moves the book keeps and their weights."""
    seen: set[bytes] = set()
    games: dict[tuple[str, str], str] = {}
    for file in iter_collection(MASTERS_ARCHIVE):
        if file.error or "大師對局" not in file.name:
            continue
        digest = hashlib.blake2b(file.data, digest_size=16).digest()
        if digest in seen:
            continue
        seen.add(digest)
        try:
            text = file.data.decode(MASTERS_ENCODING)
        except UnicodeDecodeError:
            continue  # refused by the tool too
        cut = re.search(rf"(?m)^\s*{BOOK_PLIES // 2 + 1}\.", text)
        text = text[: cut.start()] if cut else text
        for record in iter_data(text.encode(), file.name):
            moves = record.main_line_moves()
            result = normalize_result(record.headers.get("Result", "*"))
            if record.errors or not moves or result == "*" or record.start_board() != Board():
                continue
            opening = " ".join(move.iccs() for move in moves[:BOOK_PLIES])
            games.setdefault((opening, result), moves[0].iccs())
    played: dict[str, int] = defaultdict(int)
    points: dict[str, int] = defaultdict(int)  # half-points
    for (_, result), first in games.items():
        played[first] += 1
        points[first] += {"1-0": 2, "0-1": 0}.get(result, 1)
    expected = {
        move: max(1, round(points[move] / 2))
        for move in played
        if played[move] >= MIN_GAMES and points[move] >= 2 * MIN_SCORE * played[move]
    }
    assert _start() == expected
