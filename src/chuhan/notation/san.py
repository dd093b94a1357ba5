"""Fairy-Stockfish SAN, both ways, as pychess.org writes it: ``Hc3``, ``Che3``, ``Cxe7+``
(ranks 1-10; a janggi pass is the king "moving" to its own square, ``Ke2``), its long
form ``Hb1-c3`` and bare coordinates ``b1c3``; WinBoard's ranks 0-9 on request, and
WinBoard's soldiers without a letter, as chess SAN writes pawns: ``g5`` (straight on),
``axa3`` (a capture: the soldier's file, ``x``, the target), ``gf5`` (sideways).

The PGN reader and writer (:mod:`chuhan.records.pgn`) and :meth:`chuhan.board.Board.san`
use it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from chuhan.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from chuhan.squares import FILE_NAMES, FILES, RANKS, SQUARE_NAMES, Move
from chuhan.variants import KING, PAWN, WXF_LETTER_TYPES, WXF_LETTERS

if TYPE_CHECKING:
    from chuhan.board import Board

__all__ = [
    "COORDINATES_PATTERN",
    "PASS_WORDS",
    "PAWN_SAN_PATTERN",
    "SAN_PATTERN",
    "parse_san",
    "to_san",
]

#: A SAN move without its check mark: a piece letter, an optional origin file and rank,
#: an optional ``-`` or ``x``, the target.
SAN_PATTERN = re.compile(
    r"^(?P<piece>[KAEBHNRCP])(?P<file>[a-i])?(?P<rank>10|[0-9])?"
    r"(?P<sep>[-x])?(?P<to_file>[a-i])(?P<to_rank>10|[0-9])$"
)
#: A soldier's move without its letter, as WinBoard writes it: the soldier's file, then
#: for a capture or a sideways move ``x`` (captures only) and the target's file, then the
#: target's rank (``g5``, ``axa3``, ``gf5``).
PAWN_SAN_PATTERN = re.compile(
    r"^(?P<file>[a-i])(?:(?P<sep>x)?(?P<to_file>[a-i]))?(?P<to_rank>10|[0-9])$"
)
#: Bare coordinates, ``b1c3``, ``b1-c3`` or ``b1xc3`` (either rank numbering).
COORDINATES_PATTERN = re.compile(r"^(?P<from>[a-i](?:10|[0-9]))[-x]?(?P<to>[a-i](?:10|[0-9]))$")
#: The words read as a pass.
PASS_WORDS = frozenset({"pass", "@@@@", "--", "0000"})


def _square_text(sq: int) -> str:
    """Fairy-Stockfish's square name: file a-i, rank 1-10."""
    return f"{FILE_NAMES[sq % FILES]}{sq // FILES + 1}"


def to_san(board: Board, move: Move) -> str:
    """Fairy-Stockfish SAN for ``move`` (assumed legal): ``Hc3``, ``Che3``, ``Cxe7+``.

    A pass is the king's letter and its own square (``Ke2``), as Fairy-Stockfish writes it.
    """
    piece = board.piece_code_at(move.from_square)
    if not piece:
        raise IllegalMoveError(f"cannot write {move.iccs()!r} in SAN: no piece there")
    kind = abs(piece)
    letter = WXF_LETTERS[kind]
    target = _square_text(move.to_square)
    if move.is_pass():
        return letter + target
    rivals = [
        other.from_square
        for other in board.legal_moves
        if other.to_square == move.to_square
        and other.from_square != move.from_square
        and abs(board.piece_code_at(other.from_square)) == kind
        and not other.is_pass()
    ]
    origin = _square_text(move.from_square)
    file_text, rank_text = origin[0], origin[1:]
    if not rivals:
        hint = ""
    elif all(sq % FILES != move.from_square % FILES for sq in rivals):
        hint = file_text
    elif all(sq // FILES != move.from_square // FILES for sq in rivals):
        hint = rank_text
    else:
        hint = origin
    capture = "x" if board.piece_code_at(move.to_square) else ""
    board.push(move)
    try:
        mark = "#" if board.is_checkmate() else "+" if board.is_check() else ""
    finally:
        board.pop()
    return f"{letter}{hint}{capture}{target}{mark}"


def parse_san(board: Board, text: str, *, first_rank: int = 1) -> Move:
    """Parse SAN or long algebraic (``Hc3``, ``Hb1-c3``, ``b1c3``) and return the legal move
    it names. A king "moving" to its own square is a pass.

    ``first_rank`` is the number of the first mover's back rank: 1 for Fairy-Stockfish and
    pychess.org (ranks 1-10, ``Che3``), 0 for WinBoard / XBoard and UCI2WB (ranks 0-9, as
    ICCS counts them: ``Che2``).
    """
    cleaned = text.strip().rstrip("+#")
    if cleaned.casefold() in PASS_WORDS:
        return _pass_move(board, text)
    if first_rank not in (0, 1):
        raise ValueError(f"first_rank must be 0 or 1, got {first_rank!r}")
    if coords := COORDINATES_PATTERN.match(cleaned):
        origin = _square_number(text, coords["from"], first_rank)
        target = _square_number(text, coords["to"], first_rank)
        return board.parse_iccs(f"{SQUARE_NAMES[origin]}{SQUARE_NAMES[target]}")
    if pawn := PAWN_SAN_PATTERN.match(cleaned):
        return _parse_soldier(board, text, pawn, first_rank)
    match = SAN_PATTERN.match(cleaned)
    if match is None:
        raise InvalidMoveError(f"invalid SAN move {text!r}: expected a form like 'Hc3' or 'Che3'")
    kind = WXF_LETTER_TYPES[match["piece"]]
    target = _square_number(text, match["to_file"] + match["to_rank"], first_rank)
    from_rank = None
    if match["rank"] is not None:
        from_rank = _rank_index(text, match["rank"], first_rank)
    side = 1 if board.turn else -1
    if kind == KING and board.piece_code_at(target) == side * KING and not match["file"]:
        return _pass_move(board, text)
    candidates = [
        move
        for move in board.legal_moves
        if move.to_square == target
        and not move.is_pass()
        and board.piece_code_at(move.from_square) == side * kind
        and (match["file"] is None or FILE_NAMES[move.from_square % FILES] == match["file"])
        and (from_rank is None or move.from_square // FILES == from_rank)
    ]
    if not candidates:
        raise IllegalMoveError(f"illegal SAN move {text!r} in {board.fen()}: no piece can do it")
    if len(candidates) > 1:
        raise AmbiguousMoveError(
            f"ambiguous SAN move {text!r} in {board.fen()}: "
            + ", ".join(move.iccs() for move in candidates)
        )
    return candidates[0]


def _parse_soldier(board: Board, text: str, match: re.Match[str], first_rank: int) -> Move:
    """A soldier's move without its letter (``g5``, ``axa3``, ``gf5``): the soldier on the
    first file that can go to the target. A bare target (``f5``) with no soldier behind it
    is the one soldier that can reach it from the side, when there is one only."""
    target = _square_number(
        text, (match["to_file"] or match["file"]) + match["to_rank"], first_rank
    )
    side = 1 if board.turn else -1
    reaching = [
        move
        for move in board.legal_moves
        if move.to_square == target
        and not move.is_pass()
        and board.piece_code_at(move.from_square) == side * PAWN
    ]
    candidates = [m for m in reaching if FILE_NAMES[m.from_square % FILES] == match["file"]]
    if not candidates and match["to_file"] is None:
        candidates = reaching
    if not candidates:
        raise IllegalMoveError(f"illegal SAN move {text!r} in {board.fen()}: no soldier can do it")
    if len(candidates) > 1:
        raise AmbiguousMoveError(
            f"ambiguous SAN move {text!r} in {board.fen()}: "
            + ", ".join(move.iccs() for move in candidates)
        )
    return candidates[0]


def _rank_index(text: str, rank: str, first_rank: int) -> int:
    index = int(rank) - first_rank
    if not 0 <= index < RANKS:
        last = RANKS - 1 + first_rank
        raise InvalidMoveError(
            f"invalid SAN move {text!r}: rank {rank} is outside {first_rank}-{last}"
        )
    return index


def _square_number(text: str, name: str, first_rank: int) -> int:
    return FILE_NAMES.index(name[0]) + _rank_index(text, name[1:], first_rank) * FILES


def _pass_move(board: Board, text: str) -> Move:
    king = board.king(board.turn)
    move = Move(king, king)
    if not board.is_legal(move):
        raise IllegalMoveError(f"illegal pass {text!r} in {board.fen()}")
    return move
