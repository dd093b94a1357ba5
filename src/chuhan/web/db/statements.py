"""Transaction bodies and the statements they yield: a transaction written once for both
databases.

A *body* is a generator (the same trick as the engine session in :mod:`chuhan.engine`):
it yields statements and receives each one's result, and what it returns is the
transaction's result. It does no I/O of its own, so a driver runs it: the SQLite store
on its writer thread inside its group commit (:meth:`SqliteStore.write
<chuhan.web.db.sqlite.SqliteStore.write>`), the PostgreSQL store inside an ``asyncpg``
transaction (:meth:`PostgresStore.write <chuhan.web.db.postgres.PostgresStore.write>`);
reads go through ``read`` (no transaction of their own). A test runs a body with
:func:`run_fed`, feeding it rows: no database needed::

    def account_by_id(account_id: str) -> Body[Account | None]:
        found = yield One("SELECT ... FROM accounts WHERE id = ?", (account_id,))
        return None if found is None else account_of(found)

The statements:

- :class:`One`: the first row (a mapping by column name), or None;
- :class:`All`: every row;
- :class:`Do`: how many rows it changed;
- :class:`Lock`: an advisory lock on a text key until the transaction ends (PostgreSQL,
  where several processes write at once); nothing on SQLite, whose one writer thread
  already runs each body alone.

The SQL is written once, with ``?`` parameters: the PostgreSQL driver numbers them
(``$1``, ``$2``...). What differs between the dialects is data, never a second body:
``One(..., for_update=True)`` locks the rows read (``FOR UPDATE`` on PostgreSQL; nothing
on SQLite), and a statement whose text differs gives both (:class:`Dialects`). A unique
key already taken is thrown into the body as :class:`~chuhan.web.db.errors.Duplicate` at
the statement that met it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeAlias, TypeVar

__all__ = [
    "All",
    "Body",
    "Dialects",
    "Do",
    "Lock",
    "One",
    "Row",
    "Statement",
    "counted",
    "numbered",
    "run_fed",
    "text_for",
]

T = TypeVar("T")

#: A row as a body sees it: its values by column name (``sqlite3.Row``, ``asyncpg.Record``,
#: or a plain dict in a test).
Row: TypeAlias = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Dialects:
    """A statement whose text differs between the databases."""

    sqlite: str
    postgresql: str


@dataclass(frozen=True, slots=True)
class One:
    """The statement's first row, or None. ``for_update``: lock the rows read until the
    transaction ends (PostgreSQL's ``FOR UPDATE``)."""

    sql: str | Dialects
    args: Sequence[Any] = ()
    for_update: bool = False


@dataclass(frozen=True, slots=True)
class All:
    """Every row of the statement."""

    sql: str | Dialects
    args: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class Do:
    """A statement run for its effect: the number of rows it changed."""

    sql: str | Dialects
    args: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class Lock:
    """An advisory lock on ``key`` until the transaction ends (PostgreSQL; nothing on
    SQLite). Several locks are taken in one fixed order by every body, so two
    transactions never wait for each other."""

    key: str


Statement: TypeAlias = One | All | Do | Lock
#: A transaction body returning ``T``.
Body: TypeAlias = Generator[Statement, Any, T]


def text_for(sql: str | Dialects, dialect: str) -> str:
    """The statement's text in ``dialect`` (``sqlite`` or ``postgresql``)."""
    if isinstance(sql, Dialects):
        return sql.sqlite if dialect == "sqlite" else sql.postgresql
    return sql


_PARAMETER = re.compile(r"'(?:[^']|'')*'|\?")


@lru_cache(maxsize=512)
def numbered(sql: str) -> str:
    """``sql`` with its ``?`` parameters numbered as PostgreSQL wants them (``$1``...);
    a ``?`` inside a quoted string is left alone."""
    count = 0

    def number(found: re.Match[str]) -> str:
        nonlocal count
        if found.group() != "?":
            return found.group()
        count += 1
        return f"${count}"

    return _PARAMETER.sub(number, sql)


def run_fed(body: Body[T], answer: Callable[[Statement], Any]) -> T:
    """Run ``body`` with ``answer`` giving each statement's result (for tests: rows from a
    list, the statements recorded). An exception ``answer`` returns (not raises) is thrown
    into the body at that statement, as a driver throws
    :class:`~chuhan.web.db.errors.Duplicate`."""
    try:
        statement = next(body)
        while True:
            result = answer(statement)
            if isinstance(result, BaseException):
                statement = body.throw(result)
            else:
                statement = body.send(result)
    except StopIteration as stop:
        result_value: T = stop.value
        return result_value


def counted(body: Body[T], rows: list[int]) -> Body[T]:
    """``body`` with the rows its reads gave added up in ``rows[0]`` (every row of an
    :class:`All`, the row of a :class:`One`): what a transaction reads, for benches and
    tests. An exception thrown in (a driver's :class:`~chuhan.web.db.errors.Duplicate`)
    reaches ``body``."""
    statement = next(body)
    while True:
        try:
            answer = yield statement
        except Exception as error:  # (thrown in by the driver: the body may catch it)
            try:
                statement = body.throw(error)
            except StopIteration as stop:
                thrown: T = stop.value
                return thrown
            continue
        if isinstance(statement, All):
            rows[0] += len(answer)
        elif isinstance(statement, One) and answer is not None:
            rows[0] += 1
        try:
            statement = body.send(answer)
        except StopIteration as stop:
            done: T = stop.value
            return done
