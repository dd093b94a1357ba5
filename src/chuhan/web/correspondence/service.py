"""Correspondence games' deadlines and the signed-in player's games in progress.

**The deadlines.** A correspondence game's flag falls days after the last move. The room
(:mod:`chuhan.web.round.room`) arms a timer only for a deadline within
:data:`~chuhan.web.round.rules.CORRESPONDENCE_HORIZON_SECONDS` (an hour): a game whose
deadline is days away holds nothing in memory and its room is let go. Every
:data:`SWEEP_SECONDS` (well inside the hour) :meth:`Correspondence.sweep` reads the stored
clocks of the correspondence games in play, and loads each game this process drives
(:meth:`~chuhan.web.round.manager.GameManager.drives`) whose deadline is within the hour
or past: the room's own check ends a game whose time ran out and arms the timer for one
that is near. Nothing waits for days, and nothing must survive a restart: the deadline is
the stored last move's time plus the days, a restarted process loads its games again
(:meth:`~chuhan.web.round.manager.GameManager.resume`), and on a shared store the games of
a process that stopped are taken over by the manager's beat and swept by their new driver.

**Your games.** :meth:`Correspondence.your_games`: every game an account holds a seat in
and that is not over, those where it is the account's move first (the least time left
first), then the others (the latest moved first).

**Vacations.** An account has ``vacation_days_per_year`` days a calendar year (UTC) to
take in whole days (:meth:`Correspondence.take_vacation`); the days count in the year the
vacation starts, and ending it early (:meth:`Correspondence.end_vacation`) gives back the
days not begun. The vacation is kept in ``vacations`` (one transaction counts and adds it
under the account's lock, so two processes cannot both give the last days) and then made
a ``vacation`` event of each of the account's correspondence games in play
(:meth:`~chuhan.web.round.room.Room.vacation`): the game's clock keeps it
(:meth:`chuhan.clock.Clock.vacation`), so the player's time does not run down until it
ends, the stored clock's deadline (which the sweep reads) is moved by it, and a replay
after any restart gives the same. The opponent sees it in "your games" (``opponent_vacation_ms``,
from the stored clock). Games on a clock of minutes are not touched.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from chuhan.clock import Clock, TimeControl, TimeControlError
from chuhan.web.correspondence.repository import (
    HeldGame,
    StoredClock,
    Vacation,
    VacationRefused,
    correspondence_clocks,
    end_vacation,
    games_in_progress,
    read_vacation,
    take_vacation,
    vacations_to_mend,
)
from chuhan.web.db import Store, StoreError
from chuhan.web.round.manager import GameManager, RoomUnavailable
from chuhan.web.round.rules import CORRESPONDENCE_HORIZON_SECONDS
from chuhan.web.round.seats import other_seat, seat_of
from chuhan.web.sockets.protocol import ProtocolError

__all__ = ["SWEEP_SECONDS", "YOUR_GAMES", "Correspondence", "VacationRefused", "stored_deadline"]

log = logging.getLogger("chuhan.web")

#: How often each process reads the correspondence games' deadlines (well within
#: CORRESPONDENCE_HORIZON_SECONDS, so a deadline is never missed by a sweep).
SWEEP_SECONDS = 600.0
#: The most games "your games" lists.
YOUR_GAMES = 200


def stored_deadline(clock: dict[str, Any], clock_at: float) -> float | None:
    """When the side to move of a stored clock (its snapshot taken at ``clock_at``) runs
    out of time, or None when no side's time runs."""
    restored = Clock.from_dict(clock, clock_at)
    if restored.running is None:
        return None
    return clock_at + restored.time_to_flag(restored.running, clock_at)


def _turn(game: HeldGame) -> str | None:
    """The seat to move in a game in play (None in a janggi setup)."""
    if game.status != "playing":
        return None
    fields = (game.start_fen or "w w").split()
    red_first = (fields[1] if len(fields) > 1 else "w") == "w"
    return seat_of(red_first == (game.plies % 2 == 0))


class Correspondence:
    """The correspondence sweep of one server process, and "your games"."""

    def __init__(
        self,
        store: Store,
        manager: GameManager,
        now: Callable[[], float],
        sweep_seconds: float = SWEEP_SECONDS,
        vacation_days_per_year: int = 30,
    ) -> None:
        self.store = store
        self.manager = manager
        self.now = now
        self.sweep_seconds = sweep_seconds
        self.vacation_days_per_year = vacation_days_per_year
        self._sweeping: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Sweep every ``sweep_seconds`` (the manager resumed the driven games at start)."""
        self._sweeping = asyncio.get_running_loop().create_task(self._sweep_forever())

    def close(self) -> None:
        if self._sweeping is not None:
            self._sweeping.cancel()
            self._sweeping = None

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.sweep_seconds)
            try:
                await self.sweep()
            except Exception:  # a sweep that fails must not stop the next one
                log.exception("a sweep of the correspondence deadlines failed")

    async def sweep(self) -> list[str]:
        """Load the correspondence games this process drives whose deadline is within
        the horizon or past (their rooms end them or arm their timers); their ids. First
        the clocks of those games that lack a player's vacation get it (:meth:`mend`)."""
        await self.mend()
        try:
            clocks = await self.store.read(correspondence_clocks(), "reading deadlines")
        except StoreError as error:
            log.warning("cannot read the correspondence deadlines: %s", error)
            return []
        now = self.now()
        driven = []
        for stored in clocks:
            if not self.manager.drives(stored.game_id) or not self._near(stored, now):
                continue
            await self.manager.drive_game(stored.game_id)
            driven.append(stored.game_id)
        return driven

    @staticmethod
    def _near(stored: StoredClock, now: float) -> bool:
        try:
            deadline = stored_deadline(stored.clock, stored.clock_at)
        except TimeControlError as error:
            log.warning("game %s has a clock that cannot be read: %s", stored.game_id, error)
            return False
        return deadline is not None and deadline - now <= CORRESPONDENCE_HORIZON_SECONDS

    # ------------------------------------------------------------------ vacations

    async def vacation(self, account_id: str) -> Vacation:
        """The account's vacation days this year and the vacation running, if any."""
        body = read_vacation(account_id, self.vacation_days_per_year, self.now())
        return await self.store.read(body, "reading a vacation")

    async def take_vacation(self, account_id: str, days: int) -> Vacation:
        """Start a vacation of ``days`` whole days now; raises
        :class:`~chuhan.web.correspondence.repository.VacationRefused` (a ``ValueError``)
        for one longer than the days left this year, or while one runs."""
        if isinstance(days, bool) or not isinstance(days, int) or days < 1:
            raise VacationRefused(f"days must be a whole number of days, at least 1, not {days!r}")
        body = take_vacation(account_id, days, self.vacation_days_per_year, self.now())
        taken, games = await self.store.write(body, "taking a vacation")
        await self._tell_games(games, taken.until)
        return taken

    async def end_vacation(self, account_id: str) -> Vacation:
        """End the running vacation now (the days not begun given back)."""
        body = end_vacation(account_id, self.vacation_days_per_year, self.now())
        ended, games = await self.store.write(body, "ending a vacation")
        await self._tell_games(games, None)
        return ended

    async def mend(self) -> None:
        """Give the games this process drives the vacations their clocks lack: a game begun
        while a player is on vacation, or one whose event was not made (its process
        stopped between the vacation's write and the games')."""
        try:
            mend = await self.store.read(vacations_to_mend(self.now()), "reading vacations")
        except StoreError as error:
            log.warning("cannot read the vacations: %s", error)
            return
        for game_id, seat, until in mend:
            if self.manager.drives(game_id):
                await self._tell_games([(game_id, seat)], until)

    async def _tell_games(self, games: list[tuple[str, str]], until: float | None) -> None:
        """Each game's clock takes the vacation (``until``; None: it ended)."""
        for game_id, seat in games:
            try:
                room = await self.manager.room(game_id)
                if room is None:
                    continue
                with self.manager.hold(room):
                    await room.vacation(seat, until)
            except (RoomUnavailable, ProtocolError) as error:  # (over meanwhile, say)
                log.warning("game %s takes no vacation: %s", game_id, error)

    # ------------------------------------------------------------------ your games

    async def your_games(self, account_id: str) -> list[dict[str, Any]]:
        """The account's games in progress as JSON: where it is the account's move
        first (the least time left first), then the others (the latest moved first)."""
        held = await self.store.read(
            games_in_progress(account_id, YOUR_GAMES), "reading the account's games"
        )
        now = self.now()
        games = [self._game_json(game, now) for game in held]
        mine = [g for g in games if g["your_move"]]
        mine.sort(key=lambda g: (g["deadline_ms"] is None, g["deadline_ms"] or 0))
        return mine + [g for g in games if not g["your_move"]]

    @staticmethod
    def _game_json(game: HeldGame, now: float) -> dict[str, Any]:
        turn = _turn(game)
        control = None if game.time_control is None else TimeControl(**game.time_control)
        deadline = None
        if game.clock is not None and game.clock_at is not None:
            deadline = stored_deadline(game.clock, game.clock_at)
        other = other_seat(game.seat)
        away = None if game.clock is None else game.clock.get("vacation", {}).get(other)
        if away is not None and float(away) <= now:
            away = None
        return {
            "game_id": game.game_id,
            "url": f"/g/{game.game_id}" + (f"?t={game.token}" if game.token else ""),
            "seat": game.seat,
            "variant": game.variant,
            "rules": game.rules,
            "opponent": game.opponent or game.names.get(other) or None,
            "your_move": turn == game.seat,
            "ply": game.plies,
            "status": game.status,
            "rated": game.rated,
            "correspondence": control is not None and control.is_correspondence,
            "time_control": None if control is None else control.describe(),
            "days": None if control is None else control.days or None,
            "deadline_ms": None if deadline is None else round(deadline * 1000),
            "left_ms": None if deadline is None else max(0, round((deadline - now) * 1000)),
            "updated_ms": round(game.updated * 1000),
            "opponent_vacation_ms": None if away is None else round(float(away) * 1000),
        }
