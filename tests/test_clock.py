"""The game clock as a server drives it: explicit timestamps, Fischer increment, byo-yomi
periods, flag fall, and a snapshot that survives a restart."""

from __future__ import annotations

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
