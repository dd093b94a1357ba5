"""Move notations both ways: WXF, Chinese characters, Korean (GIB) coordinates, ICCS.

The named examples read like the notation rules (RULES.md, "Notation", and the WXF
notation page); the round trips check that every legal move of many positions is written
in a form that parses back to that move, and the differential tests hold WXF and the
Korean coordinates against Fairy-Stockfish where the two conventions agree.
"""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chuhan
from chuhan import Board, Move
from chuhan.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from chuhan.fen import PALACE
from chuhan.notation import (
    NOTATIONS,
    format_move,
    parse_chinese,
    parse_korean,
    parse_move,
    parse_wxf,
    to_chinese,
    to_korean,
    to_wxf,
)
from chuhan.notation.chinese import simplify
from chuhan.notation.wxf import column, geometry, own_file
from chuhan.variants import ADVISOR, ELEPHANT, KING, PAWN, WXF_LETTERS

XIANGQI = "xiangqi"
JANGGI = "janggi"


def iccs(text: str) -> Move:
    return Move.from_iccs(text)


def played(variant: str, *moves: str, fen: str | None = None) -> Board:
    """The board after ICCS ``moves`` from ``fen`` (the start by default)."""
    board = Board(fen, variant=variant)
    for text in moves:
        board.push_iccs(text)
    return board


def playout(variant: str, seed: int, plies: int = 60) -> list[Board]:
    """Every position of a seeded random game (history dropped: only placement matters)."""
    rng = random.Random(seed)
    board = Board(variant=variant)
    boards = [board.copy(stack=False)]
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
        boards.append(board.copy(stack=False))
    return boards


# Written forms and their parsers: each pair must round-trip on every legal move.
WRITERS: dict[str, tuple[Any, Any]] = {
    "wxf": (to_wxf, parse_wxf),
    "chinese": (to_chinese, parse_chinese),
    "chinese-simplified": (lambda b, m: to_chinese(b, m, simplified=True), parse_chinese),
    "korean": (to_korean, parse_korean),
    "korean-hanja": (lambda b, m: to_korean(b, m, hanja=True), parse_korean),
}


def assert_round_trips(board: Board) -> int:
    """Write every legal move in every notation, parse it back (with the notation's parser
    and with :func:`parse_move`) and compare; returns the number of moves checked."""
    moves = list(board.legal_moves)
    for move in moves:
        for name, (write, parse) in WRITERS.items():
            text = write(board, move)
            assert parse(board, text) == move, (name, board.fen(), move, text)
            if name in ("wxf", "chinese", "korean"):
                assert parse_move(board, text) == move, (name, board.fen(), move, text)
        assert parse_move(board, move.iccs()) == move
    return len(moves)


# ---------------------------------------------------------------------- WXF


def test_central_cannon_is_C2_5() -> None:
    board = Board()
    assert to_wxf(board, iccs("h2e2")) == "C2.5"
    for text in ("C2.5", "c2.5", "C2=5", " C2.5 ", "c2 = 5"):
        assert parse_wxf(board, text) == iccs("h2e2")


def test_horse_names_the_destination_file_H2_3() -> None:
    board = Board()
    assert to_wxf(board, iccs("h0g2")) == "H2+3"
    assert parse_wxf(board, "H2+3") == iccs("h0g2")
    assert parse_wxf(board, "N2+3") == iccs("h0g2")  # N for the horse, as in chess


def test_elephant_accepts_B_and_advisor_targets_a_file() -> None:
    board = Board()
    assert to_wxf(board, iccs("g0e2")) == "E3+5"
    assert parse_wxf(board, "B3+5") == iccs("g0e2")
    assert to_wxf(board, iccs("f0e1")) == "A4+5"


def test_rook_backward_counts_points_R9_1() -> None:
    board = played(XIANGQI, "a0a2", "b9c7")
    assert to_wxf(board, iccs("a2a1")) == "R9-1"
    assert parse_wxf(board, "R9-1") == iccs("a2a1")
    assert to_wxf(board, iccs("a2a6")) == "R9+4"


def test_black_files_are_counted_from_blacks_right() -> None:
    board = played(XIANGQI, "h2e2")
    # Black's right is the a-file side: file a is black's 1, h is black's 8.
    assert to_wxf(board, iccs("h7e7")) == "C8.5"
    assert to_wxf(board, iccs("b7e7")) == "C2.5"
    assert to_wxf(board, iccs("h9g7")) == "H8+7"
    assert to_wxf(board, iccs("a9a8")) == "R1+1"
    # Forward for black is down the board.
    assert to_wxf(board, iccs("c6c5")) == "P3+1"


TANDEM_ROOKS = "3k5/9/9/9/9/R8/9/R8/9/4K4 w - - 0 1"


def test_tandem_rooks_are_front_and_rear() -> None:
    board = Board(TANDEM_ROOKS)
    assert to_wxf(board, iccs("a4b4")) == "R+.8"
    assert to_wxf(board, iccs("a4a5")) == "R++1"
    assert to_wxf(board, iccs("a2a3")) == "R-+1"
    assert to_wxf(board, iccs("a2a0")) == "R--2"
    assert parse_wxf(board, "R+.8") == iccs("a4b4")
    assert parse_wxf(board, "+R.8") == iccs("a4b4")  # sign before the letter
    assert parse_wxf(board, "-r+1") == iccs("a2a3")
    # Only the rear rook can go back two points, so the plain file is still unique.
    assert parse_wxf(board, "R9-2") == iccs("a2a0")


def test_tandem_without_sign_is_ambiguous() -> None:
    board = Board(TANDEM_ROOKS)
    with pytest.raises(AmbiguousMoveError) as caught:
        parse_wxf(board, "R9+1")
    message = str(caught.value)
    assert "'R9+1'" in message and board.fen() in message
    assert "a4a5" in message and "a2a3" in message and "R+" in message


def test_black_tandem_front_is_nearer_red() -> None:
    board = Board("4k4/9/9/r8/9/9/9/r8/9/3K5 b - - 0 1")
    assert to_wxf(board, iccs("a2a1")) == "R++1"
    assert to_wxf(board, iccs("a6a7")) == "R--1"
    assert to_wxf(board, iccs("a6b6")) == "R-.2"


def test_tandem_pawns() -> None:
    board = Board("3k5/9/9/2P6/2P6/9/9/9/9/4K4 w - - 0 1")
    assert to_wxf(board, iccs("c6c7")) == "P++1"
    assert to_wxf(board, iccs("c5d5")) == "P-.6"
    assert to_chinese(board, iccs("c6c7")) == "前兵進一"
    assert to_chinese(board, iccs("c5d5"), simplified=True) == "后兵平六"


def test_three_pawns_on_a_file_front_middle_rear() -> None:
    board = Board("3k5/9/2P6/2P6/2P6/9/9/9/9/4K4 w - - 0 1")
    assert to_wxf(board, iccs("c7c8")) == "P++1"
    assert to_wxf(board, iccs("c6d6")) == "P7.6"  # the middle pawn keeps its file
    assert to_wxf(board, iccs("c5b5")) == "P-.8"
    assert parse_wxf(board, "P7.6") == iccs("c6d6")
    assert to_chinese(board, iccs("c7c8")) == "前兵進一"
    assert to_chinese(board, iccs("c6d6")) == "中兵平六"
    assert to_chinese(board, iccs("c5b5")) == "後兵平八"


# The WXF page's own examples: pawns on the 3rd file (g) traversing to the 4th (f).
FIVE_PAWNS = "3k2P2/6P2/6P2/6P2/6P2/9/9/9/9/4K4 w - - 0 1"
FOUR_PAWNS = "3k5/6P2/6P2/6P2/6P2/9/9/9/9/4K4 w - - 0 1"
TWO_FILES = "3k5/9/6P2/2P3P2/2P3P2/9/9/9/9/4K4 w - - 0 1"


def test_five_pawns_on_a_file_as_the_wxf_page_writes_them() -> None:
    board = Board(FIVE_PAWNS)
    written = [to_wxf(board, iccs(f"g{rank}f{rank}")) for rank in (9, 8, 7, 6, 5)]
    assert written == ["++.4", "P+.4", "P3.4", "P-.4", "--.4"]
    chinese = [to_chinese(board, iccs(f"g{rank}f{rank}")) for rank in (9, 8, 7, 6, 5)]
    assert chinese == ["一兵平四", "二兵平四", "三兵平四", "四兵平四", "五兵平四"]
    assert parse_chinese(board, "前兵平四") == iccs("g9f9")
    assert parse_chinese(board, "中兵平四") == iccs("g7f7")
    assert parse_chinese(board, "后兵平四") == iccs("g5f5")


def test_four_pawns_on_a_file() -> None:
    board = Board(FOUR_PAWNS)
    written = [to_wxf(board, iccs(f"g{rank}f{rank}")) for rank in (8, 7, 6, 5)]
    assert written == ["++.4", "P+.4", "P-.4", "--.4"]


def test_pawns_on_two_files_put_the_file_first() -> None:
    board = Board(TWO_FILES)
    assert to_wxf(board, iccs("g7f7")) == "3+.4"
    assert to_wxf(board, iccs("g6f6")) == "33.4"
    assert to_wxf(board, iccs("g5f5")) == "3-.4"
    assert to_wxf(board, iccs("c6d6")) == "7+.6"
    assert to_wxf(board, iccs("c5d5")) == "7-.6"
    assert to_chinese(board, iccs("g7f7")) == "前三平四"
    assert to_chinese(board, iccs("g6f6")) == "中三平四"
    assert to_chinese(board, iccs("c5d5")) == "後七平六"
    assert parse_chinese(board, "前兵三平四") == iccs("g7f7")  # the name may stay
    assert parse_wxf(board, "P+.4") == iccs("g7f7")  # only one front pawn can go to 4
    with pytest.raises(AmbiguousMoveError, match=re.escape("'P7.6'")):
        parse_wxf(board, "P7.6")  # a file of two: front or rear?


def test_advisor_and_elephant_pairs_keep_their_file() -> None:
    # Of two advisors on one file one can only advance, the other only retreat.
    board = Board("4k4/9/9/9/9/9/9/5A3/9/3K1A3 w - - 0 1")
    assert to_wxf(board, iccs("f0e1")) == "A4+5"
    assert to_wxf(board, iccs("f2e1")) == "A4-5"
    assert to_chinese(board, iccs("f2e1")) == "仕四退五"
    assert parse_wxf(board, "A+-5") == iccs("f2e1")  # the tandem form is read too
    elephants = Board("3k5/9/9/9/9/2B6/9/9/9/2B1K4 w - - 0 1")
    assert to_wxf(elephants, iccs("c0e2")) == "E7+5"
    assert to_wxf(elephants, iccs("c4e2")) == "E7-5"


def test_king_steps() -> None:
    board = Board("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1")
    assert to_wxf(board, iccs("e0e1")) == "K5+1"
    assert to_wxf(board, iccs("e0f0")) == "K5.4"
    assert to_chinese(board, iccs("e0e1")) == "帥五進一"
    black = Board("3k5/9/9/9/9/9/9/9/9/4K4 b - - 0 1")
    assert to_chinese(black, iccs("d9e9")) == "將４平５"


# ---------------------------------------------------------------------- Chinese


def test_central_cannon_is_炮二平五() -> None:
    board = Board()
    assert to_chinese(board, iccs("h2e2")) == "炮二平五"
    assert to_chinese(board, iccs("h2e2"), simplified=True) == "炮二平五"
    for text in ("炮二平五", "炮2平5", "砲二平五", "包二平五", "炮 二 平 五"):
        assert parse_chinese(board, text) == iccs("h2e2")


def test_black_central_cannon_is_炮８平５() -> None:
    board = played(XIANGQI, "h2e2")
    assert to_chinese(board, iccs("h7e7"), simplified=True) == "炮８平５"
    assert to_chinese(board, iccs("h7e7")) == "砲８平５"
    assert parse_chinese(board, "炮８平５") == iccs("h7e7")
    assert parse_chinese(board, "炮8平5") == iccs("h7e7")
    assert to_chinese(board, iccs("h9g7")) == "馬８進７"
    assert to_chinese(board, iccs("h9g7"), simplified=True) == "马８进７"


def test_red_names_are_side_dependent() -> None:
    board = Board()
    assert to_chinese(board, iccs("h0g2")) == "傌二進三"
    assert to_chinese(board, iccs("a0a1")) == "俥九進一"
    assert to_chinese(board, iccs("g0e2")) == "相三進五"
    assert to_chinese(board, iccs("c3c4")) == "兵七進一"
    assert to_chinese(board, iccs("a0a1"), simplified=True) == "车九进一"
    for text in ("車九進一", "车九进一", "俥九进一", "伡9进1"):
        assert parse_chinese(board, text) == iccs("a0a1")
    black = played(XIANGQI, "h2e2")
    assert to_chinese(black, iccs("a9a8")) == "車１進１"
    assert to_chinese(black, iccs("c6c5")) == "卒３進１"
    assert to_chinese(black, iccs("g9e7")) == "象７進５"
    assert to_chinese(black, iccs("f9e8")) == "士６進５"


def test_chinese_tandem_rooks() -> None:
    board = Board(TANDEM_ROOKS)
    assert to_chinese(board, iccs("a4b4")) == "前俥平八"
    assert to_chinese(board, iccs("a2a3"), simplified=True) == "后车进一"
    for text in ("後俥進一", "后车进一", "後車進一", "車後進一"):
        assert parse_chinese(board, text) == iccs("a2a3")
    with pytest.raises(AmbiguousMoveError, match="'車九進一'"):
        parse_chinese(board, "車九進一")


@pytest.mark.parametrize("variant", [XIANGQI, JANGGI])
def test_simplify_writes_the_simplified_form(variant: str) -> None:
    boards = [Board(TANDEM_ROOKS)] if variant == XIANGQI else []
    for seed in range(4):
        boards += playout(variant, seed, plies=40)
    written = set()
    for board in boards:
        for move in board.legal_moves:
            text = to_chinese(board, move)
            assert simplify(text) == to_chinese(board, move, simplified=True), (board.fen(), text)
            written.add(text)
    assert any("後" in text for text in written)
    assert any("停著" in text for text in written) == (variant == JANGGI)


# ---------------------------------------------------------------------- Korean


def test_korean_horse_is_02마83() -> None:
    board = Board(variant=JANGGI)
    assert to_korean(board, iccs("b0c2")) == "02마83"
    assert parse_korean(board, "02마83") == iccs("b0c2")
    assert parse_korean(board, "02 마 83") == iccs("b0c2")
    assert parse_korean(board, "H02-83") == iccs("b0c2")  # Fairy-Stockfish's janggi form


def test_korean_rows_count_from_hans_back_rank() -> None:
    board = played(JANGGI, "b0c2")
    assert to_korean(board, iccs("b9c7")) == "12마33"
    assert to_korean(board, iccs("a6b6")) == "41병42"
    cho = Board(variant=JANGGI)
    assert to_korean(cho, iccs("a3a4")) == "71졸61"
    assert to_korean(cho, iccs("e1e2")) == "95장85"


def test_korean_pass() -> None:
    board = Board(variant=JANGGI)
    pass_move = iccs("e1e1")
    assert to_korean(board, pass_move) == "한수쉼"
    assert to_wxf(board, pass_move) == "pass"
    assert to_chinese(board, pass_move) == "停著"
    for text in ("한수쉼", "쉼", "pass", "PASS", "95장95"):
        assert parse_korean(board, text) == pass_move
    for text in ("pass", "한수쉼", "e1e1", "停着"):
        assert parse_move(board, text) == pass_move
    with pytest.raises(IllegalMoveError, match="xiangqi has no passes"):
        parse_move(Board(), "pass")


def test_korean_hanja() -> None:
    board = Board(variant=JANGGI)
    assert to_korean(board, iccs("b0c2"), hanja=True) == "02馬83"
    assert to_korean(board, iccs("a3a4"), hanja=True) == "71卒61"
    assert to_korean(board, iccs("e1e2"), hanja=True) == "95楚85"
    han = played(JANGGI, "b0c2")
    assert to_korean(han, iccs("a6b6"), hanja=True) == "41兵42"
    assert to_korean(han, iccs("e8e7"), hanja=True) == "25漢35"
    for text in ("02馬83", "02马83", "02마83"):
        assert parse_korean(board, text) == iccs("b0c2")


def test_korean_names_are_checked() -> None:
    board = Board(variant=JANGGI)
    with pytest.raises(IllegalMoveError, match=r"'02포83'.*horse, not a cannon"):
        parse_korean(board, "02포83")
    with pytest.raises(IllegalMoveError, match="no piece on 55"):
        parse_korean(board, "55마43")
    with pytest.raises(IllegalMoveError, match="'02마84'"):
        parse_korean(board, "02마84")


def test_janggi_in_wxf_and_chinese_characters() -> None:
    board = Board(variant=JANGGI)
    assert to_wxf(board, iccs("b0c2")) == "H8+7"
    assert to_chinese(board, iccs("b0c2")) == "馬八進七"
    assert to_chinese(board, iccs("e1e2")) == "楚五進一"
    assert to_chinese(board, iccs("b2b3"), simplified=True) == "包八进一"
    assert to_chinese(board, iccs("a3a4")) == "卒九進一"
    han = played(JANGGI, "b0c2")
    assert to_chinese(han, iccs("e8e7")) == "漢５進１"
    assert to_chinese(han, iccs("e8e7"), simplified=True) == "汉５进１"
    assert to_chinese(han, iccs("a6a5")) == "兵１進１"
    # A king's step along a palace diagonal names the destination file.
    assert to_wxf(board, iccs("e1f2")) == "K5+4"
    assert parse_wxf(board, "K5+4") == iccs("e1f2")


def test_janggi_palace_diagonal_of_a_chariot_is_marked() -> None:
    board = Board("9/4k4/9/9/9/9/9/5K3/9/3R5 w - - 0 1", variant=JANGGI)
    assert to_wxf(board, iccs("d0e1")) == "R6/+5"
    assert to_wxf(board, iccs("d0d5")) == "R6+5"
    assert parse_wxf(board, "R6/+5") == iccs("d0e1")
    assert parse_wxf(board, "R6+5") == iccs("d0d5")
    assert to_chinese(board, iccs("d0e1")) == "車六斜進五"
    assert parse_chinese(board, "車六斜進五") == iccs("d0e1")
    assert parse_chinese(board, "車六進五") == iccs("d0d5")


# ---------------------------------------------------------------------- parse_move / format_move


@pytest.mark.parametrize(
    ("variant", "text", "expected"),
    [
        (XIANGQI, "h2e2", "h2e2"),
        (XIANGQI, "H2-E2", "h2e2"),
        (XIANGQI, "C2.5", "h2e2"),
        (XIANGQI, "炮二平五", "h2e2"),
        (XIANGQI, "傌二进三", "h0g2"),
        (XIANGQI, "08마87", "h0g2"),
        (JANGGI, "02마83", "b0c2"),
        (JANGGI, "H8+7", "b0c2"),
        (JANGGI, "馬八進七", "b0c2"),
        (JANGGI, "b0-c2", "b0c2"),
    ],
)
def test_parse_move_detects_the_notation(variant: str, text: str, expected: str) -> None:
    assert parse_move(Board(variant=variant), text) == iccs(expected)


def test_format_move() -> None:
    board = Board()
    move = iccs("h0g2")
    written = {name: format_move(board, move, name) for name in NOTATIONS}
    assert written == {
        "iccs": "h0g2",
        "fsf": "h1g3",
        "wxf": "H2+3",
        "chinese": "傌二進三",
        "chinese-simplified": "马二进三",
        "korean": "08마87",
    }
    with pytest.raises(ValueError, match="'pgn'"):
        format_move(board, move, "pgn")


# ---------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("parse", "text", "fragment"),
    [
        (parse_wxf, "", "empty"),
        (parse_wxf, "Z9+1", "unknown piece letter 'Z'"),
        (parse_wxf, "C2*5", "direction"),
        (parse_wxf, "C2.0", "1-9"),
        (parse_wxf, "C0.5", "file '0'"),
        (parse_wxf, "34.4", "repeats its file"),
        (parse_wxf, "炮二平五", "direction"),
        (parse_chinese, "", "empty"),
        (parse_chinese, "炮十平五", "'十' is not a file number"),
        (parse_chinese, "炮二走五", "進, 退 or 平"),
        (parse_chinese, "象二平", "too short"),
        (parse_korean, "", "empty"),
        (parse_korean, "02마8", "row and file"),
        (parse_korean, "02뭐83", "unknown piece name"),
        (parse_korean, "20마83", "file 0"),
        (parse_move, "", "empty"),
        (parse_move, "hello", "expected ICCS"),
        (parse_move, "Z9+1", "unknown piece letter"),
        (parse_move, "炮十平五", "not a file number"),
    ],
)
def test_malformed_strings_are_invalid(parse: Any, text: str, fragment: str) -> None:
    with pytest.raises(InvalidMoveError) as caught:
        parse(Board(), text)
    message = str(caught.value)
    assert repr(text) in message
    assert fragment in message


@pytest.mark.parametrize(
    ("parse", "text", "fragment"),
    [
        (parse_wxf, "R5+1", "no red rook on file 5"),
        (parse_wxf, "C2+8", "can move forward 8"),
        (parse_wxf, "R+.5", "no red rook stands in front"),
        (parse_chinese, "俥五進一", "no red rook on file 5"),
        (parse_chinese, "前炮平五", "no red cannon stands in front"),
        (parse_korean, "55포85", "no piece on 55"),
        (parse_move, "h2h8", "'h2h8'"),
        (parse_move, "e1e1", "no piece on e1"),
    ],
)
def test_moves_from_empty_files_are_illegal(parse: Any, text: str, fragment: str) -> None:
    board = Board()
    with pytest.raises(IllegalMoveError) as caught:
        parse(board, text)
    message = str(caught.value)
    assert repr(text) in message
    assert board.fen() in message
    assert fragment in message


def test_writers_refuse_a_move_of_nothing() -> None:
    for write, _ in WRITERS.values():
        with pytest.raises(IllegalMoveError, match="no piece of the side to move on e4"):
            write(Board(), iccs("e4e5"))


#: Board methods that hand a move or the board to a module above it, importing that module
#: when called (as python-chess's ``Board._repr_svg_`` imports ``chess.svg``): where a
#: python-chess user looks for them, while loading ``chuhan.board`` loads none of it.
BOARD_METHODS_ABOVE = {
    "san",
    "parse_san",
    "wxf",
    "chinese",
    "korean",
    "variation_san",
    "unicode",
    "_repr_svg_",
}
ABOVE_BOARD = ("chuhan.notation", "chuhan.records", "chuhan.svg", "chuhan.terminal")


def test_board_does_not_import_notation() -> None:
    """Imports point one way: notation depends on the board, never the reverse. Only the
    display methods above import upward, and only when called."""
    # The source, not chuhan.board.__file__ (a compiled build's extension module).
    source = (Path(chuhan.__file__).parent / "board.py").read_text(encoding="utf-8")
    upward: list[tuple[str, str]] = []
    for function in [None, *ast.walk(ast.parse(source))]:
        if function is not None and not isinstance(function, ast.FunctionDef):
            continue
        where = "module" if function is None else function.name
        body = ast.parse(source).body if function is None else function.body
        for statement in body if function is None else ast.walk(ast.Module(body, [])):
            if isinstance(statement, ast.ImportFrom) and statement.module:
                names = [statement.module]
            elif isinstance(statement, ast.Import):
                names = [alias.name for alias in statement.names]
            else:
                continue
            upward += [(where, name) for name in names if name.startswith(ABOVE_BOARD)]
    assert upward and all(where in BOARD_METHODS_ABOVE for where, _ in upward), upward


# ---------------------------------------------------------------------- round trips


NAMED_POSITIONS = [
    (XIANGQI, None),
    (JANGGI, None),
    (XIANGQI, TANDEM_ROOKS),
    (XIANGQI, FIVE_PAWNS),
    (XIANGQI, FOUR_PAWNS),
    (XIANGQI, TWO_FILES),
    (JANGGI, "9/4k4/9/9/9/9/9/5K3/9/3R5 w - - 0 1"),
]


@pytest.mark.parametrize(("variant", "fen"), NAMED_POSITIONS)
def test_round_trip_named_positions(variant: str, fen: str | None) -> None:
    assert assert_round_trips(Board(fen, variant=variant)) > 0


def test_round_trip_perft_positions(perft_positions: list[dict[str, Any]]) -> None:
    checked = 0
    for entry in perft_positions:
        board = Board(entry["fen"], variant=entry["variant"], rules=entry["rules"])
        checked += assert_round_trips(board)
    assert checked > 400


@pytest.mark.parametrize("variant", [XIANGQI, JANGGI])
@pytest.mark.parametrize("seed", range(6))
def test_round_trip_random_playouts(variant: str, seed: int) -> None:
    boards = playout(variant, 1000 + seed)
    # Every third position keeps the file fast; the seeds spread over the game phases.
    checked = sum(assert_round_trips(board) for board in boards[seed % 3 :: 3])
    assert checked > 0


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    variant=st.sampled_from([XIANGQI, JANGGI]),
    plies=st.integers(0, 90),
)
def test_round_trip_property(seed: int, variant: str, plies: int) -> None:
    assert_round_trips(playout(variant, seed, plies)[-1])


# ---------------------------------------------------------------------- against Fairy-Stockfish


def fsf_reading(board: Board, move: Move, ours: str) -> str | None:
    """What Fairy-Stockfish's WXF prints for ``move``, derived from our ``ours``, or None
    where the conventions part. The differences:

    * FSF writes ``=`` for sideways (the WXF page and we write ``.``);
    * FSF marks a pair on one file with ``+``/``-`` only when the same step taken by the
      other piece would land on a point that kind may stand on; WXF and Chinese records
      (and we) always mark a pair, except xiangqi advisors and elephants, where FSF's test
      and our "one advances, one retreats" rule both keep the file;
    * FSF has its own scheme for three or more pawns on a file and for pawns crowding
      two files (``17+1``); we follow the WXF page (``P+``, ``P7``, ``3+``);
    * FSF writes a janggi chariot's or cannon's palace diagonal like a straight move
      (``R6+5``); we mark it ``R6/+5``, because ``R6+5`` is also five points straight.
    """
    piece = board.piece_code_at(move.from_square)
    side = piece > 0
    kind = abs(piece)
    place = column(board, move.from_square)
    if kind == PAWN and (place.count > 2 or place.crowded_files > 1):
        return None
    reading = ours.replace(".", "=").replace("/", "")
    if place.count != 2:
        return reading
    file_index = move.from_square % 9
    (other,) = (
        sq
        for sq in range(file_index, 90, 9)
        if sq != move.from_square and board.piece_code_at(sq) == piece
    )
    to_file = other % 9 + move.to_square % 9 - file_index
    to_rank = other // 9 + move.to_square // 9 - move.from_square // 9
    if 0 <= to_file < 9 and 0 <= to_rank < 10:
        target = to_rank * 9 + to_file
        if kind in (KING, ADVISOR):
            fsf_marks = target in PALACE[side]
        elif kind == ELEPHANT and not board.variant.is_janggi:
            fsf_marks = (to_rank < 5) == side
        else:
            fsf_marks = True
        if fsf_marks:
            return reading
    shape = geometry(side, move.from_square, move.to_square)
    return f"{WXF_LETTERS[kind]}{own_file(side, file_index)}{shape.op}{shape.target}".replace(
        ".", "="
    )


@pytest.mark.parametrize("seed", range(4))
def test_wxf_agrees_with_fairy_stockfish(seed: int) -> None:
    pyffish = pytest.importorskip("pyffish")
    boards = playout(XIANGQI, 2000 + seed, 50)
    compared = 0
    for board in (boards[5], boards[25], boards[-1], Board(TANDEM_ROOKS)):
        fen = board.fen()
        for move in board.legal_moves:
            ours = to_wxf(board, move)
            expected = fsf_reading(board, move, ours)
            theirs = pyffish.get_san(
                "xiangqi", fen, move.fsf(), False, pyffish.NOTATION_XIANGQI_WXF
            )
            if expected is not None:
                assert theirs == expected, (fen, move, ours)
                compared += 1
    assert compared > 50


def test_janggi_wxf_agrees_with_fairy_stockfish_off_the_diagonals() -> None:
    pyffish = pytest.importorskip("pyffish")
    boards = playout(JANGGI, 3000, 50)
    for board in (boards[len(boards) // 3], boards[-1]):
        fen = board.fen()
        for move in board.legal_moves:
            if move.is_pass():
                continue  # FSF writes K5=0; we write "pass"
            ours = to_wxf(board, move)
            expected = fsf_reading(board, move, ours)
            theirs = pyffish.get_san("janggi", fen, move.fsf(), False, pyffish.NOTATION_XIANGQI_WXF)
            if expected is not None:
                assert theirs == expected, (fen, move, ours)


@pytest.mark.parametrize("seed", range(3))
def test_korean_coordinates_agree_with_fairy_stockfish(seed: int) -> None:
    """FSF's janggi notation (``H02-83``) uses the same GIB coordinates as we do."""
    pyffish = pytest.importorskip("pyffish")
    letters = {name: letter for letter, name in zip("KAEHRCP", "장사상마차포졸", strict=True)}
    letters["병"] = "P"
    boards = playout(JANGGI, 4000 + seed, 50)
    for board in (boards[len(boards) // 3], boards[-1]):
        fen = board.fen()
        for move in board.legal_moves:
            ours = to_korean(board, move)
            theirs = pyffish.get_san("janggi", fen, move.fsf(), False, pyffish.NOTATION_JANGGI)
            theirs = theirs.rstrip("+#")  # FSF marks checks; GIB coordinates do not
            if move.is_pass():
                assert ours == "한수쉼" and theirs[1:3] == theirs[4:6]
                continue
            dash = "x" if board.is_capture(move) else "-"
            assert theirs == f"{letters[ours[2]]}{ours[:2]}{dash}{ours[3:]}", (fen, move)
            assert parse_korean(board, theirs) == move
