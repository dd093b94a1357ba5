"""Seats and the random names of games and seats."""

from __future__ import annotations

import secrets

__all__ = ["SEATS", "new_game_id", "new_token", "other_seat", "seat_of", "side_of"]

#: The two seats: ``first`` moves first (xiangqi Red, janggi Cho).
SEATS = ("first", "second")


def new_token() -> str:
    """A seat token: 32 URL-safe characters (192 random bits)."""
    return secrets.token_urlsafe(24)


def new_game_id() -> str:
    return secrets.token_urlsafe(9)


def seat_of(side: bool) -> str:
    return "first" if side else "second"


def side_of(seat: str) -> bool:
    return seat == "first"


def other_seat(seat: str) -> str:
    return "second" if seat == "first" else "first"
