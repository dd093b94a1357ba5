"""Mate, stalemate and insufficient material: the endings read off the current position."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chuhan.adjudication.outcome import Outcome, Termination, side_title
from chuhan.squares import SQUARE_NAMES
from chuhan.variants import CANNON, HORSE, KING, PAWN, ROOK

if TYPE_CHECKING:
    from chuhan.board import Board

__all__ = [
    "has_attacker",
    "insufficient_material_outcome",
    "no_moves_outcome",
    "only_escapes_face_the_kings",
]


def no_moves_outcome(board: Board) -> Outcome:
    """The ruling on a position where the side to move has no legal move: checkmate (the
    checking piece named), or stalemate, which loses as in xiangqi (a janggi rule set
    where it draws says so itself)."""
    variant = board.variant
    loser = board.turn
    winner = not loser
    if board.is_check():
        # A piece that attacks the king is named before a king facing it.
        checkers = sorted(board.checkers(), key=lambda sq: abs(board.piece_code_at(sq)) == KING)
        piece = board.piece_code_at(checkers[0]) if checkers else 0
        detail = (
            f" by the {variant.piece_name(abs(piece))} on {SQUARE_NAMES[checkers[0]]}"
            if piece
            else ""
        )
        return Outcome(
            winner,
            Termination.CHECKMATE,
            f"{side_title(variant, winner)} wins: {side_title(variant, loser)} is "
            f"checkmated{detail}.",
        )
    return Outcome(
        winner,
        Termination.STALEMATE,
        f"{side_title(variant, winner)} wins: {side_title(variant, loser)} has no legal move "
        "(stalemate loses in xiangqi).",
    )


def only_escapes_face_the_kings(board: Board) -> bool:
    """In check, and every legal answer is the king taking a checking piece and so leaving
    the kings facing: that piece is defended only by the other king (Gollon's rule, 1995
    sheet)."""
    if not board.is_check():
        return False
    moves = list(board.legal_moves)
    if not moves:
        return False
    king = board.king(board.turn)
    checkers = set(board.checkers())
    for move in moves:
        if move.from_square != king or move.to_square not in checkers:
            return False
        board.push(move)
        facing = board.is_bikjang()
        board.pop()
        if not facing:
            return False
    return True


#: The piece codes of each side's pieces that can cross the river.
_ATTACKERS = {
    side: frozenset(kind if side else -kind for kind in (ROOK, HORSE, CANNON, PAWN))
    for side in (True, False)
}


def has_attacker(board: Board, side: bool) -> bool:
    """Whether ``side`` has a piece that can cross the river (chariot, horse, cannon,
    soldier)."""
    return not _ATTACKERS[side].isdisjoint(board.placement)


def insufficient_material_outcome(board: Board) -> Outcome | None:
    """Xiangqi: a draw when neither side has a piece that can cross the river."""
    if not has_attacker(board, True) and not has_attacker(board, False):
        return Outcome(
            None,
            Termination.INSUFFICIENT_MATERIAL,
            "Draw: neither side has a piece that can cross the river.",
        )
    return None
