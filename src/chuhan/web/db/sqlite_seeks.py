"""The lobby's seeks in the SQLite store (the :class:`~chuhan.web.db.seeks.SeekStore`
contract): a base class of :class:`~chuhan.web.db.sqlite.SqliteStore`, on its database
thread and its group commits. One thread writes, so counting and inserting, or choosing
and taking, are never interleaved with another write."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from chuhan.web.db import seeks as sql
from chuhan.web.db.account_sql import sqlite
from chuhan.web.db.seeks import Seek, SeekLimits, SeekRefused

__all__ = ["SqliteSeeks"]

T = TypeVar("T")


class SqliteSeeks:
    """The lobby's part of the SQLite store (it needs the store's ``_db``, ``_run`` and
    ``_write``)."""

    _db: sqlite3.Connection

    async def _run(self, work: Callable[[], T]) -> T:  # (the store's)
        raise NotImplementedError

    async def _write(self, work: Callable[[], None]) -> None:  # (the store's)
        raise NotImplementedError

    async def _seek_write(self, work: Callable[[], T]) -> T:
        box: list[T] = []

        def run() -> None:
            box.append(work())

        await self._write(run)
        return box[0]

    def _seek_rows(self, statement: str, *parameters: Any) -> list[Seek]:
        cursor = self._db.execute(sqlite(statement), parameters)
        return [Seek.from_row(row) for row in cursor.fetchall()]

    def _insert_seek(self, seek: Seek, limits: SeekLimits) -> None:
        counts = self._db.execute(sqlite(sql.SEEKS_COUNT), (seek.owner, seek.address)).fetchone()
        reason = sql.refusal(counts, limits)
        if reason is not None:
            raise SeekRefused(reason)
        self._db.execute(sqlite(sql.SEEK_INSERT), seek.columns())

    async def add_seek(self, seek: Seek, limits: SeekLimits) -> None:
        await self._seek_write(lambda: self._insert_seek(seek, limits))

    async def pair_or_add(
        self, seek: Seek, limits: SeekLimits, choose: Callable[[list[Seek]], Seek | None]
    ) -> Seek | None:
        def work() -> Seek | None:
            chosen = choose(self._seek_rows(sql.SEEKS_POOL, seek.pool))
            if chosen is not None:
                taken = self._seek_rows(sql.SEEK_TAKE, chosen.id)
                return taken[0]
            self._insert_seek(seek, limits)
            return None

        return await self._seek_write(work)

    async def _delete_one(self, statement: str, *parameters: Any) -> Seek | None:
        found = await self._seek_write(lambda: self._seek_rows(statement, *parameters))
        return found[0] if found else None

    async def take_seek(self, seek_id: str) -> Seek | None:
        return await self._delete_one(sql.SEEK_TAKE, seek_id)

    async def cancel_seek(self, seek_id: str, owner: str) -> Seek | None:
        return await self._delete_one(sql.SEEK_CANCEL, seek_id, owner)

    async def decline_seek(self, seek_id: str, target: str) -> Seek | None:
        return await self._delete_one(sql.SEEK_DECLINE, seek_id, target)

    async def seek(self, seek_id: str) -> Seek | None:
        found = await self._run(lambda: self._seek_rows(sql.SEEK_READ, seek_id))
        return found[0] if found else None

    async def open_seeks(self, limit: int) -> list[Seek]:
        return await self._run(lambda: self._seek_rows(sql.SEEKS_OPEN, limit))

    async def enter_lobby(self, owner: str, server_id: str) -> None:
        def work() -> None:
            self._db.execute(sqlite(sql.VISITOR_ENTER), (owner, server_id))

        await self._write(work)

    async def leave_lobby(self, owner: str, server_id: str, alive: set[str]) -> list[Seek]:
        def work() -> list[Seek]:
            self._db.execute(sqlite(sql.VISITOR_LEAVE), (owner, server_id))
            servers = self._db.execute(sqlite(sql.VISITOR_SERVERS), (owner,)).fetchall()
            if any(str(row[0]) in alive for row in servers):
                return []
            return self._seek_rows(sql.SEEKS_OF_OWNER, owner)

        return await self._seek_write(work)

    async def is_in_lobby(self, owner: str, alive: set[str]) -> bool:
        def work() -> bool:
            servers = self._db.execute(sqlite(sql.VISITOR_SERVERS), (owner,)).fetchall()
            return any(str(row[0]) in alive for row in servers)

        return await self._run(work)

    async def sweep_lobby(self, server_id: str, here: set[str], alive: set[str]) -> list[Seek]:
        def work() -> list[Seek]:
            for owner in here:
                self._db.execute(sqlite(sql.VISITOR_ENTER), (owner, server_id))
            present: set[str] = set()
            for owner, server in self._db.execute(sql.VISITORS_ALL).fetchall():
                if str(server) == server_id and str(owner) not in here:
                    self._db.execute(sqlite(sql.VISITOR_LEAVE), (str(owner), server_id))
                elif str(server) in alive:
                    present.add(str(owner))
                else:
                    self._db.execute(sqlite(sql.VISITORS_FORGET), (str(server),))
            removed: list[Seek] = []
            for (owner,) in self._db.execute(sql.SEEK_OWNERS).fetchall():
                if str(owner) not in present:
                    removed += self._seek_rows(sql.SEEKS_OF_OWNER, str(owner))
            return removed

        return await self._seek_write(work)
