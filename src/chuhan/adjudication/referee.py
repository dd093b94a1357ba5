"""The referee: the rulings of :mod:`chuhan.adjudication` in the order each game applies
them, from a board and its history to an :class:`~chuhan.adjudication.outcome.Outcome`
(or None while the game goes on). :meth:`chuhan.game.Game.outcome` calls it.

Xiangqi: mate and stalemate, repetition (the AXF perpetual check and chase rules of
:mod:`chuhan.adjudication.repetition`), the natural move limit, insufficient material.
Janggi, per rule set: the endings by passing and bikjang, Gollon's rule, mate and
stalemate, repetition, the move limit, settled by point counting where the rule set
counts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from chuhan.adjudication.bikjang import bikjang_makers, passing_outcome
from chuhan.adjudication.counting import settle
from chuhan.adjudication.mate import (
    insufficient_material_outcome,
    no_moves_outcome,
    only_escapes_face_the_kings,
)
from chuhan.adjudication.move_limit import janggi_move_limit_outcome, xiangqi_move_limit_outcome
from chuhan.adjudication.outcome import Outcome, Termination, side_title
from chuhan.adjudication.repetition import judge_repetition

if TYPE_CHECKING:
    from chuhan.board import Board

__all__ = ["janggi_outcome", "janggi_repetition_outcome", "xiangqi_outcome"]

#: The legal move codes of the position, as the caller has them (the game works them out
#: once per position and shares them with its own legality checks).
LegalMoveCodes = Callable[[], Sequence[int]]


def xiangqi_outcome(
    board: Board, *, repetitions: int = 3, legal_move_codes: LegalMoveCodes | None = None
) -> Outcome | None:
    """The ruling on a xiangqi position: mate or stalemate, repetition (``repetitions``
    occurrences), the move limit, insufficient material; None while the game goes on."""
    codes = legal_move_codes() if legal_move_codes is not None else board.legal_move_codes()
    if not codes:
        return no_moves_outcome(board)
    verdict = judge_repetition(board, repetitions=repetitions)
    if verdict is not None:
        return Outcome(verdict.winner, verdict.termination, verdict.reason)
    limited = xiangqi_move_limit_outcome(board)
    if limited is not None:
        return limited
    return insufficient_material_outcome(board)


def janggi_outcome(
    board: Board, *, repetitions: int = 3, legal_move_codes: LegalMoveCodes | None = None
) -> Outcome | None:
    """The ruling on a janggi position under its rule set (a game still choosing its
    setup is the caller's to leave unjudged); None while the game goes on."""
    variant = board.variant
    passed = passing_outcome(board)
    if passed is not None:
        return passed
    if variant.king_defended_mate_draws and only_escapes_face_the_kings(board):
        return Outcome(
            None,
            Termination.CHECKMATE,
            f"Draw: {side_title(variant, board.turn)} is mated by a piece defended only by "
            "the other king (taking it would leave the kings facing): Gollon's rule, 1995 "
            "sheet.",
        )
    codes = legal_move_codes() if legal_move_codes is not None else board.legal_move_codes()
    if not codes:
        outcome = no_moves_outcome(board)
        if outcome.termination is Termination.STALEMATE and not variant.stalemate_loses:
            return Outcome(
                None,
                Termination.STALEMATE,
                f"Draw: {side_title(variant, board.turn)} has no legal move and may not pass "
                "(the 1995 rules call this a stalemate).",
            )
        if variant.facing_forfeits_win and outcome.winner in bikjang_makers(board):
            winner = bool(outcome.winner)
            return Outcome(
                None,
                Termination.CHECKMATE,
                f"Draw: {side_title(variant, winner)} mated, but had made the kings face each "
                "other earlier and so gave up the right to win (1995 rules).",
            )
        return outcome
    repeated = janggi_repetition_outcome(board, repetitions=repetitions)
    if repeated is not None:
        return repeated
    return janggi_move_limit_outcome(board)


def janggi_repetition_outcome(board: Board, *, repetitions: int = 3) -> Outcome | None:
    """Janggi repetition per rule set: under the modern rules the move that brings a
    position back a fourth time loses; otherwise, at ``repetitions`` occurrences, a side
    that checked on every move of the cycle loses, and else the rule set settles it."""
    variant = board.variant
    key = board.zobrist_hash()
    keys = board.position_keys()
    occurrences = keys.count(key) + 1
    if variant.repetition == "modern":
        # Modern rules: the move that brings a position back a fourth time loses.
        if occurrences < 4:
            return None
        loser = not board.turn
        winner = not loser
        return Outcome(
            winner,
            Termination.REPETITION,
            f"{side_title(variant, winner)} wins: {side_title(variant, loser)} repeated the "
            "same position a fourth time (modern rules).",
        )
    if occurrences < repetitions:
        return None
    earlier = [ply for ply, earlier_key in enumerate(keys) if earlier_key == key]
    start = earlier[-(repetitions - 1)]
    checking = _perpetual_checkers(board, start)
    if len(checking) == 1:
        offender = checking[0]
        winner = not offender
        first = board.move_number_at(start)
        last = board.move_number_at(board.ply - 1)
        return Outcome(
            winner,
            Termination.PERPETUAL_CHECK,
            f"{side_title(variant, winner)} wins: {side_title(variant, offender)} gave check "
            f"on every move from move {first} to move {last} (perpetual check).",
        )
    return settle(board, Termination.REPETITION, "the same position occurred three times")


def _perpetual_checkers(board: Board, start: int) -> list[bool]:
    """The sides that gave check with every one of their moves since ply ``start``."""
    replay = board.copy()
    span = board.ply - start
    moves = [replay.pop() for _ in range(span)][::-1]
    always = {True: True, False: True}
    moved = {True: False, False: False}
    for move in moves:
        mover = replay.turn
        replay.push(move)
        moved[mover] = True
        if not replay.is_check():
            always[mover] = False
    return [side for side in (True, False) if moved[side] and always[side]]
