"""What the server processes hold open per key (the websockets of a client address:
``sockets address 203.0.113.9``), counted over the live processes, so that a cap holds
whatever process a connection reaches.

The ``holdings`` table (a step of :mod:`chuhan.web.db.migrations`) has a row per key and
process holding at least one: how many that process holds. Taking one (:func:`hold`)
reads the key's rows, sums those of the processes alive, and adds one to this process's
row only if the sum is under the cap, under an advisory lock on the key on PostgreSQL
(SQLite's one writer thread runs each body alone); letting one go (:func:`release`)
takes one from this process's row. One small write when a connection opens and one when
it closes, nothing per message.

A process that stops cleanly deletes its rows (:meth:`Holdings.close`); the rows of a
process that was killed are ignored as soon as it is not alive
(:meth:`~chuhan.web.db.Store.live_servers`, the beat's test; the set is asked at most once
a second per process) and deleted by the next process that starts. This module knows no
feature: the features name their keys and caps."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from chuhan.web.db import Store
from chuhan.web.db.errors import StoreError
from chuhan.web.db.statements import All, Body, Do, Lock

__all__ = ["ALIVE_SECONDS", "Holdings", "forget_server", "forget_servers", "hold", "release"]

log = logging.getLogger("chuhan.web.db")

#: How long a process uses the set of live processes it last asked the store for.
ALIVE_SECONDS = 1.0

HELD = "SELECT server_id, held FROM holdings WHERE key = ?"
HOLD = (
    "INSERT INTO holdings (key, server_id, held) VALUES (?, ?, 1) "
    "ON CONFLICT (key, server_id) DO UPDATE SET held = holdings.held + 1"
)
RELEASE = "UPDATE holdings SET held = held - 1 WHERE key = ? AND server_id = ?"
RELEASED = "DELETE FROM holdings WHERE key = ? AND server_id = ? AND held <= 0"
HOLDERS = "SELECT DISTINCT server_id FROM holdings"
FORGET_SERVER = "DELETE FROM holdings WHERE server_id = ?"


def hold(key: str, server_id: str, most: int, alive: set[str]) -> Body[int | None]:
    """Take one of ``key``'s ``most`` for ``server_id``: None if taken, else how many the
    live processes (``alive``, and ``server_id``) hold already (nothing is written)."""
    yield Lock(f"holding {key}")
    rows = yield All(HELD, (key,))
    holders = alive | {server_id}
    count = sum(int(row["held"]) for row in rows if row["server_id"] in holders)
    if count >= most:
        return count
    yield Do(HOLD, (key, server_id))
    return None


def release(key: str, server_id: str) -> Body[None]:
    """Give back one of ``key``'s held by ``server_id`` (its row is deleted when none is left)."""
    yield Do(RELEASE, (key, server_id))
    yield Do(RELEASED, (key, server_id))


def forget_servers(keep: set[str]) -> Body[int]:
    """Delete the rows of every process not in ``keep``; how many processes had rows."""
    holders = {str(row["server_id"]) for row in (yield All(HOLDERS))}
    gone = sorted(holders - keep)
    for server in gone:
        yield Do(FORGET_SERVER, (server,))
    return len(gone)


def forget_server(server_id: str) -> Body[None]:
    """Delete the rows of ``server_id``."""
    yield Do(FORGET_SERVER, (server_id,))


class Holdings:
    """What this process holds open in the store ``db``, counted with what the other live
    processes hold (a process is alive by the beat's test, ``takeover_seconds``)."""

    def __init__(self, db: Store, takeover_seconds: float) -> None:
        self.db = db
        self.takeover_seconds = takeover_seconds
        self._alive: set[str] = set()
        self._asked: float | None = None
        #: The holds and releases under way that nobody awaits (kept until they end).
        self._under_way: set[asyncio.Future[Any]] = set()

    async def alive(self) -> set[str]:
        """The live processes (this one among them), asked at most once a second."""
        asked = time.monotonic()
        if self._asked is None or asked - self._asked >= ALIVE_SECONDS:
            self._alive = await self.db.live_servers(self.takeover_seconds)
            self._asked = asked
        return self._alive | {self.db.server_id}

    async def hold(self, key: str, most: int) -> int | None:
        """Take one of ``key``'s ``most`` for this process: None if taken (give it back
        with :meth:`release`), else how many the live processes hold already. When the
        store fails the connection is let in uncounted (and logged): a cap is not worth
        refusing everyone while the database is away. A caller cancelled while it waits
        (its socket went away) takes nothing: what was taken for it is given back."""
        taking = asyncio.ensure_future(self._hold(key, most))
        try:
            return await asyncio.shield(taking)
        except asyncio.CancelledError:
            self._under_way.add(taking)
            taking.add_done_callback(self._under_way.discard)
            taking.add_done_callback(lambda done: self._give_back_if_taken(done, key))
            raise

    async def _hold(self, key: str, most: int) -> int | None:
        try:
            alive = await self.alive()
            body = hold(key, self.db.server_id, most, alive)
            return await self.db.write(body, "counting a connection")
        except StoreError as error:
            log.warning("cannot count a connection (let in uncounted): %s", error)
            return None

    def _give_back_if_taken(self, taking: asyncio.Future[int | None], key: str) -> None:
        if not taking.cancelled() and taking.exception() is None and taking.result() is None:
            self.release(key)

    def release(self, key: str) -> None:
        """Give back one of ``key``'s that :meth:`hold` took: written by a task of its own,
        so that a socket's end cancelled while it cleans up still gives it back
        (:meth:`close` waits for those under way)."""
        giving = asyncio.get_running_loop().create_task(self._release(key))
        self._under_way.add(giving)
        giving.add_done_callback(self._under_way.discard)

    async def _release(self, key: str) -> None:
        try:
            await self.db.write(release(key, self.db.server_id), "counting a connection closed")
        except StoreError as error:
            log.warning("cannot count a connection closed: %s", error)

    async def start(self) -> None:
        """Delete the rows of the processes not alive (a previous run's, a killed one's)."""
        try:
            alive = await self.db.live_servers(self.takeover_seconds)
            await self.db.write(forget_servers(alive | {self.db.server_id}), "forgetting holders")
        except StoreError as error:
            log.warning("cannot forget the connections of stopped servers: %s", error)

    async def close(self) -> None:
        """Delete this process's rows (it stops: what it held is closed)."""
        if self._under_way:
            await asyncio.gather(*self._under_way, return_exceptions=True)
        try:
            await self.db.write(forget_server(self.db.server_id), "forgetting this server's holds")
        except StoreError as error:
            log.warning("cannot forget this server's connections: %s", error)
