"""``chuhan db copy``: move a SQLite game database into PostgreSQL, every game intact.

The SQLite file is opened as a server opens it (its owner lock refuses the copy while a
server serves it, and its schema is brought up to date); the PostgreSQL database must hold
no games yet (its schema is made or brought up to date as a server would). Every row is
copied in one PostgreSQL transaction, a batch at a time, and counted on both sides before
it commits: a copy that fails, or does not add up, leaves the destination as it was.

The lobby's open seeks and who is in the lobby (``seeks``, ``lobby_visitors``), the rate
budgets (``budgets``) and the connections held (``holdings``) are not copied: they are live
state, gone with the server that is stopped for the copy (a budget starts full again).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chuhan.web.db import StoreError, shown_location
from chuhan.web.db.migrations import (
    ACCOUNT_TABLES,
    EXPLORER_TABLES,
    NOTICE_TABLES,
    PUSH_TABLES,
    TOURNAMENT_TABLES,
)
from chuhan.web.db.rows import COLUMNS

__all__ = ["CopyReport", "copy_database"]

#: Rows read from SQLite and sent to PostgreSQL at a time.
BATCH = 5_000

#: What is copied: each table's columns, and which of them are times (real numbers).
TABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("games", COLUMNS),
    ("seats", ("token", "game_id", "seat")),
    ("events", ("game_id", "number", "version", "at", "kind", "data")),
    ("chat", ("game_id", "at", "sender", "name", "text")),
    *ACCOUNT_TABLES,
    *NOTICE_TABLES,
    *PUSH_TABLES,
    *TOURNAMENT_TABLES,
    *EXPLORER_TABLES,
)
_REALS = {"created", "updated", "setup_deadline", "clock_at", "at"}
_REALS |= {"settled", "rating", "deviation", "volatility"}
_REALS |= {"seen", "sent", "claimed_until", "retry_at"}
_REALS |= {"starts", "ends"}
#: Columns of those names that are whole numbers in their table.
_NOT_REALS = {("tournament_entrants", "rating")}


@dataclass(frozen=True)
class CopyReport:
    source: str
    destination: str
    rows: dict[str, int]
    unfinished: int
    seconds: float

    def describe(self) -> str:
        rows = self.rows
        return (
            f"copied {rows['games']} games ({self.unfinished} not over), {rows['events']} "
            f"events, {rows['seats']} seat links, {rows['chat']} chat lines and "
            f"{rows['accounts']} accounts (with their ratings) from "
            f"{self.source} to {self.destination} in {self.seconds:.1f} s"
        )


def _converter(
    table: str, columns: tuple[str, ...]
) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    reals = [
        i for i, name in enumerate(columns) if name in _REALS and (table, name) not in _NOT_REALS
    ]

    def convert(values: tuple[Any, ...]) -> tuple[Any, ...]:
        if not reals:
            return values
        out = list(values)
        for i in reals:
            if out[i] is not None:
                out[i] = float(out[i])
        return tuple(out)

    return convert


async def copy_database(source: str | Path, destination: str) -> CopyReport:
    """Copy every game, seat link, event and chat line of the SQLite database ``source``
    into the empty PostgreSQL database ``destination`` (raises :class:`StoreError` saying
    why when it cannot)."""
    import asyncpg  # type: ignore[import-untyped]

    from chuhan.web.db.postgres import PostgresStore
    from chuhan.web.db.sqlite import SqliteStore

    started = time.monotonic()
    shown = shown_location(destination)
    sqlite = SqliteStore(source)
    try:
        target = PostgresStore(destination)
        await target.open()  # (makes or upgrades the schema, as a server would)
        await target.close()
        try:
            connection = await asyncpg.connect(destination, timeout=10)
        except (OSError, asyncpg.PostgresError) as error:
            raise StoreError(f"cannot reach the game database {shown}: {error}") from None
        try:
            held = await connection.fetchval("SELECT count(*) FROM games")
            if held:
                raise StoreError(
                    f"the game database {shown} already holds {held} games: chuhan db copy "
                    "fills an empty database (give it a new one)"
                )
            copied: dict[str, int] = {}
            try:
                async with connection.transaction():
                    for table, columns in TABLES:
                        copied[table] = await _copy_table(sqlite, connection, table, columns)
                    for table, _ in TABLES:
                        there = await connection.fetchval(f"SELECT count(*) FROM {table}")
                        if there != copied[table]:
                            raise StoreError(
                                f"the copy does not add up: {copied[table]} rows of {table} "
                                f"read, {there} in {shown}; nothing was copied"
                            )
                    unfinished = await connection.fetchval(
                        "SELECT count(*) FROM games WHERE status <> 'over'"
                    )
            except asyncpg.PostgresError as error:
                raise StoreError(
                    f"the copy into {shown} failed ({error}); nothing was copied"
                ) from None
        finally:
            await connection.close()
    finally:
        await sqlite.close()
    return CopyReport(str(source), shown, copied, int(unfinished), time.monotonic() - started)


async def _copy_table(sqlite: Any, connection: Any, table: str, columns: tuple[str, ...]) -> int:
    convert = _converter(table, columns)
    after, count = 0, 0
    while True:
        batch = await sqlite.table_rows(table, columns, after, BATCH)
        if not batch:
            return count
        after = batch[-1][0]
        records = [convert(values) for _, values in batch]
        await connection.copy_records_to_table(table, records=records, columns=list(columns))
        count += len(records)
