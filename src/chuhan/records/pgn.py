"""PGN for xiangqi and janggi, read leniently and written cleanly.

Two conventions are read:

- the xiangqi one (XQStudio, the WXF, Chinese sites): ``[Game "Chinese Chess"]``,
  ``[Format "ICCS"|"WXF"|"Chinese"]`` and moves in that notation; ICCS may be written
  ``H2-E2``. Moves are parsed by shape (:func:`chuhan.notation.parse_move`), so a file
  whose Format header is wrong still reads.
- pychess.org's exports: ``[Variant "Xiangqi"|"Janggi"]`` with Fairy-Stockfish SAN
  (``Hc3``, ``Che3``, ``Cxe7+``; ranks 1-10; a janggi pass is the king "moving" to its own
  square, ``Ke2``), plus its long form (``Hb1-c3``) and bare coordinates (``b1c3``).

Comments ``{}`` and ``;``, variations ``()``, NAGs ``$n`` and the suffixes ``!?`` are kept;
move numbers ``1.``/``1...`` and the result token are understood. A move that does not
parse stops its game with a :class:`RecordError` on the record; the file's other games
still load. Nothing in the input makes the reader raise.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO

from chuhan.board import Board
from chuhan.errors import (
    AmbiguousMoveError,
    ChuhanError,
    IllegalMoveError,
    InvalidMoveError,
)
from chuhan.notation import format_move, parse_korean, parse_move
from chuhan.records.game import (
    DEFAULT_READ_LIMITS,
    RESULTS,
    GameNode,
    GameRecord,
    ReadLimitError,
    ReadLimits,
    RecordError,
    _shorten,
)
from chuhan.squares import FILE_NAMES, FILES, Move
from chuhan.variants import (
    KING,
    WXF_LETTER_TYPES,
    WXF_LETTERS,
    Variant,
    get_variant,
)

__all__ = ["PGN_FORMATS", "parse_san", "read_pgn", "to_san", "write_pgn"]

#: Move notations :func:`write_pgn` writes, with the ``Format`` header each gets.
PGN_FORMATS = {
    "iccs": "ICCS",
    "wxf": "WXF",
    "chinese": "Chinese",
    "korean": "Korean",
    "san": "SAN",
}

# Every alternative either fails within a bounded look (a header's key stops at the next
# bracket, its value at the next quote or newline) or consumes what it scanned, so one
# pass over the text is linear: no position is scanned again from each of many starts.
# Repeats are single character classes where possible, and possessive (``*+``) around
# groups: Python's engine keeps a backtracking entry for each pass of a repeated group,
# which made a 256 KB header value take 30 times as long as a 64 KB one.
_TOKEN = re.compile(
    r"""
    (?P<header>\[\s*(?P<key>[^\s\[\]"]+)\s*
        "(?P<value>[^"\\\n]*+(?:\\.[^"\\\n]*+)*+)"\s*\])
    | (?P<escape>(?m:^)%[^\n]*)
    | (?P<comment>\{[^}]*\}?)
    | (?P<line_comment>;[^\n]*)
    | (?P<open>\()
    | (?P<close>\))
    | (?P<nag>\$\d+)
    | (?P<result>(?:1-0|0-1|1/2-1/2|½-½|\*)(?=[\s(){}]|$))
    | (?P<number>\d+\s*(?:\.\s*\.\s*\.|…|\.)++)
    | (?P<move>[^\s{}()\[\];$]+)
    | (?P<junk>\S)
    """,
    re.VERBOSE,
)
#: The longest move token tried as a move: notations need a dozen characters at most.
_LONGEST_MOVE = 32
_SUFFIX_NAGS = {"!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6}
_SUFFIX = re.compile(r"([!?]{1,2})$")
_SAN = re.compile(
    r"^(?P<piece>[KAEBHNRCP])(?P<file>[a-i])?(?P<rank>10|[1-9])?"
    r"(?P<sep>[-x])?(?P<to_file>[a-i])(?P<to_rank>10|[1-9])$"
)
_FSF_COORDS = re.compile(r"^[a-i](?:10|[1-9])[-x]?[a-i](?:10|[1-9])$")
_PASS_WORDS = frozenset({"pass", "@@@@", "--", "0000"})
_GAME_NAMES = {
    "chinese chess": "xiangqi",
    "xiangqi": "xiangqi",
    "janggi": "janggi",
    "korean chess": "janggi",
    "changgi": "janggi",
}


# ------------------------------------------------------------------------------ SAN


def _square_text(sq: int) -> str:
    """Fairy-Stockfish's square name: file a-i, rank 1-10."""
    return f"{FILE_NAMES[sq % FILES]}{sq // FILES + 1}"


def to_san(board: Board, move: Move) -> str:
    """Fairy-Stockfish SAN for ``move`` (assumed legal): ``Hc3``, ``Che3``, ``Cxe7+``.

    A pass is the king's letter and its own square (``Ke2``), as Fairy-Stockfish writes it.
    """
    piece = board.piece_at(move.from_square)
    if not piece:
        raise IllegalMoveError(f"cannot write {move.iccs()!r} in SAN: no piece there")
    kind = abs(piece)
    letter = WXF_LETTERS[kind]
    target = _square_text(move.to_square)
    if move.is_pass():
        return letter + target
    rivals = [
        other.from_square
        for other in board.legal_moves
        if other.to_square == move.to_square
        and other.from_square != move.from_square
        and abs(board.piece_at(other.from_square)) == kind
        and not other.is_pass()
    ]
    origin = _square_text(move.from_square)
    file_text, rank_text = origin[0], origin[1:]
    if not rivals:
        hint = ""
    elif all(sq % FILES != move.from_square % FILES for sq in rivals):
        hint = file_text
    elif all(sq // FILES != move.from_square // FILES for sq in rivals):
        hint = rank_text
    else:
        hint = origin
    capture = "x" if board.piece_at(move.to_square) else ""
    board.push(move)
    try:
        mark = "#" if board.is_checkmate() else "+" if board.is_check() else ""
    finally:
        board.pop()
    return f"{letter}{hint}{capture}{target}{mark}"


def parse_san(board: Board, text: str) -> Move:
    """Parse Fairy-Stockfish SAN or long algebraic (``Hc3``, ``Hb1-c3``, ``b1c3``, ranks
    1-10) and return the legal move it names. A king "moving" to its own square is a pass."""
    cleaned = text.strip().rstrip("+#")
    if cleaned.casefold() in _PASS_WORDS:
        return _pass_move(board, text)
    if _FSF_COORDS.match(cleaned):
        return board.parse_fsf(cleaned.replace("-", "").replace("x", ""))
    match = _SAN.match(cleaned)
    if match is None:
        raise InvalidMoveError(f"invalid SAN move {text!r}: expected a form like 'Hc3' or 'Che3'")
    kind = WXF_LETTER_TYPES[match["piece"]]
    target = FILE_NAMES.index(match["to_file"]) + (int(match["to_rank"]) - 1) * FILES
    side = 1 if board.turn else -1
    if kind == KING and board.piece_at(target) == side * KING and not match["file"]:
        return _pass_move(board, text)
    candidates = [
        move
        for move in board.legal_moves
        if move.to_square == target
        and not move.is_pass()
        and board.piece_at(move.from_square) == side * kind
        and (match["file"] is None or FILE_NAMES[move.from_square % FILES] == match["file"])
        and (match["rank"] is None or move.from_square // FILES + 1 == int(match["rank"]))
    ]
    if not candidates:
        raise IllegalMoveError(f"illegal SAN move {text!r} in {board.fen()}: no piece can do it")
    if len(candidates) > 1:
        raise AmbiguousMoveError(
            f"ambiguous SAN move {text!r} in {board.fen()}: "
            + ", ".join(move.iccs() for move in candidates)
        )
    return candidates[0]


def _pass_move(board: Board, text: str) -> Move:
    king = board.king(board.turn)
    move = Move(king, king)
    if not board.is_legal(move):
        raise IllegalMoveError(f"illegal pass {text!r} in {board.fen()}")
    return move


# ---------------------------------------------------------------------- reading


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
    failed: bool = False
    result_token: str = ""
    pending_comment: list[str] = field(default_factory=list)
    #: The comments of each node, joined once at the end (appending to a node's comment
    #: string one piece at a time would copy it again for every piece).
    comments: dict[GameNode, list[str]] = field(default_factory=dict)


def _variant_for(headers: dict[str, str], rules: str | None) -> Variant:
    name = headers.get("Variant") or headers.get("Game") or "xiangqi"
    game = _GAME_NAMES.get(name.strip().lower(), name.strip().lower())
    if ":" in game:
        return get_variant(game)
    return get_variant(game, rules or headers.get("Rules") or None)


def _normalize_fen(fen: str) -> str:
    """Accept the FEN dialects record files use: the board alone, ``r`` for red to move."""
    fields = fen.split()
    if len(fields) == 1:
        fields.append("w")
    if fields[1].lower() == "r":
        fields[1] = "w"
    return " ".join(fields)


def _start(builder: _GameBuilder, rules: str | None, korean: bool) -> GameRecord:
    """Create the record once the headers are known (at the first movetext token)."""
    if builder.record is not None:
        return builder.record
    headers = builder.headers
    record = GameRecord(headers=headers)
    builder.record = record
    builder.node = record.root
    builder.fsf_first = "Variant" in headers and headers.get("Format", "").upper() in ("", "SAN")
    try:
        if korean:
            from chuhan.records.gib import gib_setup

            record.variant, record.fen = gib_setup(headers, rules)
        else:
            record.variant = _variant_for(headers, rules)
            fen = headers.get("FEN", "").strip()
            record.fen = _normalize_fen(fen) if fen else record.variant.start_fen
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


def _parse_token(board: Board, text: str, fsf_first: bool, korean: bool) -> Move:
    if korean:
        try:
            return parse_korean(board, text)
        except InvalidMoveError:
            return parse_move(board, text)
    if fsf_first and (_SAN.match(text.rstrip("+#")) or _FSF_COORDS.match(text)):
        return parse_san(board, text)
    try:
        return parse_move(board, text)
    except InvalidMoveError:
        if _SAN.match(text.rstrip("+#")) or text.casefold() in _PASS_WORDS:
            return parse_san(board, text)
        raise


def _move_label(board: Board, text: str) -> str:
    dots = "." if board.turn else "..."
    return f"move {board.fullmove_number}{dots} {_shorten(text)!r}"


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
        _fail(builder, f"{_move_label(board, text)}: {reason}")
        return
    suffix = _SUFFIX.search(text)
    move_text = text[: suffix.start()] if suffix else text
    try:
        move = _parse_token(board, move_text, builder.fsf_first, korean)
    except (ChuhanError, IndexError, KeyError) as error:
        _fail(builder, f"{_move_label(board, text)}: {error}")
        return
    child = node.add_variation(move)
    if builder.pending_comment:
        builder.comments[child] = builder.pending_comment
        builder.pending_comment = []
    if suffix:
        child.nags.append(_SUFFIX_NAGS.get(suffix.group(1), 0))
    board.push(move)
    builder.node = child


def _open_variation(builder: _GameBuilder, board: Board, node: GameNode) -> None:
    limits = builder.limits
    if node.parent is None:
        _fail(builder, "a variation before any move")
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


def _finish(builder: _GameBuilder, rules: str | None, korean: bool) -> GameRecord:
    record = _start(builder, rules, korean)
    if builder.pending_comment:
        builder.comments.setdefault(record.end(), []).extend(builder.pending_comment)
    for node, parts in builder.comments.items():
        node.comment = " ".join(parts)
    token = builder.result_token.replace("½-½", "1/2-1/2")
    if "Result" not in record.headers and token:
        record.headers["Result"] = token
    elif record.headers.get("Result") not in RESULTS:
        record.headers["Result"] = token or "*"
    return record


def _text_of(source: str | bytes | IO[str] | IO[bytes]) -> str:
    if isinstance(source, str):
        return source
    data = source if isinstance(source, bytes) else source.read()
    if isinstance(data, str):
        return data
    from chuhan.records.gib import decode_bytes

    return decode_bytes(data)


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


def iter_games(
    text: str,
    *,
    rules: str | None = None,
    korean: bool = False,
    limits: ReadLimits = DEFAULT_READ_LIMITS,
) -> Iterator[GameRecord]:
    """Yield each game of PGN-like ``text`` (shared by the PGN and GIB readers).

    Every token is found by one pass of :data:`_TOKEN` and handled in constant time (a
    move: the time to parse it; a variation's close: the moves it takes back), so the
    time is linear in the length of ``text``. Raises :class:`ReadLimitError` when the
    text has more than ``limits.max_games`` games.
    """
    builder = _GameBuilder(0, limits)
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "junk"
        if kind == "junk" or kind == "escape":
            continue
        if kind == "header":
            if builder.record is not None or builder.result_token:
                yield _finish(builder, rules, korean)
                builder = _GameBuilder(builder.index + 1, limits)
            _begin(builder)
            value = match["value"].replace('\\"', '"').replace("\\\\", "\\")
            builder.headers[match["key"]] = value
            continue
        if builder.result_token and kind != "comment":
            yield _finish(builder, rules, korean)
            builder = _GameBuilder(builder.index + 1, limits)
        _begin(builder)
        _start(builder, rules, korean)
        if kind == "result":
            builder.result_token = match.group()
        elif kind != "number":
            _handle(builder, kind, match.group(), korean)
    if builder.started:
        yield _finish(builder, rules, korean)


def read_pgn(
    source: str | bytes | IO[str] | IO[bytes],
    *,
    rules: str | None = None,
    limits: ReadLimits = DEFAULT_READ_LIMITS,
) -> list[GameRecord]:
    """Read every game in a PGN text, byte string or open file.

    ``rules`` picks the rule set (``"chinese"``, ``"modern"``...) when the file does not
    (a ``Rules`` header or a ``Variant`` like ``janggi:modern``). ``limits`` bounds what a
    game may hold (see :class:`ReadLimits`). Problems in a game, a limit it passes
    included, are in its record's ``errors``; the only error raised is
    :class:`ReadLimitError` for a file with more than ``limits.max_games`` games.
    The time taken is linear in the size of the text, whatever it holds.
    """
    return list(iter_games(_text_of(source), rules=rules, limits=limits))


# ---------------------------------------------------------------------- writing


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _comment(text: str) -> str:
    return "{" + text.replace("}", ")") + "}"


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
        tokens.append(_comment(record.root.comment))
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
            tokens.append(_comment(node.comment))

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


def _wrap(tokens: Iterable[str], width: int = 80) -> str:
    lines: list[str] = []
    current = ""
    for token in tokens:
        if current and len(current) + 1 + len(token) > width:
            lines.append(current)
            current = token
        else:
            current = f"{current} {token}" if current else token
    if current:
        lines.append(current)
    return "\n".join(lines)


def write_pgn(record: GameRecord, format: str = "iccs") -> str:
    """Write ``record`` as PGN with moves in ``format`` (see :data:`PGN_FORMATS`).

    Xiangqi gets ``[Game "Chinese Chess"]``, janggi ``[Game "Janggi"]`` and
    ``[Variant "Janggi"]``; ``Format``, ``FEN`` (when the start is not the standard one)
    and ``Result`` are set from the record, the other headers are kept in their order.
    Raises :class:`RecordError` for an unknown format or a move that cannot be written.
    """
    notation = format.strip().lower()
    if notation not in PGN_FORMATS:
        raise RecordError(
            f"unknown PGN move format {format!r}: expected one of {', '.join(PGN_FORMATS)}"
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
    head = "\n".join(f'[{key} "{_quote(value)}"]' for key, value in headers.items())
    return f"{head}\n\n{_wrap(tokens)}\n"
