"""What players and watchers are shown of a game: the ``state`` message and its parts
(``docs/web-protocol.md``). The shared part is built once per change and cached by the
room; each connection adds only its clock reading and its own ``you``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from chuhan.board import Board
from chuhan.clock import Clock, TimeControl
from chuhan.errors import ChuhanError
from chuhan.game import Outcome
from chuhan.notation import to_chinese, to_korean, to_wxf
from chuhan.squares import SQUARE_NAMES, Move
from chuhan.variants import JANGGI_ARRANGEMENTS, Variant
from chuhan.web.round.seats import SEATS, seat_of, side_of

if TYPE_CHECKING:
    from chuhan.web.round.room import Room

__all__ = [
    "DEFAULT_ARRANGEMENT",
    "Snapshot",
    "clock_json",
    "default_name",
    "move_entry",
    "public_state",
    "result_dict",
    "snapshot",
    "state_text",
]

#: The arrangement taken for a janggi player who does not choose in time.
DEFAULT_ARRANGEMENT = "마상상마"


def move_entry(board: Board, move: Move) -> dict[str, Any]:
    """A move list entry in every notation (``board`` is the position before the move;
    the caller adds ``check`` after playing it)."""
    janggi = board.variant.is_janggi
    entry: dict[str, Any] = {
        "ply": board.ply + 1,
        "side": seat_of(board.turn),
        "from": SQUARE_NAMES[move.from_square],
        "to": SQUARE_NAMES[move.to_square],
        "pass": move.is_pass(),
        "iccs": move.iccs(),
    }
    for name, writer in (("wxf", to_wxf), ("chinese", to_chinese)):
        try:
            entry[name] = writer(board, move)
        except (ChuhanError, ValueError):
            entry[name] = None
    entry["korean"] = to_korean(board, move) if janggi else None
    entry["capture"] = not move.is_pass() and board.piece_at(move.to_square) != 0
    return entry


def result_dict(outcome: Outcome, variant: Variant) -> dict[str, Any]:
    return {
        "winner": None if outcome.winner is None else seat_of(outcome.winner),
        "winner_name": None if outcome.winner is None else variant.side_name(outcome.winner),
        "termination": outcome.termination.value,
        "reason": outcome.reason,
        "points": outcome.points,
        "result": outcome.result(),
    }


@dataclass
class Snapshot:
    """The shared part of the state message, built once per change."""

    head: str
    public: dict[str, Any] = field(default_factory=dict)


def default_name(room: Room, seat: str) -> str:
    if room.row.computer_side == seat:
        return f"Computer (level {room.row.level})"
    return room.variant.side_name(side_of(seat)).capitalize()


def _legal_destinations(board: Board) -> tuple[dict[str, list[str]], bool]:
    """The side to move's legal moves grouped by from-square, and whether it may pass."""
    legal: dict[str, list[str]] = {}
    can_pass = False
    for move in board.legal_moves:
        if move.is_pass():
            can_pass = True
        else:
            legal.setdefault(SQUARE_NAMES[move.from_square], []).append(
                SQUARE_NAMES[move.to_square]
            )
    return legal, can_pass


def snapshot(room: Room) -> Snapshot:
    """The shared part of the state message (cached by the room until the next change)."""
    if room.cached_snapshot is not None:
        return room.cached_snapshot
    game, board, row, variant = room.game, room.game.board, room.row, room.variant
    status = room.status
    legal, can_pass = _legal_destinations(board) if status == "playing" else ({}, False)
    last = board.peek() if board.ply else None
    pieces = [
        {
            "square": SQUARE_NAMES[sq],
            "side": seat_of(piece > 0),
            "kind": variant.piece_name(abs(piece)),
        }
        for sq, piece in sorted(board.pieces().items())
    ]
    pending = game.setup_pending
    setup = None
    if pending is not None:
        setup = {
            "chooser": seat_of(pending),
            "choices": list(JANGGI_ARRANGEMENTS),
            "chosen": dict(row.setup),
            "deadline_ms": None if row.setup_deadline is None else int(row.setup_deadline * 1000),
            "default": DEFAULT_ARRANGEMENT,
        }
    players = {
        seat: {
            "name": row.names.get(seat) or default_name(room, seat),
            "kind": "computer" if row.computer_side == seat else "human",
            "connected": room.is_connected(seat),
        }
        for seat in SEATS
    }
    offers = {
        "draw": None if game.draw_offer is None else seat_of(game.draw_offer),
        "takeback": None if game.takeback_request is None else seat_of(game.takeback_request),
        "rematch": row.offers.get("rematch"),
    }
    public: dict[str, Any] = {
        "type": "state",
        "game_id": row.id,
        "version": row.version,
        "kind": row.kind,
        "variant": variant.game,
        "rules": variant.rules,
        "side_names": {"first": variant.side_name(True), "second": variant.side_name(False)},
        "level": row.level,
        "time_control": None
        if row.time_control is None
        else TimeControl(**row.time_control).describe(),
        "players": players,
        "watchers": room.watcher_count(),
        "status": status,
        "fen": board.fen(),
        "pieces": pieces,
        "turn": seat_of(board.turn),
        "ply": board.ply,
        "legal": legal,
        "can_pass": can_pass,
        "last_move": None
        if last is None
        else {"from": SQUARE_NAMES[last.from_square], "to": SQUARE_NAMES[last.to_square]},
        "check": SQUARE_NAMES[board.king(board.turn)] if board.is_check() else None,
        "bikjang": variant.is_janggi and board.is_bikjang(),
        "thinking": status == "playing" and room.is_computer(board.turn),
        "offers": offers,
        "setup": setup,
        "result": room.result(),
        "last_event": room.last_event,
        "rematch_game": None if row.rematch is None else row.rematch["game_id"],
        "headers": row.headers,
    }
    head = json.dumps(public, ensure_ascii=False)[:-1]
    head += ',"moves":[' + ",".join(room.entries) + "]"
    room.cached_snapshot = Snapshot(head, public)
    return room.cached_snapshot


def clock_json(clock: Clock | None, now: float) -> dict[str, Any] | None:
    if clock is None:
        return None
    control = clock.control
    return {
        "control": {
            "base_ms": round(control.base * 1000),
            "increment_ms": round(control.increment * 1000),
            "periods": control.periods,
            "period_ms": round(control.period_seconds * 1000),
            "text": control.describe(),
        },
        **{
            seat: {
                "remaining_ms": round(clock.remaining(side_of(seat), now) * 1000),
                "periods": clock.periods_left(side_of(seat), now),
            }
            for seat in SEATS
        },
        "running": None if clock.running is None else seat_of(clock.running),
        "server_time_ms": round(now * 1000),
    }


def _you(room: Room, role: str | None) -> dict[str, Any]:
    role = role or "watcher"
    your_turn = False
    if role != "watcher":
        status = room.status
        if status == "playing":
            side = room.game.board.turn
            your_turn = not room.is_computer(side) and role in ("both", seat_of(side))
        elif status == "setup":
            pending = room.game.setup_pending
            your_turn = pending is not None and role in ("both", seat_of(pending))
    return {"role": role, "your_turn": your_turn}


def state_text(room: Room, role: str | None, now: float) -> str:
    """The ``state`` message for a connection in ``role``, as JSON text."""
    return (
        snapshot(room).head
        + ',"clock":'
        + json.dumps(clock_json(room.clock, now))
        + ',"you":'
        + json.dumps(_you(room, role))
        + "}"
    )


def public_state(room: Room, now: float) -> dict[str, Any]:
    """The state without ``legal`` and ``you`` (``GET /api/games/{id}``)."""
    state = dict(snapshot(room).public)
    state["moves"] = [json.loads(e) for e in room.entries]
    state["clock"] = clock_json(room.clock, now)
    del state["legal"]
    return state
