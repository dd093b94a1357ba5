"""chuhan's own search: iterative-deepening principal-variation search.

This module is the core: one :class:`TreeSearch` searches one position and is then
dropped; what lives from one move of a game to the next (the transposition table, the
history counts, the referee's verdicts) is a :class:`SearchTables` it is handed. The
public front, :class:`chuhan.search.search.Searcher`, owns the tables and adds what is not
the tree's business: strength levels (:mod:`chuhan.search.levels`) and the wait for
``stop`` / ``ponderhit`` (:meth:`chuhan.search.limits.SearchControl.wait_for_release`).

It plays on the library's board through its move codes (``Board.legal_move_codes`` /
``push_code`` / ``pop_code``: the same generator perft proves), with

- a transposition table keyed by the board's Zobrist hash (a dict bounded by ``Hash``,
  which forgets its oldest entries when full);
- quiescence search over captures, with the quiet checks at its first ply;
- move ordering: hash move, captures by MVV-LVA, two killers per ply, history counts
  (with gravity, and a malus for the quiet moves searched before the one that cut off);
- null-move pruning (not in check, not in a pawn-and-defender ending: the zugzwang
  guard), late-move reductions, check extensions, aspiration windows, mate-distance
  scoring and pruning;
- the referee's rulings inside the tree: a position that comes back is judged by
  :class:`chuhan.game.Game` itself (xiangqi: the AXF perpetual check/chase rules, so the
  search never walks into a perpetual the referee would rule a loss, and claims the win
  when the opponent must break one; janggi: perpetual check, and repetition settled by
  points where the rule set says so); a janggi game ended by passing is scored by its
  settlement (points or a draw), so a side ahead on points will take a double pass or a
  bikjang pass.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from functools import cache
from itertools import islice
from typing import Final

from chuhan.board import Board
from chuhan.game import Game, MoveLimitCount
from chuhan.movegen import ALL_SQUARES, kernel_for
from chuhan.search.evaluate import evaluator_for, placement_score, positional_score
from chuhan.search.limits import SearchControl, SearchInfo, SearchLimits, SearchResult
from chuhan.search.timeman import allocate
from chuhan.squares import FILES, SQUARE_COUNT, Move

__all__ = ["INF", "MATE", "MATE_BOUND", "MAX_PLY", "WIN", "SearchTables", "TreeSearch"]

# The module's constants are Final: compiled, a Final number is written into the code and a
# Final table is a static, where any other module-level name is looked up in the module's
# dictionary at each use (about a tenth of the search's instructions went to such lookups).
# The tables are typed as tuples of any length: typed by their literal, mypyc makes fixed
# structs of them.
MATE: Final = 30000
#: Scores beyond this are mates (distance = MATE - abs(score) plies).
MATE_BOUND: Final = MATE - 1000
#: A game won or lost by a referee's ruling other than mate (repetition, points).
WIN: Final = 20000
INF: Final = 32000
#: Lazy evaluation margin: how far the positional terms can move the placement score.
_LAZY: Final = 250
#: Futility margins by remaining depth, and the move count after which quiet moves are
#: skipped near the leaves (late-move pruning).
_FUTILITY: Final[tuple[int, ...]] = (0, 200, 350, 550)
_LATE_MOVES: Final[tuple[int, ...]] = (0, 8, 14, 24)
MAX_PLY: Final = 120

_EXACT: Final = 0
_LOWER: Final = 1
_UPPER: Final = 2
_NONE: Final[set[int]] = set()
#: Static evaluations a search remembers (then it starts again).
_STATIC_CACHE: Final = 1 << 16

# MVV-LVA: victim value by type (index 1–7), attacker tie-breaker.
_VICTIM: Final[tuple[int, ...]] = (0, 50, 20, 20, 40, 90, 45, 10)
_ATTACKER: Final[tuple[int, ...]] = (0, 1, 6, 6, 4, 2, 3, 7)
# Rough capture gains for delta pruning in the quiescence search.
_GAIN: Final[tuple[int, ...]] = (0, 0, 220, 220, 420, 920, 480, 200)


#: The mate attempt by checks and threats (see TreeSearch._mate_attempt): at most this many
#: moves, its quiet moves each threatening a mate by checks within ``_THREAT_DEPTH`` moves,
#: and as many nodes as the iteration before it.
_THREAT_MOVES: Final = 7
_THREAT_DEPTH: Final = 2
#: ... and only once the attempts by checks alone have visited this many nodes in the
#: search (the side to move has an attack by checks: in most positions of a game it has
#: not, and the attempt by threats would spend its nodes for nothing).
_THREAT_AFTER: Final = 200
#: Marks a threat proof's entries in the mate table (see TreeSearch._mate_tt).
_THREAT_PROOF: Final = 64


class _Stop(Exception):
    """Unwinds the search when time, nodes or a ``stop`` say so."""


class _MateBudget(Exception):
    """Ends a mate attempt that has used its share of the nodes."""


def _mate_moves(score: int) -> int | None:
    """UCI ``mate N`` (moves) for a mate score, else None."""
    if score > MATE_BOUND:
        return (MATE - score + 1) // 2
    if score < -MATE_BOUND:
        return -((MATE + score) // 2)
    return None


#: Size of the history table: one count per move code (``from_square << 7 | to_square``).
_HISTORY_SIZE: Final = 11520
#: The history counts stay within +-this: an update of ``bonus`` (the depth squared; taken
#: off the quiet moves tried before the one that cut off) also pulls the count back by
#: ``count * bonus / _HISTORY_MAX`` ("gravity"), so that old counts fade and none grows
#: past the bound.
_HISTORY_MAX: Final = 8192


@dataclass(slots=True)
class SearchTables:
    """What one search hands on to the next moves of a game: the transposition table
    (bounded by ``capacity`` entries; when full, its oldest quarter goes), the history
    counts of quiet moves that cut off, and the referee's verdicts on positions that came
    back. ``clear()`` forgets them (a new game, or other rules)."""

    capacity: int
    #: Zobrist key -> (depth, bound flag, score, move code).
    tt: dict[int, tuple[int, int, int, int]] = field(default_factory=dict)
    history: list[int] = field(default_factory=lambda: [0] * _HISTORY_SIZE)
    #: What decides a ruling (see ``TreeSearch._ruling``) -> the referee's verdict.
    verdicts: dict[tuple[int, ...], int | None] = field(default_factory=dict)

    def clear(self) -> None:
        self.tt.clear()
        self.history = [0] * _HISTORY_SIZE
        self.verdicts.clear()

    def next_search(self) -> None:
        """Before a search: a table over its bound is cut down to it, and the history
        counts are aged so that old ones fade between moves."""
        while len(self.tt) > self.capacity:
            self.make_room()
        self.history = [h >> 2 for h in self.history]

    def make_room(self) -> None:
        """Forget the oldest quarter of the transposition table (a dict keeps its keys in
        the order they came), so that a full table keeps what the last moves' searches
        found instead of starting empty."""
        tt = self.tt
        for key in list(islice(tt, max(1, len(tt) // 4))):
            del tt[key]

    @property
    def hashfull(self) -> int:
        """Permille of the transposition table in use."""
        return min(1000, len(self.tt) * 1000 // max(1, self.capacity))

    def probe(self, key: int) -> tuple[Move | None, int, int | None, int | None] | None:
        """What the table knows of the position with Zobrist ``key``: the best move, the
        depth, and the lower and upper bounds on the score (None where unknown)."""
        entry = self.tt.get(key)
        if entry is None:
            return None
        depth, flag, score, move = entry
        best = Move(move >> 7, move & 127) if move else None
        lower = score if flag in (_EXACT, _LOWER) else None
        upper = score if flag in (_EXACT, _UPPER) else None
        return best, depth, lower, upper


class TreeSearch:
    """One search of one position (a copy of ``board``, with its history): the limits,
    node counts, timers, killers, the root's state and the principal variations live here
    for one call of :meth:`run` and go with it. It reads and fills ``tables``."""

    # Slots: a plain instance of this many attributes loses CPython's fast attribute
    # access (about 1 % of the search's instructions).
    __slots__ = (
        "_attacked",
        "_base",
        "_bases",
        "_board",
        "_can_pass",
        "_control",
        "_eval",
        "_filter_checks",
        "_gave_check",
        "_generate",
        "_hard_ms",
        "_history",
        "_janggi",
        "_killers",
        "_limit",
        "_limit_count",
        "_limit_ply",
        "_mate_budget",
        "_mate_killers",
        "_mate_strict",
        "_mate_tt",
        "_node_limit",
        "_nodes",
        "_null_moves",
        "_pv",
        "_qchecks",
        "_root_len",
        "_root_turn",
        "_seen",
        "_seldepth",
        "_squares",
        "_statics",
        "_tables",
        "_tempo",
        "_tt",
        "_tt_capacity",
        "_values",
        "_verdicts",
    )

    def __init__(self, board: Board, tables: SearchTables, control: SearchControl) -> None:
        b = board.copy()
        self._board = b
        self._tables = tables
        self._tt = tables.tt
        self._tt_capacity = tables.capacity
        self._history = tables.history
        self._verdicts = tables.verdicts
        self._control = control
        #: The board's live placement (a list changed in place by push_code/pop_code).
        self._squares = b.placement
        kernel = kernel_for(b.variant.game)
        self._attacked = kernel.attacked
        self._generate = kernel.generate
        self._janggi = b.variant.is_janggi
        #: Whether the side not to move is out of check at the root (so in the whole
        #: tree): then only moves that could give check are tested for it.
        self._filter_checks = not self._attacked(b.placement, b.king(not b.turn), b.turn)
        self._eval = evaluator_for(b.variant.game)
        self._values = self._eval.values
        self._tempo = self._eval.weights.tempo
        #: The placement score of the current node, kept up to date by _make/_unmake.
        self._base = placement_score(self._eval, self._squares)
        self._bases: list[int] = []
        #: Zobrist key -> static evaluation (see _static).
        self._statics: dict[int, int] = {}
        self._nodes = 0
        self._seldepth = 0
        self._node_limit: int | None = None
        self._hard_ms: int | None = None
        self._null_moves = 0
        self._killers = [[0, 0] for _ in range(MAX_PLY + 8)]
        self._pv: list[list[int]] = [[] for _ in range(MAX_PLY + 8)]
        #: Whether the move that led to the node at each ply gave check.
        self._gave_check = [False] * (MAX_PLY + 8)
        #: Quiet checks at the first ply of the quiescence search.
        self._qchecks = True
        #: How often each position of the game and of the current line has occurred.
        self._seen: dict[int, int] = {}
        for key in b.position_keys():
            self._seen[key] = self._seen.get(key, 0) + 1
        # The natural move limit: the lines searched carry on the game's count.
        self._limit = b.variant.move_limit_plies
        #: The first ply at which a line can reach the limit (the halfmove clock grows by
        #: at most one a ply): nodes nearer the root need not look at the clock.
        self._limit_ply = self._limit - b.halfmove_clock if self._limit else INF
        #: Whether a game can end by passing here (janggi), to be ruled at once.
        self._can_pass = b.variant.has_passes
        self._root_len = b.ply
        self._root_turn = b.turn
        self._limit_count = MoveLimitCount(0, {True: 0, False: 0})
        if self._limit and not b.variant.is_janggi:
            self._limit_count = MoveLimitCount.of(b)
        #: Mate attempts: (hash, kind) -> a proving move, or 0 when there is none; kind is
        #: the moves left for a proof by checks, negative for one that may play any move,
        #: and the moves plus _THREAT_PROOF for one whose quiet moves must threaten mate.
        self._mate_tt: dict[tuple[int, int], int] = {}
        self._mate_budget = 0
        #: Whether the mate attempt counts every position it generates the replies of
        #: (the attempts by threats; the attempt by checks counts the attacker's nodes).
        self._mate_strict = False
        #: The reply that last refuted a quiet mate proof, by the moves left then.
        self._mate_killers: dict[int, int] = {}

    # ------------------------------------------------------------------ the search

    def run(
        self,
        limits: SearchLimits,
        *,
        multipv: int = 1,
        banned: Collection[Move] = (),
        on_info: Callable[[SearchInfo], None] | None = None,
        mate_attempts: bool = True,
    ) -> SearchResult:
        """Search within ``limits`` and return the best move with the last complete line
        of each of the ``multipv`` best root moves (``on_info`` hears every line of every
        iteration). ``mate_attempts``: after each iteration, look for a mate by checks
        beyond its depth (when one line is searched)."""
        b = self._board
        control = self._control
        banned_ints = {m.from_square << 7 | m.to_square for m in banned}
        root_moves = [m for m in b.legal_move_codes() if m not in banned_ints]
        if not root_moves:
            return SearchResult(best=None)

        budget = allocate(limits, b)
        max_depth = max(1, limits.depth) if limits.depth is not None else MAX_PLY - 8
        if (
            len(root_moves) == 1
            and limits.depth is None
            and limits.mate is None
            and not limits.infinite
            and not control.pondering
        ):
            # A forced move (a janggi side that can only pass, a single evasion) is
            # played at once: one ply gives its score, more would only spend the clock.
            max_depth = 1
        if limits.mate is not None:
            # A mate in N moves needs 2N - 1 plies (checks are extended on top).
            max_depth = min(max_depth, 2 * limits.mate - 1 + 2)
        node_limit = limits.nodes
        multipv = min(multipv, len(root_moves))
        self._node_limit = node_limit
        soft_ms, hard_ms = budget.soft_ms, budget.hard_ms
        self._hard_ms = hard_ms

        lines: list[SearchInfo] = []
        order = self._order_root(root_moves)
        prev_score = 0
        nodes_before = 0
        #: The nodes the attempts by checks alone have visited in this search.
        checks_seen = 0
        for depth in range(1, max_depth + 1):
            found: list[tuple[int, int, list[int]]] = []
            excluded: set[int] = set()
            try:
                for pv_index in range(multipv):
                    candidates = [m for m in order if m not in excluded]
                    if not candidates:
                        break
                    if pv_index == 0 and depth >= 4 and multipv == 1:
                        score, best, pv = self._aspiration(depth, prev_score, candidates)
                    else:
                        score, best, pv = self._root(depth, -INF, INF, candidates)
                    found.append((score, best, pv))
                    excluded.add(best)
            except _Stop:
                # A partial iteration still counts if its first line was completed and
                # beats what the last full iteration found.
                if not lines and found:
                    lines = [self._info(depth, s, pv, i + 1) for i, (s, _, pv) in enumerate(found)]
                break
            prev_score = found[0][0]
            found.sort(key=lambda item: -item[0])
            lines = [self._info(depth, s, pv, i + 1) for i, (s, _, pv) in enumerate(found)]
            if on_info is not None:
                for line in lines:
                    on_info(line)
            order = [m for _, m, _ in found] + [m for m in order if m not in excluded]
            if control.stopped:
                break
            mate_moves = min(depth + 3, 12)
            if (
                mate_attempts
                and multipv == 1
                and depth >= 3
                and found[0][0] < MATE_BOUND
                and not self._near_move_limit(2 * mate_moves)
            ):
                # A mate by checks alone that the main search has not reached yet; failing
                # that, one whose quiet moves each threaten a mate by checks.
                try:
                    iteration_nodes = self._nodes - nodes_before
                    before_checks = self._nodes
                    mate = self._mate_attempt(mate_moves, max(1_000, iteration_nodes // 3))
                    checks_seen += self._nodes - before_checks
                    if mate is None and checks_seen >= _THREAT_AFTER:
                        mate = self._mate_attempt(
                            min(depth + 1, _THREAT_MOVES),
                            max(1_000, iteration_nodes),
                            quiet=True,
                            threats=True,
                        )
                except _Stop:
                    break
                if mate is not None:
                    score, pv = mate
                    found = [(score, pv[0], pv)]
                    lines = [self._info(depth, score, pv, 1)]
                    if on_info is not None:
                        on_info(lines[0])
                    order = [pv[0], *(m for m in order if m != pv[0])]
                    prev_score = score
            nodes_before = self._nodes
            if limits.mate is not None and found[0][0] > MATE_BOUND:
                if (MATE - found[0][0] + 1) // 2 <= limits.mate:
                    break
            if found[0][0] > MATE_BOUND and depth >= (MATE - found[0][0]) + 1:
                if limits.infinite or control.pondering:
                    continue
                break
            elapsed = (time.monotonic() - control.started) * 1000
            if soft_ms is not None and not control.pondering and elapsed >= soft_ms:
                break
            if node_limit is not None and self._nodes >= node_limit:
                break

        if not lines:
            # Not even depth 1 finished: fall back to the first ordered move.
            return SearchResult(best=Move(order[0] >> 7, order[0] & 127), nodes=self._nodes)
        best_line = lines[0].pv
        return SearchResult(
            best=best_line[0],
            ponder=best_line[1] if len(best_line) > 1 else None,
            lines=lines,
            nodes=self._nodes,
        )

    def _info(self, depth: int, score: int, pv: list[int], index: int) -> SearchInfo:
        elapsed = max(1, int((time.monotonic() - self._control.started) * 1000))
        mate = _mate_moves(score)
        return SearchInfo(
            depth=depth,
            seldepth=max(depth, self._seldepth),
            nodes=self._nodes,
            time_ms=elapsed,
            pv=[Move(m >> 7, m & 127) for m in pv],
            multipv=index,
            score_cp=None if mate is not None else score,
            mate=mate,
            hashfull=self._tables.hashfull,
        )

    def _order_root(self, moves: list[int]) -> list[int]:
        b = self._squares
        entry = self._tt.get(self._board.zobrist_hash())
        tt_move = entry[3] if entry else 0

        def key(m: int) -> int:
            if m == tt_move:
                return -1_000_000
            victim = b[m & 127]
            if victim and m >> 7 != m & 127:
                return -10_000 - _VICTIM[abs(victim)] * 10 + _ATTACKER[abs(b[m >> 7])]
            return -self._history[m]

        return sorted(moves, key=key)

    # ------------------------------------------------------------------ root

    def _aspiration(self, depth: int, guess: int, moves: list[int]) -> tuple[int, int, list[int]]:
        delta = 40
        alpha, beta = max(-INF, guess - delta), min(INF, guess + delta)
        while True:
            score, best, pv = self._root(depth, alpha, beta, moves)
            if score <= alpha:
                alpha = max(-INF, alpha - delta)
            elif score >= beta:
                beta = min(INF, beta + delta)
            else:
                return score, best, pv
            delta *= 3
            if delta > 1000:
                alpha, beta = -INF, INF

    def _root(
        self, depth: int, alpha: int, beta: int, moves: list[int]
    ) -> tuple[int, int, list[int]]:
        b = self._board
        self._check_limits()
        alpha_in = alpha
        best_score = -INF
        best_move = moves[0]
        best_pv: list[int] = [best_move]
        h = b.zobrist_hash()
        self._seen[h] = self._seen.get(h, 0) + 1
        try:
            for i, m in enumerate(moves):
                if i:
                    self._check_limits()
                self._make(m)
                try:
                    child_check = b.is_check()
                    new_depth = depth - 1 + (1 if child_check else 0)
                    if i == 0:
                        score = -self._pvs(new_depth, -beta, -alpha, 1, child_check, True)
                    else:
                        score = -self._pvs(new_depth, -alpha - 1, -alpha, 1, child_check, True)
                        if alpha < score < beta:
                            score = -self._pvs(new_depth, -beta, -alpha, 1, child_check, True)
                finally:
                    self._unmake()
                if score > best_score:
                    best_score = score
                    best_move = m
                    best_pv = [m, *self._pv[1]]
                    if score > alpha:
                        alpha = score
                        if score >= beta:
                            break
        finally:
            self._seen[h] -= 1
        # Inside an aspiration window a score outside it is only a bound.
        if best_score >= beta:
            flag = _LOWER
        elif best_score <= alpha_in:
            flag = _UPPER
        else:
            flag = _EXACT
        self._store(h, depth, best_score, flag, best_move, 0)
        return best_score, best_move, best_pv

    # ------------------------------------------------------------------ tree

    def _check_limits(self) -> None:
        control = self._control
        if control.stopped:
            raise _Stop
        if self._node_limit is not None and self._nodes >= self._node_limit:
            raise _Stop
        if self._hard_ms is not None and not control.pondering:
            if (time.monotonic() - control.started) * 1000 >= self._hard_ms:
                raise _Stop

    def _store(self, h: int, depth: int, score: int, flag: int, move: int, ply: int) -> None:
        # Mate scores are stored relative to this node, not to the root.
        if score > MATE_BOUND:
            score += ply
        elif score < -MATE_BOUND:
            score -= ply
        tt = self._tt
        if len(tt) >= self._tt_capacity and h not in tt:
            self._tables.make_room()
        tt[h] = (depth, flag, score, move)

    def _ruling(self, ply: int) -> int:
        b = self._board
        if self._null_moves:
            # Under a null move the history is not a real game: no ruling, a draw.
            return 0
        h = b.zobrist_hash()
        if b.is_game_over_by_passing():
            key: tuple[int, ...] = (h, -1)
        else:
            # The moves since the position first occurred decide the ruling.
            keys = b.position_keys()
            start = keys.index(h) if h in keys else len(keys)
            key = (h, *b.move_stack_codes()[start:])
        verdict = self._referee_verdict(key)
        if verdict is None:
            return 0  # still playable (janggi modern: the fourth occurrence decides)
        return self._verdict_score(verdict, ply)

    def _referee_verdict(self, key: tuple[int, ...]) -> int | None:
        """The referee's ruling on the position: None (play on), 1 / -1 (the first /
        second mover wins) or 2 (a draw); cached under ``key`` (what decides the ruling)."""
        verdicts = self._verdicts
        verdict = verdicts.get(key, 0)
        if verdict != 0:
            return verdict
        if len(verdicts) > 100_000:
            verdicts.clear()
        b = self._board
        outcome = Game(b.variant, b, repetitions=2).outcome()
        if outcome is None:
            verdict = None
        else:
            verdict = 2 if outcome.winner is None else (1 if outcome.winner else -1)
        verdicts[key] = verdict
        return verdict

    def _verdict_score(self, verdict: int, ply: int) -> int:
        if verdict == 2:
            return 0
        winner_is_mover = (verdict == 1) == self._board.turn
        return WIN - ply if winner_is_mover else -(WIN - ply)

    def _near_move_limit(self, plies: int) -> bool:
        """Whether the natural move limit could end the game within ``plies`` from the
        root (the checks-only mate attempt does not track it, so it is not tried then)."""
        return bool(self._limit) and self._board.halfmove_clock + plies >= self._limit

    def _move_limit_score(self, ply: int) -> int | None:
        """The score of a position at or past the natural move limit's span, or None if
        the game goes on here (or ends by mate, which the search finds itself).

        Xiangqi: the root's count (:class:`chuhan.game.MoveLimitCount`, the referee's own)
        carried along this line, checks included; a draw unless the side to move is mated
        or stalemated. Janggi: the referee's ruling of the position (points, or a draw)."""
        b = self._board
        if b.variant.is_janggi:
            verdict = self._referee_verdict((b.zobrist_hash(), -2))
            return None if verdict is None else self._verdict_score(verdict, ply)
        root = self._limit_count
        count = MoveLimitCount(root.counted, dict(root.checks))
        gave_check = self._gave_check
        mover = self._root_turn
        for i in range(1, b.ply - self._root_len + 1):
            count.add(mover, gave_check[i])
            mover = not mover
        if count.counted < self._limit or not b.legal_move_codes():
            return None
        return 0

    def _no_moves(self, ply: int, in_check: bool) -> int:
        b = self._board
        if not in_check and b.variant.is_janggi and not b.variant.stalemate_loses:
            return 0
        return -MATE + ply

    def _pvs(
        self, depth: int, alpha: int, beta: int, ply: int, in_check: bool, null_ok: bool
    ) -> int:
        self._nodes += 1
        if self._nodes & 31 == 0:
            self._check_limits()
        b = self._board
        pv_table = self._pv
        pv_table[ply] = []
        if ply > self._seldepth:
            self._seldepth = ply
        h = b.zobrist_hash()
        if (self._can_pass and b.is_game_over_by_passing()) or self._seen.get(h):
            return self._ruling(ply)
        self._gave_check[ply] = in_check  # the move that led here gave check
        if ply >= self._limit_ply and b.halfmove_clock >= self._limit and not self._null_moves:
            limit_score = self._move_limit_score(ply)
            if limit_score is not None:
                return limit_score
        # Mate-distance pruning.
        if alpha < -MATE + ply:
            alpha = -MATE + ply
        if beta > MATE - ply - 1:
            beta = MATE - ply - 1
        if alpha >= beta:
            return alpha
        if depth <= 0 or ply >= MAX_PLY:
            return self._quiesce(alpha, beta, ply, in_check, 0)

        pv_node = beta - alpha > 1
        entry = self._tt.get(h)
        tt_move = 0
        if entry is not None:
            e_depth, e_flag, e_score, tt_move = entry
            if e_depth >= depth and not pv_node:
                if e_score > MATE_BOUND:
                    e_score -= ply
                elif e_score < -MATE_BOUND:
                    e_score += ply
                if (
                    e_flag == _EXACT
                    or (e_flag == _LOWER and e_score >= beta)
                    or (e_flag == _UPPER and e_score <= alpha)
                ):
                    return e_score

        squares = self._squares
        side = b.turn
        futile = False
        if not in_check and not pv_node and abs(beta) < MATE_BOUND:
            static = self._static()
            # Futility: near the leaves, quiet moves that give no check cannot lift a
            # score this far below alpha.
            if depth <= 3 and static + _FUTILITY[depth] <= alpha:
                futile = True
            # Reverse futility: far above beta near the leaves.
            if depth <= 2 and static - 150 * depth >= beta:
                return static
            # Null move, unless the side has no chariot, horse or cannon (zugzwang).
            if null_ok and depth >= 3 and static >= beta and self._has_heavy(side):
                r = 3 if depth >= 6 else 2
                b.swap_turn()
                self._null_moves += 1
                try:
                    score = -self._pvs(depth - 1 - r, -beta, -beta + 1, ply + 1, False, False)
                finally:
                    self._null_moves -= 1
                    b.swap_turn()
                if score >= beta:
                    return beta if score > MATE_BOUND else score

        moves = b.legal_move_codes()
        if not moves:
            return self._no_moves(ply, in_check)
        killers = self._killers[ply]
        history = self._history
        k0, k1 = killers

        def order(m: int) -> int:
            if m == tt_move:
                return -10_000_000
            to = m & 127
            victim = squares[to]
            if victim and m >> 7 != to:
                return -1_000_000 - _VICTIM[abs(victim)] * 16 + _ATTACKER[abs(squares[m >> 7])]
            if m == k0:
                return -900_000
            if m == k1:
                return -800_000
            if m >> 7 == to:  # a pass, after everything else
                return _HISTORY_MAX + 1
            return -history[m]

        moves.sort(key=order)
        # The quiet moves searched here before the one that cuts off (their history counts
        # go down when one does).
        tried: list[int] = []
        seen = self._seen
        seen[h] = seen.get(h, 0) + 1
        best = -INF
        best_move = 0
        flag = _UPPER
        near, reach = self._check_filter(side)
        try:
            for i, m in enumerate(moves):
                fr = m >> 7
                to = m & 127
                piece = squares[fr]
                quiet = not squares[to] or fr == to
                # Only a move that starts or lands where it could check is tested.
                may_check = near[fr] or reach[piece if piece > 0 else -piece][to]
                # Futility and late-move pruning of quiet moves that give no check: one
                # that cannot give check is skipped without being made.
                prunable = (
                    quiet
                    and i
                    and not in_check
                    and (futile or (depth <= 3 and not pv_node and i >= _LATE_MOVES[depth]))
                    and m != k0
                    and m != k1
                )
                if prunable and not may_check:
                    continue
                self._make(m)
                child_check = b.is_check() if may_check else False
                if prunable and not child_check:
                    # (Taken back here: mypyc cannot compile a continue inside try/finally.)
                    self._unmake()
                    continue
                if quiet and fr != to:
                    tried.append(m)
                try:
                    new_depth = depth - 1 + (1 if child_check and ply < 60 else 0)
                    if i == 0:
                        score = -self._pvs(new_depth, -beta, -alpha, ply + 1, child_check, True)
                    else:
                        reduction = 0
                        if (
                            depth >= 3
                            and i >= 3
                            and quiet
                            and not in_check
                            and not child_check
                            and m != k0
                            and m != k1
                        ):
                            reduction = 1 if i < 10 else 2
                            if depth >= 6 and not pv_node:
                                reduction += 1
                        score = -self._pvs(
                            new_depth - reduction, -alpha - 1, -alpha, ply + 1, child_check, True
                        )
                        if reduction and score > alpha:
                            score = -self._pvs(
                                new_depth, -alpha - 1, -alpha, ply + 1, child_check, True
                            )
                        if alpha < score < beta:
                            score = -self._pvs(new_depth, -beta, -alpha, ply + 1, child_check, True)
                finally:
                    self._unmake()
                if score > best:
                    best = score
                    if score > alpha:
                        alpha = score
                        best_move = m
                        flag = _EXACT
                        pv_table[ply] = [m, *pv_table[ply + 1]]
                        if score >= beta:
                            flag = _LOWER
                            if quiet:
                                if m != k0:
                                    killers[1] = k0
                                    killers[0] = m
                                bonus = depth * depth if depth < 16 else 256
                                for q in tried:
                                    if q != m:
                                        history[q] -= bonus + history[q] * bonus // _HISTORY_MAX
                                history[m] += bonus - history[m] * bonus // _HISTORY_MAX
                            break
        finally:
            seen[h] -= 1
        self._store(h, depth, best, flag, best_move or tt_move, ply)
        return best

    def _make(self, m: int) -> None:
        b = self._board
        fr = m >> 7
        to = m & 127
        self._bases.append(self._base)
        if fr != to:
            squares = self._squares
            values = self._values
            piece = squares[fr]
            row = values[piece]
            victim = squares[to]
            if victim:
                self._base += row[to] - row[fr] - values[victim][to]
            else:
                self._base += row[to] - row[fr]
        b.push_code(m)

    def _unmake(self) -> None:
        self._board.pop_code()
        self._base = self._bases.pop()

    def _static(self) -> int:
        """The full evaluation for the side to move (remembered by Zobrist key: about a
        third of the positions evaluated come back within a search)."""
        b = self._board
        h = b.zobrist_hash()
        statics = self._statics
        score = statics.get(h)
        if score is None:
            score = self._base + positional_score(self._eval, self._squares)
            score = (score if b.turn else -score) + self._tempo
            if len(statics) >= _STATIC_CACHE:
                statics.clear()
            statics[h] = score
        return score

    # ------------------------------------------------------------------ mate search

    def mate_search(self, max_moves: int, nodes: int) -> SearchInfo | None:
        """A forced mate by the side to move in at most ``max_moves`` moves, its own moves
        any moves (checks tried first) and every reply of the defender considered, so a
        mate found is proved; None when there is none, or none found within about
        ``nodes`` nodes. The game reviews' pass after the node-limited search, which
        misses a mate that starts with a quiet move or lies past its depth."""
        if not self._board.legal_move_codes():
            return None
        try:
            found = self._mate_attempt(max_moves, nodes, quiet=True)
        except _Stop:
            return None
        if found is None:
            return None
        score, pv = found
        return self._info(MATE - score, score, pv, 1)

    def _mate_attempt(
        self, max_moves: int, budget: int, *, quiet: bool = False, threats: bool = False
    ) -> tuple[int, list[int]] | None:
        """Look for a mate in 1..``max_moves`` moves in which the side to move checks on
        every move (the shape of most composed problems: the defender often threatens a
        mate of his own), or with ``quiet`` plays any move but the last. With ``threats``
        too, the checks that leave the fewest replies go first, and a quiet move is tried
        only if it threatens mate: were the defender to pass, the attacker would mate by
        checks within ``_THREAT_DEPTH`` moves (the way composed problems go between their
        checks; a mate that needs a zugzwang or a slower threat is not found), and every
        position whose replies are generated counts as a node. Returns (score, pv) or
        None; gives up quietly after ``budget`` nodes. Not under rule sets where a mate
        can be drawn (janggi 1995 sheet)."""
        b = self._board
        v = b.variant
        if v.king_defended_mate_draws or v.facing_forfeits_win:
            return None
        self._mate_budget = self._nodes + budget
        self._mate_strict = threats
        try:
            for n in range(1, max_moves + 1):
                move = self._prove(n, quiet, threats)
                if move:
                    return MATE - (2 * n - 1), self._mate_line(move, n, quiet, threats)
        except _MateBudget:
            return None
        return None

    def _prove(self, n: int, quiet: bool = False, threats: bool = False) -> int:
        """A checking move (or with ``quiet`` and ``n`` > 1, any move, checks first) after
        which every reply is mated within ``n - 1`` more moves (0 if there is none); with
        ``threats``, see :meth:`_mate_attempt`."""
        b = self._board
        key = (b.zobrist_hash(), _mate_kind(n, quiet, threats))
        cached = self._mate_tt.get(key)
        if cached is not None:
            return cached
        self._nodes += 1
        if self._nodes > self._mate_budget:
            raise _MateBudget
        if self._nodes & 31 == 0:
            self._check_limits()
        squares = self._squares
        if quiet:
            moves = b.legal_move_codes()
            checks = set(self._checking(moves))
        else:
            # Only the checks: picked from the pseudo-legal moves on the placement, and
            # only those tested for legality (the order legal_move_codes would give).
            pseudo = self._generate(squares, b.turn, ALL_SQUARES, _NONE, None)
            moves = b.legal_among(self._checking(pseudo))
            checks = set(moves)
        moves.sort(key=lambda m: -_VICTIM[abs(squares[m & 127])] if m >> 7 != m & 127 else 1)
        found = 0
        # The moves that give no check, tried once no check mates (quiet proofs only).
        later: list[int] = []
        #: The replies to each check, where they were counted.
        replies_to: dict[int, list[int]] = {}
        if threats:
            # The checks that leave the fewest replies first (a mate in one at once).
            by_replies: list[tuple[int, int]] = []
            for m in moves:
                if m in checks:
                    self._make(m)
                    self._nodes += 1
                    replies = b.legal_move_codes()
                    self._unmake()
                    if not replies:
                        found = m
                        break
                    if n > 1:
                        by_replies.append((len(replies), m))
                        replies_to[m] = replies
                elif n > 1 and m >> 7 != m & 127:
                    later.append(m)
            by_replies.sort()
            moves = [m for _, m in by_replies]
        for m in moves:
            if found:
                break
            if m >> 7 == m & 127:
                continue  # passing never mates
            if m in checks:
                self._make(m)
                try:
                    if self._all_replies_lose(n, quiet, threats, replies_to.get(m)):
                        found = m
                finally:
                    self._unmake()
            elif quiet and (n > 1 or not b.variant.is_janggi):
                later.append(m)  # (a last move: a xiangqi stalemate, which loses)
        for m in later:
            if found:
                break
            self._make(m)
            try:
                if threats:
                    self._nodes += 1
                if not threats or self._threatens_mate(min(n - 1, _THREAT_DEPTH)):
                    if self._all_replies_lose(n, quiet, threats):
                        found = m
            finally:
                self._unmake()
        self._mate_tt[key] = found
        return found

    def _threatens_mate(self, n: int) -> bool:
        """Whether the side not to move would mate by checks within ``n`` moves if the
        side to move (not in check) passed."""
        b = self._board
        b.swap_turn()
        try:
            return bool(self._prove(n))
        finally:
            b.swap_turn()

    def _all_replies_lose(
        self,
        n: int,
        quiet: bool = False,
        threats: bool = False,
        replies: list[int] | None = None,
    ) -> bool:
        """Whether every reply here (``replies``, if the caller has them) is mated within
        ``n - 1`` moves (see :meth:`_prove`)."""
        b = self._board
        if quiet or self._mate_strict:  # (most of a proof's work is the replies)
            self._nodes += 1
            if self._nodes > self._mate_budget:
                raise _MateBudget
        if replies is None:
            replies = b.legal_move_codes()
        if not replies:
            return True
        if n == 1:
            return False
        if quiet:
            # The reply that refuted the last proof of this length often refutes this one.
            killer = self._mate_killers.get(n, 0)
            if killer and killer in replies:
                replies.remove(killer)
                replies.insert(0, killer)
        for r in replies:
            self._make(r)
            try:
                # A pass that ends the game (janggi bikjang) is an escape.
                escaped = b.is_game_over_by_passing() or not self._prove(n - 1, quiet, threats)
            finally:
                self._unmake()
            if escaped:
                if quiet:
                    self._mate_killers[n] = r
                return False
        return True

    def _mate_line(
        self, move: int, n: int, quiet: bool = False, threats: bool = False
    ) -> list[int]:
        """The proved line: the mating moves, each answered by the first reply."""
        b = self._board
        line = [move]
        made = 0
        try:
            self._make(move)
            made += 1
            for k in range(n - 1, 0, -1):
                replies = b.legal_move_codes()
                if not replies:
                    break
                self._make(replies[0])
                made += 1
                line.append(replies[0])
                nxt = self._mate_tt.get((b.zobrist_hash(), _mate_kind(k, quiet, threats)), 0)
                if not nxt:
                    break
                self._make(nxt)
                made += 1
                line.append(nxt)
        finally:
            for _ in range(made):
                self._unmake()
        return line

    def _has_heavy(self, side: bool) -> bool:
        """Whether ``side`` has a chariot, horse or cannon (the null-move guard)."""
        for p in self._squares:
            if p and (p > 0) == side and (p if p > 0 else -p) in (4, 5, 6):
                return True
        return False

    def _quiesce(self, alpha: int, beta: int, ply: int, in_check: bool, qply: int) -> int:
        self._nodes += 1
        if self._nodes & 31 == 0:
            self._check_limits()
        if ply > self._seldepth:
            self._seldepth = ply
        b = self._board
        self._pv[ply] = []
        if self._can_pass and b.is_game_over_by_passing():
            return self._ruling(ply)
        squares = self._squares
        side = b.turn
        if in_check and qply < 6:
            moves = b.legal_move_codes()
            if not moves:
                return self._no_moves(ply, in_check)
            best = -INF
        else:
            base = self._base
            stand = (base if side else -base) + self._tempo
            # Lazy evaluation: the positional terms stay within _LAZY of the placement.
            if stand - _LAZY < beta and stand + _LAZY > alpha:
                stand = self._static()
            if stand >= beta or ply >= MAX_PLY:
                return stand
            if stand > alpha:
                alpha = stand
            best = stand
            moves = [
                m
                for m in b.legal_capture_codes()
                if stand + _GAIN[abs(squares[m & 127])] + 150 >= alpha
            ]
            moves.sort(
                key=lambda m: -_VICTIM[abs(squares[m & 127])] * 16 + _ATTACKER[abs(squares[m >> 7])]
            )
            if qply == 0 and self._qchecks:
                # The quiet checks: picked from the pseudo-legal moves, and only those
                # that check are tested for legality.
                quiet = [
                    m
                    for m in self._generate(squares, side, ALL_SQUARES, _NONE, None)
                    if not squares[m & 127]
                ]
                checks = self._checking(quiet)
                if checks:
                    moves += b.legal_among(checks)
        near, reach = self._check_filter(side)
        for m in moves:
            piece = squares[m >> 7]
            may_check = near[m >> 7] or reach[piece if piece > 0 else -piece][m & 127]
            self._make(m)
            try:
                child_check = b.is_check() if may_check else False
                score = -self._quiesce(-beta, -alpha, ply + 1, child_check, qply + 1)
            finally:
                self._unmake()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    self._pv[ply] = [m, *self._pv[ply + 1]]
                    if score >= beta:
                        break
        return best

    def _check_filter(self, side: bool) -> tuple[bytes, tuple[bytes, ...]]:
        """The tables of :func:`_check_filter` for a move of ``side`` here: a move that
        starts and lands outside them cannot give check, since the side not to move is
        never in check (when the root position had it so, every move is tested)."""
        if not self._filter_checks:
            return _TEST_ALL
        return _check_filter(self._janggi, self._board.king(not side))

    def _checking(self, moves: list[int]) -> list[int]:
        """The moves among ``moves`` (pseudo-legal, no pass) that give check. A move is
        tried on the placement only if it could: it starts or lands on the enemy king's file or rank
        (a line opened, a chariot, cannon or soldier's attack, a new cannon screen) or on
        a diagonal point next to it or one further (a horse's leg or janggi elephant's
        path freed, a palace diagonal), or the piece lands a horse's or janggi elephant's
        leap from the king (see :func:`_check_filter`)."""
        b = self._board
        squares = self._squares
        side = b.turn
        king = b.king(not side)
        near, reach = self._check_filter(side)
        attacked = self._attacked
        found = []
        for m in moves:
            fr = m >> 7
            to = m & 127
            piece = squares[fr]
            if fr == to or (not near[fr] and not reach[piece if piece > 0 else -piece][to]):
                continue
            victim = squares[to]
            squares[to] = piece
            squares[fr] = 0
            check = attacked(squares, king, side)
            squares[fr] = piece
            squares[to] = victim
            if check:
                found.append(m)
        return found


def _mate_kind(n: int, quiet: bool, threats: bool) -> int:
    """The kind of a mate proof of ``n`` moves, as the mate table keys it."""
    if not quiet:
        return n
    return n + _THREAT_PROOF if threats else -n


#: A check filter that lets every move through (see TreeSearch._check_filter).
_TEST_ALL = (b"\x01" * SQUARE_COUNT, (b"\x01" * SQUARE_COUNT,) * 8)


@cache
def _check_filter(janggi: bool, king: int) -> tuple[bytes, tuple[bytes, ...]]:
    """Where a move must start or land to be able to give check to a king on ``king``
    (the side moving not being in check before). ``near[origin]`` is 1 on the king's
    file or rank (moving away may open a chariot's or cannon's line) and on the two
    diagonal points nearest it in each direction (a horse's leg, a janggi elephant's
    path, a palace diagonal). ``reach[kind][target]`` is 1 on the king's file or rank
    (the piece attacks along it, or becomes a cannon's screen), and besides for a horse
    a horse's leap from the king, for a janggi elephant an elephant's leap, for the
    other pieces the same two diagonal points (a palace diagonal)."""
    kf, kr = king % FILES, king // FILES

    def line_or_diagonal(sq: int) -> bool:
        df, dr = abs(sq % FILES - kf), abs(sq // FILES - kr)
        return df == 0 or dr == 0 or df == dr <= 2

    near = bytes(line_or_diagonal(sq) for sq in range(SQUARE_COUNT))
    reach = []
    for kind in range(8):
        row = []
        for sq in range(SQUARE_COUNT):
            df, dr = abs(sq % FILES - kf), abs(sq // FILES - kr)
            if kind == 4:
                row.append(df == 0 or dr == 0 or df * dr == 2)
            elif kind == 3 and janggi:
                row.append(df == 0 or dr == 0 or df * dr == 6)
            else:
                row.append(line_or_diagonal(sq))
        reach.append(bytes(row))
    return near, tuple(reach)
