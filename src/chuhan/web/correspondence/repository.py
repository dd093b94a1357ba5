"""The rows the correspondence feature reads: the correspondence games in play with their
stored clocks (for the deadline sweep) and the games in progress an account holds a seat
in (for "your games"). Reads only; the round writes the games."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from chuhan.web.db.statements import All, Body

__all__ = ["HeldGame", "StoredClock", "correspondence_clocks", "games_in_progress"]

#: The correspondence games in play and their clocks as last stored (the control's
#: ``days`` is written only for correspondence controls: TimeControl.to_dict).
CORRESPONDENCE_CLOCKS = (
    "SELECT id, clock, clock_at FROM games "
    "WHERE status = 'playing' AND clock IS NOT NULL AND time_control LIKE '%\"days\"%'"
)
#: The account's games not over, with its seat's token, the opponent's account name and
#: whether the game is rated.
ACCOUNT_GAMES_IN_PROGRESS = """
SELECT ga.seat, g.id, g.kind, g.variant, g.rules, g.names, g.time_control, g.start_fen,
       g.moves, g.status, g.clock, g.clock_at, g.updated,
       (SELECT s.token FROM seats s WHERE s.game_id = g.id AND s.seat = ga.seat) AS token,
       (SELECT a.name FROM game_accounts o JOIN accounts a ON a.id = o.account_id
        WHERE o.game_id = g.id AND o.seat <> ga.seat) AS opponent,
       (SELECT count(*) FROM rated_games r WHERE r.game_id = g.id) AS rated
FROM game_accounts ga JOIN games g ON g.id = ga.game_id
WHERE ga.account_id = ? AND g.status <> 'over'
ORDER BY g.updated DESC
LIMIT ?
"""


@dataclass(frozen=True, slots=True)
class StoredClock:
    """A correspondence game's clock as its row stores it (``clock_at``: when read)."""

    game_id: str
    clock: dict[str, Any]
    clock_at: float


@dataclass(frozen=True, slots=True)
class HeldGame:
    """A game in progress in which an account holds ``seat``."""

    game_id: str
    seat: str
    token: str | None
    kind: str
    variant: str
    rules: str
    names: dict[str, str]
    time_control: dict[str, Any] | None
    start_fen: str | None
    plies: int
    status: str
    clock: dict[str, Any] | None
    clock_at: float | None
    updated: float
    opponent: str | None
    rated: bool


def correspondence_clocks() -> Body[list[StoredClock]]:
    found = yield All(CORRESPONDENCE_CLOCKS, ())
    return [
        StoredClock(str(r["id"]), dict(json.loads(r["clock"])), float(r["clock_at"]))
        for r in found
        if r["clock_at"] is not None
    ]


def games_in_progress(account_id: str, limit: int) -> Body[list[HeldGame]]:
    found = yield All(ACCOUNT_GAMES_IN_PROGRESS, (account_id, limit))
    return [
        HeldGame(
            game_id=str(r["id"]),
            seat=str(r["seat"]),
            token=None if r["token"] is None else str(r["token"]),
            kind=str(r["kind"]),
            variant=str(r["variant"]),
            rules=str(r["rules"]),
            names=dict(json.loads(r["names"])),
            time_control=None if r["time_control"] is None else json.loads(r["time_control"]),
            start_fen=None if r["start_fen"] is None else str(r["start_fen"]),
            plies=len(str(r["moves"] or "").split()),
            status=str(r["status"]),
            clock=None if r["clock"] is None else dict(json.loads(r["clock"])),
            clock_at=None if r["clock_at"] is None else float(r["clock_at"]),
            updated=float(r["updated"]),
            opponent=None if r["opponent"] is None else str(r["opponent"]),
            rated=bool(r["rated"]),
        )
        for r in found
    ]
