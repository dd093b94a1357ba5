"""The PostgreSQL store's schema and its numbered migrations.

:data:`MIGRATIONS` lists the steps from an empty database to the current version:
``MIGRATIONS[n]`` takes a database from version ``n`` to ``n + 1``. Each step is applied
once, in its own transaction together with the new version number in ``meta``, so a step
that fails leaves the database as it was. Every such transaction first takes a
transaction-level advisory lock, so of several server processes starting at the same moment
one migrates and the others, waiting on the lock, then find the work done. A release that
changes the schema appends a step; it never edits one that has shipped.

The games' structured values are JSON text, as in the SQLite store, so both stores share
:mod:`chuhan.web.db.rows`. Times are ``double precision`` seconds of the servers' wall
clocks (Python's ``time.time()``), except the servers' heartbeats, which are the
database's own clock (``clock_timestamp()``) so that the machines' clocks may disagree.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import asyncpg  # type: ignore[import-untyped]

from chuhan.web.db import StoreError
from chuhan.web.db.migrations import ACCOUNTS_SCHEMA, SEEKS_SCHEMA

__all__ = ["MIGRATIONS", "MIGRATION_LOCK", "SCHEMA_VERSION", "migrate", "schema_version"]

log = logging.getLogger("chuhan.web.db")

#: The advisory lock key every migration transaction takes ("chuhan" in ASCII).
MIGRATION_LOCK = 0x63687568616E

_SCHEMA_1 = """
CREATE TABLE IF NOT EXISTS meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE games (
    id text PRIMARY KEY,
    kind text NOT NULL,
    variant text NOT NULL,
    rules text NOT NULL,
    start_fen text,
    time_control text,
    level integer,
    computer_side text,
    names text NOT NULL,
    created double precision NOT NULL,
    updated double precision NOT NULL,
    version integer NOT NULL,
    status text NOT NULL,
    setup text NOT NULL,
    setup_deadline double precision,
    moves text NOT NULL,
    clock text,
    clock_at double precision,
    offers text NOT NULL,
    ending text,
    result text,
    headers text NOT NULL,
    rematch text,
    revision integer NOT NULL DEFAULT 0,
    driver text
);
CREATE INDEX games_driver ON games (driver) WHERE status <> 'over' AND kind <> 'imported';
CREATE TABLE seats (
    token text PRIMARY KEY,
    game_id text NOT NULL REFERENCES games (id),
    seat text NOT NULL
);
CREATE INDEX seats_game ON seats (game_id);
CREATE TABLE events (
    game_id text NOT NULL,
    number integer NOT NULL,
    version integer NOT NULL,
    at double precision NOT NULL,
    kind text NOT NULL,
    data text NOT NULL,
    PRIMARY KEY (game_id, number)
);
CREATE TABLE chat (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id text NOT NULL,
    at double precision NOT NULL,
    sender text NOT NULL,
    name text NOT NULL,
    text text NOT NULL
);
CREATE INDEX chat_game ON chat (game_id, id);
CREATE TABLE servers (
    id text PRIMARY KEY,
    started timestamptz NOT NULL DEFAULT clock_timestamp(),
    heartbeat timestamptz NOT NULL DEFAULT clock_timestamp()
);
"""

# Version 2: accounts, sessions, sign-in attempts and ratings (store/accounts.py).
_SCHEMA_2 = ACCOUNTS_SCHEMA

# Version 3: the lobby's open seeks and who is in the lobby (store/seeks.py).
_SCHEMA_3 = SEEKS_SCHEMA

#: The schema's history: ``MIGRATIONS[n]`` takes a database from version ``n`` to ``n + 1``.
MIGRATIONS: tuple[str, ...] = (_SCHEMA_1, _SCHEMA_2, _SCHEMA_3)
SCHEMA_VERSION = len(MIGRATIONS)


async def schema_version(db: Any, shown: str) -> int:
    """The schema version recorded in the database (0 for an empty one); raises
    :class:`StoreError` for a database that holds other tables but is not a chuhan game
    database. ``db`` is an ``asyncpg`` connection; ``shown`` names the database."""
    if await db.fetchval("SELECT to_regclass('meta') IS NOT NULL"):
        text = await db.fetchval("SELECT value FROM meta WHERE key = 'schema'")
        if text is None:
            return 0
        if not str(text).isdigit():
            raise StoreError(
                f"the game database {shown} records a schema version chuhan cannot read "
                f"({str(text)[:20]!r})"
            )
        return int(text)
    foreign = [
        str(name)
        for (name,) in await db.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename"
        )
    ]
    if foreign:
        shown_tables = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
        raise StoreError(
            f"{shown} is a PostgreSQL database but not a chuhan game database (it has the "
            f"tables {shown_tables}); give chuhan a database of its own"
        )
    return 0


async def migrate(db: Any, shown: str, steps: Sequence[str] | None = None) -> int:
    """Apply the ``steps`` (default :data:`MIGRATIONS`) this database has not had, each in
    one transaction that holds the migration lock; return the version it had before.
    Raises :class:`StoreError` for a database written by a newer chuhan (whose schema this
    one does not know) and for a step that fails."""
    steps = MIGRATIONS if steps is None else steps
    before: int | None = None
    while True:
        async with db.transaction():
            await db.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
            version = await schema_version(db, shown)
            if before is None:
                before = version
            if version > len(steps):
                raise StoreError(
                    f"the game database {shown} has schema version {version}, newer than "
                    f"this chuhan's ({len(steps)}): it was written by a newer chuhan; "
                    "upgrade chuhan to open it"
                )
            if version == len(steps):
                break
            try:
                await db.execute(steps[version])
                await db.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema', $1) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    str(version + 1),
                )
            except asyncpg.PostgresError as error:
                raise StoreError(
                    f"cannot bring the game database {shown} from schema version {version} "
                    f"to {version + 1}: {error}; it is left at version {version}"
                ) from None
    if before and before < len(steps):
        log.info(
            "the game database %s was brought from schema version %d to %d",
            shown,
            before,
            len(steps),
        )
    return before
