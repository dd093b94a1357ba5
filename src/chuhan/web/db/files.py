"""The files around a SQLite game database: where it lives by default, its owner lock, and
its write-ahead log.

A database ``games.sqlite3`` in WAL mode is up to three files: the main file, the
write-ahead log ``games.sqlite3-wal`` (committed transactions not yet copied into the main
file) and ``games.sqlite3-shm`` (an index of the log that SQLite rebuilds when it is
missing). chuhan adds ``games.sqlite3.lock``, held by the one server that owns the games.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chuhan.web.db import DatabaseInUse

__all__ = [
    "OwnerLock",
    "WalFile",
    "companion_files",
    "database_owner",
    "default_db_path",
    "inspect_wal",
    "lock_path",
    "wal_path",
]


def default_db_path() -> Path:
    """Where ``chuhan serve`` keeps its games by default: the platform's per-user data
    directory, as platformdirs names it (``$XDG_DATA_HOME/chuhan`` or
    ``~/.local/share/chuhan`` on Linux, ``~/Library/Application Support/chuhan`` on macOS,
    ``%APPDATA%\\chuhan`` on Windows: the roaming folder, no author folder)."""
    # Imported here: the other helpers of this module need nothing outside the standard
    # library (platformdirs comes with the web extra).
    from platformdirs import user_data_dir

    return Path(user_data_dir("chuhan", appauthor=False, roaming=True)) / "chuhan.sqlite3"


def lock_path(path: Path) -> Path:
    """The owner lock of the database at ``path``."""
    # The real file's name: a database reached through a symbolic link is the same one.
    real = path.resolve()
    return real.with_name(real.name + ".lock")


def wal_path(path: Path) -> Path:
    """The write-ahead log of the database at ``path`` (SQLite names it after the name it
    was opened by)."""
    return path.with_name(path.name + "-wal")


def companion_files(path: Path) -> tuple[Path, Path]:
    """The log and its index, which belong to the main file they lie next to: a database
    copied in without them must not find another's there."""
    return wal_path(path), path.with_name(path.name + "-shm")


# ---------------------------------------------------------------------- the owner lock


def _read_owner(lock: Path) -> dict[str, Any]:
    try:
        owner = json.loads(lock.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return owner if isinstance(owner, dict) else {}


class OwnerLock:
    """An exclusive, non-blocking lock on a file, held until :meth:`release`; the file
    holds a JSON line saying who holds it. The operating system drops the lock when its
    process dies, even by SIGKILL, so a crash never leaves the database locked."""

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
    lock = lock_path(Path(path))
    if not lock.exists():
        return None
    try:
        probe = OwnerLock(lock)
    except DatabaseInUse as busy:
        return busy.owner
    except OSError:
        return None
    probe.release()
    return None


# ---------------------------------------------------------------------- the write-ahead log

_WAL_MAGIC = (0x377F0682, 0x377F0683)
_WAL_HEADER = 32
_FRAME_HEADER = 24


def _checksum(data: bytes, *, big_endian: bool) -> tuple[int, int]:
    """SQLite's WAL checksum of ``data`` (a multiple of 8 bytes)."""
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    first = second = 0
    for index in range(0, len(words), 2):
        first = (first + words[index] + second) & 0xFFFFFFFF
        second = (second + words[index + 1] + first) & 0xFFFFFFFF
    return first, second


@dataclass(frozen=True)
class WalFile:
    """What a database's write-ahead log looked like before SQLite opened it."""

    path: Path
    exists: bool
    size: int = 0
    #: What is wrong with it, as the end of a sentence ("it is cut short ..."), or None.
    problem: str | None = None
    #: Where a copy of a damaged log was kept, for whoever wants to recover it by hand.
    kept_as: Path | None = None


def inspect_wal(database: Path) -> WalFile:
    """Look at the database's write-ahead log before SQLite opens it (SQLite silently
    ignores a log whose header is damaged, and the frames after a cut, and overwrites them
    at its next write): say what is wrong with it, and keep a copy of a damaged one."""
    path = wal_path(database)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return WalFile(path, exists=False)
    except OSError as error:
        return WalFile(path, exists=True, problem=f"it cannot be read ({error.strerror})")
    if size == 0:
        return WalFile(path, exists=True)
    try:
        with open(path, "rb") as log:
            header = log.read(_WAL_HEADER)
    except OSError as error:
        return WalFile(path, exists=True, size=size, problem=f"it cannot be read ({error})")
    problem = None
    if len(header) < _WAL_HEADER:
        problem = f"it is cut short ({size} bytes, less than its {_WAL_HEADER}-byte header)"
    else:
        magic, _, page_size, _, _, _, *stored = struct.unpack(">8I", header)
        sound = (
            magic in _WAL_MAGIC
            and 512 <= page_size <= 65536
            and page_size & (page_size - 1) == 0
            and _checksum(header[:24], big_endian=bool(magic & 1)) == tuple(stored)
        )
        if not sound:
            problem = "its header is damaged, so SQLite ignores all of it"
        elif (size - _WAL_HEADER) % (page_size + _FRAME_HEADER):
            whole = (size - _WAL_HEADER) // (page_size + _FRAME_HEADER)
            problem = f"it is cut short (it ends inside its frame {whole + 1})"
    if problem is None:
        return WalFile(path, exists=True, size=size)
    kept = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    try:
        shutil.copyfile(path, kept)
    except OSError:
        return WalFile(path, exists=True, size=size, problem=problem)
    return WalFile(path, exists=True, size=size, problem=problem, kept_as=kept)
