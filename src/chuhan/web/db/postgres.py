"""The PostgreSQL store: one database shared by any number of server processes.

Every write is one SQL statement (data-modifying ``WITH`` clauses), so it is one round trip
and one transaction, committed before the coroutine returns. A game's write names the
revision it was made on: the ``UPDATE`` matches only a game still at that revision, and the
event it logs takes the next number under the primary key ``(game_id, number)``, so of two
processes writing the same revision exactly one succeeds and the other gets
:class:`StoreConflict`, having written nothing.

Notices to the other processes (:mod:`chuhan.web.db.notices`) go after the writes they
announce have committed, in batches; which process drives which game is settled by the
beats (:mod:`chuhan.web.db.beats`). This module is the driver (transaction bodies,
:meth:`PostgresStore.write`) and the games' tuned paths (batched saves, one-statement
reads).

Faults: every driver error becomes :class:`StoreError` naming the database (without its
password) and what failed. Connecting gives up after :data:`CONNECT_TIMEOUT` seconds and a
statement after :data:`COMMAND_TIMEOUT`, so a lost database never hangs a call for long; the
asyncpg pool replaces dead connections by itself, so calls succeed again once the database is back.
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
    beats,
    shown_location,
)
from chuhan.web.db.migrations import SCHEMA_VERSION, migrate_postgresql
from chuhan.web.db.notices import CHANNEL, NOTICE_LIMIT, NOTIFY, Notices
from chuhan.web.db.pg_calls import COMMAND_TIMEOUT, CONNECT_TIMEOUT
from chuhan.web.db.pg_calls import FAILURES as _FAILURES
from chuhan.web.db.pg_calls import OPEN_FAILURES as _OPEN_FAILURES
from chuhan.web.db.pg_calls import Lost as _Lost
from chuhan.web.db.pg_calls import is_closed as _closed
from chuhan.web.db.pg_calls import is_lost as _is_lost
from chuhan.web.db.rows import (
    COLUMNS,
    MUTABLE,
    event_text,
    game_notice,
    game_row,
    seated_games,
    values,
)
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
#: How many batches of saves may be under way at once (of the store's connections, leaving
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
    """A connection's reset between uses: nothing. The store's statements leave no session
    state behind (no ``SET``, cursors, session locks or ``LISTEN`` on pooled
    connections), and asyncpg's default reset costs a round trip per use."""


class PostgresStore:
    """The game database in PostgreSQL at ``url`` (``postgresql://USER[:PASSWORD]@HOST
    [:PORT]/DATABASE``), shared with any number of server processes (see the module's
    documentation). Making it does not connect: :meth:`open` does, on the event loop that
    will use it. ``max_connections`` is how many connections it may hold at most (plus the one
    that listens)."""

    #: Other server processes may use the database at the same time.
    shared = True

    def __init__(self, url: str, *, max_connections: int = 10) -> None:
        self.url = url
        self.shown = shown_location(url)
        self.max_connections = max_connections
        self.server_id = secrets.token_hex(8)
        self._password = urlsplit(url).password or ""
        self._connections: Any = None
        #: The notices sent and heard (:mod:`chuhan.web.db.notices`).
        self.notices = Notices(
            url,
            self.server_id,
            self.shown,
            send=self._send_notice,
            is_open=lambda: self._connections is not None,
            why_not=self._why_not,
        )
        #: Saves waiting for a batch (the statement's arguments, and the future told the
        #: outcome), and how many batches are under way.
        self._saves: list[tuple[tuple[Any, ...], asyncio.Future[str]]] = []
        self._saving: set[asyncio.Task[None]] = set()
        self._closed = False

    # ------------------------------------------------------------------ life

    async def open(self) -> None:
        """Connect (up to ``max_connections`` connections), bring the schema up to
        date, register this process in ``servers`` and start listening for notices."""
        if self._connections is not None:
            return
        try:
            connections = await asyncpg.create_pool(
                self.url,
                min_size=min(2, self.max_connections),
                max_size=self.max_connections,
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
            async with connections.acquire(timeout=COMMAND_TIMEOUT) as connection:
                await migrate_postgresql(connection, self.shown)
                await connection.execute(beats.REGISTER, self.server_id)
            await self.notices.start()
        except _FAILURES as error:
            connections.terminate()
            raise StoreError(
                f"cannot open the game database {self.shown}: {self._reason(error)}"
            ) from None
        except BaseException:
            connections.terminate()
            raise
        self._connections = connections

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
        await self.notices.finish_sending()  # (the last notices, if they can go)
        await self.notices.close()
        connections, self._connections = self._connections, None
        if connections is None:
            return
        try:
            await connections.execute(beats.RELEASE, self.server_id, timeout=CONNECT_TIMEOUT)
        except _FAILURES as error:
            log.warning(
                "the game database %s: could not hand this server's games over at close "
                "(other servers take them over when its heartbeat is old): %s",
                self.shown,
                self._reason(error),
            )
        try:
            await asyncio.wait_for(connections.close(), CONNECT_TIMEOUT)
        except _FAILURES:
            connections.terminate()

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
        if self._connections is None:
            state = "closed" if self._closed else "not open (open() was not called)"
            raise StoreError(f"the game database {self.shown} is {state}")
        return self._connections

    async def _write(self, what: str, work: Callable[[Any], Awaitable[T]]) -> T:
        """``work(connection)`` on a pooled connection, once: its failure is the caller's
        (see the module's documentation)."""
        return await self._call(what, work, attempts=1)

    async def _read(self, what: str, work: Callable[[Any], Awaitable[T]]) -> T:
        """``work(connection)`` on a pooled connection; tried once more on another
        connection if the first was found lost (reads can be repeated)."""
        return await self._call(what, work, attempts=2)

    async def _call(self, what: str, work: Callable[[Any], Awaitable[T]], *, attempts: int) -> T:
        connections = self._ready()
        for attempt in range(1, attempts + 1):
            try:
                async with connections.acquire(timeout=COMMAND_TIMEOUT) as connection:
                    try:
                        return await work(connection)
                    except _FAILURES as error:
                        if not (_is_lost(error) or _closed(connection)):
                            raise
                        # A connection whose server process went away can be left in a
                        # state asyncpg cannot use again: it must not be used again.
                        if not _closed(connection):
                            connection.terminate()
                        raise _Lost(error) from None
            except _Lost as lost:
                # What took one connection (the database restarted, the network was cut)
                # has usually taken the store's other connections too: every idle one is
                # replaced, so the next call (or the read's second attempt) starts on a fresh one.
                with contextlib.suppress(*_FAILURES):
                    await connections.expire_connections()
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

    async def save_game(
        self,
        row: GameRow,
        event: str,
        data: dict[str, Any],
        *,
        changed: frozenset[str] | None = None,
    ) -> None:
        """Save the game (see :meth:`Store.save_game`). The saves of many games are made
        together: what arrives while :data:`SAVE_FLIGHTS` batches are under way waits for
        the next batch, which one statement (one round trip, one commit) writes, every
        column of each (``changed`` is not needed)."""
        columns = values(row)
        made_on = row.revision
        save = (
            row.id,
            made_on,
            *(columns[c] for c in _SAVE_COLUMNS),
            event,
            event_text(event, data),
        )
        done: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._saves.append((save, done))
        if len(self._saving) < max(1, min(SAVE_FLIGHTS, self.max_connections - 2)):
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

    def _announce(
        self, kind: str, game_id: str, data: dict[str, Any], *, short: dict[str, Any] | None = None
    ) -> None:
        """Queue a notice for the other processes (:meth:`Notices.announce
        <chuhan.web.db.notices.Notices.announce>`)."""
        self.notices.announce(kind, game_id, data, short=short)

    async def _send_notice(self, payload: str) -> None:
        await self._write("sending notices", lambda c: c.execute(NOTIFY, payload))

    async def listen(self, handler: Callable[[Notice], None]) -> None:
        """From now on hand ``handler`` the notices of the other processes (the store
        listens from :meth:`open` on; the notices before this are not kept)."""
        self.notices.listen(handler)

    async def beat(self, takeover_seconds: float) -> set[str]:
        """Mark this process alive and take over the games of processes that stopped
        beating (:func:`chuhan.web.db.beats.beat`); the games this process drives."""
        return await self.write(
            beats.beat(self.server_id, takeover_seconds), "marking this server alive"
        )

    # ------------------------------------------------------------------ notices

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

    async def newer_revisions(self, held: dict[str, int]) -> dict[str, int]:
        ids = list(held)
        found = await self._read(
            "reading revisions",
            lambda connection: connection.fetch(_NEWER, ids, [held[i] for i in ids]),
        )
        return {str(r["id"]): int(r["revision"]) for r in found}

    async def live_servers(self, takeover_seconds: float) -> set[str]:
        return await self.read(beats.live_servers(takeover_seconds), "listing the servers alive")


def _stored_event(game_id: str, version: Any, at: Any, kind: Any, text: Any) -> StoredEvent:
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as error:
        raise GameUnreadable(game_id, f"an event's data is malformed ({error})") from None
    if not isinstance(data, dict):
        raise GameUnreadable(game_id, "an event's data is not an object")
    return StoredEvent(int(version), float(at), str(kind), data)


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
