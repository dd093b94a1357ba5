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
from chuhan.records.game import RESULTS, GameNode, GameRecord, RecordError
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

_TOKEN = re.compile(
    r"""
    (?P<header>\[\s*(?P<key>[^\s\]"]+)\s*"(?P<value>(?:[^"\\\n]|\\.)*)"\s*\])
    | (?P<comment>\{[^}]*\}?)
    | (?P<line_comment>;[^\n]*)
    | (?P<open>\()
    | (?P<close>\))
    | (?P<nag>\$\d+)
    | (?P<result>(?:1-0|0-1|1/2-1/2|½-½|\*)(?=[\s(){}]|$))
    | (?P<number>\d+\s*(?:\.\s*\.\s*\.|…|\.)+)
    | (?P<move>[^\s{}()\[\];$]+)
    | (?P<junk>\S)
    """,
    re.VERBOSE,
)
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
    """The state of one game while its tokens arrive."""

    index: int
    headers: dict[str, str] = field(default_factory=dict)
    record: GameRecord | None = None
    board: Board | None = None
    node: GameNode | None = None
    stack: list[GameNode] = field(default_factory=list)
    has_moves: bool = False
    failed: bool = False
    result_token: str = ""
    pending_comment: list[str] = field(default_factory=list)


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
        _fail(builder, f"cannot set up {record.describe(builder.index)}: {error}")
        builder.board = None
    builder.node = record.root
    return record


def _fail(builder: _GameBuilder, message: str) -> None:
    builder.failed = True
    assert builder.record is not None
    builder.record.errors.append(RecordError(message))


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
    return f"move {board.fullmove_number}{dots} {text!r}"


def _play(builder: _GameBuilder, text: str, fsf_first: bool, korean: bool) -> None:
    record = builder.record
    board, node = builder.board, builder.node
    if record is None or board is None or node is None:
        return
    suffix = _SUFFIX.search(text)
    move_text = text[: suffix.start()] if suffix else text
    try:
        move = _parse_token(board, move_text, fsf_first, korean)
    except (ChuhanError, IndexError, KeyError) as error:
        _fail(builder, f"{record.describe(builder.index)}: {_move_label(board, text)}: {error}")
        return
    child = node.add_variation(move)
    if builder.pending_comment:
        child.comment = " ".join(builder.pending_comment)
        builder.pending_comment.clear()
    if suffix:
        child.nags.append(_SUFFIX_NAGS.get(suffix.group(1), 0))
    board.push(move)
    builder.node = child
    builder.has_moves = True


def _board_at(record: GameRecord, node: GameNode) -> Board:
    board = record.start_board()
    for move in node.path():
        board.push(move)
    return board


def _handle(builder: _GameBuilder, kind: str, text: str, fsf_first: bool, korean: bool) -> None:
    record, node = builder.record, builder.node
    if record is None or node is None or builder.failed:
        return
    if kind == "comment":
        body = text[1:-1] if text.endswith("}") else text[1:]
        _add_comment(builder, body.strip())
    elif kind == "line_comment":
        _add_comment(builder, text[1:].strip())
    elif kind == "nag":
        node.nags.append(int(text[1:]))
    elif kind == "open":
        if node.parent is None:
            _fail(builder, f"{record.describe(builder.index)}: a variation before any move")
            return
        builder.stack.append(node)
        builder.node = node.parent
        builder.board = _board_at(record, node.parent)
    elif kind == "close":
        if builder.stack:
            builder.node = builder.stack.pop()
            builder.board = _board_at(record, builder.node)
    elif kind == "move":
        _play(builder, text, fsf_first, korean)


def _add_comment(builder: _GameBuilder, text: str) -> None:
    node = builder.node
    assert node is not None
    if not text:
        return
    if node.parent is None or (builder.stack and node is builder.stack[-1].parent):
        # A comment at the start of a game or variation belongs before the next move;
        # at the very start it is the game comment.
        if node.parent is None and not node.children:
            node.comment = f"{node.comment} {text}".strip()
        else:
            builder.pending_comment.append(text)
        return
    node.comment = f"{node.comment} {text}".strip()


def _finish(builder: _GameBuilder, rules: str | None, korean: bool) -> GameRecord:
    record = _start(builder, rules, korean)
    if builder.pending_comment:
        record.end().comment = " ".join([record.end().comment, *builder.pending_comment]).strip()
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


def iter_games(
    text: str, *, rules: str | None = None, korean: bool = False
) -> Iterator[GameRecord]:
    """Yield each game of PGN-like ``text`` (shared by the PGN and GIB readers)."""
    index = 0
    builder = _GameBuilder(index)
    started = False  # the builder has seen a token of its own
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "junk"
        if kind == "header":
            if builder.record is not None or builder.result_token:
                yield _finish(builder, rules, korean)
                index += 1
                builder = _GameBuilder(index)
            value = match["value"].replace('\\"', '"').replace("\\\\", "\\")
            builder.headers[match["key"]] = value
            started = True
            continue
        if kind == "junk":
            continue
        if builder.result_token and kind != "comment":
            yield _finish(builder, rules, korean)
            index += 1
            builder = _GameBuilder(index)
        started = True
        _start(builder, rules, korean)
        if kind == "result":
            builder.result_token = match.group()
            continue
        if kind == "number":
            continue
        fsf_first = "Variant" in builder.headers and builder.headers.get("Format", "").upper() in (
            "",
            "SAN",
        )
        _handle(builder, kind, match.group(), fsf_first, korean)
    if started:
        yield _finish(builder, rules, korean)


def read_pgn(
    source: str | bytes | IO[str] | IO[bytes], *, rules: str | None = None
) -> list[GameRecord]:
    """Read every game in a PGN text, byte string or open file.

    ``rules`` picks the rule set (``"chinese"``, ``"modern"``...) when the file does not
    (a ``Rules`` header or a ``Variant`` like ``janggi:modern``). Never raises on bad input:
    problems are in each record's ``errors``.
    """
    return list(iter_games(_text_of(source), rules=rules))


# ---------------------------------------------------------------------- writing


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _comment(text: str) -> str:
    return "{" + text.replace("}", ")") + "}"


def _format(board: Board, move: Move, notation: str) -> str:
    if notation == "san":
        return to_san(board, move)
    return format_move(board, move, notation)


def movetext_tokens(record: GameRecord, notation: str, *, numbers: bool = True) -> list[str]:
    """The movetext of ``record`` as tokens: numbers, moves, NAGs, comments, variations.

    The main line is walked in a loop; only variations nest, so the depth of recursion is
    the depth of nesting of variations, not the length of the game.
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

    def line(start: GameNode, force_number: bool) -> None:
        node, pushed = start, 0
        while node.children:
            main, *others = node.children
            emit(main, force_number)
            force_number = False
            for other in others:
                tokens.append("(")
                emit(other, True)
                assert other.move is not None
                board.push(other.move)
                line(other, False)
                board.pop()
                tokens.append(")")
                force_number = True
            assert main.move is not None
            board.push(main.move)
            pushed += 1
            force_number = force_number or bool(main.comment)
            node = main
        for _ in range(pushed):
            board.pop()

    line(record.root, True)
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
