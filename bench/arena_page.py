"""What an arena's live page costs the server to render, as the arena ages (issue 23):
one reading of an arena of ``--players`` with 500 and 5,000 finished games and a game in
play for each pair of players, rendered whole (the standings counted from every game, as
``GET /api/tournaments/{id}`` does) and with the live pages' tally (only the games ended
since the last reading scored, ``--ended`` a reading), and the frame's size.

    PYTHONPATH=src .venv/bin/python bench/arena_page.py
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from dataclasses import replace

from chuhan.adjudication.outcome import Termination
from chuhan.web.tournaments.repository import Settings, Tournament
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


if __name__ == "__main__":
    main()
