"""What a tournament's page is sent of an arena: every game in play and the newest
finished ones, whatever the arena's age; the others a page at a time (no store: the views
are functions of a tournament as read)."""

from __future__ import annotations

import json

from chuhan.adjudication.outcome import Termination
from chuhan.web.tournaments.repository import Settings, Tournament
from chuhan.web.tournaments.rules import ArenaEnding, Board, Entrant, Format, Result, Spec
from chuhan.web.tournaments.views import (
    GAMES_PAGE,
    RECENT_GAMES,
    arena_games_json,
    tournament_json,
)


def an_arena(players: int, finished: int, playing: int) -> Tournament:
    """An arena of ``players`` that has had ``finished`` games (Red won each) and has
    ``playing`` in play, numbered in the order they started."""
    entrants = tuple(
        Entrant(id=f"a:{n}", name=f"Player{n}", rating=1500 + n, entered=n) for n in range(players)
    )
    boards = []
    for number in range(1, finished + playing + 1):
        red, black = (2 * number) % players, (2 * number + 1) % players
        result = Result.RED_WINS if number <= finished else None
        boards.append(Board(0, number, f"a:{red}", f"a:{black}", result))
    return Tournament(
        id="arena",
        name="Long arena",
        spec=Spec(Format.ARENA, minutes=60),
        settings=Settings(),
        status="running",
        created_by="a:0",
        starts=0.0,
        created=0.0,
        revision=finished + playing,
        entrants=entrants,
        boards=tuple(boards),
        players=players,
        endings={n: ArenaEnding(Termination.RESIGNATION, 20) for n in range(1, finished + 1)},
        games={(0, n): f"game{n}" for n in range(1, finished + playing + 1)},
    )


def test_an_arenas_page_has_every_game_in_play_and_its_newest_finished_games() -> None:
    shown = tournament_json(an_arena(200, finished=900, playing=100), whole=True)
    numbers = [game["board"] for game in shown["games"]]
    assert numbers == list(range(901 - RECENT_GAMES, 1001))
    assert shown["games_count"] == 1000
    assert [game["result"] for game in shown["games"]].count(None) == 100
    assert shown["games"][0] == {
        "board": 901 - RECENT_GAMES,
        "red": f"Player{2 * (901 - RECENT_GAMES) % 200}",
        "black": f"Player{(2 * (901 - RECENT_GAMES) + 1) % 200}",
        "result": "1-0",
        "game": f"game{901 - RECENT_GAMES}",
    }
    assert len(shown["standings"]) == 200  # (every entrant's line: the page shows them all)


def test_an_arenas_page_is_as_large_after_hours_as_after_minutes() -> None:
    young = json.dumps(tournament_json(an_arena(200, finished=60, playing=100), whole=True))
    old = json.dumps(tournament_json(an_arena(200, finished=6000, playing=100), whole=True))
    assert abs(len(old) - len(young)) < 0.02 * len(young)


def test_an_arenas_games_read_by_page_are_every_game_newest_first() -> None:
    arena = an_arena(20, finished=250, playing=7)
    pages, before = [], None
    while True:
        page = arena_games_json(arena, before=before, limit=GAMES_PAGE)
        assert page["games_count"] == 257 and len(page["games"]) <= GAMES_PAGE
        pages.append(page["games"])
        before = page["next"]
        if before is None:
            break
    assert [len(games) for games in pages] == [100, 100, 57]
    assert [game["board"] for games in pages for game in games] == list(range(257, 0, -1))
    last = arena_games_json(arena, before=3, limit=5)
    assert [game["board"] for game in last["games"]] == [2, 1] and last["next"] is None
