"""Accounts, sessions, sign-in attempts and ratings as stored: their transactions, each
written once as a body (:mod:`chuhan.web.db.statements`) that both databases run, and
:class:`AccountRepository`, which hands them to the store.

What is kept (the tables are in :mod:`chuhan.web.db.migrations`):

- ``accounts``: a name as the player typed it, its key (:func:`name_key`, so that names
  differing only in case or in a compatibility form are one name), its skeleton
  (:func:`name_skeleton`, UTS #39: names that look alike are one name), the network it
  signed up from (:func:`network_of`, for the rating rules; never shown) and the Argon2
  hash of the password. The hash never leaves the server: :class:`Account` carries it for the
  password check alone, and nothing that builds a response reads it.
- ``sessions``: one row per signed-in browser, keyed by the SHA-256 of the session id
  its cookie carries (a copy of the database holds no usable session). Signing out
  deletes the row, so a cookie replayed afterwards finds nothing, on every server process.
  An account has at most ``sessions_per_account`` (a sign-in beyond it ends the oldest,
  under the account's lock); every body that ends sessions returns their keys, so that
  their open sockets are closed (:mod:`chuhan.web.sockets.sessions`).
- ``attempts``: sign-in and sign-up attempts per key (an address, a name) within a
  window, counted and taken in one transaction (:func:`take_attempt`), so the limit
  holds across server processes.
- ``game_accounts``: which account holds which seat of a game (a seat has its token as
  before; the account is beside it). ``seat_networks``: the networks a seat of a rated
  game was played from, until the game is settled (then they are deleted).
- ``rated_games``, ``ratings`` and ``rating_history``: a rated game, settled once
  (:func:`settle_rated_game`; per seat whether it counted and whether the account was new
  then), each account's rating per game (xiangqi, janggi) and every rating it had.

Several processes write these tables at once on PostgreSQL, so the bodies that read
before they write ask for locks: the attempts of one key take an advisory lock on that key
(counting and taking are one step for every process); settling a game locks its
``rated_games`` row (of two processes settling the same game, the second waits and then
finds it settled) and then both accounts' advisory locks, in a fixed order (two games of
the same account, or of the same pair, settle one after the other, so neither loses the
other's rating change and the once-a-day rule sees the earlier game). A new account takes
an advisory lock on its name's skeleton before it looks for a look-alike (the unique index
on the skeleton stops what slips past). On SQLite one thread writes, so the same bodies run
alone.
"""

from __future__ import annotations

import ipaddress
import json
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from disarm import KEY_SCHEMA_VERSION, skeleton_key

from chuhan.errors import ChuhanError
from chuhan.web.db import Store
from chuhan.web.db.errors import Duplicate
from chuhan.web.db.statements import All, Body, Do, Lock, One, Row

__all__ = [
    "Account",
    "AccountGame",
    "AccountRepository",
    "NameConfusable",
    "NameTaken",
    "Rating",
    "RatingChange",
    "RatingInput",
    "Settlement",
    "name_key",
    "name_skeleton",
    "network_of",
]


class NameTaken(ChuhanError):
    """An account already has this name (names are compared by :func:`name_key`)."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"the name {name!r} is taken")


class NameConfusable(ChuhanError):
    """A new name that looks like an account's name (their skeletons are one)."""

    def __init__(self, name: str, existing: str) -> None:
        self.name = name
        self.existing = existing
        super().__init__(f"the name {name!r} looks like the name of the player {existing!r}")


def name_key(name: str) -> str:
    """What makes two names the same: compatibility forms folded (full-width letters)
    and case ignored."""
    return unicodedata.normalize("NFKC", name).casefold()


#: What the stored skeletons were made with (kept in ``meta``: a server whose skeletons
#: differ recomputes them all when it starts, :func:`fill_name_skeletons`).
SKELETON_META = "name_skeletons"


def skeleton_scheme() -> str:
    """The name of the skeleton function in use: disarm's key schema (it changes when
    disarm's keys for the same name change)."""
    return f"disarm skeleton_key tr39, key schema {KEY_SCHEMA_VERSION}"


def name_skeleton(name: str) -> str:
    """What makes two names look the same: the name's UTS #39 confusable skeleton, made
    by disarm (``skeleton_key``, with UTS #39's own digits: ``0`` is ``O``, ``1`` is
    ``l``): Cyrillic ``с`` is Latin ``c``, ``ǀ`` and ``I`` are ``l``, and invisible
    characters are gone. disarm folds the look-alikes of the cased name first and then
    its case, so ``Ada_I`` (capital i) and ``Ada_l`` are one name as they look, and the
    result is lower case. Not for display."""
    return skeleton_key(unicodedata.normalize("NFKC", name), digit_policy="tr39")


def network_of(address: str | None) -> str | None:
    """The network a client address stands for in the rating rules and the lobby's
    limits: an IPv4 address itself; an IPv6 address's /64 (one household or one
    customer: its devices share it, and a host may take any address in it); None for what
    is not an IP address (a test client, a Unix socket)."""
    if not address:
        return None
    try:
        if "/" in address:  # (a network already)
            return str(ipaddress.ip_network(address, strict=False))
        ip = ipaddress.ip_address(address.strip("[]").split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


@dataclass(frozen=True, slots=True)
class Account:
    """A player's account. ``password_hash`` is for the password check only: it is never
    put in a response."""

    id: str
    name: str
    created: float
    password_hash: str = field(repr=False)


@dataclass(frozen=True, slots=True)
class Rating:
    """One account's Glicko-2 rating in one game, and the rated games it counts."""

    rating: float
    deviation: float
    volatility: float
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    updated: float = 0.0


@dataclass(frozen=True, slots=True)
class RatingChange:
    """What a settled game did to one player's rating (``after == before`` when it did not
    count for this player: ``counted``), and whether the account was new in the game
    then (fewer rated games counted than :data:`~chuhan.web.accounts.ratings.NEW_ACCOUNT_GAMES`)."""

    account_id: str
    name: str
    before: float
    after: float
    deviation: float
    volatility: float
    counted: bool = True
    new: bool = False

    @property
    def change(self) -> float:
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class Settlement:
    """The outcome of settling a rated game: whether it counted (for either player;
    ``reason`` says why not, or for whom not, and ``code`` names the rule), the winner's
    seat (None: a draw) and each seat's rating change."""

    game_id: str
    game: str
    counted: bool
    reason: str | None
    winner: str | None
    at: float
    changes: dict[str, RatingChange]
    code: str | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Settlement:
        data = json.loads(text)
        changes = {seat: RatingChange(**change) for seat, change in data["changes"].items()}
        return cls(**{**data, "changes": changes})


@dataclass(frozen=True, slots=True)
class RatingInput:
    """What the rating rule decides a settlement from (inside the store's transaction):
    the game, the winner's seat (None: a draw), each seat's account and its rating (None:
    its first rated game of this kind), when the last rated game between the same two
    accounts in this game counted (None: not within the window the caller gave), how many
    moves (plies) the game had, per seat the networks its account signed up from and its
    seat was played from, and per seat how many rated games in this game within the window
    counted for the account against an account that was new."""

    game_id: str
    game: str
    winner: str | None
    accounts: dict[str, Account]
    ratings: dict[str, Rating | None]
    pair_counted_at: float | None
    now: float
    plies: int
    networks: dict[str, frozenset[str]]
    new_opponent_games: dict[str, int]


@dataclass(frozen=True, slots=True)
class AccountGame:
    """One game an account played, for its profile (never a seat token)."""

    game_id: str
    seat: str
    variant: str
    rules: str
    kind: str
    status: str
    result: dict[str, Any] | None
    names: dict[str, str]
    opponent: str | None
    rated: bool
    created: float
    updated: float


# ---------------------------------------------------------------------- statements

SECRET_KEEP = "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING"
SECRET_READ = "SELECT value FROM meta WHERE key = ?"

_ACCOUNT = "id, name, created, password_hash"
ACCOUNT_INSERT = (
    "INSERT INTO accounts (id, name, name_key, password_hash, created, name_skeleton, network) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)
ACCOUNT_BY_SKELETON = "SELECT id, name FROM accounts WHERE name_skeleton = ?"
SKELETONS_MISSING = "SELECT id, name FROM accounts WHERE name_skeleton IS NULL ORDER BY created, id"
SKELETONS_ALL = "SELECT id, name FROM accounts ORDER BY created, id"
SKELETONS_FORGET = "UPDATE accounts SET name_skeleton = NULL"
SKELETON_SET = "UPDATE accounts SET name_skeleton = ? WHERE id = ?"
META_WRITE = (
    "INSERT INTO meta (key, value) VALUES (?, ?) "
    "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)
ACCOUNT_BY_KEY = f"SELECT {_ACCOUNT} FROM accounts WHERE name_key = ?"
ACCOUNT_BY_ID = f"SELECT {_ACCOUNT} FROM accounts WHERE id = ?"
PASSWORD_SET = "UPDATE accounts SET password_hash = ? WHERE id = ?"
SESSIONS_END_OTHERS = "DELETE FROM sessions WHERE account_id = ? AND key <> ? RETURNING key"
#: Deleting an account: every row that names it (games stay, without it); its sessions
#: first (their keys are returned: their sockets are closed).
SESSIONS_OF_ACCOUNT_END = "DELETE FROM sessions WHERE account_id = ? RETURNING key"
ACCOUNT_DELETE = (
    "DELETE FROM seat_networks WHERE EXISTS (SELECT 1 FROM game_accounts g WHERE "
    "g.account_id = ? AND g.game_id = seat_networks.game_id AND g.seat = seat_networks.seat)",
    "DELETE FROM ratings WHERE account_id = ?",
    "DELETE FROM rating_history WHERE account_id = ?",
    "DELETE FROM game_accounts WHERE account_id = ?",
    "DELETE FROM accounts WHERE id = ?",
)

SESSION_INSERT = "INSERT INTO sessions (key, account_id, created, expires) VALUES (?, ?, ?, ?)"
SESSIONS_EXPIRED = "DELETE FROM sessions WHERE account_id = ? AND expires <= ? RETURNING key"
SESSIONS_NEWEST = "SELECT key FROM sessions WHERE account_id = ? ORDER BY created DESC, key DESC"
SESSION_ACCOUNT = (
    "SELECT a.id, a.name, a.created, a.password_hash FROM sessions s "
    "JOIN accounts a ON a.id = s.account_id WHERE s.key = ? AND s.expires > ?"
)
SESSION_END = "DELETE FROM sessions WHERE key = ? RETURNING key"
SESSIONS_LIVE = "SELECT key FROM sessions WHERE expires > ? AND key IN ({marks})"
#: Session keys one statement asks about at most (SQLite's parameters are bounded).
SESSIONS_ASKED = 500

ATTEMPTS_FORGET = "DELETE FROM attempts WHERE at <= ?"
ATTEMPTS_COUNT = "SELECT count(*) AS n, min(at) AS first FROM attempts WHERE key = ?"
ATTEMPT_INSERT = "INSERT INTO attempts (id, key, at) VALUES (?, ?, ?)"
ATTEMPTS_FORGIVE = "DELETE FROM attempts WHERE id LIKE ?"

SEAT_ATTACH = (
    "INSERT INTO game_accounts (game_id, seat, account_id) VALUES (?, ?, ?) "
    "ON CONFLICT (game_id, seat) DO NOTHING"
)
SEAT_HOLDER = "SELECT account_id FROM game_accounts WHERE game_id = ? AND seat = ?"
GAME_ACCOUNTS = (
    "SELECT g.seat, a.id, a.name, a.created, a.password_hash, a.network FROM game_accounts g "
    "JOIN accounts a ON a.id = g.account_id WHERE g.game_id = ?"
)
#: A network a seat was played from, kept only while the game is rated and unsettled.
SEAT_NETWORK_ADD = (
    "INSERT INTO seat_networks (game_id, seat, network) "
    "SELECT CAST(? AS text), CAST(? AS text), CAST(? AS text) WHERE EXISTS "
    "(SELECT 1 FROM rated_games WHERE game_id = ? AND settled IS NULL) "
    "ON CONFLICT (game_id, seat, network) DO NOTHING"
)
SEAT_NETWORKS = "SELECT seat, network FROM seat_networks WHERE game_id = ?"
SEAT_NETWORKS_FORGET = "DELETE FROM seat_networks WHERE game_id = ?"

RATED_INSERT = (
    "INSERT INTO rated_games (game_id, game, created) VALUES (?, ?, ?) "
    "ON CONFLICT (game_id) DO NOTHING"
)
RATED_READ = "SELECT game, settled, settlement FROM rated_games WHERE game_id = ?"
GAME_OUTCOME = "SELECT status, result, moves FROM games WHERE id = ?"
_RATING = "rating, deviation, volatility, games, wins, losses, draws, updated"
RATING_READ = f"SELECT {_RATING} FROM ratings WHERE account_id = ? AND game = ?"
#: When the last rated game of this pair in this game counted, within the window.
PAIR_COUNTED = (
    "SELECT max(settled) AS at FROM rated_games WHERE game = ? AND counted = 1 "
    "AND settled > ? AND ((first_account = ? AND second_account = ?) "
    "OR (first_account = ? AND second_account = ?))"
)
#: How many rated games in this game, within the window, counted for the account against
#: an account that was new then.
NEW_OPPONENT_GAMES = (
    "SELECT count(*) AS n FROM rated_games WHERE game = ? AND settled > ? AND ("
    "(first_account = ? AND first_counted = 1 AND second_new = 1) OR "
    "(second_account = ? AND second_counted = 1 AND first_new = 1))"
)
RATING_WRITE = (
    f"INSERT INTO ratings (account_id, game, {_RATING}) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (account_id, game) DO UPDATE SET rating = excluded.rating, "
    "deviation = excluded.deviation, volatility = excluded.volatility, "
    "games = excluded.games, wins = excluded.wins, losses = excluded.losses, "
    "draws = excluded.draws, updated = excluded.updated"
)
HISTORY_INSERT = (
    "INSERT INTO rating_history (account_id, game, game_id, at, rating, deviation, volatility) "
    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (account_id, game_id) DO NOTHING"
)
RATED_SETTLE = (
    "UPDATE rated_games SET settled = ?, first_account = ?, second_account = ?, "
    "counted = ?, settlement = ?, first_counted = ?, second_counted = ?, first_new = ?, "
    "second_new = ? WHERE game_id = ?"
)
UNSETTLED = (
    "SELECT r.game_id FROM rated_games r JOIN games g ON g.id = r.game_id "
    "WHERE r.settled IS NULL AND g.status = 'over' ORDER BY r.created LIMIT ?"
)
RATINGS_OF = f"SELECT game, {_RATING} FROM ratings WHERE account_id = ?"
HISTORY = (
    "SELECT at, rating, deviation FROM rating_history WHERE account_id = ? AND game = ? "
    "ORDER BY at DESC LIMIT ?"
)
LEADERBOARD = (
    f"SELECT a.name, {', '.join('r.' + c for c in _RATING.split(', '))} FROM ratings r "
    "JOIN accounts a ON a.id = r.account_id WHERE r.game = ? AND r.deviation <= ? "
    "ORDER BY r.rating DESC, a.name_key LIMIT ?"
)
LEADERBOARD_PROVISIONAL = LEADERBOARD.replace("r.deviation <= ?", "r.deviation > ?")
ACCOUNT_GAMES = """
SELECT ga.seat, g.id, g.variant, g.rules, g.kind, g.status, g.result, g.names, g.created,
       g.updated,
       (SELECT a.name FROM game_accounts o JOIN accounts a ON a.id = o.account_id
        WHERE o.game_id = g.id AND o.seat <> ga.seat) AS opponent,
       (SELECT count(*) FROM rated_games r WHERE r.game_id = g.id) AS rated
FROM game_accounts ga JOIN games g ON g.id = ga.game_id
WHERE ga.account_id = ?
ORDER BY g.updated DESC
LIMIT ?
"""
ACCOUNT_RESULTS = """
SELECT ga.seat, g.status, g.result FROM game_accounts ga JOIN games g ON g.id = ga.game_id
WHERE ga.account_id = ?
"""


# ---------------------------------------------------------------------- rows


def account_of(found: Mapping[str, Any]) -> Account:
    return Account(
        str(found["id"]), str(found["name"]), float(found["created"]), str(found["password_hash"])
    )


def rating_of(found: Mapping[str, Any]) -> Rating:
    return Rating(
        float(found["rating"]),
        float(found["deviation"]),
        float(found["volatility"]),
        int(found["games"]),
        int(found["wins"]),
        int(found["losses"]),
        int(found["draws"]),
        float(found["updated"]),
    )


def rating_values(account_id: str, game: str, rating: Rating) -> tuple[Any, ...]:
    """The parameters of :data:`RATING_WRITE`."""
    return (
        account_id,
        game,
        rating.rating,
        rating.deviation,
        rating.volatility,
        rating.games,
        rating.wins,
        rating.losses,
        rating.draws,
        rating.updated,
    )


def _load(text: Any) -> Any:
    return None if text is None else json.loads(text)


def account_game(found: Mapping[str, Any]) -> AccountGame:
    return AccountGame(
        game_id=str(found["id"]),
        seat=str(found["seat"]),
        variant=str(found["variant"]),
        rules=str(found["rules"]),
        kind=str(found["kind"]),
        status=str(found["status"]),
        result=_load(found["result"]),
        names=_load(found["names"]) or {},
        opponent=None if found["opponent"] is None else str(found["opponent"]),
        rated=bool(found["rated"]),
        created=float(found["created"]),
        updated=float(found["updated"]),
    )


def count_results(found: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """``{"wins", "losses", "draws", "playing"}`` of :data:`ACCOUNT_RESULTS` rows."""
    counts = {"wins": 0, "losses": 0, "draws": 0, "playing": 0}
    for row in found:
        if row["status"] != "over" or row["result"] is None:
            counts["playing"] += 1
            continue
        try:
            result = json.loads(row["result"])
            winner = result.get("winner")
        except (ValueError, AttributeError):
            continue
        if result.get("termination") == "aborted":  # called off: neither won nor drew
            continue
        if winner is None:
            counts["draws"] += 1
        elif winner == row["seat"]:
            counts["wins"] += 1
        else:
            counts["losses"] += 1
    return counts


def unrated(
    game_id: str, game: str, winner: str | None, accounts: dict[str, Account], now: float
) -> Settlement:
    """The settlement of a rated game whose seats are not two different accounts."""
    return Settlement(
        game_id,
        game,
        False,
        "the game was not rated: both seats must be held by two different accounts",
        winner,
        now,
        {},
        "not_two_accounts",
    )


def settled_rows(
    settlement: Settlement, ratings: dict[str, Rating | None]
) -> list[tuple[tuple[Any, ...], tuple[Any, ...]]]:
    """The ``ratings`` and ``rating_history`` rows a counted settlement writes, per seat
    it counted for."""
    rows = []
    for seat, change in settlement.changes.items():
        if not change.counted:
            continue
        before = ratings.get(seat)
        games, wins, losses, draws = (
            (0, 0, 0, 0)
            if before is None
            else (before.games, before.wins, before.losses, before.draws)
        )
        if settlement.winner is None:
            draws += 1
        elif settlement.winner == seat:
            wins += 1
        else:
            losses += 1
        rating = Rating(
            change.after,
            change.deviation,
            change.volatility,
            games + 1,
            wins,
            losses,
            draws,
            settlement.at,
        )
        rows.append(
            (
                rating_values(change.account_id, settlement.game, rating),
                (
                    change.account_id,
                    settlement.game,
                    settlement.game_id,
                    settlement.at,
                    change.after,
                    change.deviation,
                    change.volatility,
                ),
            )
        )
    return rows


# ---------------------------------------------------------------------- bodies


def shared_secret(name: str, candidate: str) -> Body[str]:
    yield Do(SECRET_KEEP, (name, candidate))
    found = yield One(SECRET_READ, (name,))
    return str(found["value"])


def create_account(account: Account, skeleton: str, network: str | None) -> Body[None]:
    yield Lock(f"account skeleton {skeleton}")
    found = yield One(ACCOUNT_BY_SKELETON, (skeleton,))
    if found is not None:
        existing = str(found["name"])
        if name_key(existing) == name_key(account.name):
            raise NameTaken(account.name)
        raise NameConfusable(account.name, existing)
    values = (account.id, account.name, name_key(account.name), account.password_hash)
    try:
        yield Do(ACCOUNT_INSERT, (*values, account.created, skeleton, network))
    except Duplicate:
        raise NameTaken(account.name) from None


def fill_name_skeletons(scheme: str, skeleton: Callable[[str], str]) -> Body[int]:
    """Give the accounts without one their name's skeleton (all of them when the stored
    skeletons were made by another ``scheme``), oldest first: when two names already kept
    look alike, the older one holds the skeleton and the newer one keeps working under
    its own (``skeleton~id``). How many were written."""
    yield Lock("account skeletons")
    kept = yield One(SECRET_READ, (SKELETON_META,))
    if kept is not None and str(kept["value"]) == scheme:
        found = yield All(SKELETONS_MISSING)
    else:
        yield Do(SKELETONS_FORGET)
        found = yield All(SKELETONS_ALL)
    for row in found:
        made = skeleton(str(row["name"]))
        holder = yield One(ACCOUNT_BY_SKELETON, (made,))
        if holder is not None:
            made = f"{made}~{row['id']}"
        yield Do(SKELETON_SET, (made, str(row["id"])))
    yield Do(META_WRITE, (SKELETON_META, scheme))
    return len(found)


def account_where(statement: str, *args: Any) -> Body[Account | None]:
    found = yield One(statement, args)
    return None if found is None else account_of(found)


def _keys(found: Sequence[Row]) -> list[str]:
    return [str(row["key"]) for row in found]


def set_password(account_id: str, password_hash: str, keep_session: str) -> Body[list[str]]:
    """A new password; every other session of the account ends (their keys returned)."""
    yield Do(PASSWORD_SET, (password_hash, account_id))
    ended = yield All(SESSIONS_END_OTHERS, (account_id, keep_session))
    return _keys(ended)


def delete_account(account_id: str) -> Body[list[str]]:
    """The account goes, and its sessions (their keys returned)."""
    ended = yield All(SESSIONS_OF_ACCOUNT_END, (account_id,))
    for statement in ACCOUNT_DELETE:
        yield Do(statement, (account_id,))
    return _keys(ended)


def create_session(
    key: str, account_id: str, created: float, expires: float, most: int = 0
) -> Body[list[str]]:
    """A new session of the account; its expired sessions end, and so do its oldest when
    it has ``most`` (0: no bound) with the new one. Under the account's lock (PostgreSQL),
    so two sign-ins at once on two processes cannot both pass the bound. Returns the keys
    of the sessions ended."""
    yield Lock(f"sessions account {account_id}")
    ended = _keys((yield All(SESSIONS_EXPIRED, (account_id, created))))
    if most > 0:
        newest = _keys((yield All(SESSIONS_NEWEST, (account_id,))))
        for old in newest[most - 1 :]:
            ended += _keys((yield All(SESSION_END, (old,))))
    yield Do(SESSION_INSERT, (key, account_id, created, expires))
    return ended


def live_sessions(keys: list[str], now: float) -> Body[set[str]]:
    """Of ``keys``, those of sessions that exist and have not expired."""
    alive: set[str] = set()
    for start in range(0, len(keys), SESSIONS_ASKED):
        part = keys[start : start + SESSIONS_ASKED]
        statement = SESSIONS_LIVE.format(marks=", ".join("?" * len(part)))
        alive.update(_keys((yield All(statement, (now, *part)))))
    return alive


def ended_session(key: str) -> Body[list[str]]:
    return _keys((yield All(SESSION_END, (key,))))


def do(statement: str, *args: Any) -> Body[int]:
    """One statement run for its effect."""
    changed = yield Do(statement, args)
    return int(changed)


def take_attempt(attempt_id: str, limits: dict[str, int], window: float, now: float) -> Body[float]:
    for key in sorted(limits):
        yield Lock(f"attempts {key}")
    yield Do(ATTEMPTS_FORGET, (now - window,))
    wait = 0.0
    for key, most in limits.items():
        found = yield One(ATTEMPTS_COUNT, (key,))
        if int(found["n"]) >= most:
            wait = max(wait, float(found["first"]) + window - now)
    if wait > 0:
        return wait
    for key in limits:
        yield Do(ATTEMPT_INSERT, (f"{attempt_id}:{key}", key, now))
    return 0.0


def attach_account(
    game_id: str, seat: str, account_id: str, network: str | None = None
) -> Body[str]:
    yield Do(SEAT_ATTACH, (game_id, seat, account_id))
    found = yield One(SEAT_HOLDER, (game_id, seat))
    holder = str(found["account_id"])
    if network is not None and holder == account_id:
        yield Do(SEAT_NETWORK_ADD, (game_id, seat, network, game_id))
    return holder


def seat_game(
    game_id: str,
    created: float,
    *,
    rated_in: str | None,
    holders: Mapping[str, tuple[str, str | None]],
) -> Body[None]:
    """A new game between people: rated in ``rated_in`` (``xiangqi``, ``janggi``) unless
    None, and each seat of ``holders`` (``seat: (account id, network or None)``) given to
    its account. What the lobby, a tournament and a rated game's rematch do to the game
    they make."""
    if rated_in is not None:
        yield Do(RATED_INSERT, (game_id, rated_in, created))
    for seat, (account_id, network) in holders.items():
        yield from attach_account(game_id, seat, account_id, network)


def carry_rated(old_id: str, new_id: str, created: float) -> Body[bool]:
    """The rematch ``new_id`` of a rated game ``old_id`` between two accounts is rated
    too, each account holding the other seat (colours swap, as the rematch swaps them);
    whether it is. The seats' networks are recorded again as the rematch is played."""
    rated = yield One(RATED_READ, (old_id,))
    if rated is None:
        return False
    holders = {str(r["seat"]): str(r["id"]) for r in (yield All(GAME_ACCOUNTS, (old_id,)))}
    if set(holders) != {"first", "second"}:
        return False  # (an account deleted since: the rematch is casual)
    swapped = {"second": (holders["first"], None), "first": (holders["second"], None)}
    yield from seat_game(new_id, created, rated_in=str(rated["game"]), holders=swapped)
    return True


def game_accounts(game_id: str) -> Body[dict[str, Account]]:
    found = yield All(GAME_ACCOUNTS, (game_id,))
    return {str(r["seat"]): account_of(r) for r in found}


def game_networks(game_id: str) -> Body[dict[str, frozenset[str]]]:
    """Per seat: the networks its account signed up from and its seat was played from."""
    networks: dict[str, set[str]] = {}
    for row in (yield All(GAME_ACCOUNTS, (game_id,))):
        if row["network"] is not None:
            networks.setdefault(str(row["seat"]), set()).add(str(row["network"]))
    for row in (yield All(SEAT_NETWORKS, (game_id,))):
        networks.setdefault(str(row["seat"]), set()).add(str(row["network"]))
    return {seat: frozenset(found) for seat, found in networks.items()}


def settle_rated_game(
    game_id: str, now: float, pair_window: float, rate: Callable[[RatingInput], Settlement]
) -> Body[Settlement | None]:
    rated = yield One(RATED_READ, (game_id,), for_update=True)
    if rated is None:
        return None
    if rated["settled"] is not None:
        return Settlement.from_json(rated["settlement"])
    game = str(rated["game"])
    outcome = yield One(GAME_OUTCOME, (game_id,))
    if outcome is None or outcome["status"] != "over" or outcome["result"] is None:
        return None
    winner = json.loads(outcome["result"]).get("winner")
    plies = len(str(outcome["moves"] or "").split())
    accounts = yield from game_accounts(game_id)
    first, second = accounts.get("first"), accounts.get("second")
    if first is None or second is None or first.id == second.id:
        settlement = unrated(game_id, game, winner, accounts, now)
    else:
        for account_id in sorted({first.id, second.id}):
            yield Lock(f"rating {account_id}")
        ratings: dict[str, Rating | None] = {}
        for seat, account in accounts.items():
            found = yield One(RATING_READ, (account.id, game))
            ratings[seat] = None if found is None else rating_of(found)
        pair = yield One(
            PAIR_COUNTED, (game, now - pair_window, first.id, second.id, second.id, first.id)
        )
        pair_at = None if pair is None or pair["at"] is None else float(pair["at"])
        networks = yield from game_networks(game_id)
        against_new: dict[str, int] = {}
        for seat, account in (("first", first), ("second", second)):
            found = yield One(NEW_OPPONENT_GAMES, (game, now - pair_window, account.id, account.id))
            against_new[seat] = 0 if found is None else int(found["n"])
        given = RatingInput(
            game_id,
            game,
            winner,
            accounts,
            ratings,
            pair_at,
            now,
            plies,
            {seat: networks.get(seat, frozenset()) for seat in ("first", "second")},
            against_new,
        )
        settlement = rate(given)
        for rating_row, history_row in settled_rows(settlement, ratings):
            yield Do(RATING_WRITE, rating_row)
            yield Do(HISTORY_INSERT, history_row)
    first_id = None if first is None else first.id
    second_id = None if second is None else second.id
    seats = [settlement.changes.get(seat) for seat in ("first", "second")]
    yield Do(
        RATED_SETTLE,
        (
            now,
            first_id,
            second_id,
            int(settlement.counted),
            settlement.to_json(),
            *(None if change is None else int(change.counted) for change in seats),
            *(None if change is None else int(change.new) for change in seats),
            game_id,
        ),
    )
    yield Do(SEAT_NETWORKS_FORGET, (game_id,))
    return settlement


def settlement(game_id: str) -> Body[Settlement | None]:
    found = yield One(RATED_READ, (game_id,))
    if found is None or found["settlement"] is None:
        return None
    return Settlement.from_json(found["settlement"])


def rows(statement: str, *args: Any) -> Body[Sequence[Row]]:
    found = yield All(statement, args)
    return list(found)


# ---------------------------------------------------------------------- the repository


class AccountRepository:
    """Accounts and ratings in the game database ``db`` (either store): each method one
    transaction (a body above), or one read."""

    def __init__(self, db: Store) -> None:
        self.db = db

    async def shared_secret(self, name: str, candidate: str) -> str:
        """The secret called ``name`` that every server process on this database uses:
        ``candidate`` if none was kept yet (it is kept now), else the one kept."""
        return await self.db.write(shared_secret(name, candidate), "reading the session secret")

    async def create_account(self, account: Account, network: str | None = None) -> None:
        """Add an account (``network``: the one it signs up from, :func:`network_of`);
        raises :class:`NameTaken` when its name's key is taken and
        :class:`NameConfusable` when its skeleton is another account's."""
        body = create_account(account, name_skeleton(account.name), network)
        await self.db.write(body, "creating an account")

    async def fill_name_skeletons(self) -> int:
        """Give every account its name's skeleton (those made before skeletons were kept,
        or all when the skeleton function changed): run as a server starts."""
        body = fill_name_skeletons(skeleton_scheme(), name_skeleton)
        return await self.db.write(body, "keeping the accounts' name skeletons")

    async def account_by_name(self, name: str) -> Account | None:
        """The account whose name has the key of ``name``, or None."""
        return await self.db.read(
            account_where(ACCOUNT_BY_KEY, name_key(name)), "reading an account"
        )

    async def account_by_id(self, account_id: str) -> Account | None:
        return await self.db.read(account_where(ACCOUNT_BY_ID, account_id), "reading an account")

    async def set_password(
        self, account_id: str, password_hash: str, keep_session: str
    ) -> list[str]:
        """Replace the password hash and end every session of the account but
        ``keep_session`` (a session key); the keys of the sessions ended."""
        body = set_password(account_id, password_hash, keep_session)
        return await self.db.write(body, "changing a password")

    async def delete_account(self, account_id: str) -> list[str]:
        """Delete the account, its sessions, ratings and rating history; its games stay,
        no longer attached to it (their rated settlements keep the name they showed).
        Returns the keys of its sessions."""
        return await self.db.write(delete_account(account_id), "deleting an account")

    async def create_session(
        self, key: str, account_id: str, created: float, expires: float, most: int = 0
    ) -> list[str]:
        """Store a new session; the keys of the sessions it ended (expired ones, and the
        oldest beyond ``most`` sessions of the account: see :func:`create_session`)."""
        body = create_session(key, account_id, created, expires, most)
        return await self.db.write(body, "starting a session")

    async def live_sessions(self, keys: list[str], now: float) -> set[str]:
        """Of the session ``keys``, those that exist and have not expired at ``now``."""
        return await self.db.read(live_sessions(keys, now), "checking sessions")

    async def session_account(self, key: str, now: float) -> Account | None:
        """The account signed in by the session ``key``, if it exists and has not
        expired."""
        return await self.db.read(account_where(SESSION_ACCOUNT, key, now), "reading a session")

    async def end_session(self, key: str) -> list[str]:
        """End the session ``key``: ``[key]`` if it was there, else ``[]``."""
        return await self.db.write(ended_session(key), "ending a session")

    async def take_attempt(
        self, attempt_id: str, limits: dict[str, int], window: float, now: float
    ) -> float:
        """Count one attempt against each key of ``limits`` (``{key: most attempts within
        window seconds}``), all or none: 0 when it is taken, else the seconds until the
        fullest key has room again (nothing is recorded then). Old attempts are
        forgotten."""
        body = take_attempt(attempt_id, limits, window, now)
        return await self.db.write(body, "counting an attempt")

    async def forgive_attempt(self, attempt_id: str) -> None:
        """Take back an attempt (a successful sign-in does not count against the
        limits)."""
        await self.db.write(do(ATTEMPTS_FORGIVE, f"{attempt_id}:%"), "forgiving an attempt")

    async def attach_account(
        self, game_id: str, seat: str, account_id: str, network: str | None = None
    ) -> str:
        """Give ``seat`` of the game to the account if no account holds it; return the
        account that holds it now. ``network``: where the account plays the seat from
        (kept, while the game is rated and unsettled, when the account holds the seat)."""
        body = attach_account(game_id, seat, account_id, network)
        return await self.db.write(body, "attaching an account to a seat")

    async def played_from(self, game_id: str, seat: str, network: str) -> None:
        """The seat of a rated, unsettled game is played from ``network`` too."""
        body = do(SEAT_NETWORK_ADD, game_id, seat, network, game_id)
        await self.db.write(body, "recording where a seat is played from")

    async def game_accounts(self, game_id: str) -> dict[str, Account]:
        """``{seat: account}`` of a game (seats of deleted accounts are left out)."""
        return await self.db.read(game_accounts(game_id), "reading a game's accounts")

    async def rate_game(self, game_id: str, game: str, created: float) -> None:
        """Mark the game as rated (settled once it is over: :meth:`settle_rated_game`)."""
        await self.db.write(do(RATED_INSERT, game_id, game, created), "marking a game rated")

    async def seat_game(
        self,
        game_id: str,
        created: float,
        *,
        rated_in: str | None,
        holders: Mapping[str, tuple[str, str | None]],
    ) -> None:
        """Rate a new game (unless ``rated_in`` is None) and give its seats to their
        accounts, in one transaction (:func:`seat_game`)."""
        body = seat_game(game_id, created, rated_in=rated_in, holders=holders)
        await self.db.write(body, "seating a game's accounts")

    async def carry_rated(self, old_id: str, new_id: str, created: float) -> bool:
        """Make the rematch ``new_id`` of a rated game rated too, its seats swapped
        (:func:`carry_rated`); whether it is."""
        return await self.db.write(carry_rated(old_id, new_id, created), "rating a rematch")

    async def is_rated(self, game_id: str) -> bool:
        return await self.rated_kind(game_id) is not None

    async def rated_kind(self, game_id: str) -> str | None:
        """The game (``xiangqi``, ``janggi``) a rated game is rated in; None when the
        game is not rated."""
        found = await self.db.read(rows(RATED_READ, game_id), "reading a rated game")
        return str(found[0]["game"]) if found else None

    async def settle_rated_game(
        self,
        game_id: str,
        now: float,
        pair_window: float,
        rate: Callable[[RatingInput], Settlement],
    ) -> Settlement | None:
        """Settle a rated game that is over, exactly once whatever the number of
        processes and calls: the first call decides with ``rate`` and writes the new
        ratings, their history and the settlement in one transaction; every later call
        returns the stored settlement. None when the game is not rated or not over.
        When both seats are not held by two different accounts, ``rate`` is not asked:
        the settlement says the game did not count."""
        body = settle_rated_game(game_id, now, pair_window, rate)
        return await self.db.write(body, f"settling the rated game {game_id[:40]!r}")

    async def settlement(self, game_id: str) -> Settlement | None:
        """The stored settlement of a rated game, or None."""
        return await self.db.read(settlement(game_id), "reading a rated game")

    async def unsettled_rated_games(self, limit: int) -> list[str]:
        """Rated games that are over and not settled yet (a process that stopped between
        a game's end and its settlement leaves them to the others)."""
        found = await self.db.read(rows(UNSETTLED, limit), "listing the rated games to settle")
        return [str(r["game_id"]) for r in found]

    async def ratings_of(self, account_id: str) -> dict[str, Rating]:
        """``{game: rating}`` of the account's rated games."""
        found = await self.db.read(rows(RATINGS_OF, account_id), "reading ratings")
        return {str(r["game"]): rating_of(r) for r in found}

    async def rating_history(
        self, account_id: str, game: str, limit: int
    ) -> list[tuple[float, float, float]]:
        """The account's last ``limit`` ratings in ``game``, oldest first: ``(at,
        rating, deviation)`` each."""
        body = rows(HISTORY, account_id, game, limit)
        found = await self.db.read(body, "reading a rating history")
        return [(float(r["at"]), float(r["rating"]), float(r["deviation"])) for r in found[::-1]]

    async def leaderboard(
        self, game: str, max_deviation: float, limit: int
    ) -> list[tuple[str, Rating]]:
        """``(name, rating)`` of the best rated accounts in ``game`` whose deviation is
        at most ``max_deviation``, best first."""
        body = rows(LEADERBOARD, game, max_deviation, limit)
        found = await self.db.read(body, "reading the leaderboard")
        return [(str(r["name"]), rating_of(r)) for r in found]

    async def newcomers(
        self, game: str, max_deviation: float, limit: int
    ) -> list[tuple[str, Rating]]:
        """``(name, rating)`` of the best rated accounts in ``game`` whose deviation is
        still above ``max_deviation`` (provisional ratings), best first."""
        body = rows(LEADERBOARD_PROVISIONAL, game, max_deviation, limit)
        found = await self.db.read(body, "reading the leaderboard's newcomers")
        return [(str(r["name"]), rating_of(r)) for r in found]

    async def account_games(self, account_id: str, limit: int) -> list[AccountGame]:
        """The account's games, most recently updated first."""
        found = await self.db.read(
            rows(ACCOUNT_GAMES, account_id, limit), "reading a player's games"
        )
        return [account_game(r) for r in found]

    async def account_record(self, account_id: str) -> dict[str, int]:
        """``{"wins", "losses", "draws", "playing"}`` over every game attached to the
        account."""
        body = rows(ACCOUNT_RESULTS, account_id)
        return count_results(await self.db.read(body, "reading an account's results"))
