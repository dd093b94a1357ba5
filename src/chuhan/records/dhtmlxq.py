"""DhtmlXQ, the UBB record format of 东萍象棋网 (dpxq.com) and the Chinese web databases.

A game is a block ``[DhtmlXQ]`` ... ``[/DhtmlXQ]`` of tags ``[DhtmlXQ_name]value[/DhtmlXQ_name]``
(a file or a page may hold several blocks; a text of bare tags is one game):

- headers: ``title``, ``event``, ``date``, ``place``, ``round``, ``red``, ``redteam``,
  ``black``, ``blackteam``, ``result`` (``红胜``, ``黑胜``, ``和棋``...), ``open``, ``ecco``...,
  read into the PGN names (:data:`HEADER_NAMES`); the viewer's own settings (``ver``,
  ``init``...) are dropped, other tags kept as ``DhtmlXQ_name``.
- ``binit``, the start position: 64 digits, the points of the 32 pieces in the order
  车马相仕帅仕相马车炮炮兵兵兵兵兵 for red, then the same for black, ``99`` for a piece not on
  the board. A point is two digits, the column (0-8 from red's left, ICCS files a-i) then the
  row (0-9 from black's back rank, the top of the diagram: ICCS rank ``9 - row``). Without
  it, the usual start. The side to move is the side of the first move's piece (red when the
  game has no move). Some viewers write ``fen`` instead, which is read too.
- ``movelist``, the main line: four digits a move, from point then to point (``7747`` is
  the red cannon h2e2, 炮二平五).
- ``move_P_S_N``: variation ``N``, an alternative to ply ``S`` (counted from 1 at the start
  of the game) of line ``P`` (0 the main line, else another variation's ``N``); its moves
  are plies ``S``, ``S + 1``...
- ``commentS``: the comment after ply ``S`` of the main line (``comment0`` before the first
  move); ``commentN_S`` after ply ``S`` of variation ``N``. ``||`` in a comment is a line
  break.

Reading stops at a game's first problem in its main line or its start (a malformed tag, a
point off the board, an illegal move); the record keeps what came before it and the error
in ``errors``, naming the game, the line, the ply and the digits. A variation that does
not read (an illegal move, a ply its line does not have) is left out from its first bad
move, with a :class:`~chuhan.records.VariationError`; the rest of the game is read.

What real pages and editors write is read too:

- dpxq's own editor closes some header tags with another's end tag
  (``[DhtmlXQ_blacktime]...[/DhtmlXQ_time]``): a tag that holds no moves is read up to the
  end tag that follows it, with a :class:`~chuhan.records.RecordWarning` on the record;
  a move tag (``movelist``, ``move_P_S_N``, ``binit``, ``fen``) so closed is an error.
- Web pages (``.html``) hold the blocks among their HTML, or in an ``<iframe>``'s name
  after ``[DhtmlXQiFrame]`` (a block start with no end): a block start ends the game
  before it, HTML entities (``&amp;``, ``&nbsp;``) in headers and comments are characters
  and ``<br>`` in a comment is a line break, as dpxq's viewer reads them. Tags outside the
  blocks of a page that has blocks (a script's strings) are not a game.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator

from chuhan.board import Board
from chuhan.errors import ChuhanError
from chuhan.records.game import (
    DEFAULT_READ_LIMITS,
    GameNode,
    GameRecord,
    ReadLimitError,
    ReadLimits,
    RecordError,
    RecordWarning,
    VariationError,
    _shorten,
    normalize_fen,
)
from chuhan.records.stream import RecordSource, source_lines
from chuhan.squares import Move
from chuhan.variants import get_variant

__all__ = ["HEADER_NAMES", "iter_dhtmlxq", "looks_like_dhtmlxq", "read_dhtmlxq"]

#: DhtmlXQ header tags and the PGN names they are read as.
HEADER_NAMES = {
    "title": "Title",
    "event": "Event",
    "date": "Date",
    "place": "Site",
    "round": "Round",
    "table": "Table",
    "red": "Red",
    "redteam": "RedTeam",
    "redlevel": "RedLevel",
    "redtime": "RedTime",
    "black": "Black",
    "blackteam": "BlackTeam",
    "blacklevel": "BlackLevel",
    "blacktime": "BlackTime",
    "open": "Opening",
    "ecco": "ECCO",
    "author": "Annotator",
    "remark": "Remark",
}
#: Tags that set up the viewer on a web page, not the game.
_VIEWER_TAGS = frozenset({"ver", "init", "pver", "adddate", "refer", "generator"})
#: The pieces ``binit`` places, in its order.
_BINIT_PIECES = "RNBAKABNRCCPPPPPrnbakabnrccppppp"
_RESULTS = {
    "红胜": "1-0",
    "紅勝": "1-0",
    "红先胜": "1-0",
    "紅先勝": "1-0",
    "黑负": "1-0",
    "黑負": "1-0",
    "黑胜": "0-1",
    "黑勝": "0-1",
    "红负": "0-1",
    "紅負": "0-1",
    "红先负": "0-1",
    "紅先負": "0-1",
    "和": "1/2-1/2",
    "和棋": "1/2-1/2",
    "红和": "1/2-1/2",
    "紅和": "1/2-1/2",
    "红先和": "1/2-1/2",
    "紅先和": "1/2-1/2",
    "1-0": "1-0",
    "0-1": "0-1",
    "1/2-1/2": "1/2-1/2",
}
_OPEN_TAG = re.compile(r"\[DhtmlXQ_(\w+)\]", re.IGNORECASE)
_CLOSE_TAG = re.compile(r"\[/DhtmlXQ_(\w+)\]", re.IGNORECASE)
_VARIATION = re.compile(r"move_(\d+)_(\d+)_(\d+)")
_COMMENT = re.compile(r"comment(?:(\d+)_)?(\d+)")
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
#: A block's start (``[DhtmlXQ]``, or ``[DhtmlXQiFrame]`` in a web page's iframe) or end.
_BLOCK_MARK = re.compile(r"\[(/?)DhtmlXQ(?:iFrame)?\]", re.IGNORECASE)
_LINE_BREAK_TAG = re.compile(r"<br\s*/?>", re.IGNORECASE)
#: The tags that hold the moves or the start: closed by another tag's end, they are errors.
_MOVE_TAGS = frozenset({"movelist", "binit", "fen"})


def looks_like_dhtmlxq(text: str) -> bool:
    """Whether ``text`` (a file's start will do) holds DhtmlXQ tags."""
    return "[dhtmlxq" in text.lower()


def iter_dhtmlxq(
    source: RecordSource,
    *,
    limits: ReadLimits = DEFAULT_READ_LIMITS,
    encoding: str | None = None,
) -> Iterator[GameRecord]:
    """Yield the games of a DhtmlXQ text, byte string or open file one at a time (see
    :func:`read_dhtmlxq`)."""
    for index, text in enumerate(_game_texts(source_lines(source, encoding))):
        if index >= limits.max_games:
            raise ReadLimitError(
                f"the file has more than {limits.max_games} games",
                limit="max_games",
                maximum=limits.max_games,
            )
        yield _read_game(text, index, limits)


def read_dhtmlxq(
    source: RecordSource,
    *,
    limits: ReadLimits = DEFAULT_READ_LIMITS,
    encoding: str | None = None,
) -> list[GameRecord]:
    """Read every game of a DhtmlXQ (UBB) text, bytes or open file.

    Bytes are decoded in ``encoding`` when given, else in the one detected (GBK/GB18030 or
    UTF-8 in practice). Problems in a game are in its record's ``errors`` (the moves before
    them are kept); the only error raised is :class:`ReadLimitError` for a file with more
    than ``limits.max_games`` games. Text outside the blocks (a web page around them) is
    skipped.
    """
    return list(iter_dhtmlxq(source, limits=limits, encoding=encoding))


def _game_texts(lines: Iterable[str]) -> Iterator[str]:
    """The text of each game: each ``[DhtmlXQ]`` block, or the tags of a text that has no
    block markers. A block ends at its ``[/DhtmlXQ]`` or at the next block's start, so a
    file of many games is read a game at a time; tags before, between or after the blocks
    (a page's scripts) are no game."""
    current: list[str] = []
    tagged = False  # the current text holds a tag
    in_block = False
    marked = False  # a block marker has been seen
    for line in lines:
        position = 0
        for mark in _BLOCK_MARK.finditer(line):
            piece = line[position : mark.start()]
            current.append(piece)
            tagged = tagged or "[dhtmlxq_" in piece.lower()
            position = mark.end()
            ending = bool(mark.group(1))
            if tagged and (ending or in_block):
                yield "".join(current)
            current, tagged = [], False
            in_block, marked = not ending, True
        piece = line[position:]
        current.append(piece)
        tagged = tagged or "[dhtmlxq_" in piece.lower()
    if tagged and (in_block or not marked):
        yield "".join(current)


def _holds_moves(name: str) -> bool:
    return name.lower() in _MOVE_TAGS or _VARIATION.fullmatch(name.lower()) is not None


def _tags(text: str) -> Iterator[tuple[str, str, str]]:
    """The ``(name, value, end tag's name when it is another's)`` of each tag, in order;
    raises :class:`ChuhanError` at a tag with no end tag before the next tag, or a move tag
    closed by another's end tag (tags do not nest). Linear: each search goes on from where
    the last one stopped, and the search for an end tag stops at the next tag."""
    opened = _OPEN_TAG.search(text)
    while opened is not None:
        name = opened.group(1)
        following = _OPEN_TAG.search(text, opened.end())
        closed = _CLOSE_TAG.search(
            text, opened.end(), following.start() if following else len(text)
        )
        if closed is None:
            raise ChuhanError(
                f"the tag [DhtmlXQ_{name}] is never closed ([/DhtmlXQ_{name}] is missing)"
            )
        closer = closed.group(1)
        if closer.lower() == name.lower():
            closer = ""
        elif _holds_moves(name):
            raise ChuhanError(f"the tag [DhtmlXQ_{name}] is closed by [/DhtmlXQ_{closer}]")
        yield name.lower(), text[opened.end() : closed.start()], closer
        opened = following


def _unescaped(text: str) -> str:
    """``text`` with its HTML entities made characters (``&nbsp;`` a space), as dpxq's
    viewer reads a page."""
    return html.unescape(text).replace("\xa0", " ") if "&" in text else text


def _header_text(value: str) -> str:
    return _unescaped(value).strip()


def _comment_text(value: str) -> str:
    text = _ESCAPE.sub(lambda match: chr(int(match.group(1), 16)), value)
    text = _unescaped(_LINE_BREAK_TAG.sub("\n", text))
    return text.replace("||", "\n").strip()


def _point(digits: str, what: str) -> str:
    """The ICCS name of a two-digit point (column, row from the top)."""
    column, row = int(digits[0]), int(digits[1])
    if column > 8:
        raise ChuhanError(f"{what}: {digits!r} is off the board (columns are 0 to 8)")
    return f"{chr(ord('a') + column)}{9 - row}"


def _start_fen(binit: str, movelist: str) -> str:
    """The FEN a ``binit`` value describes, the side to move taken from the first move."""
    digits = "".join(binit.split())
    if len(digits) != 64 or not digits.isdigit():
        raise ChuhanError(
            f"binit {_shorten(binit)!r} is not 64 digits (32 points, column then row)"
        )
    squares: dict[tuple[int, int], str] = {}
    for index, piece in enumerate(_BINIT_PIECES):
        pair = digits[2 * index : 2 * index + 2]
        if pair == "99":
            continue
        column, row = int(pair[0]), int(pair[1])
        if column > 8:
            raise ChuhanError(f"binit: piece {index + 1} ({piece}) at {pair!r} is off the board")
        if (column, row) in squares:
            raise ChuhanError(
                f"binit: pieces {squares[(column, row)]} and {piece} are both at {pair!r}"
            )
        squares[(column, row)] = piece
    rows = []
    for row in range(10):
        text, empty = "", 0
        for column in range(9):
            piece = squares.get((column, row), "")
            if not piece:
                empty += 1
                continue
            text += (str(empty) if empty else "") + piece
            empty = 0
        rows.append(text + (str(empty) if empty else ""))
    first = "".join(movelist.split())[:2]
    black_first = (
        len(first) == 2
        and first.isdigit()
        and squares.get((int(first[0]), int(first[1])), "R").islower()
    )
    return "/".join(rows) + (" b" if black_first else " w") + " - - 0 1"


def _groups(digits: str, what: str) -> list[str]:
    """The four-digit groups of a move list."""
    compact = "".join(digits.split())
    if compact and not compact.isdigit():
        raise ChuhanError(f"{what} {_shorten(compact)!r} holds something other than digits")
    if len(compact) % 4:
        raise ChuhanError(
            f"{what} has {len(compact)} digits, not a multiple of 4 (four digits a move)"
        )
    return [compact[start : start + 4] for start in range(0, len(compact), 4)]


class _BadMove(ChuhanError):
    """A move of a line that does not read, at ``ply``, given as ``digits``."""

    def __init__(self, reason: str, ply: int, digits: str) -> None:
        super().__init__(reason)
        self.ply = ply
        self.digits = digits


class _Game:
    """One game being read: the record, the nodes each line reached, the positions the
    variations start from, the limits."""

    def __init__(self, record: GameRecord, index: int, limits: ReadLimits) -> None:
        self.record = record
        self.index = index
        self.limits = limits
        #: (line, ply) -> the node after that ply of the line.
        self.nodes: dict[tuple[int, int], GameNode] = {(0, 0): record.root}
        #: The (line, ply) points variations hang from: the position after that ply of
        #: the line (or before its first move), kept as the line is played, so that each
        #: variation starts without replaying the game up to it.
        self.wanted: set[tuple[int, int]] = set()
        self.bases: dict[tuple[int, int], tuple[GameNode, str]] = {}

    def play(
        self, line: int, what: str, node: GameNode, fen: str, first_ply: int, digits: str
    ) -> None:
        """Play a line's moves from ``node`` (the position ``fen``, before ``first_ply``)."""
        board = Board(fen, variant=self.record.variant)
        if (line, first_ply - 1) in self.wanted:
            self.bases[(line, first_ply - 1)] = (node, fen)
        for offset, group in enumerate(_groups(digits, what)):
            ply = first_ply + offset
            label = f"{what}, ply {ply} {group!r}"
            try:
                move = Move.from_iccs(_point(group[:2], label) + _point(group[2:], label))
            except ChuhanError as error:
                raise _BadMove(str(error), ply, group) from None
            if ply > self.limits.max_plies:
                raise ReadLimitError(
                    f"{what} has more than {self.limits.max_plies} plies",
                    limit="max_plies",
                    maximum=self.limits.max_plies,
                )
            if not board.is_legal(move):
                why = board.why_illegal(move)
                raise _BadMove(
                    f"{label} ({move.iccs()}): illegal in {board.fen()}: {why}", ply, group
                )
            board.push(move)
            node = node.add_variation(move)
            self.nodes[(line, ply)] = node
            if (line, ply) in self.wanted:
                self.bases[(line, ply)] = (node, board.fen())


def _read_game(text: str, index: int, limits: ReadLimits) -> GameRecord:
    record = GameRecord(variant=get_variant("xiangqi"))
    game = _Game(record, index, limits)
    try:
        _fill(game, text)
    except ReadLimitError as error:
        record.errors.append(
            ReadLimitError(
                error.reason,
                game=record.describe(index),
                limit=error.limit,
                maximum=error.maximum,
            )
        )
    except ChuhanError as error:
        record.errors.append(RecordError(str(error), game=record.describe(index)))
    return record


def _fill(game: _Game, text: str) -> None:
    record = game.record
    values: dict[str, str] = {}
    variations: list[tuple[int, int, int, str]] = []
    comments: dict[tuple[int, int], str] = {}
    mismatched: list[tuple[str, str]] = []
    try:
        # A bad tag stops the reading; the headers before it name the game in the error.
        for name, value, closer in _tags(text):
            if closer:
                mismatched.append((name, closer))
            variation = _VARIATION.fullmatch(name)
            comment = _COMMENT.fullmatch(name)
            if variation is not None:
                parent, ply, number = (int(group) for group in variation.groups())
                variations.append((number, parent, ply, value))
            elif comment is not None:
                line = int(comment.group(1) or 0)
                comments[(line, int(comment.group(2)))] = _comment_text(value)
            elif name in HEADER_NAMES:
                record.headers[HEADER_NAMES[name]] = _header_text(value)
            elif name == "result":
                record.headers["Result"] = _RESULTS.get(_header_text(value), "*")
            elif name in ("binit", "movelist", "fen"):
                values[name] = value
            elif name not in _VIEWER_TAGS:
                record.headers[f"DhtmlXQ_{name}"] = _header_text(value)
        record.headers.setdefault("Result", "*")
        _play_lines(game, values, variations)
    finally:
        # What was read is kept whatever stopped the reading: the comments of the moves
        # read, and what the reader took otherwise than the file says.
        for (line, ply), said in comments.items():
            node = game.nodes.get((line, ply))
            if node is not None and said:
                node.comment = said
        for name, closer in mismatched:
            record.warnings.append(
                RecordWarning(
                    f"the tag [DhtmlXQ_{name}] is closed by [/DhtmlXQ_{closer}]: "
                    "read up to that end tag",
                    game=record.describe(game.index),
                )
            )


def _play_lines(
    game: _Game, values: dict[str, str], variations: list[tuple[int, int, int, str]]
) -> None:
    """Set up the start and play the main line, then each variation (one that does not
    read is left out from its first bad move, with a :class:`VariationError`)."""
    record = game.record
    movelist = values.get("movelist", "")
    fen = values.get("fen", "").strip()
    if fen:
        record.fen = normalize_fen(fen if len(fen.split()) > 1 else f"{fen} w - - 0 1")
    elif values.get("binit", "").strip():
        record.fen = _start_fen(values["binit"], movelist)
    try:
        Board(record.fen, variant=record.variant)
    except ChuhanError as error:
        raise ChuhanError(f"cannot set up the start position: {error}") from None
    game.wanted = {(parent, ply - 1) for _, parent, ply, _ in variations}
    game.play(0, "the main line (movelist)", record.root, record.fen, 1, movelist)
    if len(variations) > game.limits.max_variations:
        raise ReadLimitError(
            f"more than {game.limits.max_variations} variations",
            limit="max_variations",
            maximum=game.limits.max_variations,
        )
    depth = {0: 0}
    # A variation's number is larger than its parent's: in number order, each parent
    # line is read before the lines that hang from it.
    for number, parent, ply, digits in sorted(variations):
        what = f"variation move_{parent}_{ply}_{number}"
        try:
            _play_variation(game, depth, what, number, parent, ply, digits)
        except ReadLimitError:
            raise
        except _BadMove as error:
            record.errors.append(
                VariationError(
                    f"{error}; the variation is left out from this move",
                    game=record.describe(game.index),
                    ply=error.ply,
                    move=error.digits,
                )
            )
        except ChuhanError as error:
            record.errors.append(
                VariationError(
                    f"{error}; the variation is left out",
                    game=record.describe(game.index),
                    ply=ply,
                )
            )


def _play_variation(
    game: _Game, depth: dict[int, int], what: str, number: int, parent: int, ply: int, digits: str
) -> None:
    if number in depth:
        raise ChuhanError(f"{what}: variation {number} is given twice (or is the main line)")
    if parent not in depth:
        raise ChuhanError(f"{what}: its parent line {parent} is not in the game")
    base = game.bases.get((parent, ply - 1))
    if base is None:
        raise ChuhanError(f"{what}: line {parent} has no ply {ply} to be an alternative to")
    depth[number] = depth[parent] + 1
    if depth[number] > game.limits.max_depth:
        raise ReadLimitError(
            f"{what}: variations nested more than {game.limits.max_depth} deep",
            limit="max_depth",
            maximum=game.limits.max_depth,
        )
    game.play(number, what, base[0], base[1], ply, digits)
