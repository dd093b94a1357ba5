"""Game clocks: Fischer increment, byo-yomi (periods of a fixed number of seconds, the
janggi custom) and correspondence (days per move), with no hidden timer.

A correspondence control (``TimeControl.correspondence(3)``, written ``"3d"``) gives the
side to move N days from the opponent's last move: each move resets the opponent's
allowance to the full N days (no increment, nothing banked), so the deadline is the last
move's time plus N days, and a clock restored from its snapshot keeps it.

The clock never reads the time itself unless asked to: every method takes ``now`` (seconds
from any monotonic source), so a server can drive it from its own clock, persist it with
:meth:`Clock.to_dict` and restore it after a restart, and tests can replay exact timings.
"""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass
from typing import Any

from chuhan.errors import ChuhanError


class TimeControlError(ChuhanError):
    """A time control string or value that makes no sense."""


#: The days per move a correspondence control may give.
CORRESPONDENCE_DAYS = (1, 2, 3, 5, 7, 10, 14)
_DAY = 86400.0


#: A time control's text (:meth:`TimeControl.parse`), and a correspondence control's.
_TIME_CONTROL_PATTERN = re.compile(
    r"^\s*(?P<base>\d+(?:\.\d+)?)(?P<unit>[ms]?)"
    r"(?:\s*\+\s*(?P<inc>\d+(?:\.\d+)?)s?)?"
    r"(?:\s*\+?\s*(?P<periods>\d+)\s*[x×*]\s*(?P<period>\d+(?:\.\d+)?)s?)?\s*$"
)

_DAYS_PATTERN = re.compile(r"^\s*(?P<days>[^\sdD]*)\s*(?:d|days?)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class TimeControl:
    """Main time per side, Fischer increment per move, and byo-yomi periods.

    ``TimeControl(600, increment=5)`` is 10 minutes + 5 seconds a move;
    ``TimeControl(1200, periods=3, period_seconds=30)`` is 20 minutes then 3 × 30 s;
    ``TimeControl.correspondence(3)`` is 3 days per move (``base`` the 3 days in seconds,
    ``days`` 3).
    """

    base: float
    increment: float = 0.0
    periods: int = 0
    period_seconds: float = 0.0
    #: Days per move of a correspondence control (0: a clock of minutes and seconds).
    days: int = 0

    def __post_init__(self) -> None:
        for name, value in (
            ("base", self.base),
            ("increment", self.increment),
            ("period_seconds", self.period_seconds),
        ):
            if not math.isfinite(value) or value < 0:
                raise TimeControlError(f"invalid time control: {name} {value!r} is not >= 0")
        if self.periods < 0:
            raise TimeControlError(f"invalid time control: periods {self.periods!r} is not >= 0")
        if self.periods and not self.period_seconds:
            raise TimeControlError("invalid time control: byo-yomi periods need period_seconds")
        if not self.base and not self.increment and not self.periods:
            raise TimeControlError("invalid time control: no time at all")
        if self.days:
            _check_days(self.days, str(self.days))
            if self.base != self.days * _DAY or self.increment or self.periods:
                raise TimeControlError(
                    f"invalid time control: {self.days} days per move has no increment or "
                    f"byo-yomi and a base of {self.days * _DAY:g} s, not {self.base:g} s"
                )

    @classmethod
    def correspondence(cls, days: int) -> TimeControl:
        """``days`` days per move (one of :data:`CORRESPONDENCE_DAYS`)."""
        _check_days(days, str(days))
        return cls(base=days * _DAY, days=days)

    @property
    def is_correspondence(self) -> bool:
        return self.days > 0

    def to_dict(self) -> dict[str, Any]:
        """The fields as JSON (``days`` only for a correspondence control, so the rows of
        other controls read as they always did); ``TimeControl(**d)`` reads it back."""
        data: dict[str, Any] = {
            "base": self.base,
            "increment": self.increment,
            "periods": self.periods,
            "period_seconds": self.period_seconds,
        }
        if self.days:
            data["days"] = self.days
        return data

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle by the fields (compiled, a frozen dataclass cannot be set field by
        field, which pickle's default does)."""
        return (
            TimeControl,
            (self.base, self.increment, self.periods, self.period_seconds, self.days),
        )

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Parse ``"10+5"`` (minutes + seconds increment), ``"90s+2"``, ``"20 3x30"``
        (20 minutes then three 30-second periods), ``"5m+3x20s"``, or a correspondence
        control: ``"3d"`` or ``"3 days"`` (days per move)."""
        days = _DAYS_PATTERN.match(text)
        if days is not None:
            return cls.correspondence(_check_days(days["days"], text))
        match = _TIME_CONTROL_PATTERN.match(text)
        if match is None:
            raise TimeControlError(
                f"invalid time control {text!r}: expected forms like '10+5' "
                "(minutes + increment seconds), '20 3x30' (minutes, periods x seconds) "
                "or '3d' (days per move)"
            )
        if match["periods"] is not None and int(match["periods"]) == 0:
            raise TimeControlError(
                f"invalid time control {text!r}: byo-yomi needs at least one period"
            )
        base = float(match["base"]) * (1 if match["unit"] == "s" else 60)
        return cls(
            base=base,
            increment=float(match["inc"] or 0),
            periods=int(match["periods"] or 0),
            period_seconds=float(match["period"] or 0),
        )

    def describe(self) -> str:
        """A short human form: ``"10 min + 5 s"``, ``"20 min, 3 × 30 s"``,
        ``"3 days per move"``."""
        if self.days:
            return f"{self.days} day{'s' if self.days > 1 else ''} per move"
        minutes = self.base / 60
        text = f"{minutes:g} min" if self.base >= 60 else f"{self.base:g} s"
        if self.increment:
            text += f" + {self.increment:g} s"
        if self.periods:
            text += f", {self.periods} × {self.period_seconds:g} s"
        return text


def _check_days(days: object, text: str) -> int:
    """``days`` as one of :data:`CORRESPONDENCE_DAYS`, or the error naming ``text``."""
    allowed = ", ".join(map(str, CORRESPONDENCE_DAYS))
    try:
        number = int(str(days))
    except ValueError:
        raise TimeControlError(
            f"invalid time control {text!r}: days per move must be a whole number, one of {allowed}"
        ) from None
    if number not in CORRESPONDENCE_DAYS:
        raise TimeControlError(
            f"invalid time control {text!r}: {number} days per move is not allowed; "
            f"choose one of {allowed}"
        )
    return number


#: JSON's ``true``, ``false`` and ``null``, by value.
_JSON_FLAGS: dict[bool | None, str] = {True: "true", False: "false", None: "null"}


class _SideTime:
    """One side's time: its main time left and its byo-yomi periods. (A plain class, not
    a dataclass: compiled, its ``__init__`` is compiled too; a dataclass's is not.)"""

    def __init__(self, main: float, periods: int, berserk: bool = False) -> None:
        self.main = main
        self.periods = periods
        #: Berserked (an arena's choice before a first move): half the main time, no
        #: increment.
        self.berserk = berserk


class Clock:
    """A two-sided game clock. Sides are ``True`` (first mover) and ``False``.

    Call :meth:`start` when the first mover's time begins, :meth:`press` after each move
    (it charges the mover, adds the increment, and starts the opponent), and
    :meth:`flagged` to learn whether the side whose clock runs has run out.
    """

    #: The control and its JSON text, once :meth:`stored` wrote it.
    _control_text: tuple[TimeControl, str] | None = None

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self._sides = {
            True: _SideTime(control.base, control.periods),
            False: _SideTime(control.base, control.periods),
        }
        #: The side whose time is running, or None while stopped.
        self.running: bool | None = None
        self._since = 0.0
        self._flagged: bool | None = None
        #: A correspondence side on vacation, and until when (:meth:`vacation`).
        self._vacation: dict[bool, float] = {}

    @staticmethod
    def now() -> float:
        return time.monotonic()

    def start(self, side: bool, now: float) -> None:
        """Start ``side``'s time at ``now`` (a correspondence side's full days)."""
        if self.control.days:
            self._sides[side].main = self.control.base + self._vacation_left(side, now)
        self.running = side
        self._since = now

    def stop(self, now: float) -> None:
        """Stop the clock (game over, or paused by agreement), charging the running side."""
        if self.running is not None:
            self._charge(self.running, now - self._since)
            self.running = None

    def press(self, now: float) -> None:
        """The running side has moved: charge its thinking time, give its increment, and
        start the other side. Raises :class:`TimeControlError` if no side is running."""
        side = self.running
        if side is None:
            raise TimeControlError("the clock was pressed while stopped")
        self._charge(side, now - self._since)
        if self._flagged is None:
            if not self._sides[side].berserk:
                self._sides[side].main += self.control.increment
            if self.control.days:  # (the opponent has the full days from this move,
                # and the mover will have them from the reply: both read full; a side on
                # vacation has the vacation's days on top)
                self._sides[side].main = self.control.base
                self._sides[not side].main = self.control.base + self._vacation_left(not side, now)
        self.running = not side
        self._since = now

    def berserk(self, side: bool) -> None:
        """``side`` berserks (an arena player, before their first move): their main time
        is halved and they get no increment from now on. Refused for a side that berserked
        already and for a correspondence clock."""
        state = self._sides[side]
        if state.berserk:
            raise TimeControlError("this side has berserked already")
        if self.control.days:
            raise TimeControlError("a correspondence clock cannot be berserked")
        state.main /= 2  # (before a first move nothing has been charged to it)
        state.berserk = True

    def vacation(self, side: bool, until: float | None, now: float) -> None:
        """``side`` (of a correspondence clock) is on vacation from ``now`` until
        ``until`` (None: the vacation ends at ``now``): its time does not run down meanwhile.
        The time left before the vacation is what it has when the vacation ends; a side
        whose opponent moves meanwhile has the full days from the vacation's end. Ending
        early takes back the days not used."""
        if not self.control.days:
            raise TimeControlError("only a correspondence clock has vacations")
        before = self._vacation_left(side, now)
        if until is None or until <= now:
            self._vacation.pop(side, None)
        else:
            self._vacation[side] = until
        if side is self.running:
            self._sides[side].main += self._vacation_left(side, now) - before

    def on_vacation_until(self, side: bool, now: float) -> float | None:
        """Until when ``side`` is on vacation at ``now``, or None."""
        until = self._vacation.get(side)
        return until if until is not None and until > now else None

    def _vacation_left(self, side: bool, now: float) -> float:
        until = self._vacation.get(side)
        return 0.0 if until is None else max(0.0, until - now)

    def berserked(self, side: bool) -> bool:
        return self._sides[side].berserk

    def _charge(self, side: bool, elapsed: float) -> None:
        state = self._sides[side]
        elapsed = max(0.0, elapsed)
        if elapsed <= state.main:
            state.main -= elapsed
            return
        overflow = elapsed - state.main
        state.main = 0.0
        # In byo-yomi a move made within a period keeps it; each period that runs out is
        # lost, and losing the last one loses the game.
        expired = self._expired_periods(overflow)
        if expired >= state.periods:
            state.periods = 0
            self._flagged = side
        else:
            state.periods -= expired

    def _expired_periods(self, overflow: float) -> int:
        if not self.control.periods:
            return 1 if overflow > 0 else 0
        return math.floor(overflow / self.control.period_seconds)

    def remaining(self, side: bool, now: float) -> float:
        """Seconds of main time ``side`` has left at ``now`` (0 once in byo-yomi)."""
        state = self._sides[side]
        if side is self.running:
            return max(0.0, state.main - (now - self._since))
        return state.main

    def periods_left(self, side: bool, now: float) -> int:
        """Byo-yomi periods ``side`` still has at ``now``."""
        state = self._sides[side]
        if side is not self.running:
            return state.periods
        overflow = (now - self._since) - state.main
        if overflow <= 0:
            return state.periods
        return max(0, state.periods - self._expired_periods(overflow))

    def time_to_flag(self, side: bool, now: float) -> float:
        """Seconds until ``side`` loses on time if it does not move."""
        state = self._sides[side]
        budget = state.main + state.periods * self.control.period_seconds
        elapsed = now - self._since if side is self.running else 0.0
        return max(0.0, budget - elapsed)

    def flagged(self, now: float) -> bool | None:
        """The side that has run out of time at ``now``, or None."""
        if self._flagged is not None:
            return self._flagged
        side = self.running
        if side is not None and self.time_to_flag(side, now) <= 0:
            return side
        return None

    def to_dict(self, now: float) -> dict[str, Any]:
        """A JSON-able snapshot taken at ``now`` (the running side's time charged up to now,
        so a restored clock resumes from the same instant)."""
        return {
            "control": self.control.to_dict(),
            "first": {"main": self.remaining(True, now), "periods": self.periods_left(True, now)},
            "second": {
                "main": self.remaining(False, now),
                "periods": self.periods_left(False, now),
            },
            "running": self.running,
            "flagged": self.flagged(now),
            **self._berserk_dict(),
            **self._vacation_dict(now),
        }

    def stored(self, now: float) -> tuple[dict[str, Any], str]:
        """:meth:`to_dict` at ``now`` and its JSON text (what ``json.dumps`` writes of it),
        made together: a server stores both with every move, and the encoder's work on
        the nested dicts and floats cost more than the rest of the stored row. A clock
        with a berserk or a vacation is written by the encoder."""
        sides = self._sides
        first, second = sides[True], sides[False]
        if self._vacation or first.berserk or second.berserk:
            data = self.to_dict(now)
            return data, json.dumps(data)
        control = self.control
        made = self._control_text
        if made is None or made[0] is not control:
            made = self._control_text = (control, json.dumps(control.to_dict()))
        control_text = made[1]
        running = self.running
        first_main, first_periods = first.main, first.periods
        second_main, second_periods = second.main, second.periods
        if running is not None:
            if running:
                first_main = self.remaining(True, now)
                first_periods = self.periods_left(True, now)
            else:
                second_main = self.remaining(False, now)
                second_periods = self.periods_left(False, now)
        flagged = self.flagged(now)
        data = {
            "control": control.to_dict(),
            "first": {"main": first_main, "periods": first_periods},
            "second": {"main": second_main, "periods": second_periods},
            "running": running,
            "flagged": flagged,
        }
        if not (math.isfinite(first_main) and math.isfinite(second_main)):
            return data, json.dumps(data)
        text = (
            f'{{"control": {control_text}, "first": {{"main": {first_main!r}, '
            f'"periods": {first_periods!r}}}, "second": {{"main": {second_main!r}, '
            f'"periods": {second_periods!r}}}, "running": {_JSON_FLAGS[running]}, '
            f'"flagged": {_JSON_FLAGS[flagged]}}}'
        )
        return data, text

    def _vacation_dict(self, now: float) -> dict[str, dict[str, float]]:
        """``{"vacation": {seat: until}}`` while a side is on vacation, else nothing."""
        seats = {
            key: until
            for key, side in (("first", True), ("second", False))
            if (until := self.on_vacation_until(side, now)) is not None
        }
        return {"vacation": seats} if seats else {}

    def _berserk_dict(self) -> dict[str, list[str]]:
        """``{"berserk": [seats]}`` when a side berserked, else nothing (most clocks)."""
        seats = [key for key, side in (("first", True), ("second", False)) if self.berserked(side)]
        return {"berserk": seats} if seats else {}

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle the clock by its state (a read worker sends one to the server): the
        compiled class is made only through its ``__init__``, which takes the control."""
        sides = {side: (t.main, t.periods, t.berserk) for side, t in self._sides.items()}
        state = (self.running, self._since, self._flagged, dict(self._vacation))
        return (_unpickled_clock, (self.control, sides, state))

    def reading(self, now: float) -> Clock:
        """A copy of the clock as read at ``now``: the same as ``Clock.from_dict(
        self.to_dict(now), now)``, without the round trip."""
        copy = Clock(self.control)
        running = self.running
        sides = {}
        for side, state in self._sides.items():  # (only the running side's time moves)
            if side is running:
                main, periods = float(self.remaining(side, now)), self.periods_left(side, now)
            else:
                main, periods = float(state.main), state.periods
            sides[side] = _SideTime(main, periods, state.berserk)
        copy._sides = sides
        copy.running = running
        copy._since = 0.0 if running is None else now
        copy._flagged = self.flagged(now)
        copy._vacation = dict(self._vacation) if self._vacation else {}
        return copy

    @classmethod
    def from_dict(cls, data: dict[str, Any], now: float) -> Clock:
        """Restore a snapshot from :meth:`to_dict`; the running side resumes at ``now``."""
        try:
            clock = cls(TimeControl(**data["control"]))
            berserked = data.get("berserk", ())
            for key, side in (("first", True), ("second", False)):
                clock._sides[side] = _SideTime(
                    float(data[key]["main"]), int(data[key]["periods"]), key in berserked
                )
            running = data["running"]
            if running is not None:  # (resumed as it was: start would renew days)
                clock.running, clock._since = bool(running), now
            flagged = data.get("flagged")
            clock._flagged = None if flagged is None else bool(flagged)
            for key, until in dict(data.get("vacation", {})).items():
                clock._vacation[{"first": True, "second": False}[key]] = float(until)
        except (KeyError, TypeError, ValueError) as error:
            raise TimeControlError(f"invalid clock snapshot {data!r}: {error}") from None
        return clock


def _unpickled_clock(
    control: TimeControl,
    sides: dict[bool, tuple[float, int, bool]],
    state: tuple[bool | None, float, bool | None, dict[bool, float]],
) -> Clock:
    """The clock :meth:`Clock.__reduce__` pickled."""
    clock = Clock(control)
    clock._sides = {side: _SideTime(*values) for side, values in sides.items()}
    clock.running, clock._since, clock._flagged, clock._vacation = state
    return clock
