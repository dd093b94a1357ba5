"""The board: placement, side to move, legal moves, push/pop and the Zobrist key.

The placement is a flat list of 90 small ints (``+type`` for the side that moves first,
``-type`` for the other, 0 for an empty point). The API hands out
:class:`~chuhan.squares.Move` values; beside it, the hot paths (perft, the search, the
referee's repetition analysis) use move codes, ints ``from_square << 7 | to_square``
(see :class:`Board`, "Move codes"). Legality is decided from the king outward: most moves
cannot expose the king, and only the few that might (king moves, moves while in check,
moves of a piece that shields the king, moves onto a line between the king and an enemy
cannon) are made, tested and unmade.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, Final

from chuhan.errors import ChuhanError, IllegalMoveError
from chuhan.fen import PALACE, Setup, parse_fen, piece_letter
from chuhan.movegen import ALL_SQUARES, Kernel, evasion_points, kernel_for
from chuhan.piece import Piece
from chuhan.squares import FILES, RANKS, SQUARE_COUNT, SQUARE_NAMES, Move
from chuhan.squareset import SquareSet
from chuhan.variants import (
    ADVISOR,
    CANNON,
    ELEPHANT,
    HORSE,
    KING,
    PAWN,
    ROOK,
    Variant,
    get_variant,
)

if TYPE_CHECKING:
    from chuhan.adjudication.outcome import Outcome

__all__ = ["Board", "LegalMoveGenerator", "Status"]


class Status(enum.IntFlag):
    """Ways a position can be unreachable in a real game (see :meth:`Board.status`)."""

    VALID = 0
    #: The side not to move is in check: the last move would have been illegal.
    OPPOSITE_CHECK = 1
    #: Xiangqi: the kings face each other on an open file.
    KINGS_FACING = 2
    #: An advisor (janggi guard) off the points it can reach.
    BAD_ADVISOR = 4
    #: A xiangqi elephant off its seven points.
    BAD_ELEPHANT = 8
    #: A soldier behind its starting rank, or (xiangqi) off its file before the river.
    BAD_PAWN = 16
    #: More pieces of a kind than a side starts with.
    TOO_MANY_PIECES = 32


_START_COUNTS = {KING: 1, ADVISOR: 2, ELEPHANT: 2, HORSE: 2, ROOK: 2, CANNON: 2, PAWN: 5}

# Zobrist keys: one per (piece code, square) and one for the side to move. Fixed seed, so
# hashes are the same in every process (the opening book and the server can store them).
_rng = random.Random(0x636875_68616E)
_ZOBRIST = [_rng.getrandbits(64) for _ in range(15 * SQUARE_COUNT)]
_ZOBRIST_TURN: Final = _rng.getrandbits(64)
del _rng
# The keys of each piece code, indexed so that ``_ZOBRIST_BY_PIECE[piece]`` works for
# negative codes too (Python's negative indexing reaches the second half).
_ZOBRIST_BY_PIECE: Final = [
    _ZOBRIST[(code + 7) * SQUARE_COUNT : (code + 8) * SQUARE_COUNT]
    for code in (*range(0, 8), *range(-7, 0))
]


_NO_SQUARES: Final[set[int]] = set()
#: Every square's bit: the default mask of :meth:`Board.piece_map`.
_ALL_MASK: Final = (1 << SQUARE_COUNT) - 1


def _piece_key(piece: int, sq: int) -> int:
    return _ZOBRIST_BY_PIECE[piece][sq]


#: Each signed piece code's FEN letter, by code + 7 (for :func:`placement_fen`).
_FEN_LETTERS: Final = [piece_letter(code) if code else "" for code in range(-7, 8)]
_DIGITS: Final = [str(count) for count in range(FILES + 1)]


def placement_fen(squares: list[int]) -> str:
    """The placement field of a FEN of signed piece codes by square (what
    :func:`chuhan.fen.board_fen` returns), here to be compiled with the board: one join of
    short strings, since every string made costs."""
    letters = _FEN_LETTERS
    digits = _DIGITS
    parts: list[str] = []
    for rank in range(RANKS - 1, -1, -1):
        if rank < RANKS - 1:
            parts.append("/")
        empty = 0
        for square in range(rank * FILES, rank * FILES + FILES):
            piece = squares[square]
            if piece:
                if empty:
                    parts.append(digits[empty])
                    empty = 0
                parts.append(letters[piece + 7])
            else:
                empty += 1
        if empty:
            parts.append(digits[empty])
    return "".join(parts)


class Board:
    """A xiangqi or janggi position with its move history.

    ``Board()`` is the xiangqi start position; ``Board(variant="janggi")`` the janggi
    default start; ``Board(fen, variant=..., rules=...)`` any position. ``push`` plays a
    legal move (raising :class:`IllegalMoveError` otherwise) and ``pop`` takes it back.

    **Move codes**, the fast API of perft, the search and the referee's analyses: a move
    code is the int ``from_square << 7 | to_square`` (a janggi pass: the king's square
    twice), so ``Move(code >> 7, code & 127)`` is its move and
    ``move.from_square << 7 | move.to_square`` a move's code. :meth:`legal_move_codes` and
    :meth:`legal_capture_codes` generate them; :meth:`push_code` plays one *unchecked* (it
    must come from ``legal_move_codes()`` of this very position, or the board is corrupt)
    and :meth:`pop_code` takes the last move back; :meth:`move_stack_codes` lists those
    played. :attr:`placement` is the live list of the 90 signed piece codes, and
    :meth:`swap_turn` hands the move over without one (the search's null move).
    """

    __slots__ = (
        "_bikjang_rule",
        "_capture_ply",
        "_fullmove0",
        "_hash",
        "_janggi",
        "_kernel",
        "_kings",
        "_passes",
        "_squares",
        "_stack",
        "_turn0",
        "turn",
        "variant",
    )

    variant: Variant
    _kernel: Kernel
    #: ``True`` when the first mover (xiangqi red, janggi Cho) is to move.
    turn: bool

    @property
    def placement(self) -> list[int]:
        """The 90 signed piece codes by square: the board's own list, not a copy (for the
        hot paths; :meth:`piece_map` and :meth:`piece_at` are the safe reads). Never keep a
        change to it: ``push_code`` / ``pop_code`` keep it in step with the kings and the
        Zobrist key. A caller may play a move on it for a moment, to test attacks with
        :func:`chuhan.movegen.kernel_for`, and must restore it before using the board."""
        return self._squares

    @property
    def halfmove_clock(self) -> int:
        """Plies since the last capture (passes included)."""
        # Kept as the ply of the last capture so that a quiet move costs nothing here.
        return len(self._stack) - self._capture_ply

    @property
    def fullmove_number(self) -> int:
        """The move number: 1 at the start, up by one after each second-mover move."""
        return self._fullmove0 + (len(self._stack) + (0 if self._turn0 else 1)) // 2

    def __init__(
        self,
        fen: str | Any | None = None,
        *,
        variant: str | Variant | Any = "xiangqi",
        rules: str | Any | None = None,
    ) -> None:
        # The arguments' types include Any so that mypyc, compiling this module, does not
        # check them on the way in: a FEN, variant or rule set of the wrong type is for
        # parse_fen and get_variant to refuse with a chuhan error, as in pure Python.
        self.variant = get_variant(variant, rules)
        self._kernel = kernel_for(self.variant.game)
        self._bikjang_rule = self.variant.bikjang
        self._janggi = self.variant.is_janggi
        self._set_setup(parse_fen(self.variant.start_fen if fen is None else fen))

    # ------------------------------------------------------------------ setup

    def set_fen(self, fen: str) -> None:
        """Replace the position by ``fen`` and clear the move stack."""
        self._set_setup(parse_fen(fen))

    def _set_setup(self, setup: Setup) -> None:
        self._squares = list(setup.squares)
        self.turn = setup.turn
        self._capture_ply = -setup.halfmove_clock
        kings = [0, 0]
        for sq, piece in enumerate(self._squares):
            if piece == KING:
                kings[1] = sq
            elif piece == -KING:
                kings[0] = sq
        self._kings = kings
        self._stack: list[tuple[int, int, int, int, int]] = []
        self._fullmove0 = setup.fullmove_number
        self._turn0 = setup.turn
        # Consecutive passes just played (0 or 1), or -1 once the game has ended by passing.
        self._passes = 0
        self._hash = self._compute_hash()

    def _compute_hash(self) -> int:
        h = 0
        for sq, piece in enumerate(self._squares):
            if piece:
                h ^= _piece_key(piece, sq)
        if not self.turn:
            h ^= _ZOBRIST_TURN
        return h

    def fen(self) -> str:
        """The FEN of the current position (``w`` is the first mover, as Fairy-Stockfish)."""
        side = "w" if self.turn else "b"
        placement = placement_fen(self._squares)
        return f"{placement} {side} - - {self.halfmove_clock} {self.fullmove_number}"

    def board_fen(self) -> str:
        """The placement field of the FEN alone."""
        return placement_fen(self._squares)

    def copy(self, *, stack: bool = True) -> Board:
        """A copy of the board; ``stack=False`` drops the move history."""
        board = Board.__new__(Board)
        board.variant = self.variant
        board._squares = self._squares.copy()
        board.turn = self.turn
        board._capture_ply = self._capture_ply if stack else -self.halfmove_clock
        board._fullmove0 = self._fullmove0 if stack else self.fullmove_number
        board._turn0 = self._turn0 if stack else self.turn
        board._kernel = self._kernel
        board._bikjang_rule = self._bikjang_rule
        board._janggi = self._janggi
        board._kings = self._kings.copy()
        board._hash = self._hash
        board._stack = self._stack.copy() if stack else []
        board._passes = self._passes if stack else 0
        return board

    def __copy__(self) -> Board:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, object]) -> Board:
        # A copy shares nothing mutable (compiled by mypyc, the kernel's functions could
        # not be deep-copied one by one).
        return self.copy()

    def root(self) -> Board:
        """A copy of the position before the first move on the stack."""
        board = self.copy()
        while board._stack:
            board.pop_code()
        return board

    # ------------------------------------------------------------------ queries

    def piece_code_at(self, sq: int) -> int:
        """The signed piece code on ``sq`` (0 if empty)."""
        return self._squares[sq]

    def piece_at(self, sq: int) -> Piece | None:
        """The :class:`~chuhan.piece.Piece` on ``sq``, or None if it is empty (as
        python-chess; :meth:`piece_code_at` is the signed int the board keeps).

        >>> from chuhan import Board, parse_square
        >>> Board().piece_at(parse_square("b2"))
        Piece.from_symbol('C')
        >>> Board().piece_at(parse_square("e4")) is None
        True
        """
        piece = self._squares[sq]
        return Piece.from_code(piece) if piece else None

    def piece_type_at(self, sq: int) -> int | None:
        """The piece type (:data:`~chuhan.variants.KING` .. :data:`~chuhan.variants.PAWN`)
        on ``sq``, or None if it is empty."""
        piece = self._squares[sq]
        return abs(piece) if piece else None

    def color_at(self, sq: int) -> bool | None:
        """The side of the piece on ``sq`` (True: the first mover), or None if empty."""
        piece = self._squares[sq]
        return piece > 0 if piece else None

    def pieces(self, piece_type: int, color: bool) -> SquareSet:
        """The squares of ``color``'s pieces of ``piece_type`` (:data:`~chuhan.variants.KING`
        .. :data:`~chuhan.variants.PAWN`), as python-chess's ``Board.pieces()``.

        >>> from chuhan import Board, CANNON, BLACK
        >>> Board().pieces(CANNON, BLACK).names()
        ['b7', 'h7']
        """
        if piece_type not in _START_COUNTS:
            raise ChuhanError(f"invalid piece type {piece_type!r}: expected 1 to 7")
        code = piece_type if color else -piece_type
        mask = 0
        for sq, piece in enumerate(self._squares):
            if piece == code:
                mask |= 1 << sq
        return SquareSet(mask)

    def piece_map(self, *, mask: int | SquareSet = _ALL_MASK) -> dict[int, Piece]:
        """Every piece by its square (in ascending order), as python-chess's
        ``Board.piece_map()``; ``mask`` (a :class:`~chuhan.squareset.SquareSet` or its int)
        keeps the squares in it. :meth:`piece_code_map` is the same with the signed ints
        the board keeps.

        >>> from chuhan import Board, SquareSet, parse_square
        >>> board = Board()
        >>> len(board.piece_map())
        32
        >>> board.piece_map(mask=SquareSet([parse_square("a0"), parse_square("a1")]))
        {0: Piece.from_symbol('R')}
        """
        bits = int(mask)
        return {
            sq: Piece.from_code(piece)
            for sq, piece in enumerate(self._squares)
            if piece and bits >> sq & 1
        }

    def piece_code_map(self) -> dict[int, int]:
        """Every piece as ``{square: signed piece code}`` (:meth:`piece_code_at`), in
        ascending order of squares: :meth:`piece_map` for the hot paths."""
        return {sq: p for sq, p in enumerate(self._squares) if p}

    def king(self, side: bool) -> int:
        """The square of ``side``'s king."""
        return self._kings[side]

    def history_state(self) -> tuple[object, ...]:
        """A value equal to another board's exactly when both have the same position and
        move history (and so the same legal moves, repetitions and move counts): for
        keeping what is worked out from them (a copy, taken now)."""
        return (
            self.variant,
            self.turn,
            self._hash,
            self._capture_ply,
            self._passes,
            self._fullmove0,
            self._turn0,
            self._squares.copy(),
            self._stack.copy(),
        )

    def zobrist_hash(self) -> int:
        """A 64-bit key of placement and side to move, kept up to date by push/pop."""
        return self._hash

    @property
    def move_stack(self) -> list[Move]:
        """The moves played since the position was set, oldest first."""
        return [Move(m >> 7, m & 127) for m, *_ in self._stack]

    def move_stack_codes(self) -> list[int]:
        """The moves played since the position was set, oldest first, as move codes."""
        return [entry[0] for entry in self._stack]

    def position_keys(self) -> list[int]:
        """The Zobrist key of the position before each move on the stack, oldest first
        (the current position's key is :meth:`zobrist_hash`): what repetition rules count."""
        return [entry[3] for entry in self._stack]

    def move_number_at(self, ply: int) -> int:
        """The game's move number of the move at index ``ply`` of the move stack."""
        return self._fullmove0 + (ply + (0 if self._turn0 else 1)) // 2

    def peek(self) -> Move:
        """The last move played. Raises ``IndexError`` when there is none."""
        m = self._stack[-1][0]
        return Move(m >> 7, m & 127)

    @property
    def ply(self) -> int:
        """Number of moves on the stack."""
        return len(self._stack)

    def __str__(self) -> str:
        rows = []
        for rank in range(9, -1, -1):
            row = []
            for file_index in range(FILES):
                piece = self._squares[rank * FILES + file_index]
                row.append(piece_letter(piece) if piece else ".")
            rows.append(" ".join(row))
        return "\n".join(rows)

    # ------------------------------------------------------------------ notation
    # The writers live in chuhan.notation (SAN in chuhan.notation.san);
    # these are where a python-chess user looks for them. Each checks that the move is
    # legal here first: a description of an illegal move would be nonsense.

    def san(self, move: Move) -> str:
        """``move`` in Fairy-Stockfish SAN, as pychess.org writes it (``Che3``, ``Hc3``,
        ``Cxe7+``; ranks 1-10). Raises :class:`IllegalMoveError` if it is not legal here."""
        from chuhan.notation.san import to_san

        self._require_legal(move, move.iccs())
        return to_san(self, move)

    def wxf(self, move: Move) -> str:
        """``move`` in WXF notation (``C2.5``, ``H8+7``). Raises :class:`IllegalMoveError`
        if it is not legal here."""
        from chuhan.notation import to_wxf

        self._require_legal(move, move.iccs())
        return to_wxf(self, move)

    def chinese(self, move: Move, *, simplified: bool = False) -> str:
        """``move`` in Chinese notation (``炮二平五``; ``simplified`` writes ``马８进７``).
        Raises :class:`IllegalMoveError` if it is not legal here."""
        from chuhan.notation import to_chinese

        self._require_legal(move, move.iccs())
        return to_chinese(self, move, simplified=simplified)

    def korean(self, move: Move, *, hanja: bool = False) -> str:
        """``move`` in Korean (GIB) coordinates (``02마83``, ``한수쉼`` for a pass).
        Raises :class:`IllegalMoveError` if it is not legal here."""
        from chuhan.notation import to_korean

        self._require_legal(move, move.iccs())
        return to_korean(self, move, hanja=hanja)

    def variation_san(self, moves: Iterable[Move], *, notation: str = "san") -> str:
        """A line of ``moves`` from this position, numbered as a game record numbers it:
        ``1. Che3 Hg8 2. Hg3``, or ``1... Hg8 2. Hg3`` when the second mover starts.
        ``notation`` is ``"san"`` or one of :data:`chuhan.notation.NOTATIONS` (``"wxf"``:
        ``1. C2.5 H8+7``, ``"chinese"``, ``"korean"``, ``"iccs"``). The board is left as it
        was; raises :class:`IllegalMoveError` naming the first move that is not legal in
        its turn."""
        from chuhan.notation import NOTATIONS, format_move

        name = notation.strip().lower()
        if name != "san" and name not in NOTATIONS:
            raise ValueError(
                f"unknown notation {notation!r}: expected san or one of {', '.join(NOTATIONS)}"
            )
        board = self.copy(stack=False)
        words: list[str] = []
        for index, move in enumerate(moves):
            if not board.is_legal(move):
                raise IllegalMoveError(
                    f"move {index + 1} of the line, {move.iccs()!r}, is illegal in "
                    f"{board.fen()}: {board.why_illegal(move)}"
                )
            if board.turn:
                words.append(f"{board.fullmove_number}.")
            elif index == 0:
                words.append(f"{board.fullmove_number}...")
            words.append(board.san(move) if name == "san" else format_move(board, move, name))
            board.push(move)
        return " ".join(words)

    def unicode(self, *, flipped: bool = False) -> str:
        """The board as text with the pieces' characters (``俥``, ``將``; janggi's ``楚``,
        ``包``...), ranks numbered on the left, files below, each side's file numbers
        (for WXF and Chinese notation) above and below a xiangqi board; ``flipped`` shows it
        from the second mover's side. ``str(board)`` is the same with FEN letters."""
        from chuhan.terminal import render

        return render(self, flipped=flipped)

    def _repr_svg_(self) -> str:
        """The board as an SVG picture (how a Jupyter notebook shows it), with the last
        move and a king in check highlighted: see :func:`chuhan.svg.board`."""
        from chuhan.svg import board as svg_board

        return svg_board(
            self,
            lastmove=self.peek() if self._stack else None,
            check=self.king(self.turn) if self.is_check() else None,
        )

    def __repr__(self) -> str:
        return f"Board({self.fen()!r}, variant={self.variant.game!r}, rules={self.variant.rules!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (
            self.variant == other.variant
            and self.turn == other.turn
            and self._squares == other._squares
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    # ------------------------------------------------------------------ attacks

    def is_check(self) -> bool:
        """Whether the side to move is in check."""
        side = self.turn
        return self._kernel.attacked(self._squares, self._kings[side], not side)

    def is_attacked_by(self, side: bool, sq: int) -> bool:
        """Whether ``side`` attacks ``sq`` (in the sense that matters for checks; in
        xiangqi a king on the same open file counts)."""
        return self._kernel.attacked(self._squares, sq, side)

    def checkers(self) -> SquareSet:
        """The squares of the pieces giving check to the side to move, as python-chess's
        ``Board.checkers()`` (in xiangqi the other king too, when the kings face each other
        on an open file).

        >>> from chuhan import Board
        >>> Board("3k5/9/9/9/9/9/9/9/3R5/4K4 b").checkers().names()
        ['d1']
        >>> Board().checkers()
        SquareSet(0x0)
        """
        side = self.turn
        king = self._kings[side]
        b = self._squares
        generate = self._kernel.generate
        mask = 0
        for sq in range(SQUARE_COUNT):
            piece = b[sq]
            if (
                piece
                and (piece > 0) != side
                and any(m & 127 == king for m in generate(b, not side, (sq,), _NO_SQUARES, None))
            ):
                mask |= 1 << sq
        if self.variant.flying_general and self._kings_facing():
            mask |= 1 << self._kings[not side]
        return SquareSet(mask)

    def _kings_facing(self) -> bool:
        """Whether the two kings stand on one file with nothing between them."""
        low, high = self._kings[1], self._kings[0]
        if (high - low) % FILES:
            return False
        if low > high:
            low, high = high, low
        b = self._squares
        for sq in range(low + FILES, high, FILES):
            if b[sq]:
                return False
        return True

    def is_bikjang(self) -> bool:
        """Janggi: the kings face each other on an open file (under every rule set; whether
        it matters is the rule set's business, see ``variant.bikjang``)."""
        return self.variant.is_janggi and self._kings_facing()

    # ------------------------------------------------------------------ generation

    def _is_safe(self, m: int, bikjang: bool) -> bool:
        """Make ``m`` on the placement, test the mover's king (and, in bikjang, that the
        kings no longer face each other), unmake."""
        b = self._squares
        fr = m >> 7
        to = m & 127
        piece = b[fr]
        captured = b[to]
        b[to] = piece
        b[fr] = 0
        side = self.turn
        kings = self._kings
        if piece == KING or piece == -KING:
            saved = kings[side]
            kings[side] = to
            safe = not self._kernel.attacked(b, to, not side)
            if safe and bikjang:
                safe = not self._kings_facing()
            kings[side] = saved
        else:
            safe = not self._kernel.attacked(b, kings[side], not side)
            if safe and bikjang:
                safe = not self._kings_facing()
        b[fr] = piece
        b[to] = captured
        return safe

    def legal_move_codes(self, origins: tuple[int, ...] = ALL_SQUARES) -> list[int]:
        """The legal moves as move codes (passes included), or those of the pieces on
        ``origins`` (squares), in a fixed generation order.

        Most moves cannot expose the king; only moves of the pieces that shield it (and
        of the king), moves onto a line between the king and an enemy cannon, in check the
        moves that could end it (:func:`chuhan.movegen.evasion_points`) and in bikjang
        every move are played and tested."""
        if self._passes < 0:
            return []
        b = self._squares
        side = self.turn
        king = self._kings[side]
        kernel = self._kernel
        kings = self._kings
        bikjang = self._bikjang_rule and (kings[0] - kings[1]) % FILES == 0 and self._kings_facing()
        is_safe = self._is_safe
        if self._janggi and not bikjang:
            # Janggi: if no enemy piece stands where it could reach the palace at all, no
            # move can leave the king attacked and every pseudo-legal move is legal. The
            # scan for such pieces rides along with move generation.
            threats: list[int] = []
            legal = kernel.generate(b, side, origins, _NO_SQUARES, threats)
            if origins is not ALL_SQUARES:
                threats_seen = kernel.palace_threatened(b, side, None)
            else:
                threats_seen = bool(threats) and kernel.palace_threatened(b, side, threats)
            check = False
            if threats_seen:
                check, shields, screens = kernel.shields(b, king, side)
                if check:
                    points = evasion_points(True, king)
                    legal = [
                        m
                        for m in legal
                        if (m >> 7 == king or points[m >> 7] or points[m & 127])
                        and is_safe(m, False)
                    ]
                else:
                    legal = [
                        m
                        for m in legal
                        if ((m >> 7) not in shields and (m & 127) not in screens)
                        or is_safe(m, False)
                    ]
        else:
            check, shields, screens = kernel.shields(b, king, side)
            if bikjang:
                legal = [
                    m
                    for m in kernel.generate(b, side, origins, _NO_SQUARES, None)
                    if is_safe(m, True)
                ]
            elif check:
                # Only a king move, or one that starts or lands where it could end the
                # check, is tested.
                points = evasion_points(self._janggi, king)
                legal = [
                    m
                    for m in kernel.generate(b, side, origins, _NO_SQUARES, None)
                    if (m >> 7 == king or points[m >> 7] or points[m & 127]) and is_safe(m, False)
                ]
            else:
                legal = kernel.generate(b, side, origins, shields, None)
                if screens:
                    legal = [m for m in legal if (m & 127) not in screens or is_safe(m, False)]
                tested = (
                    tuple(sq for sq in shields if sq in origins)
                    if origins is not ALL_SQUARES
                    else tuple(shields)
                )
                for m in kernel.generate(b, side, tested, _NO_SQUARES, None):
                    if is_safe(m, False):
                        legal.append(m)
        pass_rule = self.variant.pass_rule
        if pass_rule != "never" and (origins is ALL_SQUARES or king in origins):
            if bikjang:
                allowed = self.variant.bikjang_pass
            elif pass_rule == "unless_in_check":
                allowed = not check
            elif check:
                allowed = False
            elif origins is ALL_SQUARES:
                allowed = not legal
            else:
                allowed = all(m >> 7 == m & 127 for m in self.legal_move_codes())
            if allowed:
                legal.append(king << 7 | king)
        return legal

    def pseudo_legal_move_codes(self, side: bool | None = None) -> list[int]:
        """The moves of ``side`` (by default the side to move) by its pieces' movement
        alone, without asking whether they leave its own king attacked, and no pass. For
        the side not to move these are the moves it may premove while it waits (the web
        state's ``premoves``)."""
        mover = self.turn if side is None else side
        return self._kernel.generate(self._squares, mover, ALL_SQUARES, _NO_SQUARES, None)

    def legal_capture_codes(self) -> list[int]:
        """The legal captures as move codes: the quiescence search's generator (the same
        moves as the captures among ``legal_move_codes()``, which the tests check)."""
        if self._passes < 0:
            return []
        kings = self._kings
        bikjang = self._bikjang_rule and (kings[0] - kings[1]) % FILES == 0 and self._kings_facing()
        is_safe = self._is_safe
        b = self._squares
        side = self.turn
        captures = self._kernel.captures(b, side)
        if not captures:
            return captures
        king = kings[side]
        check, shields, screens = self._kernel.shields(b, king, side)
        if check or bikjang:
            return [m for m in captures if is_safe(m, bikjang)]
        # As in legal_move_codes: only king moves, moves of a shielding piece and moves onto a
        # cannon's line to the king can expose it.
        return [
            m
            for m in captures
            if (m >> 7 != king and (m >> 7) not in shields and (m & 127) not in screens)
            or is_safe(m, False)
        ]

    def legal_among(self, codes: list[int]) -> list[int]:
        """The legal moves among ``codes``, in the order :meth:`legal_move_codes` lists
        them. ``codes`` must be pseudo-legal moves of the side to move (no pass) in the
        order the kernel's ``generate`` gives them for all squares: the search tests a
        few moves it picked from those (its quiet checks) without generating every legal
        move. A pseudo-legal move is legal exactly when it leaves the king safe (and, in
        bikjang, breaks it)."""
        if self._passes < 0 or not codes:
            return []
        kings = self._kings
        bikjang = self._bikjang_rule and (kings[0] - kings[1]) % FILES == 0 and self._kings_facing()
        is_safe = self._is_safe
        legal = [m for m in codes if is_safe(m, bikjang)]
        if len(legal) < 2 or bikjang or self._janggi:
            return legal
        side = self.turn
        check, shields, _ = self._kernel.shields(self._squares, kings[side], side)
        if check:
            return legal
        # Out of check, legal_move_codes lists the moves of the pieces that shield the
        # king last, origin by origin in the order of the shields set.
        rank = {sq: i for i, sq in enumerate(shields)}
        return sorted(legal, key=lambda m: rank.get(m >> 7, -1))

    @property
    def legal_moves(self) -> LegalMoveGenerator:
        """A lazy view of the legal moves: iterate it, take ``len()``, ask ``move in``."""
        return LegalMoveGenerator(self)

    def generate_legal_moves(self) -> Iterator[Move]:
        for m in self.legal_move_codes():
            yield Move(m >> 7, m & 127)

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is legal in this position."""
        fr, to = move.from_square, move.to_square
        piece = self._squares[fr]
        if not piece or (piece > 0) != self.turn:
            return False
        return (fr << 7 | to) in self.legal_move_codes((fr,))

    def is_capture(self, move: Move) -> bool:
        return bool(self._squares[move.to_square]) and not move.is_pass()

    def is_game_over_by_passing(self) -> bool:
        """Janggi: the game ended by two passes in a row or by a pass accepting bikjang
        (after which there are no legal moves)."""
        return self._passes < 0

    def is_checkmate(self) -> bool:
        """In check with no legal move."""
        return self._passes >= 0 and self.is_check() and not self.legal_move_codes()

    def is_stalemate(self) -> bool:
        """Not in check, no legal move (a loss in xiangqi; in janggi a side can pass
        unless its rule set forbids it)."""
        return self._passes >= 0 and not self.is_check() and not self.legal_move_codes()

    def gives_check(self, move: Move) -> bool:
        """Whether ``move`` (assumed legal) puts the opponent in check."""
        self.push_code(move.from_square << 7 | move.to_square)
        try:
            return self.is_check()
        finally:
            self.pop_code()

    # ------------------------------------------------------------------ game end
    # The referee (chuhan.adjudication.referee) rules; these are where a python-chess user
    # looks for its ruling. A janggi game still choosing its setup is chuhan.game.Game's.

    def outcome(self, *, claim_draw: bool = False) -> Outcome | None:
        """The :class:`~chuhan.adjudication.outcome.Outcome` the referee gives this
        position and its history (the same :func:`~chuhan.adjudication.xiangqi_outcome` /
        :func:`~chuhan.adjudication.janggi_outcome` :meth:`chuhan.game.Game.outcome` asks,
        three occurrences of a position for repetition), or None while the game goes on.

        ``claim_draw`` is accepted for python-chess's signature and changes nothing: the
        xiangqi and janggi rule sets rule on repetitions and move limits themselves, no
        claim is needed.

        >>> from chuhan import Board
        >>> board = Board("3k5/3R5/3R5/9/9/9/9/9/9/4K4 b - - 0 1")
        >>> board.outcome().termination, board.outcome().winner
        (<Termination.CHECKMATE: 'checkmate'>, True)
        >>> board.result(), board.is_game_over()
        ('1-0', True)
        >>> Board().outcome() is None, Board().result()
        (True, '*')
        """
        from chuhan.adjudication.referee import janggi_outcome, xiangqi_outcome

        if self._janggi:
            return janggi_outcome(self)
        return xiangqi_outcome(self)

    def is_game_over(self, *, claim_draw: bool = False) -> bool:
        """Whether :meth:`outcome` has a ruling."""
        return self.outcome() is not None

    def result(self, *, claim_draw: bool = False) -> str:
        """``"1-0"``, ``"0-1"``, ``"1/2-1/2"`` (the first mover's score first) or ``"*"``
        while the game goes on."""
        outcome = self.outcome()
        return "*" if outcome is None else outcome.result()

    def is_repetition(self, count: int = 3) -> bool:
        """Whether the current position (placement and side to move) has occurred
        ``count`` times or more in the history, this time included.

        >>> from chuhan import Board
        >>> board = Board()
        >>> for _ in range(2):
        ...     for san in ("Hc3", "Hc8", "Hb1", "Hb10"):
        ...         _ = board.push_san(san)
        >>> board.is_repetition(3), board.is_repetition(4)
        (True, False)
        """
        key = self._hash
        return 1 + sum(1 for entry in self._stack if entry[3] == key) >= count

    # ------------------------------------------------------------------ attacks

    def _attacks_square(self, origin: int, target: int) -> bool:
        """Whether the piece on ``origin`` could capture an enemy piece on ``target``
        (pins and checks aside); an empty or friendly ``target`` holds an enemy rook for
        the question (a janggi cannon cannot take a cannon: a real one stays)."""
        b = self._squares
        piece = b[origin]
        if not piece or origin == target:
            return False
        color = piece > 0
        occupant = b[target]
        if not occupant or (occupant > 0) == color:
            b[target] = -ROOK if color else ROOK
        try:
            codes = self._kernel.generate(b, color, (origin,), _NO_SQUARES, None)
            return (origin << 7 | target) in codes
        finally:
            b[target] = occupant

    def attackers(self, color: bool, sq: int) -> SquareSet:
        """The squares of ``color``'s pieces that attack ``sq``: could capture an enemy
        piece there by their moves (pinned pieces too, as python-chess; the kings facing
        each other is not an attack here, see :meth:`is_attacked_by`).

        >>> from chuhan import Board, RED, parse_square
        >>> Board().attackers(RED, parse_square("b9")).names()  # the cannon, over b7's
        ['b2']
        """
        mask = 0
        b = self._squares
        for origin in range(SQUARE_COUNT):
            piece = b[origin]
            if piece and (piece > 0) == color and self._attacks_square(origin, sq):
                mask |= 1 << origin
        return SquareSet(mask)

    def attacks(self, sq: int) -> SquareSet:
        """The squares the piece on ``sq`` attacks (empty if there is none): those where
        it could capture an enemy piece, friendly pieces' squares included.

        >>> from chuhan import Board, parse_square
        >>> Board().attacks(parse_square("b2")).names()  # a cannon needs a screen
        ['i2', 'b8', 'b9']
        """
        mask = 0
        for target in range(SQUARE_COUNT):
            if self._attacks_square(sq, target):
                mask |= 1 << target
        return SquareSet(mask)

    # ------------------------------------------------------------------ editing

    def _set_squares(self, squares: list[int], turn: bool) -> None:
        self._set_setup(
            Setup(tuple(squares), turn, max(self.halfmove_clock, 0), self.fullmove_number)
        )

    def set_piece_at(self, sq: int, piece: Piece | None) -> None:
        """Put ``piece`` on ``sq`` (None empties it). The edited position starts a new
        history: the move stack is cleared, the move counters kept.

        >>> from chuhan import Board, Piece, parse_square
        >>> board = Board()
        >>> board.set_piece_at(parse_square("e4"), Piece.from_symbol("R"))
        >>> board.board_fen()
        'rnbakabnr/9/1c5c1/p1p1p1p1p/9/4R4/P1P1P1P1P/1C5C1/9/RNBAKABNR'
        >>> board.remove_piece_at(parse_square("e4"))
        Piece.from_symbol('R')
        """
        if not 0 <= sq < SQUARE_COUNT:
            raise ValueError(f"invalid square {sq!r}: expected 0 to 89")
        squares = list(self._squares)
        squares[sq] = piece.code() if piece is not None else 0
        self._set_squares(squares, self.turn)

    def remove_piece_at(self, sq: int) -> Piece | None:
        """Empty ``sq`` and return the piece that was there (None if none); as
        :meth:`set_piece_at`, the move stack is cleared."""
        piece = self.piece_at(sq)
        self.set_piece_at(sq, None)
        return piece

    def mirror(self) -> Board:
        """The position turned upside down with the sides swapped, as python-chess's
        ``mirror()``: each piece goes to the same file on the mirrored rank (rank ``r`` to
        ``9 - r``) and changes side, and the other side is to move. No move history.

        >>> from chuhan import Board
        >>> Board().mirror().fen() == Board().fen().replace(" w ", " b ")
        True
        """
        squares = [0] * SQUARE_COUNT
        for sq, piece in enumerate(self._squares):
            if piece:
                squares[(RANKS - 1 - sq // FILES) * FILES + sq % FILES] = -piece
        board = self.copy(stack=False)
        board._set_squares(squares, not self.turn)
        return board

    # ------------------------------------------------------------------ push / pop

    def push_code(self, m: int) -> None:
        """Play the move with code ``m``, which must be one of ``legal_move_codes()`` here:
        nothing is checked (:meth:`push` checks)."""
        fr = m >> 7
        to = m & 127
        b = self._squares
        captured = b[to]
        self._stack.append((m, captured, self._capture_ply, self._hash, self._passes))
        if fr != to:
            piece = b[fr]
            keys = _ZOBRIST_BY_PIECE[piece]
            if captured:
                self._hash ^= _ZOBRIST_TURN ^ keys[fr] ^ keys[to] ^ _ZOBRIST_BY_PIECE[captured][to]
                self._capture_ply = len(self._stack)
            else:
                self._hash ^= _ZOBRIST_TURN ^ keys[fr] ^ keys[to]
            b[to] = piece
            b[fr] = 0
            if piece in (1, -1):  # a king (KING, -KING)
                self._kings[self.turn] = to
            if self._passes:
                self._passes = 0
        else:
            # A pass. A second pass in a row ends the game, and so does a pass that
            # answers bikjang (under the rule sets where a pass may answer it).
            if self._passes or (self.variant.bikjang_pass and self._kings_facing()):
                self._passes = -1
            else:
                self._passes = 1
            self._hash ^= _ZOBRIST_TURN
        self.turn = not self.turn

    def pop_code(self) -> int:
        """Take back the last move and return its code (``IndexError`` on an empty stack)."""
        m, captured, self._capture_ply, self._hash, self._passes = self._stack.pop()
        side = not self.turn
        self.turn = side
        fr = m >> 7
        to = m & 127
        if fr != to:
            b = self._squares
            piece = b[to]
            b[fr] = piece
            b[to] = captured
            if piece in (1, -1):  # a king
                self._kings[side] = fr
        return m

    def swap_turn(self) -> None:
        """Give the move to the other side without a move: the side to move and the
        Zobrist key change, the move stack does not (the search's null move; call it
        again to undo). Not a janggi pass, which is a move."""
        self.turn = not self.turn
        self._hash ^= _ZOBRIST_TURN

    def push(self, move: Move) -> None:
        """Play ``move``. Raises :class:`IllegalMoveError` (naming the move and the FEN) if
        it is not legal here."""
        if not self.is_legal(move):
            raise IllegalMoveError(
                f"illegal move {move.iccs()} in {self.fen()} ({self.variant.name}): "
                f"{self.why_illegal(move)}"
            )
        self.push_code(move.from_square << 7 | move.to_square)

    def pop(self) -> Move:
        """Take back the last move and return it. Raises ``IndexError`` on an empty stack."""
        if not self._stack:
            raise IndexError("pop from an empty move stack")
        m = self.pop_code()
        return Move(m >> 7, m & 127)

    def parse_iccs(self, text: str) -> Move:
        """Parse an ICCS move (``"h2e2"``) and check that it is legal here."""
        move = Move.from_iccs(text)
        self._require_legal(move, text)
        return move

    def push_iccs(self, text: str) -> Move:
        """Parse an ICCS move, check it, play it and return it."""
        move = self.parse_iccs(text)
        self.push_code(move.from_square << 7 | move.to_square)
        return move

    def parse_fsf(self, text: str) -> Move:
        """Parse a Fairy-Stockfish UCI move (``"h3e3"``, ranks 1–10) and check it."""
        move = Move.from_fsf(text)
        self._require_legal(move, text)
        return move

    def push_fsf(self, text: str) -> Move:
        move = self.parse_fsf(text)
        self.push_code(move.from_square << 7 | move.to_square)
        return move

    def parse_san(self, san: str) -> Move:
        """Parse a move in SAN as :meth:`san` writes it (``Hc3``, ``Che3``, ``Cxe7+``;
        ranks 1-10, long algebraic too) and return the legal move it names. Raises
        :class:`~chuhan.errors.InvalidMoveError`, :class:`IllegalMoveError` or
        :class:`~chuhan.errors.AmbiguousMoveError` (all ``ValueError``), quoting it.

        >>> from chuhan import Board
        >>> Board().parse_san("Che3")
        Move.from_iccs('h2e2')
        """
        from chuhan.notation.san import parse_san

        return parse_san(self, san)

    def push_san(self, san: str) -> Move:
        """Parse a SAN move (:meth:`parse_san`), play it and return it.

        >>> from chuhan import Board
        >>> board = Board()
        >>> board.push_san("Che3")
        Move.from_iccs('h2e2')
        >>> board.san(board.parse_san("Che8"))
        'Che8'
        """
        move = self.parse_san(san)
        self.push_code(move.from_square << 7 | move.to_square)
        return move

    def _require_legal(self, move: Move, text: str) -> None:
        if not self.is_legal(move):
            raise IllegalMoveError(
                f"illegal move {text!r} in {self.fen()} ({self.variant.name}): "
                f"{self.why_illegal(move)}"
            )

    def why_illegal(self, move: Move) -> str:
        """A short explanation of why ``move`` is not legal here, for error messages (for
        a legal move the answer means nothing)."""
        if self._passes < 0:
            return "the game is over (it ended by passing)"
        fr, to = move.from_square, move.to_square
        piece = self._squares[fr]
        name = SQUARE_NAMES[fr]
        if not piece:
            return f"there is no piece on {name}"
        if (piece > 0) != self.turn:
            return f"the piece on {name} belongs to the side not to move"
        if fr == to:
            if not self.variant.has_passes or abs(piece) != KING:
                return "a piece must move (passing is a janggi king's move only)"
            if self.variant.pass_rule == "only_when_stuck":
                return "under these rules a side may pass only when it has no other move"
            return "a side in check may not pass"
        if (fr << 7 | to) not in self._kernel.generate(
            self._squares, self.turn, (fr,), _NO_SQUARES, None
        ):
            kind = self.variant.piece_name(abs(piece))
            return f"the {kind} on {name} cannot move to {SQUARE_NAMES[to]}"
        if self.variant.bikjang and self._kings_facing():
            return "the kings face each other (bikjang): the move must break it, or pass"
        if self.variant.flying_general:
            return "it would leave the king in check or facing the other king"
        return "it would leave the king in check"

    # ------------------------------------------------------------------ validity

    def status(self) -> Status:
        """Flags for placements no game can reach (0, i.e. ``Status.VALID``, if none)."""
        flags = Status.VALID
        b = self._squares
        janggi = self.variant.is_janggi
        if self._kernel.attacked(b, self._kings[not self.turn], self.turn):
            flags |= Status.OPPOSITE_CHECK
        if self.variant.flying_general and self._kings_facing():
            flags |= Status.KINGS_FACING
        counts: dict[int, int] = {}
        for sq, piece in enumerate(b):
            if not piece:
                continue
            counts[piece] = counts.get(piece, 0) + 1
            side = piece > 0
            kind = abs(piece)
            file_index, rank = sq % FILES, sq // FILES
            own_rank = rank if side else 9 - rank
            if kind == ADVISOR:
                if sq not in PALACE[side] or (not janggi and (file_index + own_rank) % 2 == 0):
                    flags |= Status.BAD_ADVISOR
            elif kind == ELEPHANT and not janggi:
                if own_rank not in (0, 2, 4) or file_index not in (
                    (2, 6) if own_rank in (0, 4) else (0, 4, 8)
                ):
                    flags |= Status.BAD_ELEPHANT
            elif kind == PAWN:
                if own_rank < 3 or (not janggi and own_rank < 5 and file_index % 2 == 1):
                    flags |= Status.BAD_PAWN
        for piece, count in counts.items():
            if count > _START_COUNTS[abs(piece)]:
                flags |= Status.TOO_MANY_PIECES
        return flags

    def is_valid(self) -> bool:
        """Whether :meth:`status` finds nothing wrong."""
        return self.status() == Status.VALID


class LegalMoveGenerator:
    """The legal moves of a board, computed when asked (see :attr:`Board.legal_moves`)."""

    __slots__ = ("board",)

    def __init__(self, board: Board) -> None:
        self.board = board

    def __iter__(self) -> Iterator[Move]:
        return self.board.generate_legal_moves()

    def __len__(self) -> int:
        return len(self.board.legal_move_codes())

    def __bool__(self) -> bool:
        return bool(self.board.legal_move_codes())

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and self.board.is_legal(move)

    def __repr__(self) -> str:
        return f"<LegalMoveGenerator ({', '.join(m.iccs() for m in self)})>"
