"""What a player may do in a live game: :func:`decide` reads a :class:`RoundState` and a
player's command and returns the events to store, or a :class:`Rejection` saying why not
(the code and sentence the player is sent). It only reads: the room stores the events and
applies them with :func:`~chuhan.web.round.state.evolve`. The clock's and the janggi setup
deadline's own events are :func:`due_events`; the events for the computer player are
:func:`computer_setup` and :func:`computer_move`.

Every check the referee (:class:`~chuhan.game.Game`) would make when an event is applied is
made here first, with the referee's sentence, so an event :func:`decide` returns applies."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from chuhan.errors import ChuhanError
from chuhan.squares import Move
from chuhan.variants import normalize_arrangement
from chuhan.web.round.seats import seat_of, side_of
from chuhan.web.round.state import Event, RoundState, parse_iccs
from chuhan.web.round.view import DEFAULT_ARRANGEMENT

__all__ = [
    "COMMANDS",
    "CORRESPONDENCE_HORIZON_SECONDS",
    "Command",
    "Rejection",
    "berserk_event",
    "clock_deadline",
    "decide",
    "due_events",
    "setup_timer_event",
    "unstarted_abort",
    "vacation_event",
]

#: The roles that play (``both``: one screen playing both sides).
PLAYER_ROLES = ("first", "second", "both")


class Command(NamedTuple):
    """A player's checked command: its type and fields (a websocket message's)."""

    type: str
    fields: dict[str, Any]

    def get(self, name: str) -> Any:
        return self.fields.get(name)


class Rejection(NamedTuple):
    """Why a command is refused: the error ``code`` and the sentence the player is sent."""

    code: str
    message: str


class _Refused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.rejection = Rejection(code, message)


def _title(state: RoundState, side: bool) -> str:
    return state.variant.side_name(side).capitalize()


def _require_player(role: str | None) -> None:
    if role not in PLAYER_ROLES:
        raise _Refused("watcher", "watchers cannot act in the game")


def _require_side(state: RoundState, role: str | None, side: bool) -> None:
    _require_player(role)
    if not (role == "both" or role == seat_of(side)) or state.is_computer(side):
        raise _Refused("not_your_turn", f"it is {_title(state, side)}'s turn, not yours")


def _side_for(role: str | None, command: Command, default: bool) -> bool:
    """The side a non-move command is for: the seat's own, or (a 'both' token) the
    command's ``side`` or ``default``."""
    _require_player(role)
    asked = command.get("side")
    if role == "both":
        return default if asked is None else side_of(asked)
    assert role is not None
    if asked is not None and asked != role:
        raise _Refused("not_allowed", f"your seat is {role}, not {asked}")
    return side_of(role)


def _require_playing(state: RoundState) -> None:
    status = state.status
    if status == "over":
        raise _Refused("game_over", "the game is over")
    if status == "setup":
        raise _Refused("not_allowed", "the janggi setup is not finished")


def _require_not_over(state: RoundState) -> None:
    """The referee's own check before any event: a finished game takes none."""
    if state.outcome is not None:
        raise _Refused("game_over", "the game is over")


def _pending_answerer(state: RoundState, offer: bool | None) -> bool:
    return state.game.board.turn if offer is None else not offer


def _require_pending(state: RoundState, pending: bool | None, side: bool, what: str) -> None:
    """The referee's check that ``side`` may answer the opponent's pending ``what``."""
    _require_not_over(state)
    if pending is None or pending == side:
        raise _Refused("not_allowed", f"{_title(state, side)} has no {what}")


def _one(kind: str, now: float, **data: Any) -> list[Event]:
    return [Event(kind, data, now)]


# ---------------------------------------------------------------------- moves and setup


def _move(state: RoundState, role: str | None, command: Command, now: float) -> list[Event]:
    _require_playing(state)
    board = state.game.board
    _require_side(state, role, board.turn)
    text = command.get("from") + command.get("to")
    if command.get("from") == command.get("to"):
        raise _Refused("illegal_move", f"{text} is not a move; send 'pass' to pass")
    try:
        move = parse_iccs(text)
    except ChuhanError as error:
        raise _Refused("illegal_move", str(error)) from None
    if not state.game.is_legal(move):
        raise _Refused(
            "illegal_move",
            f"illegal move {move.iccs()} in {board.fen()} ({board.variant.name}): "
            f"{board.why_illegal(move)}",
        )
    return _one("move", now, move=text)


def _pass(state: RoundState, role: str | None, command: Command, now: float) -> list[Event]:
    _require_playing(state)
    board = state.game.board
    _require_side(state, role, board.turn)
    if not state.variant.is_janggi:
        raise _Refused("illegal_move", "there is no pass in xiangqi")
    king = board.king(board.turn)
    move = Move(king, king)
    if not board.is_legal(move):
        raise _Refused("illegal_move", "passing is not allowed in this position")
    return _one("move", now, move=move.iccs())


def _setup(state: RoundState, role: str | None, command: Command, now: float) -> list[Event]:
    pending = state.game.setup_pending
    if pending is None:
        raise _Refused("not_allowed", "there is no setup choice to make in this game")
    _require_side(state, role, pending)
    try:
        arrangement = normalize_arrangement(command.get("arrangement"))
    except ChuhanError as error:
        raise _Refused("bad_field", str(error)) from None
    return _one("setup", now, side=seat_of(pending), arrangement=arrangement)


# ---------------------------------------------------------------------- aborting


def _abort(state: RoundState, role: str | None, command: Command, now: float) -> list[Event]:
    """A player who has not moved calls the game off; a player who has, once the
    opponent has let the time for a first move pass (``no_start``)."""
    _require_player(role)
    _require_not_over(state)
    side = _side_for(role, command, state.game.board.turn)
    if not state.has_moved(side):
        return _one("abort", now, side=seat_of(side))
    deadline = state.first_move_deadline()
    if deadline is None or state.game.board.turn == side:
        raise _Refused(
            "not_allowed",
            "the game has started: it can be aborted only before each side's first move",
        )
    if now < deadline:
        raise _Refused(
            "not_allowed",
            f"{_title(state, not side)} has {math.ceil(deadline - now)} s left to make a "
            "first move; you may abort the game after that",
        )
    return _one("abort", now, side=seat_of(not side), no_start=True)


# ---------------------------------------------------------------------- resigning and draws


def _resign(state: RoundState, role: str | None, command: Command, now: float) -> list[Event]:
    side = _side_for(role, command, state.game.board.turn)
    _require_not_over(state)
    return _one("resign", now, side=seat_of(side))


def _draw_offer(state: RoundState, role: str | None, command: Command, now: float) -> list[Event]:
    _require_playing(state)
    side = _side_for(role, command, state.game.board.turn)
    if state.is_computer(not side):  # the computer declines at once
        return _one("draw_declined", now, side=seat_of(not side), computer=True)
    if state.game.draw_offer == (not side):  # offers crossing each other are an agreement
        return _one("draw_agreed", now, side=seat_of(side))
    return _one("draw_offer", now, side=seat_of(side))


def _draw_answer(kind: str, what: str) -> _Decider:
    def answer(state: RoundState, role: str | None, command: Command, now: float) -> list[Event]:
        offer = state.game.draw_offer
        side = _side_for(role, command, _pending_answerer(state, offer))
        _require_pending(state, offer, side, what)
        return _one(kind, now, side=seat_of(side))

    return answer


# ---------------------------------------------------------------------- takebacks


def _plies_to_take_back(state: RoundState, side: bool) -> int:
    board = state.game.board
    if board.ply == 0:
        return 0
    if (not board.turn) == side:
        return 1
    return 2 if board.ply >= 2 else 0


def _takeback_request(
    state: RoundState, role: str | None, command: Command, now: float
) -> list[Event]:
    _require_playing(state)
    board = state.game.board
    default = not board.turn if board.ply else board.turn
    side = _side_for(role, command, default)
    if _plies_to_take_back(state, side) == 0:
        raise _Refused("not_allowed", f"{_title(state, side)} has no move to take back")
    if state.is_computer(not side):  # the computer accepts at once
        return _one("takeback", now, side=seat_of(side), computer=True)
    return _one("takeback_request", now, side=seat_of(side))


def _takeback_accept(
    state: RoundState, role: str | None, command: Command, now: float
) -> list[Event]:
    request = state.game.takeback_request
    side = _side_for(role, command, _pending_answerer(state, request))
    _require_pending(state, request, side, "takeback request to accept")
    return _one("takeback", now, side=seat_of(not side))


def _takeback_decline(
    state: RoundState, role: str | None, command: Command, now: float
) -> list[Event]:
    request = state.game.takeback_request
    side = _side_for(role, command, _pending_answerer(state, request))
    _require_pending(state, request, side, "takeback request to decline")
    return _one("takeback_declined", now, side=seat_of(side))


# ---------------------------------------------------------------------- rematch


def _rematch(state: RoundState, role: str | None, command: Command, now: float) -> list[Event]:
    """A rematch offered, or started: a ``rematch`` event without its ``game_id``, which
    the room adds once it has made the new game."""
    _require_player(role)
    if state.status != "over":
        raise _Refused("not_allowed", "a rematch can be offered when the game is over")
    if state.kind == "imported":
        raise _Refused("not_allowed", "an imported game has no players to rematch")
    if state.rematch is not None:
        raise _Refused("not_allowed", "the rematch has already started")
    if role == "both" or state.kind in ("computer", "local"):
        side = role or "first"
    else:
        side = str(role)
        offered = state.rematch_offer
        if offered is None or offered == side:
            return _one("rematch_offer", now, side=side)
    return _one("rematch", now, side=side)


# ---------------------------------------------------------------------- a player who left


def _claim_abandoned(
    state: RoundState,
    role: str | None,
    command: Command,
    now: float,
    absent_since: Mapping[str, float],
) -> list[Event]:
    """The player who stayed in a timed game claims the win (or a draw, ``draw``) against
    an opponent gone for the grace period (``state.abandon_seconds``), as on lichess."""
    _require_player(role)
    if role == "both":
        raise _Refused("not_allowed", "both sides of this game play on one screen")
    _require_playing(state)
    side = _side_for(role, command, state.game.board.turn)
    absent = seat_of(not side)
    if state.clock is None:
        raise _Refused(
            "not_allowed",
            "only a timed game can be claimed when the opponent leaves; "
            "an untimed game waits for them",
        )
    if state.clock.control.days:
        raise _Refused(
            "not_allowed",
            "in a correspondence game the opponent may be away: they have "
            f"{state.clock.control.describe()}, and lose on time once it passes",
        )
    if state.clock.running is None:
        raise _Refused("not_allowed", "the clocks have not started yet: there is no game to claim")
    left = absent_since.get(absent)
    if state.is_computer(not side) or left is None:
        raise _Refused("not_allowed", "your opponent is here: the game goes on")
    grace = state.abandon_seconds
    if now - left < grace:
        wait = math.ceil(grace - (now - left))
        raise _Refused(
            "not_allowed",
            f"your opponent left {math.floor(now - left)} s ago; you may claim the game "
            f"once they have been gone {grace:g} s, in {wait} s",
        )
    return _one("abandoned", now, side=absent, draw=bool(command.get("draw")))


_Decider = Callable[[RoundState, "str | None", Command, float], list[Event]]

#: The game commands by type (chat and flag claims are the room's).
_DECIDERS: dict[str, _Decider] = {
    "move": _move,
    "pass": _pass,
    "setup": _setup,
    "resign": _resign,
    "abort": _abort,
    "draw_offer": _draw_offer,
    "draw_accept": _draw_answer("draw_agreed", "draw offer to accept"),
    "draw_decline": _draw_answer("draw_declined", "draw offer to decline"),
    "takeback_request": _takeback_request,
    "takeback_accept": _takeback_accept,
    "takeback_decline": _takeback_decline,
    "rematch": _rematch,
}

#: The command types :func:`decide` knows.
COMMANDS = frozenset((*_DECIDERS, "claim_abandoned"))


def decide(
    state: RoundState,
    role: str | None,
    command: Command,
    now: float,
    *,
    absent_since: Mapping[str, float] | None = None,
) -> list[Event] | Rejection:
    """The events that ``role``'s (a seat, ``both`` or ``watcher``) ``command`` makes
    happen at ``now``, or why it is refused. ``absent_since`` says since when each seat's
    player has been gone (the room's presence; a claim against a player who left reads
    it). Reads ``state`` only."""
    try:
        if command.type == "claim_abandoned":
            return _claim_abandoned(state, role, command, now, absent_since or {})
        decider = _DECIDERS.get(command.type)
        if decider is None:
            raise _Refused("unknown_type", f"unknown command {command.type!r}")
        return decider(state, role, command, now)
    except _Refused as refused:
        return refused.rejection


# ---------------------------------------------------------------------- time


def due_events(state: RoundState, now: float) -> list[Event]:
    """What time makes happen by ``now``: a flag fall, or the default janggi arrangement
    once the chooser's deadline has passed."""
    if state.status == "over" or state.kind == "imported":
        return []
    clock = state.clock
    if clock is not None and state.status == "playing":
        flagged = clock.flagged(now)
        if flagged is not None:
            return _one("flag", now, side=seat_of(flagged))
    deadline = state.setup_deadline
    pending = state.game.setup_pending
    if pending is not None and deadline is not None and now >= deadline:
        return _one(
            "setup", now, side=seat_of(pending), arrangement=DEFAULT_ARRANGEMENT, default=True
        )
    return []


def setup_timer_event(
    state: RoundState, now: float, is_connected: Callable[[str], bool]
) -> Event | None:
    """The janggi chooser's time starts once the chooser is here (``is_connected``; a
    computer chooses at once): the ``setup_timer`` event, or None."""
    pending = state.game.setup_pending
    if pending is None or state.setup_deadline is not None or state.is_computer(pending):
        return None
    seat = seat_of(pending)
    if not is_connected(seat):
        return None
    return Event("setup_timer", {"side": seat}, now)


#: A correspondence game's flag fall further away than this is not waited for in memory:
#: the room is let go, and the correspondence sweep
#: (:class:`~chuhan.web.correspondence.service.Correspondence`), which reads the stored
#: deadlines more often than this, loads it again when its deadline comes this close.
CORRESPONDENCE_HORIZON_SECONDS = 3600.0


def clock_deadline(state: RoundState, now: float) -> float | None:
    """When the side to move loses on time if it does not move (None: no clock running)."""
    clock = state.clock
    if state.status != "playing" or clock is None or clock.running is None:
        return None
    return now + clock.time_to_flag(clock.running, now)


def next_deadline(state: RoundState, now: float) -> float | None:
    """When time next makes something happen (a flag fall or a setup deadline), if ever
    in the room's time: a correspondence flag fall more than
    :data:`CORRESPONDENCE_HORIZON_SECONDS` away is the sweep's, not the room's."""
    status = state.status
    if status == "over":
        return None
    if status == "setup":
        return state.setup_deadline
    deadline = clock_deadline(state, now)
    if deadline is None:
        return None
    assert state.clock is not None
    if state.clock.control.days and deadline - now > CORRESPONDENCE_HORIZON_SECONDS:
        return None
    return deadline


# ---------------------------------------------------------------------- the computer


def computer_setup(state: RoundState, arrangement: str, now: float) -> Event | None:
    """The computer's janggi arrangement when its choice is due, or None."""
    if state.status != "setup":
        return None
    pending = state.game.setup_pending
    if pending is None or not state.is_computer(pending):
        return None
    return Event("setup", {"side": seat_of(pending), "arrangement": arrangement}, now)


def computer_to_move(state: RoundState) -> bool:
    return state.status == "playing" and state.is_computer(state.game.board.turn)


def vacation_event(
    state: RoundState, seat: str, until: float | None, now: float
) -> Event | Rejection:
    """The event of ``seat``'s vacation until ``until`` (None: it ends now): its
    correspondence clock does not run down meanwhile (:meth:`chuhan.clock.Clock.vacation`).
    Refused for a game over or not of days per move. How many days the account may take is
    the caller's to know: the round has no accounts."""
    if state.status == "over":
        return Rejection("game_over", "the game is over")
    clock = state.clock
    if clock is None or not clock.control.days:
        return Rejection("not_allowed", "only a game of days per move has vacations")
    return Event("vacation", {"side": seat, "until": until}, now)


def unstarted_abort(state: RoundState, now: float) -> Event | None:
    """The abort of a game whose side to move let its time for a first move pass (Red
    ``first_move_seconds`` from the game's last event before any move: its creation, or
    janggi's setup; Black as :meth:`RoundState.first_move_deadline` says), for a server
    that calls such games off by itself (a tournament's: a player gone blocks the
    opponent and the round); None while there is time, after both sides' first moves, in
    a game of days per move, or when the side to move is the computer. Whether the game is
    called off so is the caller's to know: the round has no tournaments."""
    board = state.game.board
    if state.status != "playing" or board.ply >= 2 or state.is_computer(board.turn):
        return None
    if state.clock is not None and state.clock.control.days:
        return None
    if board.ply == 0:
        deadline: float | None = state.updated + state.first_move_seconds
    else:
        deadline = state.first_move_deadline()
    if deadline is None or now < deadline:
        return None
    return Event("abort", {"side": seat_of(board.turn), "no_start": True}, now)


def berserk_event(state: RoundState, seat: str, now: float) -> Event | Rejection:
    """The event of ``seat``'s berserk (half its clock, no increment), or why not: the game
    is over or has no clock, or the seat has moved or berserked already. Whether the game
    allows it (an arena's) is the caller's to know: the round has no tournaments."""
    side = side_of(seat)
    if state.status == "over":
        return Rejection("game_over", "the game is over")
    clock = state.clock
    if clock is None or clock.control.days:
        return Rejection("not_allowed", "only a game on a clock of minutes may be berserked")
    if clock.berserked(side):
        return Rejection("not_allowed", "you have berserked already")
    if state.has_moved(side):
        return Rejection("not_allowed", "a berserk is made before your first move")
    return Event("berserk", {"side": seat}, now)
