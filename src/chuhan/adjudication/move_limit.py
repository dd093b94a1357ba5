"""The move limits: xiangqi's natural limit (plies without a capture, a side's checks
beyond its first ten not counted) and janggi's, which its rule set settles."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from chuhan.adjudication.counting import settle
from chuhan.adjudication.outcome import Outcome, Termination

if TYPE_CHECKING:
    from chuhan.board import Board

__all__ = [
    "COUNTED_CHECKS",
    "MoveLimitCount",
    "janggi_move_limit_outcome",
    "xiangqi_move_limit_outcome",
]

#: Under the Asian rules' natural move limit, a side's checks beyond this many in the span
#: without a capture do not count towards the limit.
COUNTED_CHECKS = 10


@dataclass
class MoveLimitCount:
    """The xiangqi natural move limit's count: plies since the last capture that count
    towards the limit, and each side's checks in that span (a side's checks beyond its
    first :data:`COUNTED_CHECKS` do not count). The referee counts a game with it; the
    engine carries the count of its root along the lines it searches."""

    counted: int
    checks: dict[bool, int]

    @classmethod
    def of(cls, board: Board) -> MoveLimitCount:
        """The count of ``board``'s game so far (plies before its recorded history, as
        the FEN's halfmove clock gives them, all count)."""
        replay = board.copy()
        span = min(board.halfmove_clock, board.ply)
        moves = [replay.pop() for _ in range(span)][::-1]
        count = cls(board.halfmove_clock - span, {True: 0, False: 0})
        for move in moves:
            mover = replay.turn
            replay.push(move)
            count.add(mover, replay.is_check())
        return count

    def add(self, mover: bool, gives_check: bool) -> None:
        """Count one more ply without a capture, by ``mover``."""
        if gives_check:
            self.checks[mover] += 1
            if self.checks[mover] > COUNTED_CHECKS:
                return
        self.counted += 1


def xiangqi_move_limit_outcome(board: Board) -> Outcome | None:
    """A draw when the rule set's natural move limit is reached, counted by
    :class:`MoveLimitCount`."""
    limit = board.variant.move_limit_plies
    if limit and board.halfmove_clock >= limit:
        counted = MoveLimitCount.of(board).counted
        if counted >= limit:
            return Outcome(
                None,
                Termination.MOVE_LIMIT,
                f"Draw: {limit // 2} moves by each side without a capture (checks beyond a "
                "side's first ten in that span do not count).",
            )
    return None


def janggi_move_limit_outcome(board: Board) -> Outcome | None:
    """The rule set's move limit reached: settled on points or drawn, as it says."""
    limit = board.variant.move_limit_plies
    if limit and board.halfmove_clock >= limit:
        return settle(
            board,
            Termination.MOVE_LIMIT,
            f"{limit // 2} moves by each side without a capture",
        )
    return None
