"""The Chinese notation: ``炮二平五`` (red), ``炮８平５`` (black).

The same description as WXF (see :mod:`chuhan.notation.wxf`) in characters: piece name,
file, 進 (forward) / 退 (backward) / 平 (sideways), then points or destination file. Red
(the first mover) writes files and numbers in Chinese numerals counted from red's right,
black in full-width digits counted from black's right, so a record reads the way players
write it on a score sheet.

Writing uses side-dependent traditional names (red 帥 仕 相 傌 俥 炮 兵, black 將 士 象 馬
車 砲 卒), or with ``simplified=True`` the simplified forms (帅/将, 马, 车, 炮, 进, 后). For
janggi the hanja names are used: 楚/漢 for the kings, 車 包 馬 象 士, 卒 for Cho's soldiers and
兵 for Han's; Cho writes numerals like red, Han digits like black.

Several pieces of a kind on one file (xiangqi advisors and elephants in pairs keep their
file, as in WXF: 仕四退五):

* two: 前/後 in place of the file (``前炮平五``); three: 前/中/後; four or more: 一, 二, 三…
  counted from the front (``二兵平四``);
* pawns on two files that each hold several: the place, then the file, without the name
  (``前七進一``); other pieces keep their name there (``前車七進一``, composed positions only).

Janggi chariots and cannons moving along a palace diagonal write 斜 before the direction
(``車六斜進五``), as ``/`` in WXF, because ``車六進五`` is five points straight ahead.
A janggi pass is 停著 (停着).

Parsing accepts simplified and variant characters (帅/將/将, 车/車/俥, 马/馬/傌,
炮/砲/包, 相/象, 仕/士, 兵/卒, 进/進, 後/后), Chinese numerals, full-width or ASCII digits
for either side, a name followed by 前/中/後 (``炮前平五``), and a file number in place of a
place marker when only one legal move fits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chuhan.errors import InvalidMoveError
from chuhan.notation.wxf import (
    PASS_TOKENS,
    Description,
    Op,
    Query,
    Selector,
    describe,
    is_middle,
    resolve,
    resolve_pass,
)
from chuhan.squares import Move
from chuhan.variants import ADVISOR, CANNON, ELEPHANT, HORSE, KING, PAWN, ROOK

if TYPE_CHECKING:
    from chuhan.board import Board

__all__ = ["file_number", "parse_chinese", "piece_character", "simplify", "to_chinese"]

_KINDS = (KING, ADVISOR, ELEPHANT, HORSE, ROOK, CANNON, PAWN)


def _names(first: str, second: str) -> dict[bool, dict[int, str]]:
    return {
        True: dict(zip(_KINDS, first, strict=True)),
        False: dict(zip(_KINDS, second, strict=True)),
    }


# Names by (janggi, simplified) and side, in the order K A E H R C P.
_NAMES = {
    (False, False): _names("帥仕相傌俥炮兵", "將士象馬車砲卒"),
    (False, True): _names("帅仕相马车炮兵", "将士象马车炮卒"),
    (True, False): _names("楚士象馬車包卒", "漢士象馬車包兵"),
    (True, True): _names("楚士象马车包卒", "汉士象马车包兵"),
}
_NAME_TYPES = {
    **{ch: KING for ch in "帥帅將将楚漢汉"},
    **{ch: ADVISOR for ch in "仕士"},
    **{ch: ELEPHANT for ch in "相象"},
    **{ch: HORSE for ch in "馬马傌"},
    **{ch: ROOK for ch in "車车俥伡"},
    **{ch: CANNON for ch in "炮砲包"},
    **{ch: PAWN for ch in "兵卒"},
}
_CHINESE_NUMERALS = "一二三四五六七八九"
_FULLWIDTH_DIGITS = "１２３４５６７８９"
_NUMBERS = {
    **{ch: i + 1 for i, ch in enumerate(_CHINESE_NUMERALS)},
    **{ch: i + 1 for i, ch in enumerate(_FULLWIDTH_DIGITS)},
    **{ch: i + 1 for i, ch in enumerate("123456789")},
}
#: Counting places in a column from the front, for four or more pieces on a file.
_ORDINALS = "一二三四五六七八九十"
_ORDINAL_NUMBERS = {**_NUMBERS, "十": 10}
_OPS: dict[str, Op] = {"進": "+", "进": "+", "退": "-", "平": "."}
_OP_WORDS = {False: {"+": "進", "-": "退", ".": "平"}, True: {"+": "进", "-": "退", ".": "平"}}
_FRONT, _MIDDLE = "前", "中"
_REAR = {False: "後", True: "后"}
_PLACE_WORDS = {"前": "front", "中": "middle", "後": "rear", "后": "rear"}
_DIAGONAL = "斜"
_PASS = {False: "停著", True: "停着"}


def _simplifications() -> dict[int, str]:
    """The traditional characters :func:`to_chinese` writes that its simplified form
    writes otherwise (piece names, 進, 後, 著), from the tables above, character for
    character."""
    pairs = [
        (traditional, _NAMES[janggi, True][side][kind])
        for janggi in (False, True)
        for side in (True, False)
        for kind, traditional in _NAMES[janggi, False][side].items()
    ]
    pairs += [(_REAR[False], _REAR[True]), (_PASS[False], _PASS[True])]
    pairs += [(_OP_WORDS[False][op], _OP_WORDS[True][op]) for op in _OP_WORDS[False]]
    table: dict[str, str] = {}
    for traditional, simplified in pairs:
        for old, new in zip(traditional, simplified, strict=True):
            if old != new and table.setdefault(old, new) != new:
                raise AssertionError(f"{old} is simplified two ways")
    return str.maketrans(table)


_SIMPLIFIED = _simplifications()


def simplify(text: str) -> str:
    """A move as :func:`to_chinese` writes it, in the characters it writes with
    ``simplified=True`` (one translation, where writing the move again would work it
    out again).

    >>> simplify("傌二進三"), simplify("後車退一")
    ('马二进三', '后车退一')
    """
    return text.translate(_SIMPLIFIED)


def piece_character(piece: int, *, janggi: bool = False, simplified: bool = False) -> str:
    """The character of a signed piece code: ``俥`` for a red chariot, ``車`` for a black
    one; janggi uses 楚/漢 for the kings and 包 for the cannon."""
    return _NAMES[janggi, simplified][piece > 0][abs(piece)]


def file_number(side: bool, value: int) -> str:
    """File ``value`` (1–9, from ``side``'s right) as that side writes it: ``五`` or ``５``."""
    return _number(side, value)


def _number(side: bool, value: int) -> str:
    return (_CHINESE_NUMERALS if side else _FULLWIDTH_DIGITS)[value - 1]


def to_chinese(
    board: Board,
    move: Move,
    *,
    simplified: bool = False,
    described: Description | None = None,
) -> str:
    """The Chinese form of ``move`` (assumed legal): ``"炮二平五"``, ``"馬２進３"``
    (``described``: its :func:`~chuhan.notation.wxf.describe`, when already worked out)."""
    if described is None:
        described = describe(board, move, "Chinese")
    if move.is_pass():
        return _PASS[simplified]
    piece, shape, file, place, placed = described
    side = piece > 0
    kind = abs(piece)
    name = _NAMES[board.variant.is_janggi, simplified][side][kind]
    file_number = _number(side, file)
    if not placed:
        head = name + file_number
    else:
        if place.count > 3:
            mark = _ORDINALS[place.index]
        elif place.index == 0:
            mark = _FRONT
        elif place.index == place.count - 1:
            mark = _REAR[simplified]
        else:
            mark = _MIDDLE
        if place.crowded_files > 1:
            head = mark + ("" if kind == PAWN else name) + file_number
        else:
            head = mark + name
    diagonal = _DIAGONAL if not shape.straight and kind in (ROOK, CANNON) else ""
    return f"{head}{diagonal}{_OP_WORDS[simplified][shape.op]}{_number(side, shape.target)}"


def _invalid(text: str, reason: str) -> InvalidMoveError:
    return InvalidMoveError(f"invalid Chinese move {text!r}: {reason}")


def _place_selector(text: str, mark: str) -> tuple[Selector, str]:
    """The selector and a description of a place marker (前 中 後 or an ordinal)."""
    word = _PLACE_WORDS.get(mark)
    if word == "front":
        return (lambda index, count: count >= 2 and index == 0), f"in front ({mark})"
    if word == "rear":
        return (lambda index, count: count >= 2 and index == count - 1), f"at the rear ({mark})"
    if word == "middle":
        return is_middle, f"in the middle ({mark})"
    ordinal = _ORDINAL_NUMBERS.get(mark)
    if ordinal is None:
        raise _invalid(
            text, f"{mark!r} is not a piece name, a file number or a place (前 中 後 一 二 …)"
        )
    return (
        (lambda index, count: count >= 2 and index == ordinal - 1),
        f"at place {ordinal} from the front ({mark})",
    )


def _file(text: str, char: str) -> int:
    value = _NUMBERS.get(char)
    if value is None:
        raise _invalid(text, f"{char!r} is not a file number (一 to 九, １ to ９ or 1 to 9)")
    return value


def parse_chinese_query(text: str) -> Query:
    """Parse the syntax of a Chinese move (no board): raises :class:`InvalidMoveError`."""
    cleaned = "".join(text.split())
    if not cleaned:
        raise _invalid(text, "empty string")
    if len(cleaned) < 4:
        raise _invalid(text, "too short: expected piece, file, direction and number ('炮二平五')")
    target_char, op_char, head = cleaned[-1], cleaned[-2], cleaned[:-2]
    op = _OPS.get(op_char)
    if op is None:
        raise _invalid(text, f"expected 進, 退 or 平 before the last character, got {op_char!r}")
    target = _NUMBERS.get(target_char)
    if target is None:
        raise _invalid(text, f"the last character must be a number 1-9, got {target_char!r}")
    diagonal = head.endswith(_DIAGONAL)
    if diagonal:
        head = head[:-1]
        if op == ".":
            raise _invalid(text, "a diagonal move (斜) goes forward or backward, not sideways")
    file: int | None = None
    selector: Selector | None = None
    if len(head) == 2:
        first, second = head[0], head[1]
        if first in _NAME_TYPES:
            kind = _NAME_TYPES[first]
            if second in _PLACE_WORDS:
                selector, position = _place_selector(text, second)
            else:
                file = _file(text, second)
                position = f"on file {file}"
        elif second in _NAME_TYPES:
            kind = _NAME_TYPES[second]
            selector, position = _place_selector(text, first)
        else:
            kind = PAWN
            selector, position = _place_selector(text, first)
            file = _file(text, second)
            position = f"{position} on file {file}"
    elif len(head) == 3 and head[1] in _NAME_TYPES:
        kind = _NAME_TYPES[head[1]]
        selector, position = _place_selector(text, head[0])
        file = _file(text, head[2])
        position = f"{position} on file {file}"
    else:
        raise _invalid(
            text,
            "expected a piece name and its file ('炮二'), a place and a name ('前炮') "
            "or a place and a file for pawns ('前七') before the direction",
        )
    if diagonal and kind in (HORSE, ELEPHANT):
        raise _invalid(text, "斜 marks palace-diagonal moves of janggi pieces")
    return Query(kind, file, selector, position, op, target, diagonal)


def parse_chinese(board: Board, text: str) -> Move:
    """Parse a Chinese move (``"炮二平五"``, ``"炮８平５"``, ``"前车进一"``) and return the legal
    move it names.

    Raises :class:`InvalidMoveError` for text that is not this notation,
    :class:`IllegalMoveError` when no legal move fits and :class:`AmbiguousMoveError` when
    several do.
    """
    if text.strip().casefold() in PASS_TOKENS:
        return resolve_pass(board, text, "Chinese")
    query = parse_chinese_query(text)
    hint = (
        "name the piece by its place: 前/後 "
        "(中 for the middle of three, 一 二 三… counted from the front)"
    )
    if query.kind in (ROOK, CANNON) and not query.diagonal:
        hint += "; a palace-diagonal move is written with 斜 (車六斜進五)"
    return resolve(board, text, "Chinese", query, hint)
