"""A websocket lives no longer than the session it was opened with.

A socket reads its session cookie when it says ``hello`` (a seat of a rated game is its
account's, a lobby connection acts as its account), and used to keep acting so for as long
as it stayed open: after a sign-out, a new password set in another browser, an account
deleted, or a session ended by the bound on an account's sessions. Now every socket that
came with a session cookie is listed here under the session's store key (the SHA-256 of the
id the cookie carries: :func:`session_key`) from the moment it opens, before its ``hello``
reads the session; when sessions end, :meth:`SessionSockets.end` sends each of their sockets
``error session_ended`` and closes it with :data:`SESSION_ENDED` (4403), a code the browser
reconnects after: its new ``hello`` carries whatever session the browser has now (none after
a sign-out: a rated seat then answers ``account_required``, the lobby takes it as a visitor).

Sessions end on one process and their sockets may be on any: the process that ends them
closes its own sockets at once and sends the others a ``session`` notice
(``{"ended": [keys]}``, :data:`SESSION_NOTICE`) through the store; each process that hears
it closes its own. A notice can be lost (a process killed between its write and its notice,
or the listening connection lost: ``resync``), and a session can expire while its socket is
open: every ``session_sweep_seconds`` (and at once after a ``resync``) each process asks the
store which of its sockets' sessions still live (one query) and closes the sockets of the
others. Listed first and checked after, a socket cannot miss the end of its session: an end
committed before its ``hello`` read the session finds no session, one committed after finds
the socket listed.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from chuhan.web.db import Notice, StoreError
from chuhan.web.sockets.connection import Connection

__all__ = [
    "SESSION_ENDED",
    "SESSION_NOTICE",
    "SessionSockets",
    "cookie_session_key",
    "session_key",
]

log = logging.getLogger("chuhan.web")

#: The close code of a socket whose session ended (the browser reconnects after it).
SESSION_ENDED = 4403
#: The kind of the notice that tells the other processes which sessions ended.
SESSION_NOTICE = "session"
#: Keys one notice carries at most (a notice's payload is under 8000 bytes; more go in
#: several notices).
KEYS_PER_NOTICE = 60


def session_key(session_id: str) -> str:
    """What the store keeps of a session id: its SHA-256."""
    return hashlib.sha256(session_id.encode()).hexdigest()


def cookie_session_key(cookie: str | None) -> str | None:
    """The store key of the session a cookie value names (``id.signature``), or None. The
    signature is not checked here: a socket is only ever closed by its key, and the session
    itself is read (and its signature checked) where it is used."""
    if not cookie or len(cookie) > 200 or cookie.count(".") != 1:
        return None
    return session_key(cookie.split(".", 1)[0])


class SessionSockets:
    """This process's websockets by the session they were opened with."""

    def __init__(self) -> None:
        self._sockets: dict[str, set[Connection]] = {}
        self._sweeping: asyncio.Task[None] | None = None
        self._sweep_now: asyncio.Event | None = None

    def add(self, conn: Connection) -> None:
        """List a socket under the session of the cookie it came with (if it came with
        one). Call it before anything reads the session."""
        key = cookie_session_key(conn.session_cookie)
        if key is not None:
            conn.session_key = key
            self._sockets.setdefault(key, set()).add(conn)

    def discard(self, conn: Connection) -> None:
        key = conn.session_key
        if key is None:
            return
        sockets = self._sockets.get(key)
        if sockets is not None:
            sockets.discard(conn)
            if not sockets:
                del self._sockets[key]

    def keys(self) -> list[str]:
        """The store keys of the sessions this process has sockets of (open now)."""
        return list(self._sockets)

    def count(self) -> int:
        """The sockets listed (for tests and the log)."""
        return sum(len(sockets) for sockets in self._sockets.values())

    def end(self, keys: Iterable[str]) -> int:
        """The sessions ``keys`` ended: each of their sockets here is told and closed
        (:data:`SESSION_ENDED`). Returns how many."""
        closed = 0
        for key in keys:
            for conn in self._sockets.pop(key, set()):
                conn.session_key = None
                conn.send(
                    {
                        "type": "error",
                        "code": "session_ended",
                        "message": "your session ended (signed out, a new password, or "
                        "signed in on too many browsers); reconnecting",
                    }
                )
                conn.close(SESSION_ENDED)
                closed += 1
        return closed

    def hear(self, notice: Notice) -> None:
        """A notice from another process: sessions ended there (``session``), or notices
        may have been missed (``resync``: the store is asked at once)."""
        if notice.kind == "resync":
            if self._sweep_now is not None:
                self._sweep_now.set()
            return
        ended = notice.data.get("ended")
        if isinstance(ended, list):
            self.end(str(key) for key in ended)

    @staticmethod
    def notices(keys: list[str]) -> list[dict[str, Any]]:
        """The data of the notices that tell the other processes ``keys`` ended."""
        return [
            {"ended": keys[start : start + KEYS_PER_NOTICE]}
            for start in range(0, len(keys), KEYS_PER_NOTICE)
        ]

    # ------------------------------------------------------------------ the sweep

    def start(self, live: Callable[[list[str]], Awaitable[set[str]]], every_seconds: float) -> None:
        """Every ``every_seconds`` (and after a ``resync``), close the sockets whose
        sessions ``live(keys)`` (the keys of sessions that exist and have not expired) no
        longer lists."""
        self._sweep_now = asyncio.Event()
        self._sweeping = asyncio.get_running_loop().create_task(
            self._sweep_forever(live, every_seconds)
        )

    async def _sweep_forever(
        self, live: Callable[[list[str]], Awaitable[set[str]]], every_seconds: float
    ) -> None:
        assert self._sweep_now is not None
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._sweep_now.wait(), every_seconds)
            self._sweep_now.clear()
            try:
                await self.sweep(live)
            except Exception:  # a sweep that fails must not stop the next one
                log.exception("a sweep of the sockets' sessions failed")

    async def sweep(self, live: Callable[[list[str]], Awaitable[set[str]]]) -> int:
        """Close the sockets of sessions that no longer live; how many."""
        keys = list(self._sockets)
        if not keys:
            return 0
        try:
            alive = await live(keys)
        except StoreError as error:
            log.warning("cannot check the sockets' sessions: %s", error)
            return 0
        return self.end(key for key in keys if key not in alive)

    def close(self) -> None:
        if self._sweeping is not None:
            self._sweeping.cancel()
            self._sweeping = None
