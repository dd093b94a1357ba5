"""A game's events applied to its room: the one place where what a player (or the clock,
or the computer) did changes the game.

The room's actions check who may do what and then apply the event they will store with
:func:`apply_event`; rebuilding a room after a restart applies the stored event log with the
same function (:func:`rebuild`), each event at the time it happened, so the position, the
offers, the ending and the clock come back exactly as they were. The game's row is only a
projection of this for listing games; the event log is the truth.

Events and their data (``side`` is a seat, ``first`` or ``second``):

- ``move`` ``{move}`` (ICCS; the king's square twice is a janggi pass; ``computer``),
- ``setup`` ``{side, arrangement}`` (``default`` when the deadline chose it),
- ``resign`` / ``flag`` ``{side}``: that side resigned / ran out of time,
- ``abandoned`` ``{side, draw}``: that side left a timed game and the opponent, after the
  grace period, claimed the win (or, with ``draw``, a draw),
- ``draw_offer`` ``{side}``; ``draw_agreed`` ``{side}``: that side accepted the standing
  offer (or made the crossing one); ``draw_declined`` ``{side}``: that side declined (with
  ``computer``: the computer declined the offer its opponent made in the same action),
- ``takeback_request`` ``{side}``; ``takeback`` ``{side}``: that side's request was accepted
  (with ``computer``: requested and accepted by the computer at once);
  ``takeback_declined`` ``{side}``: that side declined,
- ``rematch_offer`` ``{side}``, ``rematch`` ``{game_id, side}``; and the quiet ``create``,
  ``import``, ``name`` and ``setup_timer``, which change nothing of the game itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chuhan.errors import ChuhanError
from chuhan.squares import Move
from chuhan.variants import normalize_arrangement
from chuhan.web.db import QUIET_EVENTS, StoredEvent
from chuhan.web.round.seats import seat_of, side_of

if TYPE_CHECKING:
    from chuhan.web.round.room import Room

__all__ = ["ReplayError", "apply_event", "rebuild"]


class ReplayError(ChuhanError):
    """A stored event log that does not replay (or does not end where its row says)."""


def apply_event(room: Room, kind: str, data: dict[str, Any], at: float) -> None:
    """Apply one event to the room's game and clock at time ``at``. Raises the referee's
    :class:`~chuhan.game.GameError` (or an illegal move's error) when the event is not
    possible in the game as it stands; the game is then unchanged."""
    game, row = room.game, room.row
    side = side_of(data["side"]) if "side" in data and data["side"] in ("first", "second") else None
    if kind == "move":
        room.apply_move(Move.from_iccs(data["move"]), at)
    elif kind == "setup":
        chooser = side_of(data["side"])
        game.choose_setup(chooser, data["arrangement"])
        row.setup[data["side"]] = normalize_arrangement(data["arrangement"])
        row.setup_deadline = None
    elif kind == "resign":
        assert side is not None
        game.resign(side)
        row.ending = {"kind": "resign", "side": seat_of(side)}
        room.refresh_outcome(at)
    elif kind == "flag":
        assert side is not None
        game.flag(side)
        row.ending = {"kind": "flag", "side": seat_of(side)}
        room.refresh_outcome(at)
    elif kind == "abandoned":
        assert side is not None
        game.abandon(side, draw=bool(data.get("draw")))
        row.ending = {"kind": "abandoned", "side": seat_of(side)}
        room.refresh_outcome(at)
    elif kind == "draw_offer":
        assert side is not None
        game.offer_draw(side)
    elif kind == "draw_agreed":
        assert side is not None
        offerer = game.draw_offer
        game.accept_draw(side)  # raises unless the opponent's offer stands
        row.ending = {
            "kind": "agreement",
            "side": seat_of(not side if offerer is None else offerer),
        }
        room.refresh_outcome(at)
    elif kind == "draw_declined":
        assert side is not None
        if data.get("computer"):
            game.offer_draw(not side)
        game.decline_draw(side)
    elif kind == "takeback_request":
        assert side is not None
        game.request_takeback(side)
    elif kind == "takeback":
        assert side is not None  # the side whose move is taken back
        if data.get("computer"):
            game.request_takeback(side)
        _take_back(room, not side, at)
    elif kind == "takeback_declined":
        assert side is not None
        game.decline_takeback(side)
    elif kind == "rematch_offer":
        row.offers["rematch"] = data["side"]
    elif kind == "rematch":
        row.offers["rematch"] = None
    # name, setup_timer, create, import: what they record is in the row


def _take_back(room: Room, answerer: bool, at: float) -> None:
    taken = room.game.accept_takeback(answerer)
    room.truncate_entries(len(room.entries) - len(taken))
    clock = room.clock
    if clock is not None:
        clock.stop(at)
        if room.game.board.ply:
            clock.start(room.game.board.turn, at)
    room.refresh_outcome(at)


def rebuild(room: Room, events: list[StoredEvent]) -> None:
    """Replay a game's stored events on a fresh room (an imported record: its moves), and
    note the last one that changed the game (``room.last_event``); check that they end
    where the game's row says (its version and moves). What the row records
    beside the game (names, the setup deadline, the rematch) is kept as stored."""
    row = room.row
    recorded, row.moves = row.moves, []
    if row.kind == "imported":
        for text in recorded:
            room.apply_move(Move.from_iccs(text), row.created)
        return
    deadline, rematch = row.setup_deadline, row.offers.get("rematch")
    version = 1
    for event in events:
        try:
            apply_event(room, event.kind, event.data, event.at)
        except (ChuhanError, KeyError, TypeError, ValueError) as error:
            raise ReplayError(
                f"its event {event.kind!r} (version {event.version}) does not replay: {error}"
            ) from None
        version = event.version
        if event.kind not in QUIET_EVENTS:
            room.last_event = {"kind": event.kind, **event.data}
    row.setup_deadline, row.offers["rematch"] = deadline, rematch
    moves = [m.iccs() for m in room.game.board.move_stack]
    if version != row.version or moves != recorded:
        raise ReplayError(
            f"its events end at version {version} with {len(moves)} moves, its row at "
            f"version {row.version} with {len(recorded)}"
        )
