"""The game record: headers, a start position and a tree of moves with comments.

Modelled on python-chess's ``chess.pgn`` but smaller: a :class:`GameRecord` owns the
headers (in file order), the variant, the start FEN and a root :class:`GameNode`; each node
holds the move that led to it, a comment, NAGs and its children. The first child is the
main line, the others are variations. Readers of every format (PGN, GIB, XQF, plain text)
produce this one value, so converting between formats is reading one and writing another.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from chuhan.board import Board
from chuhan.errors import ChuhanError
from chuhan.squares import Move
from chuhan.variants import JANGGI_ARRANGEMENTS, Variant, get_variant, janggi_start_fen

__all__ = [
    "DEFAULT_READ_LIMITS",
    "RESULTS",
    "SKIP",
    "BaseVisitor",
    "GameNode",
    "GameRecord",
    "ReadLimitError",
    "ReadLimits",
    "RecordError",
    "RecordWarning",
    "SkipType",
    "VariationError",
    "janggi_arrangements",
    "normalize_fen",
    "side_from_first_move",
]

#: The result strings a record may carry ("*" is an unfinished or unknown game).
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


if TYPE_CHECKING:
    from chuhan.engine import PovScore
    from chuhan.game import Game

# The comment commands pychess.org and lichess write (python-chess reads the same forms):
# [%clk 0:05:00] the clock after the move, [%eval 0.17] / [%eval #-3] / [%eval 0.17,20]
# the evaluation from the first mover's side, in pawns, with the search depth.
_CLOCK = re.compile(
    r"(?P<prefix>\s?)\[%clk\s(?P<hours>\d+):(?P<minutes>\d+):(?P<seconds>\d+(?:\.\d*)?)\]"
    r"(?P<suffix>\s?)"
)
_EVAL = re.compile(
    r"(?P<prefix>\s?)\[%eval\s(?:\#(?P<mate>[+-]?\d+)|(?P<cp>[+-]?(?:\d{0,10}\.\d{1,2}|\d{1,10}\.?)))"
    r"(?:,(?P<depth>\d+))?\](?P<suffix>\s?)"
)


def _drop_command(pattern: re.Pattern[str], comment: str) -> str:
    """``comment`` without its ``pattern`` command (the space around it kept once)."""

    def keep_space(match: re.Match[str]) -> str:
        return " " if match["prefix"] and match["suffix"] else ""

    return pattern.sub(keep_space, comment).strip()


def _add_command(comment: str, command: str) -> str:
    return f"{command} {comment}" if comment else command


class RecordError(ChuhanError):
    """A game record that cannot be read or written: malformed, truncated, or holding a
    move that is not legal where it is played. The message names the game and the move.

    ``game`` is the label the message starts with (``"game 3 (Cup, Wang)"``, as
    :meth:`GameRecord.describe` writes it; empty when the message names no game) and
    ``reason`` the message without it, for callers that print the label themselves.
    """

    def __init__(self, reason: str, *, game: str = "") -> None:
        super().__init__(f"{game}: {reason}" if game else reason)
        self.game = game
        self.reason = reason


class ReadLimitError(RecordError):
    """A record that holds more than a reader's :class:`ReadLimits` allow: ``limit`` is the
    name of the limit passed (``"max_plies"``...) and ``maximum`` its value."""

    def __init__(self, reason: str, *, game: str = "", limit: str = "", maximum: int = 0) -> None:
        super().__init__(reason, game=game)
        self.limit = limit
        self.maximum = maximum


class VariationError(RecordError):
    """A variation that does not read (a move in it illegal or not a move): the reader kept
    the main line and the other variations, and the variation's moves up to this one.

    ``ply`` is the ply of the move that does not read (counted from 1 at the game's start)
    and ``move`` its text as the file gives it."""

    def __init__(self, reason: str, *, game: str = "", ply: int = 0, move: str = "") -> None:
        super().__init__(reason, game=game)
        self.ply = ply
        self.move = move


@dataclass(frozen=True)
class RecordWarning:
    """Something a reader read otherwise than the file says, and says so: an XQF header
    whose side to move the first move contradicts, a DhtmlXQ tag closed by another's end
    tag. The record is whole; ``str()`` names the game as :class:`RecordError` does."""

    reason: str
    game: str = ""

    def __str__(self) -> str:
        return f"{self.game}: {self.reason}" if self.game else self.reason


@dataclass(frozen=True)
class ReadLimits:
    """How much the readers take from one file; they stop at the first limit passed.

    A game that passes a per-game limit keeps what was read before that point and gets a
    :class:`ReadLimitError` in its ``errors``, as a bad move does; a file with more games
    than ``max_games`` raises :class:`ReadLimitError`. The defaults suit real databases
    (a real game has a few hundred plies); a server reading uploads passes smaller ones.
    Each limit is a whole number from 0.
    """

    #: Plies from the start of a game to the end of any of its lines: the main line, and
    #: each variation counted from the game's start.
    max_plies: int = 10_000
    #: Variations (side lines) in one game, nested or not; in PGN each ``(`` is one.
    max_variations: int = 100_000
    #: How deep variations nest: a variation inside a variation is at depth 2.
    max_depth: int = 100
    #: Games in one file.
    max_games: int = 1_000_000

    def __post_init__(self) -> None:
        for name in ("max_plies", "max_variations", "max_depth", "max_games"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"ReadLimits.{name} must be a whole number from 0, got {value!r}")


#: The limits the readers use when given none.
DEFAULT_READ_LIMITS = ReadLimits()


class SkipType(enum.Enum):
    """What a visitor returns to skip a variation or the rest of a game (:data:`SKIP`)."""

    SKIP = "skip"


#: Returned by :meth:`BaseVisitor.begin_game`, :meth:`~BaseVisitor.end_headers` or
#: :meth:`~BaseVisitor.begin_variation` to skip what follows, as python-chess's ``SKIP``.
SKIP = SkipType.SKIP

ResultT = TypeVar("ResultT")


class BaseVisitor(Generic[ResultT]):
    """What :meth:`GameRecord.accept` (and :meth:`GameNode.accept`, from a node) calls as
    it walks a record, in python-chess's order
    (``chess.pgn.BaseVisitor``): the game's start, its headers, then each move with the
    board before it (:meth:`visit_move`) and after it (:meth:`visit_board`), its NAGs and
    comment, each variation between :meth:`begin_variation` and :meth:`end_variation`
    (after the main-line move it is an alternative to), the result and the end.
    Subclasses override what they need and :meth:`result`.

    >>> from chuhan.records.pgn import read_pgn
    >>> class Sans(BaseVisitor[list[str]]):
    ...     def __init__(self) -> None:
    ...         self.sans: list[str] = []
    ...     def visit_move(self, board, move):
    ...         self.sans.append(board.san(move))
    ...     def begin_variation(self):
    ...         self.sans.append("(")
    ...     def end_variation(self):
    ...         self.sans.append(")")
    ...     def result(self):
    ...         return self.sans
    >>> [record] = read_pgn("1. Che3 Hc8 (1... Hg8 2. Hg3) 2. Hc3 *")
    >>> " ".join(record.accept(Sans()))
    'Che3 Hc8 ( Hg8 Hg3 ) Hc3'
    """

    def begin_game(self) -> SkipType | None:
        return None

    def begin_headers(self) -> None:
        return None

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        return None

    def end_headers(self) -> SkipType | None:
        return None

    def visit_move(self, board: Board, move: Move) -> None:
        """``move`` is about to be played on ``board`` (do not change the board)."""
        return None

    def visit_board(self, board: Board) -> None:
        """The position after the move just visited (do not change the board)."""
        return None

    def visit_comment(self, comment: str) -> None:
        return None

    def visit_nag(self, nag: int) -> None:
        return None

    def begin_variation(self) -> SkipType | None:
        return None

    def end_variation(self) -> None:
        return None

    def visit_result(self, result: str) -> None:
        return None

    def end_game(self) -> None:
        return None

    def result(self) -> ResultT:
        raise NotImplementedError


@dataclass(eq=False)
class GameNode:
    """A position in the game tree, reached by ``move`` from ``parent`` (``None`` at the root).

    ``children[0]`` continues the main line; further children are variations.
    """

    move: Move | None = None
    parent: GameNode | None = field(default=None, repr=False)
    comment: str = ""
    nags: list[int] = field(default_factory=list)
    # Not in the repr: a long game's tree would nest one repr call per ply.
    children: list[GameNode] = field(default_factory=list, repr=False)
    #: The record owning the tree, kept on the root (see :meth:`game`).
    _record: GameRecord | None = field(default=None, repr=False)

    def add_variation(self, move: Move, *, comment: str = "") -> GameNode:
        """Add ``move`` as a new child (the main line if it is the first) and return it."""
        node = GameNode(move=move, parent=self, comment=comment)
        self.children.append(node)
        return node

    def add_main_line(self, moves: list[Move]) -> GameNode:
        """Follow or extend the main line with ``moves`` (no legality check: the record's
        readers check moves against the board as they go); return the last node."""
        node = self
        for move in moves:
            if node.children and node.children[0].move == move:
                node = node.children[0]
            else:
                node = node.add_variation(move)
        return node

    def main_line(self) -> Iterator[GameNode]:
        """The nodes that follow this one along first children."""
        node = self
        while node.children:
            node = node.children[0]
            yield node

    def path(self) -> list[Move]:
        """The moves from the root to this node."""
        moves: list[Move] = []
        node: GameNode | None = self
        while node is not None and node.move is not None:
            moves.append(node.move)
            node = node.parent
        moves.reverse()
        return moves

    def ply(self) -> int:
        """How many moves lead from the root to this node."""
        return len(self.path())

    def is_main_variation(self) -> bool:
        """True when this node is its parent's first child (or the root)."""
        return self.parent is None or self.parent.children[0] is self

    # ------------------------------------------------------------- python-chess's tree

    def root(self) -> GameNode:
        """The root node of the tree."""
        node = self
        while node.parent is not None:
            node = node.parent
        return node

    def game(self) -> GameRecord:
        """The :class:`GameRecord` whose tree holds this node. Raises :class:`RecordError`
        for a node of a tree no record owns."""
        record = self.root()._record
        if record is None:
            raise RecordError("this node belongs to no game record")
        return record

    def board(self) -> Board:
        """A new board of the position at this node: the record's start position with
        the moves from the root played (they are on its move stack).

        >>> from chuhan.records.pgn import read_pgn
        >>> [record] = read_pgn('1. Che3 {[%clk 0:04:58]} Hc8 2. Hc3 *')
        >>> node = record.root.next().next()
        >>> node.san(), node.board().fen()
        ('Hc8', 'r1bakabnr/9/1cn4c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2')
        """
        board = self.game().start_board()
        for move in self.path():
            board.push(move)
        return board

    def san(self) -> str:
        """The SAN of the move that led here (:meth:`chuhan.board.Board.san`, from the
        parent's position). Raises :class:`RecordError` at the root, which has no move."""
        if self.move is None or self.parent is None:
            raise RecordError("the root node has no move")
        return self.parent.board().san(self.move)

    def accept(self, visitor: BaseVisitor[ResultT]) -> ResultT:
        """Walk the tree from this node with ``visitor`` and return ``visitor.result()``,
        as python-chess's ``GameNode.accept()``: from the move that led here (its board
        before and after, NAGs and comment), then what follows it in the order of
        :meth:`GameRecord.accept` (the main line, each variation between
        :meth:`~BaseVisitor.begin_variation` and :meth:`~BaseVisitor.end_variation`); this
        node's own siblings are not visited, nor the headers and result. At the root it is
        :meth:`GameRecord.accept` of the record, headers and all.

        >>> from chuhan.records.pgn import read_pgn
        >>> class Sans(BaseVisitor[str]):
        ...     def __init__(self) -> None:
        ...         self.sans: list[str] = []
        ...     def visit_move(self, board, move):
        ...         self.sans.append(board.san(move))
        ...     def begin_variation(self):
        ...         self.sans.append("(")
        ...     def end_variation(self):
        ...         self.sans.append(")")
        ...     def result(self):
        ...         return " ".join(self.sans)
        >>> [record] = read_pgn("1. Che3 (1. Hc3 Hc8) 1... Hc8 (1... Hg8 2. Hg3) 2. Hc3 *")
        >>> record.root.next().accept(Sans())  # 1. Hc3, its sibling, is left out
        'Che3 Hc8 ( Hg8 Hg3 ) Hc3'
        >>> record.root.next().next().accept(Sans())
        'Hc8 Hc3'
        """
        if self.parent is None or self.move is None:
            return self.game().accept(visitor)
        board = self.parent.board()
        _accept_node(self, board, visitor)
        board.push(self.move)
        _accept_tree(self, board, visitor)
        return visitor.result()

    def next(self) -> GameNode | None:
        """The main-line child, or None at the end of the line."""
        return self.children[0] if self.children else None

    def end(self) -> GameNode:
        """The last node of the line that follows first children from here."""
        node = self
        while node.children:
            node = node.children[0]
        return node

    def is_end(self) -> bool:
        return not self.children

    def is_mainline(self) -> bool:
        """Whether this node is on the game's main line (every step a first child)."""
        node = self
        while node.parent is not None:
            if node.parent.children[0] is not node:
                return False
            node = node.parent
        return True

    def starts_variation(self) -> bool:
        """Whether this node is the first of a variation (a child other than the first)."""
        return self.parent is not None and self.parent.children[0] is not self

    def _child(self, move: Move | GameNode | int) -> GameNode:
        if isinstance(move, GameNode):
            if move in self.children:
                return move
        elif isinstance(move, int):
            if 0 <= move < len(self.children):
                return self.children[move]
        else:
            for child in self.children:
                if child.move == move:
                    return child
        raise KeyError(move)

    def variation(self, move: Move | GameNode | int) -> GameNode:
        """The child by index, move or node (``KeyError`` if there is none)."""
        return self._child(move)

    def has_variation(self, move: Move | GameNode) -> bool:
        try:
            self._child(move)
        except KeyError:
            return False
        return True

    def promote_to_main(self, move: Move | GameNode) -> None:
        """Make the child (a move or a node) the main line from here."""
        child = self._child(move)
        self.children.remove(child)
        self.children.insert(0, child)

    def promote(self, move: Move | GameNode) -> None:
        """Move the child one place up among the variations."""
        child = self._child(move)
        place = self.children.index(child)
        if place > 0:
            self.children[place - 1], self.children[place] = child, self.children[place - 1]

    def demote(self, move: Move | GameNode) -> None:
        """Move the child one place down among the variations."""
        child = self._child(move)
        place = self.children.index(child)
        if place < len(self.children) - 1:
            self.children[place + 1], self.children[place] = child, self.children[place + 1]

    def remove_variation(self, move: Move | GameNode) -> None:
        """Remove the child and everything after it."""
        child = self._child(move)
        self.children.remove(child)
        child.parent = None

    # ------------------------------------------------------- [%clk] and [%eval] comments

    def clock(self) -> float | None:
        """The clock after this node's move, in seconds, from a ``[%clk h:mm:ss]``
        command in its comment (pychess.org writes them), or None.

        >>> node = GameNode(comment="[%clk 0:04:58.5] good")
        >>> node.clock()
        298.5
        >>> node.set_clock(61)
        >>> node.comment
        '[%clk 0:01:01] good'
        """
        match = _CLOCK.search(self.comment)
        if match is None:
            return None
        return int(match["hours"]) * 3600 + int(match["minutes"]) * 60 + float(match["seconds"])

    def set_clock(self, seconds: float | None) -> None:
        """Write (or with None, remove) the ``[%clk]`` command of the comment."""
        comment = _drop_command(_CLOCK, self.comment)
        if seconds is not None:
            if not math.isfinite(seconds) or seconds < 0:
                raise RecordError(f"invalid clock {seconds!r}: expected seconds >= 0")
            whole = int(seconds)
            fraction = seconds - whole
            hours, rest = divmod(whole, 3600)
            minutes, secs = divmod(rest, 60)
            text = f"{hours}:{minutes:02}:{secs:02}"
            if fraction:
                text += f"{fraction:.3f}".lstrip("0").rstrip("0").rstrip(".")
            comment = _add_command(comment, f"[%clk {text}]")
        self.comment = comment

    def eval(self) -> PovScore | None:
        """The evaluation in a ``[%eval ...]`` command of the comment, as a
        :class:`~chuhan.engine.PovScore` from the first mover's side (``[%eval 0.17]`` in
        pawns, ``[%eval #-3]`` mate), or None.

        >>> node = GameNode(comment="[%eval -1.25,18]")
        >>> node.eval().first(), node.eval_depth()
        (Score(cp=-125, mate=None), 18)
        >>> node.set_eval(None)
        >>> node.comment, node.eval()
        ('', None)
        """
        from chuhan.engine import PovScore, Score

        match = _EVAL.search(self.comment)
        if match is None:
            return None
        if match["mate"] is not None:
            return PovScore(Score(mate=int(match["mate"])), True)
        return PovScore(Score(cp=round(float(match["cp"]) * 100)), True)

    def eval_depth(self) -> int | None:
        """The depth in a ``[%eval score,depth]`` command, or None."""
        match = _EVAL.search(self.comment)
        return None if match is None or match["depth"] is None else int(match["depth"])

    def set_eval(self, score: PovScore | None, depth: int | None = None) -> None:
        """Write (or with None, remove) the ``[%eval]`` command of the comment, from the
        first mover's side."""
        comment = _drop_command(_EVAL, self.comment)
        if score is not None:
            first = score.first()
            mate = first.mate()
            if mate is not None:
                value = f"#{mate}"
            else:
                value = f"{(first.cp or 0) / 100:.2f}"
            tail = f",{depth}" if depth is not None else ""
            comment = _add_command(comment, f"[%eval {value}{tail}]")
        self.comment = comment


@dataclass(eq=False)
class GameRecord:
    """One game: headers in file order, the start position and the tree of moves.

    ``headers["Result"]`` is the result (see :data:`RESULTS`); :attr:`result` reads and
    writes it, and :attr:`termination` the ``Termination`` header. ``errors`` collects
    what a lenient reader could not take in (the moves before a bad move are kept; a bad
    variation is a :class:`VariationError`, the rest of the game read), and ``warnings``
    what it read otherwise than the file says (:class:`RecordWarning`).
    """

    variant: Variant = field(default_factory=get_variant)
    fen: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    root: GameNode = field(default_factory=GameNode)
    errors: list[RecordError] = field(default_factory=list)
    warnings: list[RecordWarning] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.fen:
            self.fen = self.variant.start_fen
        self.root._record = self

    @classmethod
    def from_moves(
        cls,
        moves: list[Move],
        *,
        variant: str | Variant = "xiangqi",
        fen: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> GameRecord:
        """A record of one line of moves, checked for legality (raises ``RecordError``)."""
        spec = get_variant(variant)
        record = cls(variant=spec, fen=fen or spec.start_fen, headers=dict(headers or {}))
        board = record.start_board()
        node = record.root
        for index, move in enumerate(moves):
            if not board.is_legal(move):
                raise RecordError(f"move {index + 1} ({move.iccs()}) is illegal in {board.fen()}")
            board.push(move)
            node = node.add_variation(move)
        return record

    @classmethod
    def from_game(cls, game: Game, headers: dict[str, str] | None = None) -> GameRecord:
        """A record of a game's moves from its start position, with its result: the
        ``Result`` and ``Termination`` headers, and the referee's reason as the comment
        after the last move."""
        board = game.board
        start = board.root()
        record = cls.from_moves(
            board.move_stack, variant=game.variant, fen=start.fen(), headers=headers
        )
        outcome = game.outcome()
        if outcome is not None:
            record.result = outcome.result()
            record.termination = outcome.termination.value
            record.end().comment = outcome.reason
        return record

    @property
    def result(self) -> str:
        return self.headers.get("Result", "*")

    @result.setter
    def result(self, value: str) -> None:
        if value not in RESULTS:
            raise RecordError(f"invalid result {value!r}: expected one of {', '.join(RESULTS)}")
        self.headers["Result"] = value

    @property
    def termination(self) -> str:
        return self.headers.get("Termination", "")

    @termination.setter
    def termination(self, value: str) -> None:
        self.headers["Termination"] = value

    @property
    def comment(self) -> str:
        """The comment before the first move."""
        return self.root.comment

    @comment.setter
    def comment(self, value: str) -> None:
        self.root.comment = value

    def start_board(self) -> Board:
        """The start position on a new board."""
        return Board(self.fen, variant=self.variant)

    def main_line_moves(self) -> list[Move]:
        """The moves of the main line, in order."""
        return [node.move for node in self.root.main_line() if node.move is not None]

    def end(self) -> GameNode:
        """The last node of the main line."""
        node = self.root
        while node.children:
            node = node.children[0]
        return node

    def board(self) -> Board:
        """The final position of the main line, with the moves on the board's stack."""
        board = self.start_board()
        for move in self.main_line_moves():
            board.push(move)
        return board

    def __getstate__(self) -> dict[str, Any]:
        # The tree is pickled (and deep-copied) flat, as (parent's place, move, comment,
        # NAGs) in preorder: both recurse once per nested object, and a game's main line
        # nests one node per ply, past Python's recursion limit within a few hundred.
        state = dict(self.__dict__)
        nodes: list[tuple[int, Move | None, str, list[int]]] = []
        stack: list[tuple[GameNode, int]] = [(self.root, -1)]
        while stack:
            node, parent = stack.pop()
            place = len(nodes)
            nodes.append((parent, node.move, node.comment, list(node.nags)))
            stack.extend((child, place) for child in reversed(node.children))
        state["root"] = nodes
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        nodes: list[GameNode] = []
        for parent, move, comment, nags in state["root"]:
            node = GameNode(move=move, comment=comment, nags=nags)
            if parent >= 0:
                node.parent = nodes[parent]
                nodes[parent].children.append(node)
            nodes.append(node)
        self.__dict__.update(state)
        self.root = nodes[0]
        self.root._record = self

    def accept(self, visitor: BaseVisitor[ResultT]) -> ResultT:
        """Walk the record with ``visitor`` (:class:`BaseVisitor`, in python-chess's
        order) and return ``visitor.result()``. Iterative: a long game does not reach
        Python's recursion limit."""
        if visitor.begin_game() is not SKIP:
            visitor.begin_headers()
            for name, value in self.headers.items():
                visitor.visit_header(name, value)
            if visitor.end_headers() is not SKIP:
                if self.root.comment:
                    visitor.visit_comment(self.root.comment)
                _accept_tree(self.root, self.start_board(), visitor)
                visitor.visit_result(self.result)
        visitor.end_game()
        return visitor.result()

    def describe(self, index: int | None = None) -> str:
        """How error messages name this game: its index in the file and key headers."""
        parts = [] if index is None else [f"game {index + 1}"]
        names = [
            _shorten(self.headers[key])
            for key in ("Event", "Title", "Red", "White", "Black", "대회명", "초대국자", "한대국자")
            if self.headers.get(key)
        ]
        if names:
            parts.append("(" + ", ".join(names) + ")")
        return " ".join(parts) or "game"


def _shorten(text: str, length: int = 40) -> str:
    """``text`` as a message quotes it: cut after ``length`` characters."""
    return text if len(text) <= length else text[:length] + "…"


def normalize_fen(fen: str) -> str:
    """A FEN as record files write it, in the form the board reads: the placement alone
    gets red (``w``) to move, ``r`` for red is ``w``, and a move number 0 is 1 (as
    python-chess and Fairy-Stockfish read it). Anything else is left for the board to
    judge."""
    fields = fen.split()
    if not fields:
        return fen
    if len(fields) == 1:
        fields.append("w")
    if fields[1].lower() == "r":
        fields[1] = "w"
    if len(fields) > 5 and fields[5] == "0":
        fields[5] = "1"
    return " ".join(fields)


def side_from_first_move(record: GameRecord, board: Board, move: Move, game: str) -> Board:
    """``board`` (the record's start), or the start with the other side to move when
    ``move``, the game's first, is legal only for that side (a file whose header gives
    the wrong side): then ``record.fen`` is changed to match, and a warning on the record
    names the game (``game``) and says so. For the readers of XQF and CBF."""
    if board.is_legal(move):
        return board
    fields = record.fen.split()
    fields[1] = "w" if fields[1] == "b" else "b"
    try:
        other = Board(" ".join(fields), variant=record.variant)
    except ChuhanError:
        return board
    if not other.is_legal(move):
        return board
    said, moving = ("Red", "Black") if board.turn else ("Black", "Red")
    record.fen = other.fen()
    record.warnings.append(
        RecordWarning(
            f"the header says {said} moves first, but the first move ({move.iccs()}) is "
            f"{moving}'s: read with {moving} to move",
            game=game,
        )
    )
    return other


def janggi_arrangements(fen: str) -> tuple[str, str] | None:
    """The (Cho, Han) setup choices whose start position is ``fen``, or ``None``."""
    placement = fen.split()[0] if fen.split() else ""
    for cho in JANGGI_ARRANGEMENTS:
        for han in JANGGI_ARRANGEMENTS:
            if janggi_start_fen(cho=cho, han=han).split()[0] == placement:
                return cho, han
    return None


def _accept_node(node: GameNode, board: Board, visitor: BaseVisitor[Any]) -> None:
    assert node.move is not None
    visitor.visit_move(board, node.move)
    board.push(node.move)
    visitor.visit_board(board)
    board.pop()
    for nag in sorted(node.nags):
        visitor.visit_nag(nag)
    if node.comment:
        visitor.visit_comment(node.comment)


def _accept_tree(root: GameNode, board: Board, visitor: BaseVisitor[Any]) -> None:
    """The moves under ``root`` in python-chess's order: a node's main-line move, then its
    alternatives each as a variation, then the main line's continuation."""
    # A stack of steps: ("children", node) visits node's children at the board's position;
    # "variation" opens one, "push"/"pop" keep the board in step, "end" closes a variation.
    steps: list[tuple[str, GameNode]] = [("children", root)]
    while steps:
        kind, node = steps.pop()
        if kind == "children":
            if not node.children:
                continue
            main = node.children[0]
            _accept_node(main, board, visitor)
            later = [("variation", child) for child in node.children[1:]]
            later += [("push", main), ("children", main), ("pop", main)]
            steps.extend(reversed(later))
        elif kind == "variation":
            if visitor.begin_variation() is SKIP:
                visitor.end_variation()
                continue
            _accept_node(node, board, visitor)
            steps.extend(
                reversed([("push", node), ("children", node), ("pop", node), ("end", node)])
            )
        elif kind == "push":
            assert node.move is not None
            board.push(node.move)
        elif kind == "pop":
            board.pop()
        else:
            visitor.end_variation()
