"""Glicko-2 against Glickman's worked example, and the rules chuhan rates games by."""

from __future__ import annotations

import pytest

from chuhan.web.accounts.glicko2 import Glicko, rate
from chuhan.web.accounts.ratings import decide, is_provisional
from chuhan.web.accounts.repository import Account, Rating, RatingInput


def test_the_papers_worked_example() -> None:
    # "Example of the Glicko-2 system", section 2: 1500/200/0.06 against 1400/30,
    # 1550/100 and 1700/300, scoring 1, 0, 0.
    after = rate(
        Glicko(1500, 200, 0.06),
        [(Glicko(1400, 30), 1.0), (Glicko(1550, 100), 0.0), (Glicko(1700, 300), 0.0)],
    )
    assert after.rating == pytest.approx(1464.06, abs=0.02)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_widens_the_deviation() -> None:
    after = rate(Glicko(1700, 100, 0.06), [])
    assert (after.rating, after.volatility) == (1700, 0.06)
    # Step 6: phi* = sqrt(phi^2 + sigma^2), on the Glicko-2 scale (173.7178 points).
    assert after.deviation == pytest.approx((100**2 + (0.06 * 173.7178) ** 2) ** 0.5)


def test_a_draw_between_equals_moves_neither_rating() -> None:
    after = rate(Glicko(1500, 350, 0.06), [(Glicko(1500, 350, 0.06), 0.5)])
    assert after.rating == pytest.approx(1500)


def _input(winner: str | None, pair_counted_at: float | None = None) -> RatingInput:
    accounts = {"first": Account("a", "Ada", 0, "-"), "second": Account("b", "Bo", 0, "-")}
    return RatingInput(
        "g", "xiangqi", winner, accounts, {"first": None, "second": None}, pair_counted_at, 1e9
    )


def test_new_players_start_at_1500_and_the_winner_gains_what_glicko2_says() -> None:
    settlement = decide(_input("first"))
    expected = rate(Glicko(), [(Glicko(), 1.0)])
    assert settlement.counted
    assert settlement.changes["first"].after == pytest.approx(expected.rating)
    assert settlement.changes["second"].after == pytest.approx(3000 - expected.rating)


def test_a_second_game_of_the_pair_within_a_day_does_not_count() -> None:
    settlement = decide(_input("second", pair_counted_at=1e9 - 3600))
    assert not settlement.counted
    assert "once a day" in (settlement.reason or "")
    assert all(c.after == c.before for c in settlement.changes.values())


def test_a_rating_is_provisional_while_its_deviation_is_above_110() -> None:
    assert is_provisional(Rating(1500, 110.5, 0.06).deviation)
    assert not is_provisional(110.0)
