"""Game rooms: one live game, its connections, its clock and its computer player.

Each room has one writer: every action runs under the room's :class:`asyncio.Lock`, is
applied to the :class:`~chuhan.game.Game` (the referee), written to SQLite, and only then
acknowledged and broadcast. A room can always be rebuilt from its stored row by replaying
the moves, which is what happens after a restart.

Clocks use the server's wall clock (``now`` in seconds since the epoch), so they keep
running while the server is down: a restart cannot give anyone time (see
``docs/web-protocol.md``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from chuhan.board import Board
from chuhan.clock import Clock, TimeControl
from chuhan.errors import ChuhanError
from chuhan.game import Game, GameError, Outcome
from chuhan.notation import to_chinese, to_korean, to_wxf
from chuhan.squares import SQUARE_NAMES, Move
from chuhan.variants import (
    JANGGI_ARRANGEMENTS,
    Variant,
    get_variant,
    normalize_arrangement,
)
from chuhan.web.engine import Engine, EngineError, MoveRequest
from chuhan.web.protocol import PROTOCOL_VERSION, ClientMessage, ProtocolError, TokenBucket
from chuhan.web.storage import GameRow, Storage

__all__ = [
    "DEFAULT_ARRANGEMENT",
    "SEATS",
    "Connection",
    "GameManager",
    "Room",
    "new_token",
]

log = logging.getLogger("chuhan.web")

SEATS = ("first", "second")
#: The arrangement taken for a janggi player who does not choose in time.
DEFAULT_ARRANGEMENT = "마상상마"
#: Seconds each janggi player has to choose an arrangement once connected.
SETUP_SECONDS = 60.0
#: Computer thinking time in an untimed game, by level (ms); the level's own depth and
#: node caps usually stop it sooner.
_UNTIMED_MOVETIME = {level: 200 + 150 * level for level in range(1, 9)}


def new_token() -> str:
    """A seat token: 32 URL-safe characters (192 random bits)."""
    return secrets.token_urlsafe(24)


def new_game_id() -> str:
    return secrets.token_urlsafe(9)


def seat_of(side: bool) -> str:
    return "first" if side else "second"


def side_of(seat: str) -> bool:
    return seat == "first"


class Connection:
    """One websocket as the room sees it: its role, its last seq, its rate limit (and how
    many more dropped messages it may have) and a queue of outgoing frames (a writer task in
    the app drains it, so a slow client never blocks a broadcast)."""

    #: Frames queued beyond this mean the client does not read: it is disconnected.
    MAX_QUEUE = 256

    def __init__(self, bucket: TokenBucket, patience: TokenBucket) -> None:
        self.role: str | None = None  # first | second | both | watcher, after hello
        self.token: str | None = None
        self.last_seq = 0
        self.bucket = bucket
        #: One token per message the rate limit may drop before the connection is closed.
        self.patience = patience
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.overflowed = False
        self.closing = False
        self.close_code = 1000

    def push(self, text: str) -> None:
        if self.closing:
            return
        if self.queue.qsize() >= self.MAX_QUEUE:
            self.overflowed = True
            self.close(1008)
            return
        self.queue.put_nowait(text)

    def send(self, message: dict[str, Any]) -> None:
        self.push(json.dumps(message, ensure_ascii=False))

    def close(self, code: int = 1000) -> None:
        """Close after the frames already queued (idempotent)."""
        if self.closing:
            return
        self.closing = True
        self.close_code = code
        self.queue.put_nowait(None)

    def acts_for(self, side: bool) -> bool:
        return self.role == "both" or self.role == seat_of(side)


def _move_entry(board: Board, move: Move) -> dict[str, Any]:
    """A move list entry in every notation (``board`` is the position before the move;
    the caller adds ``check`` after playing it)."""
    janggi = board.variant.is_janggi
    entry: dict[str, Any] = {
        "ply": board.ply + 1,
        "side": seat_of(board.turn),
        "from": SQUARE_NAMES[move.from_square],
        "to": SQUARE_NAMES[move.to_square],
        "pass": move.is_pass(),
        "iccs": move.iccs(),
    }
    for name, writer in (("wxf", to_wxf), ("chinese", to_chinese)):
        try:
            entry[name] = writer(board, move)
        except (ChuhanError, ValueError):
            entry[name] = None
    entry["korean"] = to_korean(board, move) if janggi else None
    entry["capture"] = not move.is_pass() and board.piece_at(move.to_square) != 0
    return entry


def _result_dict(outcome: Outcome, variant: Variant) -> dict[str, Any]:
    return {
        "winner": None if outcome.winner is None else seat_of(outcome.winner),
        "winner_name": None if outcome.winner is None else variant.side_name(outcome.winner),
        "termination": outcome.termination.value,
        "reason": outcome.reason,
        "points": outcome.points,
        "result": outcome.result(),
    }


@dataclass
class _Snapshot:
    """The shared part of the state message, built once per change."""

    head: str
    public: dict[str, Any] = field(default_factory=dict)


class Room:
    """One game in memory. Create rooms through :class:`GameManager`."""

    def __init__(self, manager: GameManager, row: GameRow, tokens: dict[str, str]) -> None:
        self.manager = manager
        self.row = row
        self.tokens = tokens  # seat -> token
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        #: Sockets and requests holding this room (:meth:`GameManager.hold`); a socket holds
        #: it from the moment it opens, before its hello.
        self.attached = 0
        self.variant = get_variant(row.variant, row.rules)
        self.game: Game
        self.clock: Clock | None = None
        self.entries: list[str] = []
        self.outcome: Outcome | None = None
        self.last_event: dict[str, Any] | None = None
        self._snapshot: _Snapshot | None = None
        self._timer: asyncio.Task[None] | None = None
        self._computer: asyncio.Task[None] | None = None
        self._replay()
        self.last_event = manager.storage.last_event(row.id)

    # ------------------------------------------------------------------ rebuilding

    def _replay(self) -> None:
        row = self.row
        game = Game.new(self.variant, fen=row.start_fen)
        for seat in ("second", "first"):  # Han chooses first
            if seat in row.setup:
                game.choose_setup(side_of(seat), row.setup[seat])
        self.entries = []
        for text in row.moves:
            move = Move.from_iccs(text)
            entry = _move_entry(game.board, move)
            game.board.push(move)
            entry["check"] = game.board.is_check()
            self.entries.append(json.dumps(entry, ensure_ascii=False))
        self.game = game
        ending = row.ending
        if ending is not None:
            kind = ending["kind"]
            if kind == "resign":
                game.resign(side_of(ending["side"]))
            elif kind == "flag":
                game.flag(side_of(ending["side"]))
            elif kind == "agreement":
                game.offer_draw(side_of(ending["side"]))
                game.accept_draw(not side_of(ending["side"]))
        if game.outcome() is None:
            draw = row.offers.get("draw")
            if draw:
                game.offer_draw(side_of(draw))
            takeback = row.offers.get("takeback")
            if takeback:
                game.request_takeback(side_of(takeback))
        if row.time_control is not None:
            if row.clock is not None and row.clock_at is not None:
                self.clock = Clock.from_dict(row.clock, now=row.clock_at)
            else:
                self.clock = Clock(TimeControl(**row.time_control))
        self.outcome = game.outcome()

    # ------------------------------------------------------------------ state

    @property
    def status(self) -> str:
        if self.outcome is not None or self.row.kind == "imported":
            return "over"
        if self.game.setup_pending is not None:
            return "setup"
        return "playing"

    def _result(self) -> dict[str, Any] | None:
        if self.outcome is not None:
            return _result_dict(self.outcome, self.variant)
        return self.row.result  # imported records keep the result they were given

    def is_computer(self, side: bool) -> bool:
        return self.row.computer_side == seat_of(side)

    def _connected(self, seat: str) -> bool:
        if self.row.computer_side == seat:
            return True
        return any(c.role in (seat, "both") for c in self.connections)

    def snapshot(self) -> _Snapshot:
        """The shared part of the state message (cached until the next change)."""
        if self._snapshot is not None:
            return self._snapshot
        game, board, row = self.game, self.game.board, self.row
        status = self.status
        legal: dict[str, list[str]] = {}
        can_pass = False
        if status == "playing":
            for m in board._legal_ints():
                fr, to = m >> 7, m & 127
                if fr == to:
                    can_pass = True
                else:
                    legal.setdefault(SQUARE_NAMES[fr], []).append(SQUARE_NAMES[to])
        last = board.peek() if board.ply else None
        pieces = [
            {
                "square": SQUARE_NAMES[sq],
                "side": seat_of(piece > 0),
                "kind": self.variant.piece_name(abs(piece)),
            }
            for sq, piece in sorted(board.pieces().items())
        ]
        pending = game.setup_pending
        setup = None
        if pending is not None:
            setup = {
                "chooser": seat_of(pending),
                "choices": list(JANGGI_ARRANGEMENTS),
                "chosen": dict(row.setup),
                "deadline_ms": None
                if row.setup_deadline is None
                else int(row.setup_deadline * 1000),
                "default": DEFAULT_ARRANGEMENT,
            }
        players = {
            seat: {
                "name": row.names.get(seat) or self._default_name(seat),
                "kind": "computer" if row.computer_side == seat else "human",
                "connected": self._connected(seat),
            }
            for seat in SEATS
        }
        offers = {
            "draw": None if game.draw_offer is None else seat_of(game.draw_offer),
            "takeback": None if game.takeback_request is None else seat_of(game.takeback_request),
            "rematch": row.offers.get("rematch"),
        }
        public: dict[str, Any] = {
            "type": "state",
            "game_id": row.id,
            "version": row.version,
            "kind": row.kind,
            "variant": self.variant.game,
            "rules": self.variant.rules,
            "side_names": {
                "first": self.variant.side_name(True),
                "second": self.variant.side_name(False),
            },
            "level": row.level,
            "time_control": None
            if row.time_control is None
            else TimeControl(**row.time_control).describe(),
            "players": players,
            "watchers": sum(1 for c in self.connections if c.role == "watcher"),
            "status": status,
            "fen": board.fen(),
            "pieces": pieces,
            "turn": seat_of(board.turn),
            "ply": board.ply,
            "legal": legal,
            "can_pass": can_pass,
            "last_move": None
            if last is None
            else {"from": SQUARE_NAMES[last.from_square], "to": SQUARE_NAMES[last.to_square]},
            "check": SQUARE_NAMES[board.king(board.turn)] if board.is_check() else None,
            "bikjang": self.variant.is_janggi and board.is_bikjang(),
            "thinking": status == "playing" and self.is_computer(board.turn),
            "offers": offers,
            "setup": setup,
            "result": self._result(),
            "last_event": self.last_event,
            "rematch_game": None if row.rematch is None else row.rematch["game_id"],
            "headers": row.headers,
        }
        head = json.dumps(public, ensure_ascii=False)[:-1]
        head += ',"moves":[' + ",".join(self.entries) + "]"
        self._snapshot = _Snapshot(head, public)
        return self._snapshot

    def _default_name(self, seat: str) -> str:
        if self.row.computer_side == seat:
            return f"Computer (level {self.row.level})"
        return self.variant.side_name(side_of(seat)).capitalize()

    def clock_json(self, now: float) -> dict[str, Any] | None:
        clock = self.clock
        if clock is None:
            return None
        control = clock.control
        return {
            "control": {
                "base_ms": round(control.base * 1000),
                "increment_ms": round(control.increment * 1000),
                "periods": control.periods,
                "period_ms": round(control.period_seconds * 1000),
                "text": control.describe(),
            },
            **{
                seat: {
                    "remaining_ms": round(clock.remaining(side_of(seat), now) * 1000),
                    "periods": clock.periods_left(side_of(seat), now),
                }
                for seat in SEATS
            },
            "running": None if clock.running is None else seat_of(clock.running),
            "server_time_ms": round(now * 1000),
        }

    def _you(self, role: str | None) -> dict[str, Any]:
        role = role or "watcher"
        your_turn = False
        if role != "watcher":
            status = self.status
            if status == "playing":
                side = self.game.board.turn
                your_turn = not self.is_computer(side) and role in ("both", seat_of(side))
            elif status == "setup":
                pending = self.game.setup_pending
                your_turn = pending is not None and role in ("both", seat_of(pending))
        return {"role": role, "your_turn": your_turn}

    def state_text(self, role: str | None, now: float) -> str:
        snap = self.snapshot()
        return (
            snap.head
            + ',"clock":'
            + json.dumps(self.clock_json(now))
            + ',"you":'
            + json.dumps(self._you(role))
            + "}"
        )

    def public_state(self, now: float) -> dict[str, Any]:
        state = dict(self.snapshot().public)
        state["moves"] = [json.loads(e) for e in self.entries]
        state["clock"] = self.clock_json(now)
        del state["legal"]
        return state

    def broadcast_state(self, now: float) -> None:
        texts: dict[str | None, str] = {}
        for conn in list(self.connections):
            if conn.role not in texts:
                texts[conn.role] = self.state_text(conn.role, now)
            conn.push(texts[conn.role])

    def broadcast(self, message: dict[str, Any]) -> None:
        text = json.dumps(message, ensure_ascii=False)
        for conn in list(self.connections):
            conn.push(text)

    def invalidate(self) -> None:
        self._snapshot = None

    # ------------------------------------------------------------------ joining

    async def join(self, conn: Connection, role: str, name: str | None) -> None:
        async with self.lock:
            now = self.manager.now()
            conn.role = role
            self.connections.add(conn)
            if name and role in SEATS and self.row.names.get(role) != name:
                self.row.names[role] = name
                self._save("name", {"seat": role, "name": name}, now, bump=False)
            conn.send(
                {
                    "type": "welcome",
                    "game_id": self.row.id,
                    "role": role,
                    "protocol": PROTOCOL_VERSION,
                    "server_time_ms": round(now * 1000),
                }
            )
            self._check_time(now)
            self._arm_setup_deadline(now)
            self.invalidate()
            self.broadcast_state(now)
            conn.send({"type": "chat_history", "messages": self._chat_history()})
            rematch = self.row.rematch
            if rematch is not None:
                self._send_rematch(conn)
            self._after_change(now)

    async def leave(self, conn: Connection) -> None:
        if conn not in self.connections:
            return
        async with self.lock:
            self.connections.discard(conn)
            self.invalidate()
            self.broadcast_state(self.manager.now())

    async def resync(self, conn: Connection) -> None:
        async with self.lock:
            now = self.manager.now()
            self._check_time(now)
            conn.push(self.state_text(conn.role, now))

    def send_state(self, conn: Connection) -> None:
        conn.push(self.state_text(conn.role, self.manager.now()))

    def _chat_history(self) -> list[dict[str, Any]]:
        return [
            {
                "type": "chat",
                "from": sender,
                "name": name,
                "text": text,
                "time_ms": round(at * 1000),
            }
            for at, sender, name, text in self.manager.storage.chat_history(self.row.id)
        ]

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
            row.result = _result_dict(self.outcome, self.variant)

    def _save(self, event: str, data: dict[str, Any], now: float, *, bump: bool = True) -> None:
        """Write the room to the database (raises ProtocolError 'internal' if it cannot,
        after dropping the in-memory room so the next access rebuilds it from disk)."""
        if bump:
            self.row.version += 1
        self._sync_row(now)
        try:
            self.manager.storage.save(self.row, event, data)
        except sqlite3.Error as error:
            log.error("cannot save game %s: %s", self.row.id, error)
            self.manager.drop(self)
            for conn in list(self.connections):
                conn.send(
                    {
                        "type": "error",
                        "code": "internal",
                        "message": "the server could not save the game; reconnect to continue",
                    }
                )
                conn.close()
            raise ProtocolError(
                "internal", "the server could not save the game; reconnect to continue"
            ) from None
        if bump:
            self.last_event = {"kind": event, **data}
        self.invalidate()

    def _commit(
        self, event: str, data: dict[str, Any], now: float, actor: Connection | None, seq: int
    ) -> None:
        """Persist, then acknowledge and broadcast a change already applied to the game."""
        self._save(event, data, now)
        if actor is not None:
            actor.send({"type": "ack", "seq": seq, "version": self.row.version})
        self.broadcast_state(now)
        self._after_change(now)

    def _refresh_outcome(self, now: float) -> None:
        self.outcome = self.game.outcome()
        if self.outcome is not None and self.clock is not None:
            self.clock.stop(now)

    # ------------------------------------------------------------------ time

    def _check_time(self, now: float, actor: Connection | None = None, seq: int = 0) -> bool:
        """End the game on a flag fall, or take the default janggi arrangement once the
        deadline has passed. Called under the lock before every action and by the timer;
        ``actor`` (a flag claim) gets the ack. True if a flag fell."""
        if self.status == "over" or self.row.kind == "imported":
            return False
        clock = self.clock
        if clock is not None and self.status == "playing":
            flagged = clock.flagged(now)
            if flagged is not None:
                self.game.flag(flagged)
                self.row.ending = {"kind": "flag", "side": seat_of(flagged)}
                self._refresh_outcome(now)
                self._commit("flag", {"side": seat_of(flagged)}, now, actor, seq)
                return True
        deadline = self.row.setup_deadline
        pending = self.game.setup_pending
        if pending is not None and deadline is not None and now >= deadline:
            self._choose_setup(pending, DEFAULT_ARRANGEMENT, now)
            self._commit(
                "setup",
                {"side": seat_of(pending), "arrangement": DEFAULT_ARRANGEMENT, "default": True},
                now,
                None,
                0,
            )
        return False

    def _choose_setup(self, side: bool, arrangement: str, now: float) -> None:
        self.game.choose_setup(side, arrangement)
        self.row.setup[seat_of(side)] = normalize_arrangement(arrangement)
        self.row.setup_deadline = None
        self._arm_setup_deadline(now)

    def _arm_setup_deadline(self, now: float) -> None:
        """Start the chooser's setup time once the chooser is here (computers choose at
        once)."""
        pending = self.game.setup_pending
        if pending is None or self.row.setup_deadline is not None:
            return
        if self.is_computer(pending):
            return
        if self._connected(seat_of(pending)):
            self.row.setup_deadline = now + self.manager.setup_seconds
            self._save("setup_timer", {"side": seat_of(pending)}, now, bump=False)

    def _next_deadline(self, now: float) -> float | None:
        if self.status == "over":
            return None
        if self.status == "setup":
            return self.row.setup_deadline
        clock = self.clock
        if clock is None or clock.running is None:
            return None
        return now + clock.time_to_flag(clock.running, now)

    def _arm_timer(self, now: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        deadline = self._next_deadline(now)
        if deadline is not None:
            self._timer = asyncio.get_running_loop().create_task(
                self._wake_at(deadline - now + 0.005)
            )

    async def _wake_at(self, delay: float) -> None:
        await asyncio.sleep(max(0.0, delay))
        async with self.lock:
            self._timer = None
            try:
                self._check_time(self.manager.now())
            except ProtocolError:
                return
            if self._timer is None:
                self._arm_timer(self.manager.now())

    def _after_change(self, now: float) -> None:
        """After any change: computers choose setups or moves, and the timer is re-armed."""
        while self.status == "setup":
            pending = self.game.setup_pending
            if pending is None or not self.is_computer(pending):
                break
            choice = secrets.choice(JANGGI_ARRANGEMENTS)
            self._choose_setup(pending, choice, now)
            self._save("setup", {"side": seat_of(pending), "arrangement": choice}, now)
            self.broadcast_state(now)
        if (
            self.status == "playing"
            and self.is_computer(self.game.board.turn)
            and (self._computer is None or self._computer.done())
        ):
            self._computer = asyncio.get_running_loop().create_task(self._computer_move())
        self._arm_timer(now)

    def idle(self) -> bool:
        """Whether nothing in the room waits for time to pass: no clock or setup timer
        armed, no computer thinking (an idle room can be rebuilt from its row later)."""
        return all(task is None or task.done() for task in (self._timer, self._computer))

    def stop_tasks(self) -> None:
        for task in (self._timer, self._computer):
            if task is not None:
                task.cancel()
        self._timer = self._computer = None

    # ------------------------------------------------------------------ computer

    def _move_request(self, now: float) -> MoveRequest:
        board = self.game.board
        moves = tuple(m.iccs() for m in board.move_stack)
        level = self.row.level or 3
        clock = self.clock
        if clock is None or clock.running is None:
            return MoveRequest(
                self.variant.name,
                board.root().fen(),
                moves,
                level,
                movetime=_UNTIMED_MOVETIME[level],
            )
        control = clock.control
        inc = round(control.increment * 1000)
        return MoveRequest(
            self.variant.name,
            board.root().fen(),
            moves,
            level,
            wtime=round(clock.remaining(True, now) * 1000),
            btime=round(clock.remaining(False, now) * 1000),
            winc=inc,
            binc=inc,
            byoyomi=round(control.period_seconds * 1000) if control.periods else None,
            wperiods=clock.periods_left(True, now) if control.periods else None,
            bperiods=clock.periods_left(False, now) if control.periods else None,
        )

    async def _computer_move(self) -> None:
        """Ask the engine for the computer's move and play it, unless the game changed
        meanwhile (a takeback, a resignation): then think again about the new position."""
        while True:
            async with self.lock:
                if self.status != "playing" or not self.is_computer(self.game.board.turn):
                    return
                version = self.row.version
                request = self._move_request(self.manager.now())
            try:
                answer = await self.manager.engine.best_move(request)
            except EngineError as error:
                log.error("game %s: %s", self.row.id, error)
                self.broadcast(
                    {
                        "type": "error",
                        "code": "engine_failed",
                        "message": f"The computer could not move: {error}. Reconnect to retry.",
                    }
                )
                return
            async with self.lock:
                if self.row.version != version:
                    continue
                if self.status != "playing" or answer is None:
                    return
                now = self.manager.now()
                try:
                    self._check_time(now)
                    if self.row.version != version:
                        return
                    self._apply_move(Move.from_iccs(answer), now)
                    self._commit("move", {"move": answer, "computer": True}, now, None, 0)
                except ChuhanError as error:
                    log.error("game %s: computer move %s rejected: %s", self.row.id, answer, error)
                except ProtocolError:
                    pass
                return

    # ------------------------------------------------------------------ actions

    async def act(self, conn: Connection, msg: ClientMessage) -> None:
        """Apply one checked player action. Raises :class:`ProtocolError` to reject it."""
        async with self.lock:
            if self.manager.rooms.get(self.row.id) is not self:
                raise ProtocolError("internal", "the game was reloaded; reconnect", msg.seq)
            now = self.manager.now()
            try:
                self._require_player(conn)
            except ProtocolError as error:
                error.seq = msg.seq
                raise
            if msg.type == "chat":
                self._chat(conn, msg, now)
                return
            if msg.type == "flag":
                if self._check_time(now, conn, msg.seq):
                    return
                if self.status == "over":
                    raise ProtocolError("game_over", "the game is over", msg.seq)
                raise ProtocolError("not_flagged", "no one has run out of time", msg.seq)
            self._check_time(now)
            if msg.get("version") != self.row.version:
                raise ProtocolError(
                    "stale_version",
                    f"the game has changed (version {self.row.version}, your message had "
                    f"{msg.get('version')}): here is the current state",
                    msg.seq,
                )
            handler = self._HANDLERS[msg.type]
            try:
                event, data = handler(self, conn, msg, now)
            except ProtocolError as error:
                error.seq = msg.seq
                raise
            except GameError as error:
                code = "game_over" if self.outcome is not None else "not_allowed"
                raise ProtocolError(code, str(error), msg.seq) from None
            except ChuhanError as error:
                raise ProtocolError("illegal_move", str(error), msg.seq) from None
            self._commit(event, data, now, conn, msg.seq)

    def _require_player(self, conn: Connection) -> None:
        if conn.role not in ("first", "second", "both"):
            raise ProtocolError("watcher", "watchers cannot act in the game")

    def _require_side(self, conn: Connection, side: bool) -> None:
        self._require_player(conn)
        if not conn.acts_for(side) or self.is_computer(side):
            raise ProtocolError(
                "not_your_turn",
                f"it is {self.variant.side_name(side).capitalize()}'s turn, not yours",
            )

    def _side_for(self, conn: Connection, msg: ClientMessage, default: bool) -> bool:
        """The side a non-move action is for: the seat's own, or (a 'both' token) the
        message's ``side`` or ``default``."""
        self._require_player(conn)
        asked = msg.get("side")
        if conn.role == "both":
            return default if asked is None else side_of(asked)
        assert conn.role is not None
        if asked is not None and asked != conn.role:
            raise ProtocolError("not_allowed", f"your seat is {conn.role}, not {asked}")
        return side_of(conn.role)

    def _require_playing(self) -> None:
        if self.status == "over":
            raise ProtocolError("game_over", "the game is over")
        if self.status == "setup":
            raise ProtocolError("not_allowed", "the janggi setup is not finished")

    def _apply_move(self, move: Move, now: float) -> None:
        board = self.game.board
        if not board.is_legal(move):
            board.parse_iccs(move.iccs())  # raises IllegalMoveError with the reason
        entry = _move_entry(board, move)
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
        self._refresh_outcome(now)

    def _do_move(self, conn: Connection, msg: ClientMessage, now: float) -> tuple[str, Any]:
        self._require_playing()
        board = self.game.board
        self._require_side(conn, board.turn)
        text = msg.get("from") + msg.get("to")
        if msg.get("from") == msg.get("to"):
            raise ProtocolError("illegal_move", f"{text} is not a move; send 'pass' to pass")
        self._apply_move(Move.from_iccs(text), now)
        return "move", {"move": text}

    def _do_pass(self, conn: Connection, msg: ClientMessage, now: float) -> tuple[str, Any]:
        self._require_playing()
        board = self.game.board
        self._require_side(conn, board.turn)
        if not self.variant.is_janggi:
            raise ProtocolError("illegal_move", "there is no pass in xiangqi")
        king = board.king(board.turn)
        move = Move(king, king)
        if not board.is_legal(move):
            raise ProtocolError("illegal_move", "passing is not allowed in this position")
        self._apply_move(move, now)
        return "move", {"move": move.iccs()}

    def _do_setup(self, conn: Connection, msg: ClientMessage, now: float) -> tuple[str, Any]:
        pending = self.game.setup_pending
        if pending is None:
            raise ProtocolError("not_allowed", "there is no setup choice to make in this game")
        self._require_side(conn, pending)
        try:
            arrangement = normalize_arrangement(msg.get("arrangement"))
        except ChuhanError as error:
            raise ProtocolError("bad_field", str(error)) from None
        self._choose_setup(pending, arrangement, now)
        return "setup", {"side": seat_of(pending), "arrangement": arrangement}

    def _do_resign(self, conn: Connection, msg: ClientMessage, now: float) -> tuple[str, Any]:
        side = self._side_for(conn, msg, self.game.board.turn)
        self.game.resign(side)
        self.row.ending = {"kind": "resign", "side": seat_of(side)}
        self._refresh_outcome(now)
        return "resign", {"side": seat_of(side)}

    def _do_draw_offer(self, conn: Connection, msg: ClientMessage, now: float) -> tuple[str, Any]:
        self._require_playing()
        side = self._side_for(conn, msg, self.game.board.turn)
        game = self.game
        if game.draw_offer is not None and game.draw_offer != side:
            self.row.ending = {"kind": "agreement", "side": seat_of(game.draw_offer)}
        game.offer_draw(side)
        if self.is_computer(not side):
            game.decline_draw(not side)
            self._refresh_outcome(now)
            return "draw_declined", {"side": seat_of(not side), "computer": True}
        self._refresh_outcome(now)
        if self.outcome is not None:
            return "draw_agreed", {"side": seat_of(side)}
        return "draw_offer", {"side": seat_of(side)}

    def _pending_answerer(self, offer: bool | None) -> bool:
        return self.game.board.turn if offer is None else not offer

    def _do_draw_accept(self, conn: Connection, msg: ClientMessage, now: float) -> tuple[str, Any]:
        side = self._side_for(conn, msg, self._pending_answerer(self.game.draw_offer))
        offerer = self.game.draw_offer
        self.game.accept_draw(side)
        if offerer is not None:
            self.row.ending = {"kind": "agreement", "side": seat_of(offerer)}
        self._refresh_outcome(now)
        return "draw_agreed", {"side": seat_of(side)}

    def _do_draw_decline(self, conn: Connection, msg: ClientMessage, now: float) -> tuple[str, Any]:
        side = self._side_for(conn, msg, self._pending_answerer(self.game.draw_offer))
        self.game.decline_draw(side)
        return "draw_declined", {"side": seat_of(side)}

    def _do_takeback_request(
        self, conn: Connection, msg: ClientMessage, now: float
    ) -> tuple[str, Any]:
        self._require_playing()
        board = self.game.board
        default = not board.turn if board.ply else board.turn
        side = self._side_for(conn, msg, default)
        self.game.request_takeback(side)
        if self.is_computer(not side):
            self._take_back(not side, now)
            return "takeback", {"side": seat_of(side), "computer": True}
        return "takeback_request", {"side": seat_of(side)}

    def _take_back(self, answerer: bool, now: float) -> None:
        taken = self.game.accept_takeback(answerer)
        del self.entries[len(self.entries) - len(taken) :]
        clock = self.clock
        if clock is not None:
            clock.stop(now)
            if self.game.board.ply:
                clock.start(self.game.board.turn, now)
        self._refresh_outcome(now)

    def _do_takeback_accept(
        self, conn: Connection, msg: ClientMessage, now: float
    ) -> tuple[str, Any]:
        side = self._side_for(conn, msg, self._pending_answerer(self.game.takeback_request))
        self._take_back(side, now)
        return "takeback", {"side": seat_of(not side)}

    def _do_takeback_decline(
        self, conn: Connection, msg: ClientMessage, now: float
    ) -> tuple[str, Any]:
        side = self._side_for(conn, msg, self._pending_answerer(self.game.takeback_request))
        self.game.decline_takeback(side)
        return "takeback_declined", {"side": seat_of(side)}

    def _do_rematch(self, conn: Connection, msg: ClientMessage, now: float) -> tuple[str, Any]:
        self._require_player(conn)
        row = self.row
        if self.status != "over":
            raise ProtocolError("not_allowed", "a rematch can be offered when the game is over")
        if row.kind == "imported":
            raise ProtocolError("not_allowed", "an imported game has no players to rematch")
        if row.rematch is not None:
            raise ProtocolError("not_allowed", "the rematch has already started")
        if conn.role == "both" or row.kind in ("computer", "local"):
            side = conn.role or "first"
        else:
            side = str(conn.role)
            offered = row.offers.get("rematch")
            if offered is None or offered == side:
                row.offers["rematch"] = side
                return "rematch_offer", {"side": side}
        new_row, seats = self.manager.create_rematch(row)
        by_token = {token: seat for seat, token in seats.items()}
        mapping: dict[str, str] = {}
        for seat, token in self.tokens.items():
            if seat == "both":
                mapping[token] = seats["both"]
            else:
                other = "second" if seat == "first" else "first"
                if other in seats:
                    mapping[token] = seats[other]
        row.rematch = {"game_id": new_row.id, "tokens": mapping, "seats": by_token}
        row.offers["rematch"] = None
        for each in list(self.connections):
            self._send_rematch(each)
        return "rematch", {"game_id": new_row.id, "side": side}

    def _send_rematch(self, conn: Connection) -> None:
        rematch = self.row.rematch
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

    def _chat(self, conn: Connection, msg: ClientMessage, now: float) -> None:
        self._require_player(conn)
        seat = conn.role if conn.role in SEATS else seat_of(self.game.board.turn)
        assert seat is not None
        name = self.row.names.get(seat) or self._default_name(seat)
        text = msg.get("text")
        try:
            self.manager.storage.add_chat(self.row.id, now, seat, name, text)
        except sqlite3.Error as error:
            log.error("cannot save chat of %s: %s", self.row.id, error)
            raise ProtocolError("internal", "the chat message could not be saved") from None
        conn.send({"type": "ack", "seq": msg.seq, "version": self.row.version})
        self.broadcast(
            {"type": "chat", "from": seat, "name": name, "text": text, "time_ms": round(now * 1000)}
        )

    _HANDLERS: ClassVar[
        dict[str, Callable[[Room, Connection, ClientMessage, float], tuple[str, Any]]]
    ] = {
        "move": _do_move,
        "pass": _do_pass,
        "setup": _do_setup,
        "resign": _do_resign,
        "draw_offer": _do_draw_offer,
        "draw_accept": _do_draw_accept,
        "draw_decline": _do_draw_decline,
        "takeback_request": _do_takeback_request,
        "takeback_accept": _do_takeback_accept,
        "takeback_decline": _do_takeback_decline,
        "rematch": _do_rematch,
    }


class GameManager:
    """All rooms of one server: created on demand from the database, evicted when a
    finished game has nobody connected."""

    def __init__(
        self,
        storage: Storage,
        engine: Engine,
        now: Callable[[], float],
        *,
        setup_seconds: float = SETUP_SECONDS,
    ) -> None:
        self.storage = storage
        self.engine = engine
        self.now = now
        self.setup_seconds = setup_seconds
        self.rooms: dict[str, Room] = {}

    def room(self, game_id: str) -> Room | None:
        """The live room of a game, loading it from the database if needed."""
        found = self.rooms.get(game_id)
        if found is not None:
            return found
        row = self.storage.load(game_id)
        if row is None:
            return None
        room = Room(self, row, self.storage.seats_of(game_id))
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
        with nothing to do (an untimed game waiting for its players) are let go again."""
        for game_id in self.storage.unfinished_game_ids():
            try:
                room = self.room(game_id)
            except (ChuhanError, ValueError, KeyError) as error:
                log.error("cannot rebuild game %s: %s", game_id, error)
                continue
            if room is None:
                continue
            async with room.lock:
                now = self.now()
                try:
                    room._check_time(now)
                    room._after_change(now)
                except ProtocolError:
                    continue
            self.maybe_evict(room)

    def close(self) -> None:
        for room in list(self.rooms.values()):
            room.stop_tasks()
            for conn in list(room.connections):
                conn.close()
        self.rooms.clear()

    # ------------------------------------------------------------------ creating

    def create(
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
            row.computer_side = "second" if human_seat == "first" else "first"
        if name and kind != "local":
            row.names[human_seat] = name
        if kind == "local":
            seats = {"both": new_token()}
        elif kind == "computer":
            seats = {human_seat: new_token()}
        else:
            seats = {"first": new_token(), "second": new_token()}
        self.storage.create(row, {token: seat for seat, token in seats.items()})
        return row, seats

    def create_rematch(self, old: GameRow) -> tuple[GameRow, dict[str, str]]:
        variant = get_variant(old.variant, old.rules)
        control = None if old.time_control is None else TimeControl(**old.time_control)
        names = {"first": old.names.get("second", ""), "second": old.names.get("first", "")}
        names = {seat: n for seat, n in names.items() if n}
        if old.kind == "computer":
            human_seat = "first" if old.computer_side == "first" else "second"
        else:
            human_seat = "first"
        return self.create(
            kind=old.kind,
            variant=variant,
            time_control=control,
            level=old.level,
            human_seat=human_seat,
            name=None,
            names=names,
            fen=old.start_fen,
        )

    def store_imported(
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
        self.storage.create(row, {}, event="import")
        return row
