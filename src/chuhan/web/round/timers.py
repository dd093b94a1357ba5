"""Time in a room: flag falls, the janggi setup deadline, and the one timer task that
wakes the room when the next of them is due."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from chuhan.web.round.replay import apply_event
from chuhan.web.round.seats import seat_of
from chuhan.web.round.view import DEFAULT_ARRANGEMENT
from chuhan.web.sockets.connection import Connection
from chuhan.web.sockets.protocol import ProtocolError

if TYPE_CHECKING:
    from chuhan.web.round.room import Room

__all__ = ["arm_setup_deadline", "arm_timer", "check_time", "choose_setup"]


async def check_time(room: Room, now: float, actor: Connection | None = None, seq: int = 0) -> bool:
    """End the game on a flag fall, or take the default janggi arrangement once the
    deadline has passed. Called under the lock before every action and by the timer;
    ``actor`` (a flag claim) gets the ack. True if a flag fell."""
    if room.status == "over" or room.row.kind == "imported":
        return False
    clock = room.clock
    if clock is not None and room.status == "playing":
        flagged = clock.flagged(now)
        if flagged is not None:
            data = {"side": seat_of(flagged)}
            apply_event(room, "flag", data, now)
            await room.commit("flag", data, now, actor, seq)
            return True
    deadline = room.row.setup_deadline
    pending = room.game.setup_pending
    if pending is not None and deadline is not None and now >= deadline:
        kind, data = await choose_setup(room, pending, DEFAULT_ARRANGEMENT, now, default=True)
        await room.commit(kind, data, now, None, 0)
    return False


async def choose_setup(
    room: Room, side: bool, arrangement: str, now: float, *, default: bool = False
) -> tuple[str, dict[str, Any]]:
    """Apply a janggi setup choice and start the next chooser's time; the event to store."""
    data: dict[str, Any] = {"side": seat_of(side), "arrangement": arrangement}
    if default:
        data["default"] = True
    apply_event(room, "setup", data, now)
    await arm_setup_deadline(room, now)
    return "setup", data


async def arm_setup_deadline(room: Room, now: float) -> None:
    """Start the chooser's setup time once the chooser is here (computers choose at
    once)."""
    pending = room.game.setup_pending
    if pending is None or room.row.setup_deadline is not None:
        return
    if room.is_computer(pending):
        return
    if room.is_connected(seat_of(pending)):
        room.row.setup_deadline = now + room.manager.setup_seconds
        await room.save("setup_timer", {"side": seat_of(pending)}, now, bump=False)


def _next_deadline(room: Room, now: float) -> float | None:
    if room.status == "over":
        return None
    if room.status == "setup":
        return room.row.setup_deadline
    clock = room.clock
    if clock is None or clock.running is None:
        return None
    return now + clock.time_to_flag(clock.running, now)


def arm_timer(room: Room, now: float) -> None:
    """(Re)start the room's timer for its next deadline, if it has one."""
    if room.timer is not None:
        room.timer.cancel()
        room.timer = None
    deadline = _next_deadline(room, now)
    if deadline is not None:
        room.timer = asyncio.get_running_loop().create_task(_wake_at(room, deadline - now + 0.005))


async def _wake_at(room: Room, delay: float) -> None:
    await asyncio.sleep(max(0.0, delay))
    async with room.lock:
        room.timer = None
        try:
            await check_time(room, room.manager.now())
        except ProtocolError:
            return
        if room.timer is None:
            arm_timer(room, room.manager.now())
