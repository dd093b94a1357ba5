"""Transaction bodies: one generator of statements, run by the SQLite driver (in its
group commit) and the PostgreSQL driver (in a transaction) alike, or fed rows by a test."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from chuhan.web.db import Store, StoreError, open_store
from chuhan.web.db.errors import Duplicate
from chuhan.web.db.statements import (
    All,
    Body,
    Dialects,
    Do,
    Lock,
    One,
    Statement,
    numbered,
    run_fed,
)


def keep(key: str, value: str) -> Body[str]:
    """Keep ``value`` under ``key`` unless a value is kept already (a body that meets a
    duplicate key ends: on PostgreSQL the transaction can do nothing more)."""
    yield Lock(f"meta {key}")
    try:
        yield Do("INSERT INTO meta (key, value) VALUES (?, ?)", (key, value))
    except Duplicate:
        return "taken"
    found = yield One("SELECT value FROM meta WHERE key = ?", (key,))
    return str(found["value"])


def keys_like(pattern: str) -> Body[list[str]]:
    found = yield All("SELECT key FROM meta WHERE key LIKE ? ORDER BY key", (pattern,))
    return [str(row["key"]) for row in found]


def run(location: str | Path, work: Callable[[Store], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        store = open_store(location)
        await store.open()
        try:
            return await work(store)
        finally:
            await store.close()

    return asyncio.run(main())


def test_parameters_are_numbered_for_postgresql_outside_quoted_strings() -> None:
    assert numbered("SELECT ? WHERE a = ? AND b = 'what?' AND c = ?") == (
        "SELECT $1 WHERE a = $2 AND b = 'what?' AND c = $3"
    )


def test_a_body_is_tested_by_feeding_it_rows() -> None:
    seen: list[Statement] = []

    def answer_value(statement: Statement) -> Any:
        seen.append(statement)
        return {"value": "abc"} if isinstance(statement, One) else 1

    assert run_fed(keep("secret", "abc"), answer_value) == "abc"
    assert seen == [
        Lock("meta secret"),
        Do("INSERT INTO meta (key, value) VALUES (?, ?)", ("secret", "abc")),
        One("SELECT value FROM meta WHERE key = ?", ("secret",)),
    ]


def test_a_duplicate_key_is_thrown_into_the_body_at_its_statement() -> None:
    answers: list[Any] = [None, Duplicate("taken")]
    assert run_fed(keep("secret", "new"), lambda statement: answers.pop(0)) == "taken"
    assert answers == []


def test_both_drivers_run_one_body(database: str | Path) -> None:
    async def work(store: Store) -> tuple[str, str, list[str], int]:
        first = await store.write(keep("body a", "1"), "keeping a")
        second = await store.write(keep("body a", "2"), "keeping a again")
        found = await store.read(keys_like("body %"), "listing")

        def rename() -> Body[int]:
            changed = yield Do("UPDATE meta SET value = ? WHERE key LIKE ?", ("3", "body %"))
            return int(changed)

        return first, second, found, await store.write(rename(), "renaming")

    assert run(database, work) == ("1", "taken", ["body a"], 1)


def test_a_failing_body_writes_nothing_and_its_error_is_a_store_error(
    database: str | Path,
) -> None:
    def half_done() -> Body[None]:
        yield Do("INSERT INTO meta (key, value) VALUES (?, ?)", ("half", "done"))
        yield Do("INSERT INTO no_such_table VALUES (?)", (1,))

    async def work(store: Store) -> list[str]:
        with pytest.raises(StoreError) as raised:
            await store.write(half_done(), "writing half")
        assert isinstance(raised.value, RuntimeError)  # a service error, never bad input
        assert not isinstance(raised.value, ValueError)
        return await store.read(keys_like("half"), "listing")

    assert run(database, work) == []


def test_a_dialect_difference_is_data_in_one_body(database: str | Path) -> None:
    def length() -> Body[int]:
        found = yield One(
            Dialects(sqlite="SELECT length(?) AS n", postgresql="SELECT char_length(?::text) AS n"),
            ("four",),
        )
        return int(found["n"])

    assert run(database, lambda store: store.read(length(), "measuring")) == 4


def test_a_row_read_for_update_is_read_on_both(database: str | Path) -> None:
    def locked() -> Body[str | None]:
        yield Do("INSERT INTO meta (key, value) VALUES (?, ?)", ("row", "x"))
        found = yield One("SELECT value FROM meta WHERE key = ?", ("row",), for_update=True)
        return None if found is None else str(found["value"])

    assert run(database, lambda store: store.write(locked(), "locking")) == "x"
