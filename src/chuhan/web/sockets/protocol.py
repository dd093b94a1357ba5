"""The websocket protocol's message checking (see ``docs/web-protocol.md``): every client
message is parsed and checked here before the game room sees it, so a room only ever gets a
JSON object of a known type with fields of the right types.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ACTIONS",
    "MAX_CHAT_CHARS",
    "MAX_MESSAGE_BYTES",
    "MAX_NAME_CHARS",
    "PROTOCOL_VERSION",
    "Check",
    "ClientMessage",
    "ProtocolError",
    "TokenBucket",
    "chat_text",
    "clean_text",
    "parse_client_message",
]

PROTOCOL_VERSION = 2
MAX_MESSAGE_BYTES = 4096
MAX_CHAT_CHARS = 300
MAX_NAME_CHARS = 40
_MAX_SEQ = 2**53

_SQUARE = re.compile(r"^[a-i][0-9]$")
_SIDES = ("first", "second")


class ProtocolError(Exception):
    """A message the server rejects: ``code`` for programs, ``message`` for people."""

    def __init__(self, code: str, message: str, seq: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.seq = seq


def _optional_side(value: object) -> str | None:
    if value is None:
        return None
    if value not in _SIDES:
        raise ValueError("must be 'first' or 'second'")
    return str(value)


def _square(value: object) -> str:
    if not isinstance(value, str) or not _SQUARE.match(value):
        raise ValueError("must be a square name like 'h2' (files a-i, ranks 0-9)")
    return value


def _version(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < _MAX_SEQ:
        raise ValueError("must be a whole number >= 0")
    return value


def _token(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > 100:
        raise ValueError("must be a string of at most 100 characters, or null")
    return value


def _name(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError("must be a string")
    cleaned = clean_text(value)
    if len(cleaned) > MAX_NAME_CHARS:
        raise ValueError(f"is longer than {MAX_NAME_CHARS} characters")
    return cleaned or None


def _protocol(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value < 1000:
        raise ValueError("must be a protocol version number")
    return value


def _arrangement(value: object) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= 20:
        raise ValueError("must be an arrangement like '마상마상' or 'HEHE'")
    return value


class _FieldError(ValueError):
    """A field refused with a code and a sentence of its own (not ``bad_field``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def chat_text(value: object) -> str:
    """A chat line's check (any socket's chat): cleaned, not empty, at most MAX_CHAT_CHARS
    characters (longer: the code ``chat_too_long``)."""
    if not isinstance(value, str):
        raise ValueError("must be a string")
    cleaned = clean_text(value)
    if not cleaned:
        raise ValueError("is empty")
    if len(cleaned) > MAX_CHAT_CHARS:
        raise _FieldError(
            "chat_too_long",
            f"a chat message may have at most {MAX_CHAT_CHARS} characters; "
            f"this one has {len(cleaned)}",
        )
    return cleaned


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


#: A field's check: the value converted, or ``ValueError`` with the rest of a sentence.
Check = Callable[[object], object]
_Check = Check
_SIDE_FIELDS: dict[str, tuple[_Check, bool]] = {
    "version": (_version, True),
    "side": (_optional_side, False),
}

#: The fields of each client message type: ``{field: (check, required)}``.
_SCHEMAS: dict[str, dict[str, tuple[_Check, bool]]] = {
    "hello": {"token": (_token, False), "name": (_name, False), "protocol": (_protocol, False)},
    "resync": {},
    "ping": {},
    "move": {"version": (_version, True), "from": (_square, True), "to": (_square, True)},
    "pass": {"version": (_version, True)},
    "setup": {"version": (_version, True), "arrangement": (_arrangement, True)},
    "resign": _SIDE_FIELDS,
    "abort": _SIDE_FIELDS,
    "draw_offer": _SIDE_FIELDS,
    "draw_accept": _SIDE_FIELDS,
    "draw_decline": _SIDE_FIELDS,
    "takeback_request": _SIDE_FIELDS,
    "takeback_accept": _SIDE_FIELDS,
    "takeback_decline": _SIDE_FIELDS,
    "flag": {"version": (_version, False)},
    "rematch": {"version": (_version, True)},
    "chat": {"text": (chat_text, True)},
    "claim_abandoned": {"version": (_version, True), "draw": (_flag, False)},
}

#: Message types that act on the game (players only).
ACTIONS = frozenset(_SCHEMAS) - {"hello", "resync", "ping"}


@dataclass(frozen=True, slots=True)
class ClientMessage:
    """A checked client message: its type, seq and fields (converted by their checks)."""

    type: str
    seq: int
    fields: dict[str, Any]

    def get(self, name: str) -> Any:
        return self.fields.get(name)


def clean_text(text: str) -> str:
    """User text for chat and names: control characters dropped, whitespace runs collapsed,
    trimmed. (The browser renders it as text; nothing here is HTML.)"""
    kept = "".join(ch if ch.isprintable() else " " for ch in text)
    return " ".join(kept.split())


def parse_client_message(
    text: str | bytes,
    schemas: dict[str, dict[str, tuple[Check, bool]]] | None = None,
    *,
    max_bytes: int = MAX_MESSAGE_BYTES,
) -> ClientMessage:
    """Parse and check one client frame of at most ``max_bytes`` against ``schemas``
    (``{type: {field: (check, required)}}``; default: the game socket's messages). Raises
    :class:`ProtocolError`."""
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "replace"))
    if size > max_bytes:
        raise ProtocolError(
            "too_large", f"message of {size} bytes is over the {max_bytes}-byte limit"
        )
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise ProtocolError("bad_json", f"message is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise ProtocolError(
            "not_object", f"message must be a JSON object, got {type(data).__name__}"
        )
    seq_value = data.get("seq")
    seq = seq_value if isinstance(seq_value, int) and not isinstance(seq_value, bool) else None
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_field", "message has no 'type' string", seq)
    schema = (_SCHEMAS if schemas is None else schemas).get(kind)
    if schema is None:
        shown = kind[:40]
        raise ProtocolError("unknown_type", f"unknown message type {shown!r}", seq)
    if seq is None or not 0 < seq < _MAX_SEQ:
        raise ProtocolError("bad_field", f"'{kind}' needs 'seq', a whole number >= 1", seq)
    fields: dict[str, Any] = {}
    for name, (check, required) in schema.items():
        value = data.get(name)
        if value is None:
            if required:
                raise ProtocolError("bad_field", f"'{kind}' needs the field '{name}'", seq)
            fields[name] = None
            continue
        try:
            fields[name] = check(value)
        except _FieldError as error:
            raise ProtocolError(error.code, error.message, seq) from None
        except ValueError as error:
            raise ProtocolError("bad_field", f"'{kind}' field '{name}' {error}", seq) from None
    return ClientMessage(kind, seq, fields)


class TokenBucket:
    """Rate limit: ``capacity`` messages at once, refilled at ``rate`` per second."""

    def __init__(
        self,
        capacity: float = 40,
        rate: float = 20,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.capacity = capacity
        self.rate = rate
        self._now = now
        self._tokens = capacity
        self._last = now()

    def _refill(self) -> None:
        now = self._now()
        self._tokens = min(self.capacity, self._tokens + (now - self._last) * self.rate)
        self._last = now

    def take(self) -> bool:
        self._refill()
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False

    def wait(self) -> float:
        """Seconds until the next :meth:`take` can succeed (0: now)."""
        self._refill()
        return max(0.0, (1 - self._tokens) / self.rate)
