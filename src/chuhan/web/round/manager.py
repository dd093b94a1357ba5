"""All live rooms of one server: loaded from the store on demand, let go when nothing
needs them in memory, resumed after a start; and the creation of new games."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import Any

from chuhan.clock import TimeControl
from chuhan.errors import ChuhanError
from chuhan.variants import Variant, get_variant
from chuhan.web.events import EventBus
from chuhan.web.pool import Pool
from chuhan.web.protocol import ProtocolError
from chuhan.web.round import timers
from chuhan.web.round.room import Room
from chuhan.web.round.seats import new_game_id, new_token, other_seat
from chuhan.web.store import GameRow, GameUnreadable, Store, StoreError

__all__ = ["GameManager", "RoomUnavailable"]

log = logging.getLogger("chuhan.web")


class RoomUnavailable(ChuhanError):
    """A stored game that cannot be rebuilt (damaged rows, a record this version cannot
    replay): reported to whoever asked for it, and logged; other games are unaffected."""


class GameManager:
    """All rooms of one server: created on demand from the store, evicted when a
    finished game has nobody connected."""

    def __init__(
        self,
        store: Store,
        pool: Pool,
        bus: EventBus,
        now: Callable[[], float],
        *,
        setup_seconds: float = 60.0,
    ) -> None:
        self.store = store
        self.pool = pool
        self.bus = bus
        self.now = now
        self.setup_seconds = setup_seconds
        self.rooms: dict[str, Room] = {}
        #: Games already logged as unavailable (a page that reconnects every few seconds
        #: would otherwise fill the log with the same sentence).
        self._reported: set[str] = set()

    @staticmethod
    def variant_of(row: GameRow) -> Variant:
        return get_variant(row.variant, row.rules)

    async def room(self, game_id: str) -> Room | None:
        """The live room of a game, loading it from the store if needed; None when there
        is no such game. Raises :class:`RoomUnavailable` for a game that cannot be
        rebuilt."""
        found = self.rooms.get(game_id)
        if found is not None:
            return found
        try:
            row = await self.store.load_game(game_id)
            if row is None:
                return None
            tokens = await self.store.seats_of(game_id)
            events = await self.store.events(game_id)
            found = self.rooms.get(game_id)  # loaded by someone else meanwhile
            if found is not None:
                return found
            room = Room(self, row, tokens, events)
        except (StoreError, ChuhanError, ValueError, KeyError, TypeError) as error:
            if game_id not in self._reported:
                self._reported.add(game_id)
                if isinstance(error, GameUnreadable):
                    log.error("%s; it is left out", error)
                else:
                    log.error("cannot rebuild game %s: %s", game_id, error)
            if isinstance(error, GameUnreadable):
                why = "its stored record is damaged"
            elif isinstance(error, StoreError):
                why = "the game database failed"
            else:
                why = "its stored record cannot be replayed"
            raise RoomUnavailable(f"game {game_id[:40]!r} cannot be loaded: {why}") from None
        self.rooms[game_id] = room
        return room

    def drop(self, room: Room) -> None:
        room.stop_tasks()
        if self.rooms.get(room.row.id) is room:
            del self.rooms[room.row.id]

    @contextlib.contextmanager
    def hold(self, room: Room) -> Iterator[None]:
        """Keep ``room`` in memory while a socket or a request uses it; afterwards it is let
        go if nothing else needs it (:meth:`maybe_evict`)."""
        room.attached += 1
        try:
            yield
        finally:
            room.attached -= 1
            self.maybe_evict(room)

    def maybe_evict(self, room: Room) -> None:
        """Drop a room nobody holds and nothing runs in (finished, or waiting for a player
        who is away): its row has everything, and the next visit rebuilds it."""
        if room.attached == 0 and not room.connections and (room.status == "over" or room.idle()):
            self.drop(room)

    async def resume(self) -> None:
        """After a start: load every unfinished game, so clocks that ran out while the
        server was down end their games and computers to move start thinking; the rooms
        with nothing to do (an untimed game waiting for its players) are let go again. A
        game that cannot be loaded is logged and left out; nothing here stops a start."""
        try:
            game_ids = await self.store.unfinished_game_ids()
        except StoreError as error:
            log.error("cannot list the unfinished games, none is resumed: %s", error)
            return
        for game_id in game_ids:
            try:
                room = await self.room(game_id)
            except RoomUnavailable:
                continue
            if room is None:
                continue
            async with room.lock:
                now = self.now()
                try:
                    await timers.check_time(room, now)
                    await room.after_change(now)
                except (ProtocolError, StoreError):
                    continue
            self.maybe_evict(room)

    def close(self) -> None:
        for room in list(self.rooms.values()):
            room.stop_tasks()
            for conn in list(room.connections):
                conn.close()
        self.rooms.clear()

    # ------------------------------------------------------------------ creating

    async def create(
        self,
        *,
        kind: str,
        variant: Variant,
        time_control: TimeControl | None,
        level: int | None,
        human_seat: str,
        name: str | None,
        names: dict[str, str] | None = None,
        fen: str | None = None,
    ) -> tuple[GameRow, dict[str, str]]:
        """Create and store a new game (from ``fen``, already checked, if given: a janggi
        game from a FEN has no setup phase); return its row and ``{seat: token}``."""
        now = self.now()
        row = GameRow(
            id=new_game_id(),
            kind=kind,
            variant=variant.game,
            rules=variant.rules,
            start_fen=fen,
            time_control=None
            if time_control is None
            else {
                "base": time_control.base,
                "increment": time_control.increment,
                "periods": time_control.periods,
                "period_seconds": time_control.period_seconds,
            },
            level=level if kind == "computer" else None,
            computer_side=None,
            names=dict(names or {}),
            created=now,
            updated=now,
            status="setup" if variant.is_janggi and fen is None else "playing",
            offers={"draw": None, "takeback": None, "rematch": None},
        )
        if kind == "computer":
            row.computer_side = other_seat(human_seat)
        if name and kind != "local":
            row.names[human_seat] = name
        if kind == "local":
            seats = {"both": new_token()}
        elif kind == "computer":
            seats = {human_seat: new_token()}
        else:
            seats = {"first": new_token(), "second": new_token()}
        await self.store.create_game(row, {token: seat for seat, token in seats.items()})
        return row, seats

    async def create_rematch(self, old: GameRow) -> tuple[GameRow, dict[str, str]]:
        control = None if old.time_control is None else TimeControl(**old.time_control)
        names = {"first": old.names.get("second", ""), "second": old.names.get("first", "")}
        names = {seat: n for seat, n in names.items() if n}
        if old.kind == "computer":
            human_seat = "first" if old.computer_side == "first" else "second"
        else:
            human_seat = "first"
        return await self.create(
            kind=old.kind,
            variant=self.variant_of(old),
            time_control=control,
            level=old.level,
            human_seat=human_seat,
            name=None,
            names=names,
            fen=old.start_fen,
        )

    async def store_imported(
        self,
        variant: Variant,
        fen: str,
        moves: list[str],
        result: dict[str, Any],
        headers: dict[str, str],
    ) -> GameRow:
        now = self.now()
        row = GameRow(
            id=new_game_id(),
            kind="imported",
            variant=variant.game,
            rules=variant.rules,
            start_fen=fen,
            time_control=None,
            level=None,
            computer_side=None,
            names={},
            created=now,
            updated=now,
            status="over",
            moves=moves,
            offers={"draw": None, "takeback": None, "rematch": None},
            result=result,
            headers=headers,
        )
        await self.store.create_game(row, {}, event="import")
        return row
