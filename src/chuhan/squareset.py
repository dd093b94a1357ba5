"""A set of squares backed by a 90-bit int mask, as python-chess's ``chess.SquareSet``.

>>> from chuhan import SquareSet, parse_square
>>> squares = SquareSet([parse_square("e0"), parse_square("e9")])
>>> len(squares), parse_square("e0") in squares
(2, True)
>>> [str(name) for name in squares.names()]
['e0', 'e9']
>>> (squares | SquareSet([0])) - squares == SquareSet([0])
True
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from chuhan.errors import ChuhanError
from chuhan.squares import SQUARE_COUNT, SQUARE_NAMES

__all__ = ["SquareSet"]

_ALL = (1 << SQUARE_COUNT) - 1


class SquareSet:
    """A mutable set of squares (ints 0-89), kept as the int :attr:`mask` (bit ``sq``
    for square ``sq``). ``|``, ``&``, ``-``, ``^``, ``~``, ``in``, ``len()`` and
    iteration (in ascending square order) work as on python-chess's ``SquareSet``."""

    __slots__ = ("mask",)

    def __init__(self, squares: int | Iterable[int] = 0) -> None:
        if isinstance(squares, int):
            if not 0 <= squares <= _ALL:
                raise ChuhanError(f"invalid square mask {squares!r}: expected 0 to 2**90 - 1")
            self.mask = squares
            return
        mask = 0
        for sq in squares:
            mask |= _bit(sq)
        self.mask = mask

    @classmethod
    def from_square(cls, sq: int) -> SquareSet:
        return cls(_bit(sq))

    def __iter__(self) -> Iterator[int]:
        mask = self.mask
        while mask:
            low = mask & -mask
            yield low.bit_length() - 1
            mask ^= low

    def __reversed__(self) -> Iterator[int]:
        return reversed(list(self))

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return bool(self.mask)

    def __contains__(self, sq: object) -> bool:
        return isinstance(sq, int) and 0 <= sq < SQUARE_COUNT and bool(self.mask >> sq & 1)

    def __int__(self) -> int:
        return self.mask

    def __index__(self) -> int:
        return self.mask

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SquareSet):
            return self.mask == other.mask
        if isinstance(other, int):
            return self.mask == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.mask)

    def __or__(self, other: SquareSet | Iterable[int] | int) -> SquareSet:
        return SquareSet(self.mask | _mask(other))

    def __and__(self, other: SquareSet | Iterable[int] | int) -> SquareSet:
        return SquareSet(self.mask & _mask(other))

    def __sub__(self, other: SquareSet | Iterable[int] | int) -> SquareSet:
        return SquareSet(self.mask & ~_mask(other))

    def __xor__(self, other: SquareSet | Iterable[int] | int) -> SquareSet:
        return SquareSet(self.mask ^ _mask(other))

    def __invert__(self) -> SquareSet:
        return SquareSet(~self.mask & _ALL)

    __ror__ = __or__
    __rand__ = __and__
    __rxor__ = __xor__

    def add(self, sq: int) -> None:
        self.mask |= _bit(sq)

    def discard(self, sq: int) -> None:
        self.mask &= ~_bit(sq)

    def remove(self, sq: int) -> None:
        """Remove ``sq``; ``KeyError`` if it is not in the set (as ``set.remove``)."""
        if sq not in self:
            raise KeyError(sq)
        self.discard(sq)

    def clear(self) -> None:
        self.mask = 0

    def issubset(self, other: SquareSet | Iterable[int] | int) -> bool:
        return not self.mask & ~_mask(other)

    def issuperset(self, other: SquareSet | Iterable[int] | int) -> bool:
        return not _mask(other) & ~self.mask

    def isdisjoint(self, other: SquareSet | Iterable[int] | int) -> bool:
        return not self.mask & _mask(other)

    def tolist(self) -> list[bool]:
        """90 booleans, one per square."""
        return [bool(self.mask >> sq & 1) for sq in range(SQUARE_COUNT)]

    def names(self) -> list[str]:
        """The ICCS names of the squares, in ascending order."""
        return [SQUARE_NAMES[sq] for sq in self]

    def __repr__(self) -> str:
        return f"SquareSet({self.mask:#x})"

    def __str__(self) -> str:
        """Ten rows of ``1``/``.`` from rank 9 down to rank 0, as python-chess draws it."""
        rows = []
        for rank in range(9, -1, -1):
            rows.append(" ".join("1" if self.mask >> (rank * 9 + f) & 1 else "." for f in range(9)))
        return "\n".join(rows)


def _bit(sq: int) -> int:
    if not isinstance(sq, int) or not 0 <= sq < SQUARE_COUNT:
        raise ChuhanError(f"invalid square {sq!r}: expected an int from 0 to 89")
    return 1 << sq


def _mask(other: SquareSet | Iterable[int] | int) -> int:
    if isinstance(other, SquareSet):
        return other.mask
    if isinstance(other, int):
        return other & _ALL
    return SquareSet(other).mask
