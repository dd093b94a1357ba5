"""A :class:`~chuhan.web.db.GameRow` as the stores' columns, and back (both the SQLite
and the PostgreSQL store keep structured values as JSON text)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from json.encoder import encode_basestring
from typing import Any

from chuhan.web.db import GameRow, GameUnreadable, Notice, StoredEvent
from chuhan.web.encode import dumps as _ENCODE

__all__ = [
    "COLUMNS",
    "MUTABLE",
    "NOTICED_COLUMNS",
    "SAVED",
    "event_text",
    "game_notice",
    "game_row",
    "noticed_change",
    "saved_values",
    "seated_games",
    "values",
]


def _dump(value: Any) -> str | None:
    return None if value is None else _ENCODE(value)


def event_text(kind: str, data: dict[str, Any]) -> str:
    """An event's data as its log stores it: ``json.dumps(data, ensure_ascii=False)``; a
    move's (``{"move": ICCS}``, most of the log) is written directly."""
    if kind == "move" and len(data) == 1:
        move = data.get("move")
        if type(move) is str:
            return f'{{"move": {encode_basestring(move)}}}'
    return _ENCODE(data)


def _load(text: str | None) -> Any:
    return None if text is None else json.loads(text)


#: The columns of ``games``, in the order :meth:`SqliteStore.create_game` writes them.
COLUMNS = (
    "id",
    "kind",
    "variant",
    "rules",
    "start_fen",
    "time_control",
    "level",
    "computer_side",
    "names",
    "created",
    "updated",
    "version",
    "status",
    "setup",
    "setup_deadline",
    "moves",
    "clock",
    "clock_at",
    "offers",
    "ending",
    "result",
    "headers",
    "rematch",
    "revision",
)
#: The columns ``save_game`` rewrites after every action (besides ``names`` and
#: ``updated``; ``revision`` moves on by one, from the revision the write was made on).
MUTABLE = COLUMNS[COLUMNS.index("version") : COLUMNS.index("revision")]
#: The columns ``save_game`` writes (all of them, unless it is told which changed).
SAVED = ("names", "updated", *MUTABLE)

#: How each column written by ``save_game`` is stored (JSON text for the structured ones).
_STORED: dict[str, Callable[[GameRow], Any]] = {
    "names": lambda row: _dump(row.names),
    "updated": lambda row: row.updated,
    "version": lambda row: row.version,
    "status": lambda row: row.status,
    "setup": lambda row: _dump(row.setup),
    "setup_deadline": lambda row: row.setup_deadline,
    "moves": lambda row: " ".join(row.moves),
    "clock": lambda row: _clock_column(row),
    "clock_at": lambda row: row.clock_at,
    "offers": lambda row: _dump(row.offers),
    "ending": lambda row: _dump(row.ending),
    "result": lambda row: _dump(row.result),
    "headers": lambda row: _dump(row.headers),
    "rematch": lambda row: _dump(row.rematch),
}


def _clock_column(row: GameRow) -> str | None:
    text = row.clock_text
    return _dump(row.clock) if text is None else text


def saved_values(row: GameRow, columns: tuple[str, ...]) -> list[Any]:
    """The values of ``columns`` (of :data:`SAVED`) as :func:`values` gives them, in order."""
    return [_STORED[column](row) for column in columns]


def values(row: GameRow) -> dict[str, Any]:
    """The row as column values (JSON text for the structured ones)."""
    return {
        "id": row.id,
        "kind": row.kind,
        "variant": row.variant,
        "rules": row.rules,
        "start_fen": row.start_fen,
        "time_control": _dump(row.time_control),
        "level": row.level,
        "computer_side": row.computer_side,
        "names": _dump(row.names),
        "created": row.created,
        "updated": row.updated,
        "version": row.version,
        "status": row.status,
        "setup": _dump(row.setup),
        "setup_deadline": row.setup_deadline,
        "moves": " ".join(row.moves),
        "clock": _clock_column(row),
        "clock_at": row.clock_at,
        "offers": _dump(row.offers),
        "ending": _dump(row.ending),
        "result": _dump(row.result),
        "headers": _dump(row.headers),
        "rematch": _dump(row.rematch),
        "revision": row.revision,
    }


def game_row(found: Mapping[str, Any]) -> GameRow:
    """A stored row back as a :class:`GameRow` (raises :class:`GameUnreadable`)."""
    try:
        return GameRow(
            id=found["id"],
            kind=found["kind"],
            variant=found["variant"],
            rules=found["rules"],
            start_fen=found["start_fen"],
            time_control=_load(found["time_control"]),
            level=found["level"],
            computer_side=found["computer_side"],
            names=_load(found["names"]),
            created=found["created"],
            updated=found["updated"],
            version=found["version"],
            status=found["status"],
            setup=_load(found["setup"]),
            setup_deadline=found["setup_deadline"],
            moves=found["moves"].split() if found["moves"] else [],
            clock=_load(found["clock"]),
            clock_at=found["clock_at"],
            offers=_load(found["offers"]),
            ending=_load(found["ending"]),
            result=_load(found["result"]),
            headers=_load(found["headers"]),
            rematch=_load(found["rematch"]),
            revision=int(found["revision"]),
        )
    except (ValueError, TypeError, AttributeError, IndexError, KeyError) as error:
        raise GameUnreadable(str(found["id"]), f"a stored value is malformed ({error})") from None


def seated_games(found: Iterable[Mapping[str, Any]]) -> list[tuple[str, str, GameRow]]:
    """``(token, seat, game)`` of rows that join a seat (``seat_token``, ``seat_name``) to
    its game's columns; the games that cannot be read are logged and left out."""
    games = []
    for r in found:
        try:
            games.append((str(r["seat_token"]), str(r["seat_name"]), game_row(r)))
        except GameUnreadable as unreadable:
            logging.getLogger("chuhan.web.db").error("%s", unreadable)
    return games


#: The row's values a game notice carries (all but the moves, which follow from the
#: event, and the columns that never change).
NOTICED_COLUMNS = ("names", "updated", *(c for c in MUTABLE if c != "moves"))


def game_notice(row: GameRow, event: str, data: dict[str, Any]) -> dict[str, Any]:
    """The data of the ``game`` notice announcing that ``row`` was saved with ``event``
    (``row.revision`` is the new revision): besides the revision, the logged event as
    ``[version, at, kind, data]`` and the row's changing values (``plies``: how many moves
    it holds), so that a process holding the game at the revision before applies the
    write without reading it back (:func:`noticed_change`). The values are the row's own
    (encode the notice before the row changes again)."""
    values = {name: getattr(row, name) for name in NOTICED_COLUMNS}
    values["plies"] = len(row.moves)
    return {
        "revision": row.revision,
        "event": [row.version, row.updated, event, data],
        "row": values,
    }


def noticed_change(notice: Notice, before: GameRow) -> tuple[GameRow, StoredEvent] | None:
    """The game's row and logged event that a ``game`` notice announces, made from
    ``before``, the row at the revision just before; None when the notice does not carry
    the write (it did not fit), is not the next revision after ``before``, or does not say
    how the moves follow (the caller then reads the game with :meth:`Store.game_since`).
    Raises ``KeyError``, ``TypeError`` or ``ValueError`` on a malformed notice."""
    data = notice.data
    if int(data["revision"]) != before.revision + 1 or "event" not in data:
        return None
    version, at, kind, event_data = data["event"]
    values = dict(data["row"])
    plies = int(values.pop("plies"))
    if set(values) != set(NOTICED_COLUMNS) or not isinstance(event_data, dict):
        raise ValueError("the notice's row or event is malformed")
    if plies <= len(before.moves):  # (a takeback, or no move)
        moves = before.moves[:plies]
    elif plies == len(before.moves) + 1 and kind == "move":
        moves = [*before.moves, str(event_data["move"])]
    else:
        return None
    row = replace(before, **values, moves=moves, revision=before.revision + 1)
    return row, StoredEvent(int(version), float(at), str(kind), event_data)
