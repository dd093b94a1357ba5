"""Reading and writing record files, and the plain FEN + moves text form.

A file's format is told from its bytes where they show it, else from its extension:
XQF by its magic (``XQ``), CBF by its ``<ChineseChessRecord>`` root,
DhtmlXQ by its ``[DhtmlXQ`` tags (in a ``.ubb`` file, a web page or a ``.txt`` saved from
one), GIB by its Korean header names or moves; then ``.pgn``, ``.gib``, ``.xqf``,
``.cbf``, ``.ubb``, ``.html`` / ``.htm`` (DhtmlXQ) and ``.txt`` by name. A file of another
extension (or none) is read as PGN when it looks like PGN (tags, move numbers) and as the
text form when it starts with a FEN; otherwise it is refused, saying what was looked for.

``.pgn``, ``.gib``, ``.ubb`` and web pages hold any number of games; ``.xqf``, ``.cbf``
and ``.txt`` one. DhtmlXQ and CBF are read, not written. The ``.txt`` form is the simplest
thing engines and test suites exchange: an optional line naming the variant (``janggi`` or
``janggi:modern``), a FEN line, then ICCS moves.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from chuhan.errors import ChuhanError
from chuhan.records.cbf import looks_like_cbf, read_cbf
from chuhan.records.dhtmlxq import iter_dhtmlxq, looks_like_dhtmlxq
from chuhan.records.encoding import decode_bytes, normalize_encoding
from chuhan.records.game import (
    DEFAULT_READ_LIMITS,
    GameRecord,
    ReadLimitError,
    ReadLimits,
    RecordError,
    RecordWarning,
    VariationError,
    normalize_fen,
)
from chuhan.records.gib import encode_gib, iter_gib, write_gib
from chuhan.records.pgn import PGN_FORMATS, iter_pgn, write_pgn
from chuhan.records.xqf import read_xqf, write_xqf
from chuhan.squares import Move
from chuhan.variants import get_variant

__all__ = [
    "EXTENSIONS",
    "FORMATS",
    "Conversion",
    "convert",
    "iter_file",
    "read_file",
    "read_text_record",
    "sniff_format",
    "write_text_record",
]

#: The extensions :func:`read_file` and :func:`convert` know, and the format each names
#: (a file of another extension is told by its bytes).
EXTENSIONS = (".pgn", ".gib", ".xqf", ".txt", ".ubb", ".cbf", ".html", ".htm")
_EXTENSION_FORMATS = {
    ".pgn": "pgn",
    ".gib": "gib",
    ".xqf": "xqf",
    ".txt": "text",
    ".ubb": "dhtmlxq",
    ".cbf": "cbf",
    ".html": "dhtmlxq",
    ".htm": "dhtmlxq",
}
#: The formats :func:`iter_file` reads (``text``: a FEN line and ICCS moves).
FORMATS = ("pgn", "gib", "xqf", "dhtmlxq", "cbf", "text")
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
        return GameRecord.from_moves(moves, variant=variant, fen=normalize_fen(fen))
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
#: What PGN shows: a tag line (``[Event "``) or the first move's number (``1.``, ``1...``).
_PGN_SIGNS = re.compile(r'^[ \t]*\[[A-Za-z][\w-]*[ \t]*"|(?:^|\s)1[ \t]*\.(?:\.\.)?\s', re.M)
#: A FEN's placement: ten ranks of pieces and digits.
_FEN_PLACEMENT = re.compile(r"^[1-9A-Za-z]+(?:/[1-9A-Za-z]+){9}(?:\s|$)")
#: How much of a file the format is told from.
_SNIFF_BYTES = 64 * 1024


def sniff_format(data: bytes) -> str:
    """The record format of a file's bytes whatever its name: ``"xqf"`` (its magic,
    ``XQ``), ``"cbf"`` (a ``<ChineseChessRecord>`` document),
    ``"dhtmlxq"`` (DhtmlXQ tags, in a web page or not), ``"gib"`` (Korean headers or
    moves), else ``"pgn"``. Only the start of the file is looked at."""
    if data[:2] == b"XQ":
        return "xqf"
    sample = decode_bytes(data[:_SNIFF_BYTES])
    if looks_like_cbf(sample):
        return "cbf"
    if looks_like_dhtmlxq(sample):
        return "dhtmlxq"
    if _GIB_SIGNS.search(sample):
        return "gib"
    return "pgn"


def _looks_like_text_record(sample: str) -> bool:
    """Whether ``sample`` starts as the ``.txt`` form does: a FEN, after a variant line."""
    lines = [line.strip() for line in sample.splitlines() if line.strip()][:2]
    return any(_FEN_PLACEMENT.match(line) for line in lines)


def _file_format(path: Path, data: bytes) -> str:
    """The format a file is read in (one of :data:`FORMATS`): what its bytes show, else
    what its extension says (see the module's text); raises :class:`RecordError` for a
    file of an unknown extension that shows no format."""
    sniffed = sniff_format(data)
    named = _EXTENSION_FORMATS.get(path.suffix.lower())
    if sniffed in ("xqf", "cbf", "dhtmlxq"):
        return sniffed
    if named in ("pgn", "gib"):
        return named
    if sniffed == "gib":
        return "gib"
    if named == "dhtmlxq":
        return named  # a page without a game: no games
    sample = decode_bytes(data[:_SNIFF_BYTES])
    if named in ("text", None) and _looks_like_text_record(sample):
        return "text"
    if _PGN_SIGNS.search(sample):
        return "pgn"  # PGN saved as .txt, or under another format's name
    if named is not None:
        return named  # a .txt, .xqf or .cbf file that is none: its reader says what is wrong
    known = ", ".join(EXTENSIONS)
    raise RecordError(
        f"cannot tell the record format of {str(path)!r}: its extension is none of {known}, "
        "and its start is none of PGN (tags, move numbers), GIB, XQF, DhtmlXQ, CBF or a FEN"
    )


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
    """Yield the games of a record file one at a time, its format told from its bytes or
    its extension (see the module's text): a PGN or GIB file is read only as far as the
    games asked for, and closed when the last is read (or the iterator is closed).

    ``encoding`` decodes a text file (default: detected; see
    :mod:`chuhan.records.encoding`). Raises :class:`RecordError` for a file whose format
    cannot be told, an unreadable file, or a malformed ``.xqf`` / ``.cbf`` / ``.txt``, and
    :class:`ReadLimitError` at the game past ``limits.max_games`` (or for a ``.txt`` record
    longer than ``limits.max_plies``); other problems, a game passing a limit included,
    are kept on each record.
    """
    file_path = Path(path)
    if encoding is not None:
        normalize_encoding(encoding)  # an unknown name is refused before the file is read
    try:
        handle = file_path.open("rb")
    except OSError as error:
        raise RecordError(f"cannot read {str(file_path)!r}: {error.strerror}") from error
    with handle:
        try:
            start = handle.read(_SNIFF_BYTES)
            handle.seek(0)
            fmt = _file_format(file_path, start)
            yield from _read_format(fmt, handle, rules=rules, limits=limits, encoding=encoding)
        except OSError as error:
            raise RecordError(f"cannot read {str(file_path)!r}: {error.strerror}") from error


def _read_format(
    fmt: str,
    handle: IO[bytes],
    *,
    rules: str | None,
    limits: ReadLimits,
    encoding: str | None,
) -> Iterator[GameRecord]:
    if fmt == "xqf":
        yield read_xqf(handle.read(), limits=limits)
    elif fmt == "cbf":
        yield read_cbf(handle, limits=limits, encoding=encoding)
    elif fmt == "dhtmlxq":
        yield from iter_dhtmlxq(handle, limits=limits, encoding=encoding)
    elif fmt == "text":
        text = decode_bytes(handle.read(), encoding)
        if looks_like_dhtmlxq(text):
            yield from iter_dhtmlxq(text, limits=limits)
        else:
            yield read_text_record(text, limits=limits)
    elif fmt == "gib":
        yield from iter_gib(handle, rules=rules, limits=limits, encoding=encoding)
    else:
        yield from iter_pgn(handle, rules=rules, limits=limits, encoding=encoding)


def read_file(
    path: str | Path,
    *,
    rules: str | None = None,
    limits: ReadLimits = DEFAULT_READ_LIMITS,
    encoding: str | None = None,
) -> list[GameRecord]:
    """Read every game of a record file, its format told as :func:`iter_file` tells it,
    within ``limits`` (:func:`iter_file` reads them one at a time; errors as it raises
    them)."""
    return list(iter_file(path, rules=rules, limits=limits, encoding=encoding))


@dataclass(frozen=True)
class Conversion:
    """What :func:`convert` did: the games written; the errors of those skipped (each
    names its game by number, ``game 17 (Cup, Wang): move 23. 'x' (ply 45, line 301):
    ...``); the variations left out of games written (:class:`VariationError`, with
    ``skip_errors``); and the warnings of the games read (:class:`RecordWarning`: what was
    read otherwise than the file says), each naming the file and the game."""

    written: int
    skipped: tuple[RecordError, ...] = ()
    cut: tuple[VariationError, ...] = ()
    warnings: tuple[RecordWarning, ...] = ()


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

    The input's format is told as :func:`iter_file` tells it. ``format`` is the PGN move
    notation (``iccs``, ``wxf``, ``chinese`` in traditional characters,
    ``chinese-simplified``, ``korean`` for janggi only, ``san``; default ``iccs``);
    ``encoding`` is the input's, as the readers take it (default: detected), and
    ``out_encoding`` the GIB output's (``utf-8`` or ``euc-kr``). The games are read and
    written one at a time, so a file of any size takes the memory of one game.

    A game read with errors raises :class:`RecordError` naming it (so nothing is silently
    dropped) and nothing is written, unless ``skip_errors``: then the good games are
    written and the bad ones are in the result's ``skipped``, except a game whose only
    errors are variations that do not read: it is written without them, and they are in
    the result's ``cut``. Also raises it when the output kind cannot hold the games
    (several games in ``.xqf``/``.txt``, janggi in ``.xqf``, xiangqi in Korean notation)
    or for an unknown extension. ``limits`` bounds what is read (see :class:`ReadLimits`).
    """
    source, target = Path(in_path), Path(out_path)
    out_ext = _extension(target, None)
    if out_ext not in WRITTEN_EXTENSIONS:
        raise RecordError(
            f"cannot write {str(target)!r}: {out_ext} ({_EXTENSION_FORMATS[out_ext]}) is "
            "read, not written; "
            f"write one of {', '.join(WRITTEN_EXTENSIONS)}"
        )
    if format is not None and format.strip().lower() not in PGN_FORMATS:
        raise RecordError(f"unknown move format {format!r}: expected {', '.join(PGN_FORMATS)}")
    if out_ext == ".gib":
        encode_gib("", out_encoding)  # an unknown output encoding is refused before reading
    games = iter_file(source, rules=rules, limits=limits, encoding=encoding)
    partial = target.with_name(f".{target.name}.partial")
    skipped: list[RecordError] = []
    cut: list[VariationError] = []
    warnings: list[RecordWarning] = []
    written = 0
    try:
        with partial.open("wb") as out:
            for index, record in enumerate(_labelled(games, source)):
                # The messages name the game too: say it once, with the file.
                label = f"{str(source)!r}, {record.describe(index)}"
                warnings.extend(RecordWarning(w.reason, game=label) for w in record.warnings)
                if record.errors:
                    error = RecordError(record.errors[0].reason, game=label)
                    if not skip_errors:
                        raise error
                    if not all(isinstance(e, VariationError) for e in record.errors):
                        skipped.append(error)
                        continue
                    cut.extend(
                        VariationError(e.reason, game=label, ply=e.ply, move=e.move)
                        for e in record.errors
                        if isinstance(e, VariationError)
                    )
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
    return Conversion(written, tuple(skipped), tuple(cut), tuple(warnings))


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
