"""A room: one live game with one writer.

Every action runs under the room's :class:`asyncio.Lock`, is applied to the
:class:`~chuhan.game.Game` (the referee), written to the store, and only then acknowledged,
broadcast and published on the event bus (:meth:`Room.commit`). A room is rebuilt from the
game's stored event log (:mod:`~chuhan.web.round.replay`) whenever it is loaded: after a
restart, or when a game nobody watched is visited again.

Clocks use the server's wall clock (``now`` in seconds since the epoch), so they keep
running while the server is down: a restart cannot give anyone time (see
``docs/web-protocol.md``). The actions are in :mod:`~chuhan.web.round.actions`, the
timers in :mod:`~chuhan.web.round.timers`, the computer player in
:mod:`~chuhan.web.round.computer` and what is shown in :mod:`~chuhan.web.round.view`.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter, deque
from typing import TYPE_CHECKING, Any

from chuhan.clock import Clock, TimeControl
from chuhan.errors import ChuhanError
from chuhan.game import Game, GameError, Outcome
from chuhan.squares import Move
from chuhan.web.bus import GameFinished, StateChanged
from chuhan.web.db import (
    QUIET_EVENTS,
    ChatLine,
    GameRow,
    Notice,
    StoreConflict,
    StoredEvent,
    StoreError,
)
from chuhan.web.db.rows import noticed_change
from chuhan.web.round import actions, computer, timers
from chuhan.web.round.replay import ReplayError, apply_event, rebuild
from chuhan.web.round.seats import SEATS, seat_of
from chuhan.web.round.view import (
    PLAYERS_ROOM,
    SPECTATORS_ROOM,
    Snapshot,
    build_snapshot,
    chat_message,
    chat_room,
    move_entry,
    render_presence,
    result_dict,
)
from chuhan.web.sockets.connection import PRESENCE, STATE, Connection
from chuhan.web.sockets.protocol import PROTOCOL_VERSION, ClientMessage, ProtocolError, TokenBucket

if TYPE_CHECKING:
    from chuhan.web.round.manager import GameManager


class Overtaken(ProtocolError):
    """(``stale_version``) another server process wrote the game first; the room was
    rebuilt from the store."""


__all__ = ["Room"]

log = logging.getLogger("chuhan.web")

#: Seconds over which arrivals and departures are gathered into one ``presence`` update.
PRESENCE_DELAY = 0.25
#: Chat lines a newcomer is shown, of the chat room they see (the players' or the
#: spectators').
CHAT_HISTORY = 50
#: Chat lines of both rooms together read from the store to find each room's last ones.
_CHAT_READ = 500
#: Chat senders' budgets one room keeps; past that they all start again (spectators
#: chatting from many addresses cannot grow a room's memory without end).
_CHAT_BUDGETS_KEPT = 512
#: Takebacks remembered for sending move lists as changes (older clients get them whole).
_TRUNCATIONS_KEPT = 32


class Room:
    """One game in memory. Create rooms through :class:`GameManager`."""

    def __init__(
        self,
        manager: GameManager,
        row: GameRow,
        tokens: dict[str, str],
        events: list[StoredEvent],
    ) -> None:
        """The room of a stored game, rebuilt from its event log (:mod:`.replay`)."""
        self.manager = manager
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        #: Connections by role (who is here, without counting them one by one).
        self._roles: Counter[str] = Counter()
        #: Who other server processes have connected here (shared stores): by process.
        self.remote_roles: dict[str, Counter[str]] = {}
        self._presence_text: str | None = None
        #: Sockets and requests holding this room (:meth:`GameManager.hold`); a socket holds
        #: it from the moment it opens, before its hello.
        self.attached = 0
        self.timer: asyncio.Task[None] | None = None
        self.computer: asyncio.Task[None] | None = None
        self._presence_due: asyncio.TimerHandle | None = None
        self._announce_presence = False
        #: A catch-up with other processes' writes is under way / asked for again.
        self.catching_up = False
        #: The game notices heard from other processes and not yet applied, by revision.
        self.heard: dict[int, Notice] = {}
        self.catch_up_again = False
        #: The last chat lines of each chat room (None until first read from the store).
        self._chat_lines: dict[str, deque[ChatLine]] | None = None
        #: The ``chat_history`` message of each chat room (built when first asked for).
        self._chat_texts: dict[str, str] = {}
        #: Each chat sender's budget (a seat, or a spectator's address): flood limits.
        self.chat_budgets: dict[str, TokenBucket] = {}
        #: Since when each seat's player has been gone (the server's clock); a player
        #: here, or the computer, is not in it. An opponent gone long enough from a timed
        #: game may be claimed against (:mod:`.actions`).
        self.absent_since: dict[str, float] = {}
        #: Takebacks as ``(publication, entries kept)``; publications before
        #: ``_truncations_from`` may have had takebacks that are no longer listed.
        self._truncations: deque[tuple[int, int]] = deque(maxlen=_TRUNCATIONS_KEPT)
        self._truncations_from = 0
        self._rebuild(row, tokens, events)
        self._note_absences()
        self.published: Snapshot = build_snapshot(self, 0, manager.now())

    def _rebuild(self, row: GameRow, tokens: dict[str, str], events: list[StoredEvent]) -> None:
        """(Re)make the game from its stored row and event log."""
        self.row = row
        self.tokens = tokens  # seat -> token
        self.variant = self.manager.variant_of(row)
        self.game = Game.new(self.variant, fen=row.start_fen)
        self.clock = None if row.time_control is None else Clock(TimeControl(**row.time_control))
        self.entries: list[str] = []
        self.outcome: Outcome | None = None
        #: The last event that changed the game (what ``state.last_event`` shows).
        self.last_event: dict[str, Any] | None = None
        self._shortest = 0
        rebuild(self, events)
        self.outcome = self.game.outcome()
        self._shortest = len(self.entries)

    # ------------------------------------------------------------------ state

    @property
    def status(self) -> str:
        if self.outcome is not None or self.row.kind == "imported":
            return "over"
        if self.game.setup_pending is not None:
            return "setup"
        return "playing"

    def result(self) -> dict[str, Any] | None:
        if self.outcome is not None:
            return result_dict(self.outcome, self.variant)
        return self.row.result  # imported records keep the result they were given

    def is_computer(self, side: bool) -> bool:
        return self.row.computer_side == seat_of(side)

    def is_connected(self, seat: str) -> bool:
        """Whether the seat's player is here (connected to this server process or, on a
        shared store, to another one)."""
        if self.row.computer_side == seat:
            return True
        if self._roles[seat] + self._roles["both"] > 0:
            return True
        return any(roles[seat] + roles["both"] > 0 for roles in self.remote_roles.values())

    def watcher_count(self) -> int:
        """Watchers of the game, on every server process."""
        return self._roles["watcher"] + sum(r["watcher"] for r in self.remote_roles.values())

    def abandon_seconds(self) -> float:
        """How long a player must be gone before the opponent may claim the game."""
        return self.manager.settings.abandon_seconds

    def _note_absences(self) -> None:
        """Who is here may have changed: note when each seat's player went (or that they
        are back), and build the ``presence`` message again when asked for."""
        self._presence_text = None
        for seat in SEATS:
            if self.is_connected(seat):
                self.absent_since.pop(seat, None)
            elif seat not in self.absent_since:
                self.absent_since[seat] = self.manager.now()

    def local_roles(self) -> dict[str, int]:
        """Who is connected to this room in this process, by role."""
        return {role: count for role, count in self._roles.items() if count > 0}

    def hear_presence(self, origin: str, roles: dict[str, int]) -> None:
        """Another server process said who it has connected here. A process heard from
        for the first time is told who is here in return (when anyone is)."""
        first = origin not in self.remote_roles
        if roles:
            self.remote_roles[origin] = Counter(roles)
        else:
            self.remote_roles.pop(origin, None)
        self._note_absences()
        self.presence_changed(announce=first and bool(self._roles.total()))

    def forget_server(self, origin: str) -> None:
        """A server process that stopped beating: who it had connected is no longer here."""
        if self.remote_roles.pop(origin, None) is not None:
            self._note_absences()
            self.presence_changed(announce=False)

    def hear_chat(self, line: ChatLine) -> None:
        """A chat line stored through another server process: shown here too."""
        self._keep_chat(line)
        self.broadcast_chat(line)

    def broadcast_chat(self, line: ChatLine) -> None:
        """A chat line to the connections of its chat room (players' or spectators')."""
        audience = chat_room(line.sender)
        text = json.dumps(chat_message(line), ensure_ascii=False)
        for conn in list(self.connections):
            if chat_room(conn.role) == audience:
                conn.push(text, droppable=True)

    def _add(self, conn: Connection) -> None:
        if conn not in self.connections:
            self.connections.add(conn)
            self._roles[conn.role or "watcher"] += 1
            self._note_absences()

    def _remove(self, conn: Connection) -> None:
        if conn in self.connections:
            self.connections.discard(conn)
            self._roles[conn.role or "watcher"] -= 1
            self._note_absences()

    def presence_text(self) -> str:
        """The ``presence`` message as it stands (built once per arrival or departure)."""
        if self._presence_text is None:
            self._presence_text = render_presence(self)
        return self._presence_text

    def publish(self, now: float) -> None:
        """Make what was just stored the state everyone is shown from now on."""
        previous = self.published
        seq = previous.seq + 1
        kept = min(len(previous.entries), self._shortest)
        if kept < len(previous.entries):
            if len(self._truncations) == self._truncations.maxlen:
                self._truncations_from = self._truncations[0][0]
            self._truncations.append((seq, kept))
        self._shortest = len(self.entries)
        self.published = build_snapshot(self, seq, now)

    def truncate_entries(self, length: int) -> None:
        """Drop the move list entries after ``length`` (a takeback)."""
        del self.entries[length:]
        self._shortest = min(self._shortest, length)

    def kept_entries(self, sent_seq: int, sent_moves: int) -> int:
        """How many of the ``sent_moves`` entries a connection last sent publication
        ``sent_seq`` holds are still right (a takeback since then may have replaced some)."""
        if sent_seq < self._truncations_from:
            return 0
        kept = sent_moves
        for seq, length in self._truncations:
            if seq > sent_seq:
                kept = min(kept, length)
        return kept

    def broadcast_state(self) -> None:
        """Every connection gets the newest state when its writer gets to it; the players'
        writers are woken first, so a crowd of watchers does not stand between a player and
        the state that answers their move."""
        watchers = []
        for conn in self.connections:
            if conn.role == "watcher":
                watchers.append(conn)
            else:
                conn.mark(STATE)
        for conn in watchers:
            conn.mark(STATE)

    def broadcast(self, message: dict[str, Any], *, droppable: bool = False) -> None:
        text = json.dumps(message, ensure_ascii=False)
        for conn in list(self.connections):
            conn.push(text, droppable=droppable)

    def send_state(self, conn: Connection) -> None:
        conn.mark(STATE)

    def presence_changed(self, *, announce: bool = True) -> None:
        """Someone arrived or left: everyone gets one ``presence`` update a moment later,
        however many came and went meanwhile; other server processes sharing the store are
        told (``announce``) who is connected here."""
        self._announce_presence = self._announce_presence or announce
        if self._presence_due is None:
            self._presence_due = asyncio.get_running_loop().call_later(
                PRESENCE_DELAY, self._send_presence
            )

    def _send_presence(self) -> None:
        self._presence_due = None
        for conn in self.connections:
            conn.mark(PRESENCE)
        if self._announce_presence:
            self._announce_presence = False
            self.manager.announce_presence(self)

    # ------------------------------------------------------------------ joining

    def admit(self, conn: Connection, role: str, *, max_watchers: int) -> bool:
        """Take a connection in and welcome it, at once: its place is counted before
        anything is awaited, so a crowd arriving together cannot pass the watcher cap.
        False (nothing done) when the game has no room for another watcher."""
        if role == "watcher" and self.watcher_count() >= max_watchers:
            return False
        conn.role = role
        conn.room = self
        self._add(conn)
        conn.send(
            {
                "type": "welcome",
                "game_id": self.row.id,
                "role": role,
                "protocol": PROTOCOL_VERSION,
                "server_time_ms": round(self.manager.now() * 1000),
            }
        )
        return True

    async def join(self, conn: Connection, name: str | None) -> None:
        """After :meth:`admit`: the seat's name, the state, the chat, a rematch link."""
        async with self.lock:
            now = self.manager.now()
            role = conn.role
            published = self.published.seq
            try:
                if name and role in ("first", "second") and self.row.names.get(role) != name:
                    self.row.names[role] = name
                    await self.save("name", {"seat": role, "name": name}, now, bump=False)
                await timers.check_time(self, now)
                await timers.arm_setup_deadline(self, now)
            except ProtocolError as error:
                if error.code != "stale_version":
                    raise
                # Another process wrote first: the room was rebuilt from the store and
                # everyone (this connection too) sent the state; the join goes on.
            if self.published.seq != published:
                self.broadcast_state()  # a name or a setup deadline changed
            else:
                conn.mark(STATE)
            self.presence_changed()
            if role == "watcher" and name:
                conn.name = name  # (a spectator's name in the spectators' chat)
            conn.push(await self._chat_history(chat_room(role)))
            if self.row.rematch is not None:
                actions.send_rematch(self, conn)
            await self.after_change(now)

    async def leave(self, conn: Connection) -> None:
        if conn not in self.connections:
            return
        self._remove(conn)
        self.presence_changed()

    async def resync(self, conn: Connection) -> None:
        async with self.lock:
            now = self.manager.now()
            await timers.check_time(self, now)
            conn.sent_seq = -1  # the whole state
            conn.mark(STATE)

    async def _chat_history(self, audience: str) -> str:
        """The ``chat_history`` message of one chat room: read from the store once, then
        kept up to date in memory (a crowd arriving costs the store nothing)."""
        if self._chat_lines is None:
            stored = await self.manager.store.chat_history(self.row.id, _CHAT_READ)
            if self._chat_lines is None:  # (not read meanwhile by another arrival)
                rooms: dict[str, deque[ChatLine]] = {
                    room: deque(maxlen=CHAT_HISTORY) for room in (PLAYERS_ROOM, SPECTATORS_ROOM)
                }
                for line in stored:
                    rooms[chat_room(line.sender)].append(line)
                self._chat_lines = rooms
                self._chat_texts.clear()
        text = self._chat_texts.get(audience)
        if text is None:
            messages = [chat_message(line) for line in self._chat_lines[audience]]
            text = self._chat_texts[audience] = json.dumps(
                {"type": "chat_history", "messages": messages}, ensure_ascii=False
            )
        return text

    def _keep_chat(self, line: ChatLine) -> None:
        if self._chat_lines is not None:
            audience = chat_room(line.sender)
            self._chat_lines[audience].append(line)
            self._chat_texts.pop(audience, None)

    def chat_budget(self, sender: str) -> TokenBucket:
        """The flood limit of one chat sender (a seat, or a spectator's address)."""
        budget = self.chat_budgets.get(sender)
        if budget is None:
            if len(self.chat_budgets) >= _CHAT_BUDGETS_KEPT:
                self.chat_budgets.clear()
            settings = self.manager.settings
            budget = self.chat_budgets[sender] = TokenBucket(
                settings.chat_burst, 1 / settings.chat_every_seconds, now=self.manager.now
            )
        return budget

    # ------------------------------------------------------------------ saving

    def _sync_row(self, now: float) -> None:
        row, game = self.row, self.game
        row.updated = now
        if len(row.moves) != game.board.ply:  # moves are appended as played
            row.moves = [m.iccs() for m in game.board.move_stack]
        row.offers = {
            "draw": None if game.draw_offer is None else seat_of(game.draw_offer),
            "takeback": None if game.takeback_request is None else seat_of(game.takeback_request),
            "rematch": row.offers.get("rematch"),
        }
        if self.clock is not None:
            row.clock = self.clock.to_dict(now)
            row.clock_at = now
        row.status = self.status
        if self.outcome is not None:
            row.result = result_dict(self.outcome, self.variant)

    def _fail_unsaved(self) -> ProtocolError:
        """The store refused a write: the room is dropped (the next access rebuilds it
        from what was stored) and everyone in it is told and disconnected."""
        self.manager.drop(self)
        message = "the server could not save the game; reconnect to continue"
        for conn in list(self.connections):
            conn.send({"type": "error", "code": "internal", "message": message})
            conn.close()
        return ProtocolError("internal", message)

    async def save(
        self, event: str, data: dict[str, Any], now: float, *, bump: bool = True
    ) -> None:
        """Write the room to the store (raises ProtocolError 'internal' if it cannot,
        after dropping the in-memory room so the next access rebuilds it from disk)."""
        if bump:
            self.row.version += 1
        self._sync_row(now)
        try:
            await self.manager.store.save_game(self.row, event, data)
        except StoreConflict:
            # Another server process wrote this game first: what was applied here is
            # undone by rebuilding the game as it is stored, and the action is refused.
            await self.reload(now)
            raise Overtaken(
                "stale_version",
                "another action reached the game first (through another server): here is "
                "the current state",
            ) from None
        except StoreError as error:
            log.error("cannot save game %s: %s", self.row.id, error)
            raise self._fail_unsaved() from None
        if bump:
            self.last_event = {"kind": event, **data}
        self.publish(now)

    async def save_chat(self, line: ChatLine) -> None:
        """Store a chat line (before anyone sees it) and add it to the history shown to
        newcomers."""
        try:
            await self.manager.store.add_chat(self.row.id, line)
        except StoreError as error:
            log.error("cannot save chat of %s: %s", self.row.id, error)
            raise ProtocolError("internal", "the chat message could not be saved") from None
        self._keep_chat(line)

    async def commit(
        self, event: str, data: dict[str, Any], now: float, actor: Connection | None, seq: int
    ) -> None:
        """Persist, then acknowledge, broadcast and publish a change already applied to the
        game."""
        finished_before = self.row.status == "over"
        await self.save(event, data, now)
        if actor is not None:
            actor.send({"type": "ack", "seq": seq, "version": self.row.version})
        self.broadcast_state()
        bus = self.manager.bus
        bus.publish(StateChanged(self.row.id, self.row.version, event))
        if not finished_before and self.row.status == "over" and self.row.result is not None:
            bus.publish(
                GameFinished(self.row.id, self.variant.name, self.row.kind, dict(self.row.result))
            )
        await self.after_change(now)

    def refresh_outcome(self, now: float) -> None:
        self.outcome = self.game.outcome()
        if self.outcome is not None and self.clock is not None:
            self.clock.stop(now)

    def apply_move(self, move: Move, now: float) -> None:
        """Play a move on the game (raises the referee's error naming why it is illegal),
        its list entry and its clock press."""
        board = self.game.board
        if not self.game.is_legal(move):
            self.game.push(move)  # raises the referee's error, naming why
            raise AssertionError(f"{move.iccs()} is not legal, yet it was played")
        entry = move_entry(board, move)
        self.game.push(move)
        entry["check"] = board.is_check()
        self.entries.append(json.dumps(entry, ensure_ascii=False))
        self.row.moves.append(move.iccs())
        clock = self.clock
        if clock is not None:
            if clock.running is None:
                clock.start(board.turn, now)
            else:
                clock.press(now)
        self.refresh_outcome(now)

    async def after_change(self, now: float) -> None:
        """After any change: computers choose setups or moves, and the timer is re-armed
        (by the game's driver: on a shared store, one server process drives each game)."""
        if not self.manager.drives(self.row.id):
            return
        try:
            await computer.choose_setups(self, now)
        except ProtocolError as error:
            if error.code != "stale_version":
                raise
            return  # (the room was rebuilt from the store, and this ran again then)
        computer.start_thinking(self)
        timers.arm_timer(self, now)

    def idle(self) -> bool:
        """Whether nothing in the room waits for time to pass: no clock or setup timer
        armed, no computer thinking (an idle room can be rebuilt from its event log later)."""
        return all(task is None or task.done() for task in (self.timer, self.computer))

    def stop_tasks(self) -> None:
        if self._presence_due is not None:
            self._presence_due.cancel()
            self._presence_due = None
        self.stop_driving()

    def stop_driving(self) -> None:
        """Stop the timer and the computer (another process drives the game now)."""
        for task in (self.timer, self.computer):
            if task is not None:
                task.cancel()
        self.timer = self.computer = None

    # ------------------------------------------------------------------ other processes

    def _heard_changes(self) -> tuple[GameRow, list[StoredEvent]] | None:
        """The row and events that the notices heard carry, from the room's revision on
        without a gap up to the newest heard; None when they do not (the store is read)."""
        heard, self.heard = self.heard, {}
        row, events = self.row, []
        try:
            while (notice := heard.get(row.revision + 1)) is not None:
                change = noticed_change(notice, row)
                if change is None:
                    return None
                row = change[0]
                events.append(change[1])
        except (KeyError, TypeError, ValueError) as error:
            log.warning("game %s: a malformed notice (%s); reading the store", self.row.id, error)
            return None
        if not events or max(heard) > row.revision:
            return None
        return row, events

    async def catch_up(self, now: float) -> None:
        """(Under the lock) take in what other server processes wrote to this game since
        the room's revision, from their notices when those carry every write, otherwise
        from the store: their events are applied as a rebuild applies them, then the new
        state is published to this process's connections. Whatever does not fit rebuilds
        the room from the store."""
        revision = self.row.revision
        found = self._heard_changes() if self.heard else None
        if found is None:
            try:
                found = await self.manager.store.game_since(self.row.id, revision)
            except StoreError as error:
                log.error("cannot catch up with game %s: %s", self.row.id, error)
                return
        if found is None or not found[1]:
            return
        row, events = found
        rematch_before = self.row.rematch
        try:
            if row.revision != revision + len(events):
                raise ReplayError("the row and its events disagree")
            for event in events:
                apply_event(self, event.kind, event.data, event.at)
                if event.kind not in QUIET_EVENTS:
                    self.last_event = {"kind": event.kind, **event.data}
            board = self.game.board  # (the row's moves are a projection of the events)
            if board.ply != len(row.moves) or (board.ply and board.peek().iccs() != row.moves[-1]):
                raise ReplayError("the moves do not end where the row says")
        except (ChuhanError, KeyError, TypeError, ValueError) as error:
            log.warning("game %s: rebuilt from the store (%s)", self.row.id, error)
            await self.reload(now)
            return
        self.row = row
        self.outcome = self.game.outcome()  # (an ending stopped the clock when it came)
        self.publish(now)
        self.broadcast_state()
        if row.rematch is not None and rematch_before is None:
            for conn in list(self.connections):
                actions.send_rematch(self, conn)
        await self.after_change(now)

    async def reload(self, now: float) -> None:
        """(Under the lock) rebuild the game from the store, keeping the connections, and
        send everyone the whole state; a game that cannot be read any more closes the
        room as a failed save does."""
        try:
            found = await self.manager.read(self.row.id)
            if found is None:
                raise StoreError(f"game {self.row.id!r} is no longer in the database")
            self._rebuild(*found)
        except (StoreError, ChuhanError, KeyError, TypeError, ValueError) as error:
            log.error("cannot reload game %s: %s", self.row.id, error)
            raise self._fail_unsaved() from None
        self._shortest = 0  # every list is sent again in full
        self.publish(now)
        self.broadcast_state()
        await self.after_change(now)

    # ------------------------------------------------------------------ actions

    async def act(self, conn: Connection, msg: ClientMessage) -> None:
        """Apply one checked player action. Raises :class:`ProtocolError` to reject it."""
        async with self.lock:
            if self.manager.rooms.get(self.row.id) is not self:
                raise ProtocolError("internal", "the game was reloaded; reconnect", msg.seq)
            now = self.manager.now()
            if msg.type == "chat":  # players and spectators, each in their own room
                try:
                    await actions.chat(self, conn, msg, now)
                except ProtocolError as error:
                    error.seq = msg.seq
                    raise
                return
            try:
                actions.require_player(conn)
            except ProtocolError as error:
                error.seq = msg.seq
                raise
            if msg.type == "flag":
                if await timers.check_time(self, now, conn, msg.seq):
                    return
                if self.status == "over":
                    raise ProtocolError("game_over", "the game is over", msg.seq)
                raise ProtocolError("not_flagged", "no one has run out of time", msg.seq)
            for attempt in (1, 2):
                await timers.check_time(self, now)
                if msg.get("version") != self.row.version:
                    raise ProtocolError(
                        "stale_version",
                        f"the game has changed (version {self.row.version}, your message "
                        f"had {msg.get('version')}): here is the current state",
                        msg.seq,
                    )
                handler = actions.HANDLERS[msg.type]
                try:
                    event, data = await handler(self, conn, msg, now)
                except ProtocolError as error:
                    error.seq = msg.seq
                    raise
                except GameError as error:
                    code = "game_over" if self.outcome is not None else "not_allowed"
                    raise ProtocolError(code, str(error), msg.seq) from None
                except ChuhanError as error:
                    raise ProtocolError("illegal_move", str(error), msg.seq) from None
                try:
                    await self.commit(event, data, now, conn, msg.seq)
                except Overtaken:
                    # Another process wrote first. If all it wrote leaves the game's
                    # version as the player saw it (a name, a setup timer), the action is
                    # made again on the game as stored, once; otherwise it is refused.
                    if attempt == 2 or self.manager.rooms.get(self.row.id) is not self:
                        raise
                    now = self.manager.now()
                    continue
                return
