"""Tournament pairing times: a Swiss of N players round by round (the FIDE Dutch system,
py4swiss as the server pairs it, or caissify-pairings as it did before), and the arena's
matching of N waiting players (networkx's blossom).

Run from the repository root (it needs the extra ``tournaments``)::

    PYTHONPATH=src .venv/bin/python bench/tournaments.py              # 500 and 200 players
    PYTHONPATH=src .venv/bin/python bench/tournaments.py --swiss 100 --rounds 3 --arena 50
    PYTHONPATH=src .venv/bin/python bench/tournaments.py --arena 0 --swiss 100 --pairer caissify

Each round's results are drawn from a seeded generator (the higher rated wins three games
in five, one in five is drawn), then the next round is paired through
``chuhan.web.tournaments.rules.next_round`` (what the server runs), timed with
``time.perf_counter`` and ``time.process_time``. The arena's waiting players have random
ranks, ratings, colour histories and last opponents; the matching is timed the same way.
"""

from __future__ import annotations

import argparse
import platform
import random
import time
import warnings
from collections.abc import Collection, Iterable, Sequence

from chuhan.web.tournaments import pairings, rules
from chuhan.web.tournaments.pairings import ArenaPlayer, Pairing, SwissPlayer, arena_matching
from chuhan.web.tournaments.rules import Board, Entrant, Format, Result, Spec, next_round


def caissify_swiss_round(
    players: Sequence[SwissPlayer],
    *,
    round_number: int,
    total_rounds: int,
    met: Iterable[Collection[int]] = (),
    forbidden: Iterable[Collection[int]] = (),
    bye_points: float = 1.0,
) -> tuple[Pairing, ...]:
    """The Dutch round as caissify-pairings 0.5 pairs it (chuhan's Swiss pairer before
    py4swiss), for ``--pairer caissify``."""
    kept_apart = {tuple(sorted(pair)) for pair in (*met, *forbidden)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        rows = pairings._generate_pairings(
            system="dutch",
            players=[pairings._library_player(player) for player in players],
            previous_pairings=kept_apart,
            round_number=round_number,
            total_rounds=total_rounds,
            bye_value=bye_points,
        )
    return pairings._pairings_of(rows)


def result_of(board: Board, ratings: dict[str, int], rng: random.Random) -> Result:
    assert board.black is not None
    draw = rng.random()
    if draw < 0.2:
        return Result.DRAW
    stronger_is_red = ratings[board.red] >= ratings[board.black]
    stronger_wins = draw < 0.8
    return Result.RED_WINS if stronger_wins == stronger_is_red else Result.BLACK_WINS


def swiss(players: int, rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    entrants = tuple(
        Entrant(f"p{n}", f"Player {n}", rng.randint(1000, 2600), n) for n in range(players)
    )
    ratings = {entrant.id: entrant.rating for entrant in entrants}
    spec = Spec(Format.SWISS, rounds=rounds)
    boards: tuple[Board, ...] = ()
    for round_number in range(1, rounds + 1):
        wall, cpu = time.perf_counter(), time.process_time()
        new = next_round(spec, entrants, boards)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(
            f"swiss {players} players, round {round_number}: {len(new)} boards paired in "
            f"{wall:.2f} s wall, {cpu:.2f} s CPU"
        )
        boards += tuple(
            board
            if board.black is None
            else Board(
                board.round, board.number, board.red, board.black, result_of(board, ratings, rng)
            )
            for board in new
        )


def arena(players: int, seed: int) -> None:
    rng = random.Random(seed)
    waiting = [
        ArenaPlayer(
            number=n,
            rank=rng.randint(1, players),
            rating=rng.randint(1000, 2600),
            colours=tuple(rng.choice(("red", "black")) for _ in range(rng.randint(0, 8))),
            last_opponent=rng.randint(1, players),
        )
        for n in range(1, players + 1)
    ]
    wall, cpu = time.perf_counter(), time.process_time()
    games = arena_matching(waiting, players=players)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(
        f"arena {players} waiting players: {len(games)} games matched in {wall:.2f} s wall, "
        f"{cpu:.2f} s CPU"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--swiss", type=int, default=500, help="players of the Swiss")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the Swiss to pair")
    parser.add_argument("--arena", type=int, default=200, help="waiting players of the arena")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--pairer",
        choices=("py4swiss", "caissify"),
        default="py4swiss",
        help="the Swiss's Dutch pairer: py4swiss (the server's) or caissify-pairings",
    )
    options = parser.parse_args()
    if options.pairer == "caissify":
        # rules.next_round calls the name it imported from pairings.
        rules.swiss_round = caissify_swiss_round  # type: ignore[attr-defined]
    print(
        f"python {platform.python_version()} on {platform.machine()}, {platform.processor()};"
        f" Swiss paired by {options.pairer}"
    )
    if options.arena:
        arena(options.arena, options.seed)
    if options.swiss:
        swiss(options.swiss, options.rounds, options.seed)


if __name__ == "__main__":
    main()
