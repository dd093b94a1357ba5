"""Ratings: Glicko-2 (:mod:`chuhan.web.accounts.glicko2`) per game (xiangqi, janggi) for rated
games between two accounts, settled once when the game is over.

**The one function.** :func:`settle_game` settles a rated game: whoever calls it (the
:class:`RatingKeeper` when it hears :class:`~chuhan.web.bus.GameFinished`, its sweep
of games a stopped process left unsettled, or a lobby) gets the same settlement, and the
ratings change once: the store settles in one transaction that first locks the game's
``rated_games`` row (:meth:`~chuhan.web.accounts.repository.AccountRepository.settle_rated_game`).

**The rules.** Each game is a rating period of its own (as on lichess): both players are
rated against the other's rating before the game. A new player starts at 1500, deviation
350, volatility 0.06, with τ = 0.5. A rating is *provisional* while its deviation is above
:data:`PROVISIONAL_DEVIATION` (110, as lichess), and only established ratings are on the
leaderboard. Against farming, a rated game between the same two accounts counts once per
:data:`PAIR_WINDOW_SECONDS` (24 hours) per game: a later one in the window is settled as
not counted (its reason says so) and changes nothing. Deviations do not grow with time
away (no rating periods without games).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from chuhan.web.accounts import glicko2
from chuhan.web.accounts.repository import (
    AccountRepository,
    Rating,
    RatingChange,
    RatingInput,
    Settlement,
)
from chuhan.web.bus import Bus, GameFinished
from chuhan.web.db import Store, StoreError

__all__ = [
    "PAIR_WINDOW_SECONDS",
    "PROVISIONAL_DEVIATION",
    "RatingKeeper",
    "decide",
    "rating_json",
    "settle_game",
    "settlement_json",
]

log = logging.getLogger("chuhan.web")

#: A rating is provisional while its deviation is above this (lichess's threshold).
PROVISIONAL_DEVIATION = 110.0
#: A pair of accounts has one counted rated game per game in this many seconds.
PAIR_WINDOW_SECONDS = 86400.0
#: Kinds of games that are never rated (any other kind may be: friend games, a lobby's).
UNRATED_KINDS = ("computer", "local", "imported")
NEW_RATING = Rating(glicko2.DEFAULT_RATING, glicko2.DEFAULT_DEVIATION, glicko2.DEFAULT_VOLATILITY)


def _glicko(rating: Rating | None) -> glicko2.Glicko:
    rating = rating or NEW_RATING
    return glicko2.Glicko(rating.rating, rating.deviation, rating.volatility)


def decide(given: RatingInput) -> Settlement:
    """The rating rule (called by the store inside the settling transaction)."""
    first, second = given.accounts["first"], given.accounts["second"]
    before = {seat: _glicko(given.ratings.get(seat)) for seat in ("first", "second")}
    if given.pair_counted_at is not None:
        hours = (given.now - given.pair_counted_at) / 3600
        changes = {
            seat: RatingChange(
                account.id, account.name, b.rating, b.rating, b.deviation, b.volatility
            )
            for seat, account, b in (
                ("first", first, before["first"]),
                ("second", second, before["second"]),
            )
        }
        return Settlement(
            given.game_id,
            given.game,
            False,
            f"not counted: {first.name} and {second.name} played a rated {given.game} game "
            f"that counted {hours:.1f} hours ago, and a pair's games count once a day",
            given.winner,
            given.now,
            changes,
        )
    score = {None: 0.5, "first": 1.0, "second": 0.0}.get(given.winner, 0.5)
    after = {
        "first": glicko2.rate(before["first"], [(before["second"], score)]),
        "second": glicko2.rate(before["second"], [(before["first"], 1.0 - score)]),
    }
    changes = {
        seat: RatingChange(
            account.id,
            account.name,
            before[seat].rating,
            after[seat].rating,
            after[seat].deviation,
            after[seat].volatility,
        )
        for seat, account in (("first", first), ("second", second))
    }
    return Settlement(given.game_id, given.game, True, None, given.winner, given.now, changes)


async def settle_game(store: Store, game_id: str, now: float) -> Settlement | None:
    """Settle the rated game ``game_id`` if it is over (exactly once, whoever calls and
    however often); the settlement, or None when the game is not rated or not over."""
    repository = AccountRepository(store)
    return await repository.settle_rated_game(game_id, now, PAIR_WINDOW_SECONDS, decide)


def is_provisional(deviation: float) -> bool:
    return deviation > PROVISIONAL_DEVIATION


def rating_json(rating: Rating) -> dict[str, Any]:
    return {
        "rating": round(rating.rating),
        "deviation": round(rating.deviation, 1),
        "provisional": is_provisional(rating.deviation),
        "games": rating.games,
        "wins": rating.wins,
        "losses": rating.losses,
        "draws": rating.draws,
    }


def settlement_json(settlement: Settlement) -> dict[str, Any]:
    """A settlement as the API shows it (rounded ratings and their change)."""
    return {
        "game": settlement.game,
        "counted": settlement.counted,
        "reason": settlement.reason,
        "winner": settlement.winner,
        "changes": {
            seat: {
                "name": change.name,
                "before": round(change.before),
                "after": round(change.after),
                "change": round(change.after) - round(change.before),
                "deviation": round(change.deviation, 1),
                "provisional": is_provisional(change.deviation),
            }
            for seat, change in settlement.changes.items()
        },
    }


class RatingKeeper:
    """Settles rated games: at once when this process hears one finish, and every
    ``sweep_seconds`` those left unsettled (a process that stopped between a game's end
    and its settlement; a game another process finished)."""

    def __init__(
        self, store: Store, bus: Bus, now: Callable[[], float], sweep_seconds: float
    ) -> None:
        self.store = store
        self.now = now
        self.sweep_seconds = sweep_seconds
        self._tasks: set[asyncio.Task[Any]] = set()
        self._unsubscribe = bus.subscribe(GameFinished, self._finished)
        self._sweeping: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._sweeping = asyncio.get_running_loop().create_task(self._sweep_forever())

    def close(self) -> None:
        self._unsubscribe()
        if self._sweeping is not None:
            self._sweeping.cancel()
        for task in list(self._tasks):
            task.cancel()

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _finished(self, event: GameFinished) -> None:
        if event.kind not in UNRATED_KINDS:
            self._spawn(self._settle(event.game_id))

    async def _settle(self, game_id: str) -> None:
        try:
            await settle_game(self.store, game_id, self.now())
        except StoreError as error:
            log.warning(
                "cannot settle the rated game %s now (the sweep tries again): %s", game_id, error
            )

    async def sweep(self) -> None:
        """Settle the rated games that are over and not settled."""
        for game_id in await AccountRepository(self.store).unsettled_rated_games(50):
            await self._settle(game_id)

    async def _sweep_forever(self) -> None:
        while True:
            try:
                await self.sweep()
            except Exception:
                log.exception("the rating sweep failed")
            await asyncio.sleep(self.sweep_seconds)
