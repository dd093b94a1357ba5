"""The PostgreSQL store: one database shared by any number of server processes.

Every write is one SQL statement (data-modifying ``WITH`` clauses), so it is one round trip
and one transaction, committed before the coroutine returns. A game's write names the
revision it was made on: the ``UPDATE`` matches only a game still at that revision, and the
event it logs takes the next number under the primary key ``(game_id, number)``, so of two
processes writing the same revision exactly one succeeds and the other gets
:class:`StoreConflict`, having written nothing.

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

Drivers: each process registers itself in ``servers`` when it opens and beats there
(:meth:`PostgresStore.beat`), with the database's clock, so the machines' clocks need not
agree. A game whose driver stopped beating is taken over with a compare-and-set on its
``driver`` column, so of several survivors claiming at once exactly one gets it.

Faults: every driver error becomes :class:`StoreError` naming the database (without its
password) and what failed. Connecting gives up after :data:`CONNECT_TIMEOUT` seconds and a
statement after :data:`COMMAND_TIMEOUT`, so a lost database never hangs a call for long; the
pool replaces dead connections by itself, so calls succeed again once the database is back.
A read that meets a connection lost under it is tried once more; a write is never retried
(its outcome is unknown to the caller, who gets the error: never an acknowledgement of a
write that did not commit; a write that did commit behind a lost answer shows up as
:class:`StoreConflict` on the next one).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import socket
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

import asyncpg  # type: ignore[import-untyped]

from chuhan.web.db import (
    ChatLine,
    Duplicate,
    GameRow,
    GameUnreadable,
    Notice,
    StoreConflict,
    StoredEvent,
    StoreError,
    shown_location,
)
from chuhan.web.db.migrations import SCHEMA_VERSION, migrate_postgresql
from chuhan.web.db.rows import COLUMNS, MUTABLE, game_notice, game_row, seated_games, values
from chuhan.web.db.statements import All, Body, Lock, One, Statement, numbered, text_for

__all__ = [
    "CHANNEL",
    "COMMAND_TIMEOUT",
    "CONNECT_TIMEOUT",
    "NOTICE_LIMIT",
    "SCHEMA_VERSION",
    "PostgresStore",
]

T = TypeVar("T")

log = logging.getLogger("chuhan.web.db")

#: The ``LISTEN``/``NOTIFY`` channel of every notice.
CHANNEL = "chuhan"
#: The longest notice payload sent whole, in bytes (PostgreSQL's limit is 8000).
NOTICE_LIMIT = 7900
#: Seconds to wait for a connection to the database.
CONNECT_TIMEOUT = 5.0
#: Seconds to wait for one statement's answer (and for a connection from the pool).
COMMAND_TIMEOUT = 10.0
#: How often the listening connection is checked when it is quiet, and how long a check
#: may take (a connection cut without a word, such as a network partition, is found so).
PING_SECONDS = 5.0
#: The listening connection's reconnection delays: the first, doubling up to the last.
RECONNECT_FIRST = 0.1
RECONNECT_LAST = 2.0
#: A server row that has not beaten for this long (or ten takeover delays, if longer) is
#: deleted by the next beat of any process.
FORGET_SECONDS = 3600.0

#: The errors a database call can end with (all become :class:`StoreError`).
_FAILURES: tuple[type[BaseException], ...] = (
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
    OSError,
    TimeoutError,
)
#: What opening can end with besides (a malformed address).
_OPEN_FAILURES: tuple[type[BaseException], ...] = (*_FAILURES, ValueError)
#: Among them, those that mean the connection went away (a read is tried once more).
_LOST: tuple[type[BaseException], ...] = (
    asyncpg.PostgresConnectionError,
    asyncpg.AdminShutdownError,
    asyncpg.CannotConnectNowError,
    asyncpg.ConnectionDoesNotExistError,
    ConnectionError,
)

#: One encoder for every notice (``json.dumps`` with options makes one per call).
_ENCODE = json.JSONEncoder(ensure_ascii=False, check_circular=False, separators=(",", ":")).encode

# ---------------------------------------------------------------------- statements

#: ``games`` columns as the statements name them (``driver`` is the store's own).
_COLUMN_LIST = ", ".join(COLUMNS)
_CREATE_COLUMNS = tuple(c for c in COLUMNS if c != "revision")
_SAVE_COLUMNS = ("names", "updated", *MUTABLE)

_CREATE = f"""
WITH game AS (
    INSERT INTO games ({", ".join(_CREATE_COLUMNS)}, revision, driver)
    VALUES ({", ".join(f"${n}" for n in range(1, len(_CREATE_COLUMNS) + 1))}, 1,
            ${len(_CREATE_COLUMNS) + 1})
    RETURNING id, version, updated
), seated AS (
    INSERT INTO seats (token, game_id, seat)
    SELECT token, game.id, seat
    FROM game, unnest(${len(_CREATE_COLUMNS) + 2}::text[], ${len(_CREATE_COLUMNS) + 3}::text[])
         AS given (token, seat)
), logged AS (
    INSERT INTO events (game_id, number, version, at, kind, data)
    SELECT id, 1, version, updated, ${len(_CREATE_COLUMNS) + 4}, '{{}}' FROM game
)
SELECT count(*) FROM game
"""

#: The SQL type of each column a save rewrites (a batch of saves passes one array each).
_SAVE_TYPES = {
    "names": "text",
    "updated": "double precision",
    "version": "integer",
    "status": "text",
    "setup": "text",
    "setup_deadline": "double precision",
    "moves": "text",
    "clock": "text",
    "clock_at": "double precision",
    "offers": "text",
    "ending": "text",
    "result": "text",
    "headers": "text",
    "rematch": "text",
}
assert tuple(_SAVE_TYPES) == _SAVE_COLUMNS
#: The most saves one statement makes.
SAVE_BATCH = 200
#: How many batches of saves may be under way at once (of the pool's connections, leaving
#: two for reads, notices and beats): while fewer are, a save goes at once, alone; batches
#: form when the database is busy.
SAVE_FLIGHTS = 6
# One statement saves a batch of games, one array per column ($1 the ids, $2 the revisions
# the writes were made on, then the columns, then each event's kind and data): each game is
# updated only if it is still at its revision, and its event takes the next number. The
# answer says of each game whether it was saved and whether it exists at all. The games'
# rows are locked in the order of their ids first: every statement that writes several games
# (a batch, a takeover in the beat) takes its locks in that order, so two of them never wait
# for each other.
_SAVE = f"""
WITH given AS (
    SELECT * FROM unnest($1::text[], $2::integer[],
        {", ".join(f"${n}::{_SAVE_TYPES[c]}[]" for n, c in enumerate(_SAVE_COLUMNS, start=3))},
        ${len(_SAVE_COLUMNS) + 3}::text[], ${len(_SAVE_COLUMNS) + 4}::text[])
    AS g (id, made_on, {", ".join(_SAVE_COLUMNS)}, event, data)
), locked AS MATERIALIZED (
    SELECT id FROM games WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE
), saved AS (
    UPDATE games
    SET {", ".join(f"{c} = g.{c}" for c in _SAVE_COLUMNS)}, revision = g.made_on + 1
    FROM given g JOIN locked USING (id)
    WHERE games.id = g.id AND games.revision = g.made_on
    RETURNING games.id, games.version, games.updated, g.made_on, g.event, g.data
), logged AS (
    INSERT INTO events (game_id, number, version, at, kind, data)
    SELECT id, made_on + 1, version, updated, event, data FROM saved
    RETURNING game_id
)
SELECT g.id,
       EXISTS (SELECT 1 FROM logged WHERE logged.game_id = g.id) AS saved,
       EXISTS (SELECT 1 FROM games WHERE games.id = g.id) AS known
FROM given g
"""
_CHAT = "INSERT INTO chat (game_id, at, sender, name, text) VALUES ($1, $2, $3, $4, $5)"

_NOTIFY = f"SELECT pg_notify('{CHANNEL}', $1)"

_REGISTER = """
INSERT INTO servers (id, started, heartbeat) VALUES ($1, clock_timestamp(), clock_timestamp())
ON CONFLICT (id) DO UPDATE SET heartbeat = excluded.heartbeat
"""

# $1 this server, $2 the takeover delay in seconds, $3 how long before a dead server's row
# is deleted. A game is claimed only if its driver is still the one found stale (the
# compare-and-set that leaves each game with one driver when several claim at once).
_BEAT = """
WITH alive AS (
    INSERT INTO servers (id, started, heartbeat)
    VALUES ($1, clock_timestamp(), clock_timestamp())
    ON CONFLICT (id) DO UPDATE SET heartbeat = excluded.heartbeat
    RETURNING id
), forgotten AS (
    DELETE FROM servers
    WHERE id <> $1 AND heartbeat < clock_timestamp() - make_interval(secs => $3)
), stale AS MATERIALIZED (
    SELECT g.id, g.driver
    FROM games g LEFT JOIN servers s ON s.id = g.driver
    WHERE g.status <> 'over' AND g.kind <> 'imported' AND g.driver IS DISTINCT FROM $1
      AND (
        s.id IS NULL OR s.heartbeat < clock_timestamp() - make_interval(secs => $2)
        -- A process killed on a machine whose connections the database saw close (no
        -- session of it left) is dead once it has missed a beat, without waiting $2.
        OR (
          s.heartbeat < clock_timestamp() - interval '1.5 seconds'
          AND NOT EXISTS (
            SELECT 1 FROM pg_stat_activity a
            WHERE a.application_name IN ('chuhan ' || g.driver, 'chuhan-listen ' || g.driver)
          )
        )
      )
    ORDER BY g.id
    FOR UPDATE OF g SKIP LOCKED  -- (in the order of ids; a game being written waits a beat)
), claimed AS (
    UPDATE games g SET driver = $1
    FROM stale
    WHERE g.id = stale.id AND g.driver IS NOT DISTINCT FROM stale.driver
      AND g.status <> 'over'
    RETURNING g.id
)
SELECT id FROM claimed
UNION
SELECT id FROM games WHERE driver = $1 AND status <> 'over' AND kind <> 'imported'
"""

#: The servers alive: beating within the takeover time, and (after one missed beat) still
#: connected (the same test as the beat's takeover).
_LIVE = """
SELECT s.id FROM servers s
WHERE s.heartbeat >= clock_timestamp() - make_interval(secs => $1)
  AND (
    s.heartbeat >= clock_timestamp() - interval '1.5 seconds'
    OR EXISTS (
      SELECT 1 FROM pg_stat_activity a
      WHERE a.application_name IN ('chuhan ' || s.id, 'chuhan-listen ' || s.id)
    )
  )
"""

_RELEASE = """
WITH gone AS (DELETE FROM servers WHERE id = $1), mine AS MATERIALIZED (
    SELECT id FROM games WHERE driver = $1 AND status <> 'over' AND kind <> 'imported'
    ORDER BY id FOR UPDATE
)
UPDATE games SET driver = NULL FROM mine WHERE games.id = mine.id
"""

_LOAD = f"SELECT {_COLUMN_LIST} FROM games WHERE id = $1"
_SINCE = f"""
SELECT {_COLUMN_LIST}, later.versions, later.ats, later.kinds, later.datas
FROM games CROSS JOIN LATERAL (
    SELECT array_agg(e.version ORDER BY e.number) AS versions,
           array_agg(e.at ORDER BY e.number) AS ats,
           array_agg(e.kind ORDER BY e.number) AS kinds,
           array_agg(e.data ORDER BY e.number) AS datas
    FROM events e WHERE e.game_id = games.id AND e.number > $2
) AS later
WHERE games.id = $1
"""
_NEWER = """
SELECT g.id, g.revision
FROM games g JOIN unnest($1::text[], $2::integer[]) AS held (id, revision) ON g.id = held.id
WHERE g.revision > held.revision
"""
_EVENTS = "SELECT version, at, kind, data FROM events WHERE game_id = $1 ORDER BY number"
_TOKENS = f"""
SELECT s.token AS seat_token, s.seat AS seat_name, {", ".join("g." + c for c in COLUMNS)}
FROM seats s JOIN games g ON g.id = s.game_id
WHERE s.token = ANY($1::text[])
ORDER BY g.updated DESC
"""


async def _keep_session(connection: Any) -> None:
    """The pool's reset between uses: nothing. The store's statements leave no session
    state behind (no ``SET``, cursors, session locks or ``LISTEN`` on pooled
    connections), and asyncpg's default reset costs a round trip per use."""


class PostgresStore:
    """The game database in PostgreSQL at ``url`` (``postgresql://USER[:PASSWORD]@HOST
    [:PORT]/DATABASE``), shared with any number of server processes (see the module's
    documentation). Making it does not connect: :meth:`open` does, on the event loop that
    will use it. ``pool_size`` is how many connections it may hold at most (plus the one
    that listens)."""

    #: Other server processes may use the database at the same time.
    shared = True

    def __init__(self, url: str, *, pool_size: int = 10) -> None:
        self.url = url
        self.shown = shown_location(url)
        self.pool_size = pool_size
        self.server_id = secrets.token_hex(8)
        self._payload_head = f'{{"origin":{json.dumps(self.server_id)},"notices":['
        self._password = urlsplit(url).password or ""
        self._pool: Any = None
        #: The listening connection and the event set when it is lost.
        self._listener: tuple[Any, asyncio.Event] | None = None
        self._listening: asyncio.Task[None] | None = None
        self._handler: Callable[[Notice], None] | None = None
        #: Notices waiting to be sent, and the task sending them.
        self._outbox: list[str] = []  # notices encoded (see _announce)
        self._sending: asyncio.Task[None] | None = None
        #: Saves waiting for a batch (the statement's arguments, and the future told the
        #: outcome), and how many batches are under way.
        self._saves: list[tuple[tuple[Any, ...], asyncio.Future[str]]] = []
        self._saving: set[asyncio.Task[None]] = set()
        self._closed = False

    # ------------------------------------------------------------------ life

    async def open(self) -> None:
        """Connect (a pool of up to ``pool_size`` connections), bring the schema up to
        date, register this process in ``servers`` and start listening for notices."""
        if self._pool is not None:
            return
        try:
            pool = await asyncpg.create_pool(
                self.url,
                min_size=min(2, self.pool_size),
                max_size=self.pool_size,
                reset=_keep_session,
                timeout=CONNECT_TIMEOUT,
                command_timeout=COMMAND_TIMEOUT,
                server_settings={"application_name": f"chuhan {self.server_id}"},
            )
        except _OPEN_FAILURES as error:
            raise StoreError(
                f"cannot open the game database {self.shown}: {self._why_not(error)}"
            ) from None
        try:
            async with pool.acquire(timeout=COMMAND_TIMEOUT) as connection:
                await migrate_postgresql(connection, self.shown)
                await connection.execute(_REGISTER, self.server_id)
            self._listener = await self._connect_listener()
        except _FAILURES as error:
            pool.terminate()
            raise StoreError(
                f"cannot open the game database {self.shown}: {self._reason(error)}"
            ) from None
        except BaseException:
            pool.terminate()
            raise
        self._pool = pool
        self._listening = asyncio.get_running_loop().create_task(
            self._keep_listening(), name=f"chuhan-listen {self.server_id}"
        )

    def announce(self, url: str) -> None:
        """Nothing to record: several servers share this database, and none owns it."""

    async def close(self) -> None:
        """Stop listening, hand this process's games back (other processes take them over
        at their next beat) and close the connections. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self._saving:  # (the saves under way or waiting: their writers are answered)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(
                    asyncio.gather(*map(asyncio.shield, list(self._saving))), CONNECT_TIMEOUT
                )
            await asyncio.sleep(0)  # (and announce them)
        if self._sending is not None and not self._sending.done():
            with contextlib.suppress(Exception):  # (the last notices, if they can go)
                await asyncio.wait_for(asyncio.shield(self._sending), CONNECT_TIMEOUT)
        if self._listening is not None:
            self._listening.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listening
            self._listening = None
        if self._listener is not None:
            await _close_quietly(self._listener[0])
            self._listener = None
        pool, self._pool = self._pool, None
        if pool is None:
            return
        try:
            await pool.execute(_RELEASE, self.server_id, timeout=CONNECT_TIMEOUT)
        except _FAILURES as error:
            log.warning(
                "the game database %s: could not hand this server's games over at close "
                "(other servers take them over when its heartbeat is old): %s",
                self.shown,
                self._reason(error),
            )
        try:
            await asyncio.wait_for(pool.close(), CONNECT_TIMEOUT)
        except _FAILURES:
            pool.terminate()

    # ------------------------------------------------------------------ calls

    def _reason(self, error: BaseException, *, lost: bool = False) -> str:
        """What went wrong, in words (never with the password)."""
        if isinstance(error, TimeoutError):
            text = f"no answer within {COMMAND_TIMEOUT:g} s"
        elif lost or _is_lost(error):
            text = f"the connection to the database was lost ({error})"
        else:
            text = str(error) or type(error).__name__
        if self._password:
            text = text.replace(self._password, "***")
        return text

    def _why_not(self, error: BaseException) -> str:
        """Why connecting failed, in words."""
        text = str(error)
        if isinstance(error, socket.gaierror):
            return f"the host name cannot be resolved ({error.strerror})"
        if isinstance(error, ConnectionRefusedError) or "Connect call failed" in text:
            return "the connection was refused (is PostgreSQL running and listening there?)"
        if isinstance(error, asyncpg.InvalidCatalogNameError):
            return "there is no such database"
        if isinstance(error, asyncpg.InvalidPasswordError):
            return "authentication failed (the password was refused)"
        if isinstance(error, asyncpg.InvalidAuthorizationSpecificationError):
            return f"authentication failed ({error})"
        if isinstance(error, asyncpg.CannotConnectNowError):
            return f"the database is not accepting connections now ({error})"
        if isinstance(error, TimeoutError):
            return f"no answer within {CONNECT_TIMEOUT:g} s"
        return self._reason(error)

    def _failed(self, what: str, error: BaseException, *, lost: bool = False) -> StoreError:
        reason = self._reason(error, lost=lost)
        return StoreError(f"the game database {self.shown} failed while {what}: {reason}")

    def _ready(self) -> Any:
        if self._pool is None:
            state = "closed" if self._closed else "not open (open() was not called)"
            raise StoreError(f"the game database {self.shown} is {state}")
        return self._pool

    async def _write(self, what: str, work: Callable[[Any], Awaitable[T]]) -> T:
        """``work(connection)`` on a pooled connection, once: its failure is the caller's
        (see the module's documentation)."""
        return await self._call(what, work, attempts=1)

    async def _read(self, what: str, work: Callable[[Any], Awaitable[T]]) -> T:
        """``work(connection)`` on a pooled connection; tried once more on another
        connection if the first was found lost (reads can be repeated)."""
        return await self._call(what, work, attempts=2)

    async def _call(self, what: str, work: Callable[[Any], Awaitable[T]], *, attempts: int) -> T:
        pool = self._ready()
        for attempt in range(1, attempts + 1):
            try:
                async with pool.acquire(timeout=COMMAND_TIMEOUT) as connection:
                    try:
                        return await work(connection)
                    except _FAILURES as error:
                        if not (_is_lost(error) or _closed(connection)):
                            raise
                        # A connection whose server process went away can be left in a
                        # state asyncpg cannot use again: it must not go back to the pool.
                        if not _closed(connection):
                            connection.terminate()
                        raise _Lost(error) from None
            except _Lost as lost:
                # What took one connection (the database restarted, the network was cut)
                # has usually taken the pool's others too: every idle one is replaced, so
                # the next call (or the read's second attempt) starts on a fresh one.
                with contextlib.suppress(*_FAILURES):
                    await pool.expire_connections()
                if attempt == attempts:
                    raise self._failed(what, lost.error, lost=True) from None
            except _FAILURES as error:
                raise self._failed(what, error) from None
        raise AssertionError("unreachable")

    # ------------------------------------------------------------------ bodies

    async def write(self, body: Body[T], what: str) -> T:
        """Run the transaction ``body`` (:mod:`chuhan.web.db.statements`) in one
        transaction, with the row and advisory locks it asks for; its result once it is
        committed. ``what`` names it in an error. Never tried again (see the module's
        documentation)."""

        async def work(connection: Any) -> T:
            async with connection.transaction():
                return await _drive(connection, body)

        return await self._write(what, work)

    async def read(self, body: Body[T], what: str) -> T:
        """Run the reading ``body`` (no transaction of its own); tried once more on another
        connection when the connection is lost at its first statement (the body has had
        no answer yet, so its first statement is simply sent again)."""
        try:
            first = next(body)
        except StopIteration as stop:
            result: T = stop.value
            return result
        answered = False

        async def work(connection: Any) -> T:
            nonlocal answered
            if answered:  # (a retry after the body had answers: it cannot start again)
                raise StoreError(f"the game database {self.shown} failed while {what}")
            found = await _execute(connection, first)
            answered = True
            return await _drive(connection, body, sent=found)

        return await self._read(what, work)

    # ------------------------------------------------------------------ writes

    async def create_game(
        self, row: GameRow, seats: dict[str, str], *, event: str = "create"
    ) -> None:
        columns = values(row)
        tokens = list(seats)
        arguments = (
            *(columns[c] for c in _CREATE_COLUMNS),
            self.server_id,
            tokens,
            [seats[t] for t in tokens],
            event,
        )
        await self._write(
            f"creating game {row.id[:40]!r}",
            lambda connection: connection.execute(_CREATE, *arguments),
        )
        row.revision = 1
        self._announce("game", row.id, {"revision": 1})

    async def save_game(self, row: GameRow, event: str, data: dict[str, Any]) -> None:
        """Save the game (see :meth:`Store.save_game`). The saves of many games are made
        together: what arrives while :data:`SAVE_FLIGHTS` batches are under way waits for
        the next batch, which one statement (one round trip, one commit) writes."""
        columns = values(row)
        made_on = row.revision
        save = (
            row.id,
            made_on,
            *(columns[c] for c in _SAVE_COLUMNS),
            event,
            json.dumps(data, ensure_ascii=False),
        )
        done: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._saves.append((save, done))
        if len(self._saving) < max(1, min(SAVE_FLIGHTS, self.pool_size - 2)):
            task = asyncio.get_running_loop().create_task(self._save_batches())
            self._saving.add(task)
            task.add_done_callback(self._saving.discard)
        outcome = await done
        if outcome != "saved":  # never acknowledge what was not written
            if outcome == "conflict":
                raise StoreConflict(row.id, made_on)
            raise StoreError(
                f"the game database {self.shown} failed: game {row.id[:40]!r} is not where "
                "it was stored"
            )
        row.revision = made_on + 1
        self._announce(
            "game", row.id, game_notice(row, event, data), short={"revision": row.revision}
        )

    async def _save_batches(self) -> None:
        """(A task, one of at most :data:`SAVE_FLIGHTS`) write the saves waiting, a batch at
        a time, and tell each its outcome."""
        try:
            while self._saves:
                batch: list[tuple[tuple[Any, ...], asyncio.Future[str]]] = []
                ids: set[str] = set()
                waiting: list[tuple[tuple[Any, ...], asyncio.Future[str]]] = []
                for save in self._saves:  # (one save of a game per batch)
                    if len(batch) < SAVE_BATCH and save[0][0] not in ids:
                        ids.add(save[0][0])
                        batch.append(save)
                    else:
                        waiting.append(save)
                self._saves = waiting
                try:
                    outcomes = await self._save_batch([save for save, _ in batch])
                except BaseException as error:  # (never leave a writer waiting)
                    failure = (
                        error
                        if isinstance(error, StoreError)
                        else StoreError(f"the game database {self.shown}: saving was interrupted")
                    )
                    for _, done in batch:
                        if not done.done():
                            done.set_exception(failure)
                    if not isinstance(error, StoreError):
                        raise
                    continue
                for (_, done), outcome in zip(batch, outcomes, strict=True):
                    if not done.done():
                        done.set_result(outcome)
        except BaseException:
            for _, done in self._saves:  # (this task was stopped: the next write tries again)
                if not done.done():
                    done.set_exception(
                        StoreError(f"the game database {self.shown}: saving was interrupted")
                    )
            self._saves = []
            raise

    async def _save_batch(self, saves: list[tuple[Any, ...]]) -> list[str]:
        """Each save's outcome: ``saved``, ``conflict`` (the game is not at the revision the
        write was made on) or ``missing``. An event number already taken (which the
        revision test rules out unless the log was changed behind the store) fails the
        whole statement: the batch is then halved until only that game's save is
        refused."""
        what = (
            f"saving game {saves[0][0][:40]!r}"
            if len(saves) == 1
            else f"saving {len(saves)} games ({saves[0][0][:40]!r} and others)"
        )
        arrays = [list(column) for column in zip(*saves, strict=True)]

        async def work(connection: Any) -> Any:
            try:
                return await connection.fetch(_SAVE, *arrays)
            except asyncpg.UniqueViolationError:
                return None

        found = await self._write(what, work)
        if found is None:
            if len(saves) == 1:
                return ["conflict"]
            half = len(saves) // 2
            return [*await self._save_batch(saves[:half]), *await self._save_batch(saves[half:])]
        outcome = {
            r["id"]: "saved" if r["saved"] else "conflict" if r["known"] else "missing"
            for r in found
        }
        return [outcome[save[0]] for save in saves]

    async def add_chat(self, game_id: str, line: ChatLine) -> None:
        await self._write(
            f"storing a chat line of game {game_id[:40]!r}",
            lambda connection: connection.execute(_CHAT, game_id, *line),
        )
        self._announce("chat", game_id, {"line": list(line)})

    async def notify(self, game_id: str, kind: str, data: dict[str, Any]) -> None:
        self._announce(kind, game_id, data)

    # ------------------------------------------------------------------ notices

    def _announce(
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
        while self._outbox and self._pool is not None:
            batch, self._outbox = self._outbox, []
            for payload in self._payloads(batch):

                async def send(connection: Any, payload: str = payload) -> None:
                    await connection.execute(_NOTIFY, payload)

                try:
                    await self._write("sending notices", send)
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

    # ------------------------------------------------------------------ reads

    async def load_game(self, game_id: str) -> GameRow | None:
        found = await self._read(
            f"reading game {game_id[:40]!r}",
            lambda connection: connection.fetchrow(_LOAD, game_id),
        )
        return None if found is None else game_row(found)

    async def seat(self, token: str) -> tuple[str, str] | None:
        found = await self._read(
            "looking up a seat",
            lambda connection: connection.fetchrow(
                "SELECT game_id, seat FROM seats WHERE token = $1", token
            ),
        )
        return None if found is None else (str(found["game_id"]), str(found["seat"]))

    async def seats_of(self, game_id: str) -> dict[str, str]:
        found = await self._read(
            f"reading the seats of game {game_id[:40]!r}",
            lambda connection: connection.fetch(
                "SELECT token, seat FROM seats WHERE game_id = $1", game_id
            ),
        )
        return {str(r["seat"]): str(r["token"]) for r in found}

    async def games_for_tokens(self, tokens: list[str]) -> list[tuple[str, str, GameRow]]:
        if not tokens:
            return []
        found = await self._read(
            "reading the games of a player",
            lambda connection: connection.fetch(_TOKENS, list(dict.fromkeys(tokens))),
        )
        return seated_games(found)

    async def unfinished_game_ids(self) -> list[str]:
        found = await self._read(
            "listing the unfinished games",
            lambda connection: connection.fetch("SELECT id FROM games WHERE status <> 'over'"),
        )
        return [str(r["id"]) for r in found]

    async def chat_history(self, game_id: str, limit: int = 50) -> list[ChatLine]:
        found = await self._read(
            f"reading the chat of game {game_id[:40]!r}",
            lambda connection: connection.fetch(
                "SELECT at, sender, name, text FROM chat WHERE game_id = $1 "
                "ORDER BY id DESC LIMIT $2",
                game_id,
                limit,
            ),
        )
        return [
            ChatLine(float(r["at"]), str(r["sender"]), str(r["name"]), str(r["text"]))
            for r in reversed(found)
        ]

    async def events(self, game_id: str) -> list[StoredEvent]:
        found = await self._read(
            f"reading the events of game {game_id[:40]!r}",
            lambda connection: connection.fetch(_EVENTS, game_id),
        )
        return [_stored_event(game_id, r["version"], r["at"], r["kind"], r["data"]) for r in found]

    async def game_since(
        self, game_id: str, revision: int
    ) -> tuple[GameRow, list[StoredEvent]] | None:
        # One statement reads the row and the events from one snapshot.
        found = await self._read(
            f"reading game {game_id[:40]!r}",
            lambda connection: connection.fetchrow(_SINCE, game_id, revision),
        )
        if found is None:
            return None
        row = game_row(found)
        later = zip(
            found["versions"] or (),
            found["ats"] or (),
            found["kinds"] or (),
            found["datas"] or (),
            strict=True,
        )
        return row, [_stored_event(game_id, *event) for event in later]

    # ------------------------------------------------------------ several processes

    async def listen(self, handler: Callable[[Notice], None]) -> None:
        """From now on hand ``handler`` the notices of the other processes (the store
        listens from :meth:`open` on; the notices before this are not kept)."""
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
            await _close_quietly(connection)
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
                await _close_quietly(connection)
                log.warning(
                    "the game database %s: the connection that hears other servers was "
                    "lost; connecting again",
                    self.shown,
                )
            try:
                self._listener = await self._connect_listener()
            except _FAILURES as error:
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
            except _FAILURES:
                return

    async def beat(self, takeover_seconds: float) -> set[str]:
        """Mark this process alive (with the database's clock); take over the unfinished
        games (not imported ones, which have nothing to drive) whose driver has not beaten
        for ``takeover_seconds``, is gone, or was never set; return the ids of every such
        game this process drives now. One statement."""
        forget = max(FORGET_SECONDS, 10 * takeover_seconds)
        found = await self._write(
            "marking this server alive",
            lambda connection: connection.fetch(
                _BEAT, self.server_id, float(takeover_seconds), float(forget)
            ),
        )
        return {str(r["id"]) for r in found}

    async def newer_revisions(self, held: dict[str, int]) -> dict[str, int]:
        ids = list(held)
        found = await self._read(
            "reading revisions",
            lambda connection: connection.fetch(_NEWER, ids, [held[i] for i in ids]),
        )
        return {str(r["id"]): int(r["revision"]) for r in found}

    async def live_servers(self, takeover_seconds: float) -> set[str]:
        found = await self._read(
            "listing the servers alive",
            lambda connection: connection.fetch(
                _LIVE,
                float(takeover_seconds),
            ),
        )
        return {str(r["id"]) for r in found}


class _Lost(Exception):
    """(Inside :meth:`PostgresStore._call`) the connection went away under ``error``."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


def _is_lost(error: BaseException) -> bool:
    """Whether ``error`` means the connection went away (rather than a refused query)."""
    if isinstance(error, _LOST):
        return True
    if isinstance(error, asyncpg.InternalClientError):
        return True  # (asyncpg's state after its server process was terminated under it)
    return isinstance(error, asyncpg.InterfaceError) and "closed" in str(error)


def _closed(connection: Any) -> bool:
    """Whether the pooled ``connection`` is closed (or already taken back by the pool,
    which it is once it closes)."""
    try:
        return bool(connection.is_closed())
    except asyncpg.InterfaceError:
        return True


def _stored_event(game_id: str, version: Any, at: Any, kind: Any, text: Any) -> StoredEvent:
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as error:
        raise GameUnreadable(game_id, f"an event's data is malformed ({error})") from None
    if not isinstance(data, dict):
        raise GameUnreadable(game_id, "an event's data is not an object")
    return StoredEvent(int(version), float(at), str(kind), data)


async def _close_quietly(connection: Any) -> None:
    """Close a connection that may be dead already, without waiting long."""
    try:
        await connection.close(timeout=1.0)
    except _FAILURES:
        connection.terminate()


_NOT_GIVEN: Any = object()
_LOCK = "SELECT pg_advisory_xact_lock(hashtext($1))"


async def _execute(connection: Any, statement: Statement) -> Any:
    """One statement of a body on ``connection``: its result as the body expects it."""
    if isinstance(statement, Lock):
        await connection.execute(_LOCK, statement.key)
        return None
    sql = numbered(text_for(statement.sql, "postgresql"))
    if isinstance(statement, One):
        if statement.for_update:
            sql += " FOR UPDATE"
        return await connection.fetchrow(sql, *statement.args)
    if isinstance(statement, All):
        return await connection.fetch(sql, *statement.args)
    status = await connection.execute(sql, *statement.args)
    last = str(status).rsplit(" ", 1)[-1]  # ("UPDATE 3", "INSERT 0 1", "DELETE 0")
    return int(last) if last.isdigit() else 0


async def _drive(connection: Any, body: Body[T], *, sent: Any = _NOT_GIVEN) -> T:
    """Run ``body``'s statements on ``connection`` as it yields them (``sent``: the answer
    to the statement it has yielded already)."""
    try:
        statement = next(body) if sent is _NOT_GIVEN else body.send(sent)
        while True:
            try:
                result = await _execute(connection, statement)
            except asyncpg.UniqueViolationError as error:
                statement = body.throw(Duplicate(str(error)))
            else:
                statement = body.send(result)
    except StopIteration as stop:
        result_value: T = stop.value
        return result_value
