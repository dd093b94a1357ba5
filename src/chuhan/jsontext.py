"""A position's moves and pieces as JSON text, put together directly: the web server sends
them after every move, and ``json.dumps`` of the lists and dicts (or a Python loop over
the squares) would cost more than the rest of the move. Compiled by mypyc with the board
(:mod:`chuhan._native`); the texts are what ``json.dumps`` writes (default separators).

>>> from chuhan.board import Board
>>> board = Board()
>>> moves_json([code for code in board.legal_move_codes() if code >> 7 == 0])
'{"a0": ["a1", "a2"]}'
>>> moves_json([])
'{}'
"""

from __future__ import annotations

from typing import Final

from chuhan.squares import SQUARE_NAMES

__all__ = ["moves_json", "pieces_json"]

#: Each square's name as JSON text; the same after a comma (a to-square after the first
#: of its list); opening a from-square's list, first or after another's.
_QUOTED: Final = [f'"{name}"' for name in SQUARE_NAMES]
_FOLLOWING: Final = [f', "{name}"' for name in SQUARE_NAMES]
_OPENING: Final = [f'"{name}": [' for name in SQUARE_NAMES]
_REOPENING: Final = [f'], "{name}": [' for name in SQUARE_NAMES]


def moves_json(codes: list[int]) -> str:
    """Move codes (``from_square << 7 | to_square``) as a JSON object of their to-squares
    (in order) by from-square (in the order first met), by name.

    >>> moves_json([0 << 7 | 9, 1 << 7 | 10, 0 << 7 | 18])
    '{"a0": ["a1", "a2"], "b0": ["b1"]}'
    >>> moves_json([0 << 7 | 9, 0 << 7 | 18, 1 << 7 | 10])
    '{"a0": ["a1", "a2"], "b0": ["b1"]}'
    """
    # The generators give each piece's moves together: the text is written as the codes
    # come (one join of short strings, one string a move, since every string made costs),
    # unless a square comes back after another.
    quoted = _QUOTED
    following = _FOLLOWING
    parts: list[str] = ["{"]
    seen = [False] * len(quoted)
    last = -1
    for code in codes:
        origin = code >> 7
        if origin == last:
            parts.append(following[code & 127])
            continue
        if seen[origin]:
            return _grouped_json(codes)
        seen[origin] = True
        parts.append(_OPENING[origin] if last < 0 else _REOPENING[origin])
        parts.append(quoted[code & 127])
        last = origin
    parts.append("]}" if last >= 0 else "}")
    return "".join(parts)


def _grouped_json(codes: list[int]) -> str:
    """:func:`moves_json` of codes whose from-squares are not each together."""
    quoted = _QUOTED
    groups: dict[int, list[str]] = {}
    for code in codes:
        origin = code >> 7
        targets = groups.get(origin)
        if targets is None:
            groups[origin] = [quoted[code & 127]]
        else:
            targets.append(quoted[code & 127])
    parts: list[str] = []
    for origin, found in groups.items():
        parts.append(_OPENING[origin] + ", ".join(found) + "]")
    return "{" + ", ".join(parts) + "}"


def pieces_json(placement: list[int], texts: list[list[str]]) -> str:
    """The pieces of a placement (signed piece codes by square) as a JSON array of their
    texts, square by square: ``texts[piece + 7][square]`` is the text of ``piece`` on
    ``square``.

    >>> pieces_json([0, 1, 0, -2], [[f"{p - 7}@{sq}" for sq in range(4)] for p in range(15)])
    '[1@1, -2@3]'
    """
    parts: list[str] = ["["]
    for square in range(len(placement)):
        piece = placement[square]
        if piece:
            if len(parts) > 1:
                parts.append(", ")
            parts.append(texts[piece + 7][square])
    parts.append("]")
    return "".join(parts)
