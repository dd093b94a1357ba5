"""The tournaments' rules on values: tie-breaks against a crosstable worked by hand, the
arena's scoring, byes, late entries, withdrawals, forbidden pairs, refusals, the TRF
export, and properties of the Swiss and arena pairings."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chuhan.adjudication.outcome import Termination
from chuhan.web.tournaments.pairings import (
    MAX_COLOUR_STREAK,
    ArenaPlayer,
    Colour,
    arena_cost,
    arena_matching,
    colour_streak,
)
from chuhan.web.tournaments.rules import (
    AXF_ORDER,
    JANGGI_ARENA_SCORING,
    WXF_ORDER,
    ArenaEnding,
    ArenaGame,
    ArenaRecord,
    Board,
    Entrant,
    Format,
    Result,
    Spec,
    TieBreak,
    TournamentError,
    _histories,
    _swiss_player,
    arena_pairings,
    arena_points,
    arena_records,
    arena_standings,
    arena_waiting,
    can_join,
    cancel_bye,
    check_spec,
    crosstable,
    is_over,
    next_round,
    pairing_numbers,
    record_result,
    request_bye,
    standings,
    trf,
    withdraw,
)

R = Result

# A round robin of four, worked by hand (pairing numbers A1 B2 C3 D4, red first):
#   round 1: A-D 1-0, B-C ½-½;  round 2: D-C 0-1, A-B 0-1;  round 3: B-D ½-½, C-A 0-1.
#   points A 2, B 2, C 1½, D ½.
#   Buchholz (opponents' points): A 2+1½+½ = 4, B 2+1½+½ = 4, C 2+2+½ = 4½, D 2+2+1½ = 5½.
#   Sonneborn-Berger: A D's ½ + C's 1½ = 2; B A's 2 + ½·1½ + ½·½ = 3; C ½·2 + ½ = 1½;
#   D ½·2 = 1.
#   Direct encounter among A and B (tied on 2): B 1, A 0.
#   Games won: A 2, B 1, C 1, D 0.  Won with Black: A 1 (r3), B 1 (r2), C 1 (r2), D 0.
#   Played with Black: A 1, B 1, C 2, D 2.
#   Progressive (points after each round, summed): A 1+1+2 = 4, B ½+1½+2 = 4,
#   C ½+1½+1½ = 3½, D 0+0+½ = ½.
ENTRANTS = (
    Entrant("a", "A", 2000, 0),
    Entrant("b", "B", 1900, 1),
    Entrant("c", "C", 1800, 2),
    Entrant("d", "D", 1700, 3),
)
CROSSTABLE = (
    Board(1, 1, "a", "d", R.RED_WINS),
    Board(1, 2, "b", "c", R.DRAW),
    Board(2, 1, "d", "c", R.BLACK_WINS),
    Board(2, 2, "a", "b", R.BLACK_WINS),
    Board(3, 1, "b", "d", R.DRAW),
    Board(3, 2, "c", "a", R.BLACK_WINS),
)
HAND_WORKED = {
    TieBreak.BUCHHOLZ: {"a": 4.0, "b": 4.0, "c": 4.5, "d": 5.5},
    TieBreak.SONNEBORN_BERGER: {"a": 2.0, "b": 3.0, "c": 1.5, "d": 1.0},
    TieBreak.DIRECT_ENCOUNTER: {"a": 0.0, "b": 1.0, "c": 0.0, "d": 0.0},
    TieBreak.GAMES_WON: {"a": 2.0, "b": 1.0, "c": 1.0, "d": 0.0},
    TieBreak.WINS_WITH_BLACK: {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.0},
    TieBreak.GAMES_WITH_BLACK: {"a": 1.0, "b": 1.0, "c": 2.0, "d": 2.0},
    TieBreak.PROGRESSIVE: {"a": 4.0, "b": 4.0, "c": 3.5, "d": 0.5},
}


def round_robin(tiebreaks: tuple[TieBreak, ...]) -> Spec:
    return Spec(Format.ROUND_ROBIN, rounds=1, tiebreaks=tiebreaks)


@pytest.mark.parametrize("tiebreak", list(HAND_WORKED))
def test_each_tiebreak_holds_the_hand_worked_crosstable(tiebreak: TieBreak) -> None:
    lines = standings(round_robin((tiebreak,)), ENTRANTS, CROSSTABLE)
    assert {line.entrant_id: dict(line.tiebreaks)[tiebreak] for line in lines} == (
        HAND_WORKED[tiebreak]
    )
    assert {line.entrant_id: line.points for line in lines} == {
        "a": 2.0,
        "b": 2.0,
        "c": 1.5,
        "d": 0.5,
    }


def test_performance_is_higher_for_more_points_against_the_same_field() -> None:
    lines = standings(round_robin((TieBreak.PERFORMANCE,)), ENTRANTS, CROSSTABLE)
    performance = {line.entrant_id: dict(line.tiebreaks)[TieBreak.PERFORMANCE] for line in lines}
    assert performance["a"] > performance["c"] > performance["d"]


def ranking(tiebreaks: tuple[TieBreak, ...]) -> list[str]:
    return [line.entrant_id for line in standings(round_robin(tiebreaks), ENTRANTS, CROSSTABLE)]


def test_axf_order_settles_equal_buchholz_by_the_direct_encounter() -> None:
    # A and B have equal Buchholz; B won their game, though A won more games.
    assert ranking(AXF_ORDER) == ["b", "a", "c", "d"]


def test_wxf_order_ranks_by_sonneborn_berger_first() -> None:
    assert ranking(WXF_ORDER) == ["b", "a", "c", "d"]


def test_games_won_first_puts_the_player_with_more_wins_ahead() -> None:
    assert ranking((TieBreak.GAMES_WON, TieBreak.DIRECT_ENCOUNTER)) == ["a", "b", "c", "d"]


def test_equal_on_every_tiebreak_falls_back_to_the_pairing_number() -> None:
    assert ranking((TieBreak.PROGRESSIVE, TieBreak.WINS_WITH_BLACK)) == ["a", "b", "c", "d"]


# ---------------------------------------------------------------------- arena scoring


def win(moves: int = 30, *, berserk: bool = False, points: bool = False) -> ArenaGame:
    termination = Termination.POINTS if points else Termination.CHECKMATE
    return ArenaGame(True, termination, moves, berserk)


def loss(moves: int = 30, *, points: bool = False) -> ArenaGame:
    return ArenaGame(False, Termination.POINTS if points else Termination.RESIGNATION, moves)


def draw(moves: int = 30) -> ArenaGame:
    return ArenaGame(None, Termination.AGREEMENT, moves)


def test_arena_scores_two_one_nothing() -> None:
    assert arena_points([win(), draw(), loss()]) == (2, 1, 0)


def test_after_two_wins_in_a_row_a_win_counts_double() -> None:
    assert arena_points([win(), win(), win(), win()]) == (2, 2, 4, 4)


def test_a_game_not_won_ends_the_streak() -> None:
    assert arena_points([win(), win(), draw(), win(), win(), loss(), win()]) == (
        2,
        2,
        1,
        2,
        2,
        0,
        2,
    )


def test_berserk_adds_a_point_to_a_win_of_at_least_seven_moves() -> None:
    assert arena_points([win(7, berserk=True), loss(), win(6, berserk=True)]) == (3, 0, 2)


def test_the_arena_standings_count_the_berserk_of_the_colour_that_berserked() -> None:
    # Board 1: red (A) berserked and won in 7 moves; board 2: black (D) berserked and
    # won in 6 moves (13 plies: red made 7, black 6), too short for the bonus.
    boards = [Board(0, 1, "A", "B", Result.RED_WINS), Board(0, 2, "C", "D", Result.BLACK_WINS)]
    endings = {
        1: ArenaEnding(Termination.RESIGNATION, 13, frozenset({"red"})),
        2: ArenaEnding(Termination.RESIGNATION, 13, frozenset({"black"})),
    }
    records = arena_records(boards, endings)
    assert records["A"].games[0].berserk and not records["B"].games[0].berserk
    entrants = [Entrant(name, name, 1500, number) for number, name in enumerate("ABCD")]
    points = {line.entrant_id: line.points for line in arena_standings(entrants, records)}
    assert points == {"A": 3.0, "D": 2.0, "B": 0.0, "C": 0.0}


def test_berserk_bonus_is_not_doubled_by_the_streak() -> None:
    assert arena_points([win(), win(), win(20, berserk=True)]) == (2, 2, 5)


def test_a_draw_in_the_first_moves_scores_nothing() -> None:
    assert arena_points([draw(9), draw(10)]) == (0, 1)


def test_janggi_scores_seven_for_a_win_and_four_or_two_on_points() -> None:
    games = [win(), loss(points=True), win(points=True), loss()]
    assert arena_points(games, JANGGI_ARENA_SCORING) == (7, 2, 4, 0)


# ---------------------------------------------------------------------- Swiss and round robin


def players(count: int) -> tuple[Entrant, ...]:
    return tuple(Entrant(f"p{n}", f"Player {n}", 2000 - 10 * n, n) for n in range(count))


def finish(boards: tuple[Board, ...], rng: random.Random) -> tuple[Board, ...]:
    done = []
    for board in boards:
        if board.black is not None and board.result is None:
            board = Board(
                board.round, board.number, board.red, board.black, rng.choice(list(Result)[:3])
            )
        done.append(board)
    return tuple(done)


SWISS = Spec(Format.SWISS, rounds=5)


def test_a_swiss_round_is_not_paired_while_a_game_has_no_result() -> None:
    entrants = players(4)
    first = next_round(SWISS, entrants, ())
    with pytest.raises(TournamentError, match=r"round 1 still has games without a result"):
        next_round(SWISS, entrants, first)


def test_a_paused_player_gets_no_pairing_and_no_points_for_the_round() -> None:
    entrants = tuple(replace(e, paused=e.id == "p3") for e in players(5))
    first = next_round(SWISS, entrants, ())
    paired = {player for board in first for player in (board.red, board.black)}
    assert "p3" not in paired and len(first) == 2  # (four players: no pairing bye)
    done = finish(first, random.Random(1))
    lines = {line.entrant_id: line.points for line in standings(SWISS, entrants, done)}
    assert lines["p3"] == 0.0
    back = tuple(replace(e, paused=False) for e in entrants)
    second = next_round(SWISS, back, done)
    assert "p3" in {player for board in second for player in (board.red, board.black)}


def test_a_result_entered_twice_is_refused() -> None:
    first = next_round(SWISS, players(4), ())
    once = record_result(first, 1, 1, R.DRAW)
    with pytest.raises(TournamentError, match=r"board 1 of round 1 already has its result"):
        record_result(once, 1, 1, R.RED_WINS)


def test_a_result_for_a_bye_is_refused() -> None:
    first = next_round(SWISS, players(3), ())
    (bye,) = [board for board in first if board.is_bye]
    with pytest.raises(TournamentError, match="is a bye"):
        record_result(first, 1, bye.number, R.RED_WINS)


def test_no_round_is_paired_after_the_last() -> None:
    spec = Spec(Format.SWISS, rounds=1)
    entrants = players(2)
    boards = record_result(next_round(spec, entrants, ()), 1, 1, R.RED_WINS)
    with pytest.raises(TournamentError, match="1 rounds are all paired"):
        next_round(spec, entrants, boards)


def test_the_bye_scores_the_tournaments_bye_points() -> None:
    entrants = players(3)
    for bye_points in (1.0, 0.5):
        spec = Spec(Format.SWISS, rounds=3, bye_points=bye_points)
        first = next_round(spec, entrants, ())
        (bye,) = [board for board in first if board.is_bye]
        lines = {line.entrant_id: line.points for line in standings(spec, entrants, first)}
        assert lines[bye.red] == bye_points


def test_late_entries_close_after_half_the_rounds() -> None:
    entrants = players(4)
    assert can_join(SWISS, entrants, 2, "late") == 3
    with pytest.raises(TournamentError, match="entries close after half the rounds: 3 of 5"):
        can_join(SWISS, entrants, 3, "late")


def test_a_round_robin_takes_no_entry_once_started() -> None:
    spec = Spec(Format.ROUND_ROBIN, rounds=1)
    assert can_join(spec, players(3), 0, "new") == 1
    with pytest.raises(TournamentError, match="round robin takes no entry"):
        can_join(spec, players(3), 1, "new")


def test_a_player_enters_once() -> None:
    with pytest.raises(TournamentError, match="already entered"):
        can_join(SWISS, players(3), 0, "p1")


def test_a_late_entrant_is_paired_from_the_round_joined_and_scores_nothing_before() -> None:
    rng = random.Random(1)
    entrants = players(4)
    boards = finish(next_round(SWISS, entrants, ()), rng)
    late = Entrant("late", "Late", 1950, 4, first_round=can_join(SWISS, entrants, 1, "late"))
    entrants = (*entrants, late)
    second = next_round(SWISS, entrants, boards)
    assert any("late" in (board.red, board.black) for board in second)
    assert {line.entrant_id: line.points for line in standings(SWISS, entrants, boards)}[
        "late"
    ] == 0.0


def test_a_withdrawn_player_is_not_paired_again() -> None:
    rng = random.Random(2)
    entrants = players(5)
    boards = finish(next_round(SWISS, entrants, ()), rng)
    entrants = withdraw(entrants, "p0", 1)
    second = next_round(SWISS, entrants, boards)
    assert all("p0" not in (board.red, board.black) for board in second)
    assert not any(board.is_bye for board in second)
    with pytest.raises(TournamentError, match="already withdrawn"):
        withdraw(entrants, "p0", 1)


def test_a_round_robin_gives_the_withdrawn_players_opponent_a_bye() -> None:
    spec = Spec(Format.ROUND_ROBIN, rounds=1)
    entrants = players(4)
    boards = finish(next_round(spec, entrants, ()), random.Random(3))
    entrants = withdraw(entrants, "p3", 1)
    second = next_round(spec, entrants, boards)
    assert len(second) == 2
    assert [board.is_bye for board in second].count(True) == 1
    assert all("p3" not in (board.red, board.black) for board in second)


def test_forbidden_pairs_never_meet() -> None:
    entrants = players(8)
    rng = random.Random(4)
    boards: tuple[Board, ...] = ()
    for _ in range(4):
        boards = finish(boards + next_round(SWISS, entrants, boards, forbidden=[("p0", "p3")]), rng)
    assert all({board.red, board.black} != {"p0", "p3"} for board in boards)


def test_an_arena_has_no_rounds() -> None:
    with pytest.raises(TournamentError, match="an arena has no rounds"):
        next_round(Spec(Format.ARENA, minutes=60), players(4), ())


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (Spec(Format.SWISS, rounds=0), "a Swiss has 1 to 30 rounds, not 0"),
        (Spec(Format.SWISS, rounds=500), "not 500"),
        (Spec(Format.ARENA, minutes=0), "an arena lasts 1 to 1440 minutes, not 0"),
        (Spec(Format.ROUND_ROBIN, rounds=3), r"single \(1\) or double \(2\), not 3"),
        (Spec(Format.SWISS, rounds=5, max_players=1_000_000), "2 to 2000 players"),
        (Spec(Format.SWISS, rounds=5, bye_points=3.0), "a bye is worth 0, ½ or 1 point"),
        (
            Spec(Format.SWISS, rounds=5, tiebreaks=(TieBreak.BUCHHOLZ, TieBreak.BUCHHOLZ)),
            "named twice",
        ),
    ],
)
def test_an_absurd_tournament_is_refused(spec: Spec, message: str) -> None:
    with pytest.raises(TournamentError, match=message):
        check_spec(spec)


def test_trf_export_writes_each_round_in_fides_columns() -> None:
    from caissify_pairings.trf import parse_trf  # type: ignore[import-untyped]

    text = trf(round_robin(AXF_ORDER), ENTRANTS, CROSSTABLE, name="Club night")
    lines = text.splitlines()
    assert lines[0] == "012 Club night"
    assert "XXR 3" in lines
    (a_line,) = [line for line in lines if line.startswith("001    1")]
    # Columns 92-101 are round 1: opponent 4, white (red), won.
    assert a_line[91:101] == "   4 w 1  "
    parsed = parse_trf(text)
    by_number = {player["starting_number"]: player for player in parsed["players"]}
    assert by_number[2]["results"][2]["result"] == "1"
    assert by_number[2]["results"][1]["result"] == "="
    assert by_number[4]["score"] == 0.5


def test_trf_export_writes_a_bye_and_a_missed_round() -> None:
    entrants = players(3)
    first = next_round(SWISS, entrants, ())
    late = Entrant("late", "Late", 1500, 3, first_round=2)
    text = trf(SWISS, (*entrants, late), first, name="Swiss")
    codes = {line[4:8].strip(): line[91:101] for line in text.splitlines() if line[:3] == "001"}
    assert codes["3"] == "0000 - U  "
    assert codes["4"] == "0000 - Z  "


# ---------------------------------------------------------------------- properties


@settings(max_examples=25, deadline=None)
@given(count=st.integers(min_value=2, max_value=13), seed=st.integers(0, 10_000))
def test_a_swiss_pairs_everyone_once_a_round_and_nobody_twice(count: int, seed: int) -> None:
    rng = random.Random(seed)
    entrants = players(count)
    # At most half as many rounds as players: more can leave a round with no pairing
    # at all (five players in four rounds), which is a round robin's job.
    rounds = max(1, min(4, count // 2))
    spec = Spec(Format.SWISS, rounds=rounds)
    boards: tuple[Board, ...] = ()
    for round_number in range(1, rounds + 1):
        new = next_round(spec, entrants, boards)
        seated = [player for board in new for player in (board.red, board.black) if player]
        assert sorted(seated) == sorted(entrant.id for entrant in entrants)
        assert [board.is_bye for board in new].count(True) == count % 2
        assert all(board.round == round_number for board in new)
        boards = finish(boards + new, rng)
    games = [frozenset((b.red, b.black)) for b in boards if b.black is not None]
    assert len(games) == len(set(games))
    byes = [board.red for board in boards if board.is_bye]
    assert len(byes) == len(set(byes))


def arena_player(number: int, draw: st.DrawFn) -> ArenaPlayer:
    sides: list[Colour] = ["red", "black"]
    colours = tuple(draw(st.lists(st.sampled_from(sides), max_size=5)))
    return ArenaPlayer(
        number=number,
        rank=draw(st.integers(1, 20)),
        rating=draw(st.integers(1000, 2400)),
        colours=colours,
        last_opponent=draw(st.one_of(st.none(), st.integers(1, 8))),
    )


@st.composite
def waiting_players(draw: st.DrawFn) -> list[ArenaPlayer]:
    count = draw(st.integers(0, 8))
    return [arena_player(number, draw) for number in range(1, count + 1)]


def colours_allowed(player: ArenaPlayer, colour: str) -> bool:
    last, count = colour_streak(player.colours)
    return not (last == colour and count >= MAX_COLOUR_STREAK)


def brute_force_best(waiting: list[ArenaPlayer]) -> tuple[int, int]:
    """(games, -cost) of the best matching, trying every one."""
    by_number = {player.number: player for player in waiting}

    def pairable(a: int, b: int) -> bool:
        first, second = by_number[a], by_number[b]
        return (colours_allowed(first, "red") and colours_allowed(second, "black")) or (
            colours_allowed(second, "red") and colours_allowed(first, "black")
        )

    best = (0, 0)

    def search(left: list[int], games: int, cost: int) -> None:
        nonlocal best
        best = max(best, (games, -cost))
        if len(left) < 2:
            return
        first, rest = left[0], left[1:]
        search(rest, games, cost)
        for other in rest:
            if pairable(first, other):
                remaining = [n for n in rest if n != other]
                step = arena_cost(by_number[first], by_number[other], players=20)
                search(remaining, games + 1, cost + step)

    search([player.number for player in waiting], 0, 0)
    return best


@settings(max_examples=60, deadline=None)
@given(waiting=waiting_players())
def test_the_arena_matching_is_of_least_cost_and_keeps_colours_within_three(
    waiting: list[ArenaPlayer],
) -> None:
    games = arena_matching(waiting, players=20)
    by_number = {player.number: player for player in waiting}
    seated = [n for game in games for n in (game.red, game.black)]
    assert len(seated) == len(set(seated))
    cost = 0
    for game in games:
        assert game.black is not None
        assert colours_allowed(by_number[game.red], "red")
        assert colours_allowed(by_number[game.black], "black")
        cost += arena_cost(by_number[game.red], by_number[game.black], players=20)
    assert (len(games), -cost) == brute_force_best(waiting)


def test_the_arena_pairs_neighbours_in_the_standings_rather_than_rematch() -> None:
    entrants = players(4)
    records = {
        "p0": ArenaRecord("p0", ("red",), ("p1",), (win(),)),
        "p1": ArenaRecord("p1", ("black",), ("p0",), (loss(),)),
        "p2": ArenaRecord("p2", ("red",), ("p3",), (win(),)),
        "p3": ArenaRecord("p3", ("black",), ("p2",), (loss(),)),
    }
    games = arena_pairings(entrants, records, ["p0", "p1", "p2", "p3"])
    assert {frozenset(game) for game in games} == {
        frozenset(("p0", "p2")),
        frozenset(("p1", "p3")),
    }


def test_the_arena_gives_the_other_colour_after_three_in_a_row() -> None:
    entrants = players(2)
    records = {
        "p0": ArenaRecord("p0", ("red", "red", "red"), ("p1", "p1", "p1")),
        "p1": ArenaRecord("p1", ("red",), ("p0",)),
    }
    assert arena_pairings(entrants, records, ["p0", "p1"]) == (("p1", "p0"),)
    records["p1"] = ArenaRecord("p1", ("red", "red", "red"), ("p0", "p0", "p0"))
    assert arena_pairings(entrants, records, ["p0", "p1"]) == ()


def test_the_arena_pairs_only_waiting_players_still_in() -> None:
    entrants = withdraw(players(3), "p2", 0)
    assert arena_pairings(entrants, {}, ["p2", "p0"]) == ()
    assert len(arena_pairings(entrants, {}, ["p1", "p2", "p0"])) == 1


def test_the_arena_does_not_pair_a_paused_player() -> None:
    entrants = tuple(replace(e, paused=e.id == "p1") for e in players(3))
    assert arena_waiting(entrants, ()) == ["p0", "p2"]


def test_every_pair_of_two_players_is_costed_symmetrically() -> None:
    a = ArenaPlayer(1, 1, 2000, last_opponent=2)
    b = ArenaPlayer(2, 5, 1800)
    assert arena_cost(a, b, players=10) == arena_cost(b, a, players=10)
    assert arena_cost(a, b, players=10) > arena_cost(
        ArenaPlayer(1, 1, 2000), ArenaPlayer(2, 5, 1800), players=10
    )


def test_the_arena_does_not_pair_last_opponents_while_others_play() -> None:
    records = {
        "p0": ArenaRecord("p0", ("red",), ("p1",), (win(),)),
        "p1": ArenaRecord("p1", ("black",), ("p0",), (loss(),)),
    }
    assert arena_pairings(players(4), records, ["p0", "p1"]) == ()
    assert arena_pairings(players(2), records, ["p0", "p1"]) == (("p1", "p0"),)


def test_a_player_who_won_by_forfeit_is_not_given_the_bye() -> None:
    # C.04.3, C.2: p2 won round 2 by forfeit; without the rule, p2 (lowest in the lowest
    # score group) would have round 3's bye.
    spec = Spec(Format.SWISS, rounds=4)
    entrants = [Entrant(f"p{n}", f"P{n}", 2000 - 10 * n, n) for n in range(5)]
    boards = (
        Board(1, 1, "p0", "p2", Result.RED_WINS),
        Board(1, 2, "p3", "p1", Result.RED_WINS),
        Board(1, 3, "p4", None),
        Board(2, 1, "p4", "p0", Result.BLACK_WINS),
        Board(2, 2, "p2", "p3", Result.RED_FORFEIT_WIN),
        Board(2, 3, "p1", None),
    )
    third = next_round(spec, entrants, boards)
    (bye,) = [board.red for board in third if board.is_bye]
    assert bye not in ("p1", "p2", "p4")


def test_a_round_not_played_is_a_downfloat() -> None:
    # C.04.3, A.4b: a bye, a forfeit won or lost and a round missed are each a downfloat,
    # whatever the points; a game between equal scores is no float.
    spec = Spec(Format.SWISS, rounds=5)
    entrants = [Entrant(f"p{n}", f"P{n}", 2000 - 10 * n, n, first_round=1) for n in range(5)]
    entrants[4] = Entrant("p4", "P4", 1960, 4, first_round=2)  # (entered late: round 1 missed)
    boards = (
        Board(1, 1, "p0", "p1", Result.DRAW),
        Board(1, 2, "p2", "p3", Result.RED_FORFEIT_WIN),
    )
    histories = _histories(spec, entrants, boards, 1)
    scores = {player: sum(p.points for p in rounds) for player, rounds in histories.items()}
    numbers = pairing_numbers(entrants)
    floats = {
        entrant.id: _swiss_player(entrant, numbers, histories, scores).floats
        for entrant in entrants
    }
    assert floats == {
        "p0": ("none",),
        "p1": ("none",),
        "p2": ("down",),
        "p3": ("down",),
        "p4": ("down",),
    }


def test_a_two_player_round_robin_is_over_with_its_one_result() -> None:
    spec = Spec(Format.ROUND_ROBIN, rounds=1)
    entrants = [Entrant("p0", "P0", 2000, 0), Entrant("p1", "P1", 1900, 1)]
    (board,) = next_round(spec, entrants, ())
    assert not is_over(spec, entrants, (board,))
    assert is_over(spec, entrants, (replace(board, result=Result.DRAW),))
    double = Spec(Format.ROUND_ROBIN, rounds=2)
    assert not is_over(double, entrants, (replace(board, result=Result.DRAW),))


def test_the_crosstable_names_each_rounds_opponent_by_rank_colour_and_result() -> None:
    spec = Spec(Format.SWISS, rounds=2)
    entrants = [Entrant("p0", "Ada", 2000, 0), Entrant("p1", "Bo", 1900, 1)]
    entrants.append(Entrant("p2", "Cy", 1800, 2))
    boards = (
        Board(1, 1, "p0", "p1", R.RED_WINS),
        Board(1, 2, "p2", None),
        Board(2, 1, "p2", "p0", R.DRAW),
    )
    header, *lines = crosstable(spec, entrants, boards)
    assert header.split()[:5] == ["#", "Name", "1", "2", "Pts"]
    # Cy (a bye, then a draw with red against Ada) is first on Buchholz; Bo missed round 2.
    assert [line.split()[:5] for line in lines] == [
        ["1", "Cy", "bye", "=2r", "1.5"],
        ["2", "Ada", "+3r", "=1b", "1.5"],
        ["3", "Bo", "-2b", ".", "0"],
    ]
    forfeits = (Board(1, 1, "p0", "p1", R.BLACK_FORFEIT_WIN), Board(1, 2, "p2", None))
    rows = {row.split()[1]: row.split()[2] for row in crosstable(spec, entrants, forfeits)[1:]}
    assert rows == {"Cy": "bye", "Bo": "+F", "Ada": "-F"}


# ---------------------------------------------------------------------- half-point byes

# A Swiss of five in three rounds with two half-point byes asked for, worked by hand
# (pairing numbers A1 B2 C3 D4 E5, red first; the pairing-allocated bye is worth 1):
#   round 1: E's half-point bye;  A-D 1-0, B-C ½-½.
#   round 2: C's half-point bye;  B-A 0-1, E-D 1-0.
#   round 3: E-A ½-½, B-D 1-0, C the pairing-allocated bye (a half-point bye is no
#            pairing-allocated one: C.04.1.d).
#   points A 2½, B 1½, C 2, D 0, E 2.
# FIDE C.07 (2026), Article 16: both half-point byes are voluntarily unplayed rounds
# followed by a round the player took part in (16.2.3), so the players' adjusted scores
# (16.3, their opponents' view of them) are their points. Each unplayed round (the half-point
# byes and C's allocated bye) counts as a game against a virtual opponent with the player's
# own points, at most half the rounds' (16.4.2: ½ x 3 = 1½): C min(2, 1½) = 1½, E 1½.
#   Buchholz: A D 0 + B 1½ + E 2 = 3½;  B C 2 + A 2½ + D 0 = 4½;  C B 1½ + 1½ + 1½ = 4½;
#             D A 2½ + E 2 + B 1½ = 6;  E 1½ + D 0 + A 2½ = 4.
#   Sonneborn-Berger (each opponent's score times the points scored against it): A 0 + 1½
#             + ½·2 = 2½;  B ½·2 + 0 + 0 = 1;  C ½·1½ + ½·1½ + 1·1½ = 3;  D 0;
#             E ½·1½ + 0 + ½·2½ = 2.
#   Progressive: A 1+2+2½ = 5½, B ½+½+1½ = 2½, C ½+1+2 = 3½, D 0, E ½+1½+2 = 4.
#   Games won (over the board): A 2, B 1, C 0, D 0, E 1; won with black: A 1 (round 2);
#   played with black: A 2, B 0, C 1, D 3, E 0.
#   C and E are tied on 2 and never met (direct encounter 0): C is second on Buchholz
#   (4½ against 4) and on Sonneborn-Berger (3 against 2).
BYE_ENTRANTS = (
    Entrant("a", "A", 2000, 0),
    Entrant("b", "B", 1900, 1),
    Entrant("c", "C", 1800, 2, byes=(2,)),
    Entrant("d", "D", 1700, 3),
    Entrant("e", "E", 1600, 4, byes=(1,)),
)
BYE_CROSSTABLE = (
    Board(1, 1, "a", "d", R.RED_WINS),
    Board(1, 2, "b", "c", R.DRAW),
    Board(2, 1, "b", "a", R.BLACK_WINS),
    Board(2, 2, "e", "d", R.RED_WINS),
    Board(3, 1, "e", "a", R.DRAW),
    Board(3, 2, "b", "d", R.RED_WINS),
    Board(3, 3, "c", None),
)
BYE_HAND_WORKED = {
    TieBreak.BUCHHOLZ: {"a": 3.5, "b": 4.5, "c": 4.5, "d": 6.0, "e": 4.0},
    TieBreak.SONNEBORN_BERGER: {"a": 2.5, "b": 1.0, "c": 3.0, "d": 0.0, "e": 2.0},
    TieBreak.DIRECT_ENCOUNTER: {"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0, "e": 0.0},
    TieBreak.GAMES_WON: {"a": 2.0, "b": 1.0, "c": 0.0, "d": 0.0, "e": 1.0},
    TieBreak.WINS_WITH_BLACK: {"a": 1.0, "b": 0.0, "c": 0.0, "d": 0.0, "e": 0.0},
    TieBreak.GAMES_WITH_BLACK: {"a": 2.0, "b": 0.0, "c": 1.0, "d": 3.0, "e": 0.0},
    TieBreak.PROGRESSIVE: {"a": 5.5, "b": 2.5, "c": 3.5, "d": 0.0, "e": 4.0},
}
BYE_SWISS = Spec(Format.SWISS, rounds=3)


@pytest.mark.parametrize("tiebreak", list(BYE_HAND_WORKED))
def test_each_tiebreak_counts_a_half_point_bye_as_fides_unplayed_round(tiebreak: TieBreak) -> None:
    spec = replace(BYE_SWISS, tiebreaks=(tiebreak,))
    lines = standings(spec, BYE_ENTRANTS, BYE_CROSSTABLE)
    assert {line.entrant_id: dict(line.tiebreaks)[tiebreak] for line in lines} == (
        BYE_HAND_WORKED[tiebreak]
    )
    assert {line.entrant_id: line.points for line in lines} == {
        "a": 2.5,
        "b": 1.5,
        "c": 2.0,
        "d": 0.0,
        "e": 2.0,
    }


def test_the_crosstable_and_the_trf_show_a_half_point_bye() -> None:
    spec = replace(BYE_SWISS, tiebreaks=WXF_ORDER)
    rows = [row.split()[:6] for row in crosstable(spec, BYE_ENTRANTS, BYE_CROSSTABLE)[1:]]
    assert rows == [
        ["1", "A", "+5r", "+4b", "=3b", "2.5"],
        ["2", "C", "=4b", "½bye", "bye", "2"],
        ["3", "E", "½bye", "+5r", "=1r", "2"],
        ["4", "B", "=2r", "-1r", "+5r", "1.5"],
        ["5", "D", "-1b", "-3b", "-4b", "0"],
    ]
    text = trf(spec, BYE_ENTRANTS, BYE_CROSSTABLE, name="Byes")
    lines = {line[4:8].strip(): line for line in text.splitlines() if line[:3] == "001"}
    # TRF16: H is a half-point bye, U the pairing-allocated one; columns 92-121 rounds 1-3.
    assert lines["5"][91:121] == "0000 - H     4 w 1     1 w =  "
    assert lines["3"][91:121] == "   2 b =  0000 - H  0000 - U  "
    assert lines["5"][80:84] == " 2.0"


def test_a_player_on_a_half_point_bye_is_not_paired_and_scores_half_a_point() -> None:
    entrants = request_bye(SWISS, players(5), 0, "p2", 1)
    first = next_round(SWISS, entrants, ())
    paired = {player for board in first for player in (board.red, board.black)}
    assert "p2" not in paired and len(first) == 2 and not any(b.is_bye for b in first)
    lines = {line.entrant_id: line.points for line in standings(SWISS, entrants, first)}
    assert lines["p2"] == 0.5


def test_a_player_who_had_a_half_point_bye_can_still_get_the_pairing_allocated_bye() -> None:
    # C.04.1.d bars the pairing-allocated bye to a player who had one or won by forfeit,
    # not to one who asked for a half-point bye. After round 2, p4 (½, from the half-point
    # bye of round 1) is alone at the bottom: the bye of round 3 is theirs.
    entrants = request_bye(SWISS, players(5), 0, "p4", 1)
    boards = (
        Board(1, 1, "p0", "p2", R.RED_WINS),
        Board(1, 2, "p3", "p1", R.RED_WINS),
        Board(2, 1, "p3", "p0", R.RED_WINS),
        Board(2, 2, "p1", "p4", R.RED_WINS),
        Board(2, 3, "p2", None),
    )
    histories = _histories(SWISS, entrants, boards, 2)
    scores = {player: sum(p.points for p in rounds) for player, rounds in histories.items()}
    numbers = pairing_numbers(entrants)
    fed = {e.id: _swiss_player(e, numbers, histories, scores) for e in entrants}
    assert (fed["p4"].byes, fed["p2"].byes) == (0, 1)
    assert fed["p4"].floats[0] == "down"  # (C.04.3, A.4b: a round not played)
    third = next_round(SWISS, entrants, boards)
    assert [board.red for board in third if board.is_bye] == ["p4"]


def test_a_half_point_bye_is_called_off_until_its_round_is_paired() -> None:
    asked = request_bye(SWISS, players(4), 0, "p1", 2)
    assert cancel_bye(asked, 1, "p1", 2)[1].byes == ()
    with pytest.raises(TournamentError, match="round 2 is paired already: its half-point bye"):
        cancel_bye(asked, 2, "p1", 2)
    with pytest.raises(TournamentError, match="has not asked for a half-point bye in round 3"):
        cancel_bye(asked, 1, "p1", 3)


def test_a_withdrawal_takes_the_half_point_byes_to_come_along() -> None:
    asked = request_bye(replace(SWISS, half_byes=2), players(4), 0, "p1", 1)
    asked = request_bye(replace(SWISS, half_byes=2), asked, 0, "p1", 3)
    assert withdraw(asked, "p1", 2)[1].byes == (1,)


@pytest.mark.parametrize(
    ("spec", "paired", "round_number", "message"),
    [
        (SWISS, 2, 2, r"round 2 is paired already: a half-point bye is asked for before"),
        (SWISS, 0, 5, r"no half-point bye in the last round 5 of this tournament"),
        (
            replace(SWISS, half_bye_closed_rounds=2),
            0,
            4,
            r"no half-point bye in the last rounds 4 to 5",
        ),
        (SWISS, 0, 6, r"the Swiss has rounds 1 to 5, not 6"),
        (replace(SWISS, half_byes=0), 0, 1, "gives no half-point byes on request"),
        (Spec(Format.ARENA, minutes=60), 0, 1, "an arena has no rounds"),
        (Spec(Format.ROUND_ROBIN, rounds=1), 0, 1, "it gives no half-point byes"),
    ],
)
def test_a_half_point_bye_out_of_the_rules_is_refused(
    spec: Spec, paired: int, round_number: int, message: str
) -> None:
    with pytest.raises(TournamentError, match=message):
        request_bye(spec, players(4), paired, "p1", round_number)


def test_a_half_point_bye_is_refused_twice_past_the_limit_and_after_withdrawing() -> None:
    asked = request_bye(SWISS, players(4), 0, "p1", 2)
    with pytest.raises(TournamentError, match="Player 1 has asked for a half-point bye in round 2"):
        request_bye(SWISS, asked, 0, "p1", 2)
    with pytest.raises(TournamentError, match=r"may take 1 half-point bye .* asked for round 2"):
        request_bye(SWISS, asked, 0, "p1", 3)
    with pytest.raises(TournamentError, match="Player 2 has withdrawn"):
        request_bye(SWISS, withdraw(asked, "p2", 1), 1, "p2", 2)
    with pytest.raises(TournamentError, match="not in the tournament"):
        request_bye(SWISS, asked, 0, "nobody", 2)


def test_a_half_point_bye_that_would_leave_one_player_to_pair_is_refused() -> None:
    asked = request_bye(SWISS, players(3), 0, "p0", 2)
    with pytest.raises(TournamentError, match="round 2 would have fewer than two players to pair"):
        request_bye(SWISS, asked, 0, "p1", 2)
    assert request_bye(SWISS, asked, 0, "p1", 3)[1].byes == (3,)


@pytest.mark.parametrize("field_name", ["half_byes", "half_bye_closed_rounds"])
def test_more_half_point_byes_than_rounds_is_refused(field_name: str) -> None:
    with pytest.raises(
        TournamentError, match=f"'{field_name}' is 0 to the Swiss's 5 rounds, not 6"
    ):
        too_many: dict[str, Any] = {field_name: 6}
        check_spec(replace(SWISS, **too_many))
