"""The accounts' statements, shared by both stores. They are written with PostgreSQL's
``$1`` parameters; :func:`sqlite` gives SQLite's spelling of the same (``?1``)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from chuhan.web.db.accounts import Account, AccountGame, Rating, Settlement

__all__ = [
    "account_game",
    "account_of",
    "count_results",
    "rating_of",
    "rating_values",
    "settled_rows",
    "sqlite",
    "unrated",
]


def sqlite(statement: str) -> str:
    """``statement`` with SQLite's numbered parameters."""
    return re.sub(r"\$(\d+)", r"?\1", statement)


SECRET_KEEP = "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING"
SECRET_READ = "SELECT value FROM meta WHERE key = $1"

_ACCOUNT = "id, name, created, password_hash"
ACCOUNT_INSERT = (
    "INSERT INTO accounts (id, name, name_key, password_hash, created) VALUES ($1, $2, $3, $4, $5)"
)
ACCOUNT_BY_KEY = f"SELECT {_ACCOUNT} FROM accounts WHERE name_key = $1"
ACCOUNT_BY_ID = f"SELECT {_ACCOUNT} FROM accounts WHERE id = $1"
PASSWORD_SET = "UPDATE accounts SET password_hash = $2 WHERE id = $1"
SESSIONS_END_OTHERS = "DELETE FROM sessions WHERE account_id = $1 AND key <> $2"
#: Deleting an account: every row that names it (games stay, without it).
ACCOUNT_DELETE = (
    "DELETE FROM sessions WHERE account_id = $1",
    "DELETE FROM ratings WHERE account_id = $1",
    "DELETE FROM rating_history WHERE account_id = $1",
    "DELETE FROM game_accounts WHERE account_id = $1",
    "DELETE FROM accounts WHERE id = $1",
)

SESSION_INSERT = "INSERT INTO sessions (key, account_id, created, expires) VALUES ($1, $2, $3, $4)"
SESSIONS_EXPIRED = "DELETE FROM sessions WHERE account_id = $1 AND expires <= $2"
SESSION_ACCOUNT = (
    "SELECT a.id, a.name, a.created, a.password_hash FROM sessions s "
    "JOIN accounts a ON a.id = s.account_id WHERE s.key = $1 AND s.expires > $2"
)
SESSION_END = "DELETE FROM sessions WHERE key = $1"

ATTEMPTS_FORGET = "DELETE FROM attempts WHERE at <= $1"
ATTEMPTS_COUNT = "SELECT count(*) AS n, min(at) AS first FROM attempts WHERE key = $1"
ATTEMPT_INSERT = "INSERT INTO attempts (id, key, at) VALUES ($1, $2, $3)"
ATTEMPT_DELETE = "DELETE FROM attempts WHERE id = $1"

SEAT_ATTACH = (
    "INSERT INTO game_accounts (game_id, seat, account_id) VALUES ($1, $2, $3) "
    "ON CONFLICT (game_id, seat) DO NOTHING"
)
SEAT_HOLDER = "SELECT account_id FROM game_accounts WHERE game_id = $1 AND seat = $2"
GAME_ACCOUNTS = (
    "SELECT g.seat, a.id, a.name, a.created, a.password_hash FROM game_accounts g "
    "JOIN accounts a ON a.id = g.account_id WHERE g.game_id = $1"
)

RATED_INSERT = (
    "INSERT INTO rated_games (game_id, game, created) VALUES ($1, $2, $3) "
    "ON CONFLICT (game_id) DO NOTHING"
)
RATED_READ = "SELECT game, settled, settlement FROM rated_games WHERE game_id = $1"
GAME_OUTCOME = "SELECT status, result FROM games WHERE id = $1"
_RATING = "rating, deviation, volatility, games, wins, losses, draws, updated"
RATING_READ = f"SELECT {_RATING} FROM ratings WHERE account_id = $1 AND game = $2"
#: When the last rated game of this pair in this game counted, within the window.
PAIR_COUNTED = (
    "SELECT max(settled) AS at FROM rated_games WHERE game = $1 AND counted = 1 "
    "AND settled > $2 AND ((first_account = $3 AND second_account = $4) "
    "OR (first_account = $4 AND second_account = $3))"
)
RATING_WRITE = (
    f"INSERT INTO ratings (account_id, game, {_RATING}) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) "
    "ON CONFLICT (account_id, game) DO UPDATE SET rating = excluded.rating, "
    "deviation = excluded.deviation, volatility = excluded.volatility, "
    "games = excluded.games, wins = excluded.wins, losses = excluded.losses, "
    "draws = excluded.draws, updated = excluded.updated"
)
HISTORY_INSERT = (
    "INSERT INTO rating_history (account_id, game, game_id, at, rating, deviation, volatility) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (account_id, game_id) DO NOTHING"
)
RATED_SETTLE = (
    "UPDATE rated_games SET settled = $2, first_account = $3, second_account = $4, "
    "counted = $5, settlement = $6 WHERE game_id = $1"
)
UNSETTLED = (
    "SELECT r.game_id FROM rated_games r JOIN games g ON g.id = r.game_id "
    "WHERE r.settled IS NULL AND g.status = 'over' ORDER BY r.created LIMIT $1"
)
RATINGS_OF = f"SELECT game, {_RATING} FROM ratings WHERE account_id = $1"
HISTORY = (
    "SELECT at, rating, deviation FROM rating_history WHERE account_id = $1 AND game = $2 "
    "ORDER BY at DESC LIMIT $3"
)
LEADERBOARD = (
    f"SELECT a.name, {', '.join('r.' + c for c in _RATING.split(', '))} FROM ratings r "
    "JOIN accounts a ON a.id = r.account_id WHERE r.game = $1 AND r.deviation <= $2 "
    "ORDER BY r.rating DESC, a.name_key LIMIT $3"
)
ACCOUNT_GAMES = """
SELECT ga.seat, g.id, g.variant, g.rules, g.kind, g.status, g.result, g.names, g.created,
       g.updated,
       (SELECT a.name FROM game_accounts o JOIN accounts a ON a.id = o.account_id
        WHERE o.game_id = g.id AND o.seat <> ga.seat) AS opponent,
       (SELECT count(*) FROM rated_games r WHERE r.game_id = g.id) AS rated
FROM game_accounts ga JOIN games g ON g.id = ga.game_id
WHERE ga.account_id = $1
ORDER BY g.updated DESC
LIMIT $2
"""
ACCOUNT_RESULTS = """
SELECT ga.seat, g.status, g.result FROM game_accounts ga JOIN games g ON g.id = ga.game_id
WHERE ga.account_id = $1
"""


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


def count_results(found: list[Mapping[str, Any]]) -> dict[str, int]:
    """``{"wins", "losses", "draws", "playing"}`` of :data:`ACCOUNT_RESULTS` rows."""
    counts = {"wins": 0, "losses": 0, "draws": 0, "playing": 0}
    for row in found:
        if row["status"] != "over" or row["result"] is None:
            counts["playing"] += 1
            continue
        try:
            winner = json.loads(row["result"]).get("winner")
        except (ValueError, AttributeError):
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
    )


def settled_rows(
    settlement: Settlement, ratings: dict[str, Rating | None]
) -> list[tuple[tuple[Any, ...], tuple[Any, ...]]]:
    """The ``ratings`` and ``rating_history`` rows a counted settlement writes, per seat."""
    rows = []
    for seat, change in settlement.changes.items():
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
