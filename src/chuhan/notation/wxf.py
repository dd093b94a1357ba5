"""WXF notation (``C2.5``, ``H2+3``, ``R9-1``) and the file-based model it shares with the
Chinese notation.

Both WXF and the Chinese notation describe a move by *which* piece moves (its type and the
file it stands on, counted from the mover's own right, or its place in a column of like
pieces), the direction (``+`` forward, ``-`` backward, ``.`` sideways) and a number: the
points travelled along a file, otherwise the destination file. The Chinese notation is the
same description in characters, so :mod:`chuhan.notation.chinese` reuses the helpers here.

Conventions, following the WXF notation page of the Asian and World Xiangqi Federations:

* Files: red (the first mover) counts file ``i`` as 1 … ``a`` as 9; black counts ``a`` as 1
  … ``i`` as 9. Sideways and diagonal moves name the destination file in the same count.
* Tandem pieces (two of one kind on one file): ``+``/``-`` for the front/rear piece in
  place of the file, after the letter: ``R+.5``, ``C--1``; ``+R.5`` is read too. They are
  written whenever two stand on a file, even if only one of them could make the move (the
  WXF and Chinese rule; Fairy-Stockfish writes them only to settle an ambiguity). Xiangqi
  advisors and elephants are the exception, as in Chinese records: of a pair on one file
  one can only advance and the other only retreat, so they keep their file (``A4-5``).
* Pawns, three or more on a file: front ``P+``, rear ``P-``, the middle pawn by its file
  (``P3.4``); with four or five the outermost take a doubled sign and drop the letter
  (``++.4`` foremost, ``P+.4`` second, ``P3.4`` middle, ``P-.4``, ``--.4`` rearmost).
  Generally the number of signs is the distance from the middle of the column.
* Pawns on two files that each hold several: the file comes first, then the sign, no
  letter (``3+.4``, ``3-.4``; the middle of three repeats the file, ``33.4``).
* Other pieces follow the same rules in composed positions with more of a kind than the
  game starts with, but always keep their letter (``R++.4``, ``R3+.4``).
* Janggi: the same scheme. Kings, guards, chariots, cannons and soldiers also move along
  the palace diagonals; such a move names the destination file like a horse's. A chariot
  or cannon could also travel that many points straight, so its diagonal moves carry a
  ``/`` before the direction: ``R6/+5`` (d0 to e1) is not ``R6+5`` (d0 to d5). A pass is
  ``pass``.

Parsing is lenient where the reading is still unique: full-width characters (``Ｃ２＝５``),
lower case, ``B`` for the elephant, ``N`` for the horse, ``=`` for sideways, ``+R`` for
``R+``, and a file number where a tandem sign was due when only one legal move fits. A
plain file number with an odd column of three or more names its middle piece.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NamedTuple

from chuhan.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from chuhan.squares import FILES, RANKS, SQUARE_NAMES, Move
from chuhan.variants import (
    ADVISOR,
    CANNON,
    ELEPHANT,
    HORSE,
    KING,
    PAWN,
    PIECE_NAMES,
    ROOK,
    WXF_LETTER_TYPES,
    WXF_LETTERS,
)

if TYPE_CHECKING:
    from chuhan.board import Board

__all__ = ["WXF_PASS", "Description", "describe", "parse_wxf", "to_wxf"]

Op = Literal["+", "-", "."]
#: Decides from (index from the front, number of like pieces on the file) whether a piece
#: in that place is the one a position marker names.
Selector = Callable[[int, int], bool]

#: Piece names in notation errors: WXF's letters R and P read as rook and pawn.
NOTATION_NAMES = {**PIECE_NAMES, ROOK: "rook", PAWN: "pawn"}

#: What :func:`to_wxf` writes for a janggi pass.
WXF_PASS = "pass"
#: Tokens every parser of this package accepts for a pass (compared after ``casefold``).
PASS_TOKENS = frozenset({"pass", "한수쉼", "쉼", "停着", "停著"})

_DIGITS = "123456789"


# ---------------------------------------------------------------------- geometry


def own_file(side: bool, file_index: int) -> int:
    """The file number 1–9 of ``file_index`` (a–i = 0–8) counted from ``side``'s right."""
    return FILES - file_index if side else file_index + 1


class Geometry(NamedTuple):
    """Direction and number of a move as WXF writes them (a named tuple: every move
    written makes one, several times cheaper than a frozen dataclass)."""

    op: Op
    #: Points travelled along a file, otherwise the destination file (mover's count).
    target: int
    #: False for moves off the lines of the board (horse, elephant, advisor, palace
    #: diagonals): those always name the destination file.
    straight: bool


def geometry(side: bool, from_square: int, to_square: int) -> Geometry:
    """How a move of ``side`` from one square to another is described."""
    from_file, from_rank = from_square % FILES, from_square // FILES
    to_file, to_rank = to_square % FILES, to_square // FILES
    if from_rank == to_rank:
        return Geometry(".", own_file(side, to_file), True)
    op: Op = "+" if (to_rank > from_rank) == side else "-"
    if from_file == to_file:
        return Geometry(op, abs(to_rank - from_rank), True)
    return Geometry(op, own_file(side, to_file), False)


@dataclass(frozen=True, slots=True)
class Column:
    """Where a piece stands among the pieces of its kind and side on its file."""

    #: 0 for the front piece (nearest the opponent's side).
    index: int
    count: int
    #: How many files hold two or more of these pieces (worked out for a piece that
    #: shares its file, the only one whose place is written: 0 for one alone on it).
    crowded_files: int


#: The column of a piece alone on its file (most are).
_ALONE = Column(0, 1, 0)


def column(board: Board, square: int) -> Column:
    """The :class:`Column` of the piece on ``square``."""
    placement = board.placement
    piece = placement[square]
    on_file = placement[square % FILES :: FILES]  # (by rank)
    if on_file.count(piece) == 1:
        return _ALONE
    ranks = [rank for rank, other in enumerate(on_file) if other == piece]
    # The front piece is the one furthest up the board from its owner's side.
    ranks.sort(reverse=piece > 0)
    crowded = sum(1 for file_index in range(FILES) if placement[file_index::FILES].count(piece) > 1)
    return Column(ranks.index(square // FILES), len(ranks), crowded)


def is_middle(index: int, count: int) -> bool:
    """Whether ``index`` is the middle of an odd column of three or more."""
    return count >= 3 and count % 2 == 1 and index == count // 2


def needs_place(board: Board, move: Move, place: Column) -> bool:
    """Whether the moving piece must be named by its place in its column (front/rear…)
    rather than by its file.

    Always when it shares the file with a like piece, except xiangqi advisors and elephants
    in pairs: of two on one file one can only advance and the other only retreat, so the
    file already tells them apart and Chinese records write 仕四退五, not 後仕退五. (In a
    composed position where both could make a move of that description, the place is
    written after all.)
    """
    if place.count == 1:
        return False
    piece = board.piece_code_at(move.from_square)
    if place.count > 2 or abs(piece) not in (ADVISOR, ELEPHANT) or board.variant.is_janggi:
        return True
    side = piece > 0
    shape = geometry(side, move.from_square, move.to_square)
    file_index = move.from_square % FILES
    others = tuple(
        sq
        for sq in range(file_index, FILES * RANKS, FILES)
        if sq != move.from_square and board.piece_code_at(sq) == piece
    )
    for m in board.legal_move_codes(others):
        other = geometry(side, m >> 7, m & 127)
        if other.op == shape.op and other.target == shape.target:
            return True
    return False


def mover(board: Board, move: Move, notation: str) -> int:
    """The piece that makes ``move``; raises :class:`IllegalMoveError` when the side to move
    has none on its from-square, so a writer never describes a move of nothing."""
    piece = board.piece_code_at(move.from_square)
    if not piece or (piece > 0) != board.turn:
        raise IllegalMoveError(
            f"cannot write {move.iccs()!r} in {notation} in {board.fen()} "
            f"({board.variant.name}): no piece of the side to move on "
            f"{SQUARE_NAMES[move.from_square]}"
        )
    if move.is_pass() and abs(piece) != KING:
        raise IllegalMoveError(
            f"cannot write {move.iccs()!r} in {notation} in {board.fen()} "
            f"({board.variant.name}): a pass is written as the king's square twice"
        )
    return piece


# ---------------------------------------------------------------------- resolution


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed file-based move description, before the board is consulted."""

    kind: int
    #: The origin's file number (mover's count), when the text names one.
    file: int | None
    #: Which place in its column the piece must hold, when the text marks one.
    selector: Selector | None
    #: How the text identified the piece, for messages ("on file 9", "front (+)").
    position: str
    op: Op
    target: int
    #: The text marked a palace-diagonal move (janggi ``/`` or ``斜``).
    diagonal: bool


def illegal(notation: str, text: str, board: Board, reason: str) -> IllegalMoveError:
    """An :class:`IllegalMoveError` quoting the input, the position and the reason."""
    return IllegalMoveError(
        f"illegal {notation} move {text!r} in {board.fen()} ({board.variant.name}): {reason}"
    )


def resolve_pass(board: Board, text: str, notation: str) -> Move:
    """The pass of the side to move, or :class:`IllegalMoveError` saying why not."""
    king = board.king(board.turn)
    move = Move(king, king)
    if board.is_legal(move):
        return move
    variant = board.variant
    if not variant.has_passes:
        reason = f"{variant.game} has no passes"
    elif board.is_game_over_by_passing():
        reason = "the game is over (it ended by passing)"
    elif board.is_check():
        reason = "a side in check may not pass"
    elif variant.pass_rule == "only_when_stuck":
        reason = "under these rules a side may pass only when it has no other move"
    else:
        reason = "passing is not allowed in this position"
    raise illegal(notation, text, board, reason)


def _direction_words(query: Query) -> str:
    if query.op == ".":
        return f"sideways to file {query.target}"
    way = "forward" if query.op == "+" else "backward"
    if query.diagonal:
        return f"diagonally {way} to file {query.target}"
    return f"{way} {query.target} (points, or to file {query.target})"


def resolve(board: Board, text: str, notation: str, query: Query, hint: str) -> Move:
    """The one legal move that fits ``query``.

    Raises :class:`IllegalMoveError` when none fits and :class:`AmbiguousMoveError` (with
    ``hint`` on how to tell the pieces apart) when several do. A number after ``+``/``-``
    is read as points along the file first and as a destination file only when no straight
    move fits, unless the text marked the move as diagonal.
    """
    side = board.turn
    piece = query.kind if side else -query.kind
    who = f"{board.variant.side_name(side)} {NOTATION_NAMES[query.kind]}"
    origins: set[int] = set()
    on_file = False
    pieces = board.piece_code_map()
    for sq, other in pieces.items():
        if other != piece:
            continue
        if query.file is not None and own_file(side, sq % FILES) != query.file:
            continue
        on_file = True
        if query.selector is not None:
            place = column(board, sq)
            if not query.selector(place.index, place.count):
                continue
        origins.add(sq)
    if not origins:
        if query.file is not None and not on_file:
            reason = f"there is no {who} on file {query.file}"
        else:
            reason = f"no {who} stands {query.position}"
        raise illegal(notation, text, board, reason)
    straight: list[Move] = []
    diagonal: list[Move] = []
    for m in board.legal_move_codes(tuple(sorted(origins))):
        fr, to = m >> 7, m & 127
        if fr == to:
            continue
        shape = geometry(side, fr, to)
        if shape.op != query.op or shape.target != query.target:
            continue
        (straight if shape.straight else diagonal).append(Move(fr, to))
    found = diagonal if query.diagonal else straight or diagonal
    if not found:
        raise illegal(
            notation,
            text,
            board,
            f"no {who} {query.position} can move {_direction_words(query)}",
        )
    if len(found) > 1:
        fits = ", ".join(m.iccs() for m in found)
        raise AmbiguousMoveError(
            f"ambiguous {notation} move {text!r} in {board.fen()} ({board.variant.name}): "
            f"it fits {fits}; {hint}"
        )
    return found[0]


# ---------------------------------------------------------------------- WXF writing


def wxf_signs(index: int, count: int) -> str:
    """The tandem marker of the piece at ``index`` in a column of ``count`` (at least two):
    ``+``/``-`` repeated by the distance from the middle; empty for the middle piece."""
    half = count // 2
    if count % 2 and index == half:
        return ""
    if index < half:
        return "+" * (half - index)
    return "-" * (index - (count - 1) // 2)


class Description(NamedTuple):
    """What the WXF and the Chinese forms of a move say, before either is written
    (:func:`describe`)."""

    #: The moving piece (a signed piece code).
    piece: int
    shape: Geometry
    #: The from-file, counted from the mover's right (1-9).
    file_number: int
    place: Column
    #: Whether the piece is named by its place among its like on the file (front/rear...).
    placed: bool


def describe(board: Board, move: Move, notation: str = "WXF") -> Description:
    """The :class:`Description` of ``move`` (assumed legal) that :func:`to_wxf` and
    :func:`~chuhan.notation.chinese.to_chinese` write, worked out once for both. Raises
    :class:`IllegalMoveError` (naming ``notation``) when the side to move has no piece on
    the from-square."""
    piece = mover(board, move, notation)
    side = piece > 0
    place = column(board, move.from_square)
    return Description(
        piece,
        geometry(side, move.from_square, move.to_square),
        own_file(side, move.from_square % FILES),
        place,
        needs_place(board, move, place),
    )


def to_wxf(board: Board, move: Move, *, described: Description | None = None) -> str:
    """The WXF form of ``move`` (assumed legal), e.g. ``"C2.5"``; a pass is ``"pass"``
    (``described``: its :func:`describe`, when already worked out)."""
    if described is None:
        described = describe(board, move, "WXF")
    if move.is_pass():
        return WXF_PASS
    piece, shape, file, place, placed = described
    kind = abs(piece)
    letter = WXF_LETTERS[kind]
    file_number = str(file)
    if not placed:
        head = letter + file_number
    else:
        signs = wxf_signs(place.index, place.count)
        mark = signs or file_number
        keep_letter = "" if kind == PAWN else letter
        if place.crowded_files > 1:
            head = keep_letter + file_number + mark
        elif len(signs) > 1:
            head = keep_letter + signs
        else:
            head = letter + mark
    slash = "/" if not shape.straight and kind in (ROOK, CANNON) else ""
    return f"{head}{slash}{shape.op}{shape.target}"


# ---------------------------------------------------------------------- WXF parsing

_HEAD_FILE = re.compile(r"([A-Z])([0-9])")
_HEAD_LETTER_SIGNS = re.compile(r"([A-Z])([+-]+)")
_HEAD_SIGNS_LETTER = re.compile(r"([+-]+)([A-Z])")
_HEAD_SIGNS = re.compile(r"([+-]{2,})")
_HEAD_FILE_MARK = re.compile(r"([A-Z]?)([0-9])([+-]+|[0-9])")


def signs_selector(signs: str) -> Selector:
    """The selector of a WXF tandem marker (``+``, ``--``…), the inverse of
    :func:`wxf_signs`."""
    depth = len(signs)
    if signs[0] == "+":
        return lambda index, count: count >= 2 and index == count // 2 - depth
    return lambda index, count: count >= 2 and index == (count - 1) // 2 + depth


def _plain_file(index: int, count: int) -> bool:
    # A bare file number names the middle of an odd column of three or more (WXF: the
    # middle pawn is "neither front nor rear"); otherwise any piece on the file.
    return is_middle(index, count) or count < 3 or count % 2 == 0


def _invalid(text: str, reason: str) -> InvalidMoveError:
    return InvalidMoveError(f"invalid WXF move {text!r}: {reason}")


def _letter_type(text: str, letter: str) -> int:
    if not letter:
        return PAWN
    kind = WXF_LETTER_TYPES.get(letter)
    if kind is None:
        raise _invalid(
            text, f"unknown piece letter {letter!r} (expected K, A, E or B, H or N, R, C, P)"
        )
    return kind


def _file_number(text: str, digit: str) -> int:
    if digit not in _DIGITS:
        raise _invalid(text, f"file {digit!r} is out of range (files are 1-9)")
    return int(digit)


def _side_words(signs: str) -> str:
    if len(signs) == 1:
        return f"{'in front' if signs == '+' else 'at the rear'} ({signs}) of its file"
    return f"at the place {signs!r} of its file"


def parse_wxf_query(text: str) -> Query:
    """Parse the syntax of a WXF move (no board): raises :class:`InvalidMoveError`."""
    # Full-width forms (``Ｃ２＝５``, ``＋ － ＝ ．``) as their ASCII letters, digits and signs.
    cleaned = unicodedata.normalize("NFKC", "".join(text.split())).upper()
    if not cleaned:
        raise _invalid(text, "empty string")
    if len(cleaned) < 3:
        raise _invalid(text, "too short: expected piece, file, direction and number ('C2.5')")
    target_char, op_char, head = cleaned[-1], cleaned[-2], cleaned[:-2]
    if op_char not in "+-.=":
        raise _invalid(
            text,
            f"expected a direction '+', '-' or '.' before the last character, got {op_char!r}",
        )
    if target_char not in _DIGITS:
        raise _invalid(text, f"the number after the direction must be 1-9, got {target_char!r}")
    op: Op = "." if op_char in ".=" else "+" if op_char == "+" else "-"
    diagonal = head.endswith("/")
    if diagonal:
        head = head[:-1]
        if op == ".":
            raise _invalid(text, "a diagonal move ('/') goes forward or backward, not sideways")
    file: int | None = None
    selector: Selector | None
    position: str
    if match := _HEAD_FILE.fullmatch(head):
        kind = _letter_type(text, match[1])
        file = _file_number(text, match[2])
        selector = _plain_file
        position = f"on file {file}"
    elif match := _HEAD_LETTER_SIGNS.fullmatch(head):
        kind = _letter_type(text, match[1])
        selector = signs_selector(match[2])
        position = _side_words(match[2])
    elif match := _HEAD_SIGNS_LETTER.fullmatch(head):
        kind = _letter_type(text, match[2])
        selector = signs_selector(match[1])
        position = _side_words(match[1])
    elif match := _HEAD_SIGNS.fullmatch(head):
        if len(set(match[1])) != 1:
            raise _invalid(text, f"mixed tandem signs {match[1]!r}")
        kind = PAWN
        selector = signs_selector(match[1])
        position = _side_words(match[1])
    elif match := _HEAD_FILE_MARK.fullmatch(head):
        kind = _letter_type(text, match[1])
        file = _file_number(text, match[2])
        mark = match[3]
        if mark[0] in "+-":
            if len(set(mark)) != 1:
                raise _invalid(text, f"mixed tandem signs {mark!r}")
            selector = signs_selector(mark)
            position = f"on file {file}, {_side_words(mark)}"
        elif mark == match[2]:
            selector = is_middle
            position = f"in the middle of file {file}"
        else:
            raise _invalid(
                text,
                f"the middle piece of a column repeats its file ('{file}{file}'), got {head!r}",
            )
    else:
        raise _invalid(
            text,
            "expected a piece letter and its file ('C2.5', 'H2+3'), a tandem sign "
            "('R+.5', '+R.5', '++.4') or a file and sign for pawns ('3+.4')",
        )
    if diagonal and kind in (HORSE, ELEPHANT):
        raise _invalid(text, "'/' marks palace-diagonal moves of janggi pieces")
    return Query(kind, file, selector, position, op, int(target_char), diagonal)


def parse_wxf(board: Board, text: str) -> Move:
    """Parse a WXF move (``"C2.5"``, ``"H2+3"``, ``"R+.5"``, ``"pass"``) and return the legal
    move it names.

    Raises :class:`InvalidMoveError` for text that is not WXF, :class:`IllegalMoveError`
    when no legal move fits and :class:`AmbiguousMoveError` when several do.
    """
    if text.strip().casefold() in PASS_TOKENS:
        return resolve_pass(board, text, "WXF")
    query = parse_wxf_query(text)
    letter = WXF_LETTERS[query.kind]
    hint = (
        f"name the piece by its place: {letter}+ / {letter}- for front / rear"
        if query.kind != PAWN
        else "name the pawn by its place (P+, P-, ++, --, or file and sign like 3+)"
    )
    if query.kind in (ROOK, CANNON) and not query.diagonal:
        hint += f"; a palace-diagonal move is written with '/', like {letter}6/+5"
    return resolve(board, text, "WXF", query, hint)
