"""The SQLite store (the default): one file, one server.

The database runs in WAL mode with ``synchronous=NORMAL``: a committed transaction survives
the server process being killed (it is in the WAL file; only a power loss can take the
last few). Every write is one transaction, committed before the coroutine that makes it
returns. All database work runs on one thread of the store's own, never on the event loop.

One server owns a database at a time: :class:`SqliteStore` holds an exclusive lock on
``<database>.lock`` (``flock`` on POSIX, ``msvcrt.locking`` on Windows) for as long as it
is open, and a second server on the same file is refused with :class:`DatabaseInUse`
naming the first. The operating system drops the lock when its process dies, even by
SIGKILL, so a crash never leaves the database locked.

The schema is versioned: :data:`MIGRATIONS` lists the steps from an empty file to the
current version, each applied once, in its own transaction, and recorded in ``meta``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from chuhan.web.store import (
    QUIET_EVENTS,
    ChatLine,
    DatabaseInUse,
    GameRow,
    GameUnreadable,
    StoreError,
)

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "SqliteStore", "database_owner", "default_db_path"]

T = TypeVar("T")

_SCHEMA_1 = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    variant TEXT NOT NULL,
    rules TEXT NOT NULL,
    start_fen TEXT,
    time_control TEXT,
    level INTEGER,
    computer_side TEXT,
    names TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    setup TEXT NOT NULL,
    setup_deadline REAL,
    moves TEXT NOT NULL,
    clock TEXT,
    clock_at REAL,
    offers TEXT NOT NULL,
    ending TEXT,
    result TEXT,
    headers TEXT NOT NULL,
    rematch TEXT
);
CREATE TABLE seats (
    token TEXT PRIMARY KEY,
    game_id TEXT NOT NULL REFERENCES games(id),
    seat TEXT NOT NULL
);
CREATE INDEX seats_game ON seats(game_id);
CREATE TABLE events (
    game_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX events_game ON events(game_id, version);
CREATE TABLE chat (
    game_id TEXT NOT NULL,
    at REAL NOT NULL,
    sender TEXT NOT NULL,
    name TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX chat_game ON chat(game_id, at);
"""


#: The schema's history: ``MIGRATIONS[n]`` takes a database from version ``n`` to ``n + 1``.
MIGRATIONS: tuple[str, ...] = (_SCHEMA_1,)
SCHEMA_VERSION = len(MIGRATIONS)


def _lock_path(path: Path) -> Path:
    # The real file's name: a database reached through a symbolic link is the same one.
    real = path.resolve()
    return real.with_name(real.name + ".lock")


def _read_owner(lock_path: Path) -> dict[str, Any]:
    try:
        text = lock_path.read_text(encoding="utf-8")
        owner = json.loads(text)
    except (OSError, ValueError):
        return {}
    return owner if isinstance(owner, dict) else {}


class _OwnerLock:
    """An exclusive, non-blocking lock on a file, held until :meth:`release`; the file
    holds a JSON line saying who holds it."""

    #: Windows locks byte ranges: lock one byte past the JSON so others can still read it.
    _WINDOWS_OFFSET = 1 << 16

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = open(path, "a+", encoding="utf-8")  # noqa: SIM115 (held open)
        try:
            self._lock()
        except OSError as error:
            self._file.close()
            if sys.platform != "win32" and not isinstance(error, BlockingIOError):
                raise  # not a lock someone holds: the caller reports the OS error
            database = path.with_name(path.name.removesuffix(".lock"))
            raise DatabaseInUse(database, _read_owner(path)) from None
        self.write({"pid": os.getpid()})

    def _lock(self) -> None:
        if sys.platform == "win32":
            import msvcrt

            self._file.seek(self._WINDOWS_OFFSET)
            msvcrt.locking(self._file.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)

    def write(self, owner: dict[str, Any]) -> None:
        self._file.seek(0)
        self._file.truncate()
        self._file.write(json.dumps(owner) + "\n")
        self._file.flush()

    def release(self) -> None:
        if not self._file.closed:
            self._file.close()  # closing the file drops the lock


def database_owner(path: str | Path) -> dict[str, Any] | None:
    """Who holds the game database at ``path`` open (``{"pid": ..., "url": ...}``), or None
    when no running server does."""
    path = Path(path)
    if not _lock_path(path).exists():
        return None
    try:
        probe = _OwnerLock(_lock_path(path))
    except DatabaseInUse as busy:
        return busy.owner
    except OSError:
        return None
    probe.release()
    return None


def default_db_path() -> Path:
    """Where ``chuhan serve`` keeps its games by default: the platform's per-user data
    directory (``$XDG_DATA_HOME/chuhan`` or ``~/.local/share/chuhan`` on Linux,
    ``~/Library/Application Support/chuhan`` on macOS, ``%APPDATA%\\chuhan`` on Windows)."""
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    return base / "chuhan" / "chuhan.sqlite3"


def _dump(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _load(text: str | None) -> Any:
    return None if text is None else json.loads(text)


#: The columns of ``games``, in the order :meth:`SqliteStore.create_game` writes them.
_COLUMNS = (
    "id",
    "kind",
    "variant",
    "rules",
    "start_fen",
    "time_control",
    "level",
    "computer_side",
    "names",
    "created",
    "updated",
    "version",
    "status",
    "setup",
    "setup_deadline",
    "moves",
    "clock",
    "clock_at",
    "offers",
    "ending",
    "result",
    "headers",
    "rematch",
)
#: The columns :meth:`SqliteStore.save_game` rewrites after every action.
_MUTABLE = _COLUMNS[_COLUMNS.index("version") :]


def _values(row: GameRow) -> dict[str, Any]:
    """The row as column values (JSON text for the structured ones)."""
    return {
        "id": row.id,
        "kind": row.kind,
        "variant": row.variant,
        "rules": row.rules,
        "start_fen": row.start_fen,
        "time_control": _dump(row.time_control),
        "level": row.level,
        "computer_side": row.computer_side,
        "names": _dump(row.names),
        "created": row.created,
        "updated": row.updated,
        "version": row.version,
        "status": row.status,
        "setup": _dump(row.setup),
        "setup_deadline": row.setup_deadline,
        "moves": " ".join(row.moves),
        "clock": _dump(row.clock),
        "clock_at": row.clock_at,
        "offers": _dump(row.offers),
        "ending": _dump(row.ending),
        "result": _dump(row.result),
        "headers": _dump(row.headers),
        "rematch": _dump(row.rematch),
    }


def _game_row(found: sqlite3.Row) -> GameRow:
    """A stored row back as a :class:`GameRow` (raises :class:`GameUnreadable`)."""
    try:
        return GameRow(
            id=found["id"],
            kind=found["kind"],
            variant=found["variant"],
            rules=found["rules"],
            start_fen=found["start_fen"],
            time_control=_load(found["time_control"]),
            level=found["level"],
            computer_side=found["computer_side"],
            names=_load(found["names"]),
            created=found["created"],
            updated=found["updated"],
            version=found["version"],
            status=found["status"],
            setup=_load(found["setup"]),
            setup_deadline=found["setup_deadline"],
            moves=found["moves"].split() if found["moves"] else [],
            clock=_load(found["clock"]),
            clock_at=found["clock_at"],
            offers=_load(found["offers"]),
            ending=_load(found["ending"]),
            result=_load(found["result"]),
            headers=_load(found["headers"]),
            rematch=_load(found["rematch"]),
        )
    except (ValueError, TypeError, AttributeError, IndexError, KeyError) as error:
        raise GameUnreadable(str(found["id"]), f"a stored value is malformed ({error})") from None


class SqliteStore:
    """The game database in one SQLite file (see the module's documentation). Opening it
    takes the owner lock and brings the schema up to date; every other method is a
    coroutine that runs on the store's own database thread."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._owner: _OwnerLock | None = None
        try:
            if str(path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._owner = _OwnerLock(_lock_path(self.path))
        except OSError as error:
            raise StoreError(f"cannot open the game database {path}: {error}") from None
        try:
            self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
            self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._migrate()
        except (sqlite3.DatabaseError, StoreError) as error:
            if self._owner is not None:
                self._owner.release()
            if isinstance(error, StoreError):
                raise
            raise StoreError(f"cannot open the game database {path}: {error}") from None
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chuhan-sqlite")

    def _migrate(self) -> None:
        """Apply the migrations this database has not had, each in one transaction."""
        self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        found = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        version = 0 if found is None else int(found["value"])
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"game database {self.path}: schema version {version} is newer than this "
                f"chuhan's ({SCHEMA_VERSION}); upgrade chuhan to open it"
            )
        for number in range(version, SCHEMA_VERSION):
            with _Transaction(self._db):
                for statement in MIGRATIONS[number].split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                self._db.execute(
                    "INSERT INTO meta(key, value) VALUES ('schema', ?) "
                    "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                    (str(number + 1),),
                )

    async def _run(self, work: Callable[[], T]) -> T:
        """Run ``work`` on the database thread; its ``sqlite3`` errors become
        :class:`StoreError` naming the database."""

        def guarded() -> T:
            try:
                return work()
            except sqlite3.Error as error:
                raise StoreError(f"the game database {self.path} failed: {error}") from None

        return await asyncio.get_running_loop().run_in_executor(self._thread, guarded)

    def announce(self, url: str) -> None:
        """Record in the lock file where this server listens (``chuhan play`` opens that
        address instead of starting a second server on the same games)."""
        if self._owner is not None:
            self._owner.write({"pid": os.getpid(), "url": url})

    async def close(self) -> None:
        self._thread.shutdown(wait=True)
        self._db.close()
        if self._owner is not None:
            self._owner.release()

    # ------------------------------------------------------------------ writes

    async def create_game(
        self, row: GameRow, seats: dict[str, str], *, event: str = "create"
    ) -> None:
        values = _values(row)

        def work() -> None:
            with _Transaction(self._db):
                self._db.execute(
                    f"INSERT INTO games ({', '.join(_COLUMNS)}) "
                    f"VALUES ({', '.join(':' + c for c in _COLUMNS)})",
                    values,
                )
                self._db.executemany(
                    "INSERT INTO seats(token, game_id, seat) VALUES (?, ?, ?)",
                    [(token, row.id, seat) for token, seat in seats.items()],
                )
                self._event(row, event, {})

        await self._run(work)

    async def save_game(self, row: GameRow, event: str, data: dict[str, Any]) -> None:
        values = _values(row)
        assignments = ", ".join(f"{c}=:{c}" for c in ("names", "updated", *_MUTABLE))

        def work() -> None:
            with _Transaction(self._db):
                self._db.execute(f"UPDATE games SET {assignments} WHERE id=:id", values)
                self._event(row, event, data)

        await self._run(work)

    async def add_chat(self, game_id: str, line: ChatLine) -> None:
        def work() -> None:
            with _Transaction(self._db):
                self._db.execute(
                    "INSERT INTO chat(game_id, at, sender, name, text) VALUES (?, ?, ?, ?, ?)",
                    (game_id, *line),
                )

        await self._run(work)

    def _event(self, row: GameRow, kind: str, data: dict[str, Any]) -> None:
        self._db.execute(
            "INSERT INTO events(game_id, version, at, kind, data) VALUES (?, ?, ?, ?, ?)",
            (row.id, row.version, row.updated, kind, json.dumps(data, ensure_ascii=False)),
        )

    # ------------------------------------------------------------------ reads

    async def load_game(self, game_id: str) -> GameRow | None:
        def work() -> GameRow | None:
            try:
                found = self._db.execute("SELECT * FROM games WHERE id=?", (game_id,)).fetchone()
            except sqlite3.DatabaseError as error:
                raise GameUnreadable(game_id, str(error)) from None
            return None if found is None else _game_row(found)

        return await self._run(work)

    async def seat(self, token: str) -> tuple[str, str] | None:
        def work() -> tuple[str, str] | None:
            found = self._db.execute(
                "SELECT game_id, seat FROM seats WHERE token=?", (token,)
            ).fetchone()
            return None if found is None else (str(found["game_id"]), str(found["seat"]))

        return await self._run(work)

    async def seats_of(self, game_id: str) -> dict[str, str]:
        def work() -> dict[str, str]:
            return {
                str(r["seat"]): str(r["token"])
                for r in self._db.execute(
                    "SELECT token, seat FROM seats WHERE game_id=?", (game_id,)
                )
            }

        return await self._run(work)

    async def games_for_tokens(self, tokens: list[str]) -> list[tuple[str, str, GameRow]]:
        if not tokens:
            return []
        marks = ", ".join("?" * len(tokens))

        def work() -> list[tuple[str, str, GameRow]]:
            found = self._db.execute(
                f"SELECT s.token AS seat_token, s.seat AS seat_name, g.* FROM seats s "
                f"JOIN games g ON g.id = s.game_id WHERE s.token IN ({marks}) "
                "ORDER BY g.updated DESC",
                tokens,
            ).fetchall()
            return [(str(r["seat_token"]), str(r["seat_name"]), _game_row(r)) for r in found]

        return await self._run(work)

    async def unfinished_game_ids(self) -> list[str]:
        def work() -> list[str]:
            query = "SELECT id FROM games WHERE status != 'over'"
            return [str(r["id"]) for r in self._db.execute(query)]

        return await self._run(work)

    async def chat_history(self, game_id: str, limit: int = 50) -> list[ChatLine]:
        def work() -> list[ChatLine]:
            found = self._db.execute(
                "SELECT at, sender, name, text FROM chat WHERE game_id=? "
                "ORDER BY at DESC, rowid DESC LIMIT ?",
                (game_id, limit),
            ).fetchall()
            return [
                ChatLine(float(r["at"]), str(r["sender"]), str(r["name"]), str(r["text"]))
                for r in reversed(found)
            ]

        return await self._run(work)

    async def last_event(self, game_id: str) -> dict[str, Any] | None:
        quiet = ", ".join("?" * len(QUIET_EVENTS))

        def work() -> dict[str, Any] | None:
            found = self._db.execute(
                f"SELECT kind, data FROM events WHERE game_id=? AND kind NOT IN ({quiet}) "
                "ORDER BY rowid DESC LIMIT 1",
                (game_id, *QUIET_EVENTS),
            ).fetchone()
            return None if found is None else {"kind": found["kind"], **json.loads(found["data"])}

        return await self._run(work)

    async def events(self, game_id: str) -> list[tuple[int, str, dict[str, Any]]]:
        def work() -> list[tuple[int, str, dict[str, Any]]]:
            return [
                (int(r["version"]), str(r["kind"]), json.loads(r["data"]))
                for r in self._db.execute(
                    "SELECT version, kind, data FROM events WHERE game_id=? ORDER BY rowid",
                    (game_id,),
                )
            ]

        return await self._run(work)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        if kind is None:
            self._db.execute("COMMIT")
        else:
            self._db.execute("ROLLBACK")
