"""The players' actions on a game: each checks who may do it and applies it to the game,
returning the event to store (``(kind, data)``); the room commits it. Chat, the
rematch and the claim against an opponent who left are here too."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from chuhan.errors import ChuhanError
from chuhan.squares import Move
from chuhan.variants import normalize_arrangement
from chuhan.web.db import ChatLine
from chuhan.web.round import timers
from chuhan.web.round.replay import apply_event
from chuhan.web.round.seats import SEATS, other_seat, seat_of, side_of
from chuhan.web.round.view import SPECTATORS_ROOM, chat_room, default_name
from chuhan.web.sockets.connection import Connection
from chuhan.web.sockets.protocol import ClientMessage, ProtocolError

if TYPE_CHECKING:
    from chuhan.web.round.room import Room

__all__ = ["HANDLERS", "chat", "require_player", "send_rematch"]

Outcome = tuple[str, dict[str, Any]]


def require_player(conn: Connection) -> None:
    if conn.role not in ("first", "second", "both"):
        raise ProtocolError("watcher", "watchers cannot act in the game")


def _require_side(room: Room, conn: Connection, side: bool) -> None:
    require_player(conn)
    if conn.role not in ("both", seat_of(side)) or room.is_computer(side):
        raise ProtocolError(
            "not_your_turn",
            f"it is {room.variant.side_name(side).capitalize()}'s turn, not yours",
        )


def _side_for(conn: Connection, msg: ClientMessage, default: bool) -> bool:
    """The side a non-move action is for: the seat's own, or (a 'both' token) the
    message's ``side`` or ``default``."""
    require_player(conn)
    asked = msg.get("side")
    if conn.role == "both":
        return default if asked is None else side_of(asked)
    assert conn.role is not None
    if asked is not None and asked != conn.role:
        raise ProtocolError("not_allowed", f"your seat is {conn.role}, not {asked}")
    return side_of(conn.role)


def _require_playing(room: Room) -> None:
    if room.status == "over":
        raise ProtocolError("game_over", "the game is over")
    if room.status == "setup":
        raise ProtocolError("not_allowed", "the janggi setup is not finished")


def _pending_answerer(room: Room, offer: bool | None) -> bool:
    return room.game.board.turn if offer is None else not offer


# ---------------------------------------------------------------------- moves and setup
#
# Each action checks who may do it, then applies the event it will store through
# :func:`~chuhan.web.round.replay.apply_event` (the referee refuses what the game does not
# allow), the same function that replays the event log after a restart.


def _event(room: Room, now: float, kind: str, **data: Any) -> Outcome:
    apply_event(room, kind, data, now)
    return kind, data


async def _move(room: Room, conn: Connection, msg: ClientMessage, now: float) -> Outcome:
    _require_playing(room)
    _require_side(room, conn, room.game.board.turn)
    text = msg.get("from") + msg.get("to")
    if msg.get("from") == msg.get("to"):
        raise ProtocolError("illegal_move", f"{text} is not a move; send 'pass' to pass")
    return _event(room, now, "move", move=text)


async def _pass(room: Room, conn: Connection, msg: ClientMessage, now: float) -> Outcome:
    _require_playing(room)
    board = room.game.board
    _require_side(room, conn, board.turn)
    if not room.variant.is_janggi:
        raise ProtocolError("illegal_move", "there is no pass in xiangqi")
    king = board.king(board.turn)
    move = Move(king, king)
    if not board.is_legal(move):
        raise ProtocolError("illegal_move", "passing is not allowed in this position")
    return _event(room, now, "move", move=move.iccs())


async def _setup(room: Room, conn: Connection, msg: ClientMessage, now: float) -> Outcome:
    pending = room.game.setup_pending
    if pending is None:
        raise ProtocolError("not_allowed", "there is no setup choice to make in this game")
    _require_side(room, conn, pending)
    try:
        arrangement = normalize_arrangement(msg.get("arrangement"))
    except ChuhanError as error:
        raise ProtocolError("bad_field", str(error)) from None
    return await timers.choose_setup(room, pending, arrangement, now)


# ---------------------------------------------------------------------- resigning and draws


async def _resign(room: Room, conn: Connection, msg: ClientMessage, now: float) -> Outcome:
    side = _side_for(conn, msg, room.game.board.turn)
    return _event(room, now, "resign", side=seat_of(side))


async def _draw_offer(room: Room, conn: Connection, msg: ClientMessage, now: float) -> Outcome:
    _require_playing(room)
    side = _side_for(conn, msg, room.game.board.turn)
    if room.is_computer(not side):  # the computer declines at once
        return _event(room, now, "draw_declined", side=seat_of(not side), computer=True)
    if room.game.draw_offer == (not side):  # offers crossing each other are an agreement
        return _event(room, now, "draw_agreed", side=seat_of(side))
    return _event(room, now, "draw_offer", side=seat_of(side))


async def _draw_accept(room: Room, conn: Connection, msg: ClientMessage, now: float) -> Outcome:
    side = _side_for(conn, msg, _pending_answerer(room, room.game.draw_offer))
    return _event(room, now, "draw_agreed", side=seat_of(side))


async def _draw_decline(room: Room, conn: Connection, msg: ClientMessage, now: float) -> Outcome:
    side = _side_for(conn, msg, _pending_answerer(room, room.game.draw_offer))
    return _event(room, now, "draw_declined", side=seat_of(side))


# ---------------------------------------------------------------------- takebacks


async def _takeback_request(
    room: Room, conn: Connection, msg: ClientMessage, now: float
) -> Outcome:
    _require_playing(room)
    board = room.game.board
    default = not board.turn if board.ply else board.turn
    side = _side_for(conn, msg, default)
    if room.is_computer(not side):  # the computer accepts at once
        return _event(room, now, "takeback", side=seat_of(side), computer=True)
    return _event(room, now, "takeback_request", side=seat_of(side))


async def _takeback_accept(room: Room, conn: Connection, msg: ClientMessage, now: float) -> Outcome:
    side = _side_for(conn, msg, _pending_answerer(room, room.game.takeback_request))
    return _event(room, now, "takeback", side=seat_of(not side))


async def _takeback_decline(
    room: Room, conn: Connection, msg: ClientMessage, now: float
) -> Outcome:
    side = _side_for(conn, msg, _pending_answerer(room, room.game.takeback_request))
    return _event(room, now, "takeback_declined", side=seat_of(side))


# ---------------------------------------------------------------------- rematch


async def _rematch(room: Room, conn: Connection, msg: ClientMessage, now: float) -> Outcome:
    require_player(conn)
    row = room.row
    if room.status != "over":
        raise ProtocolError("not_allowed", "a rematch can be offered when the game is over")
    if row.kind == "imported":
        raise ProtocolError("not_allowed", "an imported game has no players to rematch")
    if row.rematch is not None:
        raise ProtocolError("not_allowed", "the rematch has already started")
    if conn.role == "both" or row.kind in ("computer", "local"):
        side = conn.role or "first"
    else:
        side = str(conn.role)
        offered = row.offers.get("rematch")
        if offered is None or offered == side:
            row.offers["rematch"] = side
            return "rematch_offer", {"side": side}
    new_row, seats = await room.manager.create_rematch(row)
    by_token = {token: seat for seat, token in seats.items()}
    mapping: dict[str, str] = {}
    for seat, token in room.tokens.items():
        if seat == "both":
            mapping[token] = seats["both"]
        elif other_seat(seat) in seats:
            mapping[token] = seats[other_seat(seat)]
    row.rematch = {"game_id": new_row.id, "tokens": mapping, "seats": by_token}
    row.offers["rematch"] = None
    for each in list(room.connections):
        send_rematch(room, each)
    return "rematch", {"game_id": new_row.id, "side": side}


def send_rematch(room: Room, conn: Connection) -> None:
    rematch = room.row.rematch
    assert rematch is not None
    game_id = rematch["game_id"]
    token = rematch["tokens"].get(conn.token) if conn.token else None
    conn.send(
        {
            "type": "rematch_ready",
            "game_id": game_id,
            "token": token,
            "seat": rematch["seats"].get(token) if token else None,
            "seat_url": f"/g/{game_id}?t={token}" if token else None,
            "watch_url": f"/w/{game_id}",
        }
    )


# ---------------------------------------------------------------------- a player who left


async def _claim_abandoned(room: Room, conn: Connection, msg: ClientMessage, now: float) -> Outcome:
    """The player who stayed in a timed game claims the win (or a draw, ``draw``) against
    an opponent gone for the grace period (:meth:`Room.abandon_seconds`), as on lichess."""
    require_player(conn)
    if conn.role == "both":
        raise ProtocolError("not_allowed", "both sides of this game play on one screen")
    _require_playing(room)
    side = _side_for(conn, msg, room.game.board.turn)
    absent = seat_of(not side)
    if room.clock is None:
        raise ProtocolError(
            "not_allowed",
            "only a timed game can be claimed when the opponent leaves; "
            "an untimed game waits for them",
        )
    if room.clock.running is None:
        raise ProtocolError(
            "not_allowed", "the clocks have not started yet: there is no game to claim"
        )
    left = room.absent_since.get(absent)
    if room.is_computer(not side) or left is None:
        raise ProtocolError("not_allowed", "your opponent is here: the game goes on")
    grace = room.abandon_seconds()
    if now - left < grace:
        wait = math.ceil(grace - (now - left))
        raise ProtocolError(
            "not_allowed",
            f"your opponent left {math.floor(now - left)} s ago; you may claim the game "
            f"once they have been gone {grace:g} s, in {wait} s",
        )
    return _event(room, now, "abandoned", side=absent, draw=bool(msg.get("draw")))


# ---------------------------------------------------------------------- chat


async def chat(room: Room, conn: Connection, msg: ClientMessage, now: float) -> None:
    """A chat line from a player (to the players' room) or from a spectator (to the
    spectators' room), within the sender's flood limit."""
    if conn.role is None:
        raise ProtocolError("hello_first", "send 'hello' first")
    if chat_room(conn.role) == SPECTATORS_ROOM:
        sender, name, budget_key = "watcher", conn.name or "Spectator", f"@{conn.address}"
    else:
        seat = conn.role if conn.role in SEATS else seat_of(room.game.board.turn)
        assert seat is not None
        sender, name, budget_key = seat, room.row.names.get(seat) or default_name(room, seat), seat
    budget = room.chat_budget(budget_key)
    if not budget.take():
        wait = max(1, math.ceil(budget.wait()))
        raise ProtocolError(
            "chat_flood",
            f"you are sending chat messages too fast: wait {wait} s before the next one",
        )
    line = ChatLine(now, sender, name, msg.get("text"))
    await room.save_chat(line)
    conn.send({"type": "ack", "seq": msg.seq, "version": room.row.version})
    room.broadcast_chat(line)


Handler = Callable[["Room", Connection, ClientMessage, float], Awaitable[Outcome]]

#: The game actions by message type (chat and flag claims are handled by the room).
HANDLERS: dict[str, Handler] = {
    "move": _move,
    "pass": _pass,
    "setup": _setup,
    "resign": _resign,
    "draw_offer": _draw_offer,
    "draw_accept": _draw_accept,
    "draw_decline": _draw_decline,
    "takeback_request": _takeback_request,
    "takeback_accept": _takeback_accept,
    "takeback_decline": _takeback_decline,
    "rematch": _rematch,
    "claim_abandoned": _claim_abandoned,
}
