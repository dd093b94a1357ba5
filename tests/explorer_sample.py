"""A small masters' index for the tests: the first master games of the shipped archive,
imported as the masters are (so that the server takes the index as built), in seconds
rather than the minutes of the whole archive."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TypeVar

from chuhan.explorer import (
    MASTERS,
    MASTERS_ARCHIVE,
    Explorer,
    ImportSummary,
    iter_collection,
    kind_of,
)
from chuhan.explorer.files import CollectionFile
from chuhan.explorer.masters import MASTERS_ENCODING, MASTERS_LABEL, masters_digest

#: The master games the sample holds (files of the archive's 大師對局 folder, in its order).
SAMPLE_FILES = 120


@cache
def sample_files(count: int = SAMPLE_FILES) -> tuple[CollectionFile, ...]:
    """The first ``count`` files of master games in the shipped archive."""
    chosen: list[CollectionFile] = []
    for file in iter_collection(MASTERS_ARCHIVE):
        if kind_of(file.name)[0] == "game" and "/大師對局/" in file.name:
            chosen.append(file)
            if len(chosen) == count:
                break
    return tuple(chosen)


_Where = TypeVar("_Where", Path, str)


def build_sample_index(
    path: _Where, progress: Callable[[ImportSummary], None] | None = None
) -> _Where:
    """The sample imported into a new index at ``path`` (a SQLite file or a PostgreSQL
    address), labelled as the shipped masters; ``progress`` is told of each file read."""
    with Explorer(path) as explorer:
        explorer.import_files(
            sample_files(),
            source=MASTERS,
            label=MASTERS_LABEL,
            digest=masters_digest(),
            encoding=MASTERS_ENCODING,
            workers=1,
            progress=progress,
        )
    return path
