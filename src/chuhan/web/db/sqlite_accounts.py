"""Accounts, sessions, attempts and ratings in the SQLite store (the
:class:`~chuhan.web.db.accounts.AccountStore` contract): a base class of
:class:`~chuhan.web.db.sqlite.SqliteStore`, on its database thread and its group
commits. One thread writes, so a write's reads and its statements are never interleaved
with another's."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

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

__all__ = ["SqliteAccounts"]

T = TypeVar("T")


def _q(statement: str) -> str:
    return sql.sqlite(statement)


class SqliteAccounts:
    """The accounts' part of the SQLite store (it needs the store's ``_db``, ``_run``
    and ``_write``)."""

    _db: sqlite3.Connection

    async def _run(self, work: Callable[[], T]) -> T:  # (the store's)
        raise NotImplementedError

    async def _write(self, work: Callable[[], None]) -> None:  # (the store's)
        raise NotImplementedError

    async def _written(self, work: Callable[[], T]) -> T:
        """``work`` in the next group commit, and what it returned."""
        box: list[T] = []

        def run() -> None:
            box.append(work())

        await self._write(run)
        return box[0]

    def _one(self, statement: str, *parameters: Any) -> Any:
        return self._db.execute(_q(statement), parameters).fetchone()

    def _all(self, statement: str, *parameters: Any) -> list[Any]:
        return self._db.execute(_q(statement), parameters).fetchall()

    def _do(self, statement: str, *parameters: Any) -> int:
        return self._db.execute(_q(statement), parameters).rowcount

    # ------------------------------------------------------------------ accounts

    async def shared_secret(self, name: str, candidate: str) -> str:
        def work() -> str:
            self._do(sql.SECRET_KEEP, name, candidate)
            return str(self._one(sql.SECRET_READ, name)["value"])

        return await self._written(work)

    async def create_account(self, account: Account) -> None:
        def work() -> None:
            try:
                self._do(
                    sql.ACCOUNT_INSERT,
                    account.id,
                    account.name,
                    name_key(account.name),
                    account.password_hash,
                    account.created,
                )
            except sqlite3.IntegrityError:
                raise NameTaken(account.name) from None

        await self._write(work)

    async def account_by_name(self, name: str) -> Account | None:
        found = await self._run(lambda: self._one(sql.ACCOUNT_BY_KEY, name_key(name)))
        return None if found is None else sql.account_of(found)

    async def account_by_id(self, account_id: str) -> Account | None:
        found = await self._run(lambda: self._one(sql.ACCOUNT_BY_ID, account_id))
        return None if found is None else sql.account_of(found)

    async def set_password(self, account_id: str, password_hash: str, keep_session: str) -> None:
        def work() -> None:
            self._do(sql.PASSWORD_SET, account_id, password_hash)
            self._do(sql.SESSIONS_END_OTHERS, account_id, keep_session)

        await self._write(work)

    async def delete_account(self, account_id: str) -> None:
        def work() -> None:
            for statement in sql.ACCOUNT_DELETE:
                self._do(statement, account_id)

        await self._write(work)

    # ------------------------------------------------------------------ sessions

    async def create_session(
        self, key: str, account_id: str, created: float, expires: float
    ) -> None:
        def work() -> None:
            self._do(sql.SESSIONS_EXPIRED, account_id, created)
            self._do(sql.SESSION_INSERT, key, account_id, created, expires)

        await self._write(work)

    async def session_account(self, key: str, now: float) -> Account | None:
        found = await self._run(lambda: self._one(sql.SESSION_ACCOUNT, key, now))
        return None if found is None else sql.account_of(found)

    async def end_session(self, key: str) -> None:
        def work() -> None:
            self._do(sql.SESSION_END, key)

        await self._write(work)

    async def take_attempt(
        self, attempt_id: str, limits: dict[str, int], window: float, now: float
    ) -> float:
        def work() -> float:
            self._do(sql.ATTEMPTS_FORGET, now - window)
            wait = 0.0
            for key, most in limits.items():
                found = self._one(sql.ATTEMPTS_COUNT, key)
                if int(found["n"]) >= most:
                    wait = max(wait, float(found["first"]) + window - now)
            if wait > 0:
                return wait
            for key in limits:
                self._do(sql.ATTEMPT_INSERT, f"{attempt_id}:{key}", key, now)
            return 0.0

        return await self._written(work)

    async def forgive_attempt(self, attempt_id: str) -> None:
        def work() -> None:
            self._db.execute("DELETE FROM attempts WHERE id LIKE ?", (f"{attempt_id}:%",))

        await self._write(work)

    # ------------------------------------------------------------------ games

    async def attach_account(self, game_id: str, seat: str, account_id: str) -> str:
        def work() -> str:
            self._do(sql.SEAT_ATTACH, game_id, seat, account_id)
            return str(self._one(sql.SEAT_HOLDER, game_id, seat)["account_id"])

        return await self._written(work)

    def _game_accounts(self, game_id: str) -> dict[str, Account]:
        return {str(r["seat"]): sql.account_of(r) for r in self._all(sql.GAME_ACCOUNTS, game_id)}

    async def game_accounts(self, game_id: str) -> dict[str, Account]:
        return await self._run(lambda: self._game_accounts(game_id))

    async def rate_game(self, game_id: str, game: str, created: float) -> None:
        def work() -> None:
            self._do(sql.RATED_INSERT, game_id, game, created)

        await self._write(work)

    async def is_rated(self, game_id: str) -> bool:
        return await self._run(lambda: self._one(sql.RATED_READ, game_id) is not None)

    async def settle_rated_game(
        self,
        game_id: str,
        now: float,
        pair_window: float,
        rate: Callable[[RatingInput], Settlement],
    ) -> Settlement | None:
        def work() -> Settlement | None:
            rated = self._one(sql.RATED_READ, game_id)
            if rated is None:
                return None
            if rated["settled"] is not None:
                return Settlement.from_json(rated["settlement"])
            game = str(rated["game"])
            outcome = self._one(sql.GAME_OUTCOME, game_id)
            if outcome is None or outcome["status"] != "over" or outcome["result"] is None:
                return None
            winner = json.loads(outcome["result"]).get("winner")
            accounts = self._game_accounts(game_id)
            first, second = accounts.get("first"), accounts.get("second")
            if first is None or second is None or first.id == second.id:
                settlement = sql.unrated(game_id, game, winner, accounts, now)
            else:
                ratings: dict[str, Rating | None] = {}
                for seat, account in accounts.items():
                    found = self._one(sql.RATING_READ, account.id, game)
                    ratings[seat] = None if found is None else sql.rating_of(found)
                pair = self._one(sql.PAIR_COUNTED, game, now - pair_window, first.id, second.id)
                pair_at = None if pair is None or pair["at"] is None else float(pair["at"])
                settlement = rate(
                    RatingInput(game_id, game, winner, accounts, ratings, pair_at, now)
                )
                if settlement.counted:
                    for rating_row, history_row in sql.settled_rows(settlement, ratings):
                        self._do(sql.RATING_WRITE, *rating_row)
                        self._do(sql.HISTORY_INSERT, *history_row)
            self._do(
                sql.RATED_SETTLE,
                game_id,
                now,
                None if first is None else first.id,
                None if second is None else second.id,
                int(settlement.counted),
                settlement.to_json(),
            )
            return settlement

        return await self._written(work)

    async def settlement(self, game_id: str) -> Settlement | None:
        found = await self._run(lambda: self._one(sql.RATED_READ, game_id))
        if found is None or found["settlement"] is None:
            return None
        return Settlement.from_json(found["settlement"])

    async def unsettled_rated_games(self, limit: int) -> list[str]:
        return [str(r[0]) for r in await self._run(lambda: self._all(sql.UNSETTLED, limit))]

    # ------------------------------------------------------------------ profiles

    async def ratings_of(self, account_id: str) -> dict[str, Rating]:
        found = await self._run(lambda: self._all(sql.RATINGS_OF, account_id))
        return {str(r["game"]): sql.rating_of(r) for r in found}

    async def rating_history(
        self, account_id: str, game: str, limit: int
    ) -> list[tuple[float, float, float]]:
        found = await self._run(lambda: self._all(sql.HISTORY, account_id, game, limit))
        return [(float(r["at"]), float(r["rating"]), float(r["deviation"])) for r in found[::-1]]

    async def leaderboard(
        self, game: str, max_deviation: float, limit: int
    ) -> list[tuple[str, Rating]]:
        found = await self._run(lambda: self._all(sql.LEADERBOARD, game, max_deviation, limit))
        return [(str(r["name"]), sql.rating_of(r)) for r in found]

    async def account_games(self, account_id: str, limit: int) -> list[AccountGame]:
        found = await self._run(lambda: self._all(sql.ACCOUNT_GAMES, account_id, limit))
        return [sql.account_game(r) for r in found]

    async def account_record(self, account_id: str) -> dict[str, int]:
        found = await self._run(lambda: self._all(sql.ACCOUNT_RESULTS, account_id))
        return sql.count_results(found)
