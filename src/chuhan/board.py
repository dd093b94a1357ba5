"""The board: placement, side to move, legal moves, push/pop and the Zobrist key.

The placement is a flat list of 90 small ints (``+type`` for the side that moves first,
``-type`` for the other, 0 for an empty point). Moves inside the hot paths are ints
``from_square << 7 | to_square``; the public API hands out :class:`~chuhan.squares.Move`
values. Legality is decided from the king outward: most moves cannot expose the king,
and only the few that might (king moves, moves while in check, moves of a piece that
shields the king, moves onto a line between the king and an enemy cannon) are made,
tested and unmade.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterator

from chuhan.errors import IllegalMoveError
from chuhan.fen import PALACE, Setup, board_fen, parse_fen, piece_letter
from chuhan.movegen import tables_for
from chuhan.squares import FILES, SQUARE_COUNT, SQUARE_NAMES, Move
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
_ZOBRIST_TURN = _rng.getrandbits(64)
del _rng


def _piece_key(piece: int, sq: int) -> int:
    return _ZOBRIST[(piece + 7) * SQUARE_COUNT + sq]


class Board:
    """A xiangqi or janggi position with its move history.

    ``Board()`` is the xiangqi start position; ``Board(variant="janggi")`` the janggi
    default start; ``Board(fen, variant=..., rules=...)`` any position. ``push`` plays a
    legal move (raising :class:`IllegalMoveError` otherwise) and ``pop`` takes it back.
    """

    __slots__ = (
        "_bikjang_now",
        "_hash",
        "_kings",
        "_over",
        "_passes",
        "_squares",
        "_stack",
        "_tables",
        "fullmove_number",
        "halfmove_clock",
        "turn",
        "variant",
    )

    variant: Variant
    #: ``True`` when the first mover (xiangqi red, janggi Cho) is to move.
    turn: bool
    #: Plies since the last capture (passes included).
    halfmove_clock: int
    fullmove_number: int

    def __init__(
        self,
        fen: str | None = None,
        *,
        variant: str | Variant = "xiangqi",
        rules: str | None = None,
    ) -> None:
        self.variant = get_variant(variant, rules)
        self._tables = tables_for(self.variant.game)
        self.set_fen(self.variant.start_fen if fen is None else fen)

    # ------------------------------------------------------------------ setup

    def set_fen(self, fen: str) -> None:
        """Replace the position by ``fen`` and clear the move stack."""
        self._set_setup(parse_fen(fen))

    def _set_setup(self, setup: Setup) -> None:
        self._squares = list(setup.squares)
        self.turn = setup.turn
        self.halfmove_clock = setup.halfmove_clock
        self.fullmove_number = setup.fullmove_number
        kings = [0, 0]
        for sq, piece in enumerate(self._squares):
            if piece == KING:
                kings[1] = sq
            elif piece == -KING:
                kings[0] = sq
        self._kings = kings
        self._stack: list[tuple[int, int, int, int, int, bool]] = []
        self._passes = 0
        self._over = False
        self._bikjang_now = False
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
        return f"{board_fen(self._squares)} {side} - - {self.halfmove_clock} {self.fullmove_number}"

    def board_fen(self) -> str:
        """The placement field of the FEN alone."""
        return board_fen(self._squares)

    def copy(self, *, stack: bool = True) -> Board:
        """A copy of the board; ``stack=False`` drops the move history."""
        board = Board.__new__(Board)
        board.variant = self.variant
        board._tables = self._tables
        board._squares = self._squares.copy()
        board.turn = self.turn
        board.halfmove_clock = self.halfmove_clock
        board.fullmove_number = self.fullmove_number
        board._kings = self._kings.copy()
        board._hash = self._hash
        board._stack = self._stack.copy() if stack else []
        board._passes = self._passes if stack else 0
        board._over = self._over if stack else False
        board._bikjang_now = False
        return board

    def __copy__(self) -> Board:
        return self.copy()

    def root(self) -> Board:
        """A copy of the position before the first move on the stack."""
        board = self.copy()
        while board._stack:
            board._pop_int()
        return board

    # ------------------------------------------------------------------ queries

    def piece_at(self, sq: int) -> int:
        """The signed piece code on ``sq`` (0 if empty)."""
        return self._squares[sq]

    def pieces(self) -> dict[int, int]:
        """All pieces as ``{square: signed piece code}``."""
        return {sq: p for sq, p in enumerate(self._squares) if p}

    def king(self, side: bool) -> int:
        """The square of ``side``'s king."""
        return self._kings[side]

    def zobrist_hash(self) -> int:
        """A 64-bit key of placement and side to move, kept up to date by push/pop."""
        return self._hash

    @property
    def move_stack(self) -> list[Move]:
        """The moves played since the position was set, oldest first."""
        return [Move(m >> 7, m & 127) for m, *_ in self._stack]

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

    def _attacked(self, target: int, by_first: bool) -> bool:
        """Whether a piece of side ``by_first`` attacks ``target`` (xiangqi: a king on the
        same open file counts as an attack, which makes facing kings illegal)."""
        b = self._squares
        t = self._tables
        s = 1 if by_first else -1
        rook = ROOK * s
        cannon = CANNON * s
        flying_king = KING * s if self.variant.flying_general else 99
        janggi_cannon = self.variant.cannon == "janggi"
        for ray in t.rays[target]:
            screen = False
            for sq in ray:
                q = b[sq]
                if q:
                    if not screen:
                        if q == rook or q == flying_king:
                            return True
                        if janggi_cannon and (q == CANNON or q == -CANNON):
                            break
                        screen = True
                    else:
                        if q == cannon:
                            return True
                        break
        horse = HORSE * s
        for origin, leg in t.horse_attackers[target]:
            if b[origin] == horse and not b[leg]:
                return True
        pawn = PAWN * s
        for origin in t.pawn_attackers[by_first][target]:
            if b[origin] == pawn:
                return True
        if janggi_cannon:
            elephant = ELEPHANT * s
            for origin, b1, b2 in t.elephant_attackers[by_first][target]:
                if b[origin] == elephant and not b[b1] and not b[b2]:
                    return True
        return False

    def is_check(self) -> bool:
        """Whether the side to move is in check."""
        return self._attacked(self._kings[self.turn], not self.turn)

    def is_attacked_by(self, side: bool, sq: int) -> bool:
        """Whether ``side`` attacks ``sq`` (in the sense that matters for checks)."""
        return self._attacked(sq, side)

    def checkers(self) -> list[int]:
        """Squares of the pieces giving check to the side to move."""
        king = self._kings[self.turn]
        result = []
        b = self._squares
        for sq in range(SQUARE_COUNT):
            piece = b[sq]
            if piece and (piece > 0) != self.turn:
                if any(m & 127 == king for m in self._pseudo_moves(not self.turn, (sq,))):
                    result.append(sq)
        if self.variant.flying_general and self._kings_facing():
            result.append(self._kings[not self.turn])
        return result

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

    def _pseudo_moves(
        self, side: bool, origins: tuple[int, ...] | range = range(SQUARE_COUNT)
    ) -> list[int]:
        """Moves of ``side``'s pieces on ``origins`` by the piece rules alone (no check
        test, no pass)."""
        b = self._squares
        t = self._tables
        out: list[int] = []
        app = out.append
        xiangqi_cannon = self.variant.cannon == "xiangqi"
        rays = t.rays
        horse = t.horse
        elephant = t.elephant[side]
        advisor = t.advisor[side]
        king = t.king[side]
        pawn = t.pawn[side]
        for fr in origins:
            p = b[fr]
            if not p or (p > 0) != side:
                continue
            kind = p if p > 0 else -p
            base = fr << 7
            if kind == ROOK:
                for ray in rays[fr]:
                    for to in ray:
                        q = b[to]
                        if not q:
                            app(base | to)
                        else:
                            if (q > 0) != side:
                                app(base | to)
                            break
            elif kind == HORSE:
                for to, leg in horse[fr]:
                    if not b[leg]:
                        q = b[to]
                        if not q or (q > 0) != side:
                            app(base | to)
            elif kind == CANNON:
                if xiangqi_cannon:
                    for ray in rays[fr]:
                        screen = False
                        for to in ray:
                            q = b[to]
                            if not screen:
                                if not q:
                                    app(base | to)
                                else:
                                    screen = True
                            elif q:
                                if (q > 0) != side:
                                    app(base | to)
                                break
                else:
                    for ray in rays[fr]:
                        screen = False
                        for to in ray:
                            q = b[to]
                            if not screen:
                                if q:
                                    if q == CANNON or q == -CANNON:
                                        break
                                    screen = True
                            elif not q:
                                app(base | to)
                            else:
                                if q != CANNON and q != -CANNON and (q > 0) != side:
                                    app(base | to)
                                break
            elif kind == PAWN:
                for to in pawn[fr]:
                    q = b[to]
                    if not q or (q > 0) != side:
                        app(base | to)
            elif kind == ELEPHANT:
                for to, b1, b2 in elephant[fr]:
                    if not b[b1] and not b[b2]:
                        q = b[to]
                        if not q or (q > 0) != side:
                            app(base | to)
            elif kind == ADVISOR:
                for to in advisor[fr]:
                    q = b[to]
                    if not q or (q > 0) != side:
                        app(base | to)
            else:
                for to in king[fr]:
                    q = b[to]
                    if not q or (q > 0) != side:
                        app(base | to)
        return out

    def _shield_analysis(self) -> tuple[bool, set[int], set[int]]:
        """From the side-to-move's king outward: whether it is in check, the squares of
        its own pieces whose moving away might expose it, and the empty squares where a
        piece of its own would become a cannon's screen against it."""
        b = self._squares
        t = self._tables
        side = self.turn
        k = self._kings[side]
        s = -1 if side else 1  # sign of the enemy pieces
        rook = ROOK * s
        cannon = CANNON * s
        flying_king = KING * s if self.variant.flying_general else 99
        janggi_cannon = self.variant.cannon == "janggi"
        check = False
        shields: set[int] = {k}
        screens: set[int] = set()
        for ray in t.rays[k]:
            first = second = -1
            between: list[int] = []
            for sq in ray:
                q = b[sq]
                if not q:
                    if first < 0:
                        between.append(sq)
                    continue
                if first < 0:
                    first = sq
                    if q == rook or q == flying_king:
                        check = True
                        break
                    if q == cannon:
                        screens.update(between)
                        if janggi_cannon:
                            break
                        # A xiangqi cannon may itself screen another cannon behind it.
                        continue
                    if janggi_cannon and (q == CANNON or q == -CANNON):
                        # A cannon cannot be a screen; whatever lies beyond is harmless
                        # unless this cannon leaves.
                        if (q > 0) == side:
                            shields.add(sq)
                        continue
                elif second < 0:
                    second = sq
                    if q == cannon and not (janggi_cannon and b[first] in (CANNON, -CANNON)):
                        check = True
                        break
                    if q == rook or q == flying_king:
                        if (b[first] > 0) == side:
                            shields.add(first)
                        break
                else:
                    if q == cannon:
                        if (b[first] > 0) == side:
                            shields.add(first)
                        if (b[second] > 0) == side:
                            shields.add(second)
                    break
        horse = HORSE * s
        for origin, leg in t.horse_attackers[k]:
            if b[origin] == horse:
                if not b[leg]:
                    check = True
                elif (b[leg] > 0) == side:
                    shields.add(leg)
        pawn = PAWN * s
        for origin in t.pawn_attackers[not side][k]:
            if b[origin] == pawn:
                check = True
        if janggi_cannon:
            elephant = ELEPHANT * s
            for origin, b1, b2 in t.elephant_attackers[not side][k]:
                if b[origin] == elephant:
                    q1, q2 = b[b1], b[b2]
                    if not q1 and not q2:
                        check = True
                    else:
                        if q1 and (q1 > 0) == side:
                            shields.add(b1)
                        if q2 and (q2 > 0) == side:
                            shields.add(b2)
        return check, shields, screens

    def _leaves_king_safe(self, m: int) -> bool:
        """Make ``m`` on the placement, test the mover's king, unmake."""
        b = self._squares
        fr = m >> 7
        to = m & 127
        piece = b[fr]
        captured = b[to]
        b[to] = piece
        b[fr] = 0
        side = self.turn
        king = to if piece == KING or piece == -KING else self._kings[side]
        safe = not self._attacked(king, not side)
        if safe and self.variant.bikjang and self._bikjang_now:
            # Bikjang must be broken: the kings may not face each other after the move.
            kings = self._kings
            saved = kings[side]
            kings[side] = king
            safe = not self._kings_facing()
            kings[side] = saved
        b[fr] = piece
        b[to] = captured
        return safe

    _bikjang_now: bool  # set by _legal_ints for _leaves_king_safe

    def _legal_ints(self, origins: tuple[int, ...] | range | None = None) -> list[int]:
        """All legal moves as ints (passes included), or those from ``origins``."""
        if self._over:
            return []
        variant = self.variant
        side = self.turn
        pseudo = self._pseudo_moves(side, range(SQUARE_COUNT) if origins is None else origins)
        check, shields, screens = self._shield_analysis()
        bikjang = variant.bikjang and self._kings_facing()
        self._bikjang_now = bikjang
        test = self._leaves_king_safe
        if check or bikjang:
            legal = [m for m in pseudo if test(m)]
        elif screens:
            legal = [
                m
                for m in pseudo
                if ((m >> 7) not in shields and (m & 127) not in screens) or test(m)
            ]
        else:
            legal = [m for m in pseudo if (m >> 7) not in shields or test(m)]
        if variant.pass_rule != "never":
            king = self._kings[side]
            if origins is None or king in origins:
                if bikjang:
                    allowed = variant.bikjang_pass
                elif variant.pass_rule == "unless_in_check":
                    allowed = not check
                elif origins is None:
                    allowed = not check and not legal
                else:
                    allowed = not check and not self._legal_ints_nonpass_exist()
                if allowed:
                    legal.append(king << 7 | king)
        return legal

    def _legal_ints_nonpass_exist(self) -> bool:
        return any(m >> 7 != m & 127 for m in self._legal_ints())

    def _count_legal(self) -> int:
        """Number of legal moves (perft's bulk count at the last ply)."""
        return len(self._legal_ints())

    @property
    def legal_moves(self) -> LegalMoveGenerator:
        """A lazy view of the legal moves: iterate it, take ``len()``, ask ``move in``."""
        return LegalMoveGenerator(self)

    def generate_legal_moves(self) -> Iterator[Move]:
        for m in self._legal_ints():
            yield Move(m >> 7, m & 127)

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is legal in this position."""
        fr, to = move.from_square, move.to_square
        piece = self._squares[fr]
        if not piece or (piece > 0) != self.turn:
            return False
        return (fr << 7 | to) in self._legal_ints((fr,))

    def is_capture(self, move: Move) -> bool:
        return bool(self._squares[move.to_square]) and not move.is_pass()

    def is_game_over_by_passing(self) -> bool:
        """Janggi: the game ended by two passes in a row or by a pass accepting bikjang
        (after which there are no legal moves)."""
        return self._over

    def is_checkmate(self) -> bool:
        """In check with no legal move."""
        return self.is_check() and not self._over and not self._legal_ints()

    def is_stalemate(self) -> bool:
        """Not in check, no legal move (a loss in xiangqi; janggi can always pass unless its
        rule set forbids it)."""
        return not self.is_check() and not self._over and not self._legal_ints()

    def gives_check(self, move: Move) -> bool:
        """Whether ``move`` (assumed legal) puts the opponent in check."""
        self._push_int(move.from_square << 7 | move.to_square)
        try:
            return self.is_check()
        finally:
            self._pop_int()

    # ------------------------------------------------------------------ push / pop

    def _push_int(self, m: int) -> None:
        fr = m >> 7
        to = m & 127
        b = self._squares
        side = self.turn
        captured = b[to] if fr != to else 0
        self._stack.append((m, captured, self.halfmove_clock, self._hash, self._passes, self._over))
        h = self._hash ^ _ZOBRIST_TURN
        if fr == to:
            # A pass: in bikjang (under rule sets where a pass may answer it) it accepts
            # the bikjang, and a second pass in a row ends the game either way.
            if self._passes or (self.variant.bikjang_pass and self._kings_facing()):
                self._over = True
            self._passes += 1
            self.halfmove_clock += 1
        else:
            piece = b[fr]
            z = _ZOBRIST
            h ^= z[(piece + 7) * 90 + fr] ^ z[(piece + 7) * 90 + to]
            if captured:
                h ^= z[(captured + 7) * 90 + to]
                self.halfmove_clock = 0
            else:
                self.halfmove_clock += 1
            b[to] = piece
            b[fr] = 0
            if piece == KING or piece == -KING:
                self._kings[side] = to
            self._passes = 0
        self._hash = h
        if not side:
            self.fullmove_number += 1
        self.turn = not side

    def _pop_int(self) -> int:
        m, captured, self.halfmove_clock, self._hash, self._passes, self._over = self._stack.pop()
        side = not self.turn
        self.turn = side
        if not side:
            self.fullmove_number -= 1
        fr = m >> 7
        to = m & 127
        if fr != to:
            b = self._squares
            piece = b[to]
            b[fr] = piece
            b[to] = captured
            if piece == KING or piece == -KING:
                self._kings[side] = fr
        return m

    def push(self, move: Move) -> None:
        """Play ``move``. Raises :class:`IllegalMoveError` (naming the move and the FEN) if
        it is not legal here."""
        if not self.is_legal(move):
            raise IllegalMoveError(
                f"illegal move {move.iccs()} in {self.fen()} ({self.variant.name}): "
                f"{self._why_illegal(move)}"
            )
        self._push_int(move.from_square << 7 | move.to_square)

    def pop(self) -> Move:
        """Take back the last move and return it. Raises ``IndexError`` on an empty stack."""
        if not self._stack:
            raise IndexError("pop from an empty move stack")
        m = self._pop_int()
        return Move(m >> 7, m & 127)

    def parse_iccs(self, text: str) -> Move:
        """Parse an ICCS move (``"h2e2"``) and check that it is legal here."""
        move = Move.from_iccs(text)
        self._require_legal(move, text)
        return move

    def push_iccs(self, text: str) -> Move:
        """Parse an ICCS move, check it, play it and return it."""
        move = self.parse_iccs(text)
        self._push_int(move.from_square << 7 | move.to_square)
        return move

    def parse_fsf(self, text: str) -> Move:
        """Parse a Fairy-Stockfish UCI move (``"h3e3"``, ranks 1–10) and check it."""
        move = Move.from_fsf(text)
        self._require_legal(move, text)
        return move

    def push_fsf(self, text: str) -> Move:
        move = self.parse_fsf(text)
        self._push_int(move.from_square << 7 | move.to_square)
        return move

    def _require_legal(self, move: Move, text: str) -> None:
        if not self.is_legal(move):
            raise IllegalMoveError(
                f"illegal move {text!r} in {self.fen()} ({self.variant.name}): "
                f"{self._why_illegal(move)}"
            )

    def _why_illegal(self, move: Move) -> str:
        """A short explanation of why ``move`` is not legal, for error messages."""
        if self._over:
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
        if (fr << 7 | to) not in self._pseudo_moves(self.turn, (fr,)):
            return f"the {piece_letter(piece)} on {name} cannot move to {SQUARE_NAMES[to]}"
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
        if self._attacked(self._kings[not self.turn], self.turn):
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
        return len(self.board._legal_ints())

    def __bool__(self) -> bool:
        return bool(self.board._legal_ints())

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and self.board.is_legal(move)

    def __repr__(self) -> str:
        return f"<LegalMoveGenerator ({', '.join(m.iccs() for m in self)})>"
