"""Notices between the server processes that share a PostgreSQL database.

Notices go through PostgreSQL's ``LISTEN``/``NOTIFY`` on one channel (:data:`CHANNEL`),
after the writes they announce have committed, in batches: a transaction that notifies
holds a database-wide lock while it commits, so a notice in every write's own transaction
made all the processes' writes commit one at a time. A process sends one batch at a time
(what is written meanwhile goes in the next), each payload JSON
``{"origin", "notices": [[kind, game, data], ...]}`` under :data:`NOTICE_LIMIT` bytes
(PostgreSQL refuses 8000 or more): a notice too long even alone goes with empty ``data`` (a
``chat`` notice without its ``line``: receivers read the chat). A notice lost (the process
died between its write and its batch) is made up by the others' comparison of revisions
at their next beat. One connection of its own (not from the pool) listens; when it is lost a
background task connects again, backing off from 0.1 s to 2 s, and then hands the handler
a ``resync`` notice, since notices sent meanwhile are gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg  # type: ignore[import-untyped]

from chuhan.web.db import Notice, StoreError
from chuhan.web.db.pg_calls import (
    COMMAND_TIMEOUT,
    CONNECT_TIMEOUT,
    FAILURES,
    close_quietly,
)

__all__ = ["CHANNEL", "NOTICE_LIMIT", "NOTIFY", "Notices"]

log = logging.getLogger("chuhan.web.db")

#: The ``LISTEN``/``NOTIFY`` channel of every notice.
CHANNEL = "chuhan"
#: The longest notice payload sent whole, in bytes (PostgreSQL's limit is 8000).
NOTICE_LIMIT = 7900
#: How often the listening connection is checked when it is quiet, and how long a check
#: may take (a connection cut without a word, such as a network partition, is found so).
PING_SECONDS = 5.0
#: The listening connection's reconnection delays: the first, doubling up to the last.
RECONNECT_FIRST = 0.1
RECONNECT_LAST = 2.0

#: One encoder for every notice (``json.dumps`` with options makes one per call).
_ENCODE = json.JSONEncoder(ensure_ascii=False, check_circular=False, separators=(",", ":")).encode

#: The statement that sends one payload.
NOTIFY = f"SELECT pg_notify('{CHANNEL}', $1)"


class Notices:
    """One process's notices: those it sends (:meth:`announce`, in batches, each
    payload by ``send``, a pooled write of :data:`NOTIFY`) and those it hears, on a
    connection of its own to ``url`` (:meth:`start` to :meth:`close`), handed to the
    handler given to :meth:`listen`. ``is_open`` says whether batches may still go;
    ``why_not`` puts a connection's failure in words."""

    def __init__(
        self,
        url: str,
        server_id: str,
        shown: str,
        *,
        send: Callable[[str], Awaitable[None]],
        is_open: Callable[[], bool],
        why_not: Callable[[BaseException], str],
    ) -> None:
        self.url = url
        self.server_id = server_id
        self.shown = shown
        self._send = send
        self._is_open = is_open
        self._why_not = why_not
        self._payload_head = f'{{"origin":{json.dumps(server_id)},"notices":['
        #: The listening connection and the event set when it is lost.
        self._listener: tuple[Any, asyncio.Event] | None = None
        self._listening: asyncio.Task[None] | None = None
        self._handler: Callable[[Notice], None] | None = None
        #: Notices waiting to be sent, and the task sending them.
        self._outbox: list[str] = []  # notices encoded (see announce)
        self._sending: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Connect the listening connection (its failure is the caller's) and keep it
        connected from now on."""
        self._listener = await self._connect_listener()
        self._listening = asyncio.get_running_loop().create_task(
            self._keep_listening(), name=f"chuhan-listen {self.server_id}"
        )

    async def finish_sending(self) -> None:
        """Let the batch under way go, if it can (waiting a few seconds at most)."""
        if self._sending is not None and not self._sending.done():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._sending), CONNECT_TIMEOUT)

    async def close(self) -> None:
        """Stop listening and close the listening connection."""
        if self._listening is not None:
            self._listening.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listening
            self._listening = None
        if self._listener is not None:
            await close_quietly(self._listener[0])
            self._listener = None

    def announce(
        self, kind: str, game_id: str, data: dict[str, Any], *, short: dict[str, Any] | None = None
    ) -> None:
        """Queue a notice for the other processes; what is queued while a batch is being
        sent goes in the next one. (A transaction that notifies holds a lock shared by
        the whole database while it commits, so one notice per write made every write
        of every process wait in line for it: measured, two processes on this store
        topped out at about 420 moves a second with most backends waiting on that lock.
        Batches are sent after the writes commit, by a statement of their own.)

        The notice is encoded at once (its data may be the row's own values, which change
        with the next action); one that does not fit in a payload alone goes with ``short``
        instead (or empty data)."""
        item = _ENCODE([kind, game_id, data])
        if len(self._payload_head) + 2 + len(item.encode()) > NOTICE_LIMIT:
            item = _ENCODE([kind, game_id, short or {}])
        self._outbox.append(item)
        if self._sending is None or self._sending.done():
            self._sending = asyncio.get_running_loop().create_task(self._send_notices())

    async def _send_notices(self) -> None:
        while self._outbox and self._is_open():
            batch, self._outbox = self._outbox, []
            for payload in self._payloads(batch):
                try:
                    await self._send(payload)
                except StoreError as error:
                    # The writes are committed; the others find them at their next beat.
                    log.warning("%s", error)

    def _payloads(self, batch: list[str]) -> list[str]:
        """The encoded notices as payloads, each within :data:`NOTICE_LIMIT` bytes."""
        payloads: list[str] = []
        head = self._payload_head
        items: list[str] = []
        size = len(head) + 2
        for item in batch:
            length = len(item.encode())
            if items and size + length + 1 > NOTICE_LIMIT:
                payloads.append(head + ",".join(items) + "]}")
                items, size = [], len(head) + 2
            items.append(item)
            size += length + 1
        if items:
            payloads.append(head + ",".join(items) + "]}")
        return payloads

    def listen(self, handler: Callable[[Notice], None]) -> None:
        """From now on hand ``handler`` the notices of the other processes (heard from
        :meth:`start` on; the notices before this are not kept)."""
        self._handler = handler

    def _deliver(self, notice: Notice) -> None:
        handler = self._handler
        if handler is None:
            return
        try:
            handler(notice)
        except Exception:
            log.exception("the handler of a %s notice failed", notice.kind)

    def _heard(self, connection: Any, pid: int, channel: str, payload: str) -> None:
        """(asyncpg's callback, on the event loop) one notice arrived."""
        try:
            found = json.loads(payload)
            origin = str(found["origin"])
            notices = []
            for kind, game_id, data in found["notices"]:
                if not isinstance(data, dict):
                    raise TypeError("its data is not an object")
                notices.append(Notice(str(kind), str(game_id), origin, data))
        except (ValueError, TypeError, KeyError) as error:
            log.warning(
                "the game database %s: a malformed notice is ignored (%s)", self.shown, error
            )
            return
        if origin != self.server_id:
            for notice in notices:
                self._deliver(notice)

    async def _connect_listener(self) -> tuple[Any, asyncio.Event]:
        """A connection of its own that listens on :data:`CHANNEL`, and the event set
        when it is lost."""
        connection = await asyncpg.connect(
            self.url,
            timeout=CONNECT_TIMEOUT,
            command_timeout=COMMAND_TIMEOUT,
            server_settings={"application_name": f"chuhan-listen {self.server_id}"},
        )
        lost = asyncio.Event()
        try:
            connection.add_termination_listener(lambda _connection: lost.set())
            await connection.add_listener(CHANNEL, self._heard)
        except BaseException:
            await close_quietly(connection)
            raise
        return connection, lost

    async def _keep_listening(self) -> None:
        """(A task from :meth:`open` to :meth:`close`) watch the listening connection;
        when it is lost, connect again (backing off) and send the handler a ``resync``."""
        delay = RECONNECT_FIRST
        failing = False
        while True:
            if self._listener is not None:
                connection, lost = self._listener
                await self._until_lost(connection, lost)
                self._listener = None
                await close_quietly(connection)
                log.warning(
                    "the game database %s: the connection that hears other servers was "
                    "lost; connecting again",
                    self.shown,
                )
            try:
                self._listener = await self._connect_listener()
            except FAILURES as error:
                if not failing:
                    log.warning(
                        "the game database %s cannot be reached to hear other servers (%s); "
                        "trying again",
                        self.shown,
                        self._why_not(error),
                    )
                failing = True
                await asyncio.sleep(delay)
                delay = min(delay * 2, RECONNECT_LAST)
                continue
            delay = RECONNECT_FIRST
            failing = False
            log.info("the game database %s: hearing other servers again", self.shown)
            self._deliver(Notice("resync", "", self.server_id, {}))

    async def _until_lost(self, connection: Any, lost: asyncio.Event) -> None:
        """Return once ``connection`` is lost: closed, or not answering a check."""
        while not connection.is_closed():
            try:
                await asyncio.wait_for(lost.wait(), PING_SECONDS)
                return
            except TimeoutError:
                pass
            try:
                await connection.fetchval("SELECT 1", timeout=PING_SECONDS)
            except FAILURES:
                return
