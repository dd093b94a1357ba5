"""How a game ended: the one :class:`Termination` and the one :class:`Outcome` of the
package, which every ruling in :mod:`chuhan.adjudication` returns and
:meth:`chuhan.game.Game.outcome` reports."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from chuhan.variants import Variant

__all__ = ["Outcome", "Termination", "side_title"]


class Termination(enum.Enum):
    """How a game ended."""

    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    PERPETUAL_CHECK = "perpetual_check"
    PERPETUAL_CHASE = "perpetual_chase"
    PERPETUAL_MATE_THREAT = "perpetual_mate_threat"
    MIXED_PERPETUAL_ATTACK = "mixed_perpetual_attack"
    REPETITION_DRAW = "repetition_draw"
    REPETITION = "repetition"
    MOVE_LIMIT = "move_limit"
    INSUFFICIENT_MATERIAL = "insufficient_material"
    BIKJANG = "bikjang"
    DOUBLE_PASS = "double_pass"
    POINTS = "points"
    RESIGNATION = "resignation"
    TIME = "time"
    AGREEMENT = "agreement"
    #: A player left a timed game and the opponent claimed the win (or a draw).
    ABANDONMENT = "abandonment"
    #: The game was called off before it started (before each side's first move): no one
    #: won or drew; the result is ``*``.
    ABORTED = "aborted"


@dataclass(frozen=True)
class Outcome:
    """The result of a finished game."""

    #: The winning side (``True``: xiangqi red / janggi Cho), or None for a draw.
    winner: bool | None
    termination: Termination
    #: A sentence for the players saying who won, how, and why.
    reason: str
    #: Janggi point totals when points decided (or were shown): ``{"cho": .., "han": ..}``.
    points: dict[str, float] | None = None

    def result(self) -> str:
        """``"1-0"``, ``"0-1"`` or ``"1/2-1/2"`` (first mover's score first); ``"*"`` for
        an aborted game."""
        if self.termination is Termination.ABORTED:
            return "*"
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner else "0-1"


def side_title(variant: Variant, side: bool) -> str:
    """The side's name as a ruling's sentence starts it: ``"Red"``, ``"Cho"``."""
    return variant.side_name(side).capitalize()
