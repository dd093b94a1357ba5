"""One numbered list of migrations for both databases: a PostgreSQL database numbered by
PostgreSQL's old, shorter list (the list of the release before) opens with everything in
it and is renumbered, never given a step twice."""

from __future__ import annotations

import asyncio

import asyncpg  # type: ignore[import-untyped]
import pytest
from web_helpers import stored_game

from chuhan.web.accounts.repository import AccountRepository
from chuhan.web.db.migrations import MIGRATIONS, NUMBERING, SCHEMA_VERSION
from chuhan.web.db.postgres import PostgresStore
from chuhan.web.db.rows import COLUMNS, values

#: PostgreSQL's old numbering, as the release before wrote it: its version n had these
#: steps of :data:`MIGRATIONS` (its first step was the first two here; step texts never
#: change once shipped, so these are the very statements it ran).
OLD_POSTGRESQL_STEPS = {1: (0, 1), 2: (0, 1, 2), 3: (0, 1, 2, 3)}


async def old_postgresql_database(url: str, version: int) -> None:
    """A database as the release before left it at its (old) ``version``: its tables, a
    game, an account when it had accounts, and ``meta`` with no numbering row."""
    connection = await asyncpg.connect(url)
    try:
        for step in OLD_POSTGRESQL_STEPS[version]:
            if MIGRATIONS[step].postgresql:
                await connection.execute(MIGRATIONS[step].postgresql)
        await connection.execute(
            "INSERT INTO meta (key, value) VALUES ('schema', $1)", str(version)
        )
        row = values(stored_game(1)) | {"revision": 0}
        await connection.execute(
            f"INSERT INTO games ({', '.join(COLUMNS)}) "
            f"VALUES ({', '.join(f'${n}' for n in range(1, len(COLUMNS) + 1))})",
            *(row[column] for column in COLUMNS),
        )
        if version >= 2:
            await connection.execute(
                "INSERT INTO accounts VALUES ('account-1', 'Ada', 'ada', 'hash', 1.0)"
            )
    finally:
        await connection.close()


async def meta(url: str) -> dict[str, str]:
    connection = await asyncpg.connect(url)
    try:
        return {
            str(r["key"]): str(r["value"]) for r in await connection.fetch("SELECT * FROM meta")
        }
    finally:
        await connection.close()


@pytest.mark.parametrize("old_version", [1, 2, 3])
def test_a_postgresql_database_numbered_the_old_way_opens_whole_and_is_renumbered(
    postgres_url: str, old_version: int
) -> None:
    async def work() -> None:
        await old_postgresql_database(postgres_url, old_version)
        for _ in range(2):  # (opened again, nothing is applied twice)
            store = PostgresStore(postgres_url)
            await store.open()
            try:
                assert await store.load_game("game-0001") is not None
                accounts = AccountRepository(store)
                ada = await accounts.account_by_name("ADA")
                assert (ada is not None) == (old_version >= 2)
                await accounts.rate_game("game-0001", "xiangqi", 1.0)
                assert await accounts.is_rated("game-0001")
            finally:
                await store.close()
        found = await meta(postgres_url)
        assert (found["schema"], found["numbering"]) == (str(SCHEMA_VERSION), NUMBERING)

    asyncio.run(work())


def test_every_step_has_its_statements_for_both_databases() -> None:
    # (a step may have nothing to do in one dialect, on purpose: PostgreSQL had the
    # revisions from its first step)
    assert [bool(step.sqlite.strip()) for step in MIGRATIONS] == [True] * SCHEMA_VERSION
    assert [bool(step.postgresql.strip()) for step in MIGRATIONS] == [
        True,
        False,
        True,
        True,
        True,
        True,
        True,
        True,
        True,
        True,
        True,
        True,
        True,
        True,
        True,
        True,
        True,
        True,
        True,
        True,
    ]
