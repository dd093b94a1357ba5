"""Glicko-2 against Glickman's worked example, and the rules chuhan rates games by."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from chuhan.web.accounts.glicko2 import Glicko, rate
from chuhan.web.accounts.ratings import NEW_ACCOUNT_GAMES, decide, is_provisional
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


def _input(winner: str | None, pair_counted_at: float | None = None, **changes: Any) -> RatingInput:
    accounts = {"first": Account("a", "Ada", 0, "-"), "second": Account("b", "Bo", 0, "-")}
    given = RatingInput(
        "g",
        "xiangqi",
        winner,
        accounts,
        {"first": None, "second": None},
        pair_counted_at,
        1e9,
        plies=40,
        networks={"first": frozenset({"192.0.2.1"}), "second": frozenset({"198.51.100.7"})},
        new_opponent_games={"first": 0, "second": 0},
    )
    return replace(given, **changes)


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


# ---------------------------------------------------------------------- against farming


def test_a_game_that_ends_before_both_players_moved_twice_does_not_count() -> None:
    for plies in (0, 1, 3):
        settlement = decide(_input("first", plies=plies))
        assert not settlement.counted and settlement.code == "too_short"
        assert f"after {plies} move" in (settlement.reason or "")
        assert all(not c.counted and c.after == c.before for c in settlement.changes.values())
    assert decide(_input("first", plies=4)).counted


def test_a_game_between_accounts_of_one_network_does_not_count() -> None:
    shared = {"first": frozenset({"203.0.113.5"}), "second": frozenset({"203.0.113.5", "x"})}
    settlement = decide(_input("first", networks=shared))
    assert not settlement.counted and settlement.code == "same_network"
    assert "203.0.113.5" not in (settlement.reason or "")  # (an address is never shown)


def test_against_new_opponents_a_rating_moves_in_two_games_a_day() -> None:
    # Ada has had her two games against new accounts today; Bo, new, has not.
    settlement = decide(_input("first", new_opponent_games={"first": 2, "second": 0}))
    assert settlement.counted and settlement.code == "new_opponents"
    assert "counted for Bo only" in (settlement.reason or "")
    ada, bo = settlement.changes["first"], settlement.changes["second"]
    assert not ada.counted and ada.after == ada.before == 1500
    assert bo.counted and bo.after < 1500 and bo.new
    both = decide(_input("first", new_opponent_games={"first": 2, "second": 2}))
    assert not both.counted and both.code == "new_opponents"


def test_an_established_opponent_is_not_held_by_the_new_opponents_rule() -> None:
    established = Rating(1500, 80, 0.06, games=NEW_ACCOUNT_GAMES)
    ratings = {"first": None, "second": established}
    settlement = decide(
        _input("first", ratings=ratings, new_opponent_games={"first": 9, "second": 2})
    )
    # Ada (new) plays an established Bo: her rating moves whatever her count; Bo's does
    # not, he had his two games against new accounts today.
    assert settlement.changes["first"].counted and settlement.changes["first"].new
    assert not settlement.changes["second"].counted
