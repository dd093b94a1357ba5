"""Korean janggi notation as in GIB game records: ``02마83``.

A move is the from-point (row, then file), the piece name, the to-point. Rows run 1–9 and
then 0 down from Han's back rank (rank 9 is row 1, rank 1 row 9, Cho's back rank 0 row 0);
files run 1–9 from Cho's left (file ``a`` is 1). So Cho's horse from b0 to c2 is ``02마83``.
The points name the move completely; the piece name is a check on the reader's side.

Names (Hangul): 장 king, 사 guard, 상 elephant, 마 horse, 차 chariot, 포 cannon, 졸 Cho's
soldier and 병 Han's. With ``hanja=True``: 楚/漢 for the kings, 士 象 馬 車 包, 卒/兵. A
pass is written 한수쉼 (the Korean "passing a move").

Parsing also accepts 궁, 왕, 초 and 한 for the king, either soldier name for either side, the
hanja (and the Chinese 將 帥 炮 砲 车 马 相 仕), spaces between the parts, Fairy-Stockfish's
janggi form (``H02-83``: letter, from, ``-`` or ``x`` for a capture, to), and ``pass``,
한수쉼 or 쉼 for a pass. Real GIB files add what the move does after the to-point: the
captured piece's name (``74상42병``) and 장군 (or 장) when it gives check (``85포55장군``;
멍군 when it answers one); the reader checks each against the board and refuses a suffix
that is wrong. The coordinates make sense on a xiangqi board too, so both games are served.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from chuhan.errors import InvalidMoveError
from chuhan.notation.wxf import NOTATION_NAMES, PASS_TOKENS, illegal, mover, resolve_pass
from chuhan.squares import FILES, RANKS, SQUARE_NAMES, Move, square
from chuhan.variants import (
    ADVISOR,
    CANNON,
    ELEPHANT,
    HORSE,
    KING,
    PAWN,
    ROOK,
    WXF_LETTER_TYPES,
)

if TYPE_CHECKING:
    from chuhan.board import Board

__all__ = ["KOREAN_PASS", "parse_korean", "to_korean"]

#: What :func:`to_korean` writes for a pass.
KOREAN_PASS = "한수쉼"

_KINDS = (KING, ADVISOR, ELEPHANT, HORSE, ROOK, CANNON, PAWN)
# Names by hanja and side, in the order K A E H R C P.
_NAMES = {
    (False, True): dict(zip(_KINDS, "장사상마차포졸", strict=True)),
    (False, False): dict(zip(_KINDS, "장사상마차포병", strict=True)),
    (True, True): dict(zip(_KINDS, "楚士象馬車包卒", strict=True)),
    (True, False): dict(zip(_KINDS, "漢士象馬車包兵", strict=True)),
}
_NAME_TYPES = {
    **{ch: KING for ch in "장궁왕초한楚漢汉將将帥帅"},
    **{ch: ADVISOR for ch in "사士仕"},
    **{ch: ELEPHANT for ch in "상象相"},
    **{ch: HORSE for ch in "마馬马傌"},
    **{ch: ROOK for ch in "차車车俥"},
    **{ch: CANNON for ch in "포包炮砲"},
    **{ch: PAWN for ch in "졸병卒兵"},
}
_GIB = re.compile(r"([0-9])([0-9])(\S)([0-9])([0-9])(\S??)(장군|멍군)?")
_FSF_JANGGI = re.compile(r"([A-Za-z])([0-9])([0-9])[-x]([0-9])([0-9])")


def korean_square(sq: int) -> str:
    """The GIB coordinates of a square: row (1–9, then 0 for Cho's back rank) and file."""
    rank, file_index = divmod(sq, FILES)
    return f"{(RANKS - rank) % RANKS}{file_index + 1}"


def to_korean(board: Board, move: Move, *, hanja: bool = False) -> str:
    """The GIB form of ``move`` (assumed legal): ``"02마83"``; a pass is ``"한수쉼"``."""
    piece = mover(board, move, "Korean")
    if move.is_pass():
        return KOREAN_PASS
    name = _NAMES[hanja, piece > 0][abs(piece)]
    return f"{korean_square(move.from_square)}{name}{korean_square(move.to_square)}"


def _invalid(text: str, reason: str) -> InvalidMoveError:
    return InvalidMoveError(f"invalid Korean move {text!r}: {reason}")


def _square(text: str, row: str, file: str) -> int:
    if file == "0":
        raise _invalid(text, f"file 0 in {row}{file} is out of range (files are 1-9)")
    return square(int(file) - 1, (RANKS - int(row)) % RANKS)


def parse_korean(board: Board, text: str) -> Move:
    """Parse a Korean GIB move (``"02마83"``, ``"한수쉼"``) and return it if legal.

    Raises :class:`InvalidMoveError` for text that is not this notation and
    :class:`IllegalMoveError` when the named piece is not there or cannot make the move.
    """
    if text.strip().casefold() in PASS_TOKENS:
        return resolve_pass(board, text, "Korean")
    cleaned = "".join(text.split())
    if not cleaned:
        raise _invalid(text, "empty string")
    if match := _GIB.fullmatch(cleaned):
        name = match[3]
        kind = _NAME_TYPES.get(name)
        if kind is None:
            raise _invalid(
                text, f"unknown piece name {name!r} (expected 장 사 상 마 차 포 졸 병 or hanja)"
            )
        rows_files = (match[1], match[2], match[4], match[5])
        captured_name, check_word = match[6], match[7] or ""
    elif match := _FSF_JANGGI.fullmatch(cleaned):
        name = match[1]
        found = WXF_LETTER_TYPES.get(name.upper())
        if found is None:
            raise _invalid(text, f"unknown piece letter {name!r} (expected K A E H R C P)")
        kind = found
        rows_files = (match[2], match[3], match[4], match[5])
        captured_name, check_word = "", ""
    else:
        raise _invalid(
            text,
            "expected row and file of the from-point, the piece name, row and file of the "
            "to-point ('02마83'), or a pass ('한수쉼')",
        )
    from_square = _square(text, rows_files[0], rows_files[1])
    to_square = _square(text, rows_files[2], rows_files[3])
    where = f"{korean_square(from_square)} ({SQUARE_NAMES[from_square]})"
    piece = board.piece_code_at(from_square)
    if not piece:
        raise illegal("Korean", text, board, f"there is no piece on {where}")
    if (piece > 0) != board.turn:
        raise illegal(
            "Korean", text, board, f"the piece on {where} belongs to the side not to move"
        )
    if abs(piece) != kind:
        raise illegal(
            "Korean",
            text,
            board,
            f"the piece on {where} is a {NOTATION_NAMES[abs(piece)]}, not a {NOTATION_NAMES[kind]} "
            f"({name})",
        )
    move = Move(from_square, to_square)
    if not board.is_legal(move):
        target = f"{korean_square(to_square)} ({SQUARE_NAMES[to_square]})"
        raise illegal(
            "Korean",
            text,
            board,
            f"the {NOTATION_NAMES[kind]} on {where} cannot move to {target} in this position",
        )
    if captured_name or check_word:
        _check_suffix(board, text, move, captured_name, check_word)
    return move


def _check_suffix(board: Board, text: str, move: Move, captured_name: str, check_word: str) -> None:
    """Refuse a GIB suffix that says something the move does not do: a captured piece's
    name (either soldier name for either side's soldier) or 장군 (the move gives check) /
    멍군 (the mover was in check)."""
    target = f"{korean_square(move.to_square)} ({SQUARE_NAMES[move.to_square]})"
    victim = board.piece_code_at(move.to_square)
    if _NAME_TYPES.get(captured_name) == KING and not check_word:
        # No king is ever captured: a lone 장 after the to-point is the check word cut short.
        captured_name, check_word = "", "장군"
    if captured_name:
        named = _NAME_TYPES.get(captured_name)
        if named is None:
            raise _invalid(
                text,
                f"unknown suffix {captured_name!r} after the to-point (expected the captured "
                "piece's name, 장군 or 멍군)",
            )
        if not victim:
            raise illegal(
                "Korean", text, board, f"it names a captured {captured_name} but {target} is empty"
            )
        if abs(victim) != named:
            raise illegal(
                "Korean",
                text,
                board,
                f"it names a captured {NOTATION_NAMES[named]} ({captured_name}) but the piece "
                f"on {target} is a {NOTATION_NAMES[abs(victim)]}",
            )
    if check_word == "멍군" and not board.is_check():
        raise illegal("Korean", text, board, "멍군 answers a check, and the mover is not in check")
    if check_word == "장군":
        board.push(move)
        try:
            gives_check = board.is_check()
        finally:
            board.pop()
        if not gives_check:
            raise illegal("Korean", text, board, "it says 장군 (check) but the move gives none")
