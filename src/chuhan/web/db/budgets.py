"""Rate budgets kept in the game database, so that they hold whatever process answers: a
token bucket per key (``create address 203.0.113.9``), taken by one transaction that
every process runs alike.

A bucket holds at most ``burst`` tokens and gains one every ``every_seconds``; a request
takes one, or is told how long until one is there. The ``budgets`` table (a step of
:mod:`chuhan.web.db.migrations`) keeps, per key, the tokens left when it was last taken
from (``at``, the server's clock) and when the bucket will be full again (``full_at``).
A bucket that is full is the same as no row, so rows full for a day are deleted now and
then (:data:`FORGET_AFTER_SECONDS`).

On PostgreSQL, where several processes take from one bucket at once, the body takes an
advisory lock on the key first: the read, the count and the write are one step for every
process. SQLite's one writer thread already runs each body alone. ``now`` is the
server's wall clock; machines whose clocks disagree by ``s`` seconds can give a key at
most ``s / every_seconds`` tokens more than its budget (never a negative refill).

This module knows no feature: the features name their budgets (``Rate`` and a key)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from chuhan.web.db import Store
from chuhan.web.db.errors import StoreError
from chuhan.web.db.statements import Body, Do, Lock, One

__all__ = ["FORGET_AFTER_SECONDS", "SWEEP_EVERY_SECONDS", "Budgets", "Rate", "forget", "take"]

log = logging.getLogger("chuhan.web.db")

#: A bucket full for this long is deleted by the next sweep.
FORGET_AFTER_SECONDS = 86_400.0
#: How often (by the server's clock) a process sweeps the full buckets away.
SWEEP_EVERY_SECONDS = 3600.0


@dataclass(frozen=True, slots=True)
class Rate:
    """``burst`` requests at once, then one every ``every_seconds`` (0: no limit)."""

    burst: float
    every_seconds: float


BUDGET_READ = "SELECT tokens, at FROM budgets WHERE key = ?"
BUDGET_WRITE = (
    "INSERT INTO budgets (key, tokens, at, full_at) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (key) DO UPDATE SET tokens = excluded.tokens, at = excluded.at, "
    "full_at = excluded.full_at"
)
BUDGETS_FORGET = "DELETE FROM budgets WHERE full_at < ?"


def take(key: str, rate: Rate, now: float) -> Body[float]:
    """Take one token from ``key``'s bucket: 0 if taken, else the seconds until one is
    there (nothing is written then)."""
    if rate.every_seconds <= 0:
        return 0.0
    yield Lock(f"budget {key}")
    found = yield One(BUDGET_READ, (key,))
    tokens = float(rate.burst)
    if found is not None:
        gained = max(0.0, now - float(found["at"])) / rate.every_seconds
        tokens = min(tokens, float(found["tokens"]) + gained)
    if tokens < 1:
        return (1 - tokens) * rate.every_seconds
    tokens -= 1
    full_at = now + (rate.burst - tokens) * rate.every_seconds
    yield Do(BUDGET_WRITE, (key, tokens, now, full_at))
    return 0.0


def forget(now: float) -> Body[int]:
    """Delete the buckets that have been full for :data:`FORGET_AFTER_SECONDS`; how many."""
    deleted = yield Do(BUDGETS_FORGET, (now - FORGET_AFTER_SECONDS,))
    return int(deleted)


class Budgets:
    """The rate budgets in the store ``db``, by the server's clock ``now``: each
    :meth:`take` one transaction; every :data:`SWEEP_EVERY_SECONDS` one of them is
    followed by a sweep of the full buckets."""

    def __init__(self, db: Store, now: Callable[[], float]) -> None:
        self.db = db
        self.now = now
        self._swept: float | None = None

    async def take(self, key: str, rate: Rate) -> float:
        """Take one request from ``key``'s budget: 0 if allowed, else the seconds to wait."""
        now = self.now()
        wait = await self.db.write(take(key, rate, now), "counting a request")
        if self._swept is None or now - self._swept >= SWEEP_EVERY_SECONDS:
            self._swept = now
            try:
                await self.db.write(forget(now), "forgetting full budgets")
            except StoreError as error:  # (the next sweep will)
                log.warning("cannot forget the full budgets: %s", error)
        return wait
