"""SQLite storage for the web server: one row per game (its moves, clock snapshot, offers
and ending, enough to rebuild the :class:`~chuhan.game.Game` by replaying), one row per seat
token, an append-only event log and the chat.

The database runs in WAL mode with ``synchronous=NORMAL``: a committed transaction survives
the server process being killed (it is in the WAL file; only a power loss can take the
last few). Every write is one transaction, committed before the server acknowledges the
action it records.

One server owns a database at a time: :class:`Storage` holds an exclusive lock on
``<database>.lock`` (``flock`` on POSIX, ``msvcrt.locking`` on Windows) for as long as it
is open, and a second server on the same file is refused with :class:`DatabaseInUse`
naming the first. Each room is the one writer of its game only if no other process writes
the same rows. The operating system drops the lock when its process dies, even by SIGKILL,
so a crash never leaves the database locked.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chuhan.errors import ChuhanError

__all__ = [
    "DatabaseInUse",
    "GameRow",
    "Storage",
    "StorageError",
    "database_owner",
    "default_db_path",
]

SCHEMA_VERSION = 1
#: Events logged without changing the game's state version.
QUIET_EVENTS = ("create", "import", "name", "setup_timer")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
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
CREATE TABLE IF NOT EXISTS seats (
    token TEXT PRIMARY KEY,
    game_id TEXT NOT NULL REFERENCES games(id),
    seat TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS seats_game ON seats(game_id);
CREATE TABLE IF NOT EXISTS events (
    game_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_game ON events(game_id, version);
CREATE TABLE IF NOT EXISTS chat (
    game_id TEXT NOT NULL,
    at REAL NOT NULL,
    sender TEXT NOT NULL,
    name TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chat_game ON chat(game_id, at);
"""


class StorageError(ChuhanError):
    """The game database cannot be opened or is not a chuhan database."""


class DatabaseInUse(StorageError):
    """Another chuhan server has the game database open. ``owner`` is what it wrote in
    the lock file: its ``pid`` and, once it listens, its ``url``."""

    def __init__(self, path: Path, owner: dict[str, Any]) -> None:
        self.path = path
        self.owner = owner
        who = f"process {owner.get('pid', '?')}"
        if owner.get("url"):
            who += f", serving {owner['url']}"
        super().__init__(
            f"the game database {path} is in use by another chuhan server ({who}); "
            "stop that server or choose another --db"
        )


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


@dataclass
class GameRow:
    """One game as stored. The mutable part (from ``version`` on) is rewritten by
    :meth:`Storage.save` after every accepted action."""

    id: str
    kind: str
    variant: str
    rules: str
    start_fen: str | None
    time_control: dict[str, Any] | None
    level: int | None
    computer_side: str | None
    names: dict[str, str]
    created: float
    updated: float
    version: int = 1
    status: str = "playing"
    setup: dict[str, str] = field(default_factory=dict)
    setup_deadline: float | None = None
    moves: list[str] = field(default_factory=list)
    clock: dict[str, Any] | None = None
    clock_at: float | None = None
    offers: dict[str, str | None] = field(default_factory=dict)
    ending: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    rematch: dict[str, Any] | None = None


def _dump(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _load(text: str | None) -> Any:
    return None if text is None else json.loads(text)


_COLUMNS = (
    "id, kind, variant, rules, start_fen, time_control, level, computer_side, names, created, "
    "updated, version, status, setup, setup_deadline, moves, clock, clock_at, offers, ending, "
    "result, headers, rematch"
)


class Storage:
    """The game database. Not thread-safe: the server uses it from its event loop only."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._owner: _OwnerLock | None = None
        try:
            if str(path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._owner = _OwnerLock(_lock_path(self.path))
        except OSError as error:
            raise StorageError(f"cannot open the game database {path}: {error}") from None
        try:
            self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.executescript(_SCHEMA)
            row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                self._db.execute(
                    "INSERT INTO meta(key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),)
                )
            elif row[0] != str(SCHEMA_VERSION):
                raise StorageError(
                    f"game database {path}: schema version {row[0]}, this chuhan reads "
                    f"version {SCHEMA_VERSION}"
                )
        except (sqlite3.DatabaseError, StorageError) as error:
            if self._owner is not None:
                self._owner.release()
            if isinstance(error, StorageError):
                raise
            raise StorageError(f"cannot open the game database {path}: {error}") from None

    def announce(self, url: str) -> None:
        """Record in the lock file where this server listens (``chuhan play`` opens that
        address instead of starting a second server on the same games)."""
        if self._owner is not None:
            self._owner.write({"pid": os.getpid(), "url": url})

    def close(self) -> None:
        self._db.close()
        if self._owner is not None:
            self._owner.release()

    # ------------------------------------------------------------------ writes

    def create(self, row: GameRow, seats: dict[str, str], *, event: str = "create") -> None:
        """Insert a new game and its seat tokens (``{token: seat}``) in one transaction."""
        with self._transaction():
            self._db.execute(
                f"INSERT INTO games ({_COLUMNS}) VALUES ({', '.join('?' * 23)})",
                (
                    row.id,
                    row.kind,
                    row.variant,
                    row.rules,
                    row.start_fen,
                    _dump(row.time_control),
                    row.level,
                    row.computer_side,
                    _dump(row.names),
                    row.created,
                    row.updated,
                    *self._mutable(row),
                ),
            )
            self._db.executemany(
                "INSERT INTO seats(token, game_id, seat) VALUES (?, ?, ?)",
                [(token, row.id, seat) for token, seat in seats.items()],
            )
            self._event(row, event, {})

    def save(self, row: GameRow, event: str, data: dict[str, Any]) -> None:
        """Write the game's mutable state and log ``event`` in one transaction."""
        with self._transaction():
            self._db.execute(
                "UPDATE games SET names=?, updated=?, version=?, status=?, setup=?, "
                "setup_deadline=?, moves=?, clock=?, clock_at=?, offers=?, ending=?, result=?, "
                "headers=?, rematch=? WHERE id=?",
                (_dump(row.names), row.updated, *self._mutable(row), row.id),
            )
            self._event(row, event, data)

    def add_chat(self, game_id: str, at: float, sender: str, name: str, text: str) -> None:
        with self._transaction():
            self._db.execute(
                "INSERT INTO chat(game_id, at, sender, name, text) VALUES (?, ?, ?, ?, ?)",
                (game_id, at, sender, name, text),
            )

    @staticmethod
    def _mutable(row: GameRow) -> tuple[Any, ...]:
        return (
            row.version,
            row.status,
            _dump(row.setup),
            row.setup_deadline,
            " ".join(row.moves),
            _dump(row.clock),
            row.clock_at,
            _dump(row.offers),
            _dump(row.ending),
            _dump(row.result),
            _dump(row.headers),
            _dump(row.rematch),
        )

    def _event(self, row: GameRow, kind: str, data: dict[str, Any]) -> None:
        self._db.execute(
            "INSERT INTO events(game_id, version, at, kind, data) VALUES (?, ?, ?, ?, ?)",
            (row.id, row.version, row.updated, kind, json.dumps(data, ensure_ascii=False)),
        )

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)

    # ------------------------------------------------------------------ reads

    def load(self, game_id: str) -> GameRow | None:
        found = self._db.execute(f"SELECT {_COLUMNS} FROM games WHERE id=?", (game_id,)).fetchone()
        return None if found is None else self._row(found)

    def seat(self, token: str) -> tuple[str, str] | None:
        """The ``(game_id, seat)`` a token opens, or None."""
        found = self._db.execute(
            "SELECT game_id, seat FROM seats WHERE token=?", (token,)
        ).fetchone()
        return None if found is None else (str(found[0]), str(found[1]))

    def seats_of(self, game_id: str) -> dict[str, str]:
        """``{seat: token}`` of one game."""
        return {
            str(seat): str(token)
            for token, seat in self._db.execute(
                "SELECT token, seat FROM seats WHERE game_id=?", (game_id,)
            )
        }

    def games_for_tokens(self, tokens: list[str]) -> list[tuple[str, str, GameRow]]:
        """``(token, seat, game)`` for every known token, most recently updated first."""
        if not tokens:
            return []
        marks = ", ".join("?" * len(tokens))
        found = self._db.execute(
            f"SELECT s.token, s.seat, {', '.join('g.' + c.strip() for c in _COLUMNS.split(','))} "
            f"FROM seats s JOIN games g ON g.id = s.game_id WHERE s.token IN ({marks}) "
            "ORDER BY g.updated DESC",
            tokens,
        ).fetchall()
        return [(str(r[0]), str(r[1]), self._row(r[2:])) for r in found]

    def unfinished_game_ids(self) -> list[str]:
        return [str(r[0]) for r in self._db.execute("SELECT id FROM games WHERE status != 'over'")]

    def chat_history(self, game_id: str, limit: int = 50) -> list[tuple[float, str, str, str]]:
        found = self._db.execute(
            "SELECT at, sender, name, text FROM chat WHERE game_id=? ORDER BY at DESC, rowid DESC "
            "LIMIT ?",
            (game_id, limit),
        ).fetchall()
        return [(float(a), str(s), str(n), str(t)) for a, s, n, t in reversed(found)]

    def last_event(self, game_id: str) -> dict[str, Any] | None:
        """The last event that changed the game (what ``state.last_event`` shows)."""
        found = self._db.execute(
            "SELECT kind, data FROM events WHERE game_id=? AND kind NOT IN "
            f"({', '.join(repr(k) for k in QUIET_EVENTS)}) ORDER BY rowid DESC LIMIT 1",
            (game_id,),
        ).fetchone()
        return None if found is None else {"kind": found[0], **json.loads(found[1])}

    def events(self, game_id: str) -> list[tuple[int, str, dict[str, Any]]]:
        return [
            (int(v), str(k), json.loads(d))
            for v, k, d in self._db.execute(
                "SELECT version, kind, data FROM events WHERE game_id=? ORDER BY rowid", (game_id,)
            )
        ]

    @staticmethod
    def _row(r: Any) -> GameRow:
        return GameRow(
            id=r[0],
            kind=r[1],
            variant=r[2],
            rules=r[3],
            start_fen=r[4],
            time_control=_load(r[5]),
            level=r[6],
            computer_side=r[7],
            names=_load(r[8]),
            created=r[9],
            updated=r[10],
            version=r[11],
            status=r[12],
            setup=_load(r[13]),
            setup_deadline=r[14],
            moves=r[15].split() if r[15] else [],
            clock=_load(r[16]),
            clock_at=r[17],
            offers=_load(r[18]),
            ending=_load(r[19]),
            result=_load(r[20]),
            headers=_load(r[21]),
            rematch=_load(r[22]),
        )


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
