"""Rate budgets kept in the database (:mod:`chuhan.web.db.budgets`): a token bucket per
key, taken by one body that both stores run, by the server's clock; full buckets are
forgotten; several processes taking from one key share it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from web_helpers import FakeClock

from chuhan.web.db import Store, open_store
from chuhan.web.db.budgets import FORGET_AFTER_SECONDS, Budgets, Rate, take
from chuhan.web.db.statements import All, Body, Do, Lock, One, Statement, run_fed

T = TypeVar("T")

EVERY_TEN = Rate(burst=2, every_seconds=10)


def test_a_fresh_bucket_is_full_and_gives_one_token() -> None:
    written: list[Statement] = []

    def answer(statement: Statement) -> Any:
        written.append(statement)
        return None if isinstance(statement, One) else 1

    assert run_fed(take("create address a", EVERY_TEN, 100.0), answer) == 0.0
    assert written[0] == Lock("budget create address a")
    write = written[-1]
    assert isinstance(write, Do) and tuple(write.args) == ("create address a", 1.0, 100.0, 110.0)


def test_an_empty_bucket_says_how_long_to_wait_and_writes_nothing() -> None:
    written: list[Statement] = []

    def answer(statement: Statement) -> Any:
        written.append(statement)
        return {"tokens": 0.0, "at": 100.0} if isinstance(statement, One) else 1

    assert run_fed(take("create address a", EVERY_TEN, 104.0), answer) == 6.0
    assert not any(isinstance(statement, Do) for statement in written)


def test_a_clock_that_went_back_gives_no_tokens() -> None:
    def answer(statement: Statement) -> Any:
        return {"tokens": 0.5, "at": 100.0} if isinstance(statement, One) else 1

    assert run_fed(take("k", EVERY_TEN, 50.0), answer) == 5.0


def _budgets(location: str | Path, work: Callable[[Store], Awaitable[T]]) -> T:
    async def main() -> T:
        store = open_store(location)
        await store.open()
        try:
            return await work(store)
        finally:
            await store.close()

    return asyncio.run(main())


def test_a_budget_is_spent_and_refills_by_the_servers_clock(database: str | Path) -> None:
    clock = FakeClock()

    async def work(store: Store) -> list[float]:
        budgets = Budgets(store, clock)
        waits = [await budgets.take("k", EVERY_TEN) for _ in range(3)]
        clock.advance(4)
        waits.append(await budgets.take("k", EVERY_TEN))
        clock.advance(6)
        waits.append(await budgets.take("k", EVERY_TEN))
        waits.append(await budgets.take("other", EVERY_TEN))
        return waits

    assert _budgets(database, work) == [0.0, 0.0, 10.0, 6.0, 0.0, 0.0]


def test_buckets_full_for_a_day_are_forgotten(database: str | Path) -> None:
    clock = FakeClock()

    async def work(store: Store) -> list[str]:
        budgets = Budgets(store, clock)
        await budgets.take("old", EVERY_TEN)  # (the first take sweeps too: nothing yet)
        clock.advance(FORGET_AFTER_SECONDS)
        await budgets.take("recent", EVERY_TEN)
        clock.advance(3600)  # "old" has been full for a day; "recent" has not
        await budgets.take("now", EVERY_TEN)
        found = await store.read(_keys(), "reading the budgets")
        return found

    assert _budgets(database, work) == ["now", "recent"]


def _keys() -> Body[list[str]]:
    found = yield All("SELECT key FROM budgets ORDER BY key")
    return [str(row["key"]) for row in found]


def test_processes_taking_from_one_key_at_once_share_its_budget(postgres_url: str) -> None:
    clock = FakeClock()
    rate = Rate(burst=5, every_seconds=3600)

    async def main() -> list[float]:
        stores = [open_store(postgres_url), open_store(postgres_url)]
        for store in stores:
            await store.open()
        try:
            budgets = [Budgets(store, clock) for store in stores]
            takes = [each.take("create address a", rate) for each in budgets for _ in range(8)]
            return list(await asyncio.gather(*takes))
        finally:
            for store in stores:
                await store.close()

    waits = asyncio.run(main())
    assert sorted(waits)[:6] == [0.0] * 5 + [3600.0]
    assert waits.count(0.0) == 5


def test_a_lease_is_spent_here_and_an_empty_bucket_is_not_asked_again(
    database: str | Path,
) -> None:
    """A budget leased ten at a time writes once per ten requests; once the store says the
    bucket is empty, the requests until it has a token again are refused here, without a
    transaction; and never more than the budget is granted."""

    async def work(store: Any) -> tuple[list[float], int]:  # (Any: its write is replaced)
        budgets = Budgets(store, FakeClock())
        writes = 0
        write = store.write

        async def counted(body: Any, what: str) -> Any:
            nonlocal writes
            writes += 1
            return await write(body, what)

        store.write = counted
        rate = Rate(25, 10.0, lease=10)
        waits = [await budgets.take("read address a", rate) for _ in range(30)]
        return waits, writes

    waits, writes = _budgets(database, work)
    assert waits[:25] == [0.0] * 25 and all(wait > 0 for wait in waits[25:])
    # Three leases (10, 10, 5) and one refusal from the store (four more refused here), and
    # the first take's sweep of full buckets.
    assert writes == 5
