"""Reading an uploaded record (PGN, XQF, GIB or DhtmlXQ), in a worker process.

Parsing is CPU work proportional to the upload, so the server never does it on its event
loop: :func:`read_upload` runs in a worker (:mod:`chuhan.web.compute.workers`) with a deadline,
and sends back plain data, each game's moves and result ready to store. This module
imports only the rules library and the record readers, so a worker starts quickly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chuhan.errors import ChuhanError
from chuhan.game import Game
from chuhan.records import (
    GameRecord,
    ReadLimits,
    RecordError,
    read_cbf,
    read_dhtmlxq,
    read_gib,
    read_pgn,
    read_xqf,
    sniff_format,
)

__all__ = ["UPLOAD_FORMATS", "ReadGame", "Upload", "UploadRefused", "read_upload"]

#: The formats an upload may name (``auto``: told from its bytes by
#: :func:`chuhan.records.sniff_format`); ``ubb`` is another name for ``dhtmlxq``.
UPLOAD_FORMATS = ("auto", "pgn", "xqf", "gib", "dhtmlxq", "ubb", "cbf")


class UploadRefused(Exception):
    """The file as a whole cannot be read (the message says why)."""


@dataclass(frozen=True, slots=True)
class Upload:
    data: bytes
    format: str  # one of UPLOAD_FORMATS
    limits: ReadLimits


@dataclass(frozen=True, slots=True)
class ReadGame:
    """One game of an upload, read and replayed: what the server stores."""

    label: str
    variant: str  # game:rules
    fen: str
    moves: list[str]
    result: dict[str, Any]
    headers: dict[str, str]


def read_upload(upload: Upload) -> tuple[list[ReadGame], list[str]]:
    """The games to store and the errors to report (run in a worker)."""
    limits = upload.limits
    fmt = sniff_format(upload.data) if upload.format == "auto" else upload.format
    try:
        if fmt == "xqf":
            records = [read_xqf(upload.data, limits=limits)]
        elif fmt == "gib":
            records = read_gib(upload.data, limits=limits)
        elif fmt in ("dhtmlxq", "ubb"):
            records = read_dhtmlxq(upload.data, limits=limits)
        elif fmt == "cbf":
            records = [read_cbf(upload.data, limits=limits)]
        else:
            records = read_pgn(upload.data, limits=limits)
    except RecordError as error:
        raise UploadRefused(str(error)) from None
    games: list[ReadGame] = []
    errors: list[str] = []
    for index, record in enumerate(records):
        label = record.describe(index)
        for said in map(str, record.errors):  # said once, with the game's label
            errors.append(said if said.startswith(label) else f"{label}: {said}")
        moves = [m.iccs() for m in record.main_line_moves()]
        if not moves and record.errors:
            continue
        moves, cut = _until_the_end(record, moves)
        if cut is not None:
            errors.append(f"{label}: {cut}")
        games.append(
            ReadGame(
                label,
                record.variant.name,
                record.fen,
                moves,
                _result(record),
                dict(record.headers),
            )
        )
    return games, errors


def _until_the_end(record: GameRecord, moves: list[str]) -> tuple[list[str], str | None]:
    """The moves the referee lets be played, as the server replays the stored game (the
    same :class:`~chuhan.game.Game`, from the same start): a record that goes on after
    the game ended (a repetition, the move limit) keeps its moves up to the end, and says
    what was left out. A stored game then always opens, move for move as imported."""
    game = Game.new(record.variant, fen=record.fen)
    for ply, text in enumerate(moves):
        outcome = game.outcome()
        if outcome is not None:
            left = len(moves) - ply
            after = "move" if left == 1 else "moves"
            return moves[:ply], (
                f"the game ended after ply {ply} ({outcome.reason}); "
                f"the {left} {after} after it from {text} on were left out"
            )
        try:
            game.push(game.board.parse_iccs(text))
        except ChuhanError as error:  # the reader let it through; the referee has the say
            return moves[:ply], f"ply {ply + 1} ({text}) cannot be played: {error}"
    return moves, None


def _result(record: GameRecord) -> dict[str, Any]:
    result = record.result
    variant = record.variant
    winner = {"1-0": "first", "0-1": "second"}.get(result)
    if winner is not None:
        name = variant.side_name(winner == "first")
        reason = f"{name.capitalize()} won (the record's result {result})."
    elif result == "1/2-1/2":
        reason = "Draw (the record's result)."
    else:
        reason = "The record gives no result."
    return {
        "winner": winner,
        "winner_name": None if winner is None else variant.side_name(winner == "first"),
        "termination": "imported",
        "reason": reason,
        "points": None,
        "result": result,
    }
