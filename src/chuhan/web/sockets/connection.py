"""One websocket as a game room sees it, and its outbox.

The outbox holds the frames waiting for the connection's writer task, in order. Two kinds
of entry are *coalesced*: the game ``state`` and the ``presence`` update are queued as
markers and rendered only when the writer reaches them, so a client that reads slowly
gets the newest state (skipping versions it would only have thrown away) instead of a
growing backlog, and is never disconnected for being slow. Every other frame (acks,
errors, chat, welcome) is queued as text; chat is dropped first when a client lets too
much pile up, and a client that keeps sending while never reading is closed.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import Any

from chuhan.web.sockets.protocol import TokenBucket

__all__ = ["PRESENCE", "STATE", "Connection"]

#: Outbox markers: rendered by the writer when it reaches them.
STATE = "state"
PRESENCE = "presence"
_MARKERS = (STATE, PRESENCE)

#: ``json.dumps(message, ensure_ascii=False)`` without making an encoder per message.
_encode = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode


class Connection:
    """One websocket, whatever it serves: its last seq, its rate limit (and how many more
    dropped messages it may have), the session it came with, and its outbox. Each feature
    adds what it keeps of the socket in a subclass (the game's: round/connection.py)."""

    #: Text frames queued beyond this: chat is dropped, then the connection is closed.
    MAX_QUEUE = 256

    def __init__(self, bucket: TokenBucket, patience: TokenBucket, address: str = "") -> None:
        #: The session cookie the websocket came with (chuhan.web.accounts.service), if any,
        #: and the store key of its session while the socket is listed under it
        #: (:mod:`chuhan.web.sockets.sessions`: the socket is closed when it ends).
        self.session_cookie: str | None = None
        self.session_key: str | None = None
        self.address = address
        self.last_seq = 0
        self.bucket = bucket
        #: One token per message the rate limit may drop before the connection is closed.
        self.patience = patience
        self._outbox: deque[tuple[str, str | None]] = deque()  # (kind, text)
        self._texts = 0
        self._ready = asyncio.Event()
        self.overflowed = False
        self.closing = False
        self.close_code = 1000

    # ------------------------------------------------------------------ queueing

    def push(self, text: str, *, droppable: bool = False) -> None:
        """Queue a text frame. ``droppable`` frames (chat) are the first to go when the
        client lets its outbox fill up."""
        if self.closing:
            return
        if self._texts >= self.MAX_QUEUE and not self._drop_one():
            if droppable:
                return
            self.overflowed = True  # it sends but never reads
            self.close(1008)
            return
        self._outbox.append(("chat" if droppable else "text", text))
        self._texts += 1
        self._ready.set()

    def _drop_one(self) -> bool:
        for index, (kind, _) in enumerate(self._outbox):
            if kind == "chat":
                del self._outbox[index]
                self._texts -= 1
                return True
        return False

    def send(self, message: dict[str, Any], *, droppable: bool = False) -> None:
        self.push(_encode(message), droppable=droppable)

    def mark(self, marker: str) -> None:
        """Queue the newest ``state`` or ``presence``: one marker of a kind at a time, moved
        to the end when other frames were queued after it (every ack or error is followed
        by a state at least as new)."""
        if self.closing:
            return
        outbox = self._outbox
        if outbox and outbox[-1][0] == marker:
            return
        if (marker, None) in outbox:
            outbox.remove((marker, None))
        outbox.append((marker, None))
        self._ready.set()

    def close(self, code: int = 1000) -> None:
        """Close after the frames already queued (idempotent)."""
        if self.closing:
            return
        self.closing = True
        self.close_code = code
        self._outbox.append(("close", None))
        self._ready.set()

    # ------------------------------------------------------------------ the writer

    async def frames(self, render: Callable[[str], str | None]) -> AsyncIterator[str]:
        """Yield the frames to send, in order, rendering markers with ``render(marker)``
        (None skips one); ends after the close entry."""
        while True:
            await self._ready.wait()
            while self._outbox:
                kind, text = self._outbox.popleft()
                if kind == "close":
                    return
                if kind in _MARKERS:
                    text = render(kind)
                    if text is None:
                        continue
                else:
                    self._texts -= 1
                assert text is not None
                yield text
            self._ready.clear()
