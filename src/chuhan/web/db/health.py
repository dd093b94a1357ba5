"""The state a SQLite game database is found in, said in sentences; reading around damage.

- :func:`damaged_tables`: SQLite's quick check, table by table, at every start;
- the *open marker*: a row in ``meta`` that a server writes when it opens the database and
  deletes at a clean close, after its last checkpoint. A start that finds it set with no
  write-ahead log next to the file knows the file was copied (or restored) without its
  log while a server had it open: what was committed since the last checkpoint may be
  missing. After an ordinary crash the log is still there and nothing is said;
- :func:`readable_rows`: every row of a table that can still be read, skipping damaged
  pages, so one bad page does not hide the whole table.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from chuhan.web.db.files import WalFile

__all__ = [
    "UNUSED_PAGES",
    "clear_marker",
    "damage_sentence",
    "damaged_tables",
    "is_damage",
    "missing_wal_sentence",
    "read_marker",
    "readable_rows",
    "rows_readable",
    "set_marker",
    "wal_problem_sentence",
]

_MARKER = "open"
#: What :func:`damaged_tables` calls damage that no table owns.
UNUSED_PAGES = "(unused pages)"
_SMALLEST_ROWID = -(2**63)
_LARGEST_ROWID = 2**63 - 1


def is_damage(error: sqlite3.Error) -> bool:
    """Whether SQLite failed because what it read is not a well-formed database (a damaged
    page, or not a database at all), as opposed to a busy, full or failing disk."""
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def damaged_tables(db: sqlite3.Connection) -> list[str] | None:
    """The tables in which SQLite's quick check finds damage (in the table or one of its
    indexes), in the order of the schema; None when all is well. A damaged page that no
    table uses is reported as :data:`UNUSED_PAGES`."""
    try:
        if [r[0] for r in db.execute("PRAGMA quick_check")] == ["ok"]:
            return None
    except sqlite3.DatabaseError as error:
        if not is_damage(error):
            raise
    damaged = []
    for (name,) in db.execute(
        "SELECT name FROM sqlite_master WHERE type='table' ORDER BY rootpage"
    ).fetchall():
        try:
            healthy = [r[0] for r in db.execute(f"PRAGMA quick_check({_quoted(name)})")] == ["ok"]
        except sqlite3.DatabaseError as error:
            if not is_damage(error):
                raise
            healthy = False
        if not healthy:
            damaged.append(str(name))
    return damaged or [UNUSED_PAGES]


def rows_readable(db: sqlite3.Connection, table: str) -> bool:
    """Whether every row of ``table`` can be read without its indexes (if the quick
    check found damage there, it is then in the indexes only)."""
    try:
        for _ in db.execute(f"SELECT * FROM {_quoted(table)} NOT INDEXED"):
            pass
    except sqlite3.DatabaseError as error:
        if not is_damage(error):
            raise
        return False
    return True


def damage_sentence(path: Path, tables: list[str], indexes_only: set[str]) -> str:
    """What damage the quick check found in ``tables``, and what it means for the games;
    ``indexes_only``: the tables whose rows can all be read."""
    if tables == [UNUSED_PAGES]:
        return (
            f"the game database {path} has damaged pages that no table uses (SQLite's quick "
            "check); every game can be read"
        )
    rows = [t for t in tables if t not in indexes_only]
    indexes = [t for t in tables if t in indexes_only]
    parts = []
    if rows:
        parts.append(
            f"rows of {', '.join(rows)} cannot all be read: a game whose rows cannot be read "
            "is left out and reported when someone opens it, every other game is served"
        )
    if indexes:
        parts.append(
            f"the indexes of {', '.join(indexes)} are damaged but every row can be read: "
            "those rows are read without the indexes (more slowly), and nothing is lost"
        )
    return (
        f"the game database {path} is damaged (SQLite's quick check): {'; '.join(parts)}. "
        "Keep a copy of the file as it is now (chuhan backup DEST)"
    )


# ---------------------------------------------------------------------- the open marker


def read_marker(db: sqlite3.Connection) -> dict[str, Any] | None:
    """The open marker (``{"pid": ..., "since": ...}``), or None if the database was last
    closed cleanly (or never opened by a chuhan that sets it)."""
    found = db.execute("SELECT value FROM meta WHERE key=?", (_MARKER,)).fetchone()
    if found is None:
        return None
    try:
        marker = json.loads(found[0])
    except (TypeError, ValueError):
        return {}
    return marker if isinstance(marker, dict) else {}


def set_marker(db: sqlite3.Connection, pid: int) -> None:
    db.execute(
        "INSERT INTO meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
        (_MARKER, json.dumps({"pid": pid, "since": time.time()})),
    )


def clear_marker(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM meta WHERE key=?", (_MARKER,))


def _when(marker: dict[str, Any]) -> str:
    since = marker.get("since")
    if not isinstance(since, (int, float)):
        return ""
    return time.strftime(" (opened %Y-%m-%d %H:%M:%S)", time.localtime(since))


def missing_wal_sentence(path: Path, wal: WalFile, marker: dict[str, Any]) -> str:
    return (
        f"the game database {path} was copied or restored without its write-ahead log "
        f"({wal.path.name}) while a chuhan server had it open{_when(marker)}: moves and "
        "games saved in the last seconds before the copy may be missing. To copy a game "
        "database, even while it is served, use chuhan backup DEST"
    )


def wal_problem_sentence(path: Path, wal: WalFile) -> str:
    kept = "" if wal.kept_as is None else f"; a copy of the log as found is kept as {wal.kept_as}"
    return (
        f"the write-ahead log of the game database {path} ({wal.path.name}) is damaged: "
        f"{wal.problem}. Moves and games saved in the last seconds before the server "
        f"stopped may be missing{kept}"
    )


# ---------------------------------------------------------------------- reading around damage


def _first_rowid_from(db: sqlite3.Connection, table: str, start: int) -> int | None:
    """The first rowid at or after ``start`` (None past the end); raises
    :class:`sqlite3.DatabaseError` if the page it lies on cannot be read."""
    found = db.execute(
        f"SELECT rowid FROM {table} WHERE rowid >= ? ORDER BY rowid LIMIT 1", (start,)
    ).fetchone()
    return None if found is None else int(found[0])


def _next_readable(db: sqlite3.Connection, table: str, start: int) -> int | None:
    """The first rowid at or after ``start`` whose page can be read: probe further and
    further ahead until a probe lands on a readable page, then search back for the first
    one. None when nothing readable follows."""
    try:
        return _first_rowid_from(db, table, start)
    except sqlite3.DatabaseError as error:
        if not is_damage(error):
            raise
    failed, step = start, 1
    while True:
        probe = start + step
        if probe > _LARGEST_ROWID:
            return None
        try:
            found = _first_rowid_from(db, table, probe)
            break
        except sqlite3.DatabaseError as error:
            if not is_damage(error):
                raise
            failed, step = probe, step * 2
    readable = probe
    while readable - failed > 1:
        middle = (failed + readable) // 2
        try:
            found, readable = _first_rowid_from(db, table, middle), middle
        except sqlite3.DatabaseError as error:
            if not is_damage(error):
                raise
            failed = middle
    return found


def readable_rows(
    db: sqlite3.Connection, table: str, columns: str
) -> tuple[list[sqlite3.Row], int | None]:
    """``columns`` of every row of ``table`` that can be read, in rowid order, and how many
    rows were skipped because their page is damaged (counted by the rowids skipped; None
    if a damaged stretch runs to the end, so nobody knows how many)."""
    query = f"SELECT rowid AS row_id, {columns} FROM {table} NOT INDEXED WHERE rowid"
    rows: list[sqlite3.Row] = []
    skipped: int | None = 0
    start = _SMALLEST_ROWID
    while True:
        try:
            for row in db.execute(f"{query} >= ? ORDER BY rowid", (start,)):
                rows.append(row)
                start = row["row_id"] + 1
            return rows, skipped
        except sqlite3.DatabaseError as error:
            if not is_damage(error):
                raise
        # The scan stopped on a damaged page, perhaps one row early (it reads a row ahead
        # of the one it returns): take the next readable row on its own, go on after it.
        found = _next_readable(db, table, start)
        if found is None:
            return rows, None
        if skipped is not None:  # chuhan's tables number their rows from 1, none deleted
            skipped += found - max(start, 1)
        try:
            rows.extend(db.execute(f"{query} = ?", (found,)).fetchall())
        except sqlite3.DatabaseError as error:
            if not is_damage(error):
                raise
            if skipped is not None:
                skipped += 1
        if found == _LARGEST_ROWID:
            return rows, skipped
        start = found + 1
