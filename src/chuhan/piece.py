"""A piece: its type and its side, as python-chess's ``chess.Piece``.

The board keeps signed ints (``+type`` for the first mover, ``-type`` for the second);
:class:`Piece` is what :meth:`chuhan.board.Board.piece_at` hands out and
:meth:`~chuhan.board.Board.set_piece_at` takes.

>>> from chuhan import Piece, ROOK, RED
>>> Piece(ROOK, RED)
Piece.from_symbol('R')
>>> Piece.from_symbol("c").symbol(), Piece.from_symbol("c").color
('c', False)
>>> Piece.from_symbol("R").code()
5
"""

from __future__ import annotations

from dataclasses import dataclass

from chuhan.errors import ChuhanError
from chuhan.fen import PIECE_LETTERS, TYPE_LETTERS
from chuhan.variants import PIECE_NAMES

__all__ = ["Piece"]


@dataclass(frozen=True)
class Piece:
    """A piece type (:data:`chuhan.KING` .. :data:`chuhan.PAWN`) and a side.

    ``color`` keeps python-chess's name: ``True`` is the first mover (xiangqi Red, janggi
    Cho; :data:`chuhan.RED`), ``False`` the second (Black, Han)."""

    piece_type: int
    color: bool

    def __post_init__(self) -> None:
        if self.piece_type not in TYPE_LETTERS:
            raise ChuhanError(f"invalid piece type {self.piece_type!r}: expected 1 to 7")

    @classmethod
    def from_symbol(cls, symbol: str) -> Piece:
        """The piece of a FEN letter: upper case for the first mover (``"R"``, ``"c"``).
        Raises :class:`~chuhan.errors.ChuhanError` (a ``ValueError``) otherwise."""
        kind = PIECE_LETTERS.get(symbol.lower()) if len(symbol) == 1 else None
        if kind is None:
            raise ChuhanError(
                f"invalid piece symbol {symbol!r}: expected a FEN piece letter such as R or c"
            )
        return cls(kind, symbol.isupper())

    @classmethod
    def from_code(cls, code: int) -> Piece:
        """The piece of a board's signed piece code (``5``: a first-mover rook)."""
        return cls(abs(code), code > 0)

    def code(self) -> int:
        """The signed piece code the board keeps (``+type`` first mover, ``-type`` second)."""
        return self.piece_type if self.color else -self.piece_type

    def symbol(self) -> str:
        """The FEN letter: upper case for the first mover."""
        letter = TYPE_LETTERS[self.piece_type]
        return letter.upper() if self.color else letter

    def unicode_symbol(
        self, *, invert_color: bool = False, janggi: bool = False, simplified: bool = False
    ) -> str:
        """The piece's character, as python-chess's ``Piece.unicode_symbol()`` and as
        :meth:`chuhan.board.Board.unicode` draws it: each side has its own (Red's ``帥 仕 相
        傌 俥 炮 兵``, Black's ``將 士 象 馬 車 砲 卒``); ``janggi`` gives janggi's (Cho's
        ``楚 ... 卒``, Han's ``漢 ... 兵``, the cannon ``包``), ``simplified`` simplified
        characters (``帅``, ``马``), and ``invert_color`` the other side's character.

        >>> from chuhan import Piece
        >>> Piece.from_symbol("K").unicode_symbol(), Piece.from_symbol("r").unicode_symbol()
        ('帥', '車')
        >>> Piece.from_symbol("R").unicode_symbol(invert_color=True)
        '車'
        >>> Piece.from_symbol("k").unicode_symbol(janggi=True)
        '漢'
        """
        from chuhan.notation.chinese import piece_character

        code = -self.code() if invert_color else self.code()
        return piece_character(code, janggi=janggi, simplified=simplified)

    def name(self) -> str:
        """The piece type's English name (xiangqi's; a janggi board says ``guard`` for
        the advisor in :meth:`chuhan.variants.Variant.piece_name`)."""
        return PIECE_NAMES[self.piece_type]

    def __str__(self) -> str:
        return self.symbol()

    def __repr__(self) -> str:
        return f"Piece.from_symbol({self.symbol()!r})"
