"""One websocket as a game room sees it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from chuhan.web.protocol import TokenBucket
from chuhan.web.round.seats import seat_of

__all__ = ["Connection"]


class Connection:
    """One websocket as the room sees it: its role, its last seq, its rate limit (and how
    many more dropped messages it may have) and a queue of outgoing frames (a writer task
    drains it, so a slow client never blocks a broadcast)."""

    #: Frames queued beyond this mean the client does not read: it is disconnected.
    MAX_QUEUE = 256

    def __init__(self, bucket: TokenBucket, patience: TokenBucket) -> None:
        self.role: str | None = None  # first | second | both | watcher, after hello
        self.token: str | None = None
        self.last_seq = 0
        self.bucket = bucket
        #: One token per message the rate limit may drop before the connection is closed.
        self.patience = patience
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.overflowed = False
        self.closing = False
        self.close_code = 1000

    def push(self, text: str) -> None:
        if self.closing:
            return
        if self.queue.qsize() >= self.MAX_QUEUE:
            self.overflowed = True
            self.close(1008)
            return
        self.queue.put_nowait(text)

    def send(self, message: dict[str, Any]) -> None:
        self.push(json.dumps(message, ensure_ascii=False))

    def close(self, code: int = 1000) -> None:
        """Close after the frames already queued (idempotent)."""
        if self.closing:
            return
        self.closing = True
        self.close_code = code
        self.queue.put_nowait(None)

    def acts_for(self, side: bool) -> bool:
        return self.role == "both" or self.role == seat_of(side)
