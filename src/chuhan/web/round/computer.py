"""The computer player in a room: its janggi setup choice and its moves, searched by the
server's compute service (:mod:`chuhan.web.compute.service`) while the room stays free
for others."""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import TYPE_CHECKING

from chuhan.errors import ChuhanError, ServiceError
from chuhan.search.limits import SearchLimits
from chuhan.squares import Move
from chuhan.variants import JANGGI_ARRANGEMENTS
from chuhan.web.compute.service import MoveRequest, WorkerError
from chuhan.web.round.rules import computer_setup, computer_to_move
from chuhan.web.round.state import Event, RoundState
from chuhan.web.sockets.protocol import ProtocolError

if TYPE_CHECKING:
    from chuhan.web.round.room import Room

__all__ = ["choose_setups", "move_request", "start_thinking"]

log = logging.getLogger("chuhan.web")

#: Computer thinking time in an untimed game, by level (ms); the level's own depth and
#: node caps usually stop it sooner.
UNTIMED_MOVETIME = {level: 200 + 150 * level for level in range(1, 9)}


async def choose_setups(room: Room, now: float) -> None:
    """A computer whose janggi setup choice is due chooses at once."""
    while room.state.status == "setup" and (
        event := computer_setup(room.state, secrets.choice(JANGGI_ARRANGEMENTS), now)
    ):
        await room.write(event)
        room.broadcast_state()


def start_thinking(room: Room) -> None:
    """Start the computer's search when it is to move and not already thinking."""
    if computer_to_move(room.state) and (room.computer is None or room.computer.done()):
        room.computer = asyncio.get_running_loop().create_task(_play(room))


def move_request(state: RoundState, now: float) -> MoveRequest:
    board = state.game.board
    moves = state.moves
    level = state.level or 3
    clock = state.clock
    if clock is None or clock.running is None:
        limits = SearchLimits(movetime=UNTIMED_MOVETIME[level])
    else:
        control = clock.control
        increment = round(control.increment * 1000)
        limits = SearchLimits(
            wtime=round(clock.remaining(True, now) * 1000),
            btime=round(clock.remaining(False, now) * 1000),
            winc=increment,
            binc=increment,
            byoyomi=round(control.period_seconds * 1000) if control.periods else None,
            wperiods=clock.periods_left(True, now) if control.periods else None,
            bperiods=clock.periods_left(False, now) if control.periods else None,
        )
    return MoveRequest(state.variant.name, board.root().fen(), moves, level, limits)


async def _play(room: Room) -> None:
    """Ask the compute for the computer's move and play it, unless the game changed
    meanwhile (a takeback, a resignation): then think again about the new position."""
    while True:
        async with room.lock:
            if not computer_to_move(room.state):
                return
            version = room.state.version
            request = move_request(room.state, room.manager.now())
        try:
            answer = await room.manager.compute.best_move(request)
        except WorkerError as error:
            log.error("game %s: %s", room.game_id, error)
            room.broadcast(
                {
                    "type": "error",
                    "code": "engine_failed",
                    "message": f"The computer could not move: {error}. Reconnect to retry.",
                }
            )
            return
        async with room.lock:
            if room.state.version != version:
                continue
            if room.state.status != "playing" or answer is None:
                return
            now = room.manager.now()
            try:
                await room.check_time(now)
                if room.state.version != version:
                    return
                if not room.state.game.is_legal(Move.from_iccs(answer)):
                    raise ChuhanError(f"{answer} is not legal here")
                await room.commit(
                    [Event("move", {"move": answer, "computer": True}, now)],
                    now,
                    None,
                    0,
                )
            except ChuhanError as error:
                log.error(
                    "game %s: computer move %s rejected: %s",
                    room.game_id,
                    answer,
                    error,
                )
            except ServiceError as error:  # the store failed: the move is not made
                log.error("game %s: computer move %s not stored: %s", room.game_id, answer, error)
            except ProtocolError:
                pass
            return
