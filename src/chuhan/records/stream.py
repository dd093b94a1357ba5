"""Record text a game at a time: from a string, bytes or an open file to the text of each
game, without holding the file in memory.

The PGN and GIB readers tokenize one game's text at a time (:func:`game_texts`). A game
starts at a tag line (``[Event ...``) that follows movetext; a ``[`` inside a ``{}`` comment
that spans lines starts nothing. Games with no tags between them, and a huge game, are cut
into texts of about a megabyte at line ends outside comments: the tokenizer's state runs on
from one text to the next, and it splits games at their results. Bytes are decoded as
:mod:`chuhan.records.encoding` says, a block at a time.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator
from typing import IO, cast

from chuhan.records.encoding import decoded_chunks

__all__ = ["RecordSource", "game_texts", "source_lines"]

#: How long a text grows before it is cut at a line end (outside a comment) though no
#: game starts there, so a file with no tags, or one huge game, is not held whole.
_LARGEST_TEXT = 1 << 20
#: What the readers take: the text itself, its bytes, or a file open in either mode.
RecordSource = str | bytes | IO[str] | IO[bytes]


def _split_lines(chunks: Iterable[str]) -> Iterator[str]:
    # The start of a line that spans chunks is kept in pieces and joined once its end
    # comes: adding each chunk to it would copy a huge one-line file again per chunk.
    pieces: list[str] = []
    for chunk in chunks:
        lines = chunk.split("\n")
        if len(lines) == 1:
            pieces.append(chunk)
            continue
        pieces.append(lines[0])
        yield "".join(pieces) + "\n"
        for line in lines[1:-1]:
            yield line + "\n"
        pieces = [lines[-1]]
    if any(pieces):
        yield "".join(pieces)


def source_lines(source: RecordSource, encoding: str | None = None) -> Iterator[str]:
    """The lines of ``source`` (each with its ``\\n`` but the last), decoded from bytes
    in ``encoding`` or the detected one; an open file is read as the lines are wanted."""
    if isinstance(source, str):
        return _split_lines((source,))
    if isinstance(source, bytes | bytearray | memoryview):
        return _split_lines(decoded_chunks(io.BytesIO(bytes(source)), encoding))
    probe = source.read(0)
    if isinstance(probe, str):
        return _split_lines(iter(lambda: cast(IO[str], source).read(1 << 16), ""))
    return _split_lines(decoded_chunks(cast(IO[bytes], source), encoding))


def game_texts(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """Split record lines into the texts of games: ``(number of the first line, text)``.

    A new text starts at a line whose first non-blank character is ``[`` once the current
    one has movetext (a line that is not a tag, an ``%`` escape or blank), unless an open
    ``{`` comment runs through that line.
    """
    current: list[str] = []
    size = 0
    first_line = 1
    movetext = False
    in_comment = False
    for number, line in enumerate(lines, start=1):
        stripped = line.lstrip()
        if not in_comment and ((movetext and stripped.startswith("[")) or size >= _LARGEST_TEXT):
            # A new game; or a text grown past its bound (games with no tags between
            # them, a huge game), cut where no token spans the cut: the reader's state
            # goes on from one text to the next.
            yield first_line, "".join(current)
            current, size, first_line, movetext = [], 0, number, False
        current.append(line)
        size += len(line)
        if stripped.startswith("[") and not in_comment:
            continue
        if not stripped or (not in_comment and line.startswith("%")):
            continue
        movetext = True
        in_comment = _ends_in_comment(line, in_comment)
    if current:
        yield first_line, "".join(current)


# Text outside comments and whole ``{}`` comments, possessively: where it stops, a ``{``
# opens a comment the line does not close, and a ``;`` comments out the rest.
_OUTSIDE = re.compile(r"[^{;]*+(?:\{[^}]*+\}[^{;]*+)*+")


def _ends_in_comment(line: str, in_comment: bool) -> bool:
    """Whether a ``{`` comment is still open at the end of ``line``."""
    position = 0
    if in_comment:
        end = line.find("}")
        if end < 0:
            return True
        position = end + 1
    match = _OUTSIDE.match(line, position)
    assert match is not None  # the pattern matches the empty string
    return line.startswith("{", match.end())
