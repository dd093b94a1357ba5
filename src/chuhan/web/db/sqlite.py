"""The SQLite store (the default): one file, one server.

The database runs in WAL mode with ``synchronous=NORMAL``: a committed transaction survives
the server process being killed (it is in the write-ahead log; only a power loss can take
the last few). Every write is one transaction, committed before the coroutine that makes it
returns. All database work runs on one thread of the store's own, never on the event loop.

The main file alone is never far behind: a few seconds after a write
(``checkpoint_seconds``) the store copies the log into the main file and empties it, and it
does so again at a clean close, so a copy of the main file without its log (or a log cut
short) loses at most those seconds; :func:`~chuhan.web.db.backup.backup_database`
(``chuhan backup``) makes a complete copy at any time.

Opening a database says what it finds (in the ``chuhan.web.db`` log; ``chuhan serve``
prints it): damage found by SQLite's quick check, a file copied without the log it needed,
a damaged log (:mod:`chuhan.web.db.connection`). A game whose rows cannot be read raises
:class:`GameUnreadable` and the others are served; only a file that cannot be used at all
(not a database, its schema unreadable, a newer schema) is refused, with a
:class:`StoreError` that says why.

One server owns a database at a time: :class:`SqliteStore` holds an exclusive lock on
``<database>.lock`` (:class:`~chuhan.web.db.files.OwnerLock`) for as long as it is open,
and a second server on the same file is refused with :class:`DatabaseInUse` naming the
first. The schema is versioned (:mod:`chuhan.web.db.migrations`).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import logging
import os
import secrets
import sqlite3
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from chuhan.web.db import (
    ChatLine,
    DatabaseInUse,
    Duplicate,
    GameRow,
    GameUnreadable,
    Notice,
    StoreConflict,
    StoredEvent,
    StoreError,
)
from chuhan.web.db.connection import checkpoint, close_cleanly, open_database
from chuhan.web.db.files import OwnerLock, database_owner, default_db_path, lock_path
from chuhan.web.db.health import is_damage, readable_rows
from chuhan.web.db.migrations import (
    ACCOUNT_TABLES,
    EXPLORER_TABLES,
    MIGRATIONS,
    NOTICE_TABLES,
    PUSH_TABLES,
    SCHEMA_VERSION,
    TOURNAMENT_TABLES,
)
from chuhan.web.db.rows import (
    COLUMNS,
    SAVED,
    event_text,
    game_row,
    saved_values,
    seated_games,
    values,
)
from chuhan.web.db.statements import All, Body, Lock, One, Statement, run_fed, text_for

__all__ = [
    "CHECKPOINT_SECONDS",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "DatabaseInUse",
    "SqliteStore",
    "database_owner",
    "default_db_path",
    "read_file",
]

T = TypeVar("T")

ACCOUNT_TABLE_NAMES = tuple(
    name
    for name, _ in (
        *ACCOUNT_TABLES,
        *NOTICE_TABLES,
        *PUSH_TABLES,
        *TOURNAMENT_TABLES,
        *EXPLORER_TABLES,
    )
)

log = logging.getLogger("chuhan.web.db")

#: How long after a write the store copies the write-ahead log into the main file.
CHECKPOINT_SECONDS = 2.0


class SqliteStore:
    """The game database in one SQLite file (see the module's documentation). Opening it
    takes the owner lock, checks the file and brings the schema up to date; every other
    method is a coroutine that runs on the store's own database thread."""

    #: One server owns the file (its lock says so): nobody else writes, nothing to hear.
    shared = False

    def __init__(self, path: str | Path, *, checkpoint_seconds: float = CHECKPOINT_SECONDS) -> None:
        self.path = Path(path)
        self.checkpoint_seconds = checkpoint_seconds
        self.server_id = secrets.token_hex(8)
        self._in_memory = str(path) == ":memory:"
        self._owner: OwnerLock | None = None
        self._closed = False
        self._checkpoint_timer: asyncio.TimerHandle | None = None
        self._timer_loop: asyncio.AbstractEventLoop | None = None
        #: Tables whose indexes are damaged while their rows can all be read: read directly.
        self._unindexed: set[str]
        try:
            if not self._in_memory:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._owner = OwnerLock(lock_path(self.path))
        except OSError as error:
            raise StoreError(f"cannot open the game database {path}: {error}") from None
        try:
            self._db, self._unindexed = open_database(self.path)
        except StoreError:
            self._release()
            raise
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chuhan-sqlite")
        #: Writes waiting for the next group commit, and whether one is under way.
        self._writes: deque[tuple[Callable[[], None], asyncio.Future[None], bool]] = deque()
        self._writes_lock = threading.Lock()
        self._committing = False
        atexit.register(self._close_at_exit)

    # ------------------------------------------------------------------ checkpoints

    def _checkpoint_quietly(self) -> bool:
        try:
            return checkpoint(self._db, wait=False)
        except sqlite3.Error as error:
            log.warning("the game database %s: checkpoint failed: %s", self.path, error)
            return False

    def _checkpoint_later(self) -> None:
        """After a write: a checkpoint ``checkpoint_seconds`` from now, if none is due."""
        if self._closed or self._in_memory:
            return
        loop = asyncio.get_running_loop()
        if self._checkpoint_timer is not None and self._timer_loop is loop:
            return
        self._timer_loop = loop  # (a timer set on an event loop that has ended never fires)
        self._checkpoint_timer = loop.call_later(self.checkpoint_seconds, self._checkpoint_due)

    def _checkpoint_due(self) -> None:
        self._checkpoint_timer = None
        if not self._closed:
            self._thread.submit(self._checkpoint_quietly)

    async def checkpoint(self) -> bool:
        """Copy everything committed into the main file now (the store does it by itself
        a few seconds after each write, and at close); whether all of it went (a reader,
        such as a backup, may hold some back)."""
        return await self._run(self._checkpoint_quietly)

    # ------------------------------------------------------------------ life

    async def _run(self, work: Callable[[], T]) -> T:
        """Run ``work`` on the database thread; its ``sqlite3`` errors become
        :class:`StoreError` naming the database."""

        def guarded() -> T:
            try:
                return work()
            except sqlite3.Error as error:
                raise self._store_error(error) from None

        return await asyncio.get_running_loop().run_in_executor(self._thread, guarded)

    async def _write(self, work: Callable[[], None], *, replayable: bool = False) -> None:
        """Run ``work`` (its statements, without a transaction of its own) in the next
        group commit: the writes that arrive while the database thread is busy are
        committed together, so that one that fails takes only itself back
        (:meth:`_commit_group`). ``replayable``: ``work`` may run again from the start
        after its transaction was rolled back, with the same effect (its statements and
        arguments are fixed when it is made). Returns once its transaction is committed."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        with self._writes_lock:
            self._writes.append((work, done, replayable))
            start = not self._committing
            self._committing = True
        if start:
            self._thread.submit(self._commit_writes)
        await done
        self._checkpoint_later()

    def _commit_writes(self) -> None:
        """(On the database thread) commit the writes waiting, a group at a time, until
        none is left."""
        while True:
            with self._writes_lock:
                if not self._writes:
                    self._committing = False
                    return
                batch = list(self._writes)
                self._writes.clear()
            works = [work for work, _, _ in batch]
            outcomes = None
            if all(replayable for _, _, replayable in batch):
                outcomes = self._commit_whole(works)
            if outcomes is None:
                outcomes = self._commit_group(works)
            # Each event loop is told once how its writes went (a wake-up each costs).
            settled: dict[asyncio.AbstractEventLoop, list[_Settled]] = {}
            for (_, done, _), outcome in zip(batch, outcomes, strict=True):
                settled.setdefault(done.get_loop(), []).append((done, outcome))
            for loop, writes in settled.items():
                with contextlib.suppress(RuntimeError):  # its event loop has ended
                    loop.call_soon_threadsafe(_settle, writes)

    def _commit_whole(self, writes: list[Callable[[], None]]) -> list[BaseException | None] | None:
        """One transaction for ``writes`` (each replayable), without a savepoint each (two
        statements fewer a write: a move's save is four statements, not six); None, with
        nothing written, when one of them failed: the group is then run again by
        :meth:`_commit_group`, where a write that fails takes only itself back."""
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:  # (no write ran: trying again would wait again)
            return [self._store_error(error)] * len(writes)
        try:
            for work in writes:
                work()
            db.execute("COMMIT")
        except Exception:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            return None
        return [None] * len(writes)

    def _commit_group(self, writes: list[Callable[[], None]]) -> list[BaseException | None]:
        """One transaction for ``writes``, each in its own savepoint: how each went."""
        outcomes: list[BaseException | None] = []
        try:
            self._db.execute("BEGIN IMMEDIATE")
            for work in writes:
                self._db.execute("SAVEPOINT write")
                try:
                    work()
                except Exception as error:  # this write only: the others go on
                    self._db.execute("ROLLBACK TO write")
                    outcomes.append(self._store_error(error))
                else:
                    outcomes.append(None)
                self._db.execute("RELEASE write")
            self._db.execute("COMMIT")
        except sqlite3.Error as error:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            return [self._store_error(error)] * len(writes)
        return outcomes

    def _store_error(self, error: BaseException) -> BaseException:
        if isinstance(error, sqlite3.Error):
            return StoreError(f"the game database {self.path} failed: {error}")
        return error

    async def open(self) -> None:
        """Nothing to do: the file was opened (and checked) when the store was made."""

    def announce(self, url: str) -> None:
        """Record in the lock file where this server listens (``chuhan play`` opens that
        address instead of starting a second server on the same games)."""
        if self._owner is not None:
            self._owner.write({"pid": os.getpid(), "url": url})

    async def close(self) -> None:
        """Checkpoint, mark the database closed cleanly, and let it go."""
        if self._closed:
            return
        self._closed = True
        if self._checkpoint_timer is not None:
            self._checkpoint_timer.cancel()
            self._checkpoint_timer = None
        try:
            await asyncio.get_running_loop().run_in_executor(self._thread, self._finish)
        finally:
            self._thread.shutdown(wait=True)
            self._release()

    def _finish(self) -> None:
        close_cleanly(self._db, self.path)

    def _close_at_exit(self) -> None:
        # A store nobody closed (a start that failed after opening it): close it cleanly
        # rather than let SQLite fold the log in without the open marker going.
        if not self._closed:
            self._closed = True
            self._finish()
            self._release()

    def _release(self) -> None:
        atexit.unregister(self._close_at_exit)
        if self._owner is not None:
            self._owner.release()

    # ------------------------------------------------------------------ bodies

    async def write(self, body: Body[T], what: str = "") -> T:
        """Run the transaction ``body`` (:mod:`chuhan.web.db.statements`) in the next group
        commit, on the database thread; its result once it is committed. (``what`` is
        the PostgreSQL driver's; the database's own error says enough here.)"""
        box: list[T] = []
        await self._write(lambda: box.append(self._drive(body)))
        return box[0]

    async def read(self, body: Body[T], what: str = "") -> T:
        """Run the reading ``body`` on the database thread (between group commits: one
        thread writes, so a body never sees half of a write)."""
        return await self._run(lambda: self._drive(body))

    def _drive(self, body: Body[T]) -> T:
        """(On the database thread) run ``body``'s statements as it yields them."""
        try:
            statement = next(body)
            while True:
                try:
                    result = self._execute(statement)
                except sqlite3.IntegrityError as error:
                    if "UNIQUE" not in str(error):
                        raise
                    statement = body.throw(Duplicate(str(error)))
                else:
                    statement = body.send(result)
        except StopIteration as stop:
            result_value: T = stop.value
            return result_value

    def _execute(self, statement: Statement) -> Any:
        return _execute(self._db, statement)

    # ------------------------------------------------------------------ writes

    async def create_game(
        self, row: GameRow, seats: dict[str, str], *, event: str = "create"
    ) -> None:
        columns = values(row) | {"revision": 1}

        def work() -> None:
            self._db.execute(
                f"INSERT INTO games ({', '.join(COLUMNS)}) "
                f"VALUES ({', '.join(':' + c for c in COLUMNS)})",
                columns,
            )
            self._db.executemany(
                "INSERT INTO seats(token, game_id, seat) VALUES (?, ?, ?)",
                [(token, row.id, seat) for token, seat in seats.items()],
            )
            self._event(row, 1, event, {})

        await self._write(work, replayable=True)
        row.revision = 1

    async def save_game(
        self,
        row: GameRow,
        event: str,
        data: dict[str, Any],
        *,
        changed: frozenset[str] | None = None,
    ) -> None:
        columns = SAVED if changed is None else _saved_columns(changed)
        games = "games NOT INDEXED" if "games" in self._unindexed else "games"
        update = _save_game(games, columns)
        made_on = row.revision
        arguments = (*saved_values(row, columns), row.id, made_on)

        def work() -> None:
            saved = self._db.execute(update, arguments).rowcount
            if saved != 1:  # never acknowledge a move that was not written
                query = f"SELECT 1 FROM {games} WHERE id=?"
                if self._db.execute(query, (row.id,)).fetchone() is not None:
                    raise StoreConflict(row.id, made_on)
                raise StoreError(
                    f"the game database {self.path} failed: game {row.id!r} is not "
                    "where it was stored"
                )
            self._event(row, made_on + 1, event, data)

        await self._write(work, replayable=True)
        row.revision = made_on + 1

    async def add_chat(self, game_id: str, line: ChatLine) -> None:
        def work() -> None:
            self._db.execute(
                "INSERT INTO chat(game_id, at, sender, name, text) VALUES (?, ?, ?, ?, ?)",
                (game_id, *line),
            )

        await self._write(work, replayable=True)

    def _event(self, row: GameRow, number: int, kind: str, data: dict[str, Any]) -> None:
        self._db.execute(
            "INSERT INTO events(game_id, number, version, at, kind, data) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (row.id, number, row.version, row.updated, kind, event_text(kind, data)),
        )

    # ------------------------------------------------------------------ reads

    def _rows(
        self, game_id: str | None, table: str, query: str, parameters: tuple[Any, ...]
    ) -> list[Any]:
        """``query`` on ``table`` (``{indexed}`` after its name), all rows. A table whose
        indexes were found damaged is read without them (a damaged index can answer
        "nothing" without an error); when a damaged page is in the way, the query runs
        once more without the indexes. If the rows themselves are damaged,
        :class:`GameUnreadable` for ``game_id`` (the ``sqlite3`` error when the query is
        not about one game)."""
        if table not in self._unindexed:
            try:
                return self._db.execute(query.replace("{indexed}", ""), parameters).fetchall()
            except sqlite3.DatabaseError as error:
                if not is_damage(error):
                    raise
        try:
            plain = query.replace("{indexed}", " NOT INDEXED")
            return self._db.execute(plain, parameters).fetchall()
        except sqlite3.DatabaseError as error:
            if not is_damage(error) or game_id is None:
                raise
            raise GameUnreadable(
                game_id, f"it lies partly on a damaged page of the database file ({error})"
            ) from None

    def _load_game(self, game_id: str) -> GameRow | None:
        found = self._rows(game_id, "games", "SELECT * FROM games{indexed} WHERE id=?", (game_id,))
        if found and found[0]["id"] != game_id:  # a damaged page that still parses
            raise GameUnreadable(game_id, "the database file returned another game's row")
        return game_row(found[0]) if found else None

    def _seat(self, token: str) -> tuple[str, str] | None:
        query = "SELECT game_id, seat FROM seats{indexed} WHERE token=?"
        found = self._rows(None, "seats", query, (token,))
        return (str(found[0]["game_id"]), str(found[0]["seat"])) if found else None

    async def load_game(self, game_id: str) -> GameRow | None:
        return await self._run(lambda: self._load_game(game_id))

    async def seat(self, token: str) -> tuple[str, str] | None:
        return await self._run(lambda: self._seat(token))

    async def seats_of(self, game_id: str) -> dict[str, str]:
        def work() -> dict[str, str]:
            query = "SELECT token, seat FROM seats{indexed} WHERE game_id=?"
            found = self._rows(game_id, "seats", query, (game_id,))
            return {str(r["seat"]): str(r["token"]) for r in found}

        return await self._run(work)

    async def games_for_tokens(self, tokens: list[str]) -> list[tuple[str, str, GameRow]]:
        if not tokens:
            return []
        marks = ", ".join("?" * len(tokens))

        def work() -> list[tuple[str, str, GameRow]]:
            if self._unindexed & {"games", "seats"}:
                return one_by_one()
            try:
                found = self._db.execute(
                    f"SELECT s.token AS seat_token, s.seat AS seat_name, g.* FROM seats s "
                    f"JOIN games g ON g.id = s.game_id WHERE s.token IN ({marks}) "
                    "ORDER BY g.updated DESC",
                    tokens,
                ).fetchall()
            except sqlite3.DatabaseError as error:
                if not is_damage(error):
                    raise
                return one_by_one()
            return seated_games(found)

        def one_by_one() -> list[tuple[str, str, GameRow]]:
            # A damaged page is in the way: each token on its own, leaving out the games
            # that cannot be read, so they do not hide the others.
            games, unreadable = [], 0
            for token in dict.fromkeys(tokens):
                try:
                    seat = self._seat(token)
                    row = None if seat is None else self._load_game(seat[0])
                except (GameUnreadable, sqlite3.DatabaseError) as error:
                    if isinstance(error, sqlite3.DatabaseError) and not is_damage(error):
                        raise
                    unreadable += 1
                    continue
                if seat is not None and row is not None:
                    games.append((token, seat[1], row))
            if unreadable:
                log.error(
                    "the game database %s: %d of %d seat links asked for lead to games that "
                    "cannot be read (a damaged page); they are left out of the list",
                    self.path,
                    unreadable,
                    len(tokens),
                )
            games.sort(key=lambda game: game[2].updated, reverse=True)
            return games

        return await self._run(work)

    async def unfinished_game_ids(self) -> list[str]:
        def work() -> list[str]:
            try:
                query = "SELECT id FROM games WHERE status != 'over'"
                return [str(r["id"]) for r in self._db.execute(query)]
            except sqlite3.DatabaseError as error:
                if not is_damage(error):
                    raise
            found, skipped = readable_rows(self._db, "games", "id, status")
            log.error(
                "the game database %s: %s stored games cannot be read (a damaged page of "
                "the table games) and are left out; the other %d are served",
                self.path,
                "some" if skipped is None else f"about {skipped}",
                len(found),
            )
            return [str(r["id"]) for r in found if r["status"] != "over"]

        return await self._run(work)

    async def chat_history(self, game_id: str, limit: int = 50) -> list[ChatLine]:
        def work() -> list[ChatLine]:
            try:
                found = self._rows(
                    game_id,
                    "chat",
                    "SELECT at, sender, name, text FROM chat{indexed} WHERE game_id=? "
                    "ORDER BY at DESC, rowid DESC LIMIT ?",
                    (game_id, limit),
                )
            except GameUnreadable:
                log.error(
                    "the chat of game %r is on a damaged page of the database %s; it is "
                    "shown empty",
                    game_id[:40],
                    self.path,
                )
                return []
            return [
                ChatLine(float(r["at"]), str(r["sender"]), str(r["name"]), str(r["text"]))
                for r in reversed(found)
            ]

        return await self._run(work)

    def _events(self, game_id: str, after: int) -> list[StoredEvent]:
        return [
            StoredEvent(
                int(r["version"]),
                float(r["at"]),
                str(r["kind"]),
                _event_data(game_id, r["data"]),
            )
            for r in self._rows(
                game_id,
                "events",
                "SELECT version, at, kind, data FROM events{indexed} "
                "WHERE game_id=? AND number>? ORDER BY number",
                (game_id, after),
            )
        ]

    async def events(self, game_id: str) -> list[StoredEvent]:
        return await self._run(lambda: self._events(game_id, 0))

    async def game_since(
        self, game_id: str, revision: int
    ) -> tuple[GameRow, list[StoredEvent]] | None:
        def work() -> tuple[GameRow, list[StoredEvent]] | None:
            row = self._load_game(game_id)  # (one thread writes: nothing comes between)
            return None if row is None else (row, self._events(game_id, revision))

        return await self._run(work)

    async def table_rows(
        self, table: str, columns: tuple[str, ...], after: int, limit: int
    ) -> list[tuple[int, tuple[Any, ...]]]:
        """Up to ``limit`` rows of ``table`` after the row ``after`` (its rowid), in the
        order they were written: ``(rowid, values of columns)`` each (for copying the whole
        database elsewhere, a batch at a time)."""
        if table not in ("games", "seats", "events", "chat", *ACCOUNT_TABLE_NAMES):
            raise ValueError(f"not a table of the game database: {table!r}")
        query = (
            f"SELECT rowid, {', '.join(columns)} FROM {table} WHERE rowid > ? "
            "ORDER BY rowid LIMIT ?"
        )

        def work() -> list[tuple[int, tuple[Any, ...]]]:
            return [(int(r[0]), tuple(r)[1:]) for r in self._db.execute(query, (after, limit))]

        return await self._run(work)

    # ------------------------------------------------------------------ one process

    async def listen(self, handler: Callable[[Notice], None]) -> None:
        """Nothing to hear: no other process writes this file."""

    async def notify(self, game_id: str, kind: str, data: dict[str, Any]) -> None:
        """Nobody to tell."""

    async def beat(self, takeover_seconds: float) -> set[str]:
        """This server drives every unfinished game."""
        return set(await self.unfinished_game_ids())

    async def newer_revisions(self, held: dict[str, int]) -> dict[str, int]:
        """(Nobody else writes: the rooms in memory are the latest, and the server does
        not ask.)"""
        ids = list(held)

        def work() -> dict[str, int]:
            newer = {}
            for start in range(0, len(ids), 500):  # (SQLite's limit on parameters)
                part = ids[start : start + 500]
                query = f"SELECT id, revision FROM games WHERE id IN ({', '.join('?' * len(part))})"
                for game_id, revision in self._db.execute(query, part):
                    if int(revision) > held[str(game_id)]:
                        newer[str(game_id)] = int(revision)
            return newer

        return await self._run(work) if ids else {}

    async def live_servers(self, takeover_seconds: float) -> set[str]:
        """This one."""
        return {self.server_id}


#: ``save_game``'s statements, by table (``games``, or without its indexes when one is
#: damaged) and the columns written.
_SAVE_GAME: dict[tuple[str, tuple[str, ...]], str] = {}


#: The columns of :data:`SAVED` among ``changed``, in its order, by ``changed``.
_SAVED_AMONG: dict[frozenset[str], tuple[str, ...]] = {}


def _execute(db: sqlite3.Connection, statement: Statement) -> Any:
    """One statement of a body on ``db``: its result as the body expects it."""
    if isinstance(statement, Lock):
        return None  # (one thread writes: the body runs alone already)
    cursor = db.execute(text_for(statement.sql, "sqlite"), tuple(statement.args))
    if isinstance(statement, One):
        found = cursor.fetchall()  # (to the end: a RETURNING statement completes)
        return found[0] if found else None
    if isinstance(statement, All):
        return cursor.fetchall()
    return cursor.rowcount


def read_file(path: str | Path, body: Body[T]) -> T:
    """Run the reading ``body`` on the SQLite game database at ``path``, opened read-only
    beside the server that may own it (a command line's look; the server's own reads go
    through :meth:`SqliteStore.read`). Raises :class:`StoreError` naming the file when it
    cannot be read."""
    if not Path(path).is_file():
        raise StoreError(f"no game database at {path}")
    try:
        db = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise StoreError(f"cannot open the game database {path}: {error}") from None
    try:
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA busy_timeout = 5000")
        return run_fed(body, lambda statement: _execute(db, statement))
    except sqlite3.Error as error:
        raise StoreError(f"cannot read the game database {path}: {error}") from None
    finally:
        db.close()


def _saved_columns(changed: frozenset[str]) -> tuple[str, ...]:
    columns = _SAVED_AMONG.get(changed)
    if columns is None:
        columns = _SAVED_AMONG[changed] = tuple(c for c in SAVED if c in changed)
    return columns


def _save_game(games: str, columns: tuple[str, ...]) -> str:
    update = _SAVE_GAME.get((games, columns))
    if update is None:
        update = _SAVE_GAME[games, columns] = (
            f"UPDATE {games} SET "
            + "".join(f"{column}=?, " for column in columns)
            + "revision=revision + 1 WHERE id=? AND revision=?"
        )
    return update


def _event_data(game_id: str, text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as error:
        raise GameUnreadable(game_id, f"an event's data is malformed ({error})") from None
    if not isinstance(data, dict):
        raise GameUnreadable(game_id, "an event's data is not an object")
    return data


#: A write's future and how its group commit went (None: committed).
_Settled = tuple[asyncio.Future[None], BaseException | None]


def _settle(writes: list[_Settled]) -> None:
    """(On the writes' event loop) tell each how its group commit went."""
    for done, error in writes:
        if done.cancelled():
            continue
        if error is None:
            done.set_result(None)
        else:
            done.set_exception(error)
