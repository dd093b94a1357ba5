"""Janggi's counting: the point totals, and the ending they settle (a win on points, or
a draw under rule sets that do not count)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chuhan.adjudication.outcome import Outcome, Termination

if TYPE_CHECKING:
    from chuhan.board import Board

__all__ = ["janggi_points", "points_outcome", "settle"]


def janggi_points(board: Board) -> dict[str, float]:
    """Material points of both janggi sides, Han's bonus (1.5 points) included."""
    values = board.variant.piece_points
    cho = han = 0.0
    for piece in board.piece_code_map().values():
        if piece > 0:
            cho += values[piece]
        else:
            han += values[-piece]
    return {"cho": cho, "han": han + board.variant.second_player_bonus}


def points_outcome(board: Board, termination: Termination, why: str) -> Outcome:
    """The side with more points wins (Han's bonus makes a tie impossible); ``why`` says
    what ended the game."""
    points = janggi_points(board)
    winner = points["cho"] > points["han"]
    name = "Cho" if winner else "Han"
    return Outcome(
        winner,
        termination,
        f"{name} wins on points, {points['cho']:g} to {points['han']:g} (Cho–Han, Han's 1.5 "
        f"included): {why}.",
        points,
    )


def settle(board: Board, termination: Termination, why: str) -> Outcome:
    """A game ended without a mate: on points where the rule set counts them, else a
    draw that shows the points."""
    if board.variant.settlement == "points":
        return points_outcome(board, termination, why)
    return Outcome(None, termination, f"Draw: {why}.", janggi_points(board))
