"""The lobby's open seeks (and direct challenges, which are seeks addressed to one
account), and who is in the lobby, as stored: their transactions, each written once as a
body (:mod:`chuhan.web.db.statements`) that both databases run, and
:class:`SeekRepository`, which hands them to the store. Seeks are live state, not a
record: ``chuhan db copy`` does not copy them.

What is kept (the tables are in :mod:`chuhan.web.db.migrations`):

- ``seeks``: one row per open seek. ``owner`` is who posted it (``a:<account id>`` for
  a signed-in player, ``v:<SHA-256 of the visitor's secret>`` for an anonymous one: the
  secret never reaches the store); ``address`` is the network it came from (the client
  address, or an IPv6 address's /64: :func:`~chuhan.web.accounts.repository.network_of`;
  for the per-address limits); ``target`` the challenged account (a challenge), ``pool`` the
  quick-pairing pool of a quick seek; ``data`` the rest as JSON (:class:`Seek`). A seek
  is taken (accepted) by deleting its row: of two acceptors exactly one deletes it.
- ``lobby_visitors``: which server process holds at least one lobby connection of an
  owner. A seek lives while its owner is in the lobby on a process that is alive: when
  an owner's last connection on a process closes, that process removes its row and, if
  no live process holds the owner any more, the owner's seeks (:func:`leave_lobby`);
  rows and seeks of processes that stopped beating are swept by the survivors
  (:func:`sweep_lobby`). A challenge from a signed-in player is *kept* instead
  (:attr:`Seek.kept`): it stays, whoever is in the lobby, until it is accepted, declined,
  withdrawn or its ``expires`` (in ``data``) passes (:func:`expire_challenges`).

**Limits** (:class:`SeekLimits`, :func:`refusal`): open seeks per owner, per network, in
the whole lobby; anonymous seeks a smaller share per network and of the whole lobby (so a
few addresses cannot fill it: the anonymous part fills first, and a signed-in player, who
cost a sign-up each, still finds room); challenges per target account, and one at a time
from one player or network to the same account.

Several processes write these tables at once on PostgreSQL. Taking a seek is one
``DELETE ... RETURNING``: of two processes taking it, one deletes the row and the other
finds none. What reads before it writes asks for advisory locks: a new seek locks the
lobby's seeks (one lock: the lobby's totals are counted, so every new seek, on any
process, is counted and inserted one after the other; seeks are few and posted by hand)
and its owner; quick pairing first locks its pool (two players pressing the same button on
two processes at once are paired with each other, never left both waiting); entering and
leaving the lobby and the sweep lock the owner, so a sweep never deletes the seek of an
owner who has just arrived on another process. Locks are taken in one order (pool, the
lobby's seeks, owner). On SQLite one thread writes, so the same bodies run alone.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from chuhan.web.db import Store
from chuhan.web.db.statements import All, Body, Do, Lock, One

__all__ = ["Seek", "SeekLimits", "SeekRefused", "SeekRepository"]


class SeekRefused(Exception):
    """A seek the store will not keep: its owner or address already has as many open
    seeks as allowed, the lobby (or its anonymous part) is full, or its target has as many
    challenges as allowed (``reason`` is a sentence, ``code`` the error's code:
    ``too_many_seeks`` or ``too_many_challenges``)."""

    def __init__(self, reason: str, code: str = "too_many_seeks") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


@dataclass(frozen=True, slots=True)
class SeekLimits:
    """How many open seeks one owner, one network (client address) and the whole lobby
    may hold; how many of them may be anonymous, per network and in the whole lobby; how
    many open challenges one account may be sent (and one from each player or network)."""

    per_owner: int
    per_address: int
    total: int
    anonymous_per_address: int
    anonymous_total: int
    per_target: int


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
    #: When a kept challenge (:attr:`kept`) expires unanswered; None: it lives while
    #: its owner is in the lobby, as any seek.
    expires: float | None = None

    @property
    def kept(self) -> bool:
        """A challenge from a signed-in player: kept in the store until it is answered,
        withdrawn or expires, whether or not its owner is in the lobby."""
        return self.target is not None and self.account_id is not None

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


# ---------------------------------------------------------------------- statements

_SEEK = "id, owner, address, account_id, target, pool, created, data"
SEEK_INSERT = f"INSERT INTO seeks ({_SEEK}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
SEEK_READ = f"SELECT {_SEEK} FROM seeks WHERE id = ?"
SEEK_TAKE = f"DELETE FROM seeks WHERE id = ? RETURNING {_SEEK}"
SEEK_CANCEL = f"DELETE FROM seeks WHERE id = ? AND owner = ? RETURNING {_SEEK}"
SEEK_DECLINE = f"DELETE FROM seeks WHERE id = ? AND target = ? RETURNING {_SEEK}"
SEEKS_OPEN = f"SELECT {_SEEK} FROM seeks ORDER BY created, id LIMIT ?"
SEEKS_POOL = f"SELECT {_SEEK} FROM seeks WHERE pool = ? ORDER BY created, id"
SEEKS_COUNT = (
    "SELECT (SELECT count(*) FROM seeks WHERE owner = ?) AS owner_seeks, "
    "(SELECT count(*) FROM seeks WHERE address = ?) AS address_seeks, "
    "(SELECT count(*) FROM seeks WHERE address = ? AND account_id IS NULL) "
    "AS address_anonymous, "
    "(SELECT count(*) FROM seeks WHERE account_id IS NULL) AS all_anonymous, "
    "(SELECT count(*) FROM seeks) AS all_seeks, "
    "(SELECT count(*) FROM seeks WHERE target = ?) AS target_seeks, "
    "(SELECT count(*) FROM seeks WHERE target = ? AND (owner = ? OR address = ?)) "
    "AS target_from_here"
)
VISITOR_ENTER = (
    "INSERT INTO lobby_visitors (owner, server_id) VALUES (?, ?) "
    "ON CONFLICT (owner, server_id) DO NOTHING"
)
VISITOR_LEAVE = "DELETE FROM lobby_visitors WHERE owner = ? AND server_id = ?"
VISITOR_SERVERS = "SELECT server_id FROM lobby_visitors WHERE owner = ?"
VISITORS_ALL = "SELECT owner, server_id FROM lobby_visitors"
VISITORS_FORGET = "DELETE FROM lobby_visitors WHERE server_id = ?"
#: A seek goes with its owner, unless it is a kept challenge (Seek.kept).
_GOES_WITH_OWNER = "(target IS NULL OR account_id IS NULL)"
SEEKS_OF_OWNER = f"DELETE FROM seeks WHERE owner = ? AND {_GOES_WITH_OWNER} RETURNING {_SEEK}"
#: The kept challenges (their expiry is in ``data``).
KEPT_CHALLENGES = f"SELECT {_SEEK} FROM seeks WHERE target IS NOT NULL AND account_id IS NOT NULL"
#: Who is in the lobby, by process, with the account's name of a signed-in owner.
VISITORS_NAMED = (
    "SELECT v.owner, v.server_id, a.name FROM lobby_visitors v "
    "LEFT JOIN accounts a ON v.owner = 'a:' || a.id"
)
#: The games in play between people or against the computer, the latest moved first
#: (the index games_live).
LIVE_GAMES = (
    "SELECT g.id, g.kind, g.variant, g.rules, g.names, g.time_control, g.level, g.updated, "
    "(SELECT count(*) FROM rated_games r WHERE r.game_id = g.id) AS rated "
    "FROM games g WHERE g.status = 'playing' AND g.kind IN ('friend', 'computer') "
    "ORDER BY g.updated DESC LIMIT ?"
)
SEEK_OWNERS = f"SELECT DISTINCT owner FROM seeks WHERE {_GOES_WITH_OWNER}"


def refusal(seek: Seek, counts: Mapping[str, Any], limits: SeekLimits) -> SeekRefused | None:
    """Why ``seek`` is refused given the counts of :data:`SEEKS_COUNT`, or None."""
    if int(counts["owner_seeks"]) >= limits.per_owner:
        return SeekRefused(
            f"you already have {limits.per_owner} open seeks, the most one player may have; "
            "cancel one first"
        )
    if int(counts["address_seeks"]) >= limits.per_address:
        return SeekRefused(
            f"your address already has {limits.per_address} open seeks, the most one "
            "address may have"
        )
    if seek.account_id is None:
        if int(counts["address_anonymous"]) >= limits.anonymous_per_address:
            return SeekRefused(
                f"your address already has {limits.anonymous_per_address} open seeks of "
                "players who are not signed in, the most one address may have; sign in to "
                "post more"
            )
        if int(counts["all_anonymous"]) >= limits.anonymous_total:
            return SeekRefused(
                f"the lobby's room for players who are not signed in is full "
                f"({limits.anonymous_total} open seeks); sign in, or try again in a moment"
            )
    if int(counts["all_seeks"]) >= limits.total:
        return SeekRefused(f"the lobby is full ({limits.total} open seeks); try again in a moment")
    if seek.target is not None:
        name = seek.target_name or "this player"
        if int(counts["target_from_here"]) >= 1:
            return SeekRefused(
                f"you (or your address) already have a challenge open to {name}; wait for "
                "an answer, or cancel it first",
                "too_many_challenges",
            )
        if int(counts["target_seeks"]) >= limits.per_target:
            return SeekRefused(
                f"{name} already has {limits.per_target} challenges waiting, the most one "
                "player may be sent; try again later",
                "too_many_challenges",
            )
    return None


# ---------------------------------------------------------------------- bodies


def _owner_lock(owner: str) -> Lock:
    return Lock(f"lobby owner {owner}")


def add_seek(seek: Seek, limits: SeekLimits) -> Body[None]:
    yield Lock("lobby seeks")
    yield _owner_lock(seek.owner)
    address, target = seek.address, seek.target
    counts = yield One(
        SEEKS_COUNT, (seek.owner, address, address, target, target, seek.owner, address)
    )
    refused = refusal(seek, counts, limits)
    if refused is not None:
        raise refused
    yield Do(SEEK_INSERT, seek.columns())


def pair_or_add(
    seek: Seek, limits: SeekLimits, choose: Callable[[list[Seek]], Seek | None]
) -> Body[Seek | None]:
    yield Lock(f"lobby pool {seek.pool}")
    waiting = yield All(SEEKS_POOL, (seek.pool,))
    chosen = choose([Seek.from_row(r) for r in waiting])
    if chosen is not None:
        taken = yield One(SEEK_TAKE, (chosen.id,))
        if taken is not None:
            return Seek.from_row(taken)
    yield from add_seek(seek, limits)
    return None


def one_seek(statement: str, *args: Any) -> Body[Seek | None]:
    found = yield One(statement, args)
    return None if found is None else Seek.from_row(found)


def open_seeks(limit: int) -> Body[list[Seek]]:
    found = yield All(SEEKS_OPEN, (limit,))
    return [Seek.from_row(r) for r in found]


def enter_lobby(owner: str, server_id: str) -> Body[None]:
    yield _owner_lock(owner)
    yield Do(VISITOR_ENTER, (owner, server_id))


def is_in_lobby(owner: str, alive: set[str]) -> Body[bool]:
    servers = yield All(VISITOR_SERVERS, (owner,))
    return any(str(r["server_id"]) in alive for r in servers)


def leave_lobby(owner: str, server_id: str, alive: set[str]) -> Body[list[Seek]]:
    yield _owner_lock(owner)
    yield Do(VISITOR_LEAVE, (owner, server_id))
    if (yield from is_in_lobby(owner, alive)):
        return []
    found = yield All(SEEKS_OF_OWNER, (owner,))
    return [Seek.from_row(r) for r in found]


def sweep_lobby(server_id: str, here: set[str], alive: set[str]) -> Body[list[Seek]]:
    visitors = {(str(r["owner"]), str(r["server_id"])) for r in (yield All(VISITORS_ALL))}
    for owner, server in sorted(visitors):
        if server == server_id and owner not in here:
            yield Do(VISITOR_LEAVE, (owner, server_id))
            visitors.discard((owner, server))
    for owner in sorted(here):
        yield Do(VISITOR_ENTER, (owner, server_id))
        visitors.add((owner, server_id))
    for dead in sorted({server for _, server in visitors} - alive):
        yield Do(VISITORS_FORGET, (dead,))
    present = {owner for owner, server in visitors if server in alive}
    owners = {str(r["owner"]) for r in (yield All(SEEK_OWNERS))}
    removed: list[Seek] = []
    for owner in sorted(owners - present):
        # (locked, then asked again: the owner may have just come in elsewhere)
        yield _owner_lock(owner)
        if (yield from is_in_lobby(owner, alive)):
            continue
        found = yield All(SEEKS_OF_OWNER, (owner,))
        removed += [Seek.from_row(r) for r in found]
    return removed


def expire_challenges(now: float) -> Body[list[Seek]]:
    """Delete the kept challenges whose expiry is past; return them (of two processes
    expiring one, the one whose ``DELETE`` finds it)."""
    kept = [Seek.from_row(r) for r in (yield All(KEPT_CHALLENGES, ()))]
    expired: list[Seek] = []
    for seek in kept:
        if seek.expires is not None and seek.expires <= now:
            found = yield One(SEEK_TAKE, (seek.id,))
            if found is not None:
                expired.append(Seek.from_row(found))
    return expired


# ---------------------------------------------------------------------- the repository


@dataclass(frozen=True, slots=True)
class LiveGame:
    """A game in play, as the lobby lists it to watch."""

    game_id: str
    kind: str
    variant: str
    rules: str
    names: dict[str, str]
    time_control: dict[str, Any] | None
    level: int | None
    updated: float
    rated: bool


def live_games(limit: int) -> Body[list[LiveGame]]:
    found = yield All(LIVE_GAMES, (limit,))
    return [
        LiveGame(
            game_id=str(r["id"]),
            kind=str(r["kind"]),
            variant=str(r["variant"]),
            rules=str(r["rules"]),
            names=dict(json.loads(r["names"])),
            time_control=None if r["time_control"] is None else json.loads(r["time_control"]),
            level=None if r["level"] is None else int(r["level"]),
            updated=float(r["updated"]),
            rated=bool(r["rated"]),
        )
        for r in found
    ]


def lobby_visitors(alive: set[str]) -> Body[tuple[int, list[str]]]:
    """How many owners are in the lobby on a live process, and the names of the signed-in
    ones (sorted)."""
    owners: set[str] = set()
    names: set[str] = set()
    for row in (yield All(VISITORS_NAMED, ())):
        if row["server_id"] not in alive:
            continue
        owners.add(str(row["owner"]))
        if row["name"] is not None:
            names.add(str(row["name"]))
    return len(owners), sorted(names, key=str.casefold)


class SeekRepository:
    """The lobby's seeks in the game database ``db`` (either store): each method one
    transaction (a body above), or one read."""

    def __init__(self, db: Store) -> None:
        self.db = db

    async def add_seek(self, seek: Seek, limits: SeekLimits) -> None:
        """Keep ``seek``; raises :class:`SeekRefused` (nothing kept) when its owner or
        address already holds as many seeks as ``limits`` allow, the lobby (or its part
        for anonymous players) is full, or the challenged account has as many challenges
        as allowed. The counting and the insert are one step for every process."""
        await self.db.write(add_seek(seek, limits), "posting a seek")

    async def pair_or_add(
        self, seek: Seek, limits: SeekLimits, choose: Callable[[list[Seek]], Seek | None]
    ) -> Seek | None:
        """Quick pairing, one step for every process that pairs in the same pool: the
        seeks waiting in ``seek.pool`` are handed to ``choose``; the one it picks is taken
        (deleted) and returned, or, when it picks none, ``seek`` is kept (as
        :meth:`add_seek`: :class:`SeekRefused` over a limit) and None returned."""
        return await self.db.write(pair_or_add(seek, limits, choose), "pairing")

    async def take_seek(self, seek_id: str) -> Seek | None:
        """Delete the seek and return it, or None when it is gone (taken, cancelled):
        of two processes taking one seek exactly one gets it."""
        return await self.db.write(one_seek(SEEK_TAKE, seek_id), "taking a seek")

    async def cancel_seek(self, seek_id: str, owner: str) -> Seek | None:
        """Delete the seek if ``owner`` posted it; the seek, or None."""
        return await self.db.write(one_seek(SEEK_CANCEL, seek_id, owner), "cancelling a seek")

    async def decline_seek(self, seek_id: str, target: str) -> Seek | None:
        """Delete the challenge if it is addressed to the account ``target``; the seek,
        or None."""
        body = one_seek(SEEK_DECLINE, seek_id, target)
        return await self.db.write(body, "declining a challenge")

    async def expire_challenges(self, now: float) -> list[Seek]:
        """Delete the kept challenges expired at ``now``; the ones this call deleted."""
        return await self.db.write(expire_challenges(now), "expiring challenges")

    async def seek(self, seek_id: str) -> Seek | None:
        return await self.db.read(one_seek(SEEK_READ, seek_id), "reading a seek")

    async def open_seeks(self, limit: int) -> list[Seek]:
        """The open seeks, oldest first."""
        return await self.db.read(open_seeks(limit), "listing the seeks")

    async def live_games(self, limit: int) -> list[LiveGame]:
        """The ``limit`` games in play moved last (between people or against the computer)."""
        return await self.db.read(live_games(limit), "reading the games in play")

    async def lobby_visitors(self, alive: set[str]) -> tuple[int, list[str]]:
        """Who is in the lobby on the live processes: how many, and the signed-in names."""
        return await self.db.read(lobby_visitors(alive), "reading who is in the lobby")

    async def enter_lobby(self, owner: str, server_id: str) -> None:
        """Record that the process ``server_id`` holds a lobby connection of ``owner``."""
        await self.db.write(enter_lobby(owner, server_id), "entering the lobby")

    async def leave_lobby(self, owner: str, server_id: str, alive: set[str]) -> list[Seek]:
        """``owner`` has no lobby connection left on ``server_id``: forget that, and when
        no process in ``alive`` holds the owner any more, delete its seeks; return the seeks
        deleted."""
        return await self.db.write(leave_lobby(owner, server_id, alive), "leaving the lobby")

    async def is_in_lobby(self, owner: str, alive: set[str]) -> bool:
        """Whether a process in ``alive`` holds a lobby connection of ``owner``."""
        return await self.db.read(is_in_lobby(owner, alive), "reading who is in the lobby")

    async def sweep_lobby(self, server_id: str, here: set[str], alive: set[str]) -> list[Seek]:
        """Keep the lobby true: ``here`` are the owners ``server_id`` holds connections of
        (recorded again, in case another process swept them while this one seemed dead);
        the rows of processes not in ``alive`` are forgotten and the seeks of owners no
        live process holds are deleted. Returns the seeks deleted."""
        body = sweep_lobby(server_id, here, alive)
        return await self.db.write(body, "sweeping the lobby")
