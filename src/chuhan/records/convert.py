"""Reading and writing record files by extension, and the plain FEN + moves text form.

``.pgn`` and ``.gib`` files hold any number of games; ``.xqf`` and ``.txt`` hold one. The
``.txt`` form is the simplest thing engines and test suites exchange: an optional line
naming the variant (``janggi`` or ``janggi:modern``), a FEN line, then ICCS moves.
"""

from __future__ import annotations

from pathlib import Path

from chuhan.errors import ChuhanError
from chuhan.records.game import (
    DEFAULT_READ_LIMITS,
    GameRecord,
    ReadLimitError,
    ReadLimits,
    RecordError,
)
from chuhan.records.gib import decode_bytes, encode_gib, read_gib, write_gib
from chuhan.records.pgn import PGN_FORMATS, read_pgn, write_pgn
from chuhan.records.xqf import read_xqf, write_xqf
from chuhan.squares import Move
from chuhan.variants import get_variant

__all__ = ["EXTENSIONS", "convert", "read_file", "read_text_record", "write_text_record"]

#: The extensions :func:`read_file` and :func:`convert` know.
EXTENSIONS = (".pgn", ".gib", ".xqf", ".txt")


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


def _extension(path: Path, given: str | None) -> str:
    ext = (given or path.suffix).lower()
    ext = ext if ext.startswith(".") else f".{ext}"
    if ext not in EXTENSIONS:
        raise RecordError(
            f"unknown record type {ext!r} for {str(path)!r}: expected {', '.join(EXTENSIONS)}"
        )
    return ext


def read_file(
    path: str | Path, *, rules: str | None = None, limits: ReadLimits = DEFAULT_READ_LIMITS
) -> list[GameRecord]:
    """Read every game of a record file, chosen by its extension, within ``limits``.

    Raises :class:`RecordError` for an unknown extension, an unreadable file, or a
    malformed ``.xqf`` / ``.txt``, and :class:`ReadLimitError` for more games than
    ``limits.max_games`` (or a ``.txt`` record longer than ``limits.max_plies``); other
    problems, a game passing a limit included, are kept on each record.
    """
    file_path = Path(path)
    ext = _extension(file_path, None)
    try:
        data = file_path.read_bytes()
    except OSError as error:
        raise RecordError(f"cannot read {str(file_path)!r}: {error.strerror}") from error
    if ext == ".xqf":
        return [read_xqf(data, limits=limits)]
    if ext == ".gib":
        return read_gib(data, rules=rules, limits=limits)
    if ext == ".txt":
        return [read_text_record(decode_bytes(data), limits=limits)]
    return read_pgn(data, rules=rules, limits=limits)


def convert(
    in_path: str | Path,
    out_path: str | Path,
    *,
    format: str | None = None,
    encoding: str = "utf-8",
    rules: str | None = None,
    limits: ReadLimits = DEFAULT_READ_LIMITS,
) -> int:
    """Convert a record file into another kind, chosen by the output's extension.

    ``format`` is the PGN move notation (``iccs``, ``wxf``, ``chinese``, ``korean``,
    ``san``; default ``iccs``); ``encoding`` is the GIB output's (``utf-8`` or
    ``euc-kr``). Returns the number of games written. Raises :class:`RecordError` when a
    game was read with errors (so nothing is silently dropped), when the output kind
    cannot hold the games (several games in ``.xqf``/``.txt``, janggi in ``.xqf``), or for
    an unknown extension. ``limits`` bounds what is read (see :class:`ReadLimits`).
    """
    source, target = Path(in_path), Path(out_path)
    out_ext = _extension(target, None)
    if format is not None and format.strip().lower() not in PGN_FORMATS:
        raise RecordError(f"unknown move format {format!r}: expected {', '.join(PGN_FORMATS)}")
    try:
        records = read_file(source, rules=rules, limits=limits)
    except RecordError as error:
        if str(source) in str(error):
            raise
        raise RecordError(f"{str(source)!r}: {error}") from None
    for index, record in enumerate(records):
        if record.errors:
            # The error's own message names the game too: say it once.
            label = f"{str(source)!r}, {record.describe(index)}"
            raise RecordError(record.errors[0].reason, game=label)
    if out_ext in (".xqf", ".txt") and len(records) != 1:
        raise RecordError(f"{str(target)!r} holds one game, and {str(source)!r} has {len(records)}")
    if out_ext == ".xqf":
        data = write_xqf(records[0])
    elif out_ext == ".txt":
        data = write_text_record(records[0]).encode("utf-8")
    elif out_ext == ".gib":
        data = encode_gib("\n".join(write_gib(record) for record in records), encoding)
    else:
        notation = format or "iccs"
        data = "\n".join(write_pgn(record, notation) for record in records).encode("utf-8")
    try:
        target.write_bytes(data)
    except OSError as error:
        raise RecordError(f"cannot write {str(target)!r}: {error.strerror}") from error
    return len(records)
