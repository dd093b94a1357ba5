"""What a tournament's page is sent of an arena: every game in play and the newest
finished ones, whatever the arena's age; the others a page at a time (no store: the views
are functions of a tournament as read)."""

from __future__ import annotations

import json
import random
from dataclasses import replace

from chuhan.adjudication.outcome import Termination
from chuhan.web.tournaments.repository import Settings, Tournament
from chuhan.web.tournaments.rules import (
    ARENA_SCORING,
    ArenaEnding,
    ArenaTally,
    Board,
    Entrant,
    Format,
    Result,
    Spec,
    arena_records,
    arena_standings,
)
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


def test_the_live_pages_tally_scores_an_arena_as_its_standings_do_reading_after_reading() -> None:
    """Games end in any order across the arena (each player's one after another), with
    every result, streaks, berserks and early draws: after each reading the tally's
    standings are the standings counted from every game."""
    rng = random.Random(23)
    players = [f"a:{n}" for n in range(12)]
    entrants = tuple(
        Entrant(id=player, name=player, rating=1500 + rng.randrange(300), entered=n)
        for n, player in enumerate(players)
    )
    boards: dict[int, Board] = {}
    endings: dict[int, ArenaEnding] = {}
    waiting = list(players)
    tally = ArenaTally(ARENA_SCORING)
    for _ in range(300):
        rng.shuffle(waiting)
        while len(waiting) >= 2:
            number = len(boards) + 1
            boards[number] = Board(0, number, waiting.pop(), waiting.pop())
        playing = [board for board in boards.values() if board.result is None]
        for board in rng.sample(playing, rng.randrange(1, 4)):
            result = rng.choice(list(Result))
            boards[board.number] = replace(board, result=result)
            berserk = frozenset(rng.sample(["red", "black"], rng.randrange(3)))
            endings[board.number] = ArenaEnding(
                rng.choice([Termination.RESIGNATION, Termination.CHECKMATE]),
                rng.randrange(40),
                berserk,  # type: ignore[arg-type]
            )
            waiting += [board.red, str(board.black)]
        read = tuple(boards[number] for number in sorted(boards))
        expected = arena_standings(entrants, arena_records(read, endings), ARENA_SCORING)
        assert tally.standings(entrants, read, endings) == expected


def test_a_live_reading_of_an_old_arena_costs_the_games_ended_since_the_last() -> None:
    """A reading with the tally scores only the players whose games ended since the last
    reading: the arena's 6,000 older games are not scored again."""
    tally = ArenaTally(ARENA_SCORING)
    arena = an_arena(200, finished=6000, playing=100)
    first = tournament_json(arena, whole=True, tally=tally)
    assert first == tournament_json(arena, whole=True)
    ended = {6001: Result.BLACK_WINS, 6002: Result.DRAW}
    later = replace(
        arena,
        boards=tuple(
            replace(board, result=ended.get(board.number, board.result)) for board in arena.boards
        ),
    )
    again = tournament_json(later, whole=True, tally=tally)
    assert tally.rescored == 4  # (the four players of the two games just ended)
    assert again == tournament_json(later, whole=True)
