"""The master games shipped with chuhan: the Chinese Chess Practical Dataset (CCPD) by
Yu-Han Tseng, CC BY 4.0, as ``data/ccpd.tar.xz`` (unchanged; the NOTICE file credits it).
The index built from it is a change of the data, and is credited the same way.

The archive (7.4 MB) is shipped and the index built from it on first use rather than the
index shipped: the index of its 40,000 games is far larger than the archive (see the
README's "Opening explorer" for the sizes and times measured).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import cache
from importlib import resources
from pathlib import Path

from chuhan.explorer.files import iter_collection
from chuhan.explorer.index import MASTERS, Explorer, ExplorerError, ImportSummary
from chuhan.explorer.stores import PG_SCHEMA

__all__ = [
    "CREDIT",
    "MASTERS_ARCHIVE",
    "MASTERS_ENCODING",
    "MASTERS_LABEL",
    "masters_digest",
    "open_masters",
]

#: The shipped archive of master games.
MASTERS_ARCHIVE = Path(str(resources.files("chuhan.explorer").joinpath("data/ccpd.tar.xz")))
#: The encoding of every file of the shipped archive (Big5, as Windows reads it).
MASTERS_ENCODING = "cp950"
#: How imports of the shipped archive are labelled in the index.
MASTERS_LABEL = "CCPD (ccpd.tar.xz)"
#: The credit the licence asks for, wherever the masters are shown.
CREDIT = (
    "Master games: Chinese Chess Practical Dataset by Yu-Han Tseng, CC BY 4.0 "
    "(https://creativecommons.org/licenses/by/4.0/); indexed by chuhan (changed: "
    "duplicates merged, tags normalised)."
)


@cache
def masters_digest(archive: Path = MASTERS_ARCHIVE) -> str:
    """The SHA-256 of the shipped archive: what tells the index it was built from it."""
    digest = hashlib.sha256()
    with archive.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def open_masters(
    path: str | Path | None = None,
    *,
    progress: Callable[[ImportSummary], None] | None = None,
    announce: Callable[[str], None] | None = None,
    workers: int | None = None,
) -> Explorer:
    """The explorer's index at ``path`` (default: the user data folder) with the shipped
    master games in it: imported on first use, once (several minutes: ``announce`` is
    told before, ``progress`` called after each file; the records are read by ``workers``
    processes, as :meth:`Explorer.import_files` says). An index built from another
    version of the archive is refused with the way out (delete it: it is built again).
    """
    explorer = Explorer(path)
    try:
        digest = masters_digest()
        if not explorer.imported(digest):
            if explorer.imported_label(MASTERS_LABEL):
                way_out = f"drop its schema {PG_SCHEMA}" if explorer.shared else "delete the file"
                raise ExplorerError(
                    f"the explorer index {explorer.where!r} was built from another "
                    f"version of the master games: {way_out} and it is built again from "
                    "this one (collections imported into it must then be imported again)"
                )
            if announce is not None:
                announce(
                    f"building the masters' index from {MASTERS_ARCHIVE.name} into "
                    f"{explorer.where}, once (a few minutes)"
                )
            explorer.import_files(
                iter_collection(MASTERS_ARCHIVE),
                source=MASTERS,
                label=MASTERS_LABEL,
                digest=digest,
                progress=progress,
                encoding=MASTERS_ENCODING,
                workers=workers,
            )
            explorer.built_now = True
    except BaseException:
        explorer.close()
        raise
    return explorer
