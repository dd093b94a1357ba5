"""chuhan's engine, as one object that plays the moves of a game: :class:`Searcher`.

A searcher keeps what lives from one move to the next (the transposition table, history
counts, the referee's verdicts: :class:`~chuhan.search.tree.SearchTables`, and the random
source of the casual levels); each :meth:`Searcher.search` runs a fresh
:class:`~chuhan.search.tree.TreeSearch` (the principal-variation search itself) over them,
then applies the strength level (:mod:`chuhan.search.levels`) and, for ``infinite`` and
``ponder`` searches, waits for ``stop`` / ``ponderhit`` before it answers.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection

from chuhan.board import Board
from chuhan.book import LEVEL_BOOK_PLIES, Book
from chuhan.search.levels import LEVEL_CHOICES, LEVELS, Level, best_line_only
from chuhan.search.limits import (
    DEFAULT_HASH_MB,
    SearchControl,
    SearchInfo,
    SearchLimits,
    SearchResult,
)
from chuhan.search.tree import MATE, WIN, SearchTables, TreeSearch
from chuhan.squares import Move
from chuhan.variants import Variant

__all__ = ["DEFAULT_HASH_MB", "LEVELS", "MATE", "WIN", "Level", "Searcher"]


class Searcher:
    """chuhan's engine. One searcher keeps its hash table and history between moves of
    a game; ``new_game()`` clears them."""

    def __init__(self, hash_mb: int = DEFAULT_HASH_MB, *, seed: int | None = None) -> None:
        self._tables = SearchTables(capacity=_capacity(hash_mb))
        #: The rule set the tables hold results of (cleared when a search changes it).
        self._variant: Variant | None = None
        #: The casual levels' random choices (seeded: the same game, the same moves).
        self._rng = random.Random(seed)

    # ------------------------------------------------------------------ settings

    def resize(self, hash_mb: int) -> None:
        """Bound the transposition table to about ``hash_mb`` megabytes."""
        self._tables.capacity = _capacity(hash_mb)
        self._tables.tt.clear()

    def new_game(self) -> None:
        self._tables.clear()

    @property
    def hashfull(self) -> int:
        """Permille of the transposition table in use."""
        return self._tables.hashfull

    def probe(self, board: Board) -> tuple[Move | None, int, int | None, int | None] | None:
        """What the hash table knows of ``board`` (UCCI ``probe``): the best move, the
        depth, and the lower and upper bounds on the score (None where unknown)."""
        return self._tables.probe(board.zobrist_hash())

    # ------------------------------------------------------------------ entry point

    def search(
        self,
        board: Board,
        limits: SearchLimits,
        *,
        control: SearchControl | None = None,
        multipv: int = 1,
        level: int = 8,
        banned: Collection[Move] = (),
        on_info: Callable[[SearchInfo], None] | None = None,
        book: bool = False,
    ) -> SearchResult:
        """Search ``board`` (not changed: a copy with its history is searched) within
        ``limits`` and return the best move with the last complete line per PV.

        With ``book``, a position of the opening book (:mod:`chuhan.book`) within the
        level's depth of it (:data:`~chuhan.book.LEVEL_BOOK_PLIES`) is answered at once
        with a book move chosen by weight with the searcher's random source, unless the
        search is ``infinite`` or ``ponder`` (an analysis, not a move to play)."""
        if not 1 <= level <= 8:
            raise ValueError(f"skill level must be 1-8, got {level}")
        if multipv < 1:
            raise ValueError(f"MultiPV must be at least 1, got {multipv}")
        control = control or SearchControl()
        if book and not limits.infinite and not limits.ponder:
            move = Book.load().choose(
                board, self._rng, plies=LEVEL_BOOK_PLIES[level], banned=banned
            )
            if move is not None:
                return SearchResult(best=move)
        if board.variant != self._variant:
            # Rulings and scores cached under other rules (a janggi limit on points or a
            # draw, AXF or Chinese repetition verdicts) do not hold under these.
            self.new_game()
            self._variant = board.variant
        self._tables.next_search()
        tree = TreeSearch(board, self._tables, control)
        strength = LEVELS.get(level)
        if strength is None:
            result = tree.run(limits, multipv=multipv, banned=banned, on_info=on_info)
        else:
            result = tree.run(
                strength.limits(limits),
                multipv=max(multipv, LEVEL_CHOICES),
                banned=banned,
                on_info=best_line_only(on_info),
                mate_attempts=False,
            )
        if result.best is not None:  # a position without a move is answered at once
            control.wait_for_release(infinite=limits.infinite)
        if strength is not None:
            moves = [m for m in board.legal_moves if m not in banned]
            result = strength.choose(
                result, moves, self._rng, hashfull=self.hashfull, on_info=on_info
            )
        return result

    def find_mate(
        self,
        board: Board,
        *,
        moves: int,
        nodes: int,
        control: SearchControl | None = None,
    ) -> SearchInfo | None:
        """A proved mate by the side to move of ``board`` in at most ``moves`` moves, or
        None (none, or none found within about ``nodes`` nodes): see
        :meth:`chuhan.search.tree.TreeSearch.mate_search`."""
        if moves < 1 or nodes < 1:
            raise ValueError(f"a mate search needs moves and nodes >= 1, got {moves}, {nodes}")
        tree = TreeSearch(board, self._tables, control or SearchControl())
        return tree.mate_search(moves, nodes)


def _capacity(hash_mb: int) -> int:
    """Transposition table entries in about ``hash_mb`` megabytes."""
    if hash_mb < 1:
        raise ValueError(f"hash size must be at least 1 MB, got {hash_mb}")
    # A dict entry with its key and a 4-tuple of small ints costs about 200 bytes.
    return hash_mb * 1024 * 1024 // 200
