"""The explorer's rows in the server's database: this server's own games as the
explorer's second source (``explorer_games``, ``explorer_moves``: step 17 of
:mod:`chuhan.web.db.migrations`), written once for both stores.

:func:`add_site_game` counts a game as it ends, in one transaction: a game already counted
(by its id here: heard by two processes, or added again after a failure) is not counted
again. The most recent games of each row are merged in Python, as the masters' index
merges them, so the body takes the explorer's lock (PostgreSQL: one writer of these rows
at a time, whichever process; SQLite's one writer thread already runs a body alone) and
writes each row's new values. :func:`site_position` reads a position's rows and the games
they list; :func:`uncounted_games` lists the finished games not counted yet (a write that
failed, or games that ended before the explorer kept them), for the start's catch-up.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from chuhan.explorer import (
    GAME_ENDED,
    GamePositions,
    GameSummary,
    merge_top,
    top_game_ids,
    top_token,
)
from chuhan.explorer.text import RESULT_CODES, normalize_date, normalize_result, year_of
from chuhan.web.db.statements import All, Body, Do, Lock, One

__all__ = [
    "EXPLORER_LOCK",
    "MOVE_ROWS_AT_ONCE",
    "SiteGame",
    "add_site_game",
    "counted",
    "site_position",
    "uncounted_games",
]

#: The advisory lock every write of the explorer's rows takes (PostgreSQL).
EXPLORER_LOCK = "explorer site games"
#: Rows of ``explorer_moves`` written by one statement (12 values each: well under both
#: databases' limits on a statement's parameters).
MOVE_ROWS_AT_ONCE = 200
#: The kinds of game that are not games between people here (never counted).
SKIPPED_KINDS = ("computer", "local", "imported")

_MOVE_COLUMNS = (
    "position, game, speed, band, move, games, red_wins, draws, black_wins, year_total, dated, top"
)


@dataclass(frozen=True)
class SiteGame:
    """A game that ended here, as the explorer counts it: its id, game (``xiangqi`` or
    ``janggi``), speed and rating band, what its listing shows, and its positions."""

    game_id: str
    game: str
    speed: str
    band: str
    red: str
    black: str
    date: str
    result: str
    positions: GamePositions


def add_site_game(entry: SiteGame) -> Body[bool]:
    """Count ``entry`` in the explorer's rows; ``False`` (nothing written) when it is
    counted already."""
    yield Lock(EXPLORER_LOCK)
    known = yield One("SELECT 1 AS known FROM explorer_games WHERE game_id = ?", (entry.game_id,))
    if known is not None:
        return False
    found = yield One("SELECT coalesce(max(number), 0) + 1 AS number FROM explorer_games")
    number = int(found["number"])
    result = normalize_result(entry.result)
    date = normalize_date(entry.date)
    year = year_of(date)
    yield Do(
        "INSERT INTO explorer_games (game_id, number, game, speed, band, red, black, date, "
        "year, result, ecco) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            entry.game_id,
            number,
            entry.game,
            entry.speed,
            entry.band,
            entry.red,
            entry.black,
            date,
            year,
            result,
            entry.positions.found,
        ),
    )
    outcome = RESULT_CODES[result]
    positions = entry.positions
    # Each (position, move) the game adds, with its top token.
    added: dict[tuple[int, int], str] = {}
    for key, code, ply in positions.passed:
        added[(key, code)] = top_token(date, number, ply)
    added[(positions.ended, GAME_ENDED)] = top_token(date, number, positions.plies)
    keys = sorted({key for key, _ in added})
    stored: dict[tuple[int, int], Any] = {}
    for start in range(0, len(keys), MOVE_ROWS_AT_ONCE):
        part = keys[start : start + MOVE_ROWS_AT_ONCE]
        marks = ", ".join("?" * len(part))
        rows = yield All(
            f"SELECT position, move, games, red_wins, draws, black_wins, year_total, dated, "
            f"top FROM explorer_moves WHERE position IN ({marks}) AND game = ? AND speed = ? "
            "AND band = ?",
            (*part, entry.game, entry.speed, entry.band),
        )
        for row in rows:
            stored[(int(row["position"]), int(row["move"]))] = row
    values: list[tuple[Any, ...]] = []
    for (key, code), token in added.items():
        row = stored.get((key, code))
        before = (
            (0, 0, 0, 0, 0, 0, "")
            if row is None
            else (
                int(row["games"]),
                int(row["red_wins"]),
                int(row["draws"]),
                int(row["black_wins"]),
                int(row["year_total"]),
                int(row["dated"]),
                str(row["top"]),
            )
        )
        values.append(
            (
                key,
                entry.game,
                entry.speed,
                entry.band,
                code,
                before[0] + 1,
                before[1] + (outcome == 1),
                before[2] + (outcome == 0),
                before[3] + (outcome == 2),
                before[4] + (year or 0),
                before[5] + (year is not None),
                merge_top(before[6], token),
            )
        )
    for start in range(0, len(values), MOVE_ROWS_AT_ONCE):
        part_values = values[start : start + MOVE_ROWS_AT_ONCE]
        marks = ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(part_values))
        yield Do(
            f"INSERT INTO explorer_moves ({_MOVE_COLUMNS}) VALUES {marks} "
            "ON CONFLICT (position, game, speed, band, move) DO UPDATE SET "
            "games = excluded.games, red_wins = excluded.red_wins, draws = excluded.draws, "
            "black_wins = excluded.black_wins, year_total = excluded.year_total, "
            "dated = excluded.dated, top = excluded.top",
            [value for row_values in part_values for value in row_values],
        )
    return True


def counted(game_ids: Sequence[str]) -> Body[set[str]]:
    """Which of ``game_ids`` the explorer has counted."""
    if not game_ids:
        return set()
    marks = ", ".join("?" * len(game_ids))
    rows = yield All(
        f"SELECT game_id FROM explorer_games WHERE game_id IN ({marks})", tuple(game_ids)
    )
    return {str(row["game_id"]) for row in rows}


def uncounted_games(after: str, limit: int) -> Body[list[str]]:
    """Up to ``limit`` finished games between people (by id, after ``after``) that have
    moves and one of the three results and are not counted: the explorer adds them. A
    game from a FEN of its own is not looked at (it is counted as it ends only if the FEN
    is a start position: looked at here, every start would replay the others again)."""
    rows = yield All(
        "SELECT id FROM games WHERE id > ? AND status = 'over' AND start_fen IS NULL "
        f"AND kind NOT IN ({', '.join('?' * len(SKIPPED_KINDS))}) AND moves <> '' "
        "AND (result LIKE '%\"1-0\"%' OR result LIKE '%\"0-1\"%' "
        "OR result LIKE '%\"1/2-1/2\"%') "
        "AND NOT EXISTS (SELECT 1 FROM explorer_games e WHERE e.game_id = games.id) "
        "ORDER BY id LIMIT ?",
        (after, *SKIPPED_KINDS, limit),
    )
    return [str(row["id"]) for row in rows]


def site_position(
    game: str, position: int, speeds: Iterable[str] | None, bands: Iterable[str] | None
) -> Body[tuple[list[tuple[int, int, int, int, int, int, int, str]], dict[int, GameSummary]]]:
    """A position's rows of ``game``'s site source, of the ``speeds`` and ``bands`` given
    (default all), summed by move (:func:`chuhan.explorer.position_stats` reads them), and
    the games their top lists name, by number."""
    where = ["position = ?", "game = ?"]
    args: list[Any] = [position, game]
    for column, chosen in (("speed", speeds), ("band", bands)):
        if chosen is None:
            continue
        wanted = sorted(set(chosen))
        if not wanted:
            return [], {}
        where.append(f"{column} IN ({', '.join('?' * len(wanted))})")
        args.extend(wanted)
    rows = yield All(
        "SELECT move, games, red_wins, draws, black_wins, year_total, dated, top "
        f"FROM explorer_moves WHERE {' AND '.join(where)}",
        args,
    )
    summed: dict[int, list[Any]] = {}
    for row in rows:
        move = int(row["move"])
        counts = (
            int(row["games"]),
            int(row["red_wins"]),
            int(row["draws"]),
            int(row["black_wins"]),
            int(row["year_total"]),
            int(row["dated"]),
        )
        held = summed.get(move)
        if held is None:
            summed[move] = [*counts, str(row["top"])]
        else:
            for place, value in enumerate(counts):
                held[place] += value
            held[6] = merge_top(held[6], str(row["top"]))
    merged = [
        (move, held[0], held[1], held[2], held[3], held[4], held[5], str(held[6]))
        for move, held in summed.items()
    ]
    numbers = top_game_ids(row[7] for row in merged)
    games: dict[int, GameSummary] = {}
    if numbers:
        marks = ", ".join("?" * len(numbers))
        found = yield All(
            "SELECT number, game_id, red, black, date, year, result, ecco FROM explorer_games "
            f"WHERE number IN ({marks})",
            numbers,
        )
        for row in found:
            number = int(row["number"])
            games[number] = GameSummary(
                id=number,
                red=str(row["red"]),
                black=str(row["black"]),
                event="",
                date=str(row["date"]),
                year=None if row["year"] is None else int(row["year"]),
                result=str(row["result"]),
                ecco=str(row["ecco"]),
                opening="",
                origin=str(row["game_id"]),
            )
    return merged, games
