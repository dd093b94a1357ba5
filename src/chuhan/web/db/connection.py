"""A SQLite connection to a game database: opening it (what a start checks and says) and
closing it cleanly; checkpoints.

Opening checks the file before anything is served: SQLite's quick check (damage is said in
a sentence, and a table whose indexes alone are damaged is read without them), the schema
(migrated, or refused if it is newer or not chuhan's), the write-ahead log (damaged, or
missing when the open marker says it was needed). Only a file that cannot be used at all
is refused, with a :class:`StoreError` that says why.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from pathlib import Path

from chuhan.web.db import StoreError
from chuhan.web.db.files import WalFile, inspect_wal
from chuhan.web.db.health import (
    UNUSED_PAGES,
    clear_marker,
    damage_sentence,
    damaged_tables,
    is_damage,
    missing_wal_sentence,
    read_marker,
    rows_readable,
    set_marker,
    wal_problem_sentence,
)
from chuhan.web.db.migrations import migrate_sqlite

__all__ = ["BUSY_MS", "checkpoint", "close_cleanly", "open_database"]

log = logging.getLogger("chuhan.web.db")

#: How long a statement waits for a lock another connection (a backup) holds.
BUSY_MS = 5000


def open_database(path: Path) -> tuple[sqlite3.Connection, set[str]]:
    """Connect to the game database at ``path`` (``:memory:`` for one in memory), check
    it, bring its schema up to date, say what was found and mark it open. Returns the
    connection and the tables to read without their indexes (damaged ones)."""
    in_memory = str(path) == ":memory:"
    wal = None if in_memory else inspect_wal(path)  # before SQLite reads it
    what = "it cannot be opened"
    try:
        db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    except sqlite3.Error as error:
        raise StoreError(f"cannot open the game database {path}: {error}") from None
    try:
        db.row_factory = sqlite3.Row
        db.execute(f"PRAGMA busy_timeout={BUSY_MS}")
        what = "SQLite cannot read its list of tables"
        db.execute("SELECT name FROM sqlite_master").fetchall()
        what = "it cannot be opened"
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        what = "SQLite's quick check cannot run"
        damaged = damaged_tables(db)
        unindexed = {t for t in damaged or () if t != UNUSED_PAGES and rows_readable(db, t)}
        what = "its schema version cannot be read or brought up to date"
        migrate_sqlite(db, path)
        if not in_memory:
            _report(db, path, wal, damaged, unindexed)
            what = "it cannot be written"
            set_marker(db, os.getpid())
            checkpoint(db, wait=False)
    except (sqlite3.Error, StoreError) as error:
        db.close()
        if isinstance(error, StoreError):
            raise
        not_a_database = "it is not a SQLite database"
        damage = isinstance(error, sqlite3.DatabaseError) and is_damage(error)
        if damage and error.sqlite_errorcode == sqlite3.SQLITE_NOTADB:
            what = not_a_database
        advice = "; restore it from a copy" if damage and what != not_a_database else ""
        raise StoreError(
            f"cannot open the game database {path}: {what} ({error}){advice}"
        ) from None
    return db, unindexed


def _report(
    db: sqlite3.Connection,
    path: Path,
    wal: WalFile | None,
    damaged: list[str] | None,
    unindexed: set[str],
) -> None:
    """Log what was found on opening: damage, a log that is damaged or missing."""
    if damaged:
        log.error("%s", damage_sentence(path, damaged, unindexed))
    if wal is not None and wal.problem is not None:
        log.warning("%s", wal_problem_sentence(path, wal))
    try:
        marker = read_marker(db)
    except sqlite3.DatabaseError as error:
        if not is_damage(error):
            raise
        marker = None
    if marker is not None and wal is not None and not wal.exists:
        log.warning("%s", missing_wal_sentence(path, wal, marker))


def checkpoint(db: sqlite3.Connection, *, wait: bool) -> bool:
    """Copy the write-ahead log into the main file and empty it; whether all of it went.
    The log is emptied, not just copied: a log that still held frames already copied
    would, cut short, mix old pages with the main file's newer ones. Without ``wait`` a
    reader in the way (a backup) makes it copy what it can at once, and return."""
    if not wait:
        db.execute("PRAGMA busy_timeout=0")
    try:
        busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    finally:
        if not wait:
            db.execute(f"PRAGMA busy_timeout={BUSY_MS}")
    return int(busy) == 0


def close_cleanly(db: sqlite3.Connection, path: Path) -> None:
    """The clean close: the open marker goes, then the whole log into the main file (so a
    main file that still has the marker is one that may lack the log's end)."""
    try:
        if str(path) != ":memory:":
            clear_marker(db)
            if not checkpoint(db, wait=True):
                log.warning(
                    "the game database %s: another program was reading it at close, so its "
                    "write-ahead log %s-wal could not all be copied into it; keep that file "
                    "with it",
                    path,
                    path.name,
                )
    except sqlite3.Error as error:
        log.warning("the game database %s was not closed cleanly: %s", path, error)
    finally:
        db.close()
