"""Where the explorer's index is kept: a SQLite file (the standard library's ``sqlite3``, the
default) or a PostgreSQL database (``postgresql://...``: its tables in a schema of their own,
:data:`PG_SCHEMA`, beside a server's game tables), behind one small interface
(:class:`IndexConnection`) that :mod:`chuhan.explorer.index` writes its statements for once.

The statements are written with ``?`` placeholders, which the PostgreSQL connection numbers
(``$1``...); an ``INSERT`` whose new id is wanted is given to :meth:`IndexConnection.insert`
without ``RETURNING``; bulk rows go through :meth:`IndexConnection.copy` (``executemany`` on
SQLite, ``COPY`` on PostgreSQL, through a temporary table when the rows are merged with
an ``ON CONFLICT`` clause). What the two stores say differently in the schema is a handful
of words (:attr:`IndexConnection.words`).

The PostgreSQL connection is asyncpg (the ``postgresql`` extra, as the web app's store)
driven by an event loop of its own in a thread: the index's callers are synchronous (the
command line, a reading thread of the web app, an import's process).

A write is one transaction that only one process runs at a time: SQLite's ``BEGIN
IMMEDIATE`` (the file's one writer), PostgreSQL's advisory lock :data:`WRITE_LOCK` taken
with the transaction. :meth:`IndexConnection.begin_write` raises :class:`IndexBusy` rather
than wait for a writer of minutes (a whole archive's import).
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
import threading
from collections.abc import Coroutine, Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, TypeVar

__all__ = [
    "PG_SCHEMA",
    "WRITE_LOCK",
    "IndexBusy",
    "IndexConnection",
    "IndexStoreError",
    "PostgresIndex",
    "SqliteIndex",
    "is_index_url",
    "open_index_connection",
    "shown_location",
]

#: The PostgreSQL schema the explorer's tables are kept in (a server's game tables are in
#: ``public``: both have a ``games`` table).
PG_SCHEMA = "explorer_index"
#: The advisory lock (a key of PostgreSQL's one 64-bit space) a write to the index holds
#: for its transaction: one writer at a time, as SQLite's file has.
WRITE_LOCK = 0x63687568616E_01  # "chuhan" and 1
#: The lock creating the schema takes (two processes starting at once on a new database).
SCHEMA_LOCK = 0x63687568616E_02

_T = TypeVar("_T")
Row = tuple[Any, ...]


#: How long opening an index on PostgreSQL may wait for its server.
CONNECT_SECONDS = 10.0
#: How much longer than its statements' bound a reading connection waits for an answer
#: before it gives up on the server (which should have cancelled the statement itself).
ANSWER_GRACE = 5.0


class IndexStoreError(Exception):
    """The store of the index failed or is not one (its message says why)."""


class IndexBusy(IndexStoreError):
    """Another process is writing the index (an import): try again when it has finished."""


def is_index_url(location: str | Path) -> bool:
    """Whether ``location`` names a PostgreSQL database rather than a SQLite file."""
    return str(location).startswith(("postgresql://", "postgres://"))


def shown_location(location: str | Path) -> str:
    """``location`` as it may be told: a file's path, a database's address without its
    password."""
    return re.sub(r"//([^:@/]*):[^@/]*@", r"//\1@", str(location))


class IndexConnection(Protocol):
    """One connection to the index's store, used by one thread at a time."""

    #: ``sqlite`` or ``postgresql``.
    dialect: str
    #: The schema's words that differ between the stores: ``id`` (a table's own id
    #: column), ``int`` (an integer column), ``blob``, ``without_rowid`` (a table's
    #: ending), ``rowid`` (the refusals' order column: SQLite's own, a column of
    #: PostgreSQL's).
    words: dict[str, str]
    #: Where the index is (a path, or the address without its password).
    location: str

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """The rows a query gives."""
        ...

    def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """The first row a query gives, or ``None``."""
        ...

    def named(self, sql: str, params: Sequence[Any] = ()) -> tuple[list[str], list[Row]]:
        """A query's column names and rows."""
        ...

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        """Run a statement."""
        ...

    def insert(self, sql: str, params: Sequence[Any]) -> int:
        """Run an ``INSERT`` into a table with an ``id`` column: the new row's id."""
        ...

    def copy(
        self, table: str, columns: Sequence[str], rows: Iterable[Row], conflict: str = ""
    ) -> None:
        """Add ``rows`` (values of ``columns``) to ``table``, with the ``ON CONFLICT ...``
        clause given, if any (``excluded`` names the row added)."""
        ...

    def create(self, schema: str) -> None:
        """Create the tables of ``schema`` (``;``-separated statements, each
        ``CREATE TABLE IF NOT EXISTS``) and what else the store needs (PostgreSQL's
        schema), once however many processes start at once."""
        ...

    def begin_write(self) -> None:
        """Begin a write transaction, as the index's one writer. Raises
        :class:`IndexBusy` when another process is writing."""
        ...

    def commit(self) -> None: ...

    def rollback(self) -> None: ...

    def close(self) -> None: ...


def open_index_connection(
    location: str | Path, *, statement_seconds: float | None = None
) -> IndexConnection:
    """A connection to the index at ``location``: a PostgreSQL address, else a SQLite file
    (created with its folder when missing; ``:memory:`` for one in memory).
    ``statement_seconds``: how long one statement of a PostgreSQL connection may take (see
    :class:`PostgresIndex`); a SQLite file is read in the process, with no server to wait
    for."""
    if is_index_url(location):
        return PostgresIndex(str(location), statement_seconds=statement_seconds)
    return SqliteIndex(location)


class SqliteIndex:
    """The index in a SQLite file, in write-ahead-log mode (readers read beside a writer)."""

    dialect = "sqlite"

    def __init__(self, path: str | Path) -> None:
        self.words = {
            "id": "INTEGER PRIMARY KEY",
            "int": "INTEGER",
            "blob": "BLOB",
            "without_rowid": "WITHOUT ROWID",
            "rowid": "",
        }
        self.location = str(path)
        if self.location != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.location, isolation_level=None)
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA busy_timeout = 10000")
        except sqlite3.DatabaseError as error:
            raise IndexStoreError(str(error)) from None

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return self._db.execute(sql, params).fetchall()

    def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        row: Row | None = self._db.execute(sql, params).fetchone()
        return row

    def named(self, sql: str, params: Sequence[Any] = ()) -> tuple[list[str], list[Row]]:
        cursor = self._db.execute(sql, params)
        rows = cursor.fetchall()
        return [column[0] for column in cursor.description], rows

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self._db.execute(sql, params)

    def insert(self, sql: str, params: Sequence[Any]) -> int:
        new_id = self._db.execute(sql, params).lastrowid
        assert new_id is not None
        return new_id

    def copy(
        self, table: str, columns: Sequence[str], rows: Iterable[Row], conflict: str = ""
    ) -> None:
        marks = ", ".join("?" * len(columns))
        self._db.executemany(
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks}) {conflict}", rows
        )

    def create(self, schema: str) -> None:
        try:
            self._db.executescript(schema)
        except sqlite3.DatabaseError as error:
            raise IndexStoreError(str(error)) from None

    def begin_write(self) -> None:
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            raise IndexBusy(str(error)) from None

    def commit(self) -> None:
        self._db.execute("COMMIT")

    def rollback(self) -> None:
        self._db.execute("ROLLBACK")

    def close(self) -> None:
        self._db.close()


@lru_cache(maxsize=512)
def _numbered(sql: str) -> str:
    """``sql`` with its ``?`` placeholders numbered as PostgreSQL's (``$1``, ``$2``...);
    a ``?`` inside a quoted string is left."""
    parts = re.split(r"('(?:[^']|'')*')", sql)
    number = 0
    for index in range(0, len(parts), 2):
        pieces = parts[index].split("?")
        text = pieces[0]
        for piece in pieces[1:]:
            number += 1
            text += f"${number}{piece}"
        parts[index] = text
    return "".join(parts)


class PostgresIndex:
    """The index in a PostgreSQL database, in the schema :data:`PG_SCHEMA`: asyncpg on an
    event loop of this connection's own thread. Outside :meth:`begin_write` each statement
    is its own transaction.

    ``statement_seconds`` bounds each statement (a server's readers: a table locked by
    someone else, a server or a network that stops answering): the server cancels it
    (``statement_timeout``), and the connection stops waiting for an answer a little later
    (:data:`ANSWER_GRACE` seconds: a server that does not answer at all); either way an
    :class:`IndexStoreError` that says so. None (an import's writes): no bound."""

    dialect = "postgresql"

    def __init__(self, url: str, *, statement_seconds: float | None = None) -> None:
        self.words = {
            "id": "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
            "int": "BIGINT",
            "blob": "BYTEA",
            "without_rowid": "",
            "rowid": "rowid BIGINT GENERATED BY DEFAULT AS IDENTITY,",
        }
        try:
            import asyncpg  # type: ignore[import-untyped]
        except ImportError:
            raise IndexStoreError(
                "an explorer index on PostgreSQL needs asyncpg: pip install 'chuhan[postgresql]'"
            ) from None
        self._asyncpg = asyncpg
        self.location = shown_location(url)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="explorer-postgresql", daemon=True
        )
        self._thread.start()
        self._transaction: Any = None
        self._statement_seconds = statement_seconds
        settings = {"search_path": PG_SCHEMA, "application_name": "chuhan explorer"}
        if statement_seconds is not None:
            settings["statement_timeout"] = str(max(1, round(statement_seconds * 1000)))
        try:
            self._db: Any = self._run(
                asyncpg.connect(
                    url,
                    timeout=CONNECT_SECONDS,
                    command_timeout=(
                        None if statement_seconds is None else statement_seconds + ANSWER_GRACE
                    ),
                    server_settings=settings,
                )
            )
        except BaseException:
            self._stop_loop()
            raise

    def _run(self, work: Coroutine[Any, Any, _T]) -> _T:
        try:
            return asyncio.run_coroutine_threadsafe(work, self._loop).result()
        except (self._asyncpg.QueryCanceledError, TimeoutError) as error:
            if self._statement_seconds is None:  # (cancelled by someone else)
                raise IndexStoreError(f"{type(error).__name__}: {error}") from error
            raise IndexStoreError(
                f"a statement took longer than {self._statement_seconds:g} s and was "
                "cancelled (the database is busy, locked or not answering)"
            ) from error
        except (OSError, self._asyncpg.PostgresError, self._asyncpg.InterfaceError) as error:
            raise IndexStoreError(f"{type(error).__name__}: {error}") from error

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return [tuple(row) for row in self._run(self._db.fetch(_numbered(sql), *params))]

    def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        row = self._run(self._db.fetchrow(_numbered(sql), *params))
        return None if row is None else tuple(row)

    def named(self, sql: str, params: Sequence[Any] = ()) -> tuple[list[str], list[Row]]:
        async def query() -> tuple[list[str], list[Row]]:
            statement = await self._db.prepare(_numbered(sql))
            rows = await statement.fetch(*params)
            return [attribute.name for attribute in statement.get_attributes()], [
                tuple(row) for row in rows
            ]

        return self._run(query())

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self._run(self._db.execute(_numbered(sql), *params))

    def insert(self, sql: str, params: Sequence[Any]) -> int:
        return int(self._run(self._db.fetchval(_numbered(sql) + " RETURNING id", *params)))

    def copy(
        self, table: str, columns: Sequence[str], rows: Iterable[Row], conflict: str = ""
    ) -> None:
        records = list(rows)
        if not records:
            return

        async def copy() -> None:
            if not conflict:
                await self._db.copy_records_to_table(table, records=records, columns=columns)
                return
            # COPY takes no ON CONFLICT: the rows go to a temporary table like the table,
            # then into it with the clause.
            staging = f"copy_{table}"
            await self._db.execute(
                f"CREATE TEMPORARY TABLE IF NOT EXISTS {staging} "
                f"(LIKE {table} INCLUDING DEFAULTS) ON COMMIT DELETE ROWS"
            )
            await self._db.execute(f"TRUNCATE {staging}")
            await self._db.copy_records_to_table(staging, records=records, columns=columns)
            listed = ", ".join(columns)
            await self._db.execute(
                f"INSERT INTO {table} ({listed}) SELECT {listed} FROM {staging} {conflict}"
            )

        self._run(copy())

    def create(self, schema: str) -> None:
        async def create() -> None:
            async with self._db.transaction():
                await self._db.execute("SELECT pg_advisory_xact_lock($1)", SCHEMA_LOCK)
                await self._db.execute(f"CREATE SCHEMA IF NOT EXISTS {PG_SCHEMA}")
                await self._db.execute(schema)

        self._run(create())

    def begin_write(self) -> None:
        async def begin() -> None:
            transaction = self._db.transaction()
            await transaction.start()
            try:
                taken = await self._db.fetchval("SELECT pg_try_advisory_xact_lock($1)", WRITE_LOCK)
            except BaseException:
                await transaction.rollback()
                raise
            if not taken:
                await transaction.rollback()
                raise IndexBusy("another process holds the index's write lock")
            self._transaction = transaction

        self._run(begin())

    def commit(self) -> None:
        transaction, self._transaction = self._transaction, None
        if transaction is not None:
            self._run(transaction.commit())

    def rollback(self) -> None:
        transaction, self._transaction = self._transaction, None
        if transaction is not None and not self._db.is_closed():
            self._run(transaction.rollback())

    def close(self) -> None:
        try:
            if not self._db.is_closed():
                self._run(self._db.close())
        finally:
            self._stop_loop()

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()
