"""The explorer's index for the server (:class:`ExplorerService`): built from the shipped
master games in a process of its own when the server starts and the index is not there
yet (several minutes on first use: meanwhile the explorer answers how far the build has
gone), and read by one thread of its own, never on the event loop.

Where the index is (:func:`index_location`): the SQLite file of this machine
(:func:`chuhan.explorer.default_index_path`), or, when the server's games are in
PostgreSQL, that database (the index's tables in a schema of their own): one index for
every server process, built once.

The build is :func:`chuhan.explorer.open_masters` in a ``spawn`` process (``nice`` 10),
reading the records with one worker process fewer than the CPUs (none on two): its
progress (files read of the archive's) is shared memory the server reads when asked. A
build whose server has gone stops at its next file, and its transaction is undone. One
process builds at a time (the index's write lock): another server's build process waits,
and takes over should that build stop (its transaction undone, its lock let go with its
connection); on PostgreSQL the builder writes its progress in the index every second,
where the waiting ones read it, so that every server tells the same "N of M".
``CHUHAN_EXPLORER_BUILD=0`` in the environment builds nothing (the tests set it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path
from typing import Any, TypeVar

from chuhan.board import Board
from chuhan.explorer import (
    MASTERS,
    MASTERS_ARCHIVE,
    READ_WORKERS,
    Explorer,
    ExplorerError,
    ImportSummary,
    PositionStats,
    SearchResult,
    default_index_path,
    iter_collection,
    masters_digest,
    open_masters,
)
from chuhan.explorer.masters import MASTERS_LABEL
from chuhan.explorer.stores import IndexStoreError, is_index_url, shown_location
from chuhan.records import GameRecord, write_pgn
from chuhan.squares import Move
from chuhan.web.db import StoreError

__all__ = ["BUILD_ENV", "BuildState", "ExplorerService", "index_location"]

#: Set to ``0`` in the environment, no server builds the masters' index (the tests' servers:
#: a build would take minutes of their machine; an index already built is read).
BUILD_ENV = "CHUHAN_EXPLORER_BUILD"

log = logging.getLogger("chuhan.web")
_T = TypeVar("_T")
#: Seconds between two notes of a build's progress in a shared index, and between two
#: tries of a waiting build.
_NOTE_SECONDS = 1.0
_WAIT_SECONDS = 5.0
#: Seconds before a shared index (PostgreSQL) that could not be opened or built is tried
#: again: its server may have been restarted or unreachable for a while.
RETRY_SECONDS = 30.0
#: How long one statement of the server's reads of a PostgreSQL index may take: a table
#: locked by someone else, or a database that stops answering, is then a clear failure of
#: that lookup, not a reading thread (every player's lookups) waiting for good.
READ_SECONDS = 10.0


def index_location(given: str | Path | None, database: str | None) -> str | Path:
    """Where a server's explorer index is: ``given`` (``chuhan serve --explorer-db``), else
    the server's game database when it is PostgreSQL (``database``: its address), else
    the SQLite file of this machine (:func:`chuhan.explorer.default_index_path`)."""
    if given is not None and str(given) != "":
        return given
    if database is not None and is_index_url(database):
        return database
    return default_index_path()


@dataclass(frozen=True)
class BuildState:
    """Where the masters' index is: ``ready``, ``building`` (``done`` of ``total`` files
    read; ``total`` 0 until counted) or ``failed`` (``message`` says why)."""

    state: str
    done: int = 0
    total: int = 0
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "done": self.done,
            "total": self.total,
            "message": self.message,
        }


def _build(
    location: str,
    done: Synchronized[int],
    total: Synchronized[int],
    stop: Synchronized[int],
    failures: Connection,
    parent: int,
) -> None:
    """The build process: the masters' index at ``location``, its progress in ``done`` and
    ``total``; a failure's sentence sent on ``failures``. It stops (its import undone, its
    reading workers ended) at the next file once ``stop`` is set or its parent is gone.
    While another process builds the index, it waits (telling that build's progress when
    the index is shared) and tries again."""
    with contextlib.suppress(OSError):
        os.nice(10)
    try:
        counted = 0
        for _ in iter_collection(MASTERS_ARCHIVE):
            counted += 1
            if stop.value:
                raise SystemExit(1)
        total.value = counted
        with Explorer(location) as notes:
            _build_or_wait(location, notes, done, total, stop, parent)
    except Exception as error:  # (told to the server, which says it)
        failures.send(f"{type(error).__name__}: {error}")
        raise SystemExit(1) from None


def _build_or_wait(
    location: str,
    notes: Explorer,
    done: Synchronized[int],
    total: Synchronized[int],
    stop: Synchronized[int],
    parent: int,
) -> None:
    noted = [0.0]
    counted = int(total.value)  # (the archive's files: a waiting build tells another's)

    def stopped() -> bool:
        return bool(stop.value) or os.getppid() != parent

    def progress(summary: ImportSummary) -> None:
        if stopped():
            raise SystemExit(1)  # the server stops or has gone: undo the import
        done.value, total.value = summary.files, counted
        now = time.monotonic()
        if notes.shared and now - noted[0] >= _NOTE_SECONDS:
            noted[0] = now
            notes.note_progress(MASTERS_LABEL, summary.files, int(total.value))

    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 1
    workers = max(1, min(READ_WORKERS, cpus - 1))
    while True:
        try:
            open_masters(location, progress=progress, workers=workers).close()
            return
        except ExplorerError as error:
            if "another import is writing" not in str(error):
                raise
        # Another process builds this index: it is ready when that build commits, and
        # this one takes over should that build stop.
        told = notes.progress_of(MASTERS_LABEL) if notes.shared else None
        if told is not None:
            done.value, total.value = told
        for _ in range(int(_WAIT_SECONDS * 10)):
            if stopped():
                raise SystemExit(1)
            time.sleep(0.1)


class ExplorerService:
    """The explorer's index at ``location`` (a SQLite file or a PostgreSQL address; default
    :func:`chuhan.explorer.default_index_path`) for the server: :meth:`start` builds the
    masters there if they are not, in the background (with the server, or when first
    asked); :meth:`lookup` and :meth:`game` read it in a thread of their own."""

    def __init__(self, location: str | Path | None = None) -> None:
        self.location = index_location(location, None)
        #: Whether the index is a database every server shares (PostgreSQL), whose
        #: failures pass: one that cannot be opened or built is tried again.
        self.shared = is_index_url(str(self.location))
        self._begun = False
        self._opening = False
        self._retry_at = 0.0
        self._ready = False
        self._failure = ""
        self._process: BaseProcess | None = None
        self._failures: Connection | None = None
        context = multiprocessing.get_context("spawn")
        self._context = context
        self._done: Synchronized[int] = context.Value("q", 0, lock=False)
        self._total: Synchronized[int] = context.Value("q", 0, lock=False)
        self._stop: Synchronized[int] = context.Value("b", 0, lock=False)
        self._reader = ThreadPoolExecutor(1, thread_name_prefix="explorer")
        self._local = threading.local()

    def start(self, *, build: bool) -> None:
        """Build the masters' index in the background now, unless it is built, when
        ``build`` (``chuhan serve``); else at the first lookup (the app alone, in tests)."""
        if build:
            self._begin()

    def _begin(self) -> None:
        if self._begun:  # (asked twice before the first look ended)
            return
        self._begun = True
        self._opening = True
        try:
            self._open()
        finally:
            self._opening = False

    def _open(self) -> None:
        """Look at the index (is it built?) and build it in the background if not; a
        failure from an earlier look is told until this one has its answer."""
        try:
            with Explorer(self.location, statement_seconds=READ_SECONDS) as explorer:
                ready = explorer.imported(masters_digest())
        except ExplorerError as error:
            self._failure = str(error)
            log.warning("the explorer is unavailable: %s", error)
            self._retry_later()
            return
        self._failure = ""
        self._process = None
        self._ready = ready
        if self._ready:
            return
        if os.environ.get(BUILD_ENV) == "0":
            self._failure = f"the masters' index is not built here ({BUILD_ENV}=0)"
            return
        receiving, sending = self._context.Pipe(duplex=False)
        self._failures = receiving
        process = self._context.Process(
            target=_build,
            args=(str(self.location), self._done, self._total, self._stop, sending, os.getpid()),
            name="chuhan explorer build",
        )
        process.start()
        sending.close()
        self._process = process
        log.info(
            "building the masters' explorer index in %s (process %s)",
            shown_location(self.location),
            process.pid,
        )

    def _retry_later(self) -> None:
        """A shared index that failed is looked at again in :data:`RETRY_SECONDS`."""
        if self.shared:
            self._begun = False
            self._retry_at = time.monotonic() + RETRY_SECONDS

    async def state(self) -> BuildState:
        """Where the masters' index is (asked with every lookup: its first look, or the
        next one after a shared index failed, opens the index in the service's thread,
        never on the event loop)."""
        if not self._begun and time.monotonic() >= self._retry_at:
            await asyncio.get_running_loop().run_in_executor(self._reader, self._begin)
        return self._state()

    def _state(self) -> BuildState:
        if self._ready:
            return BuildState("ready")
        if self._failure:
            return BuildState("failed", message=self._failure)
        process = self._process
        if process is None:
            if self._opening:  # (its first look, in the service's thread: a moment)
                return BuildState("building", 0, 0)
            return BuildState("failed", message="the masters' index is not being built")
        if process.exitcode is None:
            return BuildState("building", int(self._done.value), int(self._total.value))
        if process.exitcode == 0:
            self._ready = True
            log.info("the masters' explorer index is built")
            return BuildState("ready")
        message = ""
        if self._failures is not None and self._failures.poll():
            with contextlib.suppress(EOFError, OSError):
                message = str(self._failures.recv())
        self._failure = f"the masters' index could not be built: {message or 'it stopped'}"
        log.error("%s", self._failure)
        self._retry_later()
        return BuildState("failed", message=self._failure)

    def _explorer(self) -> Explorer:
        explorer: Explorer | None = getattr(self._local, "masters", None)
        if explorer is None:
            explorer = Explorer(self.location, statement_seconds=READ_SECONDS)
            self._local.masters = explorer
        return explorer

    async def _read(self, work: Callable[[Explorer], _T]) -> _T:
        """``work`` done with the index in the service's thread. A store that fails (a
        PostgreSQL server restarted, the connection lost) is a :class:`StoreError`, and
        the connection is made again at the next read."""

        def read() -> _T:
            try:
                return work(self._explorer())
            except IndexStoreError as error:
                self._close_reader()
                raise StoreError(
                    f"the explorer's index ({shown_location(self.location)}): {error}"
                ) from None

        return await asyncio.get_running_loop().run_in_executor(self._reader, read)

    async def lookup(self, board: Board, source: str = MASTERS) -> PositionStats:
        """The moves played from ``board`` in ``source`` of the index (as
        :meth:`Explorer.lookup`; the server's own games are in its database:
        :mod:`chuhan.web.explorer.site`), read in the service's thread."""
        return await self._read(lambda explorer: explorer.lookup(board, source=source))

    async def game(self, game_id: int) -> dict[str, Any]:
        """A game of the index by its id (as :meth:`Explorer.game`) with its PGN, read
        and written in the service's thread."""
        return await self._read(lambda explorer: _with_pgn(explorer.game(game_id)))

    async def search(self, **criteria: Any) -> SearchResult:
        """The master games matching ``criteria`` (as :meth:`Explorer.search`), read in
        the service's thread."""
        return await self._read(lambda explorer: explorer.search(**criteria))

    def close(self) -> None:
        """Stop the build (its import is undone) and the reading thread."""
        process = self._process
        if process is not None and process.exitcode is None:
            self._stop.value = 1
            process.join(10)
            if process.exitcode is None:
                process.kill()
        self._reader.submit(self._close_reader)
        self._reader.shutdown(wait=True)

    def _close_reader(self) -> None:
        explorer: Explorer | None = getattr(self._local, "masters", None)
        self._local.masters = None
        if explorer is not None:
            with contextlib.suppress(IndexStoreError):
                explorer.close()


def _with_pgn(game: dict[str, Any]) -> dict[str, Any]:
    game.pop("import", None)
    game["pgn"] = _pgn(game)
    return game


def _pgn(game: dict[str, Any]) -> str:
    """The game as PGN, its moves in Chinese notation (the records' writer); its ECCO code
    (the record's, else the classifier's) with the opening's name."""
    opening = game.get("ecco_opening")
    board = Board(game["fen"])
    moves: list[Move] = [board.push_iccs(text) for text in game["moves"]]
    tags = {
        "Event": game["event"],
        "Site": game["site"],
        "Date": game["date"].replace("-", "."),
        "Red": game["red"],
        "Black": game["black"],
        "Result": game["result"],
        "ECCO": game["ecco"] or game["found"],
        "Opening": opening["name_zh"] if opening else game["opening"],
        "Variation": opening["name_en"] if opening else "",
    }
    headers = {name: value for name, value in tags.items() if value}
    record = GameRecord.from_moves(
        moves, fen=None if game["fen"] == Board().fen() else game["fen"], headers=headers
    )
    return write_pgn(record, format="chinese")
