"""PGN for xiangqi and janggi, read leniently and written cleanly.

Two conventions are read:

- the xiangqi one (XQStudio, the WXF, Chinese sites): ``[Game "Chinese Chess"]``,
  ``[Format "ICCS"|"WXF"|"Chinese"]`` and moves in that notation; ICCS may be written
  ``H2-E2``. Moves are parsed by shape (:func:`chuhan.notation.parse_move`), so a file
  whose Format header is wrong still reads.
- pychess.org's exports: ``[Variant "Xiangqi"|"Janggi"]`` with Fairy-Stockfish SAN
  (``Hc3``, ``Che3``, ``Cxe7+``; ranks 1-10; a janggi pass is the king "moving" to its own
  square, ``Ke2``), plus its long form (``Hb1-c3``) and bare coordinates (``b1c3``); and
  WinBoard's, ranks 0-9 and soldiers without a letter (``g4``, ``gxf5``, ``gf5``).

Comments ``{}`` and ``;``, variations ``()``, NAGs ``$n`` and the suffixes ``!?`` are kept;
move numbers ``1.``/``1...`` and the result token are understood; a tag value an editor
broke over lines is one value. A move of the main line that does not parse stops its game
with a :class:`RecordError` on the record; one in a variation leaves that variation out
from there (a :class:`~chuhan.records.VariationError`), and the game reads on; the file's
other games still load. Nothing in the input makes the reader raise.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from chuhan.board import Board
from chuhan.errors import ChuhanError, InvalidMoveError
from chuhan.notation import format_move, parse_korean, parse_move
from chuhan.notation.san import (
    COORDINATES_PATTERN,
    PASS_WORDS,
    PAWN_SAN_PATTERN,
    SAN_PATTERN,
    parse_san,
    to_san,
)
from chuhan.records.game import (
    DEFAULT_READ_LIMITS,
    RESULTS,
    GameNode,
    GameRecord,
    ReadLimitError,
    ReadLimits,
    RecordError,
    VariationError,
    _shorten,
    normalize_fen,
)
from chuhan.records.stream import RecordSource, game_texts, source_lines
from chuhan.records.writing import comment_token, tagged_text
from chuhan.squares import Move
from chuhan.variants import Variant, get_variant

__all__ = [
    "PGN_FORMATS",
    "XIANGQI_FORMATS",
    "iter_headers",
    "iter_pgn",
    "parse_san",
    "read_pgn",
    "to_san",
    "write_pgn",
]

#: Move notations :func:`write_pgn` writes, with the ``Format`` header each gets.
PGN_FORMATS = {
    "iccs": "ICCS",
    "wxf": "WXF",
    "chinese": "Chinese",
    "chinese-simplified": "Chinese",
    "korean": "Korean",
    "san": "SAN",
}
#: The notations :func:`write_pgn` writes for xiangqi: Korean coordinates are janggi's.
XIANGQI_FORMATS = tuple(name for name in PGN_FORMATS if name != "korean")

# Every alternative either fails within a bounded look or consumes what it scanned, so one
# pass over the text is linear: no position is scanned again from each of many starts.
# Repeats are single character classes where possible, and possessive (``*+``) around
# groups: Python's engine keeps a backtracking entry for each pass of a repeated group,
# which made a 256 KB header value take 30 times as long as a 64 KB one. A tag is read by
# :func:`_scan_tag`, not by this pattern (``tag`` is only its ``[``): its value may run far
# before it turns out not to be one, and a pattern cannot stop at a ``[`` that starts
# another tag without scanning that tag's text from every earlier start on the line.
# A move number is not followed by one digit and a space: ``77.6`` is a WXF pawn move.
_TOKEN = re.compile(
    r"""
    (?P<tag>\[)
    | (?P<escape>(?m:^)%[^\n]*)
    | (?P<rule>(?m:^)[ \t]*[=*_~#-]{3,}[ \t\r]*$)
    | (?P<comment>\{[^}]*\}?)
    | (?P<line_comment>;[^\n]*)
    | (?P<open>\()
    | (?P<close>\))
    | (?P<nag>\$\d+)
    | (?P<result>(?:1-0|0-1|1/2-1/2|½-½|\*|１－０|０－１|１／２－１／２|＊)(?=[\s(){}]|$))
    | (?P<number>\d++\s*+(?:\.\s*\.\s*\.|…|\.|．)++(?!\d(?:[\s(){};]|$)))
    | (?P<move>[^\s{}()\[\];$]+)
    | (?P<junk>\S)
    """,
    re.VERBOSE | re.MULTILINE,
)
# A tag is ``[``, a key, a quoted value and ``]``. The value runs to the ``"`` before its
# ``]``, as other PGN readers take it: quotes inside need no backslash
# (``[Event ""Huangshan Cup" 2002"]``), and after such a bare quote it holds no ``[``. It
# never holds a ``[`` that opens another tag (``[key "``), escaped or not: that ``[`` is
# where the next try starts, so each character is read by the value of one tag at most
# and a line of many broken tags is read once, not once from each of its tags.
#: A tag's opening at a ``[``: always matches; a tag when the key is not empty and a
#: ``"`` follows.
_TAG_OPEN = re.compile(r'\[\s*+([^\s\[\]"]*+)\s*+')
#: The value's characters up to the next quote, ``[``, line end or escaped ``[``.
_TAG_VALUE = re.compile(r'[^"\\\n\[]*+(?:\\[^\n\[][^"\\\n\[]*+)*+')
#: A quote and the blanks after it: the tag's end when a ``]`` follows.
_TAG_QUOTE = re.compile(r'"[ \t]*+')
#: The blanks at the start of a line: a tag's value does not run on past a blank line.
_BLANKS = re.compile(r"[ \t\r]*+")
#: How many line breaks a tag's value may run over (an editor's wrapping of a long name);
#: a blank line, or the line of another tag, ends it all the same.
_TAG_LINE_BREAKS = 3
#: A line that starts a tag and is none (no quotes, no closing bracket), read as well as
#: it can be (:func:`_loose_tag`).
_LOOSE_TAG = re.compile(r'\[[ \t]*[^\s\[\]"][^\[\n]*')
#: The longest move token tried as a move: notations need a dozen characters at most.
_LONGEST_MOVE = 32
_SUFFIX_NAGS = {"!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6}
_SUFFIX = re.compile(r"([!?]{1,2})$")
#: A SAN move whose ranks say which numbering the file uses: a 0 only counts from 0
#: (WinBoard), a 10 only from 1 (Fairy-Stockfish).
_RANK_ZERO = re.compile(r"[a-i]0(?![0-9])")
_RANK_TEN = re.compile(r"[a-i]10")
_GAME_NAMES = {
    "chinese chess": "xiangqi",
    "xiangqi": "xiangqi",
    "janggi": "janggi",
    "korean chess": "janggi",
    "changgi": "janggi",
}


# ---------------------------------------------------------------------- reading


@dataclass(frozen=True)
class _Options:
    """How the games of one file are read."""

    rules: str | None
    korean: bool
    limits: ReadLimits


@dataclass
class _GameBuilder:
    """The state of one game while its tokens arrive.

    ``board`` is always the position at ``node``: a variation takes back the move it is
    an alternative to and its close plays the moves back, so no position is ever replayed
    from the start of the game (which would make late variations cost the game's length).
    """

    index: int
    limits: ReadLimits
    headers: dict[str, str] = field(default_factory=dict)
    record: GameRecord | None = None
    board: Board | None = None
    node: GameNode | None = None
    #: One entry per open variation: the node it is an alternative to, and the ply of that
    #: node's parent, where the board goes back to when the variation closes.
    stack: list[tuple[GameNode, int]] = field(default_factory=list)
    variations: int = 0
    fsf_first: bool = False
    started: bool = False
    #: A token other than a tag has come: the next tag starts another game.
    movetext: bool = False
    failed: bool = False
    #: Inside a variation that did not read: how many parentheses are open in it, so the
    #: tokens up to its close are passed over (0: reading).
    skipping: int = 0
    result_token: str = ""
    pending_comment: list[str] = field(default_factory=list)
    #: The comments of each node, joined once at the end (appending to a node's comment
    #: string one piece at a time would copy it again for every piece).
    comments: dict[GameNode, list[str]] = field(default_factory=dict)
    #: How the game's SAN numbers ranks (0: WinBoard's 0-9, 1: Fairy-Stockfish's 1-10),
    #: once a move has shown it; ``None`` until then.
    first_rank: int | None = None
    #: A SAN move was read counting ranks from 1 with nothing yet to show it.
    san_guessed: bool = False
    #: SAN moves whose capture or check mark the board contradicts, while the rank
    #: numbering is still a guess.
    marks_disagree: int = 0
    #: The movetext tokens (kind, text, line), kept to read the game again with the other
    #: rank numbering when the first reading fails.
    tokens: list[tuple[str, str, int]] = field(default_factory=list)
    #: The line of the token being handled, for error messages.
    line: int = 0


def _variant_for(headers: dict[str, str], rules: str | None) -> Variant:
    name = headers.get("Variant") or headers.get("Game") or "xiangqi"
    game = _GAME_NAMES.get(name.strip().lower(), name.strip().lower())
    if ":" in game:
        return get_variant(game)
    return get_variant(game, rules or headers.get("Rules") or None)


def _start(builder: _GameBuilder, options: _Options) -> GameRecord:
    """Create the record once the headers are known (at the first movetext token)."""
    if builder.record is not None:
        return builder.record
    headers = builder.headers
    record = GameRecord(headers=headers)
    builder.record = record
    builder.node = record.root
    move_format = headers.get("Format", "").strip().upper()
    builder.fsf_first = move_format == "SAN" or ("Variant" in headers and not move_format)
    try:
        if options.korean:
            from chuhan.records.gib import gib_setup

            record.variant, record.fen = gib_setup(headers, options.rules)
        else:
            record.variant = _variant_for(headers, options.rules)
            fen = headers.get("FEN", "").strip()
            record.fen = normalize_fen(fen) if fen else record.variant.start_fen
        builder.board = record.start_board()
    except ChuhanError as error:
        _fail(builder, f"cannot set up the start position: {error}")
        builder.board = None
    return record


def _fail(builder: _GameBuilder, reason: str, *, limit: str = "") -> None:
    """Stop reading the game, with an error that names it (and the limit it passed)."""
    record = builder.record
    assert record is not None
    game = record.describe(builder.index)
    if limit:
        maximum = getattr(builder.limits, limit)
        record.errors.append(ReadLimitError(reason, game=game, limit=limit, maximum=maximum))
    else:
        record.errors.append(RecordError(reason, game=game))
    builder.failed = True


class _RanksFromZero(ChuhanError):
    """A SAN move counts ranks from 0 after moves were read counting from 1."""


def _ascii_form(text: str) -> str:
    """``text`` with full-width letters, digits and signs made ASCII (``Ｃ２＝５`` is
    ``C2=5``) when that leaves it all ASCII; Chinese notation keeps its own characters."""
    if text.isascii():
        return text
    folded = unicodedata.normalize("NFKC", text)
    return folded if folded.isascii() else text


def _parse_san_token(builder: _GameBuilder, board: Board, text: str) -> Move:
    if _RANK_ZERO.search(text):
        if builder.first_rank is None and builder.san_guessed:
            raise _RanksFromZero(f"{text!r} counts ranks from 0, the moves before it from 1")
        builder.first_rank = 0 if builder.first_rank is None else builder.first_rank
    elif _RANK_TEN.search(text) and builder.first_rank is None:
        builder.first_rank = 1
    if builder.first_rank is None:
        builder.san_guessed = True
    move = parse_san(
        board, text, first_rank=1 if builder.first_rank is None else builder.first_rank
    )
    if builder.first_rank != 1 and not _marks_agree(board, move, text):
        builder.marks_disagree += 1
    return move


def _marks_agree(board: Board, move: Move, text: str) -> bool:
    """Whether a SAN move's capture mark (``x``) and check mark (``+``, ``#``), where it has
    one, say what ``move`` does on ``board``: the test between two readings of a file's
    rank numbers that are both legal throughout."""
    if ("x" in text) != bool(board.piece_code_at(move.to_square)) and not move.is_pass():
        return False
    if text.endswith(("+", "#")):
        board.push_code(move.from_square << 7 | move.to_square)
        try:
            return board.is_check()
        finally:
            board.pop()
    return True


def _parse_token(builder: _GameBuilder, board: Board, text: str, korean: bool) -> Move:
    if korean:
        try:
            return parse_korean(board, text)
        except InvalidMoveError:
            return parse_move(board, text)
    bare = text.rstrip("+#")
    san_shaped = SAN_PATTERN.match(bare) is not None or PAWN_SAN_PATTERN.match(bare) is not None
    if builder.fsf_first and (san_shaped or COORDINATES_PATTERN.match(bare)):
        return _parse_san_token(builder, board, text)
    if san_shaped and text[0].isupper():
        # 'E5e3' and 'Ch2e2' are SAN (a piece letter, a lower-case target), though the
        # letters A-I would also make them ICCS coordinates.
        try:
            return _parse_san_token(builder, board, text)
        except _RanksFromZero:
            raise
        except ChuhanError as san_error:
            try:
                return parse_move(board, text)
            except ChuhanError:
                raise san_error from None
    try:
        return parse_move(board, text)
    except InvalidMoveError:
        if san_shaped or text.casefold() in PASS_WORDS:
            return _parse_san_token(builder, board, text)
        raise


def _move_label(builder: _GameBuilder, board: Board, text: str) -> str:
    dots = "." if board.turn else "..."
    where = f"ply {board.ply + 1}, line {builder.line}"
    return f"move {board.fullmove_number}{dots} {_shorten(text)!r} ({where})"


def _play(builder: _GameBuilder, board: Board, node: GameNode, text: str, korean: bool) -> None:
    limit = builder.limits.max_plies
    if board.ply >= limit:
        if builder.stack:
            _fail(builder, f"a variation has more than {limit} plies", limit="max_plies")
        else:
            _fail(builder, f"the main line has more than {limit} plies", limit="max_plies")
        return
    if len(text) > _LONGEST_MOVE:
        reason = f"not a move in any notation (longer than {_LONGEST_MOVE} characters)"
        _fail_move(builder, board, text, reason)
        return
    suffix = _SUFFIX.search(text)
    move_text = _ascii_form(text[: suffix.start()] if suffix else text)
    try:
        move = _parse_token(builder, board, move_text, korean)
    except (ChuhanError, IndexError, KeyError) as error:
        _fail_move(builder, board, text, str(error))
        return
    child = node.add_variation(move)
    if builder.pending_comment:
        builder.comments[child] = builder.pending_comment
        builder.pending_comment = []
    if suffix:
        child.nags.append(_SUFFIX_NAGS.get(suffix.group(1), 0))
    # The parsers return legal moves only: push without asking again.
    board.push_code(move.from_square << 7 | move.to_square)
    builder.node = child


def _fail_move(builder: _GameBuilder, board: Board, text: str, reason: str) -> None:
    """A move that does not read: in the main line it stops the game; in a variation it
    drops the variation from this move on (what came before it, the rest of the game and
    the other variations are kept), with a :class:`VariationError` naming the move."""
    label = f"{_move_label(builder, board, text)}: {reason}"
    if not builder.stack:
        _fail(builder, label)
        return
    record = builder.record
    assert record is not None
    record.errors.append(
        VariationError(
            f"{label}; the variation is left out from this move",
            game=record.describe(builder.index),
            ply=board.ply + 1,
            move=_shorten(text),
        )
    )
    builder.skipping = 1
    builder.pending_comment = []


def _open_variation(builder: _GameBuilder, board: Board, node: GameNode) -> None:
    limits = builder.limits
    if node.parent is None:
        _fail(builder, f"a variation before any move (line {builder.line})")
    elif len(builder.stack) >= limits.max_depth:
        _fail(builder, f"variations nested more than {limits.max_depth} deep", limit="max_depth")
    elif builder.variations >= limits.max_variations:
        _fail(builder, f"more than {limits.max_variations} variations", limit="max_variations")
    else:
        builder.variations += 1
        board.pop()
        builder.stack.append((node, board.ply))
        builder.node = node.parent


def _close_variation(builder: _GameBuilder, board: Board) -> None:
    if not builder.stack:
        return
    node, parent_ply = builder.stack.pop()
    while board.ply > parent_ply:
        board.pop()
    assert node.move is not None
    board.push(node.move)
    builder.node = node


def _handle(builder: _GameBuilder, kind: str, text: str, korean: bool) -> None:
    board, node = builder.board, builder.node
    if board is None or node is None or builder.failed:
        return
    if builder.skipping:
        if kind == "open":
            builder.skipping += 1
        elif kind == "close":
            builder.skipping -= 1
            if not builder.skipping:
                _close_variation(builder, board)
        return
    if kind == "comment":
        body = text[1:-1] if text.endswith("}") else text[1:]
        _add_comment(builder, node, body.strip())
    elif kind == "line_comment":
        _add_comment(builder, node, text[1:].strip())
    elif kind == "nag":
        # PGN's NAGs are 0-255; the length test keeps int() off a huge run of digits.
        if len(text) > 4 or int(text[1:]) > 255:
            _fail(builder, f"NAG {_shorten(text)!r} is not a number from 0 to 255")
        else:
            node.nags.append(int(text[1:]))
    elif kind == "open":
        _open_variation(builder, board, node)
    elif kind == "close":
        _close_variation(builder, board)
    elif kind == "move":
        _play(builder, board, node, text, korean)


def _add_comment(builder: _GameBuilder, node: GameNode, text: str) -> None:
    if not text:
        return
    if node.parent is None or (builder.stack and node is builder.stack[-1][0].parent):
        # A comment at the start of a game or variation belongs before the next move;
        # at the very start it is the game comment.
        if node.parent is None and not node.children:
            builder.comments.setdefault(node, []).append(text)
        else:
            builder.pending_comment.append(text)
        return
    builder.comments.setdefault(node, []).append(text)


def _reread_from_rank_zero(builder: _GameBuilder, options: _Options) -> _GameBuilder:
    """The game read again with its SAN counting ranks from 0 (WinBoard), when it was read
    counting from 1 with no move to show which numbering the file uses (no rank 0 or 10).

    The reading that gets further is kept; when both read every move, the one whose
    capture and check marks agree with the board more often, and counting from 1
    (Fairy-Stockfish, pychess.org) when they agree equally: such a game is legal both
    ways, which takes a short game with no capture or check to happen.
    """
    if not (builder.san_guessed and builder.first_rank is None):
        return builder
    again = _GameBuilder(builder.index, builder.limits, headers=dict(builder.headers))
    again.started = again.movetext = True
    again.first_rank = 0
    again.result_token = builder.result_token
    _start(again, options)
    for kind, text, line in builder.tokens:
        again.line = line
        _handle(again, kind, text, options.korean)
    if builder.failed:
        return again if not again.failed or _plies_read(again) > _plies_read(builder) else builder
    if again.failed or _plies_read(again) != _plies_read(builder):
        return builder
    # Both read the main line: the one with fewer variations left out, then the one
    # whose marks fit better.
    if (_errors(again), again.marks_disagree) < (_errors(builder), builder.marks_disagree):
        return again
    return builder


def _plies_read(builder: _GameBuilder) -> int:
    return 0 if builder.record is None else len(builder.record.main_line_moves())


def _errors(builder: _GameBuilder) -> int:
    return 0 if builder.record is None else len(builder.record.errors)


def _finish(builder: _GameBuilder, options: _Options) -> GameRecord:
    _start(builder, options)
    builder = _reread_from_rank_zero(builder, options)
    record = _start(builder, options)
    if builder.pending_comment:
        builder.comments.setdefault(record.end(), []).extend(builder.pending_comment)
    for node, parts in builder.comments.items():
        node.comment = " ".join(parts)
    _set_result(record.headers, builder.result_token, options.korean)
    return record


def _set_result(headers: dict[str, str], token: str, korean: bool) -> None:
    token = unicodedata.normalize("NFKC", token).replace("1⁄2-1⁄2", "1/2-1/2")
    if "Result" not in headers and token:
        headers["Result"] = token
    elif headers.get("Result") not in RESULTS:
        headers["Result"] = token or "*"
    if korean and headers["Result"] == "*":
        from chuhan.records.gib import result_from_korean

        headers["Result"] = result_from_korean(headers.get("대국결과", ""))


def _begin(builder: _GameBuilder) -> None:
    """Count the builder's game in the file when its first token arrives."""
    if builder.started:
        return
    builder.started = True
    maximum = builder.limits.max_games
    if builder.index >= maximum:
        raise ReadLimitError(
            f"the file has more than {maximum} games", limit="max_games", maximum=maximum
        )


def _scan_tag(text: str, start: int) -> tuple[tuple[str, str] | None, int, int]:
    """The tag at the ``[`` at ``start``: ``(key and value, or None when it is not one; the
    end of the tag; how many characters were read)``.

    The count is the work done: each character read by a pattern here and the one that
    stopped it. What is read past a failed tag's ``[`` is read again by the token after it,
    so a text's tags together read at most a few times the text (the hostile-record tests
    hold every shape of input to that).
    """
    opening = _TAG_OPEN.match(text, start)
    assert opening is not None  # the pattern matches at any ``[``
    value_start = opening.end() + 1
    read = value_start - start
    if not opening[1] or not text.startswith('"', opening.end()):
        return None, start, read
    position, bare, breaks = value_start, False, 0
    while True:
        run = _TAG_VALUE.match(text, position)
        assert run is not None  # the pattern matches the empty string
        read += run.end() - position + 1
        position = run.end()
        if text.startswith('"', position):
            quote = _TAG_QUOTE.match(text, position)
            assert quote is not None
            read += quote.end() - position
            if text.startswith("]", quote.end()):
                value = text[value_start:position].replace('\\"', '"').replace("\\\\", "\\")
                if breaks:
                    value = _joined_lines(value)
                return (opening[1], value), quote.end() + 1, read
            position, bare = position + 1, True
            continue
        if text.startswith("\n", position) and breaks < _TAG_LINE_BREAKS:
            # A value broken over lines goes on on the next line, unless that is blank.
            blanks = _BLANKS.match(text, position + 1)
            assert blanks is not None  # the pattern matches the empty string
            read += blanks.end() - position
            if blanks.end() == len(text) or text[blanks.end()] == "\n":
                return None, start, read
            position, breaks = blanks.end(), breaks + 1
            continue
        if text.startswith("\\[", position):
            position += 1  # an escaped ``[``: a tag's opening all the same
        elif not text.startswith("[", position) or bare:
            return None, start, read  # a line end, the text's end, or ``[`` after a quote
        bracket = _TAG_OPEN.match(text, position)
        assert bracket is not None
        read += bracket.end() - position + 1
        if bracket[1] and text.startswith('"', bracket.end()):
            return None, start, read
        position += 1


def _joined_lines(value: str) -> str:
    """A tag value broken over lines as one line: each break and the blanks around it
    are a space, or nothing between two Chinese characters (which take no spaces)."""
    parts = [part.strip() for part in value.split("\n")]
    joined = parts[0]
    for part in parts[1:]:
        if not joined or not part or (not joined[-1].isascii() and not part[0].isascii()):
            joined += part
        else:
            joined += " " + part
    return joined


def _loose_tag(body: str) -> tuple[str, str]:
    """A line that starts a tag and is none (``[Event "Cup]``, ``[Site x]``), read as well as
    it can be: the first word is the key, the rest without its quotes the value."""
    body = body[1:].strip()
    if body.endswith("]"):
        body = body[:-1].rstrip()
    key, _, value = body.partition('"')
    if not _:
        key, _, value = body.partition(" ")
    value = value.strip()
    if value.endswith('"'):
        value = value[:-1]
    return key.strip(), value.strip()


def _games(
    texts: Iterable[tuple[int, str]], options: _Options, *, headers_only: bool = False
) -> Iterator[_GameBuilder]:
    """Each game of the texts, tokenized: the builder of each (with its record, unless
    ``headers_only``), in file order.

    Every token is found by one pass of :data:`_TOKEN` (a tag by :func:`_scan_tag`) and
    handled in constant time (a move: the time to parse it; a variation's close: the
    moves it takes back), so the time is linear in the length of the text. Raises
    :class:`ReadLimitError` when there are more than ``limits.max_games`` games.
    """
    limits = options.limits
    builder = _GameBuilder(0, limits)
    # A rule line (``=========``) after a game's movetext ends the game, and what follows
    # it up to the next tag is the file's trailer (a program's name, a web address), not
    # another game.
    trailer = False
    for first_line, text in texts:
        line, seen = first_line, 0
        position = 0
        while match := _TOKEN.search(text, position):
            position = match.end()
            kind = match.lastgroup or "junk"
            if kind == "rule":
                trailer = trailer or builder.movetext
                continue
            if kind in ("junk", "escape"):
                continue
            if kind == "tag":
                tag, end, _ = _scan_tag(text, match.start())
                if tag is None and (loose := _LOOSE_TAG.match(text, match.start())):
                    tag, end = _loose_tag(loose.group()), loose.end()
                if tag is None:
                    continue  # a ``[`` alone: junk
                position = end
                key, value = tag
            line += text.count("\n", seen, match.start())
            seen = match.start()
            if kind == "tag":
                if not key:
                    continue
                trailer = False
                if builder.movetext:
                    yield builder
                    builder = _GameBuilder(builder.index + 1, limits)
                _begin(builder)
                builder.headers[key] = value
                continue
            if trailer:
                continue
            if builder.result_token and kind != "comment":
                yield builder
                builder = _GameBuilder(builder.index + 1, limits)
            _begin(builder)
            builder.movetext = True
            if kind == "result":
                builder.result_token = match.group()
            elif headers_only:
                continue
            else:
                _start(builder, options)
                if kind != "number":
                    builder.line = line
                    builder.tokens.append((kind, match.group(), line))
                    _handle(builder, kind, match.group(), options.korean)
    if builder.started:
        yield builder


def iter_records(
    source: RecordSource,
    *,
    rules: str | None = None,
    korean: bool = False,
    limits: ReadLimits = DEFAULT_READ_LIMITS,
    encoding: str | None = None,
) -> Iterator[GameRecord]:
    """Each game of PGN-like ``source`` (shared by the PGN and GIB readers), read as it is
    wanted: an open file is read a game at a time."""
    options = _Options(rules, korean, limits)
    texts = game_texts(source_lines(source, encoding))
    for builder in _games(texts, options):
        yield _finish(builder, options)


def iter_pgn(
    source: RecordSource,
    *,
    rules: str | None = None,
    limits: ReadLimits = DEFAULT_READ_LIMITS,
    encoding: str | None = None,
) -> Iterator[GameRecord]:
    """Yield the games of a PGN text, byte string or open file one at a time, reading the
    file only as far as the games asked for (python-chess's ``read_game`` loop)::

        with open("big.pgn", "rb") as handle:
            for record in iter_pgn(handle):
                ...

    Bytes are decoded in ``encoding`` when given (``"gb18030"``, ``"big5"``,
    ``"euc-kr"``...), else in the one detected (see :mod:`chuhan.records.encoding`).
    ``rules`` and ``limits`` as in :func:`read_pgn`; a game's problems are in its
    ``errors``, and :class:`ReadLimitError` is raised when the game past
    ``limits.max_games`` is reached.
    """
    return iter_records(source, rules=rules, limits=limits, encoding=encoding)


def iter_headers(
    source: RecordSource,
    *,
    encoding: str | None = None,
    limits: ReadLimits = DEFAULT_READ_LIMITS,
) -> Iterator[dict[str, str]]:
    """The tags of each game of a PGN or GIB source, without reading its moves: a quick
    scan of a database (the ``Result`` tag is filled from the result token when the tags
    have none). Games are counted as :func:`iter_pgn` counts them."""
    options = _Options(None, False, limits)
    texts = game_texts(source_lines(source, encoding))
    for builder in _games(texts, options, headers_only=True):
        korean = "초차림" in builder.headers or "대국결과" in builder.headers
        _set_result(builder.headers, builder.result_token, korean)
        yield builder.headers


def read_pgn(
    source: RecordSource,
    *,
    rules: str | None = None,
    limits: ReadLimits = DEFAULT_READ_LIMITS,
    encoding: str | None = None,
) -> list[GameRecord]:
    """Read every game in a PGN text, byte string or open file (:func:`iter_pgn` reads
    them one at a time).

    ``rules`` picks the rule set (``"chinese"``, ``"modern"``...) when the file does not
    (a ``Rules`` header or a ``Variant`` like ``janggi:modern``). ``limits`` bounds what a
    game may hold (see :class:`ReadLimits`). ``encoding`` decodes bytes (default: detected).
    Problems in a game, a limit it passes included, are in its record's ``errors``; the
    only error raised is :class:`ReadLimitError` for a file with more than
    ``limits.max_games`` games. The time taken is linear in the size of the text,
    whatever it holds.
    """
    return list(iter_pgn(source, rules=rules, limits=limits, encoding=encoding))


# ---------------------------------------------------------------------- writing


def _format(board: Board, move: Move, notation: str) -> str:
    if notation == "san":
        return to_san(board, move)
    return format_move(board, move, notation)


@dataclass
class _Line:
    """A line :func:`movetext_tokens` is writing: the node it has reached, the variations
    of that node's next move still to write (``None`` before the move is written), the
    moves it has pushed, and whether its next move needs its number."""

    node: GameNode
    force_number: bool
    variations: Iterator[GameNode] | None = None
    pushed: int = 0


def movetext_tokens(record: GameRecord, notation: str, *, numbers: bool = True) -> list[str]:
    """The movetext of ``record`` as tokens: numbers, moves, NAGs, comments, variations.

    The tree is walked with an explicit stack, one entry per line being written (the main
    line, and each variation open around the current move), so neither a long game nor
    deeply nested variations reach Python's recursion limit.
    """
    tokens: list[str] = []
    if record.root.comment:
        tokens.append(comment_token(record.root.comment))
    board = record.start_board()

    def emit(node: GameNode, force_number: bool) -> None:
        assert node.move is not None
        if numbers and board.turn:
            tokens.append(f"{board.fullmove_number}.")
        elif numbers and force_number:
            tokens.append(f"{board.fullmove_number}...")
        tokens.append(_format(board, node.move, notation))
        tokens.extend(f"${nag}" for nag in node.nags)
        if node.comment:
            tokens.append(comment_token(node.comment))

    stack = [_Line(record.root, force_number=True)]
    while stack:
        line = stack[-1]
        if line.variations is None:
            if line.node.children:
                # The next move, then (on later passes) each alternative to it.
                main = line.node.children[0]
                emit(main, line.force_number)
                line.force_number = False
                line.variations = iter(line.node.children[1:])
                continue
            for _ in range(line.pushed):
                board.pop()
            stack.pop()
            if stack:  # the end of a variation: take back its first move
                board.pop()
                tokens.append(")")
            continue
        other = next(line.variations, None)
        if other is not None:
            assert other.move is not None
            tokens.append("(")
            emit(other, True)
            board.push(other.move)
            line.force_number = True
            stack.append(_Line(other, force_number=False))
            continue
        main = line.node.children[0]
        assert main.move is not None
        board.push(main.move)
        line.pushed += 1
        line.force_number = line.force_number or bool(main.comment)
        line.node, line.variations = main, None
    return tokens


def write_pgn(record: GameRecord, format: str = "iccs") -> str:
    """Write ``record`` as PGN with moves in ``format`` (see :data:`PGN_FORMATS`):
    ``chinese`` writes the traditional characters (``傌二進三``), ``chinese-simplified``
    the simplified ones (``马二进三``); ``korean`` (GIB's coordinates, ``02마83``) is for
    janggi only, since no xiangqi program reads it.

    Xiangqi gets ``[Game "Chinese Chess"]``, janggi ``[Game "Janggi"]`` and
    ``[Variant "Janggi"]``; ``Format``, ``FEN`` (when the start is not the standard one)
    and ``Result`` are set from the record, the other headers are kept in their order.
    Raises :class:`RecordError` for an unknown format, Korean for xiangqi, or a move that
    cannot be written.
    """
    notation = format.strip().lower()
    if notation not in PGN_FORMATS:
        raise RecordError(
            f"unknown PGN move format {format!r}: expected one of {', '.join(PGN_FORMATS)}"
        )
    if notation == "korean" and not record.variant.is_janggi:
        raise RecordError(
            f"cannot write {record.describe()} in Korean notation: it is janggi's; write "
            f"xiangqi in {', '.join(XIANGQI_FORMATS)}"
        )
    headers: dict[str, str] = {}
    janggi = record.variant.is_janggi
    headers["Game"] = "Janggi" if janggi else "Chinese Chess"
    if janggi:
        headers["Variant"] = "Janggi"
    for key, value in record.headers.items():
        if key not in ("Game", "Variant", "Format", "FEN", "Result", "Rules", "SetUp"):
            headers[key] = value
    if record.variant.rules != get_variant(record.variant.game).rules:
        headers["Rules"] = record.variant.rules
    headers["Format"] = PGN_FORMATS[notation]
    if record.fen.split()[0] != record.variant.start_fen.split()[0] or (
        record.fen.split()[1:2] != ["w"]
    ):
        headers["FEN"] = record.fen
    headers["Result"] = record.result
    try:
        tokens = movetext_tokens(record, notation)
    except ChuhanError as error:
        raise RecordError(f"cannot write {record.describe()} in {format}: {error}") from error
    tokens.append(record.result)
    return tagged_text(headers, tokens)
