"""Move notations, both ways: ICCS and Fairy-Stockfish coordinates, WXF, Chinese characters,
Korean (GIB) janggi coordinates, and Fairy-Stockfish SAN (:mod:`chuhan.notation.san`).

Every function takes the board first. Writers (``to_*``, :func:`format_move`) describe a
move assumed legal in that position; parsers (``parse_*``, :func:`parse_move`) return the
legal :class:`~chuhan.squares.Move` a string names or raise
:class:`~chuhan.errors.InvalidMoveError` (not this notation),
:class:`~chuhan.errors.IllegalMoveError` (no legal move fits) or
:class:`~chuhan.errors.AmbiguousMoveError` (several do). The board module does not import
this package; notation depends on the board, not the other way round.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from chuhan.errors import InvalidMoveError
from chuhan.notation.chinese import parse_chinese, to_chinese
from chuhan.notation.korean import KOREAN_PASS, parse_korean, to_korean
from chuhan.notation.san import parse_san, to_san
from chuhan.notation.wxf import PASS_TOKENS, WXF_PASS, parse_wxf, resolve_pass, to_wxf
from chuhan.squares import Move

if TYPE_CHECKING:
    from chuhan.board import Board

__all__ = [
    "KOREAN_PASS",
    "NOTATIONS",
    "PASS_TOKENS",
    "WXF_PASS",
    "format_move",
    "parse_chinese",
    "parse_korean",
    "parse_move",
    "parse_san",
    "parse_wxf",
    "to_chinese",
    "to_korean",
    "to_san",
    "to_wxf",
]

#: The names :func:`format_move` accepts.
NOTATIONS = ("iccs", "fsf", "wxf", "chinese", "chinese-simplified", "korean")

_ICCS = re.compile(r"[a-i][0-9]-?[a-i][0-9]", re.IGNORECASE)
_KOREAN = re.compile(r"[0-9]{2}\S[0-9]{2}\S?(?:장군|멍군)?|[A-Za-z][0-9]{2}[-x][0-9]{2}")
_EXAMPLES = "ICCS ('h2e2'), WXF ('C2.5'), Chinese ('炮二平五') or Korean ('02마83')"


def format_move(board: Board, move: Move, notation: str = "iccs") -> str:
    """Write ``move`` (assumed legal on ``board``) in one of :data:`NOTATIONS`.

    ``"iccs"`` is ``h2e2`` (ranks 0–9), ``"fsf"`` Fairy-Stockfish's ``h3e3`` (ranks 1–10);
    the others call :func:`to_wxf`, :func:`to_chinese` (``"chinese"`` in traditional
    characters, ``"chinese-simplified"`` in simplified ones) or :func:`to_korean`. Raises
    ``ValueError`` for an unknown notation name.
    """
    name = notation.strip().lower()
    if name == "iccs":
        return move.iccs()
    if name == "fsf":
        return move.fsf()
    if name == "wxf":
        return to_wxf(board, move)
    if name == "chinese":
        return to_chinese(board, move)
    if name == "chinese-simplified":
        return to_chinese(board, move, simplified=True)
    if name == "korean":
        return to_korean(board, move)
    raise ValueError(f"unknown notation {notation!r}: expected one of {', '.join(NOTATIONS)}")


def parse_move(board: Board, text: str) -> Move:
    """Parse a move in any supported notation and return the legal move it names.

    The notation is told by the text's shape: ICCS coordinates (``h2e2``, ``h2-e2``), Korean
    coordinates (two digits, a name, two digits: ``02마83``, or ``H02-83``), Chinese (any
    other text with CJK characters: ``炮二平五``), else WXF (``C2.5``). ``pass``, 한수쉼, 쉼
    and 停著 are passes; full-width letters, digits and signs (``Ｃ２＝５``) read as their
    ASCII forms. Fairy-Stockfish's ranks 1–10 are not guessed at, since ``h3e3``
    is also valid ICCS: use ``board.parse_fsf`` for those.

    Raises :class:`InvalidMoveError` when the text fits no notation, and
    :class:`IllegalMoveError` or :class:`AmbiguousMoveError` as the notation's parser does.
    """
    if not isinstance(text, str):
        raise InvalidMoveError(f"invalid move {text!r}: expected a string")
    cleaned = "".join(text.split())
    if not cleaned:
        raise InvalidMoveError(f"invalid move {text!r}: empty string; expected {_EXAMPLES}")
    if not cleaned.isascii():
        # Full-width WXF or ICCS (``Ｃ２＝５``), as Chinese databases write it: the same
        # move in ASCII. Chinese notation keeps its characters and is left alone.
        folded = unicodedata.normalize("NFKC", cleaned)
        if folded.isascii():
            cleaned = text = folded
    if cleaned.casefold() in PASS_TOKENS:
        return resolve_pass(board, text, "pass")
    try:
        if _ICCS.fullmatch(cleaned):
            return board.parse_iccs(cleaned)
        if _KOREAN.fullmatch(cleaned):
            return parse_korean(board, text)
        if not cleaned.isascii():
            return parse_chinese(board, text)
        return parse_wxf(board, text)
    except InvalidMoveError as error:
        raise InvalidMoveError(f"{error} (expected {_EXAMPLES})") from error
