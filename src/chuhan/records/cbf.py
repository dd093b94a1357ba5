"""CBF, the XML record format of CCBridge (象棋桥), read (xiangqi only, one game a file).

The layout, as CCBridge writes it and the public readers take it::

    <?xml version="1.0" encoding="UTF-8"?>
    <ChineseChessRecord Version="1.0">
     <Head>
      <Name>...</Name> <Contest>...</Contest> <Round/> <Date/> <Site/>
      <Red/> <RedTeam/> <Black/> <BlackTeam/> <ECCO/> <Commentator/> ...
      <RecordResult>0</RecordResult>
      <FEN>rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1</FEN>
     </Head>
     <MoveList>
      <Move value="00-00"/>
      <Move value="77-47"/>
      ...
      <Move value="19-27" end="1"/>
     </MoveList>
    </ChineseChessRecord>

- ``Head``: the headers, each an element (most often empty); read into the PGN names
  (:data:`HEADER_NAMES`: ``Name`` is the title, ``Contest`` the event...), the others that
  hold text kept under their own names. ``RecordResult``: 0 unknown, 1 Red wins, 2 Black
  wins, 3 or 4 a draw. ``FEN``: the start (the usual one when missing).
- ``MoveList``: the main line, one ``Move`` a ply; the first, ``00-00``, stands for the
  start position. A move is two points ``CR-CR``, each the column (0-8 from Red's left:
  ICCS files a-i) then the row (0-9 from Black's back rank, the top of the diagram: ICCS
  rank ``9 - row``), so ``77-47`` is h2e2 (炮二平五).

The file's own encoding declaration is honoured (``GB2312`` files are read as GB18030),
else the encoding is detected as for the text formats. The XML is parsed by the standard
library's parser, which fetches nothing; a document type declaration (where entities
would be declared) is refused, and so is a file larger than :data:`LARGEST_CBF`.

As in the other readers, an illegal move stops the line with an error on the record, and
a start whose side to move the first move contradicts is read the first move's way, with
a warning.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from typing import IO

from chuhan.board import Board
from chuhan.errors import ChuhanError
from chuhan.records.encoding import decode_bytes, normalize_encoding
from chuhan.records.game import (
    DEFAULT_READ_LIMITS,
    GameRecord,
    ReadLimitError,
    ReadLimits,
    RecordError,
    _shorten,
    normalize_fen,
    side_from_first_move,
)
from chuhan.squares import Move

__all__ = ["HEADER_NAMES", "LARGEST_CBF", "looks_like_cbf", "read_cbf"]

#: The largest file read, in bytes: a game of ten thousand plies takes about 300 KB.
LARGEST_CBF = 8 * 1024 * 1024
#: CBF header elements and the PGN names they are read as.
HEADER_NAMES = {
    "Name": "Title",
    "Contest": "Event",
    "Round": "Round",
    "Date": "Date",
    "Site": "Site",
    "Red": "Red",
    "RedTeam": "RedTeam",
    "Black": "Black",
    "BlackTeam": "BlackTeam",
    "ECCO": "ECCO",
    "Commentator": "Annotator",
    "TimeRule": "TimeControl",
}
#: Header elements that describe the file, not the game.
_FILE_ELEMENTS = frozenset({"URL", "CommentatorURL", "Creator", "CreatorURL", "DateCreated"})
_FILE_ELEMENTS |= {"DateModified", "RecordType", "RecordKind", "ResultType"}
_RESULTS = {"1": "1-0", "2": "0-1", "3": "1/2-1/2", "4": "1/2-1/2"}
_ROOT = "ChineseChessRecord"
_MOVE = re.compile(r"([0-8])([0-9])-([0-8])([0-9])")
_DECLARED_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([\w.:-]+)["']""")


def looks_like_cbf(text: str) -> bool:
    """Whether ``text`` (a file's start will do) is a CBF document."""
    return f"<{_ROOT}" in text


def _text(source: bytes | str | IO[bytes], encoding: str | None) -> str:
    """The document as text: bytes decoded in the given encoding, else the one the XML
    declaration names, else the detected one."""
    if isinstance(source, str):
        if len(source) > LARGEST_CBF:
            raise RecordError(f"CBF file too large: more than {LARGEST_CBF} characters")
        return source
    data = source if isinstance(source, bytes) else source.read(LARGEST_CBF + 1)
    if len(data) > LARGEST_CBF:
        raise RecordError(f"CBF file too large: more than {LARGEST_CBF} bytes")
    if encoding is None and (declared := _DECLARED_ENCODING.match(data[:200])):
        try:
            encoding = normalize_encoding(declared.group(1).decode("ascii"))
        except RecordError:
            encoding = None  # a name Python does not know: detect
    return decode_bytes(data, encoding)


def read_cbf(
    source: bytes | str | IO[bytes],
    *,
    limits: ReadLimits = DEFAULT_READ_LIMITS,
    encoding: str | None = None,
) -> GameRecord:
    """Read a CBF (CCBridge XML) record: bytes, text or an open binary file.

    Raises :class:`RecordError` for a file that is not CBF (not XML, another root
    element, a document type declaration, larger than :data:`LARGEST_CBF`). A move that is
    not two points or not legal where it is played stops the main line there, with the
    error in ``record.errors``, as the other readers do; more moves than
    ``limits.max_plies`` likewise (a :class:`ReadLimitError`).
    """
    text = _text(source, encoding)
    if "<!doctype" in text.lower():
        raise RecordError("not read: a CBF file with a document type declaration (entities)")
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as error:
        raise RecordError(f"not a CBF file: malformed XML: {error}") from None
    if root.tag != _ROOT:
        raise RecordError(
            f"not a CBF file: the root element is <{_shorten(root.tag)}>, not <{_ROOT}>"
        )
    headers: dict[str, str] = {"Game": "Chinese Chess"}
    fen = ""
    result = "*"
    head = root.find("Head")
    for element in head if head is not None else ():
        value = (element.text or "").strip()
        if not value or not isinstance(element.tag, str):
            continue
        if element.tag == "FEN":
            fen = value
        elif element.tag == "RecordResult":
            result = _RESULTS.get(value, "*")
        elif element.tag in HEADER_NAMES:
            headers[HEADER_NAMES[element.tag]] = value
        elif element.tag not in _FILE_ELEMENTS:
            headers[element.tag] = value
    headers["Result"] = result
    record = GameRecord(headers=headers)
    try:
        if fen:
            record.fen = normalize_fen(fen)
        board = record.start_board()
    except ChuhanError as error:
        raise RecordError(f"CBF file: cannot set up the start position: {error}") from None
    move_list = root.find("MoveList")
    values = [
        element.get("value", "")
        for element in (move_list if move_list is not None else ())
        if element.tag == "Move"
    ]
    if values and values[0] == "00-00":
        values = values[1:]
    _play(record, board, values, limits)
    return record


def _play(record: GameRecord, board: Board, values: list[str], limits: ReadLimits) -> None:
    """Play the main line's moves onto ``record`` from ``board``, stopping at the first
    that does not read."""
    game = record.describe(0)
    node = record.root
    for index, value in enumerate(values):
        ply = index + 1
        if ply > limits.max_plies:
            maximum = limits.max_plies
            reason = f"the main line has more than {maximum} plies"
            record.errors.append(
                ReadLimitError(reason, game=game, limit="max_plies", maximum=maximum)
            )
            return
        match = _MOVE.fullmatch(value.strip())
        if match is None:
            record.errors.append(
                RecordError(
                    f"ply {ply}: {_shorten(value)!r} is not a CBF move (two points, "
                    "column then row from the top: '77-47')",
                    game=game,
                )
            )
            return
        c1, r1, c2, r2 = (int(group) for group in match.groups())
        move = Move.from_iccs(f"{'abcdefghi'[c1]}{9 - r1}{'abcdefghi'[c2]}{9 - r2}")
        if index == 0:
            board = side_from_first_move(record, board, move, game)
        if not board.is_legal(move):
            record.errors.append(
                RecordError(
                    f"ply {ply} {value!r} ({move.iccs()}): illegal in {board.fen()}: "
                    f"{board.why_illegal(move)}",
                    game=game,
                )
            )
            return
        board.push(move)
        node = node.add_variation(move)
