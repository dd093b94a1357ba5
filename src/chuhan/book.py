"""chuhan's opening book: the moves masters played, for the computer players' first moves.

The book (``data/book.bin``) is built by ``tools/build_book.py`` from the master games of
the Chinese Chess Practical Dataset by Yu-Han Tseng (CC BY 4.0; see the NOTICE file):
for each xiangqi position the masters reached in their first :data:`BOOK_PLIES` plies,
keyed by Zobrist hash and side to move (so any move order finds it), the moves enough of
them played and scored well enough with, each weighted by the points it scored.

The file is a sequence of little-endian records of 12 bytes: the position's key (8 bytes),
the move's code (``from << 7 | to``, 2 bytes) and its weight (2 bytes), sorted by key.

>>> from chuhan import Board
>>> book = Book.load()
>>> "h2e2" in [move.iccs() for move, _ in book.entries(Board().zobrist_hash())]
True
"""

from __future__ import annotations

import random
import struct
from collections.abc import Collection, Mapping
from functools import cache
from importlib import resources
from pathlib import Path

from chuhan.board import Board
from chuhan.errors import ChuhanError
from chuhan.squares import Move

__all__ = [
    "BOOK_PATH",
    "BOOK_PLIES",
    "LEVEL_BOOK_PLIES",
    "MIN_GAMES",
    "MIN_SCORE",
    "Book",
    "BookError",
]

#: The shipped book.
BOOK_PATH = Path(str(resources.files("chuhan").joinpath("data/book.bin")))
#: How deep into the game (plies from the start) the book reaches.
BOOK_PLIES = 20
#: A move enters the book when at least this many master games played it ...
MIN_GAMES = 10
#: ... and the side that played it scored at least this share of the points in them.
MIN_SCORE = 0.4
#: How deep each strength level plays from the book (level 1 none: it need not play like
#: a master; level 8 is the full engine).
LEVEL_BOOK_PLIES = {1: 0, 2: 2, 3: 6, 4: 10, 5: 14, 6: BOOK_PLIES, 7: BOOK_PLIES, 8: BOOK_PLIES}

_RECORD = struct.Struct("<QHH")


class BookError(ChuhanError):
    """A book file that cannot be read."""


class Book:
    """Position key -> the book's moves there, with their weights."""

    def __init__(self, table: Mapping[int, Mapping[int, int]]) -> None:
        self._table = {key: dict(moves) for key, moves in table.items()}

    @classmethod
    def load(cls, path: Path = BOOK_PATH) -> Book:
        """The book in ``path`` (default: the shipped one, read once)."""
        if path == BOOK_PATH:
            return _shipped()
        return cls._read(path)

    @classmethod
    def _read(cls, path: Path) -> Book:
        try:
            data = path.read_bytes()
        except OSError as error:
            raise BookError(f"the opening book {str(path)!r} cannot be read: {error}") from error
        if len(data) % _RECORD.size:
            raise BookError(
                f"the opening book {str(path)!r} is not a book: its size {len(data)} is not "
                f"a multiple of {_RECORD.size} bytes"
            )
        table: dict[int, dict[int, int]] = {}
        for key, code, weight in _RECORD.iter_unpack(data):
            table.setdefault(key, {})[code] = weight
        return cls(table)

    @staticmethod
    def encode(table: Mapping[int, Mapping[int, int]]) -> bytes:
        """The file of ``table`` (key -> move code -> weight)."""
        return b"".join(
            _RECORD.pack(key, code, min(weight, 0xFFFF))
            for key in sorted(table)
            for code, weight in sorted(table[key].items())
        )

    @staticmethod
    def start_key() -> int:
        return Board().zobrist_hash()

    def __len__(self) -> int:
        """The number of positions in the book."""
        return len(self._table)

    def entries(self, key: int) -> list[tuple[Move, int]]:
        """The book's moves from the position of Zobrist hash ``key``, heaviest first."""
        moves = self._table.get(key, {})
        found = [(Move(code >> 7, code & 0x7F), weight) for code, weight in moves.items()]
        return sorted(found, key=lambda entry: (-entry[1], entry[0].iccs()))

    def choose(
        self,
        board: Board,
        rng: random.Random,
        *,
        plies: int = BOOK_PLIES,
        banned: Collection[Move] = (),
    ) -> Move | None:
        """A book move for ``board`` chosen at random by weight with ``rng``, or None: a
        position not in the book, not a xiangqi game, or deeper than ``plies`` plies
        into the game (counted from its move number)."""
        if board.variant.game != "xiangqi" or _game_ply(board) >= plies:
            return None
        entries = [
            (move, weight)
            for move, weight in self.entries(board.zobrist_hash())
            if move not in banned and board.is_legal(move)
        ]
        if not entries:
            return None
        return rng.choices([m for m, _ in entries], weights=[w for _, w in entries])[0]


def _game_ply(board: Board) -> int:
    """Plies played since the start of the game, from the move number and side to move."""
    return 2 * (board.fullmove_number - 1) + (0 if board.turn else 1)


@cache
def _shipped() -> Book:
    return Book._read(BOOK_PATH)
