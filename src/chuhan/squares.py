"""Squares (points) and moves.

A square is an int ``rank * 9 + file``: files a–i are 0–8 from the first mover's left,
ranks 0–9 from the first mover's back rank (the ICCS convention: the central cannon
opening is ``h2e2``). A :class:`Move` is a pair of squares; a janggi pass is the king's
square twice. Parsing a move string here checks its syntax only; whether it is legal is
the board's business.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from chuhan.errors import InvalidMoveError

# Final: the compiled modules (chuhan._native) use the values, not a lookup of the names.
FILES: Final = 9
RANKS: Final = 10
SQUARE_COUNT: Final = 90  # FILES * RANKS
FILE_NAMES = "abcdefghi"
SQUARES = range(SQUARE_COUNT)
SQUARE_NAMES = [f + str(r) for r in range(RANKS) for f in FILE_NAMES]


def square(file_index: int, rank_index: int) -> int:
    """The square on file 0–8 and rank 0–9."""
    return rank_index * FILES + file_index


def square_file(sq: int) -> int:
    return sq % FILES


def square_rank(sq: int) -> int:
    return sq // FILES


def square_name(sq: int) -> str:
    """ICCS name of a square: ``"e0"``."""
    return SQUARE_NAMES[sq]


def mirror_square(sq: int) -> int:
    """The square reflected left-right."""
    return sq - 2 * (sq % FILES) + FILES - 1


def flip_square(sq: int) -> int:
    """The square seen from the other side of the board (turned half a circle)."""
    return SQUARE_COUNT - 1 - sq


_ICCS_RE = re.compile(r"^([a-i])([0-9])([a-i])([0-9])$")
_FSF_RE = re.compile(r"^([a-i])(10|[1-9])([a-i])(10|[1-9])$")


def parse_square(name: str) -> int:
    """Parse an ICCS square name such as ``"e0"``."""
    text = name.strip().lower()
    if len(text) != 2 or text[0] not in FILE_NAMES or not text[1].isdigit():
        raise InvalidMoveError(f"invalid square {name!r}: expected a file a-i and a rank 0-9")
    return square(FILE_NAMES.index(text[0]), int(text[1]))


@dataclass(frozen=True, slots=True)
class Move:
    """A move from one point to another. ``str(move)`` is its ICCS form (``"h2e2"``)."""

    from_square: int
    to_square: int

    def __post_init__(self) -> None:
        if not (0 <= self.from_square < SQUARE_COUNT and 0 <= self.to_square < SQUARE_COUNT):
            raise InvalidMoveError(
                f"invalid move squares {self.from_square}, {self.to_square}: expected 0-89"
            )

    @classmethod
    def from_iccs(cls, text: str) -> Move:
        """Parse ICCS coordinates (``"h2e2"``, ranks 0–9). Syntax only: no board involved.

        A dash between the squares (``"h2-e2"``) and upper case are accepted.
        """
        if not isinstance(text, str):
            raise InvalidMoveError(f"invalid ICCS move {text!r}: expected a string")
        cleaned = text.strip().lower().replace("-", "")
        match = _ICCS_RE.match(cleaned)
        if match is None:
            raise InvalidMoveError(
                f"invalid ICCS move {text!r}: expected four characters like 'h2e2' "
                "(file a-i, rank 0-9, twice)"
            )
        ff, fr, tf, tr = match.groups()
        return cls(square(FILE_NAMES.index(ff), int(fr)), square(FILE_NAMES.index(tf), int(tr)))

    @classmethod
    def from_fsf(cls, text: str) -> Move:
        """Parse Fairy-Stockfish UCI coordinates (``"h3e3"``, ranks 1–10)."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"invalid Fairy-Stockfish UCI move {text!r}: expected a string")
        cleaned = text.strip().lower()
        match = _FSF_RE.match(cleaned)
        if match is None:
            raise InvalidMoveError(
                f"invalid Fairy-Stockfish UCI move {text!r}: expected a form like 'h3e3' "
                "(file a-i, rank 1-10, twice)"
            )
        ff, fr, tf, tr = match.groups()
        return cls(
            square(FILE_NAMES.index(ff), int(fr) - 1), square(FILE_NAMES.index(tf), int(tr) - 1)
        )

    def iccs(self) -> str:
        """ICCS coordinates, ranks 0–9: ``"h2e2"``; a janggi pass is ``"e1e1"``."""
        return SQUARE_NAMES[self.from_square] + SQUARE_NAMES[self.to_square]

    def fsf(self) -> str:
        """Fairy-Stockfish UCI coordinates, ranks 1–10: ``"h3e3"``."""
        f, t = self.from_square, self.to_square
        return f"{FILE_NAMES[f % FILES]}{f // FILES + 1}{FILE_NAMES[t % FILES]}{t // FILES + 1}"

    def is_pass(self) -> bool:
        """True for a janggi pass (the king's square twice)."""
        return self.from_square == self.to_square

    def __str__(self) -> str:
        return self.iccs()

    def __repr__(self) -> str:
        return f"Move.from_iccs({self.iccs()!r})"
