"""This server's own games as the explorer's second source, in an index file of their own
beside the masters' (:func:`chuhan.explorer.site_index_path`: the masters' build holds its
file for minutes). Every game between people that ends here
(:class:`~chuhan.web.bus.GameFinished`, heard in the process that ended it) is added
under its game, speed and rating band (:func:`chuhan.explorer.site_source`), janggi
included; ``source=site`` asks them together.

The speed is lichess's estimate (base time plus 40 increments, plus the byo-yomi
periods): under 3 minutes ``bullet``, under 8 ``blitz``, under 25 ``rapid``, else
``classical``; no clock is ``untimed``. The band is the two players' average rating when
the game is added, for a rated game (:data:`BANDS`), ``casual`` otherwise. Games against
the computer, on one device and imported records are not this server's games between
people, and a game without a result is not counted. Several processes on one machine
share the file; processes on several machines each keep the games that ended on them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from chuhan.explorer import site_source
from chuhan.web.bus import Bus, GameFinished

if TYPE_CHECKING:
    from chuhan.web.accounts.repository import AccountRepository
    from chuhan.web.explorer.service import ExplorerService
    from chuhan.web.round.manager import GameManager

__all__ = ["BANDS", "SKIPPED_KINDS", "SPEEDS", "SiteGames", "rating_band", "speed_of"]

log = logging.getLogger("chuhan.web")

#: The speeds, by the estimated seconds of a game (upper bounds).
SPEEDS = (("bullet", 180), ("blitz", 480), ("rapid", 1500), ("classical", None))
#: The rating bands of rated games (lower bounds), and ``casual`` for the rest.
BANDS = (("2100+", 2100), ("1800-2099", 1800), ("1500-1799", 1500), ("<1500", None))
#: The kinds of game that are not games between people here.
SKIPPED_KINDS = frozenset({"computer", "local", "imported"})


def speed_of(time_control: dict[str, Any] | None) -> str:
    """The speed of a game of this time control (``base`` and ``increment`` seconds,
    byo-yomi ``periods`` of ``period_seconds``)."""
    if not time_control:
        return "untimed"
    seconds = (
        float(time_control.get("base") or 0)
        + 40 * float(time_control.get("increment") or 0)
        + float(time_control.get("periods") or 0) * float(time_control.get("period_seconds") or 0)
    )
    for name, bound in SPEEDS:
        if bound is None or seconds < bound:
            return name
    return "classical"


def rating_band(ratings: list[float] | None) -> str:
    """The band of a rated game's players' ratings; ``casual`` for an unrated game."""
    if not ratings:
        return "casual"
    average = sum(ratings) / len(ratings)
    for name, bound in BANDS:
        if bound is None or average >= bound:
            return name
    return "<1500"


class SiteGames:
    """Adds the games that end in this process to the explorer's site sources."""

    def __init__(
        self, explorer: ExplorerService, manager: GameManager, accounts: AccountRepository
    ) -> None:
        self.explorer = explorer
        self.manager = manager
        self.accounts = accounts
        self._tasks: set[asyncio.Task[None]] = set()
        self._unsubscribe: Any = None

    def start(self, bus: Bus) -> None:
        self._unsubscribe = bus.subscribe(GameFinished, self._heard)

    def _heard(self, event: GameFinished) -> None:
        if event.kind in SKIPPED_KINDS or event.result.get("result") not in (
            "1-0",
            "0-1",
            "1/2-1/2",
        ):
            return
        room = self.manager.rooms.get(event.game_id)
        if room is None:
            return
        state = room.state  # (read now: the game as it ended, before anything else)
        if not state.moves:
            return
        names = state.names
        headers = {
            "Red": names.get("first", ""),
            "Black": names.get("second", ""),
            "Result": str(event.result["result"]),
            "Date": time.strftime("%Y.%m.%d", time.gmtime(state.created)),
            "Site": "chuhan",
        }
        task = asyncio.get_running_loop().create_task(
            self._add(
                event.game_id,
                state.variant.game,
                state.variant.name,
                # (the position the moves start from: a janggi game's after its setup)
                state.game.board.root().fen(),
                list(state.moves),
                speed_of(state.time_control),
                headers,
            )
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _add(
        self,
        game_id: str,
        game: str,
        variant: str,
        fen: str | None,
        moves: list[str],
        speed: str,
        headers: dict[str, str],
    ) -> None:
        try:
            band = rating_band(await self._ratings(game_id, game))
            await self.explorer.add_game(
                site_source(game, speed, band),
                moves,
                variant=variant,
                fen=fen,
                headers=headers,
                origin=game_id,
            )
        except Exception:
            log.exception("the game %s could not be added to the explorer", game_id)

    async def _ratings(self, game_id: str, game: str) -> list[float] | None:
        if not await self.accounts.is_rated(game_id):
            return None
        ratings = []
        for account in (await self.accounts.game_accounts(game_id)).values():
            rating = (await self.accounts.ratings_of(account.id)).get(game)
            if rating is not None:
                ratings.append(float(rating.rating))
        return ratings or None

    async def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        for task in list(self._tasks):
            await asyncio.wait([task], timeout=5)
