"""A room: one live game with one writer.

The game is kept as one value, the room's :class:`~chuhan.web.round.state.RoundState`.
Every action runs under the room's :class:`asyncio.Lock`: the rules
(:func:`~chuhan.web.round.rules.decide`) read the state and say which events happen, the
room applies them (:func:`~chuhan.web.round.state.evolve`), writes each to the store with
the row computed from the state (:func:`~chuhan.web.round.state.row_of`), and only then
acknowledges, broadcasts and publishes on the event bus (:meth:`Room.commit`). A room is
rebuilt from the game's stored event log (:func:`~chuhan.web.round.state.replay`) whenever
it is loaded: after a restart, or when a game nobody watched is visited again.

Clocks use the server's wall clock (``now`` in seconds since the epoch), so they keep
running while the server is down: a restart cannot give anyone time (see
``docs/web-protocol.md``). The timers (flag falls, the janggi setup deadline) are here, the
computer player in :mod:`~chuhan.web.round.computer` and what is shown in
:mod:`~chuhan.web.round.view`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections import Counter, deque
from typing import TYPE_CHECKING, Any

from chuhan.errors import ChuhanError
from chuhan.game import Game, GameError, Outcome
from chuhan.variants import Variant
from chuhan.web.bus import GameFinished, StateChanged
from chuhan.web.db import (
    ChatLine,
    GameRow,
    Notice,
    StoreConflict,
    StoredEvent,
    StoreError,
)
from chuhan.web.db.rows import noticed_change
from chuhan.web.round import computer
from chuhan.web.round.connection import GameConnection
from chuhan.web.round.rules import (
    COMMANDS,
    PLAYER_ROLES,
    Command,
    Rejection,
    berserk_event,
    decide,
    due_events,
    next_deadline,
    setup_timer_event,
    unstarted_abort,
    vacation_event,
)
from chuhan.web.round.seats import SEATS, other_seat, seat_of
from chuhan.web.round.state import (
    Event,
    Overtaken,
    ReplayError,
    RoundState,
    adopt,
    evolve,
    offer_stands,
    replay,
    row_changes,
    row_of,
)
from chuhan.web.round.view import (
    PLAYERS_AUDIENCE,
    SPECTATORS_AUDIENCE,
    Snapshot,
    build_snapshot,
    chat_audience,
    chat_message,
    default_name,
    players_text,
    render_ack,
    render_presence,
)
from chuhan.web.sockets.connection import PRESENCE, STATE
from chuhan.web.sockets.protocol import (
    PROTOCOL_VERSION,
    ClientMessage,
    ProtocolError,
    TokenBucket,
)

if TYPE_CHECKING:
    from chuhan.web.round.manager import GameManager


__all__ = ["Room"]

log = logging.getLogger("chuhan.web")

#: Seconds over which arrivals and departures are gathered into one ``presence`` update.
PRESENCE_DELAY = 0.25
#: Chat lines a newcomer is shown, of the chat audience they see (the players' or the
#: spectators').
CHAT_HISTORY = 50
#: Chat lines of both rooms together read from the store to find each room's last ones.
_CHAT_READ = 500
#: Chat senders' budgets one room keeps; past that they all start again (spectators
#: chatting from many addresses cannot grow a room's memory without end).
_CHAT_BUDGETS_KEPT = 512
#: Takebacks remembered for sending move lists as changes (older clients get them whole).
_TRUNCATIONS_KEPT = 32


def _kept_entries(before: tuple[str, ...], after: tuple[str, ...]) -> int:
    """How many of the move list entries ``before`` are still in ``after``: the entries
    are only ever appended or taken back, and an entry made again (after a takeback, or a
    rebuild) is a new text, so the entries kept are those that are the same objects."""
    common = min(len(before), len(after))
    if common == 0 or before[common - 1] is after[common - 1]:
        return common
    kept = 0
    while kept < common and before[kept] is after[kept]:
        kept += 1
    return kept


class Room:
    """One game in memory. Create rooms through :class:`GameManager`."""

    def __init__(
        self,
        manager: GameManager,
        row: GameRow,
        tokens: dict[str, str],
        events: list[StoredEvent],
    ) -> None:
        """The room of a stored game, rebuilt from its event log."""
        self.manager = manager
        self.lock = asyncio.Lock()
        self.connections: set[GameConnection] = set()
        #: Connections by role (who is here, without counting them one by one).
        self._roles: Counter[str] = Counter()
        #: Who other server processes have connected here (shared stores): by process.
        self.remote_roles: dict[str, Counter[str]] = {}
        self._presence_text: str | None = None
        #: The state message's ``players`` and ``watchers`` as JSON text, and the
        #: publication they were written for (made again when who is here changes).
        self._audience: tuple[Snapshot, str] | None = None
        #: Sockets and requests holding this room (:meth:`GameManager.hold`); a socket holds
        #: it from the moment it opens, before its hello.
        self.attached = 0
        #: The next flag fall or setup deadline, when one is due, and the check it starts.
        self._timer_due: asyncio.TimerHandle | None = None
        self.timer: asyncio.Task[None] | None = None
        self.computer: asyncio.Task[None] | None = None
        self._presence_due: asyncio.TimerHandle | None = None
        self._announce_presence = False
        #: A catch-up with other processes' writes is under way / asked for again.
        self.catching_up = False
        #: The game notices heard from other processes and not yet applied, by revision.
        self.heard: dict[int, Notice] = {}
        self.catch_up_again = False
        #: The last chat lines of each chat audience (None until first read from the store).
        self._chat_lines: dict[str, deque[ChatLine]] | None = None
        #: The ``chat_history`` message of each chat audience (built when first asked for).
        self._chat_texts: dict[str, str] = {}
        #: Each chat sender's budget (a seat, or a spectator's address): flood limits.
        self.chat_budgets: dict[str, TokenBucket] = {}
        #: Since when each seat's player has been gone (the server's clock); a player
        #: here, or the computer, is not in it. An opponent gone long enough from a timed
        #: game may be claimed against (:mod:`.rules`).
        self.absent_since: dict[str, float] = {}
        #: Takebacks as ``(publication, entries kept)``; publications before
        #: ``_truncations_from`` may have had takebacks that are no longer listed.
        self._truncations: deque[tuple[int, int]] = deque(maxlen=_TRUNCATIONS_KEPT)
        self._truncations_from = 0
        #: The seat tokens (seat -> token), for the rematch's links.
        self.tokens = tokens
        #: The game, the one place it is kept.
        self.state: RoundState = self._replayed(row, events)
        self._note_absences()
        self.published: Snapshot = build_snapshot(self.state, 0, manager.now())

    def _replayed(self, row: GameRow, events: list[StoredEvent]) -> RoundState:
        return replay(
            row,
            events,
            setup_seconds=self.manager.setup_seconds,
            abandon_seconds=self.manager.settings.abandon_seconds,
            first_move_seconds=self.manager.settings.first_move_seconds,
        )

    # ------------------------------------------------------------------ state

    @property
    def game_id(self) -> str:
        return self.state.id

    @property
    def row(self) -> GameRow:
        """The game's stored row, as computed from the state (for readers outside the
        round: listing, records)."""
        return row_of(self.state)

    @property
    def game(self) -> Game:
        return self.state.game

    @property
    def variant(self) -> Variant:
        return self.state.variant

    @property
    def outcome(self) -> Outcome | None:
        return self.state.outcome

    @property
    def status(self) -> str:
        return self.state.status

    def result(self) -> dict[str, Any] | None:
        return self.state.result()

    def is_computer(self, side: bool) -> bool:
        return self.state.is_computer(side)

    def is_connected(self, seat: str) -> bool:
        """Whether the seat's player is here (connected to this server process or, on a
        shared store, to another one)."""
        if self.state.computer_side == seat:
            return True
        if self._roles[seat] + self._roles["both"] > 0:
            return True
        return any(roles[seat] + roles["both"] > 0 for roles in self.remote_roles.values())

    def watcher_count(self) -> int:
        """Watchers of the game, on every server process."""
        return self._roles["watcher"] + sum(r["watcher"] for r in self.remote_roles.values())

    def abandon_seconds(self) -> float:
        """How long a player must be gone before the opponent may claim the game."""
        return self.state.abandon_seconds

    def _note_absences(self) -> None:
        """Who is here may have changed: note when each seat's player went (or that they
        are back), and build the ``presence`` message again when asked for."""
        self._presence_text = self._audience = None
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
        """A chat line to the connections of its chat audience (players' or spectators')."""
        audience = chat_audience(line.sender)
        text = json.dumps(chat_message(line), ensure_ascii=False)
        for conn in list(self.connections):
            if chat_audience(conn.role) == audience:
                conn.push(text, droppable=True)

    def _add(self, conn: GameConnection) -> None:
        if conn not in self.connections:
            self.connections.add(conn)
            self._roles[conn.role or "watcher"] += 1
            self._note_absences()

    def _remove(self, conn: GameConnection) -> None:
        if conn in self.connections:
            self.connections.discard(conn)
            self._roles[conn.role or "watcher"] -= 1
            self._note_absences()

    def presence_text(self) -> str:
        """The ``presence`` message as it stands (built once per arrival or departure)."""
        if self._presence_text is None:
            self._presence_text = render_presence(self)
        return self._presence_text

    def audience_text(self, snap: Snapshot) -> str:
        """The ``players`` and ``watchers`` fields of the state message of ``snap`` (the
        newest publication), as JSON text after a comma: made once for each connection's
        state, until who is here changes."""
        made = self._audience
        if made is None or made[0] is not snap:
            text = f',"players":{players_text(self, snap)},"watchers":{self.watcher_count()}'
            self._audience = made = (snap, text)
        return made[1]

    def publish(self, now: float) -> None:
        """Make what was just stored the state everyone is shown from now on."""
        previous = self.published
        seq = previous.seq + 1
        kept = _kept_entries(previous.entries, self.state.entries)
        if kept < len(previous.entries):
            if len(self._truncations) == self._truncations.maxlen:
                self._truncations_from = self._truncations[0][0]
            self._truncations.append((seq, kept))
        self.published = build_snapshot(self.state, seq, now, previous)

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

    def send_state(self, conn: GameConnection) -> None:
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

    def admit(self, conn: GameConnection, role: str, *, max_watchers: int) -> bool:
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
                "game_id": self.state.id,
                "role": role,
                "protocol": PROTOCOL_VERSION,
                "server_time_ms": round(self.manager.now() * 1000),
            }
        )
        return True

    async def join(self, conn: GameConnection, name: str | None) -> None:
        """After :meth:`admit`: the seat's name, the state, the chat, a rematch link."""
        async with self.lock:
            now = self.manager.now()
            role = conn.role
            published = self.published.seq
            try:
                if name and role in ("first", "second") and self.state.names.get(role) != name:
                    await self.write(Event("name", {"seat": role, "name": name}, now))
                await self.check_time(now)
                await self.arm_setup_deadline(now)
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
            conn.push(await self._chat_history(chat_audience(role)))
            if self.state.rematch is not None:
                self.send_rematch(conn)
            await self.after_change(now)

    async def leave(self, conn: GameConnection) -> None:
        if conn not in self.connections:
            return
        self._remove(conn)
        self.presence_changed()

    async def resync(self, conn: GameConnection) -> None:
        async with self.lock:
            now = self.manager.now()
            await self.check_time(now)
            conn.sent_seq = -1  # the whole state
            conn.mark(STATE)

    async def _chat_history(self, audience: str) -> str:
        """The ``chat_history`` message of one chat audience: read from the store once, then
        kept up to date in memory (a crowd arriving costs the store nothing)."""
        if self._chat_lines is None:
            stored = await self.manager.store.chat_history(self.state.id, _CHAT_READ)
            if self._chat_lines is None:  # (not read meanwhile by another arrival)
                rooms: dict[str, deque[ChatLine]] = {
                    room: deque(maxlen=CHAT_HISTORY)
                    for room in (PLAYERS_AUDIENCE, SPECTATORS_AUDIENCE)
                }
                for line in stored:
                    rooms[chat_audience(line.sender)].append(line)
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
            audience = chat_audience(line.sender)
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
                settings.chat_burst,
                1 / settings.chat_every_seconds,
                now=self.manager.now,
            )
        return budget

    # ------------------------------------------------------------------ saving

    def _fail_unsaved(self) -> ProtocolError:
        """The store refused a write: the room is dropped (the next access rebuilds it
        from what was stored) and everyone in it is told and disconnected."""
        self.manager.drop(self)
        message = "the server could not save the game; reconnect to continue"
        for conn in list(self.connections):
            conn.send({"type": "error", "code": "internal", "message": message})
            conn.close()
        return ProtocolError("internal", message)

    async def write(self, event: Event) -> None:
        """Apply ``event`` to the state and write it to the store with the row computed
        from the new state, then publish it (raises ProtocolError 'internal' if it cannot
        be stored, after dropping the in-memory room so the next access rebuilds it from
        disk; :class:`Overtaken` when another process wrote the game first)."""
        offered = offer_stands(self.state)
        self.state = state = evolve(self.state, event)
        row = row_of(state)
        try:
            await self.manager.store.save_game(
                row, event.kind, event.data, changed=row_changes(event.kind, offered, state)
            )
        except StoreConflict:
            # Another server process wrote this game first: what was applied here is
            # undone by rebuilding the game as it is stored, and the action is refused.
            await self.reload(event.at)
            raise Overtaken(
                "stale_version",
                "another action reached the game first (through another server): here is "
                "the current state",
            ) from None
        except StoreError as error:
            log.error("cannot save game %s: %s", state.id, error)
            raise self._fail_unsaved() from None
        self.state = state.replace(revision=row.revision)
        self.publish(event.at)
        if event.kind == "setup":
            await self.arm_setup_deadline(event.at)

    async def save_chat(self, line: ChatLine) -> None:
        """Store a chat line (before anyone sees it) and add it to the history shown to
        newcomers."""
        try:
            await self.manager.store.add_chat(self.state.id, line)
        except StoreError as error:
            log.error("cannot save chat of %s: %s", self.state.id, error)
            raise ProtocolError("internal", "the chat message could not be saved") from None
        self._keep_chat(line)

    async def commit(
        self, events: list[Event], now: float, actor: GameConnection | None, seq: int
    ) -> None:
        """Store the events (each applied, then written), then acknowledge, broadcast and
        publish them."""
        finished_before = self.state.status == "over"
        for event in events:
            await self.write(event)
        state = self.state
        if state.rematch is not None and any(event.kind == "rematch" for event in events):
            for each in list(self.connections):
                self.send_rematch(each)
        if actor is not None:
            actor.push(render_ack(seq, state.version))
        self.broadcast_state()
        bus = self.manager.bus
        bus.publish(StateChanged(state.id, state.version, events[-1].kind))
        result = state.result()
        if not finished_before and state.status == "over" and result is not None:
            bus.publish(GameFinished(state.id, state.variant.name, state.kind, dict(result)))
        await self.after_change(now)

    async def after_change(self, now: float) -> None:
        """After any change: computers choose setups or moves, and the timer is re-armed
        (by the game's driver: on a shared store, one server process drives each game)."""
        if not self.manager.drives(self.state.id):
            return
        try:
            await computer.choose_setups(self, now)
        except ProtocolError as error:
            if error.code != "stale_version":
                raise
            return  # (the room was rebuilt from the store, and this ran again then)
        computer.start_thinking(self)
        self.arm_timer(now)

    def idle(self) -> bool:
        """Whether nothing in the room waits for time to pass: no clock or setup timer
        armed, no computer thinking (an idle room can be rebuilt from its event log later)."""
        if self._timer_due is not None:
            return False
        return all(task is None or task.done() for task in (self.timer, self.computer))

    def stop_tasks(self) -> None:
        if self._presence_due is not None:
            self._presence_due.cancel()
            self._presence_due = None
        self.stop_driving()

    def stop_driving(self) -> None:
        """Stop the timer and the computer (another process drives the game now)."""
        if self._timer_due is not None:
            self._timer_due.cancel()
            self._timer_due = None
        for task in (self.timer, self.computer):
            if task is not None:
                task.cancel()
        self.timer = self.computer = None

    # ------------------------------------------------------------------ time

    async def check_time(
        self, now: float, actor: GameConnection | None = None, seq: int = 0
    ) -> bool:
        """End the game on a flag fall, or take the default janggi arrangement once the
        deadline has passed (:func:`~chuhan.web.round.rules.due_events`). Called under the
        lock before every action and by the timer; ``actor`` (a flag claim) gets the ack.
        True if a flag fell."""
        events = due_events(self.state, now)
        if not events:
            return False
        if events[0].kind == "flag":
            await self.commit(events, now, actor, seq)
            return True
        await self.commit(events, now, None, 0)
        return False

    async def arm_setup_deadline(self, now: float) -> None:
        """Start the chooser's setup time once the chooser is here (computers choose at
        once)."""
        event = setup_timer_event(self.state, now, self.is_connected)
        if event is not None:
            await self.write(event)

    def arm_timer(self, now: float) -> None:
        """(Re)set the room's timer for its next deadline, if it has one (a timer handle,
        not a task: most are set again by the next move before they are due). A timer
        armed already that is due no later than the deadline is kept: when it fires, the
        check finds nothing due and arms the timer again (a move moves the deadline, and
        making a timer and cancelling one cost a tenth of a move's server time)."""
        armed = self._timer_due
        deadline = next_deadline(self.state, now)
        if deadline is None:
            if armed is not None:
                armed.cancel()
                self._timer_due = None
            return
        loop = asyncio.get_running_loop()
        when = loop.time() + max(0.0, deadline - now + 0.005)
        if armed is not None:
            if armed.when() <= when:
                return
            armed.cancel()
        self._timer_due = loop.call_at(when, self._timer_fired)

    def _timer_fired(self) -> None:
        self._timer_due = None
        self.timer = asyncio.get_running_loop().create_task(self._wake())

    async def _wake(self) -> None:
        async with self.lock:
            self.timer = None
            try:
                await self.check_time(self.manager.now())
            except ProtocolError:
                return
            if self._timer_due is None:
                self.arm_timer(self.manager.now())

    # ------------------------------------------------------------------ other processes

    def _heard_changes(self, before: GameRow) -> tuple[GameRow, list[StoredEvent]] | None:
        """The row and events that the notices heard carry, from the room's revision on
        without a gap up to the newest heard; None when they do not (the store is read)."""
        heard, self.heard = self.heard, {}
        row, events = before, []
        try:
            while (notice := heard.get(row.revision + 1)) is not None:
                change = noticed_change(notice, row)
                if change is None:
                    return None
                row = change[0]
                events.append(change[1])
        except (KeyError, TypeError, ValueError) as error:
            log.warning("game %s: a malformed notice (%s); reading the store", before.id, error)
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
        revision = self.state.revision
        found = self._heard_changes(row_of(self.state)) if self.heard else None
        if found is None:
            try:
                found = await self.manager.store.game_since(self.state.id, revision)
            except StoreError as error:
                log.error("cannot catch up with game %s: %s", self.state.id, error)
                return
        if found is None or not found[1]:
            return
        row, events = found
        rematch_before = self.state.rematch
        try:
            if row.revision != revision + len(events):
                raise ReplayError("the row and its events disagree")
            for event in events:
                self.state = evolve(self.state, Event(event.kind, event.data, event.at))
            moves = self.state.moves  # (the row's moves are a projection of the events)
            if len(moves) != len(row.moves) or (moves and moves[-1] != row.moves[-1]):
                raise ReplayError("the moves do not end where the row says")
        except (ChuhanError, KeyError, TypeError, ValueError) as error:
            log.warning("game %s: rebuilt from the store (%s)", self.state.id, error)
            await self.reload(now)
            return
        self.state = adopt(self.state, row)
        self.publish(now)
        self.broadcast_state()
        if row.rematch is not None and rematch_before is None:
            for conn in list(self.connections):
                self.send_rematch(conn)
        await self.after_change(now)

    async def reload(self, now: float) -> None:
        """(Under the lock) rebuild the game from the store, keeping the connections, and
        send everyone the whole state; a game that cannot be read any more closes the
        room as a failed save does."""
        try:
            found = await self.manager.read(self.state.id)
            if found is None:
                raise StoreError(f"game {self.state.id!r} is no longer in the database")
            row, tokens, events = found
            self.state = self._replayed(row, events)  # (new entries: every list sent again)
            self.tokens = tokens
        except (StoreError, ChuhanError, KeyError, TypeError, ValueError) as error:
            log.error("cannot reload game %s: %s", self.state.id, error)
            raise self._fail_unsaved() from None
        self.publish(now)
        self.broadcast_state()
        await self.after_change(now)

    # ------------------------------------------------------------------ actions

    async def act(self, conn: GameConnection, msg: ClientMessage) -> None:
        """Apply one checked player action. Raises :class:`ProtocolError` to reject it."""
        async with self.lock:
            if self.manager.rooms.get(self.state.id) is not self:
                raise ProtocolError("internal", "the game was reloaded; reconnect", msg.seq)
            now = self.manager.now()
            if msg.type == "chat":  # players and spectators, each in their own room
                try:
                    await self._chat(conn, msg, now)
                except ProtocolError as error:
                    error.seq = msg.seq
                    raise
                return
            if conn.role not in PLAYER_ROLES:
                raise ProtocolError("watcher", "watchers cannot act in the game", msg.seq)
            if msg.type == "flag":
                if await self.check_time(now, conn, msg.seq):
                    return
                if self.state.status == "over":
                    raise ProtocolError("game_over", "the game is over", msg.seq)
                raise ProtocolError("not_flagged", "no one has run out of time", msg.seq)
            if msg.type not in COMMANDS:
                raise ProtocolError("unknown_type", f"unknown message type {msg.type!r}", msg.seq)
            command = Command(msg.type, msg.fields)
            for attempt in (1, 2):
                await self.check_time(now)
                version = self.state.version
                if msg.get("version") != version:
                    outcome = self.state.outcome
                    if outcome is not None and command.type != "rematch":
                        # (the game ended since the sender's version: a flag that fell
                        # as the message came, say; what ended it is what matters)
                        raise ProtocolError(
                            "game_over",
                            f"the game is over ({outcome.reason}): your "
                            f"{command.type.replace('_', ' ')} was not played",
                            msg.seq,
                        )
                    if command.type != "resign":
                        # (a resignation gives up the game as it stands now, whatever
                        # changed since the player clicked: the opponent's reply, a clock)
                        raise ProtocolError(
                            "stale_version",
                            f"the game has changed (version {version}, your message "
                            f"had {msg.get('version')}): here is the current state",
                            msg.seq,
                        )
                decided = decide(
                    self.state, conn.role, command, now, absent_since=self.absent_since
                )
                if isinstance(decided, Rejection):
                    raise ProtocolError(decided.code, decided.message, msg.seq)
                try:
                    if decided[-1].kind == "rematch":
                        decided = [
                            *decided[:-1],
                            await self._start_rematch(decided[-1]),
                        ]
                    await self.commit(decided, now, conn, msg.seq)
                except Overtaken:
                    # Another process wrote first. If all it wrote leaves the game's
                    # version as the player saw it (a name, a setup timer), the action is
                    # made again on the game as stored, once; otherwise it is refused.
                    if attempt == 2 or self.manager.rooms.get(self.state.id) is not self:
                        raise
                    now = self.manager.now()
                    continue
                except GameError as error:  # (decide checks what the referee checks)
                    code = "game_over" if self.state.outcome is not None else "not_allowed"
                    raise ProtocolError(code, str(error), msg.seq) from None
                except StoreError as error:
                    log.error("game %s: %s", self.state.id, error)
                    raise ProtocolError("internal", "the game database failed", msg.seq) from None
                except ChuhanError as error:
                    raise ProtocolError("illegal_move", str(error), msg.seq) from None
                return

    async def berserk(self, seat: str) -> None:
        """``seat`` berserks (:func:`~chuhan.web.round.rules.berserk_event`; its tournament
        has checked the game is an arena's). Raises :class:`ProtocolError` to refuse it."""
        async with self.lock:
            now = self.manager.now()
            await self.check_time(now)
            decided = berserk_event(self.state, seat, now)
            if isinstance(decided, Rejection):
                raise ProtocolError(decided.code, decided.message)
            await self.commit([decided], now, None, 0)

    async def abort_unstarted(self) -> str | None:
        """Call the game off if its side to move let the time for a first move pass
        (:func:`~chuhan.web.round.rules.unstarted_abort`; its tournament asks); the seat
        that did not start, or None."""
        async with self.lock:
            now = self.manager.now()
            await self.check_time(now)
            decided = unstarted_abort(self.state, now)
            if decided is None:
                return None
            await self.commit([decided], now, None, 0)
            return str(decided.data["side"])

    async def vacation(self, seat: str, until: float | None) -> None:
        """``seat`` is on vacation until ``until`` (None: it ends now;
        :func:`~chuhan.web.round.rules.vacation_event`; the correspondence feature counts
        the account's days). Raises :class:`ProtocolError` to refuse it."""
        async with self.lock:
            now = self.manager.now()
            await self.check_time(now)
            decided = vacation_event(self.state, seat, until, now)
            if isinstance(decided, Rejection):
                raise ProtocolError(decided.code, decided.message)
            await self.commit([decided], now, None, 0)

    async def _start_rematch(self, event: Event) -> Event:
        """Make the rematch's game (a ``rematch`` event decided without it): the event to
        store, with the new game's id, the room's state carrying its links."""
        state = self.state
        new_row, seats = await self.manager.create_rematch(row_of(state))
        by_token = {token: seat for seat, token in seats.items()}
        mapping: dict[str, str] = {}
        for seat, token in self.tokens.items():
            if seat == "both":
                mapping[token] = seats["both"]
            elif other_seat(seat) in seats:
                mapping[token] = seats[other_seat(seat)]
        link = {"game_id": new_row.id, "tokens": mapping, "seats": by_token}
        self.state = state.replace(rematch=link)
        return Event("rematch", {"game_id": new_row.id, **event.data}, event.at)

    def send_rematch(self, conn: GameConnection) -> None:
        rematch = self.state.rematch
        assert rematch is not None
        game_id = rematch["game_id"]
        token = rematch["tokens"].get(conn.token) if conn.token else None
        conn.send(
            {
                "type": "rematch_ready",
                "game_id": game_id,
                "token": token,
                "seat": rematch["seats"].get(token) if token else None,
                "seat_url": f"/g/{game_id}?t={token}" if token else None,
                "watch_url": f"/w/{game_id}",
            }
        )

    async def _chat(self, conn: GameConnection, msg: ClientMessage, now: float) -> None:
        """A chat line from a player (to the players' room) or from a spectator (to the
        spectators' room), within the sender's flood limit."""
        if conn.role is None:
            raise ProtocolError("hello_first", "send 'hello' first")
        if chat_audience(conn.role) == SPECTATORS_AUDIENCE:
            sender, name, budget_key = (
                "watcher",
                conn.name or "Spectator",
                f"@{conn.address}",
            )
        else:
            state = self.state
            seat = conn.role if conn.role in SEATS else seat_of(state.game.board.turn)
            sender, budget_key = seat, seat
            name = state.names.get(seat) or default_name(state, seat)
        budget = self.chat_budget(budget_key)
        if not budget.take():
            wait = max(1, math.ceil(budget.wait()))
            raise ProtocolError(
                "chat_flood",
                f"you are sending chat messages too fast: wait {wait} s before the next one",
            )
        line = ChatLine(now, sender, name, msg.get("text"))
        await self.save_chat(line)
        conn.push(render_ack(msg.seq, self.state.version))
        self.broadcast_chat(line)
