"""The game-end rulings: pure functions from a board and its history to an
:class:`Outcome` (with its :class:`Termination` and a sentence for the players).

:mod:`~chuhan.adjudication.mate` (mate, stalemate, insufficient material),
:mod:`~chuhan.adjudication.repetition` (the AXF and Chinese check-and-chase rules),
:mod:`~chuhan.adjudication.move_limit`, :mod:`~chuhan.adjudication.bikjang` and
:mod:`~chuhan.adjudication.counting` (janggi), put in each game's order by
:mod:`~chuhan.adjudication.referee`, which :class:`chuhan.game.Game` calls."""

from chuhan.adjudication.chase import MoveThreats, PieceThreats, analyse_move
from chuhan.adjudication.counting import janggi_points
from chuhan.adjudication.move_limit import COUNTED_CHECKS, MoveLimitCount
from chuhan.adjudication.outcome import Outcome, Termination
from chuhan.adjudication.referee import janggi_outcome, xiangqi_outcome
from chuhan.adjudication.repetition import (
    ChasedPiece,
    RepetitionVerdict,
    SideConduct,
    SideResult,
    judge_repetition,
)

__all__ = [
    "COUNTED_CHECKS",
    "ChasedPiece",
    "MoveLimitCount",
    "MoveThreats",
    "Outcome",
    "PieceThreats",
    "RepetitionVerdict",
    "SideConduct",
    "SideResult",
    "Termination",
    "analyse_move",
    "janggi_outcome",
    "janggi_points",
    "judge_repetition",
    "xiangqi_outcome",
]
