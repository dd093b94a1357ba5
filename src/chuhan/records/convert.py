"""Reading and writing record files by extension, and the plain FEN + moves text form.

``.pgn``, ``.gib`` and ``.ubb`` (DhtmlXQ) files hold any number of games; ``.xqf`` and
``.txt`` hold one, but a ``.txt`` file holding DhtmlXQ tags (as pages of 东萍 are saved) is
read as DhtmlXQ. DhtmlXQ is read, not written. The
``.txt`` form is the simplest thing engines and test suites exchange: an optional line
naming the variant (``janggi`` or ``janggi:modern``), a FEN line, then ICCS moves.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path

from chuhan.errors import ChuhanError
from chuhan.records.dhtmlxq import iter_dhtmlxq, looks_like_dhtmlxq
from chuhan.records.encoding import decode_bytes, normalize_encoding
from chuhan.records.game import (
    DEFAULT_READ_LIMITS,
    GameRecord,
    ReadLimitError,
    ReadLimits,
    RecordError,
)
from chuhan.records.gib import encode_gib, iter_gib, write_gib
from chuhan.records.pgn import PGN_FORMATS, iter_pgn, write_pgn
from chuhan.records.xqf import read_xqf, write_xqf
from chuhan.squares import Move
from chuhan.variants import get_variant

__all__ = [
    "EXTENSIONS",
    "Conversion",
    "convert",
    "iter_file",
    "read_file",
    "read_text_record",
    "sniff_format",
    "write_text_record",
]

#: The extensions :func:`read_file` and :func:`convert` know.
EXTENSIONS = (".pgn", ".gib", ".xqf", ".txt", ".ubb")
#: The extensions :func:`convert` writes.
WRITTEN_EXTENSIONS = (".pgn", ".gib", ".xqf", ".txt")


def read_text_record(text: str, *, limits: ReadLimits = DEFAULT_READ_LIMITS) -> GameRecord:
    """Read the ``.txt`` form: [variant line], FEN line, ICCS moves (main line only).

    Raises :class:`RecordError` for a malformed record or an illegal move, and
    :class:`ReadLimitError` for more moves than ``limits.max_plies``.
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise RecordError("empty text record: expected a FEN line and ICCS moves")
    variant = get_variant("xiangqi")
    if "/" not in lines[0]:
        try:
            variant = get_variant(lines.pop(0))
        except ChuhanError as error:
            raise RecordError(f"invalid text record: first line: {error}") from error
    if not lines:
        raise RecordError("text record has no FEN line")
    fen, words = lines[0], " ".join(lines[1:]).split()
    if len(words) > limits.max_plies:
        maximum = limits.max_plies
        raise ReadLimitError(
            f"the main line has more than {maximum} plies",
            game="game 1",
            limit="max_plies",
            maximum=maximum,
        )
    try:
        moves = [Move.from_iccs(word) for word in words]
        return GameRecord.from_moves(moves, variant=variant, fen=fen)
    except ChuhanError as error:
        raise RecordError(f"invalid text record: {error}") from error


def write_text_record(record: GameRecord) -> str:
    """Write the ``.txt`` form of ``record``'s main line."""
    head = "" if record.variant == get_variant("xiangqi") else f"{record.variant.name}\n"
    moves = " ".join(move.iccs() for move in record.main_line_moves())
    return f"{head}{record.fen}\n{moves}\n"


#: What a GIB file shows in its first lines: its Korean header names, or a move in Korean
#: coordinates (``79졸78``).
_GIB_SIGNS = re.compile(
    r"\[(?:초차림|한차림|대국결과|대회명|초대국자|한대국자)|\d\d[졸병차마상사포장궁]\d\d"
)


def sniff_format(data: bytes) -> str:
    """The record format of a file's bytes whatever its name: ``"xqf"`` (its magic),
    ``"dhtmlxq"`` (DhtmlXQ tags), ``"gib"`` (Korean headers or moves), else ``"pgn"``.
    Only the start of the file is looked at."""
    if data[:2] == b"XQ":
        return "xqf"
    sample = decode_bytes(data[:_SNIFF_BYTES])
    if looks_like_dhtmlxq(sample):
        return "dhtmlxq"
    if _GIB_SIGNS.search(sample):
        return "gib"
    return "pgn"


_SNIFF_BYTES = 16 * 1024


def _extension(path: Path, given: str | None) -> str:
    ext = (given or path.suffix).lower()
    ext = ext if ext.startswith(".") else f".{ext}"
    if ext not in EXTENSIONS:
        raise RecordError(
            f"unknown record type {ext!r} for {str(path)!r}: expected {', '.join(EXTENSIONS)}"
        )
    return ext


def iter_file(
    path: str | Path,
    *,
    rules: str | None = None,
    limits: ReadLimits = DEFAULT_READ_LIMITS,
    encoding: str | None = None,
) -> Generator[GameRecord, None, None]:
    """Yield the games of a record file, chosen by its extension, one at a time: a
    ``.pgn`` or ``.gib`` file is read only as far as the games asked for, and closed when
    the last is read (or the iterator is closed).

    ``encoding`` decodes a text file (default: detected; see
    :mod:`chuhan.records.encoding`). Raises :class:`RecordError` for an unknown
    extension, an unreadable file, or a malformed ``.xqf`` / ``.txt``, and
    :class:`ReadLimitError` at the game past ``limits.max_games`` (or for a ``.txt`` record
    longer than ``limits.max_plies``); other problems, a game passing a limit included,
    are kept on each record.
    """
    file_path = Path(path)
    ext = _extension(file_path, None)
    if encoding is not None:
        normalize_encoding(encoding)  # an unknown name is refused before the file is read
    try:
        handle = file_path.open("rb")
    except OSError as error:
        raise RecordError(f"cannot read {str(file_path)!r}: {error.strerror}") from error
    with handle:
        try:
            if ext == ".xqf":
                yield read_xqf(handle.read(), limits=limits)
            elif ext == ".ubb":
                yield from iter_dhtmlxq(handle, limits=limits, encoding=encoding)
            elif ext == ".txt":
                text = decode_bytes(handle.read(), encoding)
                if looks_like_dhtmlxq(text):
                    yield from iter_dhtmlxq(text, limits=limits)
                else:
                    yield read_text_record(text, limits=limits)
            elif ext == ".gib":
                yield from iter_gib(handle, rules=rules, limits=limits, encoding=encoding)
            else:
                yield from iter_pgn(handle, rules=rules, limits=limits, encoding=encoding)
        except OSError as error:
            raise RecordError(f"cannot read {str(file_path)!r}: {error.strerror}") from error


def read_file(
    path: str | Path,
    *,
    rules: str | None = None,
    limits: ReadLimits = DEFAULT_READ_LIMITS,
    encoding: str | None = None,
) -> list[GameRecord]:
    """Read every game of a record file, chosen by its extension, within ``limits``
    (:func:`iter_file` reads them one at a time; errors as it raises them)."""
    return list(iter_file(path, rules=rules, limits=limits, encoding=encoding))


@dataclass(frozen=True)
class Conversion:
    """What :func:`convert` did: the games written and the errors of those skipped (each
    names its game by number, ``game 17 (Cup, Wang): move 23. 'x' (ply 45, line 301):
    ...``)."""

    written: int
    skipped: tuple[RecordError, ...] = ()


def convert(
    in_path: str | Path,
    out_path: str | Path,
    *,
    format: str | None = None,
    encoding: str | None = None,
    out_encoding: str = "utf-8",
    rules: str | None = None,
    limits: ReadLimits = DEFAULT_READ_LIMITS,
    skip_errors: bool = False,
) -> Conversion:
    """Convert a record file into another kind, chosen by the output's extension.

    ``format`` is the PGN move notation (``iccs``, ``wxf``, ``chinese``, ``korean``,
    ``san``; default ``iccs``); ``encoding`` is the input's, as the readers take it
    (default: detected), and ``out_encoding`` the GIB output's (``utf-8`` or ``euc-kr``).
    The games are read and written one at a time, so a file of any size takes the memory
    of one game.

    A game read with errors raises :class:`RecordError` naming it (so nothing is silently
    dropped) and nothing is written, unless ``skip_errors``: then the good games are
    written and the bad ones are in the result's ``skipped``. Also raises it when the
    output kind cannot hold the games (several games in ``.xqf``/``.txt``, janggi in
    ``.xqf``) or for an unknown extension. ``limits`` bounds what is read (see
    :class:`ReadLimits`).
    """
    source, target = Path(in_path), Path(out_path)
    out_ext = _extension(target, None)
    if out_ext not in WRITTEN_EXTENSIONS:
        raise RecordError(
            f"cannot write {str(target)!r}: {out_ext} (DhtmlXQ) is read, not written; "
            f"write one of {', '.join(WRITTEN_EXTENSIONS)}"
        )
    if format is not None and format.strip().lower() not in PGN_FORMATS:
        raise RecordError(f"unknown move format {format!r}: expected {', '.join(PGN_FORMATS)}")
    if out_ext == ".gib":
        encode_gib("", out_encoding)  # an unknown output encoding is refused before reading
    games = iter_file(source, rules=rules, limits=limits, encoding=encoding)
    partial = target.with_name(f".{target.name}.partial")
    skipped: list[RecordError] = []
    written = 0
    try:
        with partial.open("wb") as out:
            for index, record in enumerate(_labelled(games, source)):
                if record.errors:
                    # The error's own message names the game too: say it once.
                    label = f"{str(source)!r}, {record.describe(index)}"
                    error = RecordError(record.errors[0].reason, game=label)
                    if not skip_errors:
                        raise error
                    skipped.append(error)
                    continue
                if out_ext in (".xqf", ".txt") and written == 1:
                    raise RecordError(
                        f"{str(target)!r} holds one game, and {str(source)!r} has more"
                    )
                out.write(_written(record, out_ext, format, out_encoding, first=written == 0))
                written += 1
        if out_ext in (".xqf", ".txt") and written != 1:
            raise RecordError(f"{str(target)!r} holds one game, and {str(source)!r} has none")
        partial.replace(target)
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise RecordError(f"cannot write {str(target)!r}: {error.strerror}") from error
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        games.close()
    return Conversion(written, tuple(skipped))


def _labelled(games: Iterator[GameRecord], source: Path) -> Iterator[GameRecord]:
    """``games``, with an error about the whole file naming the file."""
    try:
        yield from games
    except RecordError as error:
        if str(source) in str(error):
            raise
        raise RecordError(f"{str(source)!r}: {error}") from None


def _written(
    record: GameRecord, out_ext: str, format: str | None, encoding: str, *, first: bool
) -> bytes:
    """One game as the output file holds it (games after the first with a blank line)."""
    if out_ext == ".xqf":
        return write_xqf(record)
    if out_ext == ".txt":
        return write_text_record(record).encode("utf-8")
    gap = "" if first else "\n"
    if out_ext == ".gib":
        return encode_gib(gap + write_gib(record), encoding)
    return (gap + write_pgn(record, format or "iccs")).encode("utf-8")
