"""The lobby's seeks in the PostgreSQL store (the :class:`~chuhan.web.db.seeks.SeekStore`
contract): a base class of :class:`~chuhan.web.db.postgres.PostgresStore`, on its pool
and its error handling.

Several processes write these tables at once. Taking a seek is one ``DELETE ...
RETURNING``: of two processes taking it, one deletes the row and the other finds none.
What reads before it writes holds advisory locks for its transaction: a new seek locks its
client address and its owner (counting and inserting are one step for every process);
quick pairing first locks its pool (two players pressing the same button on two processes
at once are paired with each other, never left both waiting); entering and leaving the
lobby and the sweep lock the owner, so a sweep never deletes the seek of an owner who
has just arrived on another process. Locks are taken in one order (pool, address, owner).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from chuhan.web.db import seeks as sql
from chuhan.web.db.seeks import Seek, SeekLimits, SeekRefused

__all__ = ["PostgresSeeks"]

T = TypeVar("T")

_LOCK = "SELECT pg_advisory_xact_lock(hashtext($1))"


def _owner_lock(owner: str) -> str:
    return f"lobby owner {owner}"


class PostgresSeeks:
    """The lobby's part of the PostgreSQL store (it needs the store's ``_read`` and
    ``_write``)."""

    async def _read(self, what: str, work: Callable[[Any], Awaitable[T]]) -> T:  # (the store's)
        raise NotImplementedError

    async def _write(self, what: str, work: Callable[[Any], Awaitable[T]]) -> T:  # (the store's)
        raise NotImplementedError

    async def _seek_transaction(self, what: str, work: Callable[[Any], Awaitable[T]]) -> T:
        async def run(connection: Any) -> T:
            async with connection.transaction():
                return await work(connection)

        return await self._write(what, run)

    @staticmethod
    async def _insert_seek(connection: Any, seek: Seek, limits: SeekLimits) -> None:
        await connection.execute(_LOCK, f"lobby address {seek.address}")
        await connection.execute(_LOCK, _owner_lock(seek.owner))
        counts = await connection.fetchrow(sql.SEEKS_COUNT, seek.owner, seek.address)
        reason = sql.refusal(counts, limits)
        if reason is not None:
            raise SeekRefused(reason)
        await connection.execute(sql.SEEK_INSERT, *seek.columns())

    async def add_seek(self, seek: Seek, limits: SeekLimits) -> None:
        await self._seek_transaction(
            "posting a seek", lambda connection: self._insert_seek(connection, seek, limits)
        )

    async def pair_or_add(
        self, seek: Seek, limits: SeekLimits, choose: Callable[[list[Seek]], Seek | None]
    ) -> Seek | None:
        async def work(connection: Any) -> Seek | None:
            await connection.execute(_LOCK, f"lobby pool {seek.pool}")
            waiting = [Seek.from_row(r) for r in await connection.fetch(sql.SEEKS_POOL, seek.pool)]
            chosen = choose(waiting)
            if chosen is not None:
                taken = await connection.fetchrow(sql.SEEK_TAKE, chosen.id)
                if taken is not None:
                    return Seek.from_row(taken)
            await self._insert_seek(connection, seek, limits)
            return None

        return await self._seek_transaction("pairing", work)

    async def _delete_one(self, what: str, statement: str, *parameters: Any) -> Seek | None:
        found = await self._write(what, lambda c: c.fetchrow(statement, *parameters))
        return None if found is None else Seek.from_row(found)

    async def take_seek(self, seek_id: str) -> Seek | None:
        return await self._delete_one("taking a seek", sql.SEEK_TAKE, seek_id)

    async def cancel_seek(self, seek_id: str, owner: str) -> Seek | None:
        return await self._delete_one("cancelling a seek", sql.SEEK_CANCEL, seek_id, owner)

    async def decline_seek(self, seek_id: str, target: str) -> Seek | None:
        return await self._delete_one("declining a challenge", sql.SEEK_DECLINE, seek_id, target)

    async def seek(self, seek_id: str) -> Seek | None:
        found = await self._read("reading a seek", lambda c: c.fetchrow(sql.SEEK_READ, seek_id))
        return None if found is None else Seek.from_row(found)

    async def open_seeks(self, limit: int) -> list[Seek]:
        found = await self._read("listing the seeks", lambda c: c.fetch(sql.SEEKS_OPEN, limit))
        return [Seek.from_row(r) for r in found]

    async def enter_lobby(self, owner: str, server_id: str) -> None:
        async def work(connection: Any) -> None:
            await connection.execute(_LOCK, _owner_lock(owner))
            await connection.execute(sql.VISITOR_ENTER, owner, server_id)

        await self._seek_transaction("entering the lobby", work)

    async def leave_lobby(self, owner: str, server_id: str, alive: set[str]) -> list[Seek]:
        async def work(connection: Any) -> list[Seek]:
            await connection.execute(_LOCK, _owner_lock(owner))
            await connection.execute(sql.VISITOR_LEAVE, owner, server_id)
            servers = await connection.fetch(sql.VISITOR_SERVERS, owner)
            if any(str(r["server_id"]) in alive for r in servers):
                return []
            return [Seek.from_row(r) for r in await connection.fetch(sql.SEEKS_OF_OWNER, owner)]

        return await self._seek_transaction("leaving the lobby", work)

    async def is_in_lobby(self, owner: str, alive: set[str]) -> bool:
        found = await self._read(
            "reading who is in the lobby", lambda c: c.fetch(sql.VISITOR_SERVERS, owner)
        )
        return any(str(r["server_id"]) in alive for r in found)

    async def sweep_lobby(self, server_id: str, here: set[str], alive: set[str]) -> list[Seek]:
        async def work(connection: Any) -> list[Seek]:
            await connection.execute(sql.VISITORS_GONE_HERE, server_id, sorted(here))
            if here:
                await connection.executemany(
                    sql.VISITOR_ENTER, [(owner, server_id) for owner in sorted(here)]
                )
            visitors = await connection.fetch(sql.VISITORS_ALL)
            for dead in sorted({str(r["server_id"]) for r in visitors} - alive):
                await connection.execute(sql.VISITORS_FORGET, dead)
            present = {str(r["owner"]) for r in visitors if str(r["server_id"]) in alive}
            owners = {str(r["owner"]) for r in await connection.fetch(sql.SEEK_OWNERS)}
            removed: list[Seek] = []
            for owner in sorted(owners - present):
                # (locked, then asked again: the owner may have just come in elsewhere)
                await connection.execute(_LOCK, _owner_lock(owner))
                servers = await connection.fetch(sql.VISITOR_SERVERS, owner)
                if any(str(r["server_id"]) in alive for r in servers):
                    continue
                found = await connection.fetch(sql.SEEKS_OF_OWNER, owner)
                removed += [Seek.from_row(r) for r in found]
            return removed

        return await self._seek_transaction("sweeping the lobby", work)
