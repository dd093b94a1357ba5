"""Game-end rulings: how a game ends (:class:`Outcome`, :class:`Termination`), and the
rulings that need more than the current position: repetition (with the AXF
check-and-chase rules)."""

from chuhan.adjudication.chase import MoveThreats, PieceThreats, analyse_move
from chuhan.adjudication.outcome import Outcome, Termination
from chuhan.adjudication.repetition import (
    ChasedPiece,
    RepetitionVerdict,
    SideConduct,
    SideResult,
    judge_repetition,
)

__all__ = [
    "ChasedPiece",
    "MoveThreats",
    "Outcome",
    "PieceThreats",
    "RepetitionVerdict",
    "SideConduct",
    "SideResult",
    "Termination",
    "analyse_move",
    "judge_repetition",
]
