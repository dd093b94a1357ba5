"""FEN for xiangqi and janggi: parse to an unvalidated :class:`Setup` and write back.

Parsing rejects what cannot describe a position at all (wrong shape, unknown letters,
a missing or extra king, a king outside its palace) with :class:`InvalidFenError`.
Placements that no game can reach but that composed problems use (an elephant off its
points, a soldier behind its start) are accepted here; ``Board.status()`` reports them.
"""

from __future__ import annotations

from dataclasses import dataclass

from chuhan.errors import InvalidFenError
from chuhan.squares import FILES, RANKS, SQUARE_COUNT, square, square_name
from chuhan.variants import ADVISOR, CANNON, ELEPHANT, HORSE, KING, PAWN, ROOK

PIECE_LETTERS = {
    "k": KING,
    "a": ADVISOR,
    "b": ELEPHANT,
    "e": ELEPHANT,
    "n": HORSE,
    "h": HORSE,
    "r": ROOK,
    "c": CANNON,
    "p": PAWN,
}
#: The letter written for each piece type (FEN, boards in letters).
TYPE_LETTERS = {
    KING: "k",
    ADVISOR: "a",
    ELEPHANT: "b",
    HORSE: "n",
    ROOK: "r",
    CANNON: "c",
    PAWN: "p",
}

#: Palace squares of the first mover (index True) and the second (index False).
PALACE = {
    True: frozenset(square(f, r) for f in (3, 4, 5) for r in (0, 1, 2)),
    False: frozenset(square(f, r) for f in (3, 4, 5) for r in (7, 8, 9)),
}


@dataclass(frozen=True)
class Setup:
    """What a FEN says: placement, side to move and counters, not yet checked for legality."""

    squares: tuple[int, ...]
    turn: bool
    halfmove_clock: int = 0
    fullmove_number: int = 1


def piece_letter(piece: int) -> str:
    """FEN letter of a signed piece code: upper case for the first mover."""
    letter = TYPE_LETTERS[abs(piece)]
    return letter.upper() if piece > 0 else letter


def parse_fen(fen: str) -> Setup:
    """Parse a FEN string. Raises :class:`InvalidFenError` naming the FEN and the fault."""
    if not isinstance(fen, str):
        raise InvalidFenError(f"invalid FEN {fen!r}: expected a string")
    fields = fen.split()
    if not fields:
        raise InvalidFenError("invalid FEN '': empty string")
    if len(fields) > 6:
        raise InvalidFenError(f"invalid FEN {fen!r}: too many fields ({len(fields)}, at most 6)")
    rows = fields[0].split("/")
    if len(rows) != RANKS:
        raise InvalidFenError(
            f"invalid FEN {fen!r}: expected {RANKS} ranks separated by '/', got {len(rows)}"
        )
    squares = [0] * SQUARE_COUNT
    for row_index, row in enumerate(rows):
        rank = RANKS - 1 - row_index
        file_index = 0
        digits = ""
        for ch in row + "/":
            if ch in "0123456789":
                digits += ch
                continue
            if digits:
                file_index += int(digits)
                digits = ""
            if ch == "/":
                break
            piece_type = PIECE_LETTERS.get(ch.lower())
            if piece_type is None:
                raise InvalidFenError(
                    f"invalid FEN {fen!r}: unknown piece letter {ch!r} in rank {rank} "
                    "(expected one of K A B/E N/H R C P)"
                )
            if file_index >= FILES:
                raise InvalidFenError(
                    f"invalid FEN {fen!r}: rank {rank} ({row!r}) has more than {FILES} points"
                )
            squares[square(file_index, rank)] = piece_type if ch.isupper() else -piece_type
            file_index += 1
        if file_index != FILES:
            raise InvalidFenError(
                f"invalid FEN {fen!r}: rank {rank} ({row!r}) describes {file_index} points, "
                f"expected {FILES}"
            )
    turn = True
    if len(fields) > 1:
        side = fields[1].lower()
        if side in ("w", "r"):
            turn = True
        elif side == "b":
            turn = False
        else:
            raise InvalidFenError(
                f"invalid FEN {fen!r}: side to move {fields[1]!r} is not 'w' (or 'r') or 'b'"
            )
    halfmove_clock = 0
    fullmove_number = 1
    if len(fields) > 4:
        halfmove_clock = _parse_counter(fen, fields[4], "halfmove clock", minimum=0)
    if len(fields) > 5:
        # A move number 0 is read as 1, as python-chess and Fairy-Stockfish read it.
        fullmove_number = max(1, _parse_counter(fen, fields[5], "move number", minimum=0))
    for king_side, name in (
        (True, "first mover's (upper-case)"),
        (False, "second mover's (lower-case)"),
    ):
        king = KING if king_side else -KING
        kings = [sq for sq in range(SQUARE_COUNT) if squares[sq] == king]
        if not kings:
            raise InvalidFenError(f"invalid FEN {fen!r}: the {name} king is missing")
        if len(kings) > 1:
            raise InvalidFenError(f"invalid FEN {fen!r}: the {name} side has {len(kings)} kings")
        if kings[0] not in PALACE[king_side]:
            raise InvalidFenError(
                f"invalid FEN {fen!r}: the {name} king on {square_name(kings[0])} "
                "is outside its palace"
            )
    return Setup(tuple(squares), turn, halfmove_clock, fullmove_number)


def _parse_counter(fen: str, text: str, what: str, *, minimum: int) -> int:
    # ASCII digits only (str.isdigit accepts '²' and other scripts), and a sane length.
    if not (text.isascii() and text.isdigit() and len(text) <= 9) or int(text) < minimum:
        raise InvalidFenError(
            f"invalid FEN {fen!r}: {what} {text!r} is not a whole number >= {minimum}"
        )
    return int(text)


def board_fen(squares: list[int] | tuple[int, ...]) -> str:
    """The placement field of a FEN (written by :func:`chuhan.board.placement_fen`, which
    is compiled with the board: the web server writes the FEN of every position it shows).

    >>> from chuhan.variants import XIANGQI_START_FEN
    >>> board_fen(parse_fen(XIANGQI_START_FEN).squares) == XIANGQI_START_FEN.split()[0]
    True
    """
    from chuhan.board import placement_fen  # (board imports this module)

    return placement_fen(squares if isinstance(squares, list) else list(squares))


def format_fen(setup: Setup) -> str:
    """A full FEN: placement, side (``w``/``b``), ``- -``, halfmove clock, move number."""
    side = "w" if setup.turn else "b"
    return f"{board_fen(setup.squares)} {side} - - {setup.halfmove_clock} {setup.fullmove_number}"
