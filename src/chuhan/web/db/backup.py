"""``chuhan backup``: a complete, consistent copy of a SQLite game database in one file.

Copying ``chuhan.sqlite3`` with ``cp`` while a server has it open misses what is still in
its write-ahead log, and can catch the file in the middle of a checkpoint. The copy here
goes through SQLite's online backup API instead: it reads one snapshot of the database,
log included, without the owner lock (so it works while a server is serving the same
file, which goes on writing meanwhile), and writes a single file that opens on its own.
The copy is written next to ``dest`` under a temporary name and renamed into place once
complete, so ``dest`` is never half written.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from chuhan.web.db import StoreError
from chuhan.web.db.files import companion_files, database_owner, lock_path
from chuhan.web.db.health import clear_marker, damaged_tables, is_damage

__all__ = ["Backup", "backup_database"]


@dataclass(frozen=True)
class Backup:
    """What :func:`backup_database` copied."""

    source: Path
    dest: Path
    #: The games in the copy (None if its table of games is too damaged to count).
    games: int | None
    bytes: int
    seconds: float
    #: The tables in which the copy (like the database) is damaged, or None.
    damaged: list[str] | None

    def describe(self) -> str:
        """One sentence: what was copied, where to."""
        games = (
            "a database whose games cannot be counted"
            if self.games is None
            else f"{self.games:,} game{'' if self.games == 1 else 's'}"
        )
        said = (
            f"copied {games} ({self.bytes:,} bytes) from {self.source} to {self.dest} "
            f"in {self.seconds:.1f} s"
        )
        if self.damaged:
            said += (
                f"; the database is damaged (in: {', '.join(self.damaged)}) and so is the "
                "copy, which keeps it as it is"
            )
        return said


def _is_one_of(dest: Path, files: tuple[Path, ...]) -> bool:
    """Whether ``dest`` names one of ``files`` (by another path, a link, a hard link)."""
    if dest.resolve() in {path.resolve() for path in files}:
        return True
    with contextlib.suppress(OSError):
        return any(os.path.samefile(dest, path) for path in files if path.exists())
    return False


def _check_destination(source: Path, dest: Path, *, force: bool) -> None:
    if _is_one_of(dest, (source, *companion_files(source), lock_path(source))):
        raise StoreError(
            f"{dest} is the game database {source} itself (or one of its files); "
            "choose another destination"
        )
    if dest.is_dir():
        raise StoreError(f"{dest} is a folder; give the name of the file to write")
    there = [path for path in (dest, *companion_files(dest)) if path.exists()]
    if there and not force:
        raise StoreError(f"{there[0]} exists; add --force to replace it")
    owner = database_owner(dest)
    if owner is not None:
        raise StoreError(
            f"{dest} is a game database that a chuhan server has open (process "
            f"{owner.get('pid', '?')}); stop that server first"
        )


def _open_source(source: Path) -> sqlite3.Connection:
    """The database, to read. While a server has it open (or after a crash) its log is
    there, and it is opened read-only: the copy never writes to it, not even the
    checkpoint SQLite makes when the last connection closes, which would fold a crashed
    server's log in. Without a log, a read-only connection would leave an empty one
    behind, so it is opened as usual (and SQLite removes what it made at close)."""
    if not source.exists():
        raise StoreError(f"there is no game database at {source} (see --db)")
    read_only = "?mode=ro" if companion_files(source)[0].exists() else ""
    uri = "file:" + urllib.parse.quote(str(source.resolve())) + read_only
    try:
        db = sqlite3.connect(uri, uri=True, isolation_level=None)
    except sqlite3.Error as error:
        raise StoreError(f"cannot open the game database {source}: {error}") from None
    try:
        db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    except sqlite3.Error as error:
        db.close()
        if is_damage(error) and error.sqlite_errorcode != sqlite3.SQLITE_NOTADB:
            raise StoreError(
                f"cannot copy the game database {source}: SQLite cannot read its schema ({error})"
            ) from None
        raise StoreError(f"{source} is not a chuhan game database ({error})") from None
    return db


def backup_database(source: str | Path, dest: str | Path, *, force: bool = False) -> Backup:
    """Copy the game database at ``source`` to the new file ``dest`` (an existing ``dest``
    only with ``force``): complete, in one file, while a server may be using ``source``.
    Raises :class:`StoreError` with a sentence when it cannot."""
    started = time.monotonic()
    source, dest = Path(source), Path(dest)
    _check_destination(source, dest, force=force)
    reader = _open_source(source)
    partial = dest.with_name(f".{dest.name}.partial-{os.getpid()}")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        for leftover in (partial, *companion_files(partial)):
            leftover.unlink(missing_ok=True)
        copy = sqlite3.connect(str(partial), isolation_level=None)
        try:
            reader.backup(copy)  # one step: one snapshot, however the server writes
            # The copy is complete: it must not say that a server has it open.
            clear_marker(copy)
            damaged = damaged_tables(copy)
            try:
                games: int | None = int(copy.execute("SELECT count(*) FROM games").fetchone()[0])
            except sqlite3.DatabaseError as error:
                if not is_damage(error):
                    raise
                games = None
        finally:
            copy.close()  # the last connection: SQLite folds its log in and removes it
        with open(partial, "rb+") as written:
            os.fsync(written.fileno())
        for stale in companion_files(dest):  # another database's log must not meet the copy
            stale.unlink(missing_ok=True)
        os.replace(partial, dest)
        if hasattr(os, "O_DIRECTORY"):
            folder = os.open(dest.parent, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
    except (sqlite3.Error, OSError) as error:
        for leftover in (partial, *companion_files(partial)):
            with contextlib.suppress(OSError):
                leftover.unlink()
        raise StoreError(f"cannot copy the game database {source} to {dest}: {error}") from None
    finally:
        reader.close()
    return Backup(
        source=source,
        dest=dest,
        games=games,
        bytes=dest.stat().st_size,
        seconds=time.monotonic() - started,
        damaged=damaged,
    )
