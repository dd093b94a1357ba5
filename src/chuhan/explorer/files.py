"""The files of a collection: a record file, a folder of them, or an archive (``.tar``,
``.tar.gz``, ``.tar.xz``, ``.tar.bz2``, ``.zip``), each file given as its name and bytes;
and what the Chinese Chess Practical Dataset's folders say about the files in them.

>>> kind_of("Dataset/對局/大師對局/以開局分類/中炮局/00000001.pgn")
('game', '中炮局')
>>> kind_of("Dataset/殘局/00000012.pgn")
('endgame', '')
>>> kind_of("mine/club.pgn")
(None, '')
"""

from __future__ import annotations

import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from chuhan.records import EXTENSIONS

__all__ = [
    "ARCHIVE_SUFFIXES",
    "KINDS",
    "CollectionError",
    "CollectionFile",
    "iter_collection",
    "kind_of",
]

#: What a record in the index is. Only ``game`` counts in the explorer's statistics; the
#: rest are kept apart: ``computer`` (games between programs), ``opening`` (an opening
#: line with no players), ``midgame``, ``endgame``, ``tactics`` and ``exercise`` (a
#: position given by a FEN and the moves that follow), and ``position`` (a game record
#: that does not start from the start position: a fragment, a handicap game).
KINDS = ("game", "computer", "opening", "midgame", "endgame", "tactics", "exercise", "position")

#: The archives :func:`iter_collection` opens.
ARCHIVE_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".zip")

#: The dataset's folders and the kind of record each holds.
_FOLDER_KINDS = {
    "大師對局": "game",
    "電腦對局": "computer",
    "開局": "opening",
    "中局": "midgame",
    "殘局": "endgame",
    "全盤戰術": "tactics",
    "殺局_殺法_練習題": "exercise",
}
#: The dataset's folder of games filed by opening: the folder below it names the opening.
_OPENING_FOLDER = "以開局分類"
#: A file of a collection larger than this is refused (a record is a few kilobytes; this
#: bounds what one file of an archive may hold in memory).
MAX_FILE_BYTES = 64 * 1024 * 1024


class CollectionError(ValueError):
    """A collection that cannot be opened at all (no such path, an unreadable archive)."""


@dataclass(frozen=True)
class CollectionFile:
    """One file of a collection: ``name`` (its path, inside the archive for an archive's
    file) and ``data`` (its bytes), or ``error`` saying why it could not be read."""

    name: str
    data: bytes = b""
    error: str = ""


def kind_of(name: str) -> tuple[str | None, str]:
    """The kind of record (one of :data:`KINDS`) a file's path says by the Chinese Chess
    Practical Dataset's folders (``對局/大師對局`` master games, ``電腦對局`` computer
    games, ``開局`` openings, ``中局``, ``殘局``, ``全盤戰術``, ``殺局_殺法_練習題``),
    ``None`` when it says none; and the opening's name of a game filed under
    ``以開局分類`` (by opening), else ``""``."""
    parts = PurePosixPath(name.replace("\\", "/")).parts
    kind = None
    for part in parts:
        if part in _FOLDER_KINDS:
            kind = _FOLDER_KINDS[part]
    opening = ""
    if _OPENING_FOLDER in parts:
        place = parts.index(_OPENING_FOLDER)
        if place + 2 < len(parts):
            opening = parts[place + 1]
    return kind, opening


def _is_archive(path: Path) -> bool:
    name = path.name.lower()
    return any(name.endswith(suffix) for suffix in ARCHIVE_SUFFIXES)


def _is_record_name(name: str) -> bool:
    return PurePosixPath(name).suffix.lower() in EXTENSIONS


def iter_collection(path: str | Path) -> Iterator[CollectionFile]:
    """Yield the files of the collection at ``path``: the file itself, a folder's record
    files (by extension, in sorted order, subfolders included), or an archive's record
    files in the archive's order. A file that cannot be read is yielded with its
    ``error``; raises :class:`CollectionError` for a path that is none of these."""
    source = Path(path)
    if source.is_dir():
        for file in sorted(p for p in source.rglob("*") if p.is_file()):
            if _is_record_name(file.name):
                yield _read_file(file, str(file.relative_to(source)))
    elif _is_archive(source):
        if source.name.lower().endswith(".zip"):
            yield from _iter_zip(source)
        else:
            yield from _iter_tar(source)
    elif source.is_file():
        yield _read_file(source, str(source))
    else:
        raise CollectionError(f"no record file, folder or archive at {str(source)!r}")


def _read_file(file: Path, name: str) -> CollectionFile:
    try:
        size = file.stat().st_size
        if size > MAX_FILE_BYTES:
            return CollectionFile(name, error=f"{size:,} bytes, more than a record file holds")
        return CollectionFile(name, file.read_bytes())
    except OSError as error:
        return CollectionFile(name, error=f"cannot read it: {error.strerror}")


def _iter_tar(source: Path) -> Iterator[CollectionFile]:
    try:
        archive = tarfile.open(source, "r:*")  # noqa: SIM115  (closed by the with below)
    except (OSError, tarfile.TarError, EOFError) as error:
        raise CollectionError(f"cannot open the archive {str(source)!r}: {error}") from error
    with archive:
        try:
            for member in archive:
                if not member.isfile() or not _is_record_name(member.name):
                    continue
                if member.size > MAX_FILE_BYTES:
                    yield CollectionFile(
                        member.name, error=f"{member.size:,} bytes, more than a record holds"
                    )
                    continue
                handle = archive.extractfile(member)
                if handle is not None:
                    yield CollectionFile(member.name, handle.read())
        except (OSError, tarfile.TarError, EOFError) as error:
            raise CollectionError(f"the archive {str(source)!r} is damaged: {error}") from error


def _iter_zip(source: Path) -> Iterator[CollectionFile]:
    try:
        archive = zipfile.ZipFile(source)
    except (OSError, zipfile.BadZipFile) as error:
        raise CollectionError(f"cannot open the archive {str(source)!r}: {error}") from error
    with archive:
        for info in archive.infolist():
            if info.is_dir() or not _is_record_name(info.filename):
                continue
            if info.file_size > MAX_FILE_BYTES:
                yield CollectionFile(
                    info.filename, error=f"{info.file_size:,} bytes, more than a record holds"
                )
                continue
            try:
                yield CollectionFile(info.filename, archive.read(info))
            except (OSError, zipfile.BadZipFile, ValueError) as error:
                yield CollectionFile(info.filename, error=f"cannot read it: {error}")
