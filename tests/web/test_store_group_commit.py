"""Writes that arrive together are committed together: one that fails takes only itself
back (the group is run again with a savepoint each), and each is acknowledged only once
committed."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from test_store_checkpoint import NEVER
from web_helpers import stored_game

from chuhan.web.db import StoreError
from chuhan.web.db.sqlite import SqliteStore


def test_writes_arriving_together_are_kept_apart_by_savepoints(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"

    async def run() -> list[BaseException | None]:
        store = SqliteStore(db, checkpoint_seconds=NEVER)
        try:
            rows = [stored_game(n) for n in range(40)]
            await asyncio.gather(*(store.create_game(row, {f"t{row.id}": "both"}) for row in rows))
            for row in rows:
                row.moves.append("h2e2")
                row.version += 1
            missing = stored_game(999)  # was never created: its save must fail, alone
            missing.version = 2
            saves = [store.save_game(row, "move", {"move": "h2e2"}) for row in rows]
            saves.insert(20, store.save_game(missing, "move", {"move": "h2e2"}))
            return await asyncio.gather(*saves, return_exceptions=True)
        finally:
            await store.close()

    outcomes = asyncio.run(run())
    assert [type(o).__name__ for o in outcomes].count("StoreError") == 1
    assert isinstance(outcomes[20], StoreError) and "game-0999" in str(outcomes[20])
    with sqlite3.connect(db) as reader:
        saved = reader.execute("SELECT count(*) FROM events WHERE kind='move'").fetchone()[0]
        assert saved == 40
        assert reader.execute("SELECT count(*) FROM games WHERE version=2").fetchone()[0] == 40


def test_a_group_of_moves_that_all_succeed_is_written_without_savepoints(
    tmp_path: Path,
) -> None:
    """A move's save is its two statements in the group's transaction: the savepoints that
    keep a failing write apart are spent only when one fails."""
    db = tmp_path / "games.sqlite3"
    statements: list[str] = []

    async def run() -> None:
        store = SqliteStore(db, checkpoint_seconds=NEVER)
        try:
            rows = [stored_game(n) for n in range(10)]
            await asyncio.gather(*(store.create_game(row, {f"t{row.id}": "both"}) for row in rows))
            for row in rows:
                row.moves.append("h2e2")
                row.version += 1
            store._db.set_trace_callback(statements.append)
            await asyncio.gather(*(store.save_game(row, "move", {"move": "h2e2"}) for row in rows))
            store._db.set_trace_callback(None)
        finally:
            await store.close()

    asyncio.run(run())
    words = [statement.split()[0].upper() for statement in statements]
    assert "SAVEPOINT" not in words and "RELEASE" not in words, statements
    assert words.count("UPDATE") == 10 and words.count("INSERT") == 10
    with sqlite3.connect(db) as reader:
        assert reader.execute("SELECT count(*) FROM games WHERE version=2").fetchone()[0] == 10


def test_a_store_used_from_one_event_loop_then_another_still_commits(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "games.sqlite3", checkpoint_seconds=NEVER)
    asyncio.run(store.create_game(stored_game(1), {"t1": "both"}))  # that loop ends here
    row = stored_game(2)

    async def later() -> None:
        await asyncio.wait_for(store.create_game(row, {"t2": "both"}), 10)
        await store.close()

    asyncio.run(later())


@pytest.mark.parametrize("count", [1, 25])
def test_each_write_is_acknowledged_after_its_commit(tmp_path: Path, count: int) -> None:
    db = tmp_path / "games.sqlite3"

    async def run() -> None:
        store = SqliteStore(db, checkpoint_seconds=NEVER)
        try:
            rows = [stored_game(n) for n in range(count)]

            async def create_and_check(row_id: str, make: asyncio.Future[None]) -> None:
                await make
                with sqlite3.connect(db) as reader:  # another connection already sees it
                    query = "SELECT count(*) FROM games WHERE id=?"
                    assert reader.execute(query, (row_id,)).fetchone()[0] == 1

            await asyncio.gather(
                *(
                    create_and_check(r.id, asyncio.ensure_future(store.create_game(r, {})))
                    for r in rows
                )
            )
        finally:
            await store.close()

    asyncio.run(run())
