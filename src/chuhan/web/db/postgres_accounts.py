"""Accounts, sessions, attempts and ratings in the PostgreSQL store (the
:class:`~chuhan.web.db.accounts.AccountStore` contract): a base class of
:class:`~chuhan.web.db.postgres.PostgresStore`, on its pool and its error handling.

Several processes write these tables at once, so the writes that read before they write
hold locks for their transaction: the attempts of one key take an advisory lock on that
key (counting and taking are one step for every process); settling a game locks its
``rated_games`` row (of two processes settling the same game, the second waits and then
finds it settled) and then both accounts' advisory locks, in a fixed order (two games of
the same account, or of the same pair, settle one after the other, so neither loses the
other's rating change and the once-a-day rule sees the earlier game).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import asyncpg  # type: ignore[import-untyped]

from chuhan.web.db import account_sql as sql
from chuhan.web.db.accounts import (
    Account,
    AccountGame,
    NameTaken,
    Rating,
    RatingInput,
    Settlement,
    name_key,
)

__all__ = ["PostgresAccounts"]

T = TypeVar("T")

#: Advisory lock keys: ``hashtext`` of a text made of these prefixes and a name (the
#: migration lock is a bigint of its own, which a 32-bit ``hashtext`` cannot equal).
_LOCK = "SELECT pg_advisory_xact_lock(hashtext($1))"


class PostgresAccounts:
    """The accounts' part of the PostgreSQL store (it needs the store's ``_read`` and
    ``_write``)."""

    async def _read(self, what: str, work: Callable[[Any], Awaitable[T]]) -> T:  # (the store's)
        raise NotImplementedError

    async def _write(self, what: str, work: Callable[[Any], Awaitable[T]]) -> T:  # (the store's)
        raise NotImplementedError

    async def _in_transaction(self, what: str, work: Callable[[Any], Awaitable[T]]) -> T:
        async def run(connection: Any) -> T:
            async with connection.transaction():
                return await work(connection)

        return await self._write(what, run)

    async def _fetchrow(self, what: str, statement: str, *parameters: Any) -> Any:
        return await self._read(what, lambda c: c.fetchrow(statement, *parameters))

    async def _fetch(self, what: str, statement: str, *parameters: Any) -> list[Any]:
        found: list[Any] = await self._read(what, lambda c: c.fetch(statement, *parameters))
        return found

    # ------------------------------------------------------------------ accounts

    async def shared_secret(self, name: str, candidate: str) -> str:
        async def work(connection: Any) -> str:
            await connection.execute(sql.SECRET_KEEP, name, candidate)
            return str(await connection.fetchval(sql.SECRET_READ, name))

        return await self._in_transaction("reading the session secret", work)

    async def create_account(self, account: Account) -> None:
        async def work(connection: Any) -> None:
            try:
                await connection.execute(
                    sql.ACCOUNT_INSERT,
                    account.id,
                    account.name,
                    name_key(account.name),
                    account.password_hash,
                    account.created,
                )
            except asyncpg.UniqueViolationError:
                raise NameTaken(account.name) from None

        await self._write("creating an account", work)

    async def account_by_name(self, name: str) -> Account | None:
        found = await self._fetchrow("reading an account", sql.ACCOUNT_BY_KEY, name_key(name))
        return None if found is None else sql.account_of(found)

    async def account_by_id(self, account_id: str) -> Account | None:
        found = await self._fetchrow("reading an account", sql.ACCOUNT_BY_ID, account_id)
        return None if found is None else sql.account_of(found)

    async def set_password(self, account_id: str, password_hash: str, keep_session: str) -> None:
        async def work(connection: Any) -> None:
            await connection.execute(sql.PASSWORD_SET, account_id, password_hash)
            await connection.execute(sql.SESSIONS_END_OTHERS, account_id, keep_session)

        await self._in_transaction("changing a password", work)

    async def delete_account(self, account_id: str) -> None:
        async def work(connection: Any) -> None:
            for statement in sql.ACCOUNT_DELETE:
                await connection.execute(statement, account_id)

        await self._in_transaction("deleting an account", work)

    # ------------------------------------------------------------------ sessions

    async def create_session(
        self, key: str, account_id: str, created: float, expires: float
    ) -> None:
        async def work(connection: Any) -> None:
            await connection.execute(sql.SESSIONS_EXPIRED, account_id, created)
            await connection.execute(sql.SESSION_INSERT, key, account_id, created, expires)

        await self._in_transaction("starting a session", work)

    async def session_account(self, key: str, now: float) -> Account | None:
        found = await self._fetchrow("reading a session", sql.SESSION_ACCOUNT, key, now)
        return None if found is None else sql.account_of(found)

    async def end_session(self, key: str) -> None:
        await self._write("ending a session", lambda c: c.execute(sql.SESSION_END, key))

    async def take_attempt(
        self, attempt_id: str, limits: dict[str, int], window: float, now: float
    ) -> float:
        async def work(connection: Any) -> float:
            for key in sorted(limits):
                await connection.execute(_LOCK, f"attempts {key}")
            await connection.execute(sql.ATTEMPTS_FORGET, now - window)
            wait = 0.0
            for key, most in limits.items():
                found = await connection.fetchrow(sql.ATTEMPTS_COUNT, key)
                if int(found["n"]) >= most:
                    wait = max(wait, float(found["first"]) + window - now)
            if wait > 0:
                return wait
            for key in limits:
                await connection.execute(sql.ATTEMPT_INSERT, f"{attempt_id}:{key}", key, now)
            return 0.0

        return await self._in_transaction("counting an attempt", work)

    async def forgive_attempt(self, attempt_id: str) -> None:
        await self._write(
            "forgiving an attempt",
            lambda c: c.execute("DELETE FROM attempts WHERE id LIKE $1", f"{attempt_id}:%"),
        )

    # ------------------------------------------------------------------ games

    async def attach_account(self, game_id: str, seat: str, account_id: str) -> str:
        async def work(connection: Any) -> str:
            await connection.execute(sql.SEAT_ATTACH, game_id, seat, account_id)
            return str(await connection.fetchval(sql.SEAT_HOLDER, game_id, seat))

        return await self._in_transaction("attaching an account to a seat", work)

    async def game_accounts(self, game_id: str) -> dict[str, Account]:
        found = await self._fetch("reading a game's accounts", sql.GAME_ACCOUNTS, game_id)
        return {str(r["seat"]): sql.account_of(r) for r in found}

    async def rate_game(self, game_id: str, game: str, created: float) -> None:
        await self._write(
            "marking a game rated", lambda c: c.execute(sql.RATED_INSERT, game_id, game, created)
        )

    async def is_rated(self, game_id: str) -> bool:
        return await self._fetchrow("reading a rated game", sql.RATED_READ, game_id) is not None

    async def settle_rated_game(
        self,
        game_id: str,
        now: float,
        pair_window: float,
        rate: Callable[[RatingInput], Settlement],
    ) -> Settlement | None:
        async def work(connection: Any) -> Settlement | None:
            rated = await connection.fetchrow(sql.RATED_READ + " FOR UPDATE", game_id)
            if rated is None:
                return None
            if rated["settled"] is not None:
                return Settlement.from_json(rated["settlement"])
            game = str(rated["game"])
            outcome = await connection.fetchrow(sql.GAME_OUTCOME, game_id)
            if outcome is None or outcome["status"] != "over" or outcome["result"] is None:
                return None
            winner = json.loads(outcome["result"]).get("winner")
            accounts = {
                str(r["seat"]): sql.account_of(r)
                for r in await connection.fetch(sql.GAME_ACCOUNTS, game_id)
            }
            first, second = accounts.get("first"), accounts.get("second")
            if first is None or second is None or first.id == second.id:
                settlement = sql.unrated(game_id, game, winner, accounts, now)
            else:
                for account_id in sorted({first.id, second.id}):
                    await connection.execute(_LOCK, f"rating {account_id}")
                ratings: dict[str, Rating | None] = {}
                for seat, account in accounts.items():
                    found = await connection.fetchrow(sql.RATING_READ, account.id, game)
                    ratings[seat] = None if found is None else sql.rating_of(found)
                pair_at = await connection.fetchval(
                    sql.PAIR_COUNTED, game, now - pair_window, first.id, second.id
                )
                settlement = rate(
                    RatingInput(
                        game_id,
                        game,
                        winner,
                        accounts,
                        ratings,
                        None if pair_at is None else float(pair_at),
                        now,
                    )
                )
                if settlement.counted:
                    for rating_row, history_row in sql.settled_rows(settlement, ratings):
                        await connection.execute(sql.RATING_WRITE, *rating_row)
                        await connection.execute(sql.HISTORY_INSERT, *history_row)
            await connection.execute(
                sql.RATED_SETTLE,
                game_id,
                now,
                None if first is None else first.id,
                None if second is None else second.id,
                int(settlement.counted),
                settlement.to_json(),
            )
            return settlement

        return await self._in_transaction(f"settling the rated game {game_id[:40]!r}", work)

    async def settlement(self, game_id: str) -> Settlement | None:
        found = await self._fetchrow("reading a rated game", sql.RATED_READ, game_id)
        if found is None or found["settlement"] is None:
            return None
        return Settlement.from_json(found["settlement"])

    async def unsettled_rated_games(self, limit: int) -> list[str]:
        found = await self._fetch("listing the rated games to settle", sql.UNSETTLED, limit)
        return [str(r["game_id"]) for r in found]

    # ------------------------------------------------------------------ profiles

    async def ratings_of(self, account_id: str) -> dict[str, Rating]:
        found = await self._fetch("reading ratings", sql.RATINGS_OF, account_id)
        return {str(r["game"]): sql.rating_of(r) for r in found}

    async def rating_history(
        self, account_id: str, game: str, limit: int
    ) -> list[tuple[float, float, float]]:
        found = await self._fetch("reading a rating history", sql.HISTORY, account_id, game, limit)
        return [(float(r["at"]), float(r["rating"]), float(r["deviation"])) for r in found[::-1]]

    async def leaderboard(
        self, game: str, max_deviation: float, limit: int
    ) -> list[tuple[str, Rating]]:
        found = await self._fetch(
            "reading the leaderboard", sql.LEADERBOARD, game, max_deviation, limit
        )
        return [(str(r["name"]), sql.rating_of(r)) for r in found]

    async def account_games(self, account_id: str, limit: int) -> list[AccountGame]:
        found = await self._fetch("reading a player's games", sql.ACCOUNT_GAMES, account_id, limit)
        return [sql.account_game(r) for r in found]

    async def account_record(self, account_id: str) -> dict[str, int]:
        found = await self._fetch("reading an account's results", sql.ACCOUNT_RESULTS, account_id)
        return sql.count_results(found)
