"""Time management: how long the engine may think about one move.

:func:`allocate` turns the limits of a ``go`` command into a :class:`Budget`: a soft limit
(do not start another iteration after it) and a hard limit (abort the search there). The
search measures both from the moment it starts (after a ``ponderhit``, from then).

The hard limit carries a guarantee that the tests check over random clock states: it never
exceeds the time the side to move can spend without losing, less a safety margin of
the move overhead (``SearchLimits.move_overhead``, by default :data:`MOVE_OVERHEAD_MS`) plus
:data:`SAFETY_FRACTION` of that time. That time is the main
time left, plus one byo-yomi period if the side still has one (a move made within a period
keeps it, so one period may be used but never all of it). A Fischer increment is *not*
counted: it is added after the move, so it cannot pay for the move being made.
"""

from __future__ import annotations

from dataclasses import dataclass

from chuhan.board import Board
from chuhan.search.limits import SearchLimits

#: Time lost between the GUI's clock and ours: reading the command, starting the search,
#: printing ``bestmove``, the GUI reading it. Taken off every budget. The default of
#: ``SearchLimits.move_overhead`` (the engine's ``Move Overhead`` option).
MOVE_OVERHEAD_MS = 30
#: A further share of the time left, kept back from the hard limit (timer jitter, a slow
#: last iteration check, the garbage collector).
SAFETY_FRACTION = 0.1
#: The shortest budget handed out: the search always gets to return a legal move.
MIN_BUDGET_MS = 1
#: Moves-to-go estimates for sudden death: this many at the start with full material,
#: falling to :data:`MIN_MOVES_LEFT` as the pieces come off.
MAX_MOVES_LEFT = 50
MIN_MOVES_LEFT = 18
#: With ``movestogo`` given, never plan for more moves than this.
MOVESTOGO_CAP = 50
#: The hard limit is at most this many soft limits (a search that finds trouble late may
#: overrun its soft limit, within reason) ...
HARD_TO_SOFT = 4.0
#: ... and at most this share of the main time when more moves must come from it.
HARD_SHARE = 0.3

# Material that makes the game "middle" rather than "end": chariots count 4, horses and
# cannons 2 (janggi elephants 1), soldiers, guards and kings nothing. A full army is 16.
_PHASE_WEIGHTS = (0, 0, 0, 1, 2, 4, 2, 0)
_FULL_PHASE = 32


@dataclass(frozen=True, slots=True)
class Budget:
    """How long one search may run, in milliseconds from its start."""

    #: Don't start a new iteration after this (``None``: no limit).
    soft_ms: int | None
    #: Abort the search at this point (``None``: no limit).
    hard_ms: int | None

    @property
    def unlimited(self) -> bool:
        return self.soft_ms is None and self.hard_ms is None


UNLIMITED = Budget(None, None)


def move_overhead(limits: SearchLimits) -> int:
    """The protocol overhead per move: ``limits.move_overhead`` or the default."""
    if limits.move_overhead is None:
        return MOVE_OVERHEAD_MS
    return max(0, limits.move_overhead)


def safety_margin(available_ms: int, overhead: int = MOVE_OVERHEAD_MS) -> int:
    """What is kept back from ``available_ms`` of spendable time."""
    return overhead + int(available_ms * SAFETY_FRACTION)


def spendable_ms(limits: SearchLimits, side: bool) -> int | None:
    """The most ``side`` can spend on this move without losing on time: main time plus one
    byo-yomi period if it has one (``None`` without a clock for that side)."""
    main = limits.wtime if side else limits.btime
    if main is None:
        return None
    return max(0, main) + _period_ms(limits, side)


def hard_cap_ms(limits: SearchLimits, side: bool) -> int | None:
    """The guaranteed ceiling of the hard limit for ``side``'s clock."""
    spendable = spendable_ms(limits, side)
    if spendable is None:
        return None
    return max(MIN_BUDGET_MS, spendable - safety_margin(spendable, move_overhead(limits)))


def moves_left_estimate(board: Board) -> int:
    """How many more moves the side to move should plan for in sudden death, from the
    material still on the board (the game phase)."""
    weights = _PHASE_WEIGHTS
    material = 0
    for piece in board.placement:
        if piece:
            material += weights[piece if piece > 0 else -piece]
    phase = min(material, _FULL_PHASE) / _FULL_PHASE
    return MIN_MOVES_LEFT + round((MAX_MOVES_LEFT - MIN_MOVES_LEFT) * phase)


def allocate(limits: SearchLimits, board: Board) -> Budget:
    """The budget of a search under ``limits`` in ``board`` (see the module docstring)."""
    movetime_budget: int | None = None
    if limits.movetime is not None:
        movetime = max(0, limits.movetime)
        overhead = min(move_overhead(limits), movetime // 4)
        movetime_budget = max(MIN_BUDGET_MS, movetime - overhead)
    clock = _clock_budget(limits, board.turn, board)
    if clock is None:
        if movetime_budget is None:
            return UNLIMITED
        return Budget(movetime_budget, movetime_budget)
    if movetime_budget is None:
        return clock
    # Both a fixed move time and a clock: whichever is shorter.
    hard = min(movetime_budget, clock.hard_ms or movetime_budget)
    return Budget(min(hard, clock.soft_ms or hard), hard)


def _period_ms(limits: SearchLimits, side: bool) -> int:
    byoyomi = limits.byoyomi
    if not byoyomi or byoyomi <= 0:
        return 0
    periods = limits.wperiods if side else limits.bperiods
    # Without a period count the byo-yomi still applies to this move (the USI custom).
    if periods is not None and periods <= 0:
        return 0
    return byoyomi


def _clock_budget(limits: SearchLimits, side: bool, board: Board) -> Budget | None:
    main = limits.wtime if side else limits.btime
    if main is None:
        return None
    main = max(0, main)
    increment = max(0, (limits.winc if side else limits.binc) or 0)
    period = _period_ms(limits, side)
    cap = hard_cap_ms(limits, side)
    assert cap is not None

    if limits.movestogo is not None and limits.movestogo > 0:
        moves_left = min(limits.movestogo, MOVESTOGO_CAP)
    else:
        moves_left = moves_left_estimate(board)

    # Time for the rest of the game (or the control), spread over the moves left; each
    # of them also brings its increment, and, once the main time is gone, its period.
    # Every one of those moves also costs the protocol overhead on the clock, so it is
    # kept back for all of them (else a fast increment game drains the clock by the
    # overhead on every move: seen in chuhan match at 5 s + 0.05 s).
    pool = float(main + increment * (moves_left - 1) - move_overhead(limits) * moves_left)
    # When the overheads of all those moves would eat the whole clock (sudden death, a
    # second or so left), the game is short of time whatever we do: still search, on
    # half the main time spread over the moves, rather than play moves unsearched.
    pool = max(pool, main * 0.5)
    soft = pool / moves_left + period * 0.8
    if moves_left == 1:
        # The clock is refilled after this move: spend most of what is left.
        soft = max(soft, (main + period) * 0.7)
        hard = float(cap)
    else:
        hard = min(soft * HARD_TO_SOFT, main * HARD_SHARE + period * 0.95)
    if period and main < period:
        # The main time is nearly out: the period is what there is; spend most of it.
        soft = max(soft, (main + period) * 0.75)
        hard = max(hard, (main + period) * 0.95)
    hard_ms = max(MIN_BUDGET_MS, min(int(hard), cap))
    soft_ms = max(MIN_BUDGET_MS, min(int(soft), hard_ms))
    return Budget(soft_ms, hard_ms)
