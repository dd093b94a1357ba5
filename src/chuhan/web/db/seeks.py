"""The store contract for the lobby's open seeks (and direct challenges, which are seeks
addressed to one account), and who is in the lobby.

Both stores take this part on as a base class of their own (``SqliteSeeks`` in
:mod:`.sqlite_seeks`, ``PostgresSeeks`` in :mod:`.postgres_seeks`); the tables are one
migration (:data:`SEEKS_SCHEMA`, the same text on both). Seeks are live state, not a
record: ``chuhan db copy`` does not copy them.

What is kept:

- ``seeks``: one row per open seek. ``owner`` is who posted it (``a:<account id>`` for
  a signed-in player, ``v:<SHA-256 of the visitor's secret>`` for an anonymous one: the
  secret never reaches the store); ``address`` is the client address it came from (for
  the per-address limit); ``target`` the challenged account (a challenge), ``pool`` the
  quick-pairing pool of a quick seek; ``data`` the rest as JSON (:class:`Seek`). A seek
  is taken (accepted) by deleting its row: of two acceptors exactly one deletes it.
- ``lobby_visitors``: which server process holds at least one lobby connection of an
  owner. A seek lives while its owner is in the lobby on a process that is alive: when
  an owner's last connection on a process closes, that process removes its row and, if
  no live process holds the owner any more, the owner's seeks
  (:meth:`SeekStore.leave_lobby`); rows and seeks of processes that stopped beating are
  swept by the survivors (:meth:`SeekStore.sweep_lobby`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Protocol

__all__ = ["SEEKS_SCHEMA", "Seek", "SeekLimits", "SeekRefused", "SeekStore"]


class SeekRefused(Exception):
    """A seek the store will not keep: its owner or address already has as many open
    seeks as allowed, or the lobby is full (``reason`` is a sentence)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class SeekLimits:
    """How many open seeks one owner, one client address and the whole lobby may hold."""

    per_owner: int
    per_address: int
    total: int


@dataclass(frozen=True, slots=True)
class Seek:
    """An open seek. ``owner`` and ``address`` are never shown to anyone; ``color`` is
    the side the seeker plays (``first``, ``second`` or ``random``); ``rating`` and
    ``deviation`` are the seeker's in ``game`` when posted (None: anonymous);
    ``rating_min``/``rating_max`` bound the opponent's rating; ``target`` is the account a
    challenge is addressed to; ``pool`` the quick-pairing pool of a quick seek."""

    id: str
    owner: str
    address: str
    account_id: str | None
    name: str
    game: str
    rules: str
    time_control: dict[str, Any] | None
    rated: bool
    color: str
    rating: float | None
    deviation: float | None
    rating_min: int | None
    rating_max: int | None
    target: str | None
    target_name: str | None
    pool: str | None
    created: float

    #: Columns of their own (the rest is ``data``).
    _COLUMNS = ("id", "owner", "address", "account_id", "target", "pool", "created")

    def data_json(self) -> str:
        values = asdict(self)
        for name in self._COLUMNS:
            del values[name]
        return json.dumps(values, ensure_ascii=False)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Seek:
        data = json.loads(row["data"])
        columns = {name: row[name] for name in cls._COLUMNS}
        columns["created"] = float(columns["created"])
        return cls(**columns, **data)

    def columns(self) -> tuple[Any, ...]:
        """The row's values, in :data:`SEEK_INSERT`'s order."""
        return (
            self.id,
            self.owner,
            self.address,
            self.account_id,
            self.target,
            self.pool,
            self.created,
            self.data_json(),
        )


class SeekStore(Protocol):
    """What the lobby needs from a store."""

    async def add_seek(self, seek: Seek, limits: SeekLimits) -> None:
        """Keep ``seek``; raises :class:`SeekRefused` (nothing kept) when its owner or
        address already holds as many seeks as ``limits`` allow, or the lobby is full.
        The counting and the insert are one step for every process."""

    async def pair_or_add(
        self, seek: Seek, limits: SeekLimits, choose: Callable[[list[Seek]], Seek | None]
    ) -> Seek | None:
        """Quick pairing, one step for every process that pairs in the same pool: the
        seeks waiting in ``seek.pool`` are handed to ``choose``; the one it picks is taken
        (deleted) and returned, or, when it picks none, ``seek`` is kept (as
        :meth:`add_seek`: :class:`SeekRefused` over a limit) and None returned."""

    async def take_seek(self, seek_id: str) -> Seek | None:
        """Delete the seek and return it, or None when it is gone (taken, cancelled):
        of two processes taking one seek exactly one gets it."""

    async def cancel_seek(self, seek_id: str, owner: str) -> Seek | None:
        """Delete the seek if ``owner`` posted it; the seek, or None."""

    async def decline_seek(self, seek_id: str, target: str) -> Seek | None:
        """Delete the challenge if it is addressed to the account ``target``; the seek,
        or None."""

    async def seek(self, seek_id: str) -> Seek | None: ...

    async def open_seeks(self, limit: int) -> list[Seek]:
        """The open seeks, oldest first."""

    async def enter_lobby(self, owner: str, server_id: str) -> None:
        """Record that the process ``server_id`` holds a lobby connection of ``owner``."""

    async def leave_lobby(self, owner: str, server_id: str, alive: set[str]) -> list[Seek]:
        """``owner`` has no lobby connection left on ``server_id``: forget that, and when
        no process in ``alive`` holds the owner any more, delete its seeks; return the seeks
        deleted."""

    async def is_in_lobby(self, owner: str, alive: set[str]) -> bool:
        """Whether a process in ``alive`` holds a lobby connection of ``owner``."""

    async def sweep_lobby(self, server_id: str, here: set[str], alive: set[str]) -> list[Seek]:
        """Keep the lobby true: ``here`` are the owners ``server_id`` holds connections of
        (recorded again, in case another process swept them while this one seemed dead);
        the rows of processes not in ``alive`` are forgotten and the seeks of owners no
        live process holds are deleted. Returns the seeks deleted."""


#: The lobby's tables (one migration of each store: the same text on both).
SEEKS_SCHEMA = """
CREATE TABLE seeks (
    id text PRIMARY KEY,
    owner text NOT NULL,
    address text NOT NULL,
    account_id text,
    target text,
    pool text,
    created double precision NOT NULL,
    data text NOT NULL
);
CREATE INDEX seeks_owner ON seeks (owner);
CREATE INDEX seeks_address ON seeks (address);
CREATE INDEX seeks_pool ON seeks (pool, created) WHERE pool IS NOT NULL;
CREATE TABLE lobby_visitors (
    owner text NOT NULL,
    server_id text NOT NULL,
    PRIMARY KEY (owner, server_id)
);
CREATE INDEX lobby_visitors_server ON lobby_visitors (server_id)
"""

_SEEK = "id, owner, address, account_id, target, pool, created, data"
SEEK_INSERT = f"INSERT INTO seeks ({_SEEK}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
SEEK_READ = f"SELECT {_SEEK} FROM seeks WHERE id = $1"
SEEK_TAKE = f"DELETE FROM seeks WHERE id = $1 RETURNING {_SEEK}"
SEEK_CANCEL = f"DELETE FROM seeks WHERE id = $1 AND owner = $2 RETURNING {_SEEK}"
SEEK_DECLINE = f"DELETE FROM seeks WHERE id = $1 AND target = $2 RETURNING {_SEEK}"
SEEKS_OPEN = f"SELECT {_SEEK} FROM seeks ORDER BY created, id LIMIT $1"
SEEKS_POOL = f"SELECT {_SEEK} FROM seeks WHERE pool = $1 ORDER BY created, id"
SEEKS_COUNT = (
    "SELECT (SELECT count(*) FROM seeks WHERE owner = $1) AS owner_seeks, "
    "(SELECT count(*) FROM seeks WHERE address = $2) AS address_seeks, "
    "(SELECT count(*) FROM seeks) AS all_seeks"
)
VISITOR_ENTER = (
    "INSERT INTO lobby_visitors (owner, server_id) VALUES ($1, $2) "
    "ON CONFLICT (owner, server_id) DO NOTHING"
)
VISITOR_LEAVE = "DELETE FROM lobby_visitors WHERE owner = $1 AND server_id = $2"
VISITOR_SERVERS = "SELECT server_id FROM lobby_visitors WHERE owner = $1"
VISITORS_ALL = "SELECT owner, server_id FROM lobby_visitors"
VISITORS_FORGET = "DELETE FROM lobby_visitors WHERE server_id = $1"
VISITORS_GONE_HERE = "DELETE FROM lobby_visitors WHERE server_id = $1 AND owner <> ALL($2::text[])"
SEEKS_OF_OWNER = f"DELETE FROM seeks WHERE owner = $1 RETURNING {_SEEK}"
SEEK_OWNERS = "SELECT DISTINCT owner FROM seeks"


def refusal(counts: Mapping[str, Any], limits: SeekLimits) -> str | None:
    """Why a new seek is refused given the counts of :data:`SEEKS_COUNT`, or None."""
    if int(counts["owner_seeks"]) >= limits.per_owner:
        return (
            f"you already have {limits.per_owner} open seeks, the most one player may have; "
            "cancel one first"
        )
    if int(counts["address_seeks"]) >= limits.per_address:
        return (
            f"your address already has {limits.per_address} open seeks, the most one "
            "address may have"
        )
    if int(counts["all_seeks"]) >= limits.total:
        return f"the lobby is full ({limits.total} open seeks); try again in a moment"
    return None
