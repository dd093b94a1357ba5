"""The round's rules on values, without a socket: :func:`decide` reads a
:class:`RoundState` and a command and returns the events (or a :class:`Rejection`),
:func:`evolve` applies them, :func:`replay` rebuilds a state from its log and
:func:`row_of` is what the store keeps. The clock is a number (``T0`` onwards)."""

from __future__ import annotations

from typing import Any

import pytest

from chuhan.clock import TimeControl
from chuhan.variants import get_variant
from chuhan.web.db import GameRow, StoredEvent
from chuhan.web.round.rules import (
    CORRESPONDENCE_HORIZON_SECONDS,
    Command,
    Rejection,
    clock_deadline,
    decide,
    due_events,
    next_deadline,
    setup_timer_event,
    unstarted_abort,
)
from chuhan.web.round.state import Event, RoundState, evolve, new_state, replay, row_of

T0 = 1_800_000_000.0
GRACE = 30.0
SETUP_SECONDS = 60.0


def new_round(
    *,
    kind: str = "friend",
    variant: str = "xiangqi",
    minutes: float | None = None,
    days: int | None = None,
    computer_side: str | None = None,
) -> RoundState:
    spec = get_variant(variant)
    control = (
        None
        if minutes is None
        else {"base": minutes * 60, "increment": 0.0, "periods": 0, "period_seconds": 0.0}
    )
    if days is not None:
        control = TimeControl.correspondence(days).to_dict()
    row = GameRow(
        id="game",
        kind=kind,
        variant=spec.game,
        rules=spec.rules,
        start_fen=None,
        time_control=control,
        level=3 if kind == "computer" else None,
        computer_side=computer_side,
        names={},
        created=T0,
        updated=T0,
        status="setup" if spec.is_janggi else "playing",
        offers={"draw": None, "takeback": None, "rematch": None},
    )
    return new_state(row, setup_seconds=SETUP_SECONDS, abandon_seconds=GRACE)


# ``now`` is positional only: a move's fields are "from" and "to", given as ``**{...}``, and the
# type checker would otherwise let them fill ``now``.
def decided(
    state: RoundState, role: str, kind: str, now: float = T0, /, **fields: Any
) -> list[Event]:
    answer = decide(state, role, Command(kind, fields), now)
    assert not isinstance(answer, Rejection), answer
    return answer


def refused(
    state: RoundState, role: str, kind: str, now: float = T0, /, **fields: Any
) -> Rejection:
    answer = decide(state, role, Command(kind, fields), now)
    assert isinstance(answer, Rejection), answer
    return answer


def act(state: RoundState, role: str, kind: str, now: float = T0, /, **fields: Any) -> RoundState:
    for event in decided(state, role, kind, now, **fields):
        state = evolve(state, event)
    return state


def move(state: RoundState, role: str, text: str, now: float = T0) -> RoundState:
    return act(state, role, "move", now, **{"from": text[:2], "to": text[2:]})


def opening(state: RoundState, now: float = T0) -> RoundState:
    """Red's cannon to the centre, Black's horse out."""
    return move(move(state, "first", "h2e2", now), "second", "h9g7", now + 1)


# ---------------------------------------------------------------------- moves


def test_a_legal_move_is_one_move_event() -> None:
    state = new_round()
    assert decided(state, "first", "move", **{"from": "h2", "to": "e2"}) == [
        Event("move", {"move": "h2e2"}, T0)
    ]


def test_deciding_changes_nothing() -> None:
    state = new_round()
    fen = state.game.board.fen()
    decided(state, "first", "move", **{"from": "h2", "to": "e2"})
    refused(state, "first", "move", **{"from": "h2", "to": "i3"})
    assert state.game.board.fen() == fen and state.version == 1 and state.entries == ()


def test_a_move_changes_the_position_the_version_the_list_and_the_last_event() -> None:
    state = move(new_round(), "first", "h2e2")
    assert state.game.board.ply == 1 and state.version == 2
    assert state.moves == ("h2e2",) and len(state.entries) == 1
    assert state.last_event == {"kind": "move", "move": "h2e2"}


def test_a_player_cannot_move_for_the_other_side() -> None:
    rejection = refused(new_round(), "second", "move", **{"from": "h7", "to": "e7"})
    assert rejection == Rejection("not_your_turn", "it is Red's turn, not yours")


def test_a_watcher_cannot_move() -> None:
    rejection = refused(new_round(), "watcher", "move", **{"from": "h2", "to": "e2"})
    assert rejection.code == "watcher"


def test_an_illegal_move_is_refused_with_the_referees_sentence() -> None:
    rejection = refused(new_round(), "first", "move", **{"from": "h2", "to": "i3"})
    assert rejection.code == "illegal_move"
    assert rejection.message.startswith("illegal move h2i3 in rnbakabnr/")
    assert rejection.message.endswith("the cannon on h2 cannot move to i3")


def test_a_move_to_its_own_square_is_not_a_pass() -> None:
    rejection = refused(new_round(), "first", "move", **{"from": "e0", "to": "e0"})
    assert rejection == Rejection("illegal_move", "e0e0 is not a move; send 'pass' to pass")


def test_xiangqi_has_no_pass() -> None:
    assert refused(new_round(), "first", "pass") == Rejection(
        "illegal_move", "there is no pass in xiangqi"
    )


def test_one_screen_plays_both_sides() -> None:
    state = move(move(new_round(kind="local"), "both", "h2e2"), "both", "h9g7")
    assert state.moves == ("h2e2", "h9g7")


def test_no_one_moves_for_the_computer() -> None:
    state = new_round(kind="computer", computer_side="second")
    state = move(state, "first", "h2e2")
    assert refused(state, "first", "move", **{"from": "h9", "to": "g7"}).code == "not_your_turn"


# ---------------------------------------------------------------------- clocks and flags


def test_the_first_move_starts_the_clock_and_each_move_presses_it() -> None:
    state = new_round(minutes=5)
    assert state.clock is not None and state.clock.running is None
    state = move(state, "first", "h2e2", T0 + 3)
    assert state.clock is not None and state.clock.running is False
    state = move(state, "second", "h9g7", T0 + 13)
    assert state.clock is not None
    assert state.clock.remaining(False, T0 + 13) == pytest.approx(290)
    assert state.clock.running is True


def test_nothing_is_due_while_time_remains() -> None:
    state = opening(new_round(minutes=1))
    assert due_events(state, T0 + 50) == []
    assert next_deadline(state, T0 + 50) == pytest.approx(T0 + 61)


def test_a_flag_falls_when_the_running_side_has_no_time_left() -> None:
    state = opening(new_round(minutes=1))
    events = due_events(state, T0 + 62)
    assert events == [Event("flag", {"side": "first"}, T0 + 62)]
    state = evolve(state, events[0])
    assert state.status == "over" and state.ending == {"kind": "flag", "side": "first"}
    result = state.result()
    assert result is not None and result["winner"] == "second"
    assert due_events(state, T0 + 100) == [] and next_deadline(state, T0 + 100) is None


DAY = 86400.0


def test_a_correspondence_flag_falls_days_after_the_last_move() -> None:
    """A fake clock of days: 3 days per move, each move giving the opponent 3 days from it."""
    state = move(new_round(days=3), "first", "h2e2", T0)
    # Black's first move has the clock's days (no 30 s first-move time to abort on).
    assert state.first_move_deadline() is None
    state = move(state, "second", "h9g7", T0 + 2 * DAY)
    assert clock_deadline(state, T0 + 2 * DAY) == T0 + 5 * DAY
    state = move(state, "first", "b0c2", T0 + 4 * DAY)  # (Red had 3 days, not 1)
    assert due_events(state, T0 + 7 * DAY - 1) == []
    assert clock_deadline(state, T0 + 6 * DAY) == T0 + 7 * DAY
    events = due_events(state, T0 + 7 * DAY + 1)
    assert events == [Event("flag", {"side": "second"}, T0 + 7 * DAY + 1)]
    state = evolve(state, events[0])
    result = state.result()
    assert result is not None and result["winner"] == "first"


def test_a_correspondence_deadline_days_away_is_left_to_the_sweep() -> None:
    live = new_round(days=1)
    log: list[StoredEvent] = []
    for event in decided(live, "first", "move", T0, **{"from": "h2", "to": "e2"}):
        live = evolve(live, event)
        log.append(StoredEvent(live.version, event.at, event.kind, event.data))
    # Days away: no timer in the room (the sweep loads the game when it comes near).
    assert next_deadline(live, T0) is None
    near = T0 + DAY - CORRESPONDENCE_HORIZON_SECONDS
    assert next_deadline(live, near) == T0 + DAY
    # Replayed from its stored events after a restart days later, the deadline is the same.
    rebuilt = replay(row_of(live), log)
    assert clock_deadline(rebuilt, T0 + DAY - 5) == T0 + DAY
    assert due_events(rebuilt, T0 + DAY + 1)[0].kind == "flag"


def test_an_untimed_game_never_flags() -> None:
    assert due_events(opening(new_round()), T0 + 10**6) == []


# ---------------------------------------------------------------------- resigning and draws


def test_resigning_ends_the_game_for_the_opponent() -> None:
    state = act(new_round(), "second", "resign")
    result = state.result()
    assert state.status == "over" and result is not None and result["winner"] == "first"
    assert state.ending == {"kind": "resign", "side": "second"}


def test_a_finished_game_takes_no_resignation() -> None:
    state = act(new_round(), "second", "resign")
    assert refused(state, "first", "resign") == Rejection("game_over", "the game is over")


def test_a_draw_offer_stands_until_accepted() -> None:
    state = act(new_round(), "first", "draw_offer")
    assert state.game.draw_offer is True and state.status == "playing"
    state = act(state, "second", "draw_accept")
    result = state.result()
    assert result is not None and result["winner"] is None
    assert state.ending == {"kind": "agreement", "side": "first"}


def test_crossing_draw_offers_are_an_agreement() -> None:
    state = act(new_round(), "first", "draw_offer")
    assert decided(state, "second", "draw_offer") == [Event("draw_agreed", {"side": "second"}, T0)]


def test_a_declined_draw_offer_is_gone() -> None:
    state = act(act(new_round(), "first", "draw_offer"), "second", "draw_decline")
    assert state.game.draw_offer is None and state.status == "playing"


def test_there_is_no_draw_to_accept_without_an_offer() -> None:
    assert refused(new_round(), "second", "draw_accept") == Rejection(
        "not_allowed", "Black has no draw offer to accept"
    )


def test_one_cannot_accept_ones_own_draw_offer() -> None:
    state = act(new_round(), "first", "draw_offer")
    assert refused(state, "first", "draw_accept").message == "Red has no draw offer to accept"


def test_the_computer_declines_a_draw_at_once() -> None:
    state = new_round(kind="computer", computer_side="second")
    events = decided(state, "first", "draw_offer")
    assert events == [Event("draw_declined", {"side": "second", "computer": True}, T0)]
    assert evolve(state, events[0]).game.draw_offer is None


def test_a_seat_acts_only_for_itself() -> None:
    assert refused(new_round(), "first", "resign", side="second") == Rejection(
        "not_allowed", "your seat is first, not second"
    )


# ---------------------------------------------------------------------- takebacks


def test_an_accepted_takeback_takes_back_the_move_and_its_list_entry() -> None:
    state = move(new_round(minutes=5), "first", "h2e2")
    state = act(state, "first", "takeback_request")
    assert state.game.takeback_request is True
    state = act(state, "second", "takeback_accept")
    assert state.game.board.ply == 0 and state.moves == () and state.entries == ()
    assert state.last_event == {"kind": "takeback", "side": "first"}


def test_a_takeback_asked_after_the_reply_takes_back_both_moves() -> None:
    state = act(opening(new_round()), "first", "takeback_request")
    state = act(state, "second", "takeback_accept")
    assert state.moves == ()


def test_there_is_nothing_to_take_back_before_the_first_move() -> None:
    assert refused(new_round(), "first", "takeback_request") == Rejection(
        "not_allowed", "Red has no move to take back"
    )


def test_a_declined_takeback_leaves_the_moves() -> None:
    state = act(move(new_round(), "first", "h2e2"), "first", "takeback_request")
    state = act(state, "second", "takeback_decline")
    assert state.game.takeback_request is None and state.moves == ("h2e2",)


def test_the_computer_grants_a_takeback_at_once() -> None:
    state = move(new_round(kind="computer", computer_side="second"), "first", "h2e2")
    state = evolve(state, Event("move", {"move": "h9g7", "computer": True}, T0 + 1))
    events = decided(state, "first", "takeback_request")
    assert events == [Event("takeback", {"side": "first", "computer": True}, T0)]
    assert evolve(state, events[0]).moves == ()


# ---------------------------------------------------------------------- rematch


def test_a_rematch_waits_for_the_game_to_end() -> None:
    assert refused(new_round(), "first", "rematch") == Rejection(
        "not_allowed", "a rematch can be offered when the game is over"
    )


def test_the_first_rematch_request_is_an_offer_and_the_second_starts_it() -> None:
    state = act(new_round(), "first", "resign")
    state = act(state, "first", "rematch")
    assert state.rematch_offer == "first"
    assert decided(state, "first", "rematch") == [Event("rematch_offer", {"side": "first"}, T0)]
    assert decided(state, "second", "rematch") == [Event("rematch", {"side": "second"}, T0)]


def test_a_rematch_against_the_computer_starts_at_once() -> None:
    state = act(new_round(kind="computer", computer_side="second"), "first", "resign")
    assert decided(state, "first", "rematch") == [Event("rematch", {"side": "first"}, T0)]


# ---------------------------------------------------------------------- a player who left


def test_an_untimed_game_cannot_be_claimed() -> None:
    rejection = decide(
        opening(new_round()), "first", Command("claim_abandoned", {}), T0, absent_since={}
    )
    assert isinstance(rejection, Rejection) and rejection.message.startswith(
        "only a timed game can be claimed"
    )


def test_an_opponent_who_is_here_cannot_be_claimed_against() -> None:
    state = opening(new_round(minutes=5))
    answer = decide(state, "first", Command("claim_abandoned", {}), T0 + 100, absent_since={})
    assert answer == Rejection("not_allowed", "your opponent is here: the game goes on")


def test_a_claim_waits_for_the_grace_period() -> None:
    state = opening(new_round(minutes=5))
    away = {"second": T0 + 10}
    answer = decide(state, "first", Command("claim_abandoned", {}), T0 + 30, absent_since=away)
    assert answer == Rejection(
        "not_allowed",
        "your opponent left 20 s ago; you may claim the game once they have been gone 30 s, "
        "in 10 s",
    )


def test_after_the_grace_period_the_player_who_stayed_wins() -> None:
    state = opening(new_round(minutes=5))
    away = {"second": T0 + 10}
    answer = decide(state, "first", Command("claim_abandoned", {}), T0 + 40, absent_since=away)
    assert answer == [Event("abandoned", {"side": "second", "draw": False}, T0 + 40)]
    state = evolve(state, answer[0])
    result = state.result()
    assert result is not None and result["winner"] == "first"


def test_a_correspondence_opponent_away_for_a_day_cannot_be_claimed_against() -> None:
    state = opening(new_round(days=2))
    away = {"second": T0 + 10}
    answer = decide(state, "first", Command("claim_abandoned", {}), T0 + DAY, absent_since=away)
    assert answer == Rejection(
        "not_allowed",
        "in a correspondence game the opponent may be away: they have 2 days per move, "
        "and lose on time once it passes",
    )


def test_the_player_who_stayed_may_call_it_a_draw() -> None:
    state = opening(new_round(minutes=5))
    command = Command("claim_abandoned", {"draw": True})
    answer = decide(state, "first", command, T0 + 40, absent_since={"second": T0})
    assert not isinstance(answer, Rejection)
    result = evolve(state, answer[0]).result()
    assert result is not None and result["winner"] is None


def test_a_game_whose_clocks_have_not_started_cannot_be_claimed() -> None:
    answer = decide(
        new_round(minutes=5), "first", Command("claim_abandoned", {}), T0, absent_since={}
    )
    assert answer == Rejection(
        "not_allowed", "the clocks have not started yet: there is no game to claim"
    )


# ---------------------------------------------------------------------- janggi setup


def test_han_chooses_the_janggi_arrangement_first() -> None:
    state = new_round(variant="janggi")
    assert state.status == "setup"
    assert refused(state, "first", "setup", arrangement="마상상마").code == "not_your_turn"
    assert refused(state, "second", "move", **{"from": "a1", "to": "a2"}) == Rejection(
        "not_allowed", "the janggi setup is not finished"
    )
    state = act(state, "second", "setup", arrangement="HEEH")
    assert state.setup == {"second": "마상상마"} and state.game.setup_pending is True


def test_an_arrangement_that_is_not_one_is_a_bad_field() -> None:
    rejection = refused(new_round(variant="janggi"), "second", "setup", arrangement="XXXX")
    assert rejection.code == "bad_field"


def test_the_choosers_time_starts_once_the_chooser_is_here() -> None:
    state = new_round(variant="janggi")
    assert setup_timer_event(state, T0, lambda seat: False) is None
    event = setup_timer_event(state, T0, lambda seat: seat == "second")
    assert event == Event("setup_timer", {"side": "second"}, T0)
    state = evolve(state, event)
    assert state.setup_deadline == T0 + SETUP_SECONDS and state.version == 1


def test_the_default_arrangement_is_taken_when_the_chooser_runs_out_of_time() -> None:
    state = evolve(new_round(variant="janggi"), Event("setup_timer", {"side": "second"}, T0))
    assert due_events(state, T0 + SETUP_SECONDS - 1) == []
    events = due_events(state, T0 + SETUP_SECONDS)
    assert events == [
        Event(
            "setup",
            {"side": "second", "arrangement": "마상상마", "default": True},
            T0 + SETUP_SECONDS,
        )
    ]
    assert evolve(state, events[0]).setup_deadline is None


# ---------------------------------------------------------------------- the log and the row


def test_a_replayed_log_gives_the_state_back() -> None:
    live = new_round(minutes=5)
    log: list[StoredEvent] = []
    for role, kind, fields, at in (
        ("first", "move", {"from": "h2", "to": "e2"}, T0 + 1),
        ("second", "move", {"from": "h9", "to": "g7"}, T0 + 4),
        ("first", "draw_offer", {}, T0 + 5),
    ):
        for event in decided(live, role, kind, at, **fields):
            live = evolve(live, event)
            log.append(StoredEvent(live.version, event.at, event.kind, event.data))
    row = row_of(live)
    rebuilt = replay(row, log, setup_seconds=SETUP_SECONDS, abandon_seconds=GRACE)
    assert rebuilt.game.board.fen() == live.game.board.fen()
    assert rebuilt.entries == live.entries and rebuilt.last_event == live.last_event
    assert rebuilt.game.draw_offer is True
    assert rebuilt.clock is not None and live.clock is not None
    assert rebuilt.clock.to_dict(T0 + 9) == live.clock.to_dict(T0 + 9)
    assert row_of(rebuilt) == row


def test_the_row_is_computed_from_the_state() -> None:
    state = act(move(new_round(minutes=5), "first", "h2e2", T0 + 2), "second", "draw_offer")
    row = row_of(state)
    assert row.moves == ["h2e2"] and row.version == 3 and row.status == "playing"
    assert row.offers == {"draw": "second", "takeback": None, "rematch": None}
    assert row.updated == T0 and row.clock_at == T0
    finished = row_of(act(state, "first", "resign"))
    assert finished.status == "over" and finished.result is not None
    assert finished.ending == {"kind": "resign", "side": "first"}


def test_a_name_is_quiet() -> None:
    state = evolve(new_round(), Event("name", {"seat": "first", "name": "Ann"}, T0))
    assert state.names == {"first": "Ann"} and state.version == 1 and state.last_event is None


# ---------------------------------------------------------------------- no start


def test_a_game_not_started_in_time_is_called_off_against_the_side_that_did_not_move() -> None:
    def fresh() -> RoundState:  # (evolve plays on the state's game: one state a story)
        return new_round(minutes=5).replace(first_move_seconds=30.0)

    state = fresh()
    assert unstarted_abort(state, T0 + 29.9) is None
    red_gone = unstarted_abort(state, T0 + 30)
    assert red_gone == Event("abort", {"side": "first", "no_start": True}, T0 + 30)
    ended = evolve(state, red_gone)
    outcome = ended.game.outcome()
    assert ended.status == "over" and outcome is not None and outcome.winner is None
    assert "Red did not make a first move in time" in outcome.reason
    # Red moved: Black has its 30 s from Red's move, then Black is the one called off.
    moved = move(fresh(), "first", "h2e2", T0 + 10)
    assert unstarted_abort(moved, T0 + 39.9) is None
    black_gone = unstarted_abort(moved, T0 + 40)
    assert black_gone is not None and black_gone.data == {"side": "second", "no_start": True}
    # Both have moved: the game plays on, however long the next move takes.
    assert unstarted_abort(move(moved, "second", "h9g7", T0 + 20), T0 + 10_000) is None


def test_no_start_is_judged_neither_for_the_computer_nor_days_per_move_nor_a_game_over() -> None:
    computer = new_round(kind="computer", minutes=5, computer_side="first")
    assert unstarted_abort(computer.replace(first_move_seconds=30.0), T0 + 3600) is None
    days = new_round(days=3).replace(first_move_seconds=30.0)
    assert unstarted_abort(days, T0 + 3600) is None
    over = act(new_round(minutes=5), "first", "resign").replace(first_move_seconds=30.0)
    assert unstarted_abort(over, T0 + 3600) is None
