"""The game database's tables, as migrations.

(The accounts' and the lobby's tables: one text for both databases, SQLite reads
``double precision`` as a real number.)
"""

from __future__ import annotations

__all__ = ["ACCOUNTS_SCHEMA", "ACCOUNT_TABLES", "SEEKS_SCHEMA"]


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
