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
leaderboard. Deviations do not grow with time away (no rating periods without games).

**Against farming** (issue 28: ten sock puppets resigning at once took a farmer from 1500
to 1993 in two seconds, sixty to 2274). A rated game counts only when it could be a real
game between two people, and a new account counts a little at a time, as lichess does:

1. *Too short*: a game that ends, whatever the reason (resignation, time, an abandoned
   seat, agreement), before both players have moved twice (:data:`MIN_PLIES`, 4 plies)
   does not count. (lichess aborts a game in which a side has not moved, and rates no
   game of fewer than two moves each.)
2. *One network*: a game between accounts that share a network does not count: the
   networks of each side are where its account signed up and every network its seat was
   played from (an IPv4 address; an IPv6 /64, which one household or one host holds
   whole: :func:`~chuhan.web.accounts.repository.network_of`). Sock puppets made or played
   beside their farmer give nothing; people behind one address (a family, a club, a
   school) play each other unrated. The addresses are the ones the server already
   trusts (the peer's, or its reverse proxy's last ``X-Forwarded-For`` entry with
   ``--trust-proxy``); a seat's networks are kept only until its game is settled.
3. *The same pair*: a rated game between the same two accounts counts once per
   :data:`PAIR_WINDOW_SECONDS` (24 hours) per game.
4. *New opponents*: an account is *new* in a game (xiangqi, janggi) until
   :data:`NEW_ACCOUNT_GAMES` (5) rated games have counted for it there. Against a new
   opponent, a player's rating moves in at most :data:`NEW_OPPONENT_GAMES_PER_DAY` (2)
   games within 24 hours; in a game past that, this player's rating stays as it was
   (the opponent's still moves, by its own allowance). A fresh puppet is new, so a farmer
   gains from two of them a day however many there are, and a puppet stops being new only
   after five counted games of its own, two a day against other new accounts, each
   against an account of another network. (Two wins a day over fresh accounts take a new
   player from 1500 to 1751, as two real wins would; an established player gains a few
   points.)

A game that did not count for a player leaves that player's rating, deviation and record
as they were; the settlement's ``reason`` says which rule and ``code`` names it
(``too_short``, ``same_network``, ``same_pair``, ``new_opponents``; ``not_two_accounts``
when a seat had no account). Whatever the rules, a settlement is made once and stored.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from chuhan.clock import TimeControl
from chuhan.variants import GAMES
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
    "MIN_PLIES",
    "NEW_ACCOUNT_GAMES",
    "NEW_OPPONENT_GAMES_PER_DAY",
    "PAIR_WINDOW_SECONDS",
    "PROVISIONAL_DEVIATION",
    "RATING_CATEGORIES",
    "RatingKeeper",
    "decide",
    "rating_category",
    "rating_json",
    "settle_game",
    "settlement_json",
]

log = logging.getLogger("chuhan.web")

#: A rating is provisional while its deviation is above this (lichess's threshold).
PROVISIONAL_DEVIATION = 110.0
#: A pair of accounts has one counted rated game per game in this many seconds (and the
#: games against new accounts are counted over the same window).
PAIR_WINDOW_SECONDS = 86400.0
#: A rated game counts once it has this many plies: both players have moved twice.
MIN_PLIES = 4
#: An account is new in a game until this many rated games have counted for it there.
NEW_ACCOUNT_GAMES = 5
#: Against new opponents, a player's rating moves in at most this many games a day.
NEW_OPPONENT_GAMES_PER_DAY = 2
#: Kinds of games that are never rated (any other kind may be: friend games, a lobby's).
UNRATED_KINDS = ("computer", "local", "imported")
NEW_RATING = Rating(glicko2.DEFAULT_RATING, glicko2.DEFAULT_DEVIATION, glicko2.DEFAULT_VOLATILITY)


#: What a rating is kept for: each game (``xiangqi``, ``janggi``), and each game's
#: correspondence games apart (``xiangqi-correspondence``: days per move are another
#: game than minutes, as lichess rates them apart).
RATING_CATEGORIES = (*GAMES, *(f"{game}-correspondence" for game in GAMES))


def rating_category(game: str, time_control: TimeControl | Mapping[str, Any] | None) -> str:
    """The rating category of a rated ``game`` (``xiangqi``, ``janggi``) played with
    ``time_control`` (a :class:`~chuhan.clock.TimeControl`, its stored dict, or None)."""
    if isinstance(time_control, Mapping):
        days = time_control.get("days") or 0
    else:
        days = 0 if time_control is None else time_control.days
    return f"{game}-correspondence" if days else game


def _glicko(rating: Rating | None) -> glicko2.Glicko:
    rating = rating or NEW_RATING
    return glicko2.Glicko(rating.rating, rating.deviation, rating.volatility)


def _moves(plies: int) -> str:
    return f"{plies} move{'' if plies == 1 else 's'}"


def decide(given: RatingInput) -> Settlement:
    """The rating rule (called by the store inside the settling transaction): the rules
    of the module's docstring, then Glicko-2 for the players the game counts for."""
    first, second = given.accounts["first"], given.accounts["second"]
    before = {seat: _glicko(given.ratings.get(seat)) for seat in ("first", "second")}
    new = {
        seat: (rating := given.ratings.get(seat)) is None or rating.games < NEW_ACCOUNT_GAMES
        for seat in ("first", "second")
    }

    def unchanged(reason: str, code: str) -> Settlement:
        changes = {
            seat: RatingChange(
                account.id,
                account.name,
                before[seat].rating,
                before[seat].rating,
                before[seat].deviation,
                before[seat].volatility,
                counted=False,
                new=new[seat],
            )
            for seat, account in (("first", first), ("second", second))
        }
        return Settlement(
            given.game_id, given.game, False, reason, given.winner, given.now, changes, code
        )

    if given.plies < MIN_PLIES:
        return unchanged(
            f"not counted: the game ended after {_moves(given.plies)}, and a rated game "
            f"counts once both players have moved twice ({MIN_PLIES} moves)",
            "too_short",
        )
    if given.networks["first"] & given.networks["second"]:
        return unchanged(
            f"not counted: {first.name} and {second.name} played from the same network, or "
            "one of the accounts was made there, and games between accounts of one "
            "network are not rated",
            "same_network",
        )
    if given.pair_counted_at is not None:
        hours = (given.now - given.pair_counted_at) / 3600
        return unchanged(
            f"not counted: {first.name} and {second.name} played a rated {given.game} game "
            f"that counted {hours:.1f} hours ago, and a pair's games count once a day",
            "same_pair",
        )
    score = {None: 0.5, "first": 1.0, "second": 0.0}.get(given.winner, 0.5)
    after = {
        "first": glicko2.rate(before["first"], [(before["second"], score)]),
        "second": glicko2.rate(before["second"], [(before["first"], 1.0 - score)]),
    }
    # Rule 4: against a new opponent, a player's rating moves in a few games a day.
    held = {
        seat: new[other] and given.new_opponent_games.get(seat, 0) >= NEW_OPPONENT_GAMES_PER_DAY
        for seat, other in (("first", "second"), ("second", "first"))
    }
    changes = {
        seat: RatingChange(
            account.id,
            account.name,
            before[seat].rating,
            (before if held[seat] else after)[seat].rating,
            (before if held[seat] else after)[seat].deviation,
            (before if held[seat] else after)[seat].volatility,
            counted=not held[seat],
            new=new[seat],
        )
        for seat, account in (("first", first), ("second", second))
    }
    if not any(held.values()):
        return Settlement(given.game_id, given.game, True, None, given.winner, given.now, changes)
    names = {"first": first.name, "second": second.name}
    why = (
        f"against new accounts (fewer than {NEW_ACCOUNT_GAMES} rated {given.game} games "
        f"counted), a rating moves in at most {NEW_OPPONENT_GAMES_PER_DAY} games a day"
    )
    if all(held.values()):
        reason = f"not counted: {why}, and {first.name} and {second.name} have had theirs today"
        return unchanged(reason, "new_opponents")
    kept = "first" if held["first"] else "second"
    moved = "second" if kept == "first" else "first"
    reason = f"counted for {names[moved]} only: {why}, and {names[kept]} has had them today"
    return Settlement(
        given.game_id, given.game, True, reason, given.winner, given.now, changes, "new_opponents"
    )


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
        "code": settlement.code,
        "winner": settlement.winner,
        "changes": {
            seat: {
                "name": change.name,
                "counted": change.counted,
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
