"""What the server processes hold open per key (:mod:`chuhan.web.db.holdings`): a cap
counted over the live processes, by one body both stores run; a process that stops
takes its count with it, and a dead one's is ignored."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from chuhan.web.db import open_store
from chuhan.web.db.holdings import Holdings, hold
from chuhan.web.db.statements import All, Do, Lock, Statement, run_fed

ROWS = [
    {"server_id": "here", "held": 1},
    {"server_id": "there", "held": 1},
    {"server_id": "dead", "held": 5},
]


def _fed(most: int) -> tuple[int | None, list[Statement]]:
    said: list[Statement] = []

    def answer(statement: Statement) -> Any:
        said.append(statement)
        return ROWS if isinstance(statement, All) else 1

    return run_fed(hold("sockets address a", "here", most, {"there"}), answer), said


def test_only_the_live_processes_count() -> None:
    taken, said = _fed(3)
    assert taken is None
    assert said[0] == Lock("holding sockets address a")
    assert isinstance(said[-1], Do) and tuple(said[-1].args) == ("sockets address a", "here")


def test_a_key_at_its_cap_is_refused_and_nothing_is_written() -> None:
    taken, said = _fed(2)
    assert taken == 2
    assert not any(isinstance(statement, Do) for statement in said)


def _with_stores(location: str | Path, count: int, work: Any) -> Any:
    async def main() -> Any:
        stores = [open_store(location) for _ in range(count)]
        for store in stores:
            await store.open()
        try:
            return await work(*stores)
        finally:
            for store in stores:
                await store.close()

    return asyncio.run(main())


def test_a_cap_is_held_and_given_back(database: str | Path) -> None:
    async def work(store: Any) -> list[int | None]:
        holdings = Holdings(store, 3.0)
        found = [await holdings.hold("k", 2) for _ in range(3)]
        holdings.release("k")
        await holdings.close()  # (waits for the release under way, then forgets it all)
        found.append(await holdings.hold("k", 2))
        found.append(await holdings.hold("other", 2))
        return found

    assert _with_stores(database, 1, work) == [None, None, 2, None, None]


def test_two_processes_share_a_cap_and_a_stopped_ones_count_goes(postgres_url: str) -> None:
    async def work(one_store: Any, other_store: Any) -> list[int | None]:
        one, other = Holdings(one_store, 3.0), Holdings(other_store, 3.0)
        found = [await one.hold("k", 3), await one.hold("k", 3), await other.hold("k", 3)]
        found.append(await other.hold("k", 3))  # 3 held: 2 on one, 1 on the other
        await one.close()  # the first stops cleanly
        found.append(await other.hold("k", 3))
        return found

    assert _with_stores(postgres_url, 2, work) == [None, None, None, 3, None]


def test_a_dead_processes_count_is_ignored(postgres_url: str) -> None:
    async def work(one_store: Any, other_store: Any) -> list[int | None]:
        one = Holdings(one_store, 3.0)
        found = [await one.hold("k", 2), await one.hold("k", 2)]
        await one_store.close()  # killed: its rows stay, but it is no longer alive
        other = Holdings(other_store, 3.0)
        found.append(await other.hold("k", 2))
        await other.start()  # a process that starts forgets the dead one's rows
        rows = await other_store.read(_holders(), "reading the holders")
        return [*found, rows]

    assert _with_stores(postgres_url, 2, work) == [None, None, None, 1]


def _holders() -> Any:
    found = yield All("SELECT count(*) AS n FROM holdings")
    return int(found[0]["n"])
