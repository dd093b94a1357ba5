"""Janggi's bikjang (the kings facing each other) and the endings by passing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chuhan.adjudication.counting import settle
from chuhan.adjudication.outcome import Outcome, Termination

if TYPE_CHECKING:
    from chuhan.board import Board

__all__ = ["bikjang_makers", "passing_outcome"]


def bikjang_makers(board: Board) -> set[bool]:
    """The sides that made the kings face each other at some point of the game."""
    replay = board.root()
    was_facing = replay.is_bikjang()
    makers: set[bool] = set()
    for move in board.move_stack:
        mover = replay.turn
        replay.push(move)
        facing = replay.is_bikjang()
        if facing and not was_facing and not move.is_pass():
            makers.add(mover)
        was_facing = facing
    return makers


def passing_outcome(board: Board) -> Outcome | None:
    """The ending by passing, settled by the rule set: bikjang accepted by a pass (where
    the rule set lets a pass answer it), or both sides passing in a row."""
    if not board.is_game_over_by_passing():
        return None
    last = board.copy()
    last.pop()
    if board.variant.bikjang_pass and last.is_bikjang():
        return settle(board, Termination.BIKJANG, "bikjang was accepted by a pass")
    return settle(board, Termination.DOUBLE_PASS, "both sides passed in a row")
