"""The accounts' part of the store contract, on both stores: sessions and attempts that
hold across processes, rated games settled exactly once by stores racing for them, an
old database upgraded, and ``chuhan db copy`` carrying accounts and ratings over."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import pytest
from test_store_migrations import old_postgresql_database
from test_store_schema import release_1_database
from web_helpers import stored_game

from chuhan.cli import main
from chuhan.web.accounts.ratings import NEW_ACCOUNT_GAMES, settle_game
from chuhan.web.accounts.repository import (
    RATING_WRITE,
    Account,
    AccountRepository,
    NameTaken,
    Rating,
    do,
    rating_values,
)
from chuhan.web.db import Store, open_store
from chuhan.web.db.migrations import SCHEMA_VERSION

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")


def run(location: str | Path, work: Callable[..., Awaitable[Any]], *, stores: int = 1) -> Any:
    """``work(*stores)`` on ``stores`` stores of one database (several only for
    PostgreSQL: each is what one server process holds)."""

    async def body() -> Any:
        opened: list[Store] = []
        try:
            for _ in range(stores):
                store = open_store(location)
                await store.open()
                opened.append(store)
            return await work(*opened)
        finally:
            for store in opened:
                await store.close()

    return asyncio.run(body())


def account(number: int) -> Account:
    return Account(f"account-{number}", f"player{number}", 1.8e9, "$argon2id$not-a-real-hash")


async def established(store: Store, number: int) -> None:
    """Account ``number`` is no longer new in xiangqi (its rating still 1500, deviation
    350): the rule for new opponents leaves its games alone."""
    rating = Rating(1500.0, 350.0, 0.06, games=NEW_ACCOUNT_GAMES)
    values = rating_values(f"account-{number}", "xiangqi", rating)
    await store.write(do(RATING_WRITE, *values), "making an account established")


async def finished_game(store: Store, number: int, first: int, second: int, winner: str) -> str:
    """A finished game ``number`` between two accounts, rated."""
    row = stored_game(number, kind="friend")
    await store.create_game(row, {f"t{number}a": "first", f"t{number}b": "second"})
    await AccountRepository(store).rate_game(row.id, "xiangqi", row.created)
    await AccountRepository(store).attach_account(row.id, "first", f"account-{first}")
    await AccountRepository(store).attach_account(row.id, "second", f"account-{second}")
    row.moves = ["h2e2", "h9g7", "h0g2", "i9h9"]  # (both players moved twice: it counts)
    row.status = "over"
    row.version += 1
    row.result = {"winner": winner, "termination": "resignation", "result": "1-0"}
    await store.save_game(row, "resign", {})
    return row.id


def test_a_name_is_one_account_whatever_its_case(database: str | Path) -> None:
    async def work(store: Store) -> None:
        await AccountRepository(store).create_account(account(1))
        with pytest.raises(NameTaken):
            await AccountRepository(store).create_account(Account("other", "PLAYER1", 1.8e9, "-"))
        found = await AccountRepository(store).account_by_name("Player1")
        assert found is not None and found.id == "account-1"

    run(database, work)


def test_the_session_secret_is_the_first_one_kept(database: str | Path) -> None:
    async def work(store: Store) -> None:
        assert await AccountRepository(store).shared_secret("s", "first") == "first"
        assert await AccountRepository(store).shared_secret("s", "second") == "first"

    run(database, work)


def test_a_session_expires(database: str | Path) -> None:
    async def work(store: Store) -> None:
        await AccountRepository(store).create_account(account(1))
        await AccountRepository(store).create_session("key", "account-1", 100.0, 200.0)
        assert await AccountRepository(store).session_account("key", 199.0) is not None
        assert await AccountRepository(store).session_account("key", 200.0) is None

    run(database, work)


def test_a_seat_keeps_the_first_account_that_takes_it(database: str | Path) -> None:
    async def work(store: Store) -> None:
        for number in (1, 2):
            await AccountRepository(store).create_account(account(number))
        row = stored_game(1, kind="friend")
        await store.create_game(row, {"a": "first", "b": "second"})
        assert (
            await AccountRepository(store).attach_account(row.id, "first", "account-1")
            == "account-1"
        )
        assert (
            await AccountRepository(store).attach_account(row.id, "first", "account-2")
            == "account-1"
        )
        assert set(await AccountRepository(store).game_accounts(row.id)) == {"first"}

    run(database, work)


def test_an_unrated_or_unfinished_game_is_not_settled(database: str | Path) -> None:
    async def work(store: Store) -> None:
        row = stored_game(1, kind="friend")
        await store.create_game(row, {"a": "first", "b": "second"})
        assert await settle_game(store, row.id, 1e9) is None
        await AccountRepository(store).rate_game(row.id, "xiangqi", row.created)
        assert await settle_game(store, row.id, 1e9) is None
        assert await AccountRepository(store).unsettled_rated_games(10) == []

    run(database, work)


def test_a_rated_game_without_two_accounts_is_settled_as_not_counted(
    database: str | Path,
) -> None:
    async def work(store: Store) -> None:
        await AccountRepository(store).create_account(account(1))
        row = stored_game(1, kind="friend", status="over", result={"winner": "first"})
        await store.create_game(row, {"a": "first", "b": "second"})
        await AccountRepository(store).rate_game(row.id, "xiangqi", row.created)
        await AccountRepository(store).attach_account(row.id, "first", "account-1")
        assert await AccountRepository(store).unsettled_rated_games(10) == [row.id]
        settled = await settle_game(store, row.id, 1e9)
        assert settled is not None and not settled.counted
        assert await AccountRepository(store).ratings_of("account-1") == {}
        assert await AccountRepository(store).unsettled_rated_games(10) == []

    run(database, work)


def test_deleting_an_account_leaves_its_games_and_the_opponents_rating(
    database: str | Path,
) -> None:
    async def work(store: Store) -> None:
        for number in (1, 2):
            await AccountRepository(store).create_account(account(number))
        game_id = await finished_game(store, 1, 1, 2, "first")
        await settle_game(store, game_id, 1e9)
        await AccountRepository(store).delete_account("account-1")
        assert await AccountRepository(store).account_by_id("account-1") is None
        assert await AccountRepository(store).ratings_of("account-1") == {}
        assert (await AccountRepository(store).ratings_of("account-2"))["xiangqi"].losses == 1
        assert await store.load_game(game_id) is not None
        assert set(await AccountRepository(store).game_accounts(game_id)) == {"second"}

    run(database, work)


# ---------------------------------------------------------------------- several processes


def test_a_session_ended_on_one_process_is_gone_on_the_other(postgres_url: str) -> None:
    async def work(one: Store, other: Store) -> None:
        await AccountRepository(one).create_account(account(1))
        await AccountRepository(one).create_session("key", "account-1", 100.0, 1e10)
        assert await AccountRepository(other).session_account("key", 101.0) is not None
        await AccountRepository(other).end_session("key")
        assert await AccountRepository(one).session_account("key", 102.0) is None

    run(postgres_url, work, stores=2)


def test_attempts_racing_on_two_processes_stop_at_the_limit(postgres_url: str) -> None:
    async def work(one: Store, other: Store) -> None:
        tries = [
            AccountRepository(store).take_attempt(
                f"try-{n}", {"name x": 5, f"address {n % 3}": 100}, 60.0, 1e9
            )
            for n, store in enumerate([one, other] * 10)
        ]
        waits = await asyncio.gather(*tries)
        assert sum(1 for wait in waits if wait == 0) == 5
        assert all(wait == pytest.approx(60.0) for wait in waits if wait)

    run(postgres_url, work, stores=2)


def test_rated_games_settled_by_two_processes_at_once_count_exactly_once(
    postgres_url: str,
) -> None:
    # Six accounts, every pair plays one game (fifteen games, each account in five), and
    # both processes settle every game at the same moment.
    pairs = [(a, b) for a in range(6) for b in range(a + 1, 6)]

    async def work(one: Store, other: Store) -> None:
        for number in range(6):
            await AccountRepository(one).create_account(account(number))
            await established(one, number)
        games = [
            await finished_game(one, n, a, b, "first" if n % 2 else "second")
            for n, (a, b) in enumerate(pairs)
        ]
        both = await asyncio.gather(
            *(settle_game(store, game_id, 1e9) for game_id in games for store in (one, other))
        )
        for game_id, first, second in zip(games, both[::2], both[1::2], strict=True):
            assert first is not None and first == second, game_id
            assert first.counted
        for number in range(6):
            account_id = f"account-{number}"
            rating = (await AccountRepository(one).ratings_of(account_id))["xiangqi"]
            history = await AccountRepository(one).rating_history(account_id, "xiangqi", 100)
            # no change lost, none twice
            assert rating.games - NEW_ACCOUNT_GAMES == len(history) == 5
            # Each game changed the rating the one before it left (in whatever order the two
            # processes settled them): the changes make one chain from 1500 to the rating.
            # (The history's order cannot say which came last: every game here was settled
            # at the same second.)
            steps = [
                (change.before, change.after)
                for settled in both[::2]
                for change in (settled.changes.values() if settled else ())
                if change.account_id == account_id
            ]
            reached = 1500.0
            while steps:
                step = next((s for s in steps if s[0] == pytest.approx(reached)), None)
                assert step is not None, (account_id, reached, steps)
                steps.remove(step)
                reached = step[1]
            assert rating.rating == pytest.approx(reached)
            assert {round(entry[1], 6) for entry in history} >= {round(reached, 6)}

    run(postgres_url, work, stores=2)


def test_rated_games_of_one_pair_settled_at_once_count_once_a_day(postgres_url: str) -> None:
    async def work(one: Store, other: Store) -> None:
        for number in (1, 2):
            await AccountRepository(one).create_account(account(number))
        games = [await finished_game(one, n, 1, 2, "first") for n in range(6)]
        settled = await asyncio.gather(
            *(settle_game((one, other)[n % 2], game_id, 1e9) for n, game_id in enumerate(games))
        )
        assert sum(1 for s in settled if s is not None and s.counted) == 1
        assert (await AccountRepository(one).ratings_of("account-1"))["xiangqi"].games == 1

    run(postgres_url, work, stores=2)


# ---------------------------------------------------------------------- upgrades, copies


def test_a_sqlite_database_of_an_earlier_release_gains_accounts(tmp_path: Path) -> None:
    db = release_1_database(tmp_path / "games.sqlite3")

    async def work(store: Store) -> None:
        await AccountRepository(store).create_account(account(1))
        assert (
            await AccountRepository(store).attach_account("old-game", "first", "account-1")
            == "account-1"
        )
        assert (await AccountRepository(store).account_games("account-1", 10))[
            0
        ].game_id == "old-game"

    run(db, work)
    found = sqlite3.connect(db).execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    assert found[0] == str(SCHEMA_VERSION)


def test_a_postgresql_database_of_an_earlier_release_gains_accounts(postgres_url: str) -> None:
    asyncio.run(old_postgresql_database(postgres_url, 1))  # (games only, numbered the old way)

    async def work(store: Store) -> None:
        await AccountRepository(store).create_account(account(1))
        assert await AccountRepository(store).account_by_name("PLAYER1") is not None

    run(postgres_url, work)

    async def version() -> str:
        connection = await asyncpg.connect(postgres_url)
        try:
            return str(await connection.fetchval("SELECT value FROM meta WHERE key = 'schema'"))
        finally:
            await connection.close()

    assert asyncio.run(version()) == str(SCHEMA_VERSION)


def test_db_copy_carries_accounts_ratings_and_seats_over(
    tmp_path: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "games.sqlite3"

    async def fill(store: Store) -> None:
        for number in (1, 2):
            await AccountRepository(store).create_account(account(number))
        game_id = await finished_game(store, 1, 1, 2, "first")
        await settle_game(store, game_id, 1e9)
        await AccountRepository(store).create_session("key", "account-1", 100.0, 1e10)

    run(db, fill)
    assert main(["db", "copy", str(db), postgres_url]) == 0
    assert "and 2 accounts (with their ratings)" in capsys.readouterr().out

    async def read(store: Store) -> tuple[Any, ...]:
        return (
            await AccountRepository(store).account_by_name("player1"),
            await AccountRepository(store).ratings_of("account-1"),
            await AccountRepository(store).rating_history("account-2", "xiangqi", 10),
            await AccountRepository(store).game_accounts("game-0001"),
            await AccountRepository(store).settlement("game-0001"),
            await AccountRepository(store).session_account("key", 101.0),
        )

    copied = run(postgres_url, read)
    assert copied[:5] == run(db, read)[:5]
    assert copied[1]["xiangqi"].wins == 1
    assert copied[5] is None  # (sessions are not copied: everyone signs in again)
