"""What an arena's live page costs the server to render, as the arena ages (issue 23):
one reading of an arena of ``--players`` with 500 and 5,000 finished games and a game in
play for each pair of players, rendered whole (the standings counted from every game, as
``GET /api/tournaments/{id}`` does) and with the live pages' tally (only the games ended
since the last reading scored, ``--ended`` a reading), and the frame's size; and what
turning the rows of one reading into the tournament costs (``load_tournament`` fed the
rows as a store gives them): cold, as every reading was before the boards and entrants
were cached, and warm, as each reading of a live arena now is.

    PYTHONPATH=src .venv/bin/python bench/arena_page.py
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from dataclasses import replace
from typing import Any

from chuhan.adjudication.outcome import Termination
from chuhan.web.db.statements import All, One, Statement, run_fed
from chuhan.web.tournaments import repository
from chuhan.web.tournaments.repository import Settings, Tournament, load_tournament
from chuhan.web.tournaments.rules import (
    ArenaEnding,
    ArenaTally,
    Board,
    Entrant,
    Format,
    Result,
    Spec,
)
from chuhan.web.tournaments.views import tournament_json


def an_arena(players: int, finished: int) -> Tournament:
    """An arena of ``players`` that has had ``finished`` games (Red won each) and has one
    in play for each pair of players."""
    playing = players // 2
    boards = []
    for number in range(1, finished + playing + 1):
        red, black = (2 * number) % players, (2 * number + 1) % players
        result = Result.RED_WINS if number <= finished else None
        boards.append(Board(0, number, f"a:{red}", f"a:{black}", result))
    return Tournament(
        id="arena",
        name="Bench arena",
        spec=Spec(Format.ARENA, minutes=600),
        settings=Settings(),
        status="running",
        created_by="a:0",
        starts=0.0,
        created=0.0,
        revision=finished,
        entrants=tuple(
            Entrant(id=f"a:{n}", name=f"Arena{n:04d}", rating=1500 + n, entered=n)
            for n in range(players)
        ),
        boards=tuple(boards),
        players=players,
        endings={n: ArenaEnding(Termination.RESIGNATION, 20) for n in range(1, finished + 1)},
        games={(0, n): f"game{n:08d}" for n in range(1, finished + playing + 1)},
    )


def rows_of(arena: Tournament) -> Any:
    """An answer to each statement of ``load_tournament``: the arena's rows as stored."""
    row = {
        "id": arena.id,
        "name": arena.name,
        "format": arena.spec.format.value,
        "status": arena.status,
        "created_by": arena.created_by,
        "starts": arena.starts,
        "created": arena.created,
        "revision": arena.revision,
        "settings": repository.settings_json(arena.spec, arena.settings),
    }
    entrants = [
        {
            "entrant_id": e.id,
            "name": e.name,
            "rating": e.rating,
            "entered": e.entered,
            "first_round": e.first_round,
            "last_round": e.last_round,
            "paused": e.paused,
            "club": e.club,
            "byes": "",
        }
        for e in arena.entrants
    ]
    detail = json.dumps({"termination": "resignation", "plies": 20, "berserk": []})
    boards = [
        {
            "round": b.round,
            "board": b.number,
            "red": b.red,
            "black": b.black,
            "result": None if b.result is None else b.result.value,
            "game_id": arena.games.get((b.round, b.number)),
            "detail": None if b.result is None else detail,
            "moves": None,
        }
        for b in arena.boards
    ]

    def answer(statement: Statement) -> Any:
        if isinstance(statement, One):
            return row
        assert isinstance(statement, All)
        if statement.sql == repository.ENTRANTS_READ:
            return entrants
        if statement.sql == repository.BOARDS_READ:
            return boards
        return []

    return answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--readings", type=int, default=20)
    parser.add_argument("--ended", type=int, default=5, help="games ended between readings")
    args = parser.parse_args()
    print(f"{platform.node()}, Python {platform.python_version()}; {args.players} players")
    for finished in (500, 5000):
        arena = an_arena(args.players, finished)
        began = time.process_time()
        for _ in range(args.readings):
            text = json.dumps(tournament_json(arena, whole=True), ensure_ascii=False)
        whole = (time.process_time() - began) / args.readings
        tally = ArenaTally(arena.spec.scoring)
        tournament_json(arena, whole=True, tally=tally)
        boards = list(arena.boards)
        spent = 0.0
        for reading in range(args.readings):
            for index in range(reading * args.ended, (reading + 1) * args.ended):
                boards[finished + index] = replace(boards[finished + index], result=Result.RED_WINS)
            later = replace(arena, boards=tuple(boards))
            began = time.process_time()
            json.dumps(tournament_json(later, whole=True, tally=tally), ensure_ascii=False)
            spent += time.process_time() - began
        print(
            f"{finished:,} finished games: a reading rendered whole {whole * 1000:.1f} ms, with "
            f"the tally {spent / args.readings * 1000:.1f} ms ({args.ended} games ended since "
            f"the last); the frame {len(text.encode()):,} bytes"
        )
        answer = rows_of(arena)
        began = time.process_time()
        run_fed(load_tournament(arena.id), answer)
        cold = time.process_time() - began
        began = time.process_time()
        for _ in range(args.readings):
            run_fed(load_tournament(arena.id), answer)
        warm = (time.process_time() - began) / args.readings
        print(
            f"  its rows made the tournament: cold {cold * 1000:.1f} ms, warm {warm * 1000:.1f} "
            "ms (its boards, entrants and endings read before)"
        )


if __name__ == "__main__":
    main()
