"""The SQLite store's schema and its numbered migrations.

:data:`MIGRATIONS` lists the steps from an empty file to the current version:
``MIGRATIONS[n]`` takes a database from version ``n`` to ``n + 1``. Each step is applied
once, in its own transaction together with the new version number in ``meta``, so a step
that fails leaves the database as it was. A release that changes the schema appends a
step; it never edits one that has shipped.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from chuhan.web.db import StoreError
from chuhan.web.db.migrations import ACCOUNTS_SCHEMA, SEEKS_SCHEMA

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "migrate", "schema_version"]

log = logging.getLogger("chuhan.web.db")

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


# Version 2: games record their revision (how many events their log holds) and events
# their number in it, which every write names (several processes share a PostgreSQL store
# this way; the SQLite store keeps the same contract).
_SCHEMA_2 = """
ALTER TABLE games ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
ALTER TABLE events ADD COLUMN number INTEGER;
UPDATE events SET number = numbered.n FROM (
    SELECT rowid AS id, row_number() OVER (PARTITION BY game_id ORDER BY rowid) AS n
    FROM events
) AS numbered WHERE events.rowid = numbered.id;
UPDATE games SET revision = (SELECT count(*) FROM events WHERE events.game_id = games.id);
CREATE UNIQUE INDEX events_number ON events(game_id, number);
"""

# Version 3: accounts, sessions, sign-in attempts and ratings (store/accounts.py).
_SCHEMA_3 = ACCOUNTS_SCHEMA

# Version 4: the lobby's open seeks and who is in the lobby (store/seeks.py).
_SCHEMA_4 = SEEKS_SCHEMA

#: The schema's history: ``MIGRATIONS[n]`` takes a database from version ``n`` to ``n + 1``.
MIGRATIONS: tuple[str, ...] = (_SCHEMA_1, _SCHEMA_2, _SCHEMA_3, _SCHEMA_4)
SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(db: sqlite3.Connection, path: Path) -> int:
    """The schema version recorded in the database (0 for an empty one); raises
    :class:`StoreError` for a SQLite file that is not a chuhan game database."""
    tables = {str(name) for (name,) in db.execute("SELECT name FROM sqlite_master")}
    if "meta" not in tables:
        foreign = sorted(t for t in tables if not t.startswith("sqlite_"))
        if foreign:
            shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
            raise StoreError(
                f"{path} is a SQLite database but not a chuhan game database "
                f"(it has the tables {shown}); choose another --db"
            )
        return 0
    found = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    if found is None:
        return 0
    text = str(found[0])
    if not text.isdigit():
        raise StoreError(
            f"the game database {path} records a schema version chuhan cannot read ({text[:20]!r})"
        )
    return int(text)


def migrate(db: sqlite3.Connection, path: Path, steps: Sequence[str] | None = None) -> int:
    """Apply the ``steps`` (default :data:`MIGRATIONS`) this database has not had, each in
    one transaction; return the version it had before. Raises :class:`StoreError` for a
    database written by a newer chuhan (whose schema this one does not know) and for a
    step that fails."""
    steps = MIGRATIONS if steps is None else steps
    version = schema_version(db, path)  # (the first step makes the table meta)
    if version > len(steps):
        raise StoreError(
            f"the game database {path} has schema version {version}, newer than this "
            f"chuhan's ({len(steps)}): it was written by a newer chuhan; upgrade chuhan to "
            "open it"
        )
    for number in range(version, len(steps)):
        try:
            db.execute("BEGIN IMMEDIATE")
            for statement in steps[number].split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(
                "INSERT INTO meta(key, value) VALUES ('schema', ?) "
                "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (str(number + 1),),
            )
            db.execute("COMMIT")
        except sqlite3.Error as error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise StoreError(
                f"cannot bring the game database {path} from schema version {number} to "
                f"{number + 1}: {error}; it is left at version {number}"
            ) from None
    if version and version < len(steps):
        log.info(
            "the game database %s was brought from schema version %d to %d",
            path,
            version,
            len(steps),
        )
    return version
