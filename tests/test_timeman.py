"""The time manager: budgets for each kind of ``go``, and the hard guarantee that the
engine never spends more than the clock allows."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from chuhan import Board
from chuhan.search.limits import SearchLimits
from chuhan.search.timeman import (
    MOVE_OVERHEAD_MS,
    SAFETY_FRACTION,
    Budget,
    allocate,
    moves_left_estimate,
)

START = Board()
ENDGAME = Board("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 60")
BLACK_TO_MOVE = Board("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1")


def test_no_time_limit_without_a_clock() -> None:
    for limits in (
        SearchLimits(),
        SearchLimits(depth=6),
        SearchLimits(nodes=10_000),
        SearchLimits(mate=3),
        SearchLimits(infinite=True),
        SearchLimits(ponder=True, depth=4),
    ):
        assert allocate(limits, START) == Budget(None, None), limits


def test_movetime_is_used_whole_less_the_protocol_overhead() -> None:
    assert allocate(SearchLimits(movetime=1000), START) == Budget(970, 970)
    assert allocate(SearchLimits(movetime=200, depth=3), START) == Budget(170, 170)
    # Short move times keep most of themselves, and never drop to nothing.
    budget = allocate(SearchLimits(movetime=20), START)
    assert budget.hard_ms is not None and 1 <= budget.hard_ms < 20
    assert allocate(SearchLimits(movetime=0), START) == Budget(1, 1)


def test_move_overhead_is_kept_back() -> None:
    assert allocate(SearchLimits(movetime=1000, move_overhead=100), START) == Budget(900, 900)
    assert allocate(SearchLimits(movetime=1000, move_overhead=0), START) == Budget(1000, 1000)
    limits = SearchLimits(wtime=2000, btime=2000, movestogo=1, move_overhead=500)
    budget = allocate(limits, START)
    assert budget.hard_ms == 2000 - 500 - int(2000 * SAFETY_FRACTION)


def test_movetime_and_a_clock_take_the_shorter() -> None:
    budget = allocate(SearchLimits(movetime=5000, wtime=2000, btime=2000), START)
    assert budget.hard_ms is not None and budget.hard_ms < 2000
    budget = allocate(SearchLimits(movetime=100, wtime=600_000, btime=600_000), START)
    assert budget == Budget(75, 75)  # 100 less a quarter at most


def test_the_clock_of_the_side_to_move_counts() -> None:
    red = allocate(SearchLimits(wtime=600_000, btime=1_000), START)
    black = allocate(SearchLimits(wtime=1_000, btime=600_000), BLACK_TO_MOVE)
    assert red == black
    assert red.soft_ms is not None and red.soft_ms > 5_000
    # Only the opponent's clock given: no limit for us.
    assert allocate(SearchLimits(btime=1_000), START) == Budget(None, None)


def test_sudden_death_budget_is_sensible_and_grows_in_the_endgame() -> None:
    opening = allocate(SearchLimits(wtime=300_000, btime=300_000), START)
    ending = allocate(SearchLimits(wtime=300_000, btime=300_000), ENDGAME)
    assert opening.soft_ms is not None and ending.soft_ms is not None
    assert opening.hard_ms is not None and ending.hard_ms is not None
    assert 3_000 <= opening.soft_ms <= 10_000
    assert opening.soft_ms < ending.soft_ms <= 20_000
    assert opening.soft_ms < opening.hard_ms <= 0.3 * 300_000
    assert moves_left_estimate(START) > moves_left_estimate(ENDGAME)


def test_increment_adds_to_the_budget() -> None:
    plain = allocate(SearchLimits(wtime=60_000, btime=60_000), START)
    fischer = allocate(SearchLimits(wtime=60_000, btime=60_000, winc=2_000, binc=2_000), START)
    assert plain.soft_ms is not None and fischer.soft_ms is not None
    assert fischer.soft_ms > plain.soft_ms + 1_000


def test_movestogo_one_spends_most_of_the_time() -> None:
    budget = allocate(SearchLimits(wtime=10_000, btime=10_000, movestogo=1), START)
    assert budget.soft_ms is not None and budget.hard_ms is not None
    assert 7_000 <= budget.soft_ms <= budget.hard_ms < 10_000 - MOVE_OVERHEAD_MS
    many = allocate(SearchLimits(wtime=10_000, btime=10_000, movestogo=40), START)
    assert many.soft_ms is not None and many.soft_ms < 500


def test_byoyomi_spends_most_of_one_period_but_never_all() -> None:
    limits = SearchLimits(wtime=0, btime=0, byoyomi=10_000, wperiods=3, bperiods=3)
    budget = allocate(limits, START)
    assert budget.soft_ms is not None and budget.hard_ms is not None
    assert 7_000 <= budget.soft_ms <= budget.hard_ms
    assert budget.hard_ms <= 10_000 - MOVE_OVERHEAD_MS - 10_000 * SAFETY_FRACTION
    # Main time nearly out: main plus the period, still short of their sum.
    budget = allocate(SearchLimits(wtime=2_000, byoyomi=30_000), START)
    assert budget.soft_ms is not None and budget.hard_ms is not None
    assert 20_000 <= budget.soft_ms <= budget.hard_ms < 32_000 - MOVE_OVERHEAD_MS
    # No periods left: the main time alone counts.
    budget = allocate(SearchLimits(wtime=2_000, byoyomi=30_000, wperiods=0), START)
    assert budget.hard_ms is not None and budget.hard_ms < 2_000


def test_plenty_of_main_time_is_not_spent_on_byoyomi() -> None:
    budget = allocate(SearchLimits(wtime=600_000, byoyomi=30_000, wperiods=3), START)
    assert budget.soft_ms is not None and budget.hard_ms is not None
    assert budget.soft_ms < 60_000 and budget.hard_ms < 600_000 * 0.3 + 30_000


def test_a_second_left_in_sudden_death_is_still_searched() -> None:
    # 50 moves to plan for and 30 ms of overhead each would take 1.5 s: more than is left.
    for wtime, at_least in ((1_400, 10), (1_000, 8), (500, 4)):
        budget = allocate(SearchLimits(wtime=wtime, btime=wtime), START)
        assert budget.soft_ms is not None and budget.hard_ms is not None
        assert at_least <= budget.soft_ms <= budget.hard_ms <= wtime // 4, (wtime, budget)


def test_hardly_any_time_still_gives_a_positive_budget() -> None:
    for wtime in (-500, 0, 1, 29, 50):
        budget = allocate(SearchLimits(wtime=wtime, btime=wtime), START)
        assert budget.hard_ms is not None and budget.soft_ms is not None
        assert 1 <= budget.soft_ms <= budget.hard_ms <= max(1, wtime - MOVE_OVERHEAD_MS)


_times = st.integers(min_value=-1_000, max_value=10_000_000)
_small = st.one_of(st.none(), st.integers(min_value=0, max_value=120_000))


@settings(max_examples=300, deadline=None)
@given(
    side=st.booleans(),
    wtime=_times,
    btime=_times,
    winc=_small,
    binc=_small,
    movestogo=st.one_of(st.none(), st.integers(min_value=0, max_value=200)),
    byoyomi=_small,
    wperiods=st.one_of(st.none(), st.integers(min_value=0, max_value=10)),
    bperiods=st.one_of(st.none(), st.integers(min_value=0, max_value=10)),
    movetime=st.one_of(st.none(), st.integers(min_value=0, max_value=1_000_000)),
    endgame=st.booleans(),
    overhead=st.one_of(st.none(), st.integers(min_value=0, max_value=2_000)),
)
def test_hard_limit_never_exceeds_the_clock(
    side: bool,
    wtime: int,
    btime: int,
    winc: int | None,
    binc: int | None,
    movestogo: int | None,
    byoyomi: int | None,
    wperiods: int | None,
    bperiods: int | None,
    movetime: int | None,
    endgame: bool,
    overhead: int | None,
) -> None:
    limits = SearchLimits(
        wtime=wtime,
        btime=btime,
        winc=winc,
        binc=binc,
        movestogo=movestogo,
        byoyomi=byoyomi,
        wperiods=wperiods,
        bperiods=bperiods,
        movetime=movetime,
        move_overhead=overhead,
    )
    board = (ENDGAME if endgame else START).copy()
    if not side:
        board.push(next(iter(board.legal_moves)))
    budget = allocate(limits, board)
    assert budget.soft_ms is not None and budget.hard_ms is not None
    assert 1 <= budget.soft_ms <= budget.hard_ms

    main = max(0, wtime if side else btime)
    periods = wperiods if side else bperiods
    # A Fischer increment arrives after the move, so it never pays for this one; one
    # byo-yomi period does, if the side has one left.
    has_period = bool(byoyomi) and (periods is None or periods > 0)
    spendable = main + ((byoyomi or 0) if has_period else 0)
    margin = MOVE_OVERHEAD_MS if overhead is None else overhead
    ceiling = spendable - margin - int(spendable * SAFETY_FRACTION)
    assert budget.hard_ms <= max(1, ceiling)
    if spendable >= 50 + margin:
        # At least 50 ms to spend: the engine answers with time to spare.
        assert budget.hard_ms <= spendable - margin - 2
    if movetime is not None:
        assert budget.hard_ms <= max(1, movetime)
