"""The game clock as a server drives it: explicit timestamps, Fischer increment, byo-yomi
periods, flag fall, and a snapshot that survives a restart."""

from __future__ import annotations

import json
import pickle
import re

import pytest

from chuhan.clock import Clock, TimeControl, TimeControlError

RED, BLACK = True, False


def test_fischer_increment_is_added_after_each_move() -> None:
    clock = Clock(TimeControl(60, increment=5))
    clock.start(RED, now=0)
    clock.press(now=10)  # Red used 10 s, gets 5 back
    assert clock.remaining(RED, now=10) == 55
    assert clock.running is BLACK
    assert clock.remaining(BLACK, now=13) == 57


def test_running_out_of_main_time_without_byoyomi_flags() -> None:
    clock = Clock(TimeControl(30))
    clock.start(RED, now=0)
    assert clock.flagged(now=29.9) is None
    assert clock.flagged(now=30) is RED


def test_byoyomi_period_is_kept_when_the_move_is_made_in_time() -> None:
    clock = Clock(TimeControl(10, periods=3, period_seconds=30))
    clock.start(RED, now=0)
    clock.press(now=35)  # 25 s into the first period
    assert clock.remaining(RED, now=35) == 0
    assert clock.periods_left(RED, now=35) == 3


def test_byoyomi_period_is_lost_when_it_runs_out() -> None:
    clock = Clock(TimeControl(10, periods=3, period_seconds=30))
    clock.start(RED, now=0)
    assert clock.periods_left(RED, now=45) == 2
    clock.press(now=45)
    assert clock.periods_left(RED, now=45) == 2
    assert clock.flagged(now=45) is None


def test_losing_the_last_period_flags() -> None:
    clock = Clock(TimeControl(0, periods=2, period_seconds=10))
    clock.start(RED, now=0)
    assert clock.time_to_flag(RED, now=5) == 15
    assert clock.flagged(now=19.9) is None
    assert clock.flagged(now=20) is RED


def test_snapshot_restores_the_same_times() -> None:
    clock = Clock(TimeControl(300, increment=2))
    clock.start(RED, now=100)
    clock.press(now=130)
    snapshot = clock.to_dict(now=140)
    restored = Clock.from_dict(snapshot, now=1000)  # a new process with its own clock
    assert restored.running is BLACK
    assert restored.remaining(RED, now=1000) == 272
    assert restored.remaining(BLACK, now=1005) == 285


def test_a_clock_and_its_reading_cross_a_process_boundary_whole() -> None:
    """A read worker sends a clock's reading to the server pickled: the compiled classes
    are made only through their constructors, so they pickle by their state."""
    control = TimeControl(300, increment=2, periods=2, period_seconds=10)
    assert pickle.loads(pickle.dumps(control)) == control
    clock = Clock(control)
    clock.berserk(BLACK)
    clock.start(RED, now=100)
    clock.press(now=130)
    for sent in (clock, clock.reading(140)):
        back = pickle.loads(pickle.dumps(sent))
        assert back.to_dict(now=150) == sent.to_dict(now=150)
        assert back.running is BLACK and back.berserked(BLACK) and not back.berserked(RED)


@pytest.mark.parametrize(
    ("text", "control"),
    [
        ("10+5", TimeControl(600, increment=5)),
        ("90s+2", TimeControl(90, increment=2)),
        ("20 3x30", TimeControl(1200, periods=3, period_seconds=30)),
        ("5m+3x20s", TimeControl(300, periods=3, period_seconds=20)),
    ],
)
def test_time_control_strings(text: str, control: TimeControl) -> None:
    assert TimeControl.parse(text) == control


@pytest.mark.parametrize("text", ["", "ten", "10+", "-5+3", "0"])
def test_bad_time_control_strings_are_rejected(text: str) -> None:
    with pytest.raises(TimeControlError):
        TimeControl.parse(text)


def test_pressing_a_stopped_clock_is_an_error() -> None:
    with pytest.raises(TimeControlError, match="stopped"):
        Clock(TimeControl(60)).press(now=1)


def test_bad_snapshot_is_rejected() -> None:
    with pytest.raises(TimeControlError, match="snapshot"):
        Clock.from_dict({"control": {"base": 60}}, now=0)


# ---------------------------------------------------------------------- correspondence

DAY = 86400.0


@pytest.mark.parametrize(
    ("text", "days"), [("3d", 3), ("1 day", 1), ("14 days", 14), (" 7D ", 7), ("10days", 10)]
)
def test_correspondence_strings(text: str, days: int) -> None:
    control = TimeControl.parse(text)
    assert control == TimeControl.correspondence(days)
    assert control.is_correspondence and control.base == days * DAY
    assert TimeControl(**control.to_dict()) == control
    assert control.describe() == f"{days} day{'s' if days > 1 else ''} per move"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("0d", "0 days per move is not allowed; choose one of 1, 2, 3, 5, 7, 10, 14"),
        ("15 days", "15 days per move is not allowed"),
        ("4d", "4 days per move is not allowed"),
        ("1.5d", "days per move must be a whole number"),
        ("d", "days per move must be a whole number"),
        ("garbage", "'3d' (days per move)"),
    ],
)
def test_bad_correspondence_strings_name_the_input(text: str, said: str) -> None:
    with pytest.raises(TimeControlError, match=re.escape(said)) as raised:
        TimeControl.parse(text)
    assert repr(text) in str(raised.value)


def test_a_correspondence_control_is_only_days() -> None:
    with pytest.raises(TimeControlError, match="no increment or byo-yomi"):
        TimeControl(3 * DAY, increment=5, days=3)
    with pytest.raises(TimeControlError, match="not allowed"):
        TimeControl.correspondence(4)
    assert "days" not in TimeControl(600, increment=5).to_dict()


def test_each_move_gives_the_opponent_the_full_days_from_its_time() -> None:
    clock = Clock(TimeControl.correspondence(3))
    start = 1_800_000_000.0
    clock.start(True, start)
    # First thinks 2 days 23 hours: still in time; second has 3 days from that move.
    clock.press(start + 3 * DAY - 3600)
    moved = start + 3 * DAY - 3600
    assert clock.remaining(False, moved) == clock.remaining(True, moved) == 3 * DAY
    assert clock.flagged(moved + 3 * DAY - 1) is None
    # Second moves after 1 day: first's allowance is 3 days again, not what was left.
    clock.press(moved + DAY)
    assert clock.remaining(True, moved + DAY) == 3 * DAY
    assert clock.time_to_flag(True, moved + DAY) == 3 * DAY
    # Restored from its snapshot after a restart, the deadline is the same instant.
    restored = Clock.from_dict(clock.to_dict(moved + 2 * DAY), moved + 2 * DAY)
    assert restored.control == TimeControl.correspondence(3)
    assert restored.flagged(moved + 4 * DAY - 1) is None
    assert restored.flagged(moved + 4 * DAY + 1) is True


def test_a_correspondence_move_after_the_deadline_flags_the_mover() -> None:
    clock = Clock(TimeControl.correspondence(1))
    clock.start(True, 0.0)
    clock.press(DAY + 1)
    assert clock.flagged(DAY + 1) is True


def test_a_berserk_halves_the_main_time_and_takes_the_increment() -> None:
    clock = Clock(TimeControl(180, increment=2))
    clock.berserk(RED)
    clock.start(RED, now=0)
    clock.press(now=10)  # Red: 90 - 10, no increment
    clock.press(now=15)  # Black: 180 - 5 + 2
    assert clock.remaining(RED, now=15) == 80
    assert clock.remaining(BLACK, now=15) == 177
    with pytest.raises(TimeControlError, match="berserked already"):
        clock.berserk(RED)


def test_a_berserk_survives_the_snapshot() -> None:
    clock = Clock(TimeControl(180, increment=2))
    clock.berserk(BLACK)
    snapshot = clock.to_dict(now=0)
    assert snapshot["berserk"] == ["second"]
    restored = Clock.from_dict(snapshot, now=0)
    restored.start(BLACK, now=0)
    restored.press(now=1)
    assert restored.remaining(BLACK, now=1) == 89
    assert "berserk" not in Clock(TimeControl(60)).to_dict(now=0)


def test_a_vacation_stops_the_running_side_and_ending_it_early_takes_the_rest_back() -> None:
    clock = Clock(TimeControl.correspondence(3))
    clock.start(RED, 0.0)
    clock.vacation(RED, 5 * DAY, now=DAY)  # (two days left, after four of vacation)
    assert clock.time_to_flag(RED, DAY) == 6 * DAY
    assert clock.on_vacation_until(RED, DAY) == 5 * DAY
    clock.vacation(RED, None, now=2 * DAY)  # (three days of it not used: taken back)
    assert clock.time_to_flag(RED, 2 * DAY) == 2 * DAY  # (the day of vacation not charged)
    assert clock.on_vacation_until(RED, 2 * DAY) is None


def test_a_move_during_a_vacation_gives_the_full_days_from_its_end() -> None:
    clock = Clock(TimeControl.correspondence(3))
    clock.start(RED, 0.0)
    clock.vacation(BLACK, 4 * DAY, now=0.0)
    clock.press(DAY)  # (Red moves: Black's days start when the vacation ends)
    assert clock.time_to_flag(BLACK, DAY) == 3 * DAY + 3 * DAY
    snapshot = clock.to_dict(DAY)
    assert snapshot["vacation"] == {"second": 4 * DAY}
    restored = Clock.from_dict(snapshot, DAY)
    restored.press(2 * DAY)
    restored.press(3 * DAY)  # (Black again, still on vacation)
    assert restored.time_to_flag(BLACK, 3 * DAY) == 3 * DAY + DAY
    assert "vacation" not in restored.to_dict(4 * DAY)  # (over)


def test_only_a_correspondence_clock_has_vacations() -> None:
    with pytest.raises(TimeControlError, match="only a correspondence clock"):
        Clock(TimeControl(600)).vacation(RED, 100.0, now=0.0)


def _clocks_to_store() -> list[tuple[str, Clock, float]]:
    """Clocks in every state a stored row holds one in, and when each is stored."""
    unstarted = Clock(TimeControl(1800))  # (an int base: the row says 1800, not 1800.0)
    running = Clock(TimeControl(300, increment=2.5))
    running.start(RED, 0.0)
    running.press(7.123456789)
    byoyomi = Clock(TimeControl(10, periods=3, period_seconds=30))
    byoyomi.start(RED, 0.0)
    flagged = Clock(TimeControl(60))
    flagged.start(RED, 0.0)
    flagged.press(61.0)
    stopped = Clock(TimeControl(60, increment=1))
    stopped.start(RED, 0.0)
    stopped.stop(12.5)
    berserked = Clock(TimeControl(60))
    berserked.berserk(BLACK)
    correspondence = Clock(TimeControl.correspondence(3))
    correspondence.start(RED, 0.0)
    correspondence.press(DAY / 3)
    on_vacation = Clock(TimeControl.correspondence(3))
    on_vacation.start(RED, 0.0)
    on_vacation.vacation(RED, 5 * DAY, now=DAY)
    return [
        ("unstarted", unstarted, 5.0),
        ("black to move", running, 9.0),
        ("in byo-yomi", byoyomi, 55.0),
        ("flagged", flagged, 62.0),
        ("stopped", stopped, 20.0),
        ("berserked", berserked, 0.0),
        ("days per move", correspondence, DAY / 2),
        ("on vacation", on_vacation, 2 * DAY),
    ]


_STORED_CLOCKS = _clocks_to_store()


@pytest.mark.parametrize(
    ("name", "clock", "now"), _STORED_CLOCKS, ids=[name for name, _, _ in _STORED_CLOCKS]
)
def test_a_stored_clock_is_its_snapshot_and_the_json_encoders_text_of_it(
    name: str, clock: Clock, now: float
) -> None:
    data, text = clock.stored(now)
    assert data == clock.to_dict(now)
    assert text == json.dumps(clock.to_dict(now))
