"""Reading a game without playing it: what ``GET /api/games/{id}``, its PGN, its FEN at a
ply and the analysis of a finished game's position need, built once per stored revision in
a worker process and kept.

A game read by a request was a room loaded for the request: its whole event log replayed
on the event loop (40 ms and more for a long imported record), for every read, so a few
clients reading a long finished game slowed every game of the process. Now a read of a game
that is not being played here (finished, or not in memory) asks :class:`GameReads`:

- **Kept**: the game as read (:class:`Rendered`: the public state as JSON text without the
  parts that change by the second or by who is connected, the FEN after every ply, what the
  PGN needs, and each PGN once written) is kept per game, the least recently read dropped
  first beyond ``read_cache_bytes``. An entry is good while the game's revision (the events
  in its log) is the one it was built from: the room's when the game is in memory here,
  else the store's, asked with one indexed query per read (:meth:`Store.newer_revisions`).
- **Built off the event loop**: an entry missing or out of date is built from the stored
  row and events by :func:`read_game` in a worker process of its own
  (:mod:`chuhan.web.compute.workers`: a deadline, a bounded queue, a lower CPU priority),
  one build at a time per game however many ask together. A thread was measured first: the
  replay holds the GIL, and the event loop then waits up to the interpreter's switch
  interval (5 ms) at each of its turns (``README.md``, Attacks).
- **Counted**: the routes (:mod:`chuhan.web.round.routes`) count every read against the
  address's read budget and every build against its build budget, in the store
  (:mod:`chuhan.web.db.budgets`), so that they hold across processes.

A game played here (in memory and not over) is read from its room, as it always was: its
state changes with every move and its room has it rendered already.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from chuhan.clock import Clock, TimeControl
from chuhan.errors import ChuhanError, ServiceError
from chuhan.game import Game
from chuhan.records import GameRecord, write_pgn
from chuhan.squares import Move
from chuhan.variants import get_variant
from chuhan.web.compute.workers import WorkerError, Workers
from chuhan.web.db import GameRow, GameUnreadable, StoredEvent, StoreError
from chuhan.web.round.seats import SEATS, seat_of
from chuhan.web.round.state import RoundState, replay, row_of
from chuhan.web.round.view import build_snapshot, clock_json, public_state, result_dict
from chuhan.web.settings import Settings

if TYPE_CHECKING:
    from chuhan.web.round.manager import GameManager
    from chuhan.web.round.room import Room

__all__ = [
    "READ_NICE",
    "GameReads",
    "Position",
    "ReadBusy",
    "ReadJob",
    "ReadUnavailable",
    "Rendered",
    "position_at",
    "read_game",
    "record_text",
]

log = logging.getLogger("chuhan.web")

#: How much lower the read worker's CPU priority is than the server's (``nice``).
READ_NICE = 10
#: Games whose failure to be read has been logged (once each), at most.
_REPORTED_KEPT = 1024

_dumps = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode


def cannot_load(game_id: str, error: BaseException, reported: set[str], doing: str) -> str:
    """The sentence a game that cannot be loaded is answered with, its failure logged once
    per game (``reported``: the games logged, forgotten past :data:`_REPORTED_KEPT`;
    ``doing``: what failed, "read" or "rebuild")."""
    if game_id not in reported:
        if len(reported) >= _REPORTED_KEPT:
            reported.clear()
        reported.add(game_id)
        if isinstance(error, GameUnreadable):
            log.error("%s; it is left out", error)
        else:
            log.error("cannot %s game %s: %s", doing, game_id, error)
    if isinstance(error, GameUnreadable):
        why = "its stored record is damaged"
    elif isinstance(error, StoreError):
        why = "the game database failed"
    else:
        why = "its stored record cannot be replayed"
    return f"game {game_id[:40]!r} cannot be loaded: {why}"


class ReadUnavailable(ServiceError):
    """A game that cannot be read (damaged rows, a log this version cannot replay, the
    database failing); the sentence says which."""


class ReadBusy(ServiceError):
    """The read worker has too many games waiting, or one took past its deadline."""


# ---------------------------------------------------------------------- in the worker


@dataclass(frozen=True, slots=True)
class ReadJob:
    """A stored game to read: its row and event log, the server's clock ``now`` and the
    room's settings (what a replay needs)."""

    row: GameRow
    events: list[StoredEvent]
    now: float
    setup_seconds: float = 0.0
    abandon_seconds: float = 0.0
    first_move_seconds: float = 0.0


@dataclass(slots=True)
class Rendered:
    """A game as read at one revision: what every read of it is answered from."""

    game_id: str
    revision: int
    status: str
    #: The variant's name (``xiangqi``, ``janggi-korean``...), whether it is janggi, and
    #: the repetitions that end a game (what the analysis of a position needs).
    variant: str
    janggi: bool
    repetitions: int
    #: The public state (``GET /api/games/{id}``) as JSON text, open after its last field
    #: before ``players``; then each seat's name and kind, the move list as JSON text and a
    #: copy of the clock (``players``, ``watchers`` and ``clock`` are added per read).
    head: str
    players: dict[str, dict[str, Any]]
    moves: str
    clock: Clock | None
    #: The start position, the moves (ICCS) and the FEN after each ply (0 to the last).
    start: str
    iccs: tuple[str, ...]
    fens: tuple[str, ...]
    #: The PGN's headers (its ``Result`` and ``Termination`` included) and the comment
    #: after the last move; each PGN once written, by move format.
    record_headers: dict[str, str]
    record_comment: str
    pgns: dict[str, str] = field(default_factory=dict)
    #: The process that built it (a test checks it was not the server's).
    built_by: int = 0

    def size(self) -> int:
        """About the bytes it holds (what the cache's bound counts)."""
        return (
            len(self.head)
            + len(self.moves)
            + sum(len(fen) + 56 for fen in self.fens)
            + sum(len(move) + 56 for move in self.iccs)
            + sum(len(text) for text in self.pgns.values())
            + 1024
        )

    def state_text(
        self, now: float, connected: tuple[bool, bool] | None = None, watchers: int = 0
    ) -> str:
        """The public state as JSON text, with who is connected (``(first, second)``;
        None: nobody but a computer), the watchers and the clock as they are ``now``."""
        if connected is None:
            first, second = (self.players[seat]["kind"] == "computer" for seat in SEATS)
            connected = (first, second)
        players = {
            seat: {**self.players[seat], "connected": here}
            for seat, here in zip(SEATS, connected, strict=True)
        }
        return "".join(
            (
                self.head,
                ', "players": ',
                _dumps(players),
                f', "watchers": {watchers}, "moves": ',
                self.moves,
                ', "clock": ',
                _dumps(clock_json(self.clock, now)),
                "}",
            )
        )


class _Unwatched:
    """A room nobody is connected to, as :func:`public_state` reads one."""

    def __init__(self, state: RoundState, now: float) -> None:
        self.state = state
        self.published = build_snapshot(state, 0, now)
        self.absent_since = {seat: now for seat in SEATS if state.computer_side != seat}

    def watcher_count(self) -> int:
        return 0


def read_game(job: ReadJob) -> Rendered:
    """(In a worker) the game of ``job`` replayed and rendered. Raises the replay's
    :class:`~chuhan.errors.ChuhanError` when its log does not replay."""
    state = replay(
        job.row,
        job.events,
        setup_seconds=job.setup_seconds,
        abandon_seconds=job.abandon_seconds,
        first_move_seconds=job.first_move_seconds,
    )
    shown = _Unwatched(state, job.now)
    public = public_state(cast("Room", shown), job.now)
    players = {
        seat: {k: v for k, v in player.items() if k != "connected"}
        for seat, player in public.pop("players").items()
    }
    moves = _dumps(public.pop("moves"))
    for name in ("watchers", "clock"):
        del public[name]
    board = state.game.board
    start = board.root()
    fens = [start.fen()]
    for move in board.move_stack:
        start.push(move)
        fens.append(start.fen())
    headers, comment = _record_headers(state, shown.published.players)
    return Rendered(
        game_id=state.id,
        revision=state.revision,
        status=state.status,
        variant=state.variant.name,
        janggi=state.variant.is_janggi,
        repetitions=state.game.repetitions,
        head=_dumps(public)[:-1],
        players=players,
        moves=moves,
        clock=shown.published.clock,
        start=fens[0],
        iccs=tuple(state.moves),
        fens=tuple(fens),
        record_headers=headers,
        record_comment=comment,
        built_by=os.getpid(),
    )


def _record_headers(
    state: RoundState, players: dict[str, dict[str, Any]]
) -> tuple[dict[str, str], str]:
    """The PGN's headers of the game and the comment after its last move (the referee's
    reason for its end)."""
    row = row_of(state)
    headers = {"Event": "chuhan web game", "Site": "chuhan"}
    headers.update(row.headers)
    if not row.headers:
        first, second = ("Cho", "Han") if state.variant.is_janggi else ("Red", "Black")
        headers[first] = row.names.get("first") or players["first"]["name"]
        headers[second] = row.names.get("second") or players["second"]["name"]
        headers["Date"] = time.strftime("%Y.%m.%d", time.gmtime(row.created))
    if row.time_control is not None:
        headers["TimeControl"] = TimeControl(**row.time_control).describe()
    comment = ""
    outcome = state.game.outcome()
    if outcome is not None:
        headers["Result"] = outcome.result()
        headers["Termination"] = outcome.termination.value
        comment = outcome.reason
    elif row.result is not None:  # (an imported record's result, as it was given)
        headers["Result"] = str(row.result["result"])
    return headers, comment


def record_text(job: tuple[str, str, tuple[str, ...], dict[str, str], str, str]) -> str:
    """(In a worker) the PGN of a game read (:class:`Rendered`'s variant, start, moves,
    headers and last comment) with moves in ``notation``; raises ``RecordError``."""
    variant, start, moves, headers, comment, notation = job
    record = GameRecord.from_moves(
        [Move.from_iccs(move) for move in moves],
        variant=get_variant(variant),
        fen=start,
        headers=headers,
    )
    if comment and moves:
        record.end().comment = comment
    return write_pgn(record, format=notation)


@dataclass(frozen=True, slots=True)
class Position:
    """A position of a game: its FEN, the side to move, and how the rules alone end the
    game there (a result, or None: there are moves to weigh)."""

    fen: str
    turn: str
    over: dict[str, Any] | None


def position_at(job: tuple[str, str, tuple[str, ...], int]) -> Position:
    """(In a worker) the position after ``moves`` from ``start``, judged by the rules alone
    (an ending by resignation, time or agreement is not the position's)."""
    variant, start, moves, repetitions = job
    spec = get_variant(variant)
    game = Game.new(spec, fen=start, repetitions=repetitions)
    for move in moves:
        game.board.push(Move.from_iccs(move))
    ended = game.outcome()
    return Position(
        game.board.fen(),
        seat_of(game.board.turn),
        None if ended is None else result_dict(ended, spec),
    )


def _lower_priority() -> None:
    os.nice(READ_NICE)


def _ready(_: object) -> int:
    """(In a worker) nothing: the job that starts the worker."""
    return os.getpid()


# ---------------------------------------------------------------------- in the server


class GameReads:
    """One server process's games as read: kept per game (the least recently read go
    first beyond ``settings.read_cache_bytes``), built in a worker process of its own."""

    def __init__(self, manager: GameManager, settings: Settings | None = None) -> None:
        self.manager = manager
        self.store = manager.store
        self.settings = settings = settings or manager.settings
        self.workers = Workers(
            1, "read", max_waiting=settings.read_waiting, initializer=_lower_priority
        )
        self._kept: OrderedDict[str, Rendered] = OrderedDict()
        self._bytes = 0
        self._building: dict[str, asyncio.Task[Rendered | None]] = {}
        self._reported: set[str] = set()
        self._starting: asyncio.Task[None] | None = None
        #: Games built (read from the store and replayed in the worker), since the start.
        self.builds = 0

    def start(self) -> None:
        """Start the read worker now, in the background (``read_worker_at_start``)."""
        if self.settings.read_worker_at_start:
            self._starting = asyncio.get_running_loop().create_task(self._start_worker())

    async def _start_worker(self) -> None:
        try:
            await self.workers.run(_ready, None, timeout=self.settings.read_seconds)
        except WorkerError as error:  # (the first read tries again)
            log.warning("the read worker did not start: %s", error)

    def close(self) -> None:
        if self._starting is not None:
            self._starting.cancel()
        for task in self._building.values():
            task.cancel()
        self._building.clear()
        self.workers.close()

    def kept_bytes(self) -> int:
        """About the bytes kept (within ``read_cache_bytes``)."""
        return self._bytes

    def kept(self, game_id: str) -> Rendered | None:
        """The game as kept, whatever its revision now (for tests and the log)."""
        return self._kept.get(game_id)

    async def rendered(
        self, game_id: str, before_building: Callable[[], Awaitable[None]]
    ) -> Rendered | None:
        """The game as read at its current revision; None when there is no such game.
        ``before_building`` is awaited before a build this request starts (it may raise:
        the build budget). Raises :class:`ReadUnavailable` or :class:`ReadBusy`."""
        found = await self._current(game_id)
        if found is not None:
            return found
        task = self._building.get(game_id)
        if task is None:
            await before_building()
            task = self._building.get(game_id)  # (started meanwhile by another read)
            if task is None:
                task = asyncio.get_running_loop().create_task(self._build(game_id))
                self._building[game_id] = task
                task.add_done_callback(lambda done: self._built(game_id, done))
        return await asyncio.shield(task)

    def _built(self, game_id: str, task: asyncio.Task[Rendered | None]) -> None:
        if self._building.get(game_id) is task:
            del self._building[game_id]
        if not task.cancelled():
            task.exception()  # (retrieved: every reader may have gone)

    async def _current(self, game_id: str) -> Rendered | None:
        """The kept entry of the game if it is still the game's revision."""
        kept = self._kept.get(game_id)
        if kept is None:
            return None
        room = self.manager.rooms.get(game_id)
        if room is not None:
            current = room.state.revision <= kept.revision  # (a room may lag the store)
        else:
            try:
                newer = await self.store.newer_revisions({game_id: kept.revision})
            except StoreError as error:
                raise ReadUnavailable(self._unavailable(game_id, error)) from None
            current = game_id not in newer
        if not current:
            self._forget(game_id)
            return None
        if self._kept.get(game_id) is kept:
            self._kept.move_to_end(game_id)
        return kept

    async def _build(self, game_id: str) -> Rendered | None:
        settings = self.settings
        try:
            stored = await self.store.game_since(game_id, 0)
            if stored is None:
                return None
            row, events = stored
            job = ReadJob(
                row,
                events,
                self.manager.now(),
                setup_seconds=settings.setup_seconds,
                abandon_seconds=settings.abandon_seconds,
                first_move_seconds=settings.first_move_seconds,
            )
            rendered = await self.workers.run(read_game, job, timeout=settings.read_seconds)
        except WorkerError as error:
            raise ReadBusy(self._busy(error)) from None
        except (StoreError, ChuhanError, ValueError, KeyError, TypeError) as error:
            raise ReadUnavailable(self._unavailable(game_id, error)) from None
        self.builds += 1
        self._keep(rendered)
        return rendered

    def _keep(self, rendered: Rendered) -> None:
        self._forget(rendered.game_id)
        size = rendered.size()
        if size > self.settings.read_cache_bytes:
            return
        self._kept[rendered.game_id] = rendered
        self._bytes += size
        while self._bytes > self.settings.read_cache_bytes:
            _, oldest = self._kept.popitem(last=False)
            self._bytes -= oldest.size()

    def _forget(self, game_id: str) -> None:
        gone = self._kept.pop(game_id, None)
        if gone is not None:
            self._bytes -= gone.size()

    def _unavailable(self, game_id: str, error: BaseException) -> str:
        return cannot_load(game_id, error, self._reported, "read")

    def _busy(self, error: WorkerError) -> str:
        log.warning("a game could not be read: %s", error)
        return "the server is reading many games at the moment; try again in a few seconds"

    async def pgn(
        self, rendered: Rendered, notation: str, headers: Mapping[str, str] | None = None
    ) -> str:
        """The game's PGN with moves in ``notation`` (a format of
        :data:`~chuhan.records.PGN_FORMATS`) and ``headers`` beside the game's own (the
        players' ratings), written in the worker once per revision, format and headers.
        Raises ``RecordError`` (a move that notation cannot write) or :class:`ReadBusy`."""
        key = notation + "".join(f"\n{name}={value}" for name, value in (headers or {}).items())
        text = rendered.pgns.get(key)
        if text is not None:
            return text
        job = (
            rendered.variant,
            rendered.start,
            rendered.iccs,
            {**rendered.record_headers, **(headers or {})},
            rendered.record_comment,
            notation,
        )
        try:
            text = await self.workers.run(record_text, job, timeout=self.settings.read_seconds)
        except WorkerError as error:
            raise ReadBusy(self._busy(error)) from None
        if self._kept.get(rendered.game_id) is rendered:
            before = rendered.size()
            rendered.pgns[key] = text
            self._bytes += rendered.size() - before
            if self._bytes > self.settings.read_cache_bytes:
                self._keep(rendered)  # (kept again, within the bound)
        return text

    async def position(self, rendered: Rendered, ply: int) -> Position:
        """The position after ``ply`` plies, judged by the rules alone (in the worker)."""
        job = (rendered.variant, rendered.start, rendered.iccs[:ply], rendered.repetitions)
        try:
            return await self.workers.run(position_at, job, timeout=self.settings.read_seconds)
        except WorkerError as error:
            raise ReadBusy(self._busy(error)) from None
        except (ChuhanError, ValueError) as error:
            raise ReadUnavailable(self._unavailable(rendered.game_id, error)) from None
