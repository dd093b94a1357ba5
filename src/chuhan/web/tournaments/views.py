"""A tournament as the API and the live pages show it (never an account's id or an entry
code), and the part that depends on who asks."""

from __future__ import annotations

from typing import Any

from chuhan.web.accounts.repository import Account
from chuhan.web.tournaments.repository import Tournament, entrant_id_of
from chuhan.web.tournaments.rules import (
    ArenaTally,
    Board,
    Entrant,
    Format,
    arena_records,
    arena_standings,
    scores_before,
    standings,
)

__all__ = [
    "GAMES_PAGE",
    "RECENT_GAMES",
    "arena_games_json",
    "tournament_json",
    "you_json",
    "you_of",
]

#: The finished games of an arena that its page is sent (the newest), beside every game
#: in play: the page is as large at the arena's end as after its first minutes. The others
#: are read a page at a time (``GET /api/tournaments/{id}/games``), and all are in the PGN.
RECENT_GAMES = 30
#: The most games of an arena that one read of ``.../games`` gives.
GAMES_PAGE = 100


def tournament_json(
    tournament: Tournament, *, whole: bool, tally: ArenaTally | None = None
) -> dict[str, Any]:
    """A tournament as the API shows it: never an account's id or an entry code. An
    arena's standings are counted by ``tally`` when given (the live pages keep one from a
    reading to the next: each reading then costs the games ended since the last)."""
    spec, settings = tournament.spec, tournament.settings
    shown: dict[str, Any] = {
        "id": tournament.id,
        "name": tournament.name,
        "format": spec.format.value,
        "status": tournament.status,
        "starts": tournament.starts,
        "revision": tournament.revision,
        "variant": settings.game,
        "rules": settings.rules,
        "time_control": settings.time_control,
        "rated": settings.rated,
        "entry": settings.entry,
        "rounds": spec.rounds,
        "minutes": spec.minutes,
        "tiebreaks": [tiebreak.value for tiebreak in spec.tiebreaks],
        "players": tournament.players,
        "over_the_board": settings.over_the_board,
    }
    swiss = spec.format is Format.SWISS
    if swiss:
        shown["half_byes"] = spec.half_byes
        shown["half_bye_closed_rounds"] = spec.half_bye_closed_rounds
    if not whole:
        return shown
    names = {entrant.id: entrant.name for entrant in tournament.entrants}
    entrants = {entrant.id: entrant for entrant in tournament.entrants}
    shown["entrants"] = [
        {
            # (a director's entry's id, to edit or remove it; never an account's)
            "id": entrant.id if entrant.id.startswith("p:") else None,
            "club": entrant.club,
            "name": entrant.name,
            "rating": entrant.rating,
            "first_round": entrant.first_round,
            "withdrawn_after": entrant.last_round,
            "paused": entrant.paused,
            # (a Swiss's: the rounds of the half-point byes asked for, those paired taken)
            **({"byes": list(entrant.byes)} if swiss else {}),
        }
        for entrant in tournament.entrants
    ]
    shown["paired"] = [
        [
            _board_json(tournament, board, entrants, scores)
            for board in tournament.round_boards(number)
        ]
        for number in range(1, tournament.rounds_paired + 1)
        for scores in [scores_before(spec, tournament.entrants, tournament.boards, number)]
    ]
    if swiss:
        # Each paired round's players on a half-point bye they asked for (on no board).
        shown["requested_byes"] = [
            [
                entrant.name
                for entrant in tournament.entrants
                if number in entrant.byes and entrant.plays_in(number)
            ]
            for number in range(1, tournament.rounds_paired + 1)
        ]
    if spec.format is Format.ARENA:
        boards = tournament.boards
        finished = [board for board in boards if board.result is not None]
        recent = {board.number for board in finished[-RECENT_GAMES:]}
        shown["games"] = [
            _arena_game_json(tournament, board, names)
            for board in boards
            if board.result is None or board.number in recent
        ]
        shown["games_count"] = len(boards)
        if tally is None:
            records = arena_records(boards, tournament.endings)
            ranked = arena_standings(tournament.entrants, records, spec.scoring)
        else:
            ranked = tally.standings(tournament.entrants, boards, tournament.endings)
        shown["standings"] = [
            {"rank": line.rank, "name": names[line.entrant_id], "points": line.points}
            for line in ranked
        ]
    elif tournament.entrants:
        shown["standings"] = [
            {
                "rank": line.rank,
                "name": names[line.entrant_id],
                "points": line.points,
                "tiebreaks": {tiebreak.value: value for tiebreak, value in line.tiebreaks},
            }
            for line in standings(spec, tournament.entrants, tournament.boards)
        ]
    return shown


def _arena_game_json(tournament: Tournament, board: Board, names: dict[str, str]) -> dict[str, Any]:
    return {
        "board": board.number,
        "red": names[board.red],
        "black": None if board.black is None else names[board.black],
        "result": None if board.result is None else board.result.value,
        "game": tournament.games.get((board.round, board.number)),
    }


def arena_games_json(tournament: Tournament, *, before: int | None, limit: int) -> dict[str, Any]:
    """A page of an arena's games, newest first: at most ``limit`` of those numbered below
    ``before`` (None: from the newest), and ``next``, the ``before`` of the page after it
    (None: this was the last)."""
    names = {entrant.id: entrant.name for entrant in tournament.entrants}
    boards = [board for board in tournament.boards if before is None or board.number < before]
    page = boards[::-1][:limit]
    more = len(boards) > len(page)
    return {
        "games": [_arena_game_json(tournament, board, names) for board in page],
        "games_count": len(tournament.boards),
        "next": page[-1].number if more else None,
    }


def _board_json(
    tournament: Tournament,
    board: Board,
    entrants: dict[str, Entrant],
    scores: dict[str, float],
) -> dict[str, Any]:
    """A board of a round: the players (name, club, rating, score before the round), the
    result, the game on the site, the moves entered over the board."""
    shown: dict[str, Any] = {"board": board.number}
    for side, entrant_id in (("red", board.red), ("black", board.black)):
        entrant = None if entrant_id is None else entrants[entrant_id]
        shown[side] = None if entrant is None else entrant.name
        shown[f"{side}_club"] = None if entrant is None else entrant.club
        shown[f"{side}_rating"] = None if entrant is None else entrant.rating
        shown[f"{side}_score"] = None if entrant_id is None else scores.get(entrant_id, 0.0)
    shown["result"] = None if board.result is None else board.result.value
    shown["game"] = tournament.games.get((board.round, board.number))
    shown["moves"] = tournament.moves.get((board.round, board.number))
    return shown


def you_json(tournament: Tournament, account: Account | None) -> dict[str, Any]:
    """What the tournament's page needs of the one asking: whether they direct it, and
    their name among the entrants (None when not entered or not signed in)."""
    names = {entrant.id: entrant.name for entrant in tournament.entrants}
    return you_of(tournament, names, account)


def you_of(
    tournament: Tournament, names: dict[str, str], account: Account | None
) -> dict[str, Any]:
    """:func:`you_json` with the entrants' ``names`` by id made once (a live page's
    reading is rendered for each of its readers)."""
    if account is None:
        return {"director": False, "entrant": None}
    return {
        "director": tournament.created_by == account.id,
        "entrant": names.get(entrant_id_of(account)),
    }
