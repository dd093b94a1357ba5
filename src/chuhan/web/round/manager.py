"""All live rooms of one server: loaded from the store on demand, let go when nothing
needs them in memory, resumed after a start; and the creation of new games.

On a shared store (PostgreSQL, several server processes) the manager also keeps this
process in step with the others: it hears their notices (a game written, a chat line, who
is connected) and catches its rooms up, and it beats every ``beat_seconds`` to stay the
driver of its games (their clocks, setup deadlines and computer moves) and to take over
the games of a process that stopped beating for ``takeover_seconds``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any

from chuhan.clock import TimeControl
from chuhan.errors import ChuhanError, ServiceError
from chuhan.variants import Variant, get_variant
from chuhan.web.bus import Bus
from chuhan.web.compute.service import Compute
from chuhan.web.db import (
    ChatLine,
    GameRow,
    Notice,
    Store,
    StoredEvent,
    StoreError,
)
from chuhan.web.round.reads import cannot_load
from chuhan.web.round.room import Room
from chuhan.web.round.seats import new_game_id, new_token, other_seat
from chuhan.web.settings import Settings
from chuhan.web.sockets.protocol import ProtocolError

__all__ = ["GameManager", "RoomUnavailable"]

log = logging.getLogger("chuhan.web")


class RoomUnavailable(ServiceError):
    """A stored game that cannot be rebuilt (damaged rows, a record this version cannot
    replay): reported to whoever asked for it, and logged; other games are unaffected."""


class GameManager:
    """All rooms of one server: created on demand from the store, evicted when a
    finished game has nobody connected."""

    def __init__(
        self,
        store: Store,
        compute: Compute,
        bus: Bus,
        now: Callable[[], float],
        settings: Settings | None = None,
    ) -> None:
        self.store = store
        self.compute = compute
        self.bus = bus
        self.now = now
        #: What the rooms follow (chat limits, the setup and abandonment times, beats).
        self.settings = settings = settings or Settings()
        self.setup_seconds = settings.setup_seconds
        self.beat_seconds = settings.beat_seconds
        self.takeover_seconds = settings.takeover_seconds
        self.rooms: dict[str, Room] = {}
        #: The games this process drives (None: every game, the store is not shared).
        self.driving: set[str] | None = set() if store.shared else None
        #: Games already logged as unavailable (a page that reconnects every few seconds
        #: would otherwise fill the log with the same sentence).
        self._reported: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._beats: asyncio.Task[None] | None = None
        #: Games created while a beat is under way (driven by this process all the same).
        self._created_while_beating: set[str] = set()
        #: The rooms found behind the store at the last beat, and the revision stored then.
        self._behind: dict[str, int] = {}
        self._beat_failing = False
        #: Who hears the notices of other kinds than the games' (``{kind: handler}``: the
        #: lobby's); each also hears ``resync``.
        self.listeners: dict[str, Callable[[Notice], None]] = {}
        #: Called with the old game's row and its rematch's once the rematch is stored,
        #: before the players are told (the accounts' feature rates a rated game's rematch).
        self.rematch_hooks: list[Callable[[GameRow, GameRow], Awaitable[None]]] = []

    def drives(self, game_id: str) -> bool:
        """Whether this process runs the game's clock, setup deadline and computer."""
        return self.driving is None or game_id in self.driving

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

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
            stored = await self.read(game_id)
            if stored is None:
                return None
            row, tokens, events = stored
            found = self.rooms.get(game_id)  # loaded by someone else meanwhile
            if found is not None:
                return found
            room = Room(self, row, tokens, events)
        except (StoreError, ChuhanError, ValueError, KeyError, TypeError) as error:
            why = cannot_load(game_id, error, self._reported, "rebuild")
            raise RoomUnavailable(why) from None
        self.rooms[game_id] = room
        if self.store.shared:
            room.presence_changed()  # (the others say who they have connected in return)
        return room

    async def read(self, game_id: str) -> tuple[GameRow, dict[str, str], list[StoredEvent]] | None:
        """A stored game as a room is built from it: its row, ``{seat: token}`` and event
        log (None if there is no such game; raises :class:`StoreError`)."""
        stored = await self.store.game_since(game_id, 0)
        if stored is None:
            return None
        return stored[0], await self.store.seats_of(game_id), stored[1]

    def drop(self, room: Room) -> None:
        room.stop_tasks()
        if self.rooms.get(room.game_id) is room:
            del self.rooms[room.game_id]

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

    async def start(self) -> None:
        """After the store is open: on a shared store, listen to the other processes and
        start beating; then resume the games this process drives."""
        if self.store.shared:
            self.bus.subscribe(Notice, self.hear)
            await self.bus.hear_other_processes()
            try:
                self.driving = await self.store.beat(self.takeover_seconds)
            except StoreError as error:
                log.error("cannot take the games to drive: %s", error)
            self._beats = asyncio.get_running_loop().create_task(self._beat_forever())
        await self.resume()

    async def resume(self) -> None:
        """After a start: load every unfinished game this process drives, so clocks that
        ran out while the server was down end their games and computers to move start
        thinking; the rooms with nothing to do (an untimed game waiting for its players)
        are let go again. A game that cannot be loaded is logged and left out; nothing here
        stops a start."""
        if self.driving is not None:
            game_ids = sorted(self.driving)
        else:
            try:
                game_ids = await self.store.unfinished_game_ids()
            except StoreError as error:
                log.error("cannot list the unfinished games, none is resumed: %s", error)
                return
        for game_id in game_ids:
            await self.drive_game(game_id)

    async def drive_game(self, game_id: str) -> None:
        """Load a game this process drives and bring its clock and computer up to date
        (the beat's, a takeover's and the correspondence sweep's look at a game)."""
        try:
            room = await self.room(game_id)
        except RoomUnavailable:
            return
        if room is None:
            return
        async with room.lock:
            now = self.now()
            try:
                if self.store.shared:  # (a room in memory may have missed a notice)
                    await room.catch_up(now)
                await room.check_time(now)
                await room.after_change(now)
            except (ProtocolError, StoreError):
                pass  # (the next look tries again)
        self.maybe_evict(room)

    async def _beat_forever(self) -> None:
        while True:
            await asyncio.sleep(self.beat_seconds)
            try:
                await self.beat()
            except Exception:  # a beat that fails must not stop the next one
                log.exception("a beat failed")

    async def beat(self) -> None:
        """Stay alive in the shared store; start driving the games handed to this process
        (taken over from one that stopped) and stop driving those another one drives now."""
        self._created_while_beating = set()  # (the beat's answer cannot list them)
        try:
            driving = await self.store.beat(self.takeover_seconds)
        except StoreError as error:
            if not self._beat_failing:
                log.error("cannot reach the game database to beat: %s", error)
            self._beat_failing = True
            return
        if self._beat_failing:
            log.info("the game database answers again")
            self._beat_failing = False
        before = self.driving or set()
        driving |= self._created_while_beating
        self.driving = driving
        await self._forget_the_dead()
        await self._check_revisions()
        for game_id in before - driving:
            room = self.rooms.get(game_id)
            if room is not None:
                room.stop_driving()
                self.maybe_evict(room)
        for game_id in sorted(driving - before):
            await self.drive_game(game_id)

    async def _check_revisions(self) -> None:
        """Catch up any room in memory that is still behind a write the store had at the
        previous beat (a notice lost when a process died between its write and its
        notice). A room behind only since this beat is left to the notice on its way."""
        if not self.store.shared or not self.rooms:
            return
        try:
            newer = await self.store.newer_revisions(
                {game_id: room.state.revision for game_id, room in self.rooms.items()}
            )
        except StoreError:
            return
        before, self._behind = self._behind, newer
        for game_id, revision in before.items():
            room = self.rooms.get(game_id)
            if room is not None and room.state.revision < revision:
                self._catch_up(room)

    async def _forget_the_dead(self) -> None:
        """Who a process that stopped beating had connected is no longer shown."""
        heard = {origin for room in self.rooms.values() for origin in room.remote_roles}
        if not heard:
            return
        try:
            alive = await self.store.live_servers(self.takeover_seconds)
        except StoreError:
            return
        for origin in heard - alive:
            for room in self.rooms.values():
                room.forget_server(origin)

    # ------------------------------------------------------------------ other processes

    def hear(self, notice: Notice) -> None:
        """A notice from another server process (on the event loop)."""
        listener = self.listeners.get(notice.kind)
        if listener is not None:
            listener(notice)
            return
        if notice.kind == "resync":
            for each_listener in self.listeners.values():
                each_listener(notice)
            for each in list(self.rooms.values()):
                self._catch_up(each)
                if each.local_roles():
                    each.presence_changed()
            return
        room = self.rooms.get(notice.game_id)
        try:
            if notice.kind == "game":
                if room is not None:
                    revision = int(notice.data["revision"])
                    if revision > room.state.revision:
                        room.heard[revision] = notice
                        self._catch_up(room)
                elif self.driving is not None and notice.game_id in self.driving:
                    self._spawn(self.drive_game(notice.game_id))  # the computer may be to move
            elif notice.kind == "chat" and room is not None:
                if "line" in notice.data:
                    at, sender, name, text = notice.data["line"]
                    room.hear_chat(ChatLine(float(at), str(sender), str(name), str(text)))
                else:  # (too long to announce: read from the store)
                    self._spawn(self._hear_chat_from_store(room))
            elif notice.kind == "presence" and room is not None:
                roles = {str(k): int(v) for k, v in dict(notice.data["roles"]).items()}
                room.hear_presence(notice.origin, roles)
        except (KeyError, TypeError, ValueError) as error:
            log.warning("a malformed notice from server %s: %s", notice.origin, error)

    async def _hear_chat_from_store(self, room: Room) -> None:
        try:
            lines = await self.store.chat_history(room.game_id, 1)
        except StoreError as error:
            log.warning("cannot read the chat of game %s: %s", room.game_id, error)
            return
        if lines:
            room.hear_chat(lines[-1])

    def _catch_up(self, room: Room) -> None:
        """Bring ``room`` up to date with the notices heard for it (``room.heard``) or, where
        they leave a gap, with the store (one catch-up at a time per room; a notice during
        one asks for another)."""
        if room.catching_up:
            room.catch_up_again = True
            return
        room.catching_up = True

        async def run() -> None:
            try:
                while True:
                    room.catch_up_again = False
                    async with room.lock:
                        if self.rooms.get(room.game_id) is not room:
                            return
                        await room.catch_up(self.now())
                    if not room.catch_up_again:
                        return
            except ProtocolError:
                pass  # (the room could not be rebuilt: it was closed, and said so)
            finally:
                room.catching_up = False

        self._spawn(run())

    def announce_presence(self, room: Room) -> None:
        """Tell the other processes who is connected to ``room`` here."""
        if not self.store.shared:
            return

        async def run() -> None:
            try:
                await self.bus.notify(room.game_id, "presence", {"roles": room.local_roles()})
            except StoreError as error:
                log.warning(
                    "cannot tell the other servers who is in game %s: %s", room.game_id, error
                )

        self._spawn(run())

    def close(self) -> None:
        if self._beats is not None:
            self._beats.cancel()
            self._beats = None
        for task in list(self._tasks):
            task.cancel()
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
            time_control=None if time_control is None else time_control.to_dict(),
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
        if self.driving is not None:
            self.driving.add(row.id)  # (the store made this process its driver)
            self._created_while_beating.add(row.id)
        return row, seats

    async def create_rematch(self, old: GameRow) -> tuple[GameRow, dict[str, str]]:
        control = None if old.time_control is None else TimeControl(**old.time_control)
        names = {"first": old.names.get("second", ""), "second": old.names.get("first", "")}
        names = {seat: n for seat, n in names.items() if n}
        if old.kind == "computer":
            human_seat = "first" if old.computer_side == "first" else "second"
        else:
            human_seat = "first"
        row, seats = await self.create(
            kind=old.kind,
            variant=self.variant_of(old),
            time_control=control,
            level=old.level,
            human_seat=human_seat,
            name=None,
            names=names,
            fen=old.start_fen,
        )
        for hook in self.rematch_hooks:
            await hook(old, row)
        return row, seats

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
