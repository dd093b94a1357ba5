"""The rows the correspondence feature reads: the correspondence games in play with their
stored clocks (for the deadline sweep) and the games in progress an account holds a seat
in (for "your games"), which the round writes; and the vacations each account took
(``vacations``, step 13 of :mod:`chuhan.web.db.migrations`), which it writes itself."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from chuhan.web.db.statements import All, Body, Do, Lock

__all__ = [
    "DAY",
    "HeldGame",
    "StoredClock",
    "Vacation",
    "VacationRefused",
    "correspondence_clocks",
    "end_vacation",
    "games_in_progress",
    "read_vacation",
    "take_vacation",
    "vacations_to_mend",
]

DAY = 86400.0

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


# ---------------------------------------------------------------------- vacations

VACATIONS_OF = "SELECT starts, ends FROM vacations WHERE account_id = ? ORDER BY starts"
VACATION_ADD = "INSERT INTO vacations (account_id, starts, ends) VALUES (?, ?, ?)"
VACATION_END = "UPDATE vacations SET ends = ? WHERE account_id = ? AND starts = ?"
#: The account's correspondence games in play and its seat in each.
ACCOUNT_CORRESPONDENCE_GAMES = (
    "SELECT ga.game_id, ga.seat FROM game_accounts ga JOIN games g ON g.id = ga.game_id "
    "WHERE ga.account_id = ? AND g.status = 'playing' AND g.time_control LIKE '%\"days\"%'"
)


class VacationRefused(ValueError):
    """A vacation the account may not take (longer than the days it has left this year,
    not a whole number of days, one already running) or end (none running)."""


@dataclass(frozen=True, slots=True)
class Vacation:
    """An account's vacations as of ``now``: the calendar year's allowance, the days used
    of it, and the vacation running (``starts``, ``until``), if any."""

    year: int
    allowance: int
    used: int
    starts: float | None
    until: float | None

    @property
    def left(self) -> int:
        return max(0, self.allowance - self.used)

    def to_json(self) -> dict[str, Any]:
        return {
            "year": self.year,
            "allowance": self.allowance,
            "used": self.used,
            "left": self.left,
            "until_ms": None if self.until is None else round(self.until * 1000),
        }


def _year(at: float) -> int:
    return datetime.fromtimestamp(at, UTC).year


def _days(starts: float, ends: float) -> int:
    """The whole days a vacation from ``starts`` to ``ends`` counts (a day begun counts)."""
    return max(0, math.ceil((ends - starts) / DAY - 1e-9))


def read_vacation(account_id: str, allowance: int, now: float) -> Body[Vacation]:
    rows = yield All(VACATIONS_OF, (account_id,))
    year = _year(now)
    used, starts, until = 0, None, None
    for row in rows:
        begun, ends = float(row["starts"]), float(row["ends"])
        if _year(begun) == year:
            used += _days(begun, ends)
        if begun <= now < ends:
            starts, until = begun, ends
    return Vacation(year, allowance, used, starts, until)


def _games_of(account_id: str) -> Body[list[tuple[str, str]]]:
    rows = yield All(ACCOUNT_CORRESPONDENCE_GAMES, (account_id,))
    return [(str(r["game_id"]), str(r["seat"])) for r in rows]


def take_vacation(
    account_id: str, days: int, allowance: int, now: float
) -> Body[tuple[Vacation, list[tuple[str, str]]]]:
    """Start a vacation of ``days`` days at ``now``; the vacations as they are then and the
    account's correspondence games in play (``(game, seat)``), or :class:`VacationRefused`."""
    yield Lock(f"vacation {account_id}")
    held = yield from read_vacation(account_id, allowance, now)
    if held.until is not None:
        shown = datetime.fromtimestamp(held.until, UTC).strftime("%Y-%m-%d %H:%M UTC")
        raise VacationRefused(f"you are on vacation already, until {shown}; end it first")
    if days > held.left:
        raise VacationRefused(
            f"a vacation of {days} days is longer than the {held.left} days you have left "
            f"in {held.year} ({allowance} a year, {held.used} used)"
        )
    until = now + days * DAY
    yield Do(VACATION_ADD, (account_id, now, until))
    games = yield from _games_of(account_id)
    return Vacation(held.year, allowance, held.used + days, now, until), games


def end_vacation(
    account_id: str, allowance: int, now: float
) -> Body[tuple[Vacation, list[tuple[str, str]]]]:
    """End the account's vacation at ``now`` (the days not begun given back); the
    vacations as they are then and the account's correspondence games in play."""
    yield Lock(f"vacation {account_id}")
    held = yield from read_vacation(account_id, allowance, now)
    if held.starts is None:
        raise VacationRefused("you are not on vacation")
    yield Do(VACATION_END, (now, account_id, held.starts))
    games = yield from _games_of(account_id)
    after = yield from read_vacation(account_id, allowance, now)
    return after, games


#: Each seat of an account in a correspondence game in play, its stored clock, and until
#: when the account is on vacation at the time given (twice), if it is.
VACATION_SEATS = """
SELECT ga.game_id, ga.seat, g.clock,
       (SELECT max(v.ends) FROM vacations v
        WHERE v.account_id = ga.account_id AND v.starts <= ? AND v.ends > ?) AS until
FROM game_accounts ga JOIN games g ON g.id = ga.game_id
WHERE g.status = 'playing' AND g.clock IS NOT NULL AND g.time_control LIKE '%"days"%'
"""


def vacations_to_mend(now: float) -> Body[list[tuple[str, str, float | None]]]:
    """The seats whose game's clock does not have their account's vacation as it is at
    ``now`` (a game begun during a vacation; a process that stopped between a vacation's
    write and its games' events): ``(game, seat, until)``, ``until`` None to end it."""
    rows = yield All(VACATION_SEATS, (now, now))
    mend: list[tuple[str, str, float | None]] = []
    for row in rows:
        seat = str(row["seat"])
        kept = json.loads(row["clock"]).get("vacation", {}).get(seat)
        kept = None if kept is None or float(kept) <= now else float(kept)
        until = None if row["until"] is None else float(row["until"])
        if kept != until:
            mend.append((str(row["game_id"]), seat, until))
    return mend
