"""This server's own games as the explorer's second source, kept in the server's database
(:mod:`chuhan.web.explorer.repository`: one transaction body for both stores), so that
every process on one database answers the same and the games are backed up and copied
with the rest. Every game between people that ends here
(:class:`~chuhan.web.bus.GameFinished`, heard in the process that ended it) is counted
under its game, speed and rating band, janggi included; ``source=site`` asks them
together.

The speed is lichess's estimate (base time plus 40 increments, plus the byo-yomi
periods): under 3 minutes ``bullet``, under 8 ``blitz``, under 25 ``rapid``, else
``classical``; no clock is ``untimed``. The band is the two players' average rating when
the game is counted, for a rated game (:data:`BANDS`), ``casual`` otherwise. Games against
the computer, on one device and imported records are not this server's games between
people; a game without a result, or from a position other than the start, is not counted.

The count is written after the game's end is stored and told, in a task of its own: the
game's end never waits for it. A game is counted once, by its id, however often it is
added. A write that fails (the database is unreachable) is logged, and the game is
counted at the next start: every start looks for the finished games not counted
(:meth:`SiteGames.catch_up`, in the background), which also counts the games that ended
before the explorer kept them. An ``explorer-site.sqlite3`` file that an older chuhan
kept beside the masters' index is moved into the database at start (its games under the
speed and band they were counted under) and then deleted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chuhan.board import Board
from chuhan.errors import ChuhanError
from chuhan.explorer import (
    SITE,
    Explorer,
    ExplorerError,
    PositionStats,
    game_positions,
    is_from_start,
    position_key,
    position_stats,
)
from chuhan.web.bus import Bus, GameFinished
from chuhan.web.db import Store, StoreError
from chuhan.web.explorer.repository import (
    SKIPPED_KINDS,
    SiteGame,
    add_site_game,
    site_position,
    uncounted_games,
)
from chuhan.web.round.state import RoundState, replay

if TYPE_CHECKING:
    from chuhan.web.accounts.repository import AccountRepository
    from chuhan.web.round.manager import GameManager

__all__ = [
    "BANDS",
    "CATCH_UP_BATCH",
    "SKIPPED_KINDS",
    "SPEEDS",
    "SiteGames",
    "rating_band",
    "site_lookup",
    "speed_of",
]

log = logging.getLogger("chuhan.web")

#: Finished games looked at a time by the start's catch-up.
CATCH_UP_BATCH = 200
#: The results counted.
_RESULTS = ("1-0", "0-1", "1/2-1/2")

#: The speeds, by the estimated seconds of a game (upper bounds).
SPEEDS = (("bullet", 180), ("blitz", 480), ("rapid", 1500), ("classical", None))
#: The rating bands of rated games (lower bounds), and ``casual`` for the rest.
BANDS = (("2100+", 2100), ("1800-2099", 1800), ("1500-1799", 1500), ("<1500", None))


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


async def site_lookup(
    store: Store,
    board: Board,
    *,
    speeds: list[str] | None = None,
    bands: list[str] | None = None,
) -> PositionStats:
    """The moves played from ``board`` in this server's games of its game (as
    :meth:`chuhan.explorer.Explorer.lookup` answers for ``source=site``), of the
    ``speeds`` and rating ``bands`` given (default all), read from ``store``."""
    rows, games = await store.read(
        site_position(board.variant.game, position_key(board), speeds, bands),
        "reading the explorer's site games",
    )
    return position_stats(board, SITE, rows, games)


def _entry(game_id: str, state: RoundState, result: str, band: str) -> SiteGame | None:
    """What the explorer counts of a finished game (None: a game it does not count)."""
    if state.kind in SKIPPED_KINDS or result not in _RESULTS or not state.moves:
        return None
    start = state.game.board.root()  # (a janggi game's start is after its setup)
    if not is_from_start(start):
        return None
    try:
        positions = game_positions(state.moves, variant=state.variant, fen=start.fen())
    except ExplorerError as error:
        log.error("the game %s cannot be counted in the explorer: %s", game_id, error)
        return None
    return SiteGame(
        game_id=game_id,
        game=state.variant.game,
        speed=speed_of(state.time_control),
        band=band,
        red=state.names.get("first", ""),
        black=state.names.get("second", ""),
        date=time.strftime("%Y-%m-%d", time.gmtime(state.created)),
        result=result,
        positions=positions,
    )


class SiteGames:
    """Counts the games that end in this process in the explorer's site source (in the
    server's database), answers its lookups, and at start counts what was not counted
    (and moves an older chuhan's ``explorer-site.sqlite3`` in: ``old_file``)."""

    def __init__(
        self,
        store: Store,
        manager: GameManager,
        accounts: AccountRepository,
        *,
        old_file: Path | None = None,
    ) -> None:
        self.store = store
        self.manager = manager
        self.accounts = accounts
        self.old_file = old_file
        self._tasks: set[asyncio.Task[Any]] = set()
        self._unsubscribe: Any = None
        #: The start's work (the old file, then the catch-up), when under way.
        self.starting: asyncio.Task[None] | None = None

    def start(self, bus: Bus) -> None:
        """Hear the games that end; count, in the background, what is not counted yet."""
        self._unsubscribe = bus.subscribe(GameFinished, self._heard)
        self.starting = asyncio.get_running_loop().create_task(self._start())

    async def _start(self) -> None:
        try:
            if self.old_file is not None:
                await self.move_old_file(self.old_file)
            await self.catch_up()
        except StoreError as error:
            log.error("the explorer could not count the games not counted yet: %s", error)

    async def lookup(
        self, board: Board, *, speeds: list[str] | None = None, bands: list[str] | None = None
    ) -> PositionStats:
        """The moves played from ``board`` in this server's games (:func:`site_lookup`)."""
        return await site_lookup(self.store, board, speeds=speeds, bands=bands)

    def _heard(self, event: GameFinished) -> None:
        result = str(event.result.get("result"))
        if event.kind in SKIPPED_KINDS or result not in _RESULTS:
            return
        room = self.manager.rooms.get(event.game_id)
        if room is None:
            return
        state = room.state  # (read now: the game as it ended, before anything else)
        task = asyncio.get_running_loop().create_task(self._add(event.game_id, state, result))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _add(self, game_id: str, state: RoundState, result: str) -> bool:
        """Count one finished game; whether it was counted now. A database failure is
        logged (the next start counts it)."""
        try:
            band = rating_band(await self._ratings(game_id, state.variant.game))
            loop = asyncio.get_running_loop()
            # (replaying the moves is CPU work: off the event loop)
            entry = await loop.run_in_executor(None, _entry, game_id, state, result, band)
            if entry is None:
                return False
            return await self.store.write(add_site_game(entry), "counting a game in the explorer")
        except StoreError as error:
            log.error(
                "the game %s could not be counted in the explorer (%s): the next start counts it",
                game_id,
                error,
            )
            return False

    async def _ratings(self, game_id: str, game: str) -> list[float] | None:
        if not await self.accounts.is_rated(game_id):
            return None
        ratings = []
        for account in (await self.accounts.game_accounts(game_id)).values():
            rating = (await self.accounts.ratings_of(account.id)).get(game)
            if rating is not None:
                ratings.append(float(rating.rating))
        return ratings or None

    async def catch_up(self) -> int:
        """Count the finished games between people that are not counted (a write that
        failed; games that ended before the explorer kept them): how many were. Raises
        :class:`StoreError` when the database cannot be read."""
        added = 0
        after = ""
        while True:
            found = await self.store.read(
                uncounted_games(after, CATCH_UP_BATCH), "finding games the explorer lacks"
            )
            if not found:
                return added
            for game_id in found:
                stored = await self.store.game_since(game_id, 0)
                if stored is None:
                    continue
                row, events = stored
                try:
                    state = replay(row, events)
                except (ChuhanError, ValueError, KeyError, TypeError) as error:
                    log.error("the game %s cannot be counted in the explorer: %s", game_id, error)
                    continue
                result = state.result()
                if result is not None and await self._add(
                    game_id, state, str(result.get("result"))
                ):
                    added += 1
            after = found[-1]

    async def move_old_file(self, path: Path) -> int:
        """Count the games of an older chuhan's site index file at ``path`` (each under
        the speed and band it was counted under), then delete the file: how many were
        counted now (a game counted already is not counted again). A file that cannot be
        read is left where it is, and said."""
        if not path.exists():
            return 0
        loop = asyncio.get_running_loop()

        def read() -> list[dict[str, Any]]:
            with Explorer(path) as explorer:
                return list(explorer.site_games())

        try:
            games = await loop.run_in_executor(None, read)
        except ExplorerError as error:
            log.error("the explorer's old site file %s cannot be read: %s", path, error)
            return 0
        added = 0
        for game in games:
            parts = game["source"].split("/")
            if len(parts) != 4:
                continue
            try:
                positions = game_positions(game["moves"], variant=parts[1], fen=game["fen"])
            except (ExplorerError, ChuhanError) as error:
                log.error("the game %s of %s is not counted: %s", game["origin"], path, error)
                continue
            entry = SiteGame(
                game_id=game["origin"],
                game=parts[1],
                speed=parts[2],
                band=parts[3],
                red=game["red"],
                black=game["black"],
                date=game["date"],
                result=game["result"],
                positions=positions,
            )
            if await self.store.write(add_site_game(entry), "moving the explorer's old file"):
                added += 1
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                Path(f"{path}{suffix}").unlink()
        log.info(
            "the explorer's site games were moved from %s into the game database (%d of %d "
            "counted now); the file is deleted",
            path,
            added,
            len(games),
        )
        return added

    async def settled(self) -> None:
        """Wait for the counts under way (and the start's work) to end."""
        if self.starting is not None:
            await asyncio.wait([self.starting])
        while self._tasks:
            await asyncio.wait(list(self._tasks))

    async def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        if self.starting is not None and not self.starting.done():
            self.starting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.starting
        for task in list(self._tasks):
            await asyncio.wait([task], timeout=5)
