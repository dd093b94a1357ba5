"""A tournament's rules as pure functions on values: its formats, scoring, who is paired in
a round (byes, late entries, withdrawals, forbidden pairs), the standings with the
organiser's tie-breaks, and the TRF export. Nothing here reads a clock or a store: the
service hands in the tournament as it stands and stores what comes back.

Players are named by their entrant ids (an account's id, or a director's entry); the pairing
libraries (``pairings.py``) work on pairing numbers, which :func:`pairing_numbers` gives:
by rating, highest first, then by entry, as FIDE's initial ranking list orders them."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from chuhan.adjudication.outcome import Termination
from chuhan.errors import ChuhanError
from chuhan.web.tournaments.pairings import (
    ArenaPlayer,
    Colour,
    Float,
    SwissPlayer,
    arena_matching,
    berger_round,
    swiss_round,
)

__all__ = [
    "AXF_ORDER",
    "WXF_ORDER",
    "ArenaEnding",
    "ArenaGame",
    "ArenaRecord",
    "ArenaScoring",
    "ArenaTally",
    "Board",
    "Entrant",
    "Format",
    "Result",
    "Spec",
    "Standing",
    "TieBreak",
    "TournamentError",
    "UnknownTournament",
    "arena_pairings",
    "arena_points",
    "arena_records",
    "arena_standings",
    "arena_waiting",
    "can_join",
    "cancel_bye",
    "check_spec",
    "crosstable",
    "is_over",
    "next_round",
    "pairing_numbers",
    "record_result",
    "request_bye",
    "scores_before",
    "standings",
    "swiss_present",
    "total_rounds",
    "trf",
    "withdraw",
]

#: Limits that keep a tournament something a server can run and a person can play.
MAX_PLAYERS = 2000
MAX_ROUNDS = 30
MAX_ARENA_MINUTES = 24 * 60


class TournamentError(ChuhanError):
    """A tournament action the rules refuse; the message says what and why."""


class UnknownTournament(TournamentError):
    """No tournament has the id asked for."""


class Format(enum.Enum):
    ARENA = "arena"
    SWISS = "swiss"
    ROUND_ROBIN = "round_robin"


class TieBreak(enum.Enum):
    """The tie-breaks an organiser may order (FIDE C.07's names; tiebreak-core computes
    them)."""

    BUCHHOLZ = "buchholz"
    SONNEBORN_BERGER = "sonneborn_berger"
    DIRECT_ENCOUNTER = "direct_encounter"
    GAMES_WON = "won"
    WINS_WITH_BLACK = "wins_black"
    GAMES_WITH_BLACK = "games_black"
    PROGRESSIVE = "progressive"
    PERFORMANCE = "tpr"


#: The Asian Xiangqi Federation's order.
AXF_ORDER: tuple[TieBreak, ...] = (
    TieBreak.BUCHHOLZ,
    TieBreak.DIRECT_ENCOUNTER,
    TieBreak.GAMES_WON,
    TieBreak.WINS_WITH_BLACK,
    TieBreak.GAMES_WITH_BLACK,
)
#: The World Xiangqi Federation's order.
WXF_ORDER: tuple[TieBreak, ...] = (
    TieBreak.SONNEBORN_BERGER,
    TieBreak.DIRECT_ENCOUNTER,
    TieBreak.GAMES_WON,
    TieBreak.WINS_WITH_BLACK,
    TieBreak.GAMES_WITH_BLACK,
)


@dataclass(frozen=True, slots=True)
class ArenaScoring:
    """An arena's scoring table: points for a win, a draw and a loss; for a janggi win or
    loss on points (None: as a win or a loss); the streak (after ``streak_after`` wins in a
    row each win counts ``streak_factor`` times, until a game is not won; 0: no streak);
    berserk (``berserk_bonus`` for a berserker's win in which the berserker made at least
    ``berserk_moves`` moves); a draw before ``early_draw_moves`` moves scores nothing."""

    win: int = 2
    draw: int = 1
    loss: int = 0
    win_on_points: int | None = None
    loss_on_points: int | None = None
    streak_after: int = 2
    streak_factor: int = 2
    berserk_bonus: int = 1
    berserk_moves: int = 7
    early_draw_moves: int = 10


#: The usual arena (lichess's): 2, 1, 0, with the streak and berserk.
ARENA_SCORING = ArenaScoring()
#: Janggi's, as pychess.org scores it: 7 / 0 for a win or a loss, 4 / 2 for a win or a loss
#: on points. The issue gives no draw; 3 sits between a loss and a win on points.
JANGGI_ARENA_SCORING = ArenaScoring(win=7, draw=3, loss=0, win_on_points=4, loss_on_points=2)


@dataclass(frozen=True, slots=True)
class Spec:
    """What the organiser chose. ``rounds``: Swiss rounds, or a round robin's cycles (1
    single, 2 double); ``minutes``: an arena's duration. ``bye_points``: a pairing-allocated
    bye's points (1, or ½). ``late_join``: entries accepted while at most half the rounds
    have been paired (Swiss). ``half_byes``: how many half-point byes a Swiss player may
    ask for (0: none); ``half_bye_closed_rounds``: in how many of the last rounds none may
    be asked for (1: the final round; 2: the last two, as many FIDE events rule)."""

    format: Format
    rounds: int = 0
    minutes: int = 0
    tiebreaks: tuple[TieBreak, ...] = AXF_ORDER
    scoring: ArenaScoring = ARENA_SCORING
    bye_points: float = 1.0
    late_join: bool = True
    max_players: int = MAX_PLAYERS
    half_byes: int = 1
    half_bye_closed_rounds: int = 1


def check_spec(spec: Spec) -> Spec:
    """``spec`` if it describes a tournament that can be played, else a
    :class:`TournamentError` naming the field and what is wrong."""
    if spec.format is Format.ARENA:
        if not 1 <= spec.minutes <= MAX_ARENA_MINUTES:
            raise TournamentError(
                f"an arena lasts 1 to {MAX_ARENA_MINUTES} minutes, not {spec.minutes}"
            )
    elif spec.format is Format.SWISS:
        if not 1 <= spec.rounds <= MAX_ROUNDS:
            raise TournamentError(f"a Swiss has 1 to {MAX_ROUNDS} rounds, not {spec.rounds}")
    elif spec.rounds not in (1, 2):
        raise TournamentError(
            f"a round robin is single (1) or double (2), not {spec.rounds} cycles"
        )
    if not 2 <= spec.max_players <= MAX_PLAYERS:
        raise TournamentError(
            f"a tournament takes 2 to {MAX_PLAYERS} players, not {spec.max_players}"
        )
    if spec.format is Format.SWISS:
        for name, value in (
            ("half_byes", spec.half_byes),
            ("half_bye_closed_rounds", spec.half_bye_closed_rounds),
        ):
            if not 0 <= value <= spec.rounds:
                raise TournamentError(
                    f"'{name}' is 0 to the Swiss's {spec.rounds} rounds, not {value}"
                )
    if spec.bye_points not in (0.0, 0.5, 1.0):
        raise TournamentError(f"a bye is worth 0, ½ or 1 point, not {spec.bye_points}")
    if len(set(spec.tiebreaks)) != len(spec.tiebreaks):
        raise TournamentError("a tie-break is named twice in the order")
    return spec


# ---------------------------------------------------------------------- entrants


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player of the tournament. ``entered``: the order of entry (0 first);
    ``first_round``: the first round the player can be paired in (a late entry's is
    later than 1); ``last_round``: the last round played before withdrawing (None: still
    in)."""

    id: str
    name: str
    rating: int
    entered: int
    first_round: int = 1
    last_round: int | None = None
    #: Paused (by the player): not paired until they come back; in a Swiss, a round they
    #: are paused for is not played and scores nothing (FIDE's zero-point bye).
    paused: bool = False
    #: The player's club (a director's entry over the board; empty if none given).
    club: str = ""
    #: The rounds of a Swiss for which the player asked for a half-point bye (FIDE's
    #: requested bye: not paired, ½ point), oldest first; those paired are taken.
    byes: tuple[int, ...] = ()

    def plays_in(self, round_number: int) -> bool:
        return self.first_round <= round_number and (
            self.last_round is None or round_number <= self.last_round
        )


def pairing_numbers(entrants: Iterable[Entrant]) -> dict[str, int]:
    """Each entrant's pairing number: by rating, highest first, then by entry."""
    ordered = sorted(entrants, key=lambda entrant: (-entrant.rating, entrant.entered))
    return {entrant.id: number for number, entrant in enumerate(ordered, start=1)}


def can_join(spec: Spec, entrants: Sequence[Entrant], rounds_paired: int, entrant_id: str) -> int:
    """The first round a new entrant ``entrant_id`` would play, or a
    :class:`TournamentError` saying why the entry is refused: already in, the tournament
    full, a round robin started, or more than half of a Swiss's rounds paired."""
    if any(entrant.id == entrant_id for entrant in entrants):
        raise TournamentError("this player has already entered the tournament")
    if len(entrants) >= spec.max_players:
        raise TournamentError(f"the tournament is full ({spec.max_players} players)")
    if rounds_paired == 0 or spec.format is Format.ARENA:
        return rounds_paired + 1
    if spec.format is Format.ROUND_ROBIN:
        raise TournamentError("a round robin takes no entry once its first round is paired")
    if not spec.late_join:
        raise TournamentError("this tournament takes no entry once its first round is paired")
    if rounds_paired > spec.rounds // 2:
        raise TournamentError(
            f"entries close after half the rounds: {rounds_paired} of {spec.rounds} are paired"
        )
    return rounds_paired + 1


def withdraw(
    entrants: Sequence[Entrant], entrant_id: str, rounds_paired: int
) -> tuple[Entrant, ...]:
    """The entrants with ``entrant_id`` withdrawn after the rounds paired so far (a game of
    theirs still being played is played out; they are not paired again)."""
    found = False
    result: list[Entrant] = []
    for entrant in entrants:
        if entrant.id == entrant_id:
            if entrant.last_round is not None:
                raise TournamentError(f"{entrant.name} has already withdrawn")
            found = True
            # (the half-point byes asked for rounds to come go with the player)
            kept = tuple(number for number in entrant.byes if number <= rounds_paired)
            entrant = replace(entrant, last_round=rounds_paired, byes=kept)
        result.append(entrant)
    if not found:
        raise TournamentError("this player is not in the tournament")
    return tuple(result)


def _rounds_text(first: int, last: int) -> str:
    return f"round {last}" if first == last else f"rounds {first} to {last}"


def request_bye(
    spec: Spec,
    entrants: Sequence[Entrant],
    rounds_paired: int,
    entrant_id: str,
    round_number: int,
) -> tuple[Entrant, ...]:
    """The entrants with ``entrant_id`` given a half-point bye in ``round_number`` of a
    Swiss (FIDE's requested bye: not paired in that round, ½ point; it can still be given
    the pairing-allocated bye later, C.04.1.d), or a :class:`TournamentError` saying why
    not: not a Swiss, none allowed, a round paired already or not in the tournament, one
    of the last rounds the organiser closed, a player withdrawn, the bye asked for twice
    or past the number allowed, or a round that would be left with fewer than two players
    to pair (a paused player counts: they may come back)."""
    if spec.format is Format.ARENA:
        raise TournamentError("an arena has no rounds: a player pauses instead of a bye")
    if spec.format is Format.ROUND_ROBIN:
        raise TournamentError(
            "a round robin's rounds are fixed by its table: it gives no half-point byes"
        )
    if spec.half_byes == 0:
        raise TournamentError("this tournament gives no half-point byes on request")
    entrant = _entrant_named(entrants, entrant_id)
    if entrant.last_round is not None:
        raise TournamentError(f"{entrant.name} has withdrawn from the tournament")
    if not 1 <= round_number <= spec.rounds:
        raise TournamentError(f"the Swiss has rounds 1 to {spec.rounds}, not {round_number}")
    if round_number <= rounds_paired:
        raise TournamentError(
            f"round {round_number} is paired already: a half-point bye is asked for before "
            "its round is paired"
        )
    closed = spec.rounds - spec.half_bye_closed_rounds + 1
    if round_number >= closed:
        raise TournamentError(
            f"no half-point bye in the last {_rounds_text(closed, spec.rounds)} of this tournament"
        )
    if round_number in entrant.byes:
        raise TournamentError(
            f"{entrant.name} has asked for a half-point bye in round {round_number} already"
        )
    if len(entrant.byes) >= spec.half_byes:
        asked = ", ".join(str(number) for number in entrant.byes)
        raise TournamentError(
            f"a player may take {spec.half_byes} half-point "
            f"bye{'s' if spec.half_byes > 1 else ''} in this tournament; {entrant.name} "
            f"has asked for round{'s' if len(entrant.byes) > 1 else ''} {asked}"
        )
    # (a round left with one player to pair would never be paired: the tournament stuck)
    others = [
        e
        for e in entrants
        if e.id != entrant_id and e.plays_in(round_number) and round_number not in e.byes
    ]
    if len(others) < 2:
        raise TournamentError(
            f"round {round_number} would have fewer than two players to pair: "
            f"{len(others)} other{'' if len(others) == 1 else 's'} in it"
        )
    byes = tuple(sorted((*entrant.byes, round_number)))
    return tuple(replace(e, byes=byes) if e.id == entrant_id else e for e in entrants)


def cancel_bye(
    entrants: Sequence[Entrant], rounds_paired: int, entrant_id: str, round_number: int
) -> tuple[Entrant, ...]:
    """The entrants with ``entrant_id``'s half-point bye in ``round_number`` called off:
    refused once that round is paired, and when no bye was asked for it."""
    entrant = _entrant_named(entrants, entrant_id)
    if round_number not in entrant.byes:
        raise TournamentError(
            f"{entrant.name} has not asked for a half-point bye in round {round_number}"
        )
    if round_number <= rounds_paired:
        raise TournamentError(
            f"round {round_number} is paired already: its half-point bye is taken"
        )
    byes = tuple(number for number in entrant.byes if number != round_number)
    return tuple(replace(e, byes=byes) if e.id == entrant_id else e for e in entrants)


def _entrant_named(entrants: Sequence[Entrant], entrant_id: str) -> Entrant:
    for entrant in entrants:
        if entrant.id == entrant_id:
            return entrant
    raise TournamentError("this player is not in the tournament")


# ---------------------------------------------------------------------- boards and results


class Result(enum.Enum):
    """A board's result, red first. A forfeit is a win or loss not played (FIDE's ``+`` and
    ``-``); a double forfeit gives neither side a point."""

    RED_WINS = "1-0"
    BLACK_WINS = "0-1"
    DRAW = "1/2-1/2"
    RED_FORFEIT_WIN = "+-"
    BLACK_FORFEIT_WIN = "-+"
    DOUBLE_FORFEIT = "--"

    def points(self) -> tuple[float, float]:
        return _RESULT_POINTS[self]

    @property
    def is_forfeit(self) -> bool:
        return self in (Result.RED_FORFEIT_WIN, Result.BLACK_FORFEIT_WIN, Result.DOUBLE_FORFEIT)


_RESULT_POINTS = {
    Result.RED_WINS: (1.0, 0.0),
    Result.BLACK_WINS: (0.0, 1.0),
    Result.DRAW: (0.5, 0.5),
    Result.RED_FORFEIT_WIN: (1.0, 0.0),
    Result.BLACK_FORFEIT_WIN: (0.0, 1.0),
    Result.DOUBLE_FORFEIT: (0.0, 0.0),
}


@dataclass(frozen=True, slots=True)
class Board:
    """A board of a round: ``red`` against ``black`` (None: a bye for ``red``); the result
    once known."""

    round: int
    number: int
    red: str
    black: str | None
    result: Result | None = None

    @property
    def is_bye(self) -> bool:
        return self.black is None

    @property
    def is_finished(self) -> bool:
        return self.is_bye or self.result is not None


def record_result(
    boards: Sequence[Board], round_number: int, number: int, result: Result
) -> tuple[Board, ...]:
    """The boards with board ``number`` of round ``round_number`` given ``result``; a
    result entered twice, or for a bye or a board that does not exist, is refused."""
    updated: list[Board] = []
    found = False
    for board in boards:
        if board.round == round_number and board.number == number:
            found = True
            if board.is_bye:
                raise TournamentError(f"board {number} of round {round_number} is a bye")
            if board.result is not None:
                raise TournamentError(
                    f"board {number} of round {round_number} already has its result "
                    f"({board.result.value})"
                )
            board = replace(board, result=result)
        updated.append(board)
    if not found:
        raise TournamentError(f"round {round_number} has no board {number}")
    return tuple(updated)


@dataclass(frozen=True, slots=True)
class _Played:
    """One round of one player, as the standings and the pairing read it."""

    round: int
    opponent: str | None
    colour: Colour | None
    points: float
    kind: Literal["played", "forfeit_win", "forfeit_loss", "pairing_bye", "requested_bye", "absent"]


#: A requested bye's points (FIDE's half-point bye).
HALF_BYE_POINTS = 0.5


def _histories(
    spec: Spec, entrants: Sequence[Entrant], boards: Sequence[Board], through: int
) -> dict[str, list[_Played]]:
    """Every entrant's rounds 1..``through`` with a result (a half-point bye asked for a
    round paired: requested_bye; a round not played: absent)."""
    histories: dict[str, dict[int, _Played]] = {entrant.id: {} for entrant in entrants}
    for entrant in entrants:
        for number in entrant.byes:
            if number <= through and entrant.plays_in(number):
                histories[entrant.id][number] = _Played(
                    number, None, None, HALF_BYE_POINTS, "requested_bye"
                )
    for board in boards:
        if board.round > through:
            continue
        if board.black is None:
            histories[board.red][board.round] = _Played(
                board.round, None, None, spec.bye_points, "pairing_bye"
            )
            continue
        if board.result is None:
            continue
        red_points, black_points = board.result.points()
        forfeit = board.result.is_forfeit
        sides: tuple[tuple[str, str, Colour, float], ...] = (
            (board.red, board.black, "red", red_points),
            (board.black, board.red, "black", black_points),
        )
        for player, opponent, colour, points in sides:
            if forfeit:
                kind: Literal["played", "forfeit_win", "forfeit_loss"] = (
                    "forfeit_win" if points else "forfeit_loss"
                )
                played = _Played(board.round, opponent, None, points, kind)
            else:
                played = _Played(board.round, opponent, colour, points, "played")
            histories[player][board.round] = played
    return {
        player: [
            rounds.get(number, _Played(number, None, None, 0.0, "absent"))
            for number in range(1, through + 1)
        ]
        for player, rounds in histories.items()
    }


def scores_before(
    spec: Spec, entrants: Sequence[Entrant], boards: Sequence[Board], round_number: int
) -> dict[str, float]:
    """Each entrant's points from the rounds before ``round_number`` (a pairing sheet's
    scores)."""
    histories = _histories(spec, entrants, boards, round_number - 1)
    return {player: sum(played.points for played in rounds) for player, rounds in histories.items()}


def _check_round_complete(boards: Sequence[Board], round_number: int) -> None:
    running = [
        board.number for board in boards if board.round == round_number and not board.is_finished
    ]
    if running:
        raise TournamentError(
            f"round {round_number} still has games without a result (boards "
            + ", ".join(str(number) for number in running)
            + ")"
        )


def total_rounds(spec: Spec, players: int) -> int:
    """How many rounds the tournament has: a Swiss's ``rounds``; a round robin's Berger
    table of ``players`` (one round a player less than an even count, as many as an odd
    count) times its cycles; an arena none."""
    if spec.format is Format.ROUND_ROBIN:
        return (players if players % 2 else players - 1) * spec.rounds
    if spec.format is Format.SWISS:
        return spec.rounds
    return 0


def is_over(spec: Spec, entrants: Sequence[Entrant], boards: Sequence[Board]) -> bool:
    """Whether a Swiss or a round robin is over: its last round is paired and every board
    of it has its result (or is a bye). An arena ends with its time, not here."""
    if spec.format is Format.ARENA:
        return False
    paired = max((board.round for board in boards), default=0)
    if paired == 0 or paired < total_rounds(spec, len(entrants)):
        return False
    return all(board.is_finished for board in boards if board.round == paired)


def next_round(
    spec: Spec,
    entrants: Sequence[Entrant],
    boards: Sequence[Board],
    *,
    forbidden: Iterable[tuple[str, str]] = (),
) -> tuple[Board, ...]:
    """The boards of the next round of a Swiss or a round robin (the rounds so far are
    ``boards``): refused while a game of the last round has no result, after the last
    round, or when nobody is left to pair. A Swiss pairs the entrants in the tournament
    then by the FIDE Dutch system with ``forbidden`` pairs kept apart; a round robin follows
    the Berger table of its entrants, and a withdrawn player's opponent has a bye."""
    played_rounds = max((board.round for board in boards), default=0)
    if played_rounds:
        _check_round_complete(boards, played_rounds)
    round_number = played_rounds + 1
    numbers = pairing_numbers(entrants)
    by_number = {number: entrant_id for entrant_id, number in numbers.items()}
    if spec.format is Format.ROUND_ROBIN:
        total = total_rounds(spec, len(entrants))
        if round_number > total:
            raise TournamentError(f"the round robin's {total} rounds are all paired")
        in_round = {entrant.id for entrant in entrants if entrant.plays_in(round_number)}
        result: list[Board] = []
        for pairing in berger_round(len(entrants), round_number, cycles=spec.rounds):
            red = by_number[pairing.red]
            black = None if pairing.black is None else by_number[pairing.black]
            if black is not None and red in in_round and black not in in_round:
                black = None
            elif black is not None and black in in_round and red not in in_round:
                red, black = black, None
            if red not in in_round:
                continue
            result.append(Board(round_number, len(result) + 1, red, black))
        return tuple(result)
    if spec.format is not Format.SWISS:
        raise TournamentError("an arena has no rounds: its players are paired as they wait")
    if round_number > spec.rounds:
        raise TournamentError(f"the Swiss's {spec.rounds} rounds are all paired")
    present = swiss_present(entrants, round_number)
    if len(present) < 2:
        raise TournamentError(f"round {round_number} has fewer than two players to pair")
    histories = _histories(spec, entrants, boards, played_rounds)
    scores = {
        player: sum(played.points for played in rounds) for player, rounds in histories.items()
    }
    players = [_swiss_player(entrant, numbers, histories, scores) for entrant in present]
    met = [
        (numbers[board.red], numbers[board.black])
        for board in boards
        if board.black is not None and not (board.result and board.result.is_forfeit)
    ]
    kept_apart = [(numbers[first], numbers[second]) for first, second in forbidden]
    pairings = swiss_round(
        players,
        round_number=round_number,
        total_rounds=spec.rounds,
        met=met,
        forbidden=kept_apart,
        bye_points=spec.bye_points,
    )
    return tuple(
        Board(
            round_number,
            pairing.board,
            by_number[pairing.red],
            None if pairing.black is None else by_number[pairing.black],
        )
        for pairing in pairings
    )


def swiss_present(entrants: Sequence[Entrant], round_number: int) -> list[Entrant]:
    """The entrants a Swiss pairs in ``round_number``: in the tournament, not paused, and
    not on a half-point bye they asked for."""
    return [
        entrant
        for entrant in entrants
        if entrant.plays_in(round_number)
        and not entrant.paused
        and round_number not in entrant.byes
    ]


def _swiss_player(
    entrant: Entrant,
    numbers: Mapping[str, int],
    histories: Mapping[str, list[_Played]],
    scores: Mapping[str, float],
) -> SwissPlayer:
    history = histories[entrant.id]
    floats: list[Float] = []
    for played in history:
        # C.04.3, A.4b: the higher scorer before the round floats down, the other up; a
        # player who does not play in a round, for whatever reason (a bye, requested or
        # allocated, a forfeit won or lost, absent), also receives a downfloat.
        before = sum(p.points for p in history[: played.round - 1])
        if played.opponent is None or played.kind != "played":
            floats.append("down")
            continue
        opponent_before = sum(p.points for p in histories[played.opponent][: played.round - 1])
        floats.append(
            "down" if before > opponent_before else "up" if before < opponent_before else "none"
        )
    return SwissPlayer(
        number=numbers[entrant.id],
        rating=entrant.rating,
        score=scores[entrant.id],
        colours=tuple(played.colour for played in history),
        floats=tuple(floats),
        # C.04.3, C.2: a player who won by forfeit is not given the bye, as one who had it;
        # a half-point bye asked for is no pairing-allocated bye (C.04.1.d): not counted.
        byes=sum(1 for played in history if played.kind in ("pairing_bye", "forfeit_win")),
    )


# ---------------------------------------------------------------------- standings


@dataclass(frozen=True, slots=True)
class Standing:
    """A line of the standings: the rank (equal players share none: the tie-breaks decide,
    then the pairing number), the points and each tie-break's value in the organiser's
    order."""

    rank: int
    entrant_id: str
    points: float
    tiebreaks: tuple[tuple[TieBreak, float], ...] = field(default=())


def standings(
    spec: Spec, entrants: Sequence[Entrant], boards: Sequence[Board]
) -> tuple[Standing, ...]:
    """The standings of a Swiss or a round robin after the boards with results: points,
    then ``spec.tiebreaks`` in order (FIDE C.07 as tiebreak-core computes it, its 2026
    rules; a direct encounter counts among the players still tied), then the pairing
    number. A round not played is told to it by kind (C.07, Article 16): a
    pairing-allocated bye, a forfeit won or lost, a half-point bye asked for (a voluntarily
    unplayed round; it counts as a game against a virtual opponent with the player's own
    points, at most half the rounds': 16.4)."""
    from tiebreak_core import GameRecord, PlayerTiebreakData, rank_standings_strict

    through = max((board.round for board in boards), default=0)
    numbers = pairing_numbers(entrants)
    ids = {number: entrant_id for entrant_id, number in numbers.items()}
    ratings = {entrant.id: entrant.rating for entrant in entrants}
    histories = _histories(spec, entrants, boards, through)
    players: dict[int, PlayerTiebreakData] = {}
    for entrant in entrants:
        records = []
        for played in histories[entrant.id]:
            if played.kind == "absent":
                continue
            opponent = -1 if played.opponent is None else numbers[played.opponent]
            records.append(
                GameRecord(
                    opponent_id=opponent,
                    opponent_rating=0 if played.opponent is None else ratings[played.opponent],
                    score=played.points,
                    color="black" if played.colour == "black" else "white",
                    round_number=played.round,
                    kind=played.kind,
                )
            )
        players[numbers[entrant.id]] = PlayerTiebreakData(
            numbers[entrant.id],
            entrant.rating,
            sum(played.points for played in histories[entrant.id]),
            records,
        )
    points = {number: player.points for number, player in players.items()}
    encounters = _direct_encounters(histories, numbers, points)
    criteria = [tiebreak.value for tiebreak in spec.tiebreaks]
    ranked = rank_standings_strict(
        players,
        criteria,
        total_rounds=max(through, 1),
        deterministic_keys=dict(zip(players, players, strict=True)),
        ruleset="fide-2026",
        mode="round_robin" if spec.format is Format.ROUND_ROBIN else "swiss",
        pairing_numbers=dict(zip(players, players, strict=True)),
    )
    return tuple(
        Standing(
            rank=position,
            entrant_id=ids[line.player_id],
            points=line.points,
            tiebreaks=tuple(
                (
                    tiebreak,
                    encounters[line.player_id]
                    if tiebreak is TieBreak.DIRECT_ENCOUNTER
                    else float(line.values.get(tiebreak.value, 0.0)),
                )
                for tiebreak in spec.tiebreaks
            ),
        )
        for position, line in enumerate(ranked.players, start=1)
    )


def crosstable(spec: Spec, entrants: Sequence[Entrant], boards: Sequence[Board]) -> tuple[str, ...]:
    """The crosstable of a Swiss or a round robin as lines of text, in the standings'
    order: the rank, the name, each round (``+3r``: won against the player ranked 3 with
    red, ``=`` drawn, ``-`` lost, ``b`` with black; ``+F``/``-F`` a forfeit won or lost,
    ``bye`` the pairing-allocated bye, ``½bye`` a half-point bye asked for, ``.`` not
    played or no result yet), the points and the tie-breaks."""
    lines = standings(spec, entrants, boards)
    through = max((board.round for board in boards), default=0)
    histories = _histories(spec, entrants, boards, through)
    ranks = {line.entrant_id: line.rank for line in lines}
    names = {entrant.id: entrant.name for entrant in entrants}
    width = max((len(name) for name in names.values()), default=4)
    signs = {1.0: "+", 0.5: "=", 0.0: "-"}
    header = [f"{'#':>3}", f"{'Name':<{width}}"]
    header += [f"{number:>4}" for number in range(1, through + 1)]
    widths = [max(6, len(tiebreak.value)) for tiebreak in spec.tiebreaks]
    header += [f"{'Pts':>5}"]
    header += [f"{t.value:>{w}}" for t, w in zip(spec.tiebreaks, widths, strict=True)]
    table = ["  ".join(header)]
    for line in lines:
        cells = []
        for played in histories[line.entrant_id]:
            if played.kind == "played" and played.opponent is not None:
                colour = "r" if played.colour == "red" else "b"
                cell = f"{signs.get(played.points, '?')}{ranks[played.opponent]}{colour}"
            elif played.kind == "forfeit_win":
                cell = "+F"
            elif played.kind == "forfeit_loss":
                cell = "-F"
            elif played.kind == "pairing_bye":
                cell = "bye"
            elif played.kind == "requested_bye":
                cell = "½bye"
            else:
                cell = "."
            cells.append(f"{cell:>4}")
        row = [f"{line.rank:>3}", f"{names[line.entrant_id]:<{width}}", *cells]
        row += [f"{line.points:>5g}"]
        row += [f"{v:>{w}g}" for (_, v), w in zip(line.tiebreaks, widths, strict=True)]
        table.append("  ".join(row))
    return tuple(table)


def _direct_encounters(
    histories: Mapping[str, list[_Played]], numbers: Mapping[str, int], points: Mapping[int, float]
) -> dict[int, float]:
    """What each player scored against the players with as many points (the direct
    encounter's value as shown; tiebreak-core ranks by it within each tied group)."""
    values: dict[int, float] = {}
    for player, history in histories.items():
        own = points[numbers[player]]
        values[numbers[player]] = sum(
            played.points
            for played in history
            if played.kind == "played"
            and played.opponent is not None
            and points[numbers[played.opponent]] == own
        )
    return values


def trf(
    spec: Spec,
    entrants: Sequence[Entrant],
    boards: Sequence[Board],
    *,
    name: str,
    start_date: str = "",
) -> str:
    """The tournament in FIDE's TRF16 (C.04 Annex 2; caissify-pairings writes it): a line
    per player by pairing number, with each round's opponent, colour (w for red) and result
    (``1 = 0``, ``+ -`` for forfeits, ``U`` a pairing-allocated bye, ``H`` a half-point
    bye asked for, ``Z`` a round not played). A half-point bye asked for the round to be
    paired next is written ahead, with its half point in the score, as pairing programs
    read a TRF between rounds (a player with a result for that round is not paired in
    it)."""
    from caissify_pairings.trf import write_trf  # type: ignore[import-untyped]

    through = max((board.round for board in boards), default=0)
    numbers = pairing_numbers(entrants)
    histories = _histories(spec, entrants, boards, through)
    ranks = {line.entrant_id: line.rank for line in standings(spec, entrants, boards)}
    players = []
    for entrant in entrants:
        results: dict[int, dict[str, object]] = {}
        for played in histories[entrant.id]:
            if played.kind == "pairing_bye":
                results[played.round] = {"opponent": None, "result": "U"}
            elif played.kind == "requested_bye":
                results[played.round] = {"opponent": None, "result": "H"}
            elif played.kind == "absent":
                results[played.round] = {"opponent": None, "result": "Z"}
            else:
                assert played.opponent is not None
                code = {1.0: "1", 0.5: "=", 0.0: "0"}[played.points]
                if played.kind != "played":
                    code = "+" if played.points else "-"
                colour = "b" if played.colour == "black" else "w"
                results[played.round] = {
                    "opponent": numbers[played.opponent],
                    "color": "-" if played.colour is None else colour,
                    "result": code,
                }
        score = sum(played.points for played in histories[entrant.id])
        upcoming = through + 1
        if upcoming in entrant.byes and entrant.plays_in(upcoming):
            # (its half point is in the score beside it: a reader checks the two agree)
            results[upcoming] = {"opponent": None, "result": "H"}
            score += HALF_BYE_POINTS
        players.append(
            {
                "starting_number": numbers[entrant.id],
                "name": entrant.name,
                "rating": entrant.rating,
                "score": score,
                "rank": ranks[entrant.id],
                "results": results,
            }
        )
    system = {Format.SWISS: "Dutch", Format.ROUND_ROBIN: "Round robin (Berger)"}.get(
        spec.format, "Arena"
    )
    rounds = spec.rounds if spec.format is Format.SWISS else through
    text: str = write_trf(
        {"name": name, "start_date": start_date, "system": system}, players, rounds
    )
    return text + "\n"


# ---------------------------------------------------------------------- the arena


@dataclass(frozen=True, slots=True)
class ArenaGame:
    """A finished arena game from one player's side: won (True), lost (False) or drawn
    (None); how it ended; the moves this player made; whether this player berserked."""

    won: bool | None
    termination: Termination
    moves: int
    berserk: bool = False


def arena_points(
    games: Sequence[ArenaGame], scoring: ArenaScoring = ARENA_SCORING
) -> tuple[int, ...]:
    """Each game's points for the player who played ``games`` (oldest first), by
    ``scoring``: a win counts ``streak_factor`` times after ``streak_after`` wins in a row;
    a berserker's win of at least ``berserk_moves`` moves gets ``berserk_bonus`` more; a
    draw before ``early_draw_moves`` moves gets nothing; a janggi game won or lost on
    points gets the table's points for that."""
    points: list[int] = []
    streak = 0
    for game in games:
        if game.won is True:
            on_points = game.termination is Termination.POINTS and scoring.win_on_points is not None
            base = (
                scoring.win_on_points
                if on_points and scoring.win_on_points is not None
                else scoring.win
            )
            on_fire = scoring.streak_after > 0 and streak >= scoring.streak_after
            score = base * scoring.streak_factor if on_fire else base
            if game.berserk and game.moves >= scoring.berserk_moves:
                score += scoring.berserk_bonus
            streak += 1
        elif game.won is False:
            on_points = (
                game.termination is Termination.POINTS and scoring.loss_on_points is not None
            )
            score = (
                scoring.loss_on_points
                if on_points and scoring.loss_on_points is not None
                else scoring.loss
            )
            streak = 0
        else:
            score = 0 if game.moves < scoring.early_draw_moves else scoring.draw
            streak = 0
        points.append(score)
    return tuple(points)


@dataclass(frozen=True, slots=True)
class ArenaRecord:
    """An arena player's games so far: colours and opponents (oldest first), and each
    game's :class:`ArenaGame`."""

    entrant_id: str
    colours: tuple[Colour, ...] = ()
    opponents: tuple[str, ...] = ()
    games: tuple[ArenaGame, ...] = ()


def arena_standings(
    entrants: Sequence[Entrant],
    records: Mapping[str, ArenaRecord],
    scoring: ArenaScoring = ARENA_SCORING,
) -> tuple[Standing, ...]:
    """The arena's standings: points, then the higher rating, then the earlier entry."""
    points = {
        player: sum(arena_points(record.games, scoring)) for player, record in records.items()
    }
    return _arena_ranked(entrants, points)


def _arena_ranked(entrants: Sequence[Entrant], points: Mapping[str, int]) -> tuple[Standing, ...]:
    scored = [(points.get(entrant.id, 0), entrant) for entrant in entrants]
    scored.sort(key=lambda item: (-item[0], -item[1].rating, item[1].entered))
    return tuple(
        Standing(rank=rank, entrant_id=entrant.id, points=float(points))
        for rank, (points, entrant) in enumerate(scored, start=1)
    )


class ArenaTally:
    """An arena's points kept from one reading of it to the next (its live pages'), so
    that a reading costs the games ended since the last one, not every game the arena
    has had. It rests on two facts of an arena: a board's result is given once, and a
    player plays one game at a time, so a player's finished games only grow at their end.
    Give it the boards of successive readings of one arena (in board order)."""

    def __init__(self, scoring: ArenaScoring = ARENA_SCORING) -> None:
        self.scoring = scoring
        self._games: dict[str, list[ArenaGame]] = {}
        self._points: dict[str, int] = {}
        #: The boards counted (ended, or a bye), and how many of the first boards are.
        self._counted: set[int] = set()
        self._settled = 0
        #: The players the last reading scored again (what it cost: tests count it).
        self.rescored = 0

    def standings(
        self,
        entrants: Sequence[Entrant],
        boards: Sequence[Board],
        endings: Mapping[int, ArenaEnding],
    ) -> tuple[Standing, ...]:
        """:func:`arena_standings` of these boards, scoring again only the players with
        games ended since the last reading."""
        scored: set[str] = set()
        for board in boards[self._settled :]:
            if board.number in self._counted:
                continue
            if board.black is None:
                self._counted.add(board.number)
                continue
            if board.result is None:
                continue
            ending = endings.get(board.number)
            sides: tuple[tuple[str, Colour], ...] = ((board.red, "red"), (board.black, "black"))
            for player, colour in sides:
                self._games.setdefault(player, []).append(_arena_game(board.result, ending, colour))
                scored.add(player)
            self._counted.add(board.number)
        while self._settled < len(boards) and boards[self._settled].number in self._counted:
            self._counted.discard(boards[self._settled].number)
            self._settled += 1
        for player in scored:
            self._points[player] = sum(arena_points(self._games[player], self.scoring))
        self.rescored = len(scored)
        return _arena_ranked(entrants, self._points)


def arena_pairings(
    entrants: Sequence[Entrant],
    records: Mapping[str, ArenaRecord],
    waiting: Iterable[str],
    scoring: ArenaScoring = ARENA_SCORING,
) -> tuple[tuple[str, str], ...]:
    """The games (red, black) to start now among the ``waiting`` players who are still in:
    a minimum-cost matching on their ranks and ratings, colours never more than three in a
    row (``pairings.arena_matching``). Two players who just played each other are not
    paired again while the arena has anyone else: they wait for the next game to end."""
    in_arena = {entrant.id: entrant for entrant in entrants if entrant.last_round is None}
    ranks = {line.entrant_id: line.rank for line in arena_standings(entrants, records, scoring)}
    numbers = pairing_numbers(entrants)
    ids = {number: entrant_id for entrant_id, number in numbers.items()}
    players = []
    for entrant_id in dict.fromkeys(waiting):
        if entrant_id not in in_arena:
            continue
        record = records.get(entrant_id, ArenaRecord(entrant_id))
        players.append(
            ArenaPlayer(
                number=numbers[entrant_id],
                rank=ranks[entrant_id],
                rating=in_arena[entrant_id].rating,
                colours=record.colours,
                last_opponent=numbers[record.opponents[-1]] if record.opponents else None,
            )
        )
    games = arena_matching(players, players=len(entrants), rematches=len(in_arena) <= 2)
    return tuple((ids[game.red], ids[game.black]) for game in games if game.black is not None)


@dataclass(frozen=True, slots=True)
class ArenaEnding:
    """How an arena board's game ended, beside its result: the termination, the plies
    played (each player's moves are its half) and who berserked."""

    termination: Termination
    plies: int
    #: The colours that berserked (their clocks halved before their first move).
    berserk: frozenset[Colour] = frozenset()


def arena_records(
    boards: Sequence[Board], endings: Mapping[int, ArenaEnding]
) -> dict[str, ArenaRecord]:
    """Each arena player's record from the arena's boards (round 0, in the order they
    started) and the endings of the finished ones by board number; a forfeit counts as a
    win or a loss of no moves, a double forfeit as a loss for both."""
    colours: dict[str, list[Colour]] = {}
    opponents: dict[str, list[str]] = {}
    games: dict[str, list[ArenaGame]] = {}
    for board in sorted(boards, key=lambda board: board.number):
        if board.black is None:
            continue
        ending = endings.get(board.number)
        sides: tuple[tuple[str, str, Colour], ...] = (
            (board.red, board.black, "red"),
            (board.black, board.red, "black"),
        )
        for player, opponent, colour in sides:
            colours.setdefault(player, []).append(colour)
            opponents.setdefault(player, []).append(opponent)
            if board.result is None:
                continue
            games.setdefault(player, []).append(_arena_game(board.result, ending, colour))
    return {
        player: ArenaRecord(
            player,
            tuple(colours[player]),
            tuple(opponents[player]),
            tuple(games.get(player, ())),
        )
        for player in colours
    }


def _arena_game(result: Result, ending: ArenaEnding | None, colour: Colour) -> ArenaGame:
    """A finished arena game from the side of the player of ``colour``."""
    red_points, black_points = result.points()
    points = red_points if colour == "red" else black_points
    won = True if points == 1.0 else False if points == 0.0 else None
    plies = ending.plies if ending is not None else 0
    moves = (plies + 1) // 2 if colour == "red" else plies // 2
    termination = ending.termination if ending is not None else Termination.ABANDONMENT
    berserk = ending is not None and colour in ending.berserk
    return ArenaGame(won, termination, moves, berserk)


def arena_waiting(entrants: Sequence[Entrant], boards: Sequence[Board]) -> list[str]:
    """The arena's players still in, not paused and not playing (no board of theirs
    without a result), in the order they entered."""
    playing = {
        player
        for board in boards
        if board.black is not None and board.result is None
        for player in (board.red, board.black)
    }
    return [
        entrant.id
        for entrant in sorted(entrants, key=lambda entrant: entrant.entered)
        if entrant.last_round is None and not entrant.paused and entrant.id not in playing
    ]
