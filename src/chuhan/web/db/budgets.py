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

A process keeps two things of a key in memory, neither of which can let an address past
its budget: when the store last said the bucket is empty (until it has a token again, a
request is refused without asking the store: the other processes only take tokens), and,
for a budget taken many times a second (``Rate.lease`` above 1), a few tokens taken from
the store in one transaction and spent here for a second (then the rest are dropped). A
flood of reads thus costs the store one transaction per lease and none per refusal, and a
game's moves do not wait behind them in the store's writer.

This module knows no feature: the features name their budgets (``Rate`` and a key)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from chuhan.web.db import Store
from chuhan.web.db.errors import StoreError
from chuhan.web.db.statements import Body, Do, Lock, One

__all__ = [
    "FORGET_AFTER_SECONDS",
    "LEASE_SECONDS",
    "SWEEP_EVERY_SECONDS",
    "Budgets",
    "Rate",
    "forget",
    "take",
    "take_some",
]

log = logging.getLogger("chuhan.web.db")

#: A bucket full for this long is deleted by the next sweep.
FORGET_AFTER_SECONDS = 86_400.0
#: How often (by the server's clock) a process sweeps the full buckets away.
SWEEP_EVERY_SECONDS = 3600.0


#: How long a process spends the tokens of a lease before it drops what is left.
LEASE_SECONDS = 1.0


@dataclass(frozen=True, slots=True)
class Rate:
    """``burst`` requests at once, then one every ``every_seconds`` (0: no limit).
    ``lease``: how many tokens a process takes from the store at once (see the module
    text; tokens it does not spend within :data:`LEASE_SECONDS` are lost to the key, so
    only a budget of many requests a second should lease more than one)."""

    burst: float
    every_seconds: float
    lease: int = 1


@dataclass(slots=True)
class _Held:
    """What this process knows of a key: tokens leased and until when they may be spent,
    or until when the bucket is known to be empty."""

    tokens: int = 0
    spend_until: float = 0.0
    empty_until: float = 0.0


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
    wait, _ = yield from take_some(key, rate, now, 1)
    return wait


def take_some(key: str, rate: Rate, now: float, count: int) -> Body[tuple[float, int]]:
    """Take up to ``count`` tokens from ``key``'s bucket (as many whole ones as it has):
    ``(0, taken)``, or ``(seconds until one is there, 0)`` and nothing written."""
    if rate.every_seconds <= 0:
        return 0.0, count
    yield Lock(f"budget {key}")
    found = yield One(BUDGET_READ, (key,))
    tokens = float(rate.burst)
    if found is not None:
        gained = max(0.0, now - float(found["at"])) / rate.every_seconds
        tokens = min(tokens, float(found["tokens"]) + gained)
    if tokens < 1:
        return (1 - tokens) * rate.every_seconds, 0
    taken = max(1, min(count, int(tokens)))
    tokens -= taken
    full_at = now + (rate.burst - tokens) * rate.every_seconds
    yield Do(BUDGET_WRITE, (key, tokens, now, full_at))
    return 0.0, taken


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
        self._held: dict[str, _Held] = {}

    async def take(self, key: str, rate: Rate) -> float:
        """Take one request from ``key``'s budget: 0 if allowed, else the seconds to wait."""
        now = self.now()
        if rate.every_seconds <= 0:
            return 0.0
        held = self._held.get(key)
        if held is not None:
            if now < held.empty_until:
                return held.empty_until - now
            if held.tokens > 0 and now < held.spend_until:
                held.tokens -= 1
                return 0.0
        wait, taken = await self.db.write(
            take_some(key, rate, now, max(1, rate.lease)), "counting a request"
        )
        if len(self._held) >= 4096:  # forget what no longer says anything
            self._held = {
                k: h for k, h in self._held.items() if max(h.empty_until, h.spend_until) > now
            }
        if taken:
            self._held[key] = _Held(taken - 1, now + LEASE_SECONDS)
        else:
            self._held[key] = _Held(empty_until=now + wait)
        if self._swept is None or now - self._swept >= SWEEP_EVERY_SECONDS:
            self._swept = now
            try:
                await self.db.write(forget(now), "forgetting full budgets")
            except StoreError as error:  # (the next sweep will)
                log.warning("cannot forget the full budgets: %s", error)
        return wait
