"""Game-end rulings that need more than the current position: repetition (with the AXF
check-and-chase rules) for now."""

from chuhan.adjudication.chase import MoveThreats, PieceThreats, analyse_move
from chuhan.adjudication.repetition import (
    ChasedPiece,
    RepetitionVerdict,
    SideConduct,
    Termination,
    judge_repetition,
)

__all__ = [
    "ChasedPiece",
    "MoveThreats",
    "PieceThreats",
    "RepetitionVerdict",
    "SideConduct",
    "Termination",
    "analyse_move",
    "judge_repetition",
]
