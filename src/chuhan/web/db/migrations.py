"""The game database's schema: one numbered list of migrations for both databases.

:data:`MIGRATIONS` lists the steps from an empty database to the current version:
``MIGRATIONS[n]`` takes a database from version ``n`` to ``n + 1``, with the DDL of each
dialect (:class:`Migration`; a step may have nothing to do in one of them). Each step is
applied once, in its own transaction together with the new version number in ``meta``, so
a step that fails leaves the database as it was. On PostgreSQL every such transaction
first takes a transaction-level advisory lock, so of several server processes starting
at the same moment one migrates and the others, waiting on the lock, then find the work
done. A release that changes the schema appends a step; it never edits one that has
shipped.

The numbers are SQLite's as they always were. PostgreSQL's own list used to be one step
shorter (its first step already had the revisions SQLite gained in its second): a
PostgreSQL database numbered that way (no ``numbering`` row in ``meta``) is renumbered
when it is opened, in the migration lock, and nothing in it changes but the number.

The games' structured values are JSON text on both, so both stores share
:mod:`chuhan.web.db.rows`. Times are ``double precision`` seconds of the servers' wall
clocks (Python's ``time.time()``), except PostgreSQL's server heartbeats, which are the
database's own clock (``clock_timestamp()``) so that the machines' clocks may disagree.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chuhan.web.db.errors import StoreError

__all__ = [
    "ACCOUNTS_SCHEMA",
    "ACCOUNT_TABLES",
    "BUDGETS_SCHEMA",
    "EXPLORER_SCHEMA",
    "EXPLORER_TABLES",
    "FAIR_PLAY_SCHEMA",
    "HOLDINGS_SCHEMA",
    "MIGRATIONS",
    "MIGRATION_LOCK",
    "NUMBERING",
    "SCHEMA_VERSION",
    "SEEKS_SCHEMA",
    "TOURNAMENTS_SCHEMA",
    "TOURNAMENT_DRIVERS_SCHEMA",
    "TOURNAMENT_TABLES",
    "Migration",
    "migrate_postgresql",
    "migrate_sqlite",
    "postgresql_version",
    "sqlite_version",
]

log = logging.getLogger("chuhan.web.db")

#: The advisory lock key every PostgreSQL migration transaction takes ("chuhan" in ASCII).
MIGRATION_LOCK = 0x63687568616E
#: The ``meta`` row that says a PostgreSQL database is numbered by :data:`MIGRATIONS`.
NUMBERING = "one list"


@dataclass(frozen=True, slots=True)
class Migration:
    """One step of the schema: what it adds, and its DDL in each dialect (statements
    separated by ``;``; empty: nothing to do there)."""

    about: str
    sqlite: str
    postgresql: str


_SQLITE_1 = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    variant TEXT NOT NULL,
    rules TEXT NOT NULL,
    start_fen TEXT,
    time_control TEXT,
    level INTEGER,
    computer_side TEXT,
    names TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    setup TEXT NOT NULL,
    setup_deadline REAL,
    moves TEXT NOT NULL,
    clock TEXT,
    clock_at REAL,
    offers TEXT NOT NULL,
    ending TEXT,
    result TEXT,
    headers TEXT NOT NULL,
    rematch TEXT
);
CREATE TABLE seats (
    token TEXT PRIMARY KEY,
    game_id TEXT NOT NULL REFERENCES games(id),
    seat TEXT NOT NULL
);
CREATE INDEX seats_game ON seats(game_id);
CREATE TABLE events (
    game_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX events_game ON events(game_id, version);
CREATE TABLE chat (
    game_id TEXT NOT NULL,
    at REAL NOT NULL,
    sender TEXT NOT NULL,
    name TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX chat_game ON chat(game_id, at);
"""


# Version 2: games record their revision (how many events their log holds) and events
# their number in it, which every write names (several processes share a PostgreSQL store
# this way; the SQLite store keeps the same contract).
_SQLITE_2 = """
ALTER TABLE games ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
ALTER TABLE events ADD COLUMN number INTEGER;
UPDATE events SET number = numbered.n FROM (
    SELECT rowid AS id, row_number() OVER (PARTITION BY game_id ORDER BY rowid) AS n
    FROM events
) AS numbered WHERE events.rowid = numbered.id;
UPDATE games SET revision = (SELECT count(*) FROM events WHERE events.game_id = games.id);
CREATE UNIQUE INDEX events_number ON events(game_id, number);
"""

# (PostgreSQL's first step: SQLite's first two, the servers' heartbeats and each game's
# driver.)
_POSTGRESQL_1 = """
CREATE TABLE IF NOT EXISTS meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE games (
    id text PRIMARY KEY,
    kind text NOT NULL,
    variant text NOT NULL,
    rules text NOT NULL,
    start_fen text,
    time_control text,
    level integer,
    computer_side text,
    names text NOT NULL,
    created double precision NOT NULL,
    updated double precision NOT NULL,
    version integer NOT NULL,
    status text NOT NULL,
    setup text NOT NULL,
    setup_deadline double precision,
    moves text NOT NULL,
    clock text,
    clock_at double precision,
    offers text NOT NULL,
    ending text,
    result text,
    headers text NOT NULL,
    rematch text,
    revision integer NOT NULL DEFAULT 0,
    driver text
);
CREATE INDEX games_driver ON games (driver) WHERE status <> 'over' AND kind <> 'imported';
CREATE TABLE seats (
    token text PRIMARY KEY,
    game_id text NOT NULL REFERENCES games (id),
    seat text NOT NULL
);
CREATE INDEX seats_game ON seats (game_id);
CREATE TABLE events (
    game_id text NOT NULL,
    number integer NOT NULL,
    version integer NOT NULL,
    at double precision NOT NULL,
    kind text NOT NULL,
    data text NOT NULL,
    PRIMARY KEY (game_id, number)
);
CREATE TABLE chat (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id text NOT NULL,
    at double precision NOT NULL,
    sender text NOT NULL,
    name text NOT NULL,
    text text NOT NULL
);
CREATE INDEX chat_game ON chat (game_id, id);
CREATE TABLE servers (
    id text PRIMARY KEY,
    started timestamptz NOT NULL DEFAULT clock_timestamp(),
    heartbeat timestamptz NOT NULL DEFAULT clock_timestamp()
);
"""

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
    (
        "accounts",
        ("id", "name", "name_key", "password_hash", "created", "name_skeleton", "network"),
    ),
    ("game_accounts", ("game_id", "seat", "account_id")),
    ("seat_networks", ("game_id", "seat", "network")),
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
            "first_counted",
            "second_counted",
            "first_new",
            "second_new",
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

#: The rate budgets' table (:mod:`chuhan.web.db.budgets`; the same text on both).
BUDGETS_SCHEMA = """
CREATE TABLE budgets (
    key text PRIMARY KEY,
    tokens double precision NOT NULL,
    at double precision NOT NULL,
    full_at double precision NOT NULL
);
CREATE INDEX budgets_full ON budgets (full_at)
"""

#: What the server processes hold open per key (:mod:`chuhan.web.db.holdings`; the same
#: text on both).
HOLDINGS_SCHEMA = """
CREATE TABLE holdings (
    key text NOT NULL,
    server_id text NOT NULL,
    held integer NOT NULL,
    PRIMARY KEY (key, server_id)
);
CREATE INDEX holdings_server ON holdings (server_id)
"""

#: Fair play (issue 28): each account's name skeleton (UTS #39, so that look-alike names
#: are one name: a unique index) and the network it signed up from; the networks each
#: seat of a game was played from; per seat, whether a settled rated game counted and
#: whether its account was new then; challenges found by their target. (The same text on
#: both; the skeletons of accounts made before it are filled in when a server starts.)
FAIR_PLAY_SCHEMA = """
ALTER TABLE accounts ADD COLUMN name_skeleton text;
ALTER TABLE accounts ADD COLUMN network text;
CREATE UNIQUE INDEX accounts_name_skeleton ON accounts (name_skeleton);
CREATE TABLE seat_networks (
    game_id text NOT NULL,
    seat text NOT NULL,
    network text NOT NULL,
    PRIMARY KEY (game_id, seat, network)
);
ALTER TABLE rated_games ADD COLUMN first_counted integer;
ALTER TABLE rated_games ADD COLUMN second_counted integer;
ALTER TABLE rated_games ADD COLUMN first_new integer;
ALTER TABLE rated_games ADD COLUMN second_new integer;
CREATE INDEX rated_games_second ON rated_games (second_account, game, settled);
CREATE INDEX seeks_target ON seeks (target) WHERE target IS NOT NULL
"""

#: Tournaments (issue 23; :mod:`chuhan.web.tournaments.repository`): a tournament's row
#: (its settings as JSON, a revision every change raises), its entrants, its boards (a
#: round's games, and an arena's, with the game played and the result) and the pairs its
#: organiser keeps apart. (The same text on both.)
TOURNAMENTS_SCHEMA = """
CREATE TABLE tournaments (
    id text PRIMARY KEY,
    name text NOT NULL,
    format text NOT NULL,
    status text NOT NULL,
    created_by text,
    starts double precision NOT NULL,
    created double precision NOT NULL,
    revision integer NOT NULL,
    settings text NOT NULL
);
CREATE INDEX tournaments_status ON tournaments (status, starts);
CREATE TABLE tournament_entrants (
    tournament_id text NOT NULL,
    entrant_id text NOT NULL,
    account_id text,
    name text NOT NULL,
    rating integer NOT NULL,
    entered integer NOT NULL,
    first_round integer NOT NULL,
    last_round integer,
    PRIMARY KEY (tournament_id, entrant_id)
);
CREATE TABLE tournament_boards (
    tournament_id text NOT NULL,
    round integer NOT NULL,
    board integer NOT NULL,
    red text NOT NULL,
    black text,
    result text,
    game_id text,
    detail text,
    PRIMARY KEY (tournament_id, round, board)
);
CREATE UNIQUE INDEX tournament_boards_game ON tournament_boards (game_id)
    WHERE game_id IS NOT NULL;
CREATE TABLE tournament_forbidden (
    tournament_id text NOT NULL,
    first text NOT NULL,
    second text NOT NULL,
    PRIMARY KEY (tournament_id, first, second)
)
"""


#: The schema's history: ``MIGRATIONS[n]`` takes a database from version ``n`` to ``n + 1``.
LIVE_GAMES_SCHEMA = """
CREATE INDEX games_live ON games (status, updated)
"""

#: Which server process drives each tournament (its clock and pairings): a lease that a
#: process takes over when the holder has stopped beating (issue 23;
#: :mod:`chuhan.web.tournaments.repository`). (The same text on both.)
TOURNAMENT_DRIVERS_SCHEMA = """
ALTER TABLE tournaments ADD COLUMN driver text
"""

#: A tournament's players who paused (issue 23: not paired until they come back).
#: (The same text on both.)
TOURNAMENT_PAUSES_SCHEMA = """
ALTER TABLE tournament_entrants ADD COLUMN paused integer NOT NULL DEFAULT 0
"""

#: A club director's over-the-board tournament (issue 23): each player's club, and the
#: moves a director entered for a board played on a real board (ICCS, space-separated).
#: (The same text on both.)
TOURNAMENT_OVER_THE_BOARD_SCHEMA = """
ALTER TABLE tournament_entrants ADD COLUMN club text NOT NULL DEFAULT '';
ALTER TABLE tournament_boards ADD COLUMN moves text
"""

#: The half-point byes a Swiss's players asked for (issue 23): the rounds, comma-separated
#: (empty: none). (The same text on both.)
TOURNAMENT_BYES_SCHEMA = """
ALTER TABLE tournament_entrants ADD COLUMN byes text NOT NULL DEFAULT ''
"""

#: The tournaments' boards in play (issue 23): an arena's writes read those, not its
#: finished games (:func:`chuhan.web.tournaments.repository.load_tournament`). (The same
#: text on both: a partial index.)
TOURNAMENT_LIVE_BOARDS_SCHEMA = """
CREATE INDEX tournament_boards_live ON tournament_boards (tournament_id, round, board)
    WHERE result IS NULL
"""

#: Each account's e-mail notices (issue 24; :mod:`chuhan.web.notices.repository`), gone
#: with the account: its address, whether it is confirmed (and the token of the link that
#: confirms it), whether the digest is on; when a socket of it was last seen open, when its
#: last digest went, and the sending claimed, failed and to be tried again. (The same text
#: on both.)
NOTICES_SCHEMA = """
CREATE TABLE notice_settings (
    account_id text PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    email text,
    confirmed integer NOT NULL DEFAULT 0,
    confirm text UNIQUE,
    digest integer NOT NULL DEFAULT 0,
    unsubscribe text NOT NULL UNIQUE,
    seen double precision NOT NULL DEFAULT 0,
    sent double precision NOT NULL DEFAULT 0,
    claimed_until double precision NOT NULL DEFAULT 0,
    failures integer NOT NULL DEFAULT 0,
    retry_at double precision NOT NULL DEFAULT 0
)
"""

#: The correspondence vacations each account took (issue 24;
#: :mod:`chuhan.web.correspondence.repository`): from when until when (an early end
#: moves ``ends``), gone with the account. (The same text on both.)
VACATIONS_SCHEMA = """
CREATE TABLE vacations (
    account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    starts double precision NOT NULL,
    ends double precision NOT NULL,
    PRIMARY KEY (account_id, starts)
)
"""

#: Each tournament's chat: a line by an account (gone with it), in the order kept.
TOURNAMENT_CHAT_SQLITE = """
CREATE TABLE tournament_chat (
    id INTEGER PRIMARY KEY,
    tournament_id text NOT NULL REFERENCES tournaments (id),
    account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    at double precision NOT NULL,
    name text NOT NULL,
    text text NOT NULL
);
CREATE INDEX tournament_chat_lines ON tournament_chat (tournament_id, id)
"""
TOURNAMENT_CHAT_POSTGRESQL = TOURNAMENT_CHAT_SQLITE.replace(
    "id INTEGER PRIMARY KEY", "id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
)

#: The opening explorer's second source, this server's own games (issue 25;
#: :mod:`chuhan.web.explorer.repository`): each game counted, once (keyed by its id here:
#: a game heard twice, or added again after a failure, counts once), by its game, speed
#: and rating band, with what its listing shows and ``number``, its id in the explorer's
#: answers (the next after the largest, under the explorer's lock); and for each (position,
#: game, speed, band, move) the games that played the move there (``move`` -1: ended
#: there), Red's wins, the draws, Black's wins, the sum of the years and the most recent
#: games (the masters' index's ``top`` tokens: date, number, ply). ``position`` is the
#: Zobrist hash of placement and side to move, signed. (The same text on both.)
EXPLORER_SCHEMA = """
CREATE TABLE explorer_games (
    game_id text PRIMARY KEY,
    number integer NOT NULL UNIQUE,
    game text NOT NULL,
    speed text NOT NULL,
    band text NOT NULL,
    red text NOT NULL,
    black text NOT NULL,
    date text NOT NULL,
    year integer,
    result text NOT NULL,
    ecco text NOT NULL
);
CREATE TABLE explorer_moves (
    position bigint NOT NULL,
    game text NOT NULL,
    speed text NOT NULL,
    band text NOT NULL,
    move integer NOT NULL,
    games integer NOT NULL,
    red_wins integer NOT NULL,
    draws integer NOT NULL,
    black_wins integer NOT NULL,
    year_total bigint NOT NULL,
    dated integer NOT NULL,
    top text NOT NULL,
    PRIMARY KEY (position, game, speed, band, move)
)
"""

#: The explorer's rows ``chuhan db copy`` takes along.
EXPLORER_TABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "explorer_games",
        (
            "game_id",
            "number",
            "game",
            "speed",
            "band",
            "red",
            "black",
            "date",
            "year",
            "result",
            "ecco",
        ),
    ),
    (
        "explorer_moves",
        (
            "position",
            "game",
            "speed",
            "band",
            "move",
            "games",
            "red_wins",
            "draws",
            "black_wins",
            "year_total",
            "dated",
            "top",
        ),
    ),
)

#: The answers to each account's kept challenges (accepted, declined, expired) that its
#: next e-mail digest tells (issue 24; :func:`chuhan.web.notices.repository.record_answer`):
#: kept only while its digest is on, deleted once a digest told them, gone with the account.
#: Live state: ``chuhan db copy`` does not take them. (The same text on both.)
CHALLENGE_ANSWERS_SCHEMA = """
CREATE TABLE challenge_answers (
    account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    seek_id text NOT NULL,
    outcome text NOT NULL,
    name text NOT NULL,
    variant text NOT NULL,
    days integer,
    url text NOT NULL,
    at double precision NOT NULL,
    PRIMARY KEY (account_id, seek_id)
)
"""

#: The notices' rows that ``chuhan db copy`` takes along (after the accounts they belong to).
NOTICE_TABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "notice_settings",
        (
            "account_id",
            "email",
            "confirmed",
            "confirm",
            "digest",
            "unsubscribe",
            "seen",
            "sent",
            "claimed_until",
            "failures",
            "retry_at",
            "push",
            "language",
        ),
    ),
)

#: Web Push (issue 24; :mod:`chuhan.web.notices.push`): each account's push setting and
#: language (its mails' and pushes' texts); the server's VAPID key pair (one row, made on
#: first need and kept); each browser's subscription (its push service's endpoint and
#: keys), gone with the account; and the turn last pushed of each game of an account (one
#: push a turn: claimed, sent, or failed and tried again). (The same text on both.)
PUSH_SCHEMA = """
ALTER TABLE notice_settings ADD COLUMN push integer NOT NULL DEFAULT 0;
ALTER TABLE notice_settings ADD COLUMN language text NOT NULL DEFAULT 'en';
CREATE TABLE push_keys (
    id integer PRIMARY KEY,
    private_key text NOT NULL,
    public_key text NOT NULL,
    created double precision NOT NULL
);
CREATE TABLE push_subscriptions (
    endpoint text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    p256dh text NOT NULL,
    auth text NOT NULL,
    created double precision NOT NULL
);
CREATE INDEX push_subscriptions_account ON push_subscriptions (account_id);
CREATE TABLE push_turns (
    account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    game_id text NOT NULL,
    plies integer NOT NULL,
    done integer NOT NULL DEFAULT 0,
    claimed_until double precision NOT NULL DEFAULT 0,
    failures integer NOT NULL DEFAULT 0,
    retry_at double precision NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, game_id)
)
"""

#: The tournaments' rows ``chuhan db copy`` takes along (their driver is not: the copy's
#: first process takes each tournament over), and the accounts' vacations.
TOURNAMENT_TABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "tournaments",
        (
            "id",
            "name",
            "format",
            "status",
            "created_by",
            "starts",
            "created",
            "revision",
            "settings",
        ),
    ),
    (
        "tournament_entrants",
        (
            "tournament_id",
            "entrant_id",
            "account_id",
            "name",
            "rating",
            "entered",
            "first_round",
            "last_round",
            "paused",
            "club",
            "byes",
        ),
    ),
    (
        "tournament_boards",
        ("tournament_id", "round", "board", "red", "black", "result", "game_id", "detail", "moves"),
    ),
    ("tournament_forbidden", ("tournament_id", "first", "second")),
    ("tournament_chat", ("tournament_id", "account_id", "at", "name", "text")),
    ("vacations", ("account_id", "starts", "ends")),
)

#: The push rows ``chuhan db copy`` takes along (the turns pushed are live state: a copied
#: site pushes a turn waiting at the copy again at most once).
PUSH_TABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("push_keys", ("id", "private_key", "public_key", "created")),
    ("push_subscriptions", ("endpoint", "account_id", "p256dh", "auth", "created")),
)

MIGRATIONS: tuple[Migration, ...] = (
    Migration("games, seats, events and chat", _SQLITE_1, _POSTGRESQL_1),
    Migration("each game's revision and each event's number", _SQLITE_2, ""),
    Migration("accounts, sessions, sign-in attempts and ratings", ACCOUNTS_SCHEMA, ACCOUNTS_SCHEMA),
    Migration("the lobby's open seeks and who is in the lobby", SEEKS_SCHEMA, SEEKS_SCHEMA),
    Migration("rate budgets per key (per client address)", BUDGETS_SCHEMA, BUDGETS_SCHEMA),
    Migration(
        "connections each server process holds per key (per client address)",
        HOLDINGS_SCHEMA,
        HOLDINGS_SCHEMA,
    ),
    Migration(
        "fair play: name skeletons, the networks accounts and seats came from, each seat's "
        "part in a rated game's settlement",
        FAIR_PLAY_SCHEMA,
        FAIR_PLAY_SCHEMA,
    ),
    Migration(
        "tournaments: their settings, entrants, boards and pairs kept apart",
        TOURNAMENTS_SCHEMA,
        TOURNAMENTS_SCHEMA,
    ),
    Migration(
        "the games in play, newest move first (the lobby's games to watch)",
        LIVE_GAMES_SCHEMA,
        LIVE_GAMES_SCHEMA,
    ),
    Migration(
        "the server process driving each tournament",
        TOURNAMENT_DRIVERS_SCHEMA,
        TOURNAMENT_DRIVERS_SCHEMA,
    ),
    Migration("e-mail notices per account", NOTICES_SCHEMA, NOTICES_SCHEMA),
    Migration(
        "the tournament players who paused", TOURNAMENT_PAUSES_SCHEMA, TOURNAMENT_PAUSES_SCHEMA
    ),
    Migration(
        "web push: VAPID keys, subscriptions, turns pushed; each account's push setting and "
        "language",
        PUSH_SCHEMA,
        PUSH_SCHEMA,
    ),
    Migration(
        "the players' clubs and the moves of boards played over the board",
        TOURNAMENT_OVER_THE_BOARD_SCHEMA,
        TOURNAMENT_OVER_THE_BOARD_SCHEMA,
    ),
    Migration("correspondence vacations", VACATIONS_SCHEMA, VACATIONS_SCHEMA),
    Migration("each tournament's chat", TOURNAMENT_CHAT_SQLITE, TOURNAMENT_CHAT_POSTGRESQL),
    Migration("the explorer's counts of this server's own games", EXPLORER_SCHEMA, EXPLORER_SCHEMA),
    Migration(
        "the answers to kept challenges a digest tells their senders",
        CHALLENGE_ANSWERS_SCHEMA,
        CHALLENGE_ANSWERS_SCHEMA,
    ),
    Migration(
        "the half-point byes tournament players asked for",
        TOURNAMENT_BYES_SCHEMA,
        TOURNAMENT_BYES_SCHEMA,
    ),
    Migration(
        "the tournament boards in play, by a partial index",
        TOURNAMENT_LIVE_BOARDS_SCHEMA,
        TOURNAMENT_LIVE_BOARDS_SCHEMA,
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


# ---------------------------------------------------------------------- SQLite


def sqlite_version(db: sqlite3.Connection, path: Path) -> int:
    """The schema version recorded in the database (0 for an empty one); raises
    :class:`StoreError` for a SQLite file that is not a chuhan game database."""
    tables = {str(name) for (name,) in db.execute("SELECT name FROM sqlite_master")}
    if "meta" not in tables:
        foreign = sorted(t for t in tables if not t.startswith("sqlite_"))
        if foreign:
            shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
            raise StoreError(
                f"{path} is a SQLite database but not a chuhan game database "
                f"(it has the tables {shown}); choose another --db"
            )
        return 0
    found = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    if found is None:
        return 0
    text = str(found[0])
    if not text.isdigit():
        raise StoreError(
            f"the game database {path} records a schema version chuhan cannot read ({text[:20]!r})"
        )
    return int(text)


def migrate_sqlite(
    db: sqlite3.Connection, path: Path, steps: Sequence[Migration] | None = None
) -> int:
    """Apply the ``steps`` (default :data:`MIGRATIONS`) this database has not had, each in
    one transaction; return the version it had before. Raises :class:`StoreError` for a
    database written by a newer chuhan (whose schema this one does not know) and for a
    step that fails."""
    steps = MIGRATIONS if steps is None else steps
    version = sqlite_version(db, path)  # (the first step makes the table meta)
    if version > len(steps):
        raise StoreError(
            f"the game database {path} has schema version {version}, newer than this "
            f"chuhan's ({len(steps)}): it was written by a newer chuhan; upgrade chuhan to "
            "open it"
        )
    for number in range(version, len(steps)):
        try:
            db.execute("BEGIN IMMEDIATE")
            for statement in steps[number].sqlite.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(
                "INSERT INTO meta(key, value) VALUES ('schema', ?) "
                "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (str(number + 1),),
            )
            db.execute("COMMIT")
        except sqlite3.Error as error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise StoreError(
                f"cannot bring the game database {path} from schema version {number} to "
                f"{number + 1}: {error}; it is left at version {number}"
            ) from None
    if version and version < len(steps):
        log.info(
            "the game database %s was brought from schema version %d to %d",
            path,
            version,
            len(steps),
        )
    return version


# ---------------------------------------------------------------------- PostgreSQL


async def postgresql_version(db: Any, shown: str) -> int:
    """The schema version of the database in :data:`MIGRATIONS`' numbers (0 for an empty
    one); raises :class:`StoreError` for a database that holds other tables but is not a
    chuhan game database. ``db`` is an ``asyncpg`` connection; ``shown`` names the
    database."""
    version, _ = await _postgresql_version(db, shown)
    return version


async def _postgresql_version(db: Any, shown: str) -> tuple[int, bool]:
    """The version, and whether the database is numbered by PostgreSQL's old list (one
    step shorter: its version 1 is this list's 2)."""
    if await db.fetchval("SELECT to_regclass('meta') IS NOT NULL"):
        found = {
            str(r["key"]): str(r["value"])
            for r in await db.fetch(
                "SELECT key, value FROM meta WHERE key IN ('schema', 'numbering')"
            )
        }
        text = found.get("schema")
        if text is None:
            return 0, False
        if not text.isdigit():
            raise StoreError(
                f"the game database {shown} records a schema version chuhan cannot read "
                f"({text[:20]!r})"
            )
        if int(text) == 0 or found.get("numbering") == NUMBERING:
            return int(text), False
        return int(text) + 1, True
    foreign = [
        str(name)
        for (name,) in await db.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename"
        )
    ]
    if foreign:
        shown_tables = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
        raise StoreError(
            f"{shown} is a PostgreSQL database but not a chuhan game database (it has the "
            f"tables {shown_tables}); give chuhan a database of its own"
        )
    return 0, False


async def _record_version(db: Any, version: int) -> None:
    await db.executemany(
        "INSERT INTO meta (key, value) VALUES ($1, $2) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [("schema", str(version)), ("numbering", NUMBERING)],
    )


async def migrate_postgresql(db: Any, shown: str, steps: Sequence[Migration] | None = None) -> int:
    """Apply the ``steps`` (default :data:`MIGRATIONS`) this database has not had, each in
    one transaction that holds the migration lock; return the version it had before.
    Raises :class:`StoreError` for a database written by a newer chuhan (whose schema this
    one does not know) and for a step that fails."""
    import asyncpg  # type: ignore[import-untyped]

    steps = MIGRATIONS if steps is None else steps
    before: int | None = None
    while True:
        async with db.transaction():
            await db.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
            version, old_numbers = await _postgresql_version(db, shown)
            if before is None:
                before = version
            if old_numbers:
                await _record_version(db, version)
            if version > len(steps):
                raise StoreError(
                    f"the game database {shown} has schema version {version}, newer than "
                    f"this chuhan's ({len(steps)}): it was written by a newer chuhan; "
                    "upgrade chuhan to open it"
                )
            if version == len(steps):
                break
            try:
                if steps[version].postgresql.strip():
                    await db.execute(steps[version].postgresql)
                await _record_version(db, version + 1)
            except asyncpg.PostgresError as error:
                raise StoreError(
                    f"cannot bring the game database {shown} from schema version {version} "
                    f"to {version + 1}: {error}; it is left at version {version}"
                ) from None
    if before and before < len(steps):
        log.info(
            "the game database %s was brought from schema version %d to %d",
            shown,
            before,
            len(steps),
        )
    return before
