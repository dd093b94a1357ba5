"""The pairing libraries against published pairings: the FIDE Berger tables (Handbook
C.05, Annex 1) for 6 and 8 players, and the FIDE Dutch system's (C.04.3) first round and a
second round worked by hand from its colour rules; the Dutch pairing as chuhan drives
py4swiss against py4swiss's own pairing of the tournament's TRF, and a round of a large
Swiss by its properties."""

from __future__ import annotations

import contextlib
import random
from collections import Counter
from pathlib import Path

import pytest

from chuhan.web.tournaments.pairings import (
    PairingImpossible,
    SwissPlayer,
    berger_round,
    swiss_round,
)
from chuhan.web.tournaments.rules import (
    Board,
    Entrant,
    Format,
    Result,
    Spec,
    TournamentError,
    next_round,
    pairing_numbers,
    request_bye,
    trf,
)

# The FIDE Handbook's Berger tables, white (red) first, as printed.
BERGER_6 = (
    "1-6 2-5 3-4",
    "6-4 5-3 1-2",
    "2-6 3-1 4-5",
    "6-5 1-4 2-3",
    "3-6 4-2 5-1",
)
BERGER_8 = (
    "1-8 2-7 3-6 4-5",
    "8-5 6-4 7-3 1-2",
    "2-8 3-1 4-7 5-6",
    "8-6 7-5 1-4 2-3",
    "3-8 4-2 5-1 6-7",
    "8-7 1-6 2-5 3-4",
    "4-8 5-3 6-2 7-1",
)


def games_of(table_row: str) -> set[tuple[int, int]]:
    return {
        (int(red), int(black)) for red, black in (game.split("-") for game in table_row.split())
    }


@pytest.mark.parametrize(("count", "table"), [(6, BERGER_6), (8, BERGER_8)])
def test_round_robin_follows_the_fide_berger_tables(count: int, table: tuple[str, ...]) -> None:
    for round_number, row in enumerate(table, start=1):
        pairings = berger_round(count, round_number)
        assert {(p.red, p.black) for p in pairings} == games_of(row), round_number


def test_odd_round_robin_gives_the_bye_to_the_missing_numbers_opponent() -> None:
    # Five players play the six-player table; whoever meets number 6 sits out.
    for round_number, row in enumerate(BERGER_6, start=1):
        pairings = berger_round(5, round_number)
        (bye,) = [p.red for p in pairings if p.is_bye]
        (opponent,) = [r if b == 6 else b for r, b in games_of(row) if 6 in (r, b)]
        assert bye == opponent
        assert {(p.red, p.black) for p in pairings if not p.is_bye} == {
            game for game in games_of(row) if 6 not in game
        }


def test_double_round_robin_reverses_the_colours_in_its_second_cycle() -> None:
    for round_number, row in enumerate(BERGER_6, start=1):
        second = berger_round(6, round_number + 5, cycles=2)
        assert {(p.black, p.red) for p in second} == games_of(row)


def test_round_robin_refuses_a_round_outside_its_table() -> None:
    with pytest.raises(PairingImpossible, match="rounds 1 to 7, not 8"):
        berger_round(8, 8)


def test_dutch_first_round_pairs_the_top_half_with_the_bottom_half() -> None:
    # C.04.3: S1 = 1..5 meets S2 = 6..10 in order; the top seed has red, and the colours
    # alternate from board to board.
    players = [SwissPlayer(number=n, rating=2100 - 10 * n, score=0.0) for n in range(1, 11)]
    pairings = swiss_round(players, round_number=1, total_rounds=5)
    assert [(p.red, p.black) for p in pairings] == [(1, 6), (7, 2), (3, 8), (9, 4), (5, 10)]


def test_dutch_first_round_gives_the_bye_to_the_lowest_seed() -> None:
    players = [SwissPlayer(number=n, rating=2100 - 10 * n, score=0.0) for n in range(1, 10)]
    pairings = swiss_round(players, round_number=1, total_rounds=5)
    assert [(p.red, p.black) for p in pairings] == [(1, 5), (6, 2), (3, 7), (8, 4), (9, None)]


def test_dutch_second_round_transposes_to_give_each_player_the_other_colour() -> None:
    # After 1-5, 6-2, 3-7, 8-4 with the seeds winning: in {1, 2, 3, 4}, 1-3 and 2-4 would
    # give both players of each game the colour they had; the transposition 1-4, 2-3 gives
    # everyone the other colour (C.04.3, colour preferences). Likewise among the losers.
    def player(number: int, score: float, colour: str) -> SwissPlayer:
        return SwissPlayer(
            number=number,
            rating=2100 - 10 * number,
            score=score,
            colours=("red" if colour == "r" else "black",),
            floats=("none",),
        )

    players = [
        player(1, 1.0, "r"),
        player(2, 1.0, "b"),
        player(3, 1.0, "r"),
        player(4, 1.0, "b"),
        player(5, 0.0, "b"),
        player(6, 0.0, "r"),
        player(7, 0.0, "b"),
        player(8, 0.0, "r"),
    ]
    pairings = swiss_round(
        players, round_number=2, total_rounds=5, met=[(1, 5), (6, 2), (3, 7), (8, 4)]
    )
    assert [(p.red, p.black) for p in pairings] == [(4, 1), (2, 3), (5, 8), (7, 6)]


def test_dutch_keeps_forbidden_pairs_apart() -> None:
    players = [SwissPlayer(number=n, rating=2100 - 10 * n, score=0.0) for n in range(1, 5)]
    pairings = swiss_round(players, round_number=1, total_rounds=3, forbidden=[(1, 3)])
    assert all({p.red, p.black} != {1, 3} for p in pairings)
    seats = [n for p in pairings for n in (p.red, p.black)]
    assert None not in seats  # (no bye: sorting a None among the numbers failed before)
    assert sorted(n for n in seats if n is not None) == [1, 2, 3, 4]


def test_dutch_refuses_a_round_where_the_last_two_have_met() -> None:
    players = [
        SwissPlayer(number=1, rating=2000, score=1.0, colours=("red",), floats=("none",)),
        SwissPlayer(number=2, rating=1900, score=0.0, colours=("black",), floats=("none",)),
    ]
    with pytest.raises(PairingImpossible, match="round 2 cannot be paired"):
        swiss_round(players, round_number=2, total_rounds=3, met=[(1, 2)])


def test_dutch_first_round_transposes_around_a_forbidden_pair() -> None:
    # 1 may not meet 6: S2 is transposed to 7 6 8 9 10 (C.04.3's first transposition).
    players = [SwissPlayer(number=n, rating=2100 - 10 * n, score=0.0) for n in range(1, 11)]
    pairings = swiss_round(players, round_number=1, total_rounds=5, forbidden=[(6, 1)])
    assert [(p.red, p.black) for p in pairings] == [(1, 7), (6, 2), (3, 8), (9, 4), (5, 10)]


def seeded_result(board: Board, ratings: dict[str, int], rng: random.Random) -> Board:
    """The board with a result: the higher rated wins three games in five, one is drawn."""
    if board.black is None:
        return board
    draw = rng.random()
    stronger_is_red = ratings[board.red] >= ratings[board.black]
    result = (
        Result.DRAW
        if draw < 0.2
        else Result.RED_WINS
        if (draw < 0.8) == stronger_is_red
        else Result.BLACK_WINS
    )
    return Board(board.round, board.number, board.red, board.black, result)


@pytest.mark.parametrize("half_byes", [False, True])
def test_dutch_pairs_as_py4swiss_pairs_the_tournaments_trf(tmp_path: Path, half_byes: bool) -> None:
    # chuhan gives py4swiss its players from the history's summary (scores, colours,
    # floats, byes, opponents); py4swiss's own entry reads the whole history from a TRF.
    # Both must pair every round of a Swiss alike, boards, colours and bye included; with
    # half-point byes asked for (TRF's H, the next round's written ahead), a player on one
    # is not paired, floats down and may still get the pairing-allocated bye.
    from py4swiss.engines import DutchEngine  # type: ignore[import-untyped]
    from py4swiss.trf import TrfParser  # type: ignore[import-untyped]

    rng = random.Random(7)
    entrants = tuple(Entrant(f"p{n}", f"Player {n}", rng.randint(1000, 2600), n) for n in range(25))
    ratings = {entrant.id: entrant.rating for entrant in entrants}
    numbers = pairing_numbers(entrants)
    spec = Spec(Format.SWISS, rounds=7, half_byes=2, half_bye_closed_rounds=2)
    boards: tuple[Board, ...] = ()
    for round_number in range(1, 8):
        if half_byes and round_number <= 5:
            for asker in rng.sample(sorted(numbers), 3):
                with contextlib.suppress(TournamentError):  # (past the two allowed)
                    entrants = request_bye(spec, entrants, round_number - 1, asker, round_number)
        path = tmp_path / f"before-round-{round_number}.trf"
        path.write_text(trf(spec, entrants, boards, name="Cross-check"), encoding="utf-8")
        expected = [
            (pairing.white, pairing.black or None)
            for pairing in DutchEngine.generate_pairings(TrfParser.parse(path))
        ]
        paired = next_round(spec, entrants, boards)
        found = [
            (numbers[board.red], None if board.black is None else numbers[board.black])
            for board in paired
        ]
        assert found == expected, round_number
        boards += tuple(seeded_result(board, ratings, rng) for board in paired)


def test_dutch_pairs_round_two_of_a_200_player_swiss() -> None:
    # Round 1 as C.04.3 pairs it (1-101, 102-2, ...), the results drawn; round 2 must pair
    # everyone once, repeat no game, float no more players than the score groups' sizes
    # force, and give both players of a game the other colour when their first colours
    # differed.
    rng = random.Random(23)
    first: dict[int, tuple[str, int]] = {}
    scores: dict[int, float] = {}
    for top in range(1, 101):
        bottom = top + 100
        red, black = (top, bottom) if top % 2 else (bottom, top)
        first[red], first[black] = ("red", black), ("black", red)
        draw = rng.random()
        top_points = 0.5 if draw < 0.2 else 1.0 if draw < 0.8 else 0.0
        scores[top], scores[bottom] = top_points, 1.0 - top_points
    players = [
        SwissPlayer(
            number=number,
            rating=2600 - number,
            score=scores[number],
            colours=("red" if first[number][0] == "red" else "black",),
            floats=(
                "down"
                if scores[number] > scores[first[number][1]]
                else "up"
                if scores[number] < scores[first[number][1]]
                else "none",
            ),
        )
        for number in range(1, 201)
    ]
    met = {frozenset((number, opponent)) for number, (_, opponent) in first.items()}
    pairings = swiss_round(players, round_number=2, total_rounds=9, met=met)

    seated = Counter(n for pairing in pairings for n in (pairing.red, pairing.black))
    assert None not in seated  # (no bye: sorting a None among the numbers failed before)
    assert sorted(n for n in seated if n is not None) == list(range(1, 201))
    assert set(seated.values()) == {1}
    assert [pairing.board for pairing in pairings] == list(range(1, 101))
    assert not met & {frozenset((pairing.red, pairing.black)) for pairing in pairings}
    groups = Counter(scores.values())
    forced_floats = sum(
        sum(size for score, size in groups.items() if score >= group) % 2 for group in groups
    )
    assert sum(1 for p in pairings if p.black and scores[p.red] != scores[p.black]) == (
        forced_floats
    )
    for pairing in pairings:
        assert pairing.black is not None
        if first[pairing.red][0] != first[pairing.black][0]:
            assert first[pairing.red][0] == "black", pairing
