"""The store contract for accounts, sessions, sign-in attempts and ratings.

Both stores take this part on as a base class of their own (``SqliteAccounts`` in
:mod:`.sqlite_accounts`, ``PostgresAccounts`` in :mod:`.postgres_accounts`); their tables
are one migration (:data:`ACCOUNTS_SCHEMA`, the same text on both: SQLite reads
``double precision`` as a real number). Every method is a coroutine and every write one
transaction, as for games.

What is kept:

- ``accounts``: a name as the player typed it, its key (:func:`name_key`, so that names
  differing only in case or in a compatibility form are one name) and the Argon2 hash of
  the password. The hash never leaves the server: :class:`Account` carries it for the
  password check alone, and nothing that builds a response reads it.
- ``sessions``: one row per signed-in browser, keyed by the SHA-256 of the session id
  its cookie carries (a copy of the database holds no usable session). Signing out
  deletes the row, so a cookie replayed afterwards finds nothing, on every server process.
- ``attempts``: sign-in and sign-up attempts per key (an address, a name) within a
  window, counted and taken in one transaction (:meth:`AccountStore.take_attempt`), so the
  limit holds across server processes.
- ``game_accounts``: which account holds which seat of a game (a seat has its token as
  before; the account is beside it).
- ``rated_games``, ``ratings`` and ``rating_history``: a rated game, settled once
  (:meth:`AccountStore.settle_rated_game`), each account's rating per game (xiangqi,
  janggi) and every rating it had.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from chuhan.errors import ChuhanError

__all__ = [
    "ACCOUNTS_SCHEMA",
    "ACCOUNT_TABLES",
    "Account",
    "AccountGame",
    "AccountStore",
    "NameTaken",
    "Rating",
    "RatingChange",
    "RatingInput",
    "Settlement",
    "name_key",
]


class NameTaken(ChuhanError):
    """An account already has this name (names are compared by :func:`name_key`)."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"the name {name!r} is taken")


def name_key(name: str) -> str:
    """What makes two names the same: compatibility forms folded (full-width letters)
    and case ignored."""
    return unicodedata.normalize("NFKC", name).casefold()


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
    """What a settled game did to one player's rating (``after == before`` when the game
    did not count)."""

    account_id: str
    name: str
    before: float
    after: float
    deviation: float
    volatility: float

    @property
    def change(self) -> float:
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class Settlement:
    """The outcome of settling a rated game: whether it counted (``reason`` says why
    not), the winner's seat (None: a draw) and each seat's rating change."""

    game_id: str
    game: str
    counted: bool
    reason: str | None
    winner: str | None
    at: float
    changes: dict[str, RatingChange]

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
    its first rated game of this kind), and when the last rated game between the same two
    accounts in this game counted (None: not within the window the caller gave)."""

    game_id: str
    game: str
    winner: str | None
    accounts: dict[str, Account]
    ratings: dict[str, Rating | None]
    pair_counted_at: float | None
    now: float


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


class AccountStore(Protocol):
    """What the web server needs from a store for accounts and ratings."""

    async def shared_secret(self, name: str, candidate: str) -> str:
        """The secret called ``name`` that every server process on this database uses:
        ``candidate`` if none was kept yet (it is kept now), else the one kept."""

    async def create_account(self, account: Account) -> None:
        """Add an account; raises :class:`NameTaken` when its name's key is taken."""

    async def account_by_name(self, name: str) -> Account | None:
        """The account whose name has the key of ``name``, or None."""

    async def account_by_id(self, account_id: str) -> Account | None: ...

    async def set_password(self, account_id: str, password_hash: str, keep_session: str) -> None:
        """Replace the password hash and end every session of the account but
        ``keep_session`` (a session key)."""

    async def delete_account(self, account_id: str) -> None:
        """Delete the account, its sessions, ratings and rating history; its games stay,
        no longer attached to it (their rated settlements keep the name they showed)."""

    async def create_session(
        self, key: str, account_id: str, created: float, expires: float
    ) -> None: ...

    async def session_account(self, key: str, now: float) -> Account | None:
        """The account signed in by the session ``key``, if it exists and has not
        expired."""

    async def end_session(self, key: str) -> None: ...

    async def take_attempt(
        self, attempt_id: str, limits: dict[str, int], window: float, now: float
    ) -> float:
        """Count one attempt against each key of ``limits`` (``{key: most attempts within
        window seconds}``), all or none: 0 when it is taken, else the seconds until the
        fullest key has room again (nothing is recorded then). Old attempts are
        forgotten."""

    async def forgive_attempt(self, attempt_id: str) -> None:
        """Take back an attempt (a successful sign-in does not count against the
        limits)."""

    async def attach_account(self, game_id: str, seat: str, account_id: str) -> str:
        """Give ``seat`` of the game to the account if no account holds it; return the
        account that holds it now."""

    async def game_accounts(self, game_id: str) -> dict[str, Account]:
        """``{seat: account}`` of a game (seats of deleted accounts are left out)."""

    async def rate_game(self, game_id: str, game: str, created: float) -> None:
        """Mark the game as rated (settled once it is over: :meth:`settle_rated_game`)."""

    async def is_rated(self, game_id: str) -> bool: ...

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

    async def settlement(self, game_id: str) -> Settlement | None:
        """The stored settlement of a rated game, or None."""

    async def unsettled_rated_games(self, limit: int) -> list[str]:
        """Rated games that are over and not settled yet (a process that stopped between
        a game's end and its settlement leaves them to the others)."""

    async def ratings_of(self, account_id: str) -> dict[str, Rating]:
        """``{game: rating}`` of the account's rated games."""

    async def rating_history(
        self, account_id: str, game: str, limit: int
    ) -> list[tuple[float, float, float]]:
        """The account's last ``limit`` ratings in ``game``, oldest first: ``(at,
        rating, deviation)`` each."""

    async def leaderboard(
        self, game: str, max_deviation: float, limit: int
    ) -> list[tuple[str, Rating]]:
        """``(name, rating)`` of the best rated accounts in ``game`` whose deviation is
        at most ``max_deviation``, best first."""

    async def account_games(self, account_id: str, limit: int) -> list[AccountGame]:
        """The account's games, most recently updated first."""

    async def account_record(self, account_id: str) -> dict[str, int]:
        """``{"wins", "losses", "draws", "playing"}`` over every game attached to the
        account."""


#: The accounts' tables (one migration of each store: the same text on both).
ACCOUNTS_SCHEMA = """
CREATE TABLE accounts (
    id text PRIMARY KEY,
    name text NOT NULL,
    name_key text NOT NULL UNIQUE,
    password_hash text NOT NULL,
    created double precision NOT NULL
);
CREATE TABLE sessions (
    key text PRIMARY KEY,
    account_id text NOT NULL,
    created double precision NOT NULL,
    expires double precision NOT NULL
);
CREATE INDEX sessions_account ON sessions (account_id);
CREATE TABLE attempts (
    id text PRIMARY KEY,
    key text NOT NULL,
    at double precision NOT NULL
);
CREATE INDEX attempts_key ON attempts (key, at);
CREATE TABLE game_accounts (
    game_id text NOT NULL,
    seat text NOT NULL,
    account_id text NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX game_accounts_account ON game_accounts (account_id);
CREATE TABLE rated_games (
    game_id text PRIMARY KEY,
    game text NOT NULL,
    created double precision NOT NULL,
    settled double precision,
    first_account text,
    second_account text,
    counted integer,
    settlement text
);
CREATE INDEX rated_games_unsettled ON rated_games (created) WHERE settled IS NULL;
CREATE INDEX rated_games_pair ON rated_games (first_account, second_account, game, settled);
CREATE TABLE ratings (
    account_id text NOT NULL,
    game text NOT NULL,
    rating double precision NOT NULL,
    deviation double precision NOT NULL,
    volatility double precision NOT NULL,
    games integer NOT NULL,
    wins integer NOT NULL,
    losses integer NOT NULL,
    draws integer NOT NULL,
    updated double precision NOT NULL,
    PRIMARY KEY (account_id, game)
);
CREATE INDEX ratings_board ON ratings (game, rating);
CREATE TABLE rating_history (
    account_id text NOT NULL,
    game text NOT NULL,
    game_id text NOT NULL,
    at double precision NOT NULL,
    rating double precision NOT NULL,
    deviation double precision NOT NULL,
    volatility double precision NOT NULL,
    PRIMARY KEY (account_id, game_id)
);
CREATE INDEX rating_history_account ON rating_history (account_id, game, at)
"""

#: The accounts' tables and their columns, in the order ``chuhan db copy`` copies them
#: (sessions and attempts are not copied: a copy signs everyone out).
ACCOUNT_TABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("accounts", ("id", "name", "name_key", "password_hash", "created")),
    ("game_accounts", ("game_id", "seat", "account_id")),
    (
        "rated_games",
        (
            "game_id",
            "game",
            "created",
            "settled",
            "first_account",
            "second_account",
            "counted",
            "settlement",
        ),
    ),
    (
        "ratings",
        (
            "account_id",
            "game",
            "rating",
            "deviation",
            "volatility",
            "games",
            "wins",
            "losses",
            "draws",
            "updated",
        ),
    ),
    (
        "rating_history",
        ("account_id", "game", "game_id", "at", "rating", "deviation", "volatility"),
    ),
)
