"""What players and watchers are shown of a game: the ``state`` and ``presence`` messages
(``docs/web-protocol.md``). The shared part is built once per stored change (a
:class:`Snapshot`); each connection's writer adds the clock reading, who is here, the move
list entries it does not have yet and its own ``you``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any

from chuhan.board import Board
from chuhan.clock import Clock, TimeControl
from chuhan.errors import ChuhanError
from chuhan.game import Game, Outcome
from chuhan.jsontext import moves_json, pieces_json
from chuhan.notation import to_chinese, to_korean, to_wxf
from chuhan.notation.chinese import simplify
from chuhan.notation.wxf import describe
from chuhan.squares import SQUARE_NAMES, Move
from chuhan.variants import JANGGI_ARRANGEMENTS, Variant
from chuhan.web.db import ChatLine
from chuhan.web.encode import dumps as _dumps
from chuhan.web.round.seats import SEATS, seat_of, side_of
from chuhan.web.sockets.protocol import MAX_NAME_CHARS

if TYPE_CHECKING:
    from chuhan.web.round.connection import GameConnection
    from chuhan.web.round.room import Room
    from chuhan.web.round.state import RoundState

__all__ = [
    "DEFAULT_ARRANGEMENT",
    "PLAYERS_AUDIENCE",
    "SPECTATORS_AUDIENCE",
    "Snapshot",
    "build_snapshot",
    "chat_audience",
    "chat_message",
    "clock_json",
    "default_name",
    "move_entry",
    "pass_endings",
    "players_text",
    "presence",
    "public_state",
    "record_name",
    "render_ack",
    "render_presence",
    "render_state",
    "result_dict",
]

#: The arrangement taken for a janggi player who does not choose in time.
DEFAULT_ARRANGEMENT = "마상상마"

_ROLES = ("first", "second", "both", "watcher")
#: ``you`` as JSON text by role and whether it is that role's turn.
_YOU = {
    (role, turn): json.dumps({"role": role, "your_turn": turn})
    for role in _ROLES
    for turn in (False, True)
}


#: JSON's booleans, by bool.
_JSON_BOOLS = ("false", "true")


def _json_string(text: str | None) -> str:
    return "null" if text is None else encode_basestring(text)


def move_entry(board: Board, move: Move) -> str:
    """A move list entry in every notation, as JSON text (``board`` is the position before
    the move): what ``json.dumps(entry, ensure_ascii=False)`` writes, put together
    directly, since every move makes one."""
    try:  # (the two forms say the same: worked out once)
        described = describe(board, move)
        wxf = _json_string(to_wxf(board, move, described=described))
        written = to_chinese(board, move, described=described)
        chinese, simplified = _json_string(written), _json_string(simplify(written))
    except (ChuhanError, ValueError):
        wxf = chinese = simplified = "null"
    korean = _json_string(to_korean(board, move)) if board.variant.is_janggi else "null"
    passing = move.is_pass()
    capture = not passing and board.piece_code_at(move.to_square) != 0
    return (
        f'{{"ply": {board.ply + 1}, "side": "{seat_of(board.turn)}", '
        f'"from": "{SQUARE_NAMES[move.from_square]}", "to": "{SQUARE_NAMES[move.to_square]}", '
        f'"pass": {_JSON_BOOLS[passing]}, "iccs": "{move.iccs()}", "wxf": {wxf}, '
        f'"chinese": {chinese}, "chinese_simplified": {simplified}, "korean": {korean}, '
        f'"capture": {_JSON_BOOLS[capture]}, "check": {_JSON_BOOLS[board.gives_check(move)]}}}'
    )


def result_dict(outcome: Outcome, variant: Variant) -> dict[str, Any]:
    return {
        "winner": None if outcome.winner is None else seat_of(outcome.winner),
        "winner_name": None if outcome.winner is None else variant.side_name(outcome.winner),
        "termination": outcome.termination.value,
        "reason": outcome.reason,
        "points": outcome.points,
        "result": outcome.result(),
    }


@dataclass(frozen=True, slots=True)
class GameTexts:
    """What a game's ``state`` message says that never changes in the game (its id, kind,
    variant, level and time control), made once for a room and passed from snapshot to
    snapshot (:func:`build_snapshot`)."""

    #: What they were made from (they are made again for a state that differs).
    source: tuple[Any, ...]
    #: ``{"type": "state", "game_id": …`` (JSON text, without the closing brace).
    opening: str
    #: The fields from ``kind`` to ``time_control``, and the same as JSON text (each
    #: field after a comma).
    fixed: dict[str, Any]
    fixed_text: str
    #: The clock's ``control`` as JSON text (None for an untimed game).
    control_text: str | None


class Snapshot:
    """What was last stored of a game, as shown to everyone: built by the room right after
    each write (:meth:`~chuhan.web.round.room.Room.publish`) and rendered for each
    connection only when its writer gets to it, so a slow client skips to the newest.
    (A plain class, not a dataclass: compiled, a dataclass's ``__init__`` would not be;
    one is made per move.)"""

    def __init__(
        self,
        seq: int,
        head: str,
        before_values: tuple[Any, ...],
        rest_values: tuple[Any, ...],
        players: dict[str, dict[str, Any]],
        names: dict[str, str],
        entries: tuple[str, ...],
        clock: Clock | None,
        you: dict[str, str],
        placement: tuple[int, ...],
        texts: GameTexts,
        turn: bool,
        ply: int,
        headers_text: tuple[dict[str, str], str],
        _players_texts: dict[tuple[bool, bool], str] | None = None,
    ) -> None:
        #: The room's publication counter (increases with every publish).
        self.seq = seq
        #: The public state as JSON without its closing brace and without the parts
        #: rendered per connection: ``players``, ``watchers``, ``moves_from``, ``moves``,
        #: ``clock``, ``you``.
        self.head = head
        #: The values of the public state's fields before ``pieces`` and after
        #: ``premoves`` (:attr:`before` and :attr:`rest` make them dicts when asked: only
        #: a REST read does).
        self.before_values = before_values
        self.rest_values = rest_values
        #: Each seat's name and kind (``connected`` is added when rendered), and the
        #: seats' names in the state they were made from.
        self.players = players
        self.names = names
        #: The move list entries as JSON texts.
        self.entries = entries
        #: A copy of the clock as it was stored (None for an untimed game).
        self.clock = clock
        #: ``you`` as JSON text for each role (shared between snapshots: never change it).
        self.you = you
        #: The board's placement (``public["pieces"]`` is made from it when asked for).
        self.placement = placement
        #: What the game's state messages say that never changes.
        self.texts = texts
        #: The side to move and the ply.
        self.turn = turn
        self.ply = ply
        #: ``headers`` as JSON text, and the headers it was made from (the same object
        #: from snapshot to snapshot in a game: its text is made once).
        self.headers_text = headers_text
        self._tails: dict[int, str] = {}
        #: ``players`` as JSON text by who is connected (first, second) (cached; shared by
        #: the snapshots with the same ``players``).
        self._players_texts: dict[tuple[bool, bool], str] = (
            {} if _players_texts is None else _players_texts
        )
        #: The clock's JSON text as last read, and when (every connection is sent the
        #: state at once after a move: one reading serves them all).
        self._clock_read: tuple[float, str] | None = None

    @property
    def before(self) -> dict[str, Any]:
        """The public state's fields before ``pieces``."""
        game_id, version, fixed, status, fen = self.before_values
        return {
            "type": "state",
            "game_id": game_id,
            "version": version,
            **fixed,
            "status": status,
            "fen": fen,
        }

    @property
    def rest(self) -> dict[str, Any]:
        """The public state's fields after ``premoves``."""
        return dict(zip(_REST_FIELDS, self.rest_values, strict=True))

    def public(self) -> dict[str, Any]:
        """The public state as a dict, with ``players`` (REST previews), but ``pieces`` None
        and without ``legal`` and ``premoves`` (see :func:`public_state`)."""
        head = self.before
        return {
            **head,
            "pieces": None,
            "turn": seat_of(self.turn),
            "ply": self.ply,
            **self.rest,
            "players": self.players,
        }

    def moves_after(self, start: int) -> str:
        """The entries from ``start`` on, as the inside of a JSON array (cached)."""
        tail = self._tails.get(start)
        if tail is None:
            tail = self._tails[start] = ",".join(self.entries[start:])
        return tail


def default_name(state: RoundState, seat: str) -> str:
    if state.computer_side == seat:
        return f"Computer (level {state.level})"
    return state.variant.side_name(side_of(seat)).capitalize()


#: The tags that name each seat's player (xiangqi, chess-style, janggi, GIB's Korean ones).
_NAME_TAGS = {
    "first": ("Red", "White", "Cho", "초대국자"),
    "second": ("Black", "Han", "한대국자"),
}
#: Tag values that name nobody.
_NO_NAMES = frozenset(("", "?", "-", "*"))


def record_name(headers: dict[str, str], seat: str) -> str | None:
    """An imported record's name for the seat's player (``[Red "Alice"]``), if it has one."""
    for tag in _NAME_TAGS[seat]:
        name = headers.get(tag, "").strip()
        if name not in _NO_NAMES:
            return name[:MAX_NAME_CHARS]
    return None


def pass_endings(game: Game, variant: Variant) -> tuple[dict[str, Any] | None, ...]:
    """How a pass by the side to move would end the game at once (janggi: the second pass
    in a row, or a pass answering bikjang), and else how the opponent could end it by
    passing back, each as ``result`` says it, or None."""
    at_once, answered = game.pass_outcomes()
    return (
        None if at_once is None else result_dict(at_once, variant),
        None if answered is None else result_dict(answered, variant),
    )


def _legal_destinations(game: Game) -> tuple[str, bool]:
    """The side to move's legal moves grouped by from-square (in generation order), as
    JSON text, and whether it may pass."""
    codes = game.legal_move_codes()
    king = game.board.king(game.board.turn)
    can_pass = king << 7 | king in codes
    if can_pass:
        codes.remove(king << 7 | king)
    return moves_json(codes), can_pass


#: The kinds of game whose waiting player may premove (not a local game, where one person
#: plays both sides, nor an imported record).
_PREMOVE_KINDS = frozenset(("computer", "friend"))


def _premove_destinations(state: RoundState) -> str:
    """The waiting human player's candidate premoves grouped by from-square, as JSON text:
    its pieces' moves by their movement in the position as it stands (the opponent's
    coming move may make any of them illegal, or open a line that is not offered; the page
    plays the premove only if it is in ``legal`` when the turn comes)."""
    board = state.game.board
    waiting = not board.turn
    if state.kind not in _PREMOVE_KINDS or state.is_computer(waiting):
        return "{}"
    return moves_json(board.pseudo_legal_move_codes(waiting))


def _pieces(placement: tuple[int, ...], variant: Variant) -> list[dict[str, Any]]:
    """The pieces on the board by square, as ``state.pieces`` lists them."""
    return [
        {
            "square": SQUARE_NAMES[sq],
            "side": seat_of(piece > 0),
            "kind": variant.piece_name(abs(piece)),
        }
        for sq, piece in enumerate(placement)
        if piece
    ]


#: Each piece's ``state.pieces`` entry as JSON text, by game, signed piece code + 7 and
#: square (:func:`~chuhan.jsontext.pieces_json`'s table; an empty square's: none).
_PIECE_TEXTS: dict[str, list[list[str]]] = {}


def _pieces_text(placement: list[int], variant: Variant) -> str:
    """``json.dumps(_pieces(placement, variant))``, from the texts of the pieces."""
    texts = _PIECE_TEXTS.get(variant.game)
    if texts is None:
        texts = _PIECE_TEXTS[variant.game] = [
            [
                _dumps(
                    {
                        "square": name,
                        "side": seat_of(piece > 0),
                        "kind": variant.piece_name(abs(piece)),
                    }
                )
                for name in SQUARE_NAMES
            ]
            if piece
            else []
            for piece in range(-7, 8)
        ]
    return pieces_json(placement, texts)


def _game_texts(state: RoundState, previous: GameTexts | None) -> GameTexts:
    """The game's :class:`GameTexts`: ``previous`` when made from the same game."""
    variant, control = state.variant, state.time_control
    source = (state.id, state.kind, variant, state.level, control)
    if previous is not None and previous.source == source:
        return previous
    fixed = {
        "kind": state.kind,
        "variant": variant.game,
        "rules": variant.rules,
        "side_names": {
            "first": variant.side_name(True),
            "second": variant.side_name(False),
        },
        "level": state.level,
        "time_control": None if control is None else TimeControl(**control).describe(),
    }
    return GameTexts(
        source,
        _dumps({"type": "state", "game_id": state.id})[:-1],
        fixed,
        ", " + _dumps(fixed)[1:-1],
        None if control is None else json.dumps(_control_json(TimeControl(**control))),
    )


def _players(state: RoundState) -> dict[str, dict[str, Any]]:
    return {
        seat: {
            "name": state.names.get(seat)
            or record_name(state.headers, seat)
            or default_name(state, seat),
            "kind": "computer" if state.computer_side == seat else "human",
        }
        for seat in SEATS
    }


#: ``you`` as JSON text for each role, by the seat whose turn it is (None: nobody's, or
#: the computer's).
_YOU_BY_TURN = {
    turn: {role: _YOU[role, role != "watcher" and role in ("both", turn)] for role in _ROLES}
    for turn in (None, "first", "second")
}


def build_snapshot(
    state: RoundState, seq: int, now: float, previous: Snapshot | None = None
) -> Snapshot:
    """The snapshot of the game as it stands (call it right after a write); ``previous``,
    the game's snapshot before, lends what has not changed since."""
    game, board, variant = state.game, state.game.board, state.variant
    texts = _game_texts(state, None if previous is None else previous.texts)
    status = state.status
    turn = seat_of(board.turn)
    first_move = state.first_move_deadline()
    pending = game.setup_pending
    setup = None
    if status == "playing":
        legal, can_pass = _legal_destinations(game)
        premoves = _premove_destinations(state)
        pass_ends, pass_back_ends = pass_endings(game, variant) if can_pass else (None, None)
        mover = None if state.is_computer(board.turn) else turn
    else:
        legal, premoves, can_pass, pass_ends, pass_back_ends = "{}", "{}", False, None, None
        mover = seat_of(pending) if status == "setup" and pending is not None else None
    if pending is not None:
        setup = {
            "chooser": seat_of(pending),
            "choices": list(JANGGI_ARRANGEMENTS),
            "chosen": dict(state.setup),
            "deadline_ms": None
            if state.setup_deadline is None
            else int(state.setup_deadline * 1000),
            "default": DEFAULT_ARRANGEMENT,
        }
    # ``players`` (and its JSON texts) change only with the names in a game (its headers
    # and computer seat never do).
    if previous is not None and previous.names is state.names and previous.texts is texts:
        players, players_texts = previous.players, previous._players_texts
    else:
        players, players_texts = _players(state), {}
    last = board.peek() if board.ply else None
    fen = board.fen()
    before = (state.id, state.version, texts.fixed, status, fen)
    # The fields after ``legal`` and ``premoves`` (those two are only sent), in
    # :data:`_REST_FIELDS`' order.
    rest = (
        can_pass,
        pass_ends,
        pass_back_ends,
        None
        if last is None
        else {
            "from": SQUARE_NAMES[last.from_square],
            "to": SQUARE_NAMES[last.to_square],
        },
        SQUARE_NAMES[board.king(board.turn)] if board.is_check() else None,
        variant.is_janggi and board.is_bikjang(),
        status == "playing" and state.is_computer(board.turn),
        {
            "draw": None if game.draw_offer is None else seat_of(game.draw_offer),
            "takeback": None if game.takeback_request is None else seat_of(game.takeback_request),
            "rematch": state.rematch_offer,
        },
        setup,
        state.result(),
        state.abortable(),
        None if first_move is None else round(first_move * 1000),
        state.last_event,
        None if state.rematch is None else state.rematch["game_id"],
        state.headers,
    )
    # The JSON text is put together from parts: those that never change in the game are
    # made once, the pieces and the moves from texts made once per square (json.dumps of
    # the whole would cost more than the rest of a move).
    placement = board.placement
    headers = state.headers
    if previous is not None and previous.headers_text[0] is headers:
        headers_text = previous.headers_text
    else:
        headers_text = (headers, _dumps(headers))
    head = "".join(
        (
            texts.opening,
            ', "version": ',
            str(state.version),
            texts.fixed_text,
            ', "status": "',
            status,
            '", "fen": "',
            fen,
            '", "pieces": ',
            _pieces_text(placement, variant),
            ', "turn": "',
            turn,
            '", "ply": ',
            str(board.ply),
            ', "legal": ',
            legal,
            ', "premoves": ',
            premoves,
            ", ",
            _rest_text(rest, headers_text[1]),
        )
    )
    clock = None if state.clock is None else state.clock.reading(now)
    return Snapshot(
        seq,
        head,
        before,
        rest,
        players,
        state.names,
        state.entries,
        clock,
        _YOU_BY_TURN[mover],
        tuple(placement),
        texts,
        board.turn,
        board.ply,
        headers_text,
        _players_texts=players_texts,
    )


def _json_value(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False)`` for the values of a state's fields (a
    string, a number, a flag, None, or what ``json.dumps`` writes)."""
    if value is None:
        return "null"
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if kind is bool:
        return _JSON_BOOLS[value]
    if kind is int:
        return str(value)
    return _dumps(value)


def _last_event_text(event: dict[str, Any] | None) -> str:
    """``_json_value(event)`` for the state's ``last_event``: a move's (``{"kind": "move",
    "move": ICCS}``, most of them) written directly."""
    if event is not None and len(event) == 2 and event.get("kind") == "move":
        move = event.get("move")
        if type(move) is str:
            return f'{{"kind": "move", "move": {encode_basestring(move)}}}'
    return _json_value(event)


#: The names of the state's fields after ``premoves``, in their order.
_REST_FIELDS = (
    "can_pass",
    "pass_ends",
    "pass_back_ends",
    "last_move",
    "check",
    "bikjang",
    "thinking",
    "offers",
    "setup",
    "result",
    "abortable",
    "first_move_deadline_ms",
    "last_event",
    "rematch_game",
    "headers",
)


def _rest_text(rest: tuple[Any, ...], headers_text: str) -> str:
    """``_dumps(dict(zip(_REST_FIELDS, rest)))[1:-1]``: the state's fields after
    ``premoves`` as JSON text, written field by field (most are flags, None or short
    strings; ``json.dumps`` of them all cost a sixth of the move)."""
    (
        can_pass,
        pass_ends,
        pass_back_ends,
        last_move,
        check,
        bikjang,
        thinking,
        offers,
        setup,
        result,
        abortable,
        first_move_deadline_ms,
        last_event,
        rematch_game,
        _,
    ) = rest
    return "".join(
        (
            '"can_pass": ',
            _JSON_BOOLS[can_pass],
            ', "pass_ends": ',
            _json_value(pass_ends),
            ', "pass_back_ends": ',
            _json_value(pass_back_ends),
            ', "last_move": ',
            "null"
            if last_move is None
            else f'{{"from": "{last_move["from"]}", "to": "{last_move["to"]}"}}',
            ', "check": ',
            _json_value(check),
            ', "bikjang": ',
            _JSON_BOOLS[bikjang],
            ', "thinking": ',
            _JSON_BOOLS[thinking],
            ', "offers": {"draw": ',
            _json_value(offers["draw"]),
            ', "takeback": ',
            _json_value(offers["takeback"]),
            ', "rematch": ',
            _json_value(offers["rematch"]),
            '}, "setup": ',
            _json_value(setup),
            ', "result": ',
            _json_value(result),
            ', "abortable": ',
            _dumps(abortable) if abortable else "[]",
            ', "first_move_deadline_ms": ',
            _json_value(first_move_deadline_ms),
            ', "last_event": ',
            _last_event_text(last_event),
            ', "rematch_game": ',
            _json_value(rematch_game),
            ', "headers": ',
            headers_text,
        )
    )


def presence(room: Room) -> dict[str, Any]:
    """Who is here now: each seat's ``connected`` (for a player who is not, since when:
    ``left_ms``, and from when the opponent may claim the game: ``claim_ms``) and the
    number of watchers."""
    players: dict[str, dict[str, Any]] = {}
    grace = room.state.abandon_seconds
    for seat in SEATS:
        left = room.absent_since.get(seat)
        if left is None:
            players[seat] = {"connected": True}
        else:
            players[seat] = {
                "connected": False,
                "left_ms": round(left * 1000),
                "claim_ms": round((left + grace) * 1000),
            }
    return {"players": players, "watchers": room.watcher_count()}


def _players_with_presence(snap: Snapshot, live: dict[str, Any]) -> dict[str, Any]:
    return {
        seat: {**snap.players[seat], "connected": live["players"][seat]["connected"]}
        for seat in SEATS
    }


def players_text(room: Room, snap: Snapshot) -> str:
    """``players`` as JSON text, with who is connected now (cached per snapshot)."""
    connected = (room.is_connected("first"), room.is_connected("second"))
    text = snap._players_texts.get(connected)
    if text is None:
        players = snap.players
        text = snap._players_texts[connected] = _dumps(
            {
                "first": {**players["first"], "connected": connected[0]},
                "second": {**players["second"], "connected": connected[1]},
            }
        )
    return text


def _clock_text(snap: Snapshot, now: float) -> str:
    """``clock_json(snap.clock, now)`` as JSON text, the same as ``json.dumps`` of it."""
    clock = snap.clock
    if clock is None:
        return "null"
    read = snap._clock_read
    if read is not None and read[0] == now:
        return read[1]
    control = snap.texts.control_text
    running = clock.running
    text = (
        f'{{"control": {control}, '
        f'"first": {{"remaining_ms": {round(clock.remaining(True, now) * 1000)}, '
        f'"periods": {clock.periods_left(True, now)}}}, '
        f'"second": {{"remaining_ms": {round(clock.remaining(False, now) * 1000)}, '
        f'"periods": {clock.periods_left(False, now)}}}, '
        f'"running": {"null" if running is None else _SEAT_JSON[running]}, '
        f'"server_time_ms": {round(now * 1000)}}}'
    )
    snap._clock_read = (now, text)
    return text


_SEAT_JSON = {True: '"first"', False: '"second"'}


def render_state(room: Room, conn: GameConnection, now: float) -> str:
    """The ``state`` message for one connection: the newest snapshot, with only the move
    list entries the connection does not have yet (``moves_from``)."""
    snap = room.published
    start = 0
    if conn.deltas and conn.sent_seq >= 0:
        start = room.kept_entries(conn.sent_seq, conn.sent_moves)
    start = min(start, len(snap.entries))
    text = "".join(
        (
            snap.head,
            room.audience_text(snap),
            ',"moves_from":',
            str(start),
            ',"moves":[',
            snap.moves_after(start),
            '],"clock":',
            _clock_text(snap, now),
            ',"you":',
            snap.you[conn.role or "watcher"],
            "}",
        )
    )
    conn.sent_seq = snap.seq
    conn.sent_moves = len(snap.entries)
    return text


#: The chat audience of the players (both seats) and the spectators' own (a chat
#: message's ``room``, in the protocol's word; "room" here is a live game); a line's sender is
#: its seat, or ``watcher`` for a spectator's.
PLAYERS_AUDIENCE = "players"
SPECTATORS_AUDIENCE = "spectators"


def chat_audience(role: str | None) -> str:
    """The chat audience a connection of ``role`` (or a line from ``sender``) belongs to:
    the players never see the spectators' chat, nor the spectators the players' (as on
    lichess)."""
    return SPECTATORS_AUDIENCE if role in (None, "watcher") else PLAYERS_AUDIENCE


def chat_message(line: ChatLine) -> dict[str, Any]:
    """A stored chat line as the ``chat`` message."""
    return {
        "type": "chat",
        "room": chat_audience(line.sender),
        "from": line.sender,
        "name": line.name,
        "text": line.text,
        "time_ms": round(line.at * 1000),
    }


def render_ack(seq: int, version: int) -> str:
    """The ``ack`` message (as ``json.dumps`` writes it; one answers every action)."""
    return f'{{"type": "ack", "seq": {seq}, "version": {version}}}'


def render_presence(room: Room) -> str:
    return json.dumps({"type": "presence", **presence(room)})


def clock_json(clock: Clock | None, now: float) -> dict[str, Any] | None:
    if clock is None:
        return None
    return {
        "control": _control_json(clock.control),
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


def _control_json(control: TimeControl) -> dict[str, Any]:
    return {
        "base_ms": round(control.base * 1000),
        "increment_ms": round(control.increment * 1000),
        "periods": control.periods,
        "period_ms": round(control.period_seconds * 1000),
        "days": control.days,
        "text": control.describe(),
    }


def _your_turn(state: RoundState, role: str) -> bool:
    if role == "watcher":
        return False
    status = state.status
    if status == "playing":
        side = state.game.board.turn
        return not state.is_computer(side) and role in ("both", seat_of(side))
    if status == "setup":
        pending = state.game.setup_pending
        return pending is not None and role in ("both", seat_of(pending))
    return False


def public_state(room: Room, now: float) -> dict[str, Any]:
    """The state without ``legal``, ``premoves`` and ``you`` (``GET /api/games/{id}``)."""
    snap = room.published
    state = snap.public()
    state["pieces"] = _pieces(snap.placement, room.state.variant)
    state["players"] = _players_with_presence(snap, presence(room))
    state["watchers"] = room.watcher_count()
    state["moves"] = [json.loads(e) for e in snap.entries]
    state["clock"] = clock_json(snap.clock, now)
    return state
