"""A live game as one value: :class:`RoundState`, the events that change it
(:func:`evolve`), the stored log replayed into it (:func:`replay`) and the row stored for it
(:func:`row_of`).

What a player (or the clock, or the computer) may do is decided by
:func:`chuhan.web.round.rules.decide`, which reads a state and returns the events to store;
the room stores them and then applies them here with :func:`evolve`, the same function that
replays the event log when a room is rebuilt (each event at the time it happened, so the
position, the offers, the ending and the clock come back exactly as they were). The
``games`` row is computed from the state (:func:`row_of`): a projection for listing games;
the event log is the truth.

**Linear use.** :class:`~chuhan.game.Game` and :class:`~chuhan.clock.Clock` are mutable, and
copying a game per move would cost more than the move. :func:`evolve` therefore advances the
state's game and clock *in place* and returns a new state sharing them: the state it was
given must not be used afterwards (the room replaces its state with the result, or rebuilds
it from the store when a save fails). Everything else in a state is never changed after it
is made (the entries and moves are tuples, the dicts are copied when they change), and
:func:`~chuhan.web.round.rules.decide` only reads.

Events and their data (``side`` is a seat, ``first`` or ``second``):

- ``move`` ``{move}`` (ICCS; the king's square twice is a janggi pass; ``computer``),
- ``setup`` ``{side, arrangement}`` (``default`` when the deadline chose it),
- ``resign`` / ``flag`` ``{side}``: that side resigned / ran out of time,
- ``abandoned`` ``{side, draw}``: that side left a timed game and the opponent, after the
  grace period, claimed the win (or, with ``draw``, a draw),
- ``abort`` ``{side, no_start}``: that side called the game off before its first move
  (with ``no_start``: that side did not make its first move in time, and the opponent
  called it off), no one winning,
- ``draw_offer`` ``{side}``; ``draw_agreed`` ``{side}``: that side accepted the standing
  offer (or made the crossing one); ``draw_declined`` ``{side}``: that side declined (with
  ``computer``: the computer declined the offer its opponent made in the same action),
- ``takeback_request`` ``{side}``; ``takeback`` ``{side}``: that side's request was accepted
  (with ``computer``: requested and accepted by the computer at once);
  ``takeback_declined`` ``{side}``: that side declined,
- ``rematch_offer`` ``{side}``, ``rematch`` ``{game_id, side}``; and the quiet ``create``,
  ``import``, ``name`` ``{seat, name}`` and ``setup_timer`` ``{side}``, which change nothing
  of the game itself (and not its version).
"""

from __future__ import annotations

import logging
from typing import Any, NamedTuple

from chuhan.clock import Clock, TimeControl
from chuhan.errors import ChuhanError
from chuhan.game import Game, Outcome
from chuhan.squares import Move
from chuhan.variants import Variant, get_variant, normalize_arrangement
from chuhan.web.db import QUIET_EVENTS, GameRow, StoredEvent
from chuhan.web.round.seats import seat_of, side_of
from chuhan.web.round.view import move_entry, result_dict
from chuhan.web.sockets.protocol import ProtocolError

__all__ = [
    "QUIET_MOVE_CHANGES",
    "ROW_CHANGES",
    "Event",
    "Overtaken",
    "ReplayError",
    "RoundState",
    "evolve",
    "new_state",
    "offer_stands",
    "parse_iccs",
    "replay",
    "row_changes",
    "row_of",
]

log = logging.getLogger("chuhan.web")


class ReplayError(ChuhanError):
    """A stored event log that does not replay (or does not end where its row says)."""


class Overtaken(ProtocolError):
    """(``stale_version``) another server process wrote the game first; the room was
    rebuilt from the store. (Here, compiled with :class:`ProtocolError`: a compiled
    exception's ``__init__`` refuses an instance of a class the interpreter made.)"""


class Event(NamedTuple):
    """One thing that happened to a game: what its log stores (``kind``, ``data``) and
    when (``at``, the server's clock)."""

    kind: str
    data: dict[str, Any]
    at: float


class RoundState(NamedTuple):
    """Everything the server knows of one live game, as one value (see the module's note
    on linear use). A named tuple: a state is made at every event, and ``_replace`` makes
    one several times faster than a frozen dataclass's ``replace``."""

    id: str
    kind: str
    variant: Variant
    start_fen: str | None
    time_control: dict[str, Any] | None
    level: int | None
    computer_side: str | None
    created: float
    #: The game and its clock, advanced in place by :func:`evolve`.
    game: Game
    clock: Clock | None
    #: The seats' names, the janggi arrangements chosen (by seat) and an imported record's
    #: headers (never changed in place: a change makes a new dict).
    names: dict[str, str]
    setup: dict[str, str]
    headers: dict[str, str]
    #: How long a janggi chooser has once present, and a player must be gone before the
    #: opponent may claim the game (seconds: the server's settings).
    setup_seconds: float = 0.0
    abandon_seconds: float = 0.0
    #: How long a player has to make a first move once the opponent has made theirs
    #: before the opponent may abort the game (seconds: the server's setting).
    first_move_seconds: float = 0.0
    #: The move list entries as JSON texts, and the moves in ICCS.
    entries: tuple[str, ...] = ()
    moves: tuple[str, ...] = ()
    #: The referee's verdict once the game is over.
    outcome: Outcome | None = None
    #: The last event that changed the game (what ``state.last_event`` shows).
    last_event: dict[str, Any] | None = None
    setup_deadline: float | None = None
    #: The seat offering a rematch, and the rematch once started (its game and links).
    rematch_offer: str | None = None
    rematch: dict[str, Any] | None = None
    #: How the game ended by an event (resignation, flag, agreement, abandonment).
    ending: dict[str, Any] | None = None
    #: An imported record's result, as it was given.
    recorded_result: dict[str, Any] | None = None
    #: When the last move was played (None before the first).
    moved_at: float | None = None
    #: 1 + the events that changed the game; the events in its log (see
    #: :attr:`~chuhan.web.db.GameRow.revision`); the time of the last write.
    version: int = 1
    revision: int = 0
    updated: float = 0.0

    def replace(self, **changes: Any) -> RoundState:
        """The state with ``changes`` (fields by name): ``_replace``, at a fraction of its
        cost (which pops every field's name from the changes)."""
        values = list(self)
        for name, value in changes.items():
            values[_FIELD_INDEX[name]] = value
        return RoundState._make(values)

    @property
    def status(self) -> str:
        if self.outcome is not None or self.kind == "imported":
            return "over"
        if self.game.setup_pending is not None:
            return "setup"
        return "playing"

    def result(self) -> dict[str, Any] | None:
        if self.outcome is not None:
            return result_dict(self.outcome, self.variant)
        return self.recorded_result  # imported records keep the result they were given

    def is_computer(self, side: bool) -> bool:
        return self.computer_side == seat_of(side)

    def has_moved(self, side: bool) -> bool:
        """Whether ``side`` has made a move in the game (a janggi pass is one)."""
        board = self.game.board
        ply = board.ply
        first_mover = board.turn if ply % 2 == 0 else not board.turn
        return ply >= (1 if side == first_mover else 2)

    def abortable(self) -> list[str]:
        """The seats that may abort the game now: the players who have not moved yet (as
        on lichess, a game is called off before it starts, not lost)."""
        if self.game.board.ply >= 2 or self.status == "over":  # (both have moved)
            return []
        return [seat_of(side) for side in (True, False) if not self.has_moved(side)]

    def first_move_deadline(self) -> float | None:
        """When the side to move, which has not made a first move while the opponent has,
        runs out of time for it (the opponent may abort the game from then on), or None."""
        if self.moved_at is None or self.game.board.ply >= 2 or self.status != "playing":
            return None  # (from the second ply on, both sides have moved)
        if self.clock is not None and self.clock.control.days:
            return None  # (correspondence: the first move has the clock's days)
        turn = self.game.board.turn
        if self.has_moved(turn) or not self.has_moved(not turn) or self.is_computer(turn):
            return None
        return self.moved_at + self.first_move_seconds


#: Each of :class:`RoundState`'s fields' place in it.
_FIELD_INDEX = {name: index for index, name in enumerate(RoundState._fields)}


def new_state(
    row: GameRow,
    *,
    setup_seconds: float = 0.0,
    abandon_seconds: float = 0.0,
    first_move_seconds: float = 0.0,
) -> RoundState:
    """The state of ``row``'s game before any event: its start position and full clock."""
    variant = get_variant(row.variant, row.rules)
    control = row.time_control
    return RoundState(
        id=row.id,
        kind=row.kind,
        variant=variant,
        start_fen=row.start_fen,
        time_control=control,
        level=row.level,
        computer_side=row.computer_side,
        created=row.created,
        game=Game.new(variant, fen=row.start_fen),
        clock=None if control is None else Clock(TimeControl(**control)),
        setup_seconds=setup_seconds,
        abandon_seconds=abandon_seconds,
        first_move_seconds=first_move_seconds,
        names=dict(row.names),
        setup={},
        headers=row.headers,
        recorded_result=row.result if row.kind == "imported" else None,
        updated=row.created,
    )


#: Moves by their ICCS text (each move's text is read by the rules and again when it is
#: played); only texts as :meth:`~chuhan.squares.Move.iccs` writes them, so at most 90 × 90.
_MOVES: dict[str, Move] = {}


def parse_iccs(text: str) -> Move:
    """``Move.from_iccs(text)``, made once per move text (raises its
    :class:`~chuhan.errors.InvalidMoveError`)."""
    move = _MOVES.get(text)
    if move is None:
        move = Move.from_iccs(text)
        if move.iccs() == text:
            _MOVES[text] = move
    return move


def _played(state: RoundState, move: Move, at: float) -> dict[str, Any]:
    """Play ``move`` on the state's game and clock: the fields of the state it changes."""
    game = state.game
    board = game.board
    game.push(move)  # the referee's check (raises its error, naming why; nothing changes)
    # The entry is written from the position before the move, taken back for it on the
    # board alone (the game's offers and verdict are the position's after the move).
    code = board.pop_code()
    try:
        entry = move_entry(board, move)
    finally:
        board.push_code(code)
    clock = state.clock
    if clock is not None:
        if clock.running is None:
            clock.start(board.turn, at)
        else:
            clock.press(at)
    return {
        "entries": (*state.entries, entry),
        "moves": (*state.moves, move.iccs()),
        "outcome": _ended(state, at),
        "moved_at": at,
    }


def _ended(state: RoundState, at: float) -> Outcome | None:
    """The referee's verdict now; an ending stops the clock."""
    outcome = state.game.outcome()
    if outcome is not None and state.clock is not None:
        state.clock.stop(at)
    return outcome


def _ending(state: RoundState, kind: str, side: bool, at: float) -> dict[str, Any]:
    return {
        "ending": {"kind": kind, "side": seat_of(side)},
        "outcome": _ended(state, at),
    }


def evolve(state: RoundState, event: Event) -> RoundState:
    """The state after ``event`` (advancing the game and clock in place: ``state`` must
    not be used afterwards). Raises the referee's :class:`~chuhan.game.GameError` (or an
    illegal move's error) when the event is not possible in the game as it stands; the
    game is then unchanged."""
    kind, data, at = event
    game = state.game
    seat = data.get("side")
    side = side_of(seat) if seat in ("first", "second") else None
    changes: dict[str, Any]
    if kind == "move":
        changes = _played(state, parse_iccs(data["move"]), at)
    elif kind == "setup":
        game.choose_setup(side_of(data["side"]), data["arrangement"])
        chosen = {
            **state.setup,
            data["side"]: normalize_arrangement(data["arrangement"]),
        }
        changes = {"setup": chosen, "setup_deadline": None}
    elif kind == "resign":
        assert side is not None
        game.resign(side)
        changes = _ending(state, "resign", side, at)
    elif kind == "flag":
        assert side is not None
        game.flag(side)
        changes = _ending(state, "flag", side, at)
    elif kind == "abandoned":
        assert side is not None
        game.abandon(side, draw=bool(data.get("draw")))
        changes = _ending(state, "abandoned", side, at)
    elif kind == "abort":
        assert side is not None
        game.abort(side, no_start=bool(data.get("no_start")))
        changes = _ending(state, "abort", side, at)
    elif kind == "draw_offer":
        assert side is not None
        game.offer_draw(side)
        changes = {}
    elif kind == "draw_agreed":
        assert side is not None
        offerer = game.draw_offer
        game.accept_draw(side)  # raises unless the opponent's offer stands
        changes = _ending(state, "agreement", not side if offerer is None else offerer, at)
    elif kind == "draw_declined":
        assert side is not None
        if data.get("computer"):
            game.offer_draw(not side)
        game.decline_draw(side)
        changes = {}
    elif kind == "takeback_request":
        assert side is not None
        game.request_takeback(side)
        changes = {}
    elif kind == "takeback":
        assert side is not None  # the side whose move is taken back
        if data.get("computer"):
            game.request_takeback(side)
        changes = _taken_back(state, not side, at)
    elif kind == "takeback_declined":
        assert side is not None
        game.decline_takeback(side)
        changes = {}
    elif kind == "rematch_offer":
        changes = {"rematch_offer": data["side"]}
    elif kind == "rematch":
        changes = {"rematch_offer": None}
    elif kind == "name":  # (the row has the names: a log replayed takes them from it)
        seat, name = data.get("seat"), data.get("name")
        named = isinstance(seat, str) and isinstance(name, str)
        changes = {"names": {**state.names, seat: name}} if named else {}
    elif kind == "setup_timer":
        changes = {"setup_deadline": at + state.setup_seconds}
    elif kind == "berserk":  # (an arena player's, checked by the tournament: see berserk_event)
        assert side is not None and state.clock is not None
        state.clock.berserk(side)
        changes = {}
    elif kind == "vacation":  # (a correspondence player's: see vacation_event)
        assert side is not None and state.clock is not None
        until = data.get("until")
        state.clock.vacation(side, None if until is None else float(until), at)
        changes = {}
    else:  # create, import: what they record is in the row
        changes = {}
    if kind not in QUIET_EVENTS:
        changes["version"] = state.version + 1
        changes["last_event"] = {"kind": kind, **data}
    return state.replace(updated=at, **changes)


def _taken_back(state: RoundState, answerer: bool, at: float) -> dict[str, Any]:
    game = state.game
    taken = len(game.accept_takeback(answerer))
    clock = state.clock
    if clock is not None:
        clock.stop(at)
        if game.board.ply:
            clock.start(game.board.turn, at)
    return {
        "entries": state.entries[: len(state.entries) - taken],
        "moves": state.moves[: len(state.moves) - taken],
        "outcome": _ended(state, at),
    }


def adopt(state: RoundState, row: GameRow) -> RoundState:
    """``state`` with what the row records beside the game's events (names, the setup
    deadline, the rematch), and the row's version, revision and time."""
    return state.replace(
        names=dict(row.names),
        setup_deadline=row.setup_deadline,
        rematch_offer=row.offers.get("rematch"),
        rematch=row.rematch,
        version=row.version,
        revision=row.revision,
        updated=row.updated,
    )


def replay(
    row: GameRow,
    events: list[StoredEvent],
    *,
    setup_seconds: float = 0.0,
    abandon_seconds: float = 0.0,
    first_move_seconds: float = 0.0,
) -> RoundState:
    """A stored game's state: its event log replayed (an imported record: its moves),
    checked to end where its row says (its version and moves). What the row records beside
    the game (names, the setup deadline, the rematch) is taken as stored."""
    state = new_state(
        row,
        setup_seconds=setup_seconds,
        abandon_seconds=abandon_seconds,
        first_move_seconds=first_move_seconds,
    )
    if row.kind == "imported":
        # An imported record is shown as far as the referee lets it be played: a record
        # stored before the import stopped at the referee's end (a repetition, say) opens
        # with its moves up to that end instead of not at all.
        for ply, text in enumerate(row.moves):
            try:
                if state.game.outcome() is not None:
                    raise ChuhanError(f"the game ended after ply {ply}")
                state = state.replace(**_played(state, parse_iccs(text), row.created))
            except ChuhanError as error:
                log.warning(
                    "imported game %s is shown up to ply %d of its %d: %s",
                    row.id,
                    ply,
                    len(row.moves),
                    error,
                )
                break
        return adopt(state, row).replace(ending=row.ending)
    version = 1
    for event in events:
        try:
            state = evolve(state, Event(event.kind, event.data, event.at))
        except (ChuhanError, KeyError, TypeError, ValueError) as error:
            raise ReplayError(
                f"its event {event.kind!r} (version {event.version}) does not replay: {error}"
            ) from None
        version = event.version
    if version != row.version or list(state.moves) != row.moves:
        raise ReplayError(
            f"its events end at version {version} with {len(state.moves)} moves, its row at "
            f"version {row.version} with {len(row.moves)}"
        )
    return adopt(state, row)


#: The stored row's columns that an event of each kind may change (kinds not here may
#: change any): a move changes neither the names, the setup and its deadline, the headers,
#: the rematch nor an ending by an event, so its write leaves them as they are stored.
ROW_CHANGES: dict[str, frozenset[str]] = {
    "move": frozenset(
        ("updated", "version", "status", "moves", "clock", "clock_at", "offers", "result")
    ),
}
#: The columns most moves change: those of a move that neither ends the game nor lets an
#: offer lapse (no offer stood before it), so its status, offers and result stay as stored.
QUIET_MOVE_CHANGES = frozenset(("updated", "version", "moves", "clock", "clock_at"))


def offer_stands(state: RoundState) -> bool:
    """Whether a draw offer or a takeback request stands in the state (read it before
    :func:`evolve`, for :func:`row_changes`)."""
    game = state.game
    return game.draw_offer is not None or game.takeback_request is not None


def row_changes(kind: str, offered: bool, after: RoundState) -> frozenset[str] | None:
    """The stored row's columns an event of ``kind`` changed (None: any may have), told
    whether an offer stood before it (:func:`offer_stands`) and given the state after it."""
    if kind == "move" and not offered and after.outcome is None:
        return QUIET_MOVE_CHANGES
    return ROW_CHANGES.get(kind)


def row_of(state: RoundState) -> GameRow:
    """The ``games`` row of the state: what is stored for listing games (and written with
    each event)."""
    game, clock = state.game, state.clock
    stored_clock, clock_text = (None, None) if clock is None else clock.stored(state.updated)
    row = GameRow(
        id=state.id,
        kind=state.kind,
        variant=state.variant.game,
        rules=state.variant.rules,
        start_fen=state.start_fen,
        time_control=state.time_control,
        level=state.level,
        computer_side=state.computer_side,
        names=dict(state.names),
        created=state.created,
        updated=state.updated,
        version=state.version,
        status=state.status,
        setup=dict(state.setup),
        setup_deadline=state.setup_deadline,
        moves=list(state.moves),
        clock=stored_clock,
        clock_at=None if clock is None else state.updated,
        offers={
            "draw": None if game.draw_offer is None else seat_of(game.draw_offer),
            "takeback": None if game.takeback_request is None else seat_of(game.takeback_request),
            "rematch": state.rematch_offer,
        },
        ending=state.ending,
        result=state.result(),
        headers=state.headers,
        rematch=state.rematch,
        revision=state.revision,
    )
    row.clock_text = clock_text
    return row
