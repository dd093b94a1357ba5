"""Who plays whom: the FIDE Dutch system (py4swiss), the FIDE Berger tables
(caissify-pairings), and the arena's pairing of waiting players as a minimum-cost matching
(networkx).

Players are named here by their *pairing numbers* (1 is the highest seed); ``rules.py``
maps a tournament's entrants to them. Red moves first, so red is what the pairing
libraries call white.

The libraries are the optional extra ``tournaments`` and are imported inside the
functions, so the rest of the web app loads without them."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from chuhan.errors import ChuhanError

__all__ = [
    "MAX_COLOUR_STREAK",
    "REMATCH_PENALTY",
    "ArenaPlayer",
    "Colour",
    "Float",
    "Pairing",
    "PairingImpossible",
    "SwissPlayer",
    "arena_cost",
    "arena_matching",
    "berger_round",
    "colour_streak",
    "swiss_round",
]

Colour = Literal["red", "black"]
Float = Literal["up", "down", "none"]


class PairingImpossible(ChuhanError):
    """No pairing satisfies the rules (every pair left has met, or is forbidden)."""


@dataclass(frozen=True, slots=True)
class Pairing:
    """A board of a round: ``red`` plays ``black``; ``black`` None is a bye for ``red``."""

    board: int
    red: int
    black: int | None

    @property
    def is_bye(self) -> bool:
        return self.black is None


@dataclass(frozen=True, slots=True)
class SwissPlayer:
    """What the Dutch system needs of a player before a round: the score, the colour and
    float of each round so far (None for a round not played, which is a downfloat: C.04.3
    A.4b), the byes had and forfeits won (C.2: either keeps the player from the bye)."""

    number: int
    rating: int
    score: float
    colours: tuple[Colour | None, ...] = ()
    floats: tuple[Float, ...] = ()
    byes: int = 0


def _generate_pairings(**arguments: Any) -> list[dict[str, Any]]:
    from caissify_pairings import generate_pairings  # type: ignore[import-untyped]

    rows: list[dict[str, Any]] = generate_pairings(**arguments)
    return rows


def _library_player(player: SwissPlayer) -> dict[str, Any]:
    return {
        "id": player.number,
        "name": str(player.number),
        "score": player.score,
        "rating": player.rating,
        "starting_number": player.number,
        "color_hist": [
            "none" if c is None else "white" if c == "red" else "black" for c in player.colours
        ],
        "float_history": list(player.floats),
        "bye_count": player.byes,
    }


def _pairings_of(rows: Iterable[Mapping[str, Any]]) -> tuple[Pairing, ...]:
    found = [
        Pairing(
            board=int(row["table"]),
            red=int(row["white_id"]),
            black=None if row.get("black_id") is None else int(row["black_id"]),
        )
        for row in rows
    ]
    return tuple(sorted(found, key=lambda pairing: pairing.board))


def _unordered(pairs: Iterable[Collection[int]]) -> set[tuple[int, int]]:
    result: set[tuple[int, int]] = set()
    for pair in pairs:
        first, second = sorted(pair)
        result.add((first, second))
    return result


def _colour_preference(colours: Sequence[Colour]) -> tuple[int, int, bool]:
    """C.04.3, A.6, of the colours of the games played (oldest first): the side preferred
    (1 red, -1 black, 0 none), its strength (3 absolute, 2 strong, 1 mild, 0 none), and
    whether the last two games had one colour."""
    difference = colours.count("red") - colours.count("black")
    same_twice = len(colours) > 1 and colours[-1] == colours[-2]
    if difference:
        side = -1 if difference > 0 else 1
    elif colours:
        side = -1 if colours[-1] == "red" else 1
    else:
        side = 0
    if abs(difference) > 1 or same_twice:
        strength = 3
    elif abs(difference) == 1:
        strength = 2
    else:
        strength = 1 if colours else 0
    return side, strength, same_twice


def _dutch_player(
    player: SwissPlayer, opponents: set[int], *, round_number: int, total_rounds: int
) -> Any:
    """py4swiss's view of a player: what C.04.3 reads of the rounds before (A.2 score and
    number, A.4 floats of the last two rounds, A.6 colours, A.7 topscorer, the bye had)."""
    from py4swiss.engines.common import (  # type: ignore[import-untyped]
        ColorPreference,
        ColorPreferenceSide,
        ColorPreferenceStrength,
        Float,
    )
    from py4swiss.engines.dutch.player import Player  # type: ignore[import-untyped]

    floats = {"up": Float.UP, "down": Float.DOWN, "none": Float.NONE}
    played = [colour for colour in player.colours if colour is not None]
    side, strength, same_twice = _colour_preference(played)
    tenths = round(player.score * 10)
    return Player(
        id=player.number,
        number=player.number,
        points=tenths,
        points_with_acceleration=tenths,
        color_preference=ColorPreference(
            side=ColorPreferenceSide(side), strength=ColorPreferenceStrength(strength)
        ),
        color_difference=played.count("red") - played.count("black"),
        color_double=same_twice,
        float_1=floats[player.floats[-1]] if player.floats else Float.NONE,
        float_2=floats[player.floats[-2]] if len(player.floats) > 1 else Float.NONE,
        opponents=opponents,
        colors=[colour == "red" for colour in played],
        bye_received=player.byes > 0,
        # A.7: in the last round, a player with more than half the points played for.
        top_scorer=round_number == total_rounds and 2 * tenths > 10 * (round_number - 1),
    )


def _dutch_pairs(
    players: Sequence[SwissPlayer],
    met: set[tuple[int, int]],
    forbidden: set[tuple[int, int]],
    *,
    round_number: int,
    total_rounds: int,
) -> list[tuple[int, int | None]]:
    """The (red, black) pairs of py4swiss's Dutch engine, black None for the bye, bracket
    by bracket from the top score group (C.04.3, B): py4swiss reads its history from a TRF,
    and chuhan's history is already the summary C.04.3 pairs by, so its players are made
    from it and its bracket pairer driven here."""
    from py4swiss.engines.common import PairingError
    from py4swiss.engines.dutch.bracket import (  # type: ignore[import-untyped]
        BracketPairer,
        Brackets,
    )
    from py4swiss.engines.dutch.validity_matcher import (  # type: ignore[import-untyped]
        ValidityMatcher,
    )

    opponents: dict[int, set[int]] = {player.number: set() for player in players}
    for first, second in met:
        if first in opponents and second in opponents:
            opponents[first].add(second)
            opponents[second].add(first)
    dutch = sorted(
        (
            _dutch_player(
                player,
                opponents[player.number],
                round_number=round_number,
                total_rounds=total_rounds,
            )
            for player in players
        ),
        reverse=True,
    )
    validity = ValidityMatcher(dutch, forbidden)
    if not validity.is_valid_matching():
        raise PairingError(f"round {round_number} cannot be paired")
    brackets = Brackets(dutch, round_number)
    pairs: list[tuple[int, int | None]] = []
    while not brackets.is_finished():
        pairer = BracketPairer(brackets.get_current_bracket(), validity, True)
        # C.04.3, C.2 to C.7: the bracket's pairing of best quality, then its colours.
        pairer.determine_heterogeneous_s1()
        pairer.determine_heterogeneous_s2()
        pairer.determine_homogeneous_exchanges()
        pairer.determine_moves_from_s1_to_s2()
        pairer.determine_moves_from_s2_to_s1()
        pairer.perform_homogeneous_exchanges()
        pairer.transpose_homogeneous_s2()
        if not pairer.check_completion_criterium():
            # A.9: the rest of the players cannot be paired after this bracket's pairing.
            brackets.collapse()
            continue
        found = pairer.get_player_pairs()
        brackets.apply_bracket_pairings(found)
        pairs.extend((red.id, None if red == black else black.id) for red, black in found)
    return pairs


def swiss_round(
    players: Sequence[SwissPlayer],
    *,
    round_number: int,
    total_rounds: int,
    met: Iterable[Collection[int]] = (),
    forbidden: Iterable[Collection[int]] = (),
    bye_points: float = 1.0,
) -> tuple[Pairing, ...]:
    """The boards of round ``round_number`` by the FIDE Dutch system (C.04.3, by py4swiss's
    engine), at most one bye (to the player the system chooses: lowest in the lowest score
    group, never to one who had a bye). ``met`` and ``forbidden`` are pairs that may not
    play each other (a rematch, or two players the organiser keeps apart: family, one
    club). Boards are numbered as C.04.3, D.9 orders them: the higher score of the two,
    then their sum, then the better pairing number; the bye last. ``bye_points`` is in the
    players' scores already. Raises :class:`PairingImpossible` when no pairing satisfies
    the absolute criteria (C.04.3, C.1 to C.3)."""
    from py4swiss.engines.common import PairingError

    del bye_points  # the scores carry it; the Dutch system does not look at it
    if not players:
        raise PairingImpossible(f"no players to pair in round {round_number}")
    try:
        pairs = _dutch_pairs(
            players,
            _unordered(met),
            _unordered(forbidden),
            round_number=round_number,
            total_rounds=total_rounds,
        )
    except PairingError as error:
        raise PairingImpossible(
            f"round {round_number} cannot be paired: every pairing of its "
            f"{len(players)} players makes a rematch, a forbidden pair or a second bye"
        ) from error
    scores = {player.number: player.score for player in players}

    def published_order(pair: tuple[int, int | None]) -> tuple[bool, float, float, int]:
        red, black = pair
        if black is None:
            return (True, 0.0, 0.0, red)
        higher, lower = sorted((red, black), key=lambda n: (-scores[n], n))
        return (False, -scores[higher], -scores[higher] - scores[lower], higher)

    return tuple(
        Pairing(board=board, red=red, black=black)
        for board, (red, black) in enumerate(sorted(pairs, key=published_order), start=1)
    )


def berger_round(count: int, round_number: int, *, cycles: int = 1) -> tuple[Pairing, ...]:
    """The boards of round ``round_number`` of a round robin of ``count`` players by the
    FIDE Berger tables (C.05, Annex 1); an odd count gives one bye a round (the player the
    table pairs with the missing last number). ``cycles`` 2 is a double round robin, the
    second cycle with the colours reversed."""
    if count < 2:
        raise PairingImpossible(f"a round robin needs at least 2 players, not {count}")
    rounds = (count if count % 2 else count - 1) * cycles
    if not 1 <= round_number <= rounds:
        raise PairingImpossible(
            f"a round robin of {count} players in {cycles} cycle(s) has rounds 1 to {rounds},"
            f" not {round_number}"
        )
    players = [SwissPlayer(number=number, rating=0, score=0.0) for number in range(1, count + 1)]
    rows = _generate_pairings(
        system="round_robin",
        players=[_library_player(player) for player in players],
        previous_pairings=set(),
        round_number=round_number,
        total_rounds=rounds,
        cycles=cycles,
    )
    return _pairings_of(rows)


# ---------------------------------------------------------------------- the arena


@dataclass(frozen=True, slots=True)
class ArenaPlayer:
    """A player waiting in an arena: the rank in the standings now (1 is first), the
    rating, the colours of the games played so far (oldest first), the last opponent."""

    number: int
    rank: int
    rating: int
    colours: tuple[Colour, ...] = ()
    last_opponent: int | None = None


#: Never more than this many games in a row with one colour.
MAX_COLOUR_STREAK = 3
#: How many waiting players on each side in the standings a player may be matched with.
ARENA_WINDOW = 16
#: What a rematch of the last opponent costs: more than any rank and rating distance, so
#: a rematch happens only when it is that or leaving players waiting.
REMATCH_PENALTY = 1_000_000


def colour_streak(colours: Sequence[Colour]) -> tuple[Colour | None, int]:
    """The colour of the last games in a row and how many there were."""
    if not colours:
        return None, 0
    last = colours[-1]
    count = 0
    for colour in reversed(colours):
        if colour != last:
            break
        count += 1
    return last, count


def _arena_colours(first: ArenaPlayer, second: ArenaPlayer) -> tuple[int, int] | None:
    """(red, black) for a game of two waiting players that keeps both within
    :data:`MAX_COLOUR_STREAK`, or None when no colours can. The player with more games of a
    colour in a row gets the other; then the one with fewer reds in all gets red; then the
    better ranked."""

    def allowed(player: ArenaPlayer, colour: Colour) -> bool:
        last, count = colour_streak(player.colours)
        return not (last == colour and count >= MAX_COLOUR_STREAK)

    def need_red(player: ArenaPlayer) -> tuple[int, int, int]:
        last, count = colour_streak(player.colours)
        streak = count if last == "black" else -count
        balance = player.colours.count("black") - player.colours.count("red")
        return (streak, balance, -player.rank)

    red, black = (first, second) if need_red(first) >= need_red(second) else (second, first)
    if allowed(red, "red") and allowed(black, "black"):
        return red.number, black.number
    if allowed(black, "red") and allowed(red, "black"):
        return black.number, red.number
    return None


def arena_cost(first: ArenaPlayer, second: ArenaPlayer, *, players: int) -> int:
    """What pairing two waiting players costs: their distance in the standings, weighed
    more near the top (where a mismatch decides the tournament; lichess weighs ranks the
    same way), plus their rating distance, plus :data:`REMATCH_PENALTY` when each was the
    other's last opponent."""
    top = min(first.rank, second.rank)
    weight = 300 + 1700 * max(players - top, 0) // max(players, 1)
    cost = abs(first.rank - second.rank) * weight + abs(first.rating - second.rating)
    if first.last_opponent == second.number or second.last_opponent == first.number:
        cost += REMATCH_PENALTY
    return cost


def arena_matching(
    waiting: Sequence[ArenaPlayer],
    *,
    players: int | None = None,
    window: int = ARENA_WINDOW,
    rematches: bool = True,
) -> tuple[Pairing, ...]:
    """The games of the waiting players: as many as can be made, and of those the set of
    least total :func:`arena_cost` (a minimum-weight maximum-cardinality matching, by
    networkx's blossom algorithm), each with colours that keep both players within
    :data:`MAX_COLOUR_STREAK`. ``players`` is the arena's number of players (for the rank
    weight; the waiting ones if not given). An odd player out waits for the next turn.
    A player is matched only with the ``window`` waiting players nearest in the standings
    on each side: the blossom algorithm's time grows with the cube of the players, and a
    pair further apart costs more than one within it anyway. ``rematches`` False: two
    players who were each other's last opponents are not paired (they wait for others)."""
    import networkx as nx  # type: ignore[import-untyped]

    count = players if players is not None else len(waiting)
    graph = nx.Graph()
    colours: dict[tuple[int, int], tuple[int, int]] = {}
    by_rank = sorted(waiting, key=lambda player: (player.rank, player.number))
    candidates = (
        (first, second)
        for index, first in enumerate(by_rank)
        for second in by_rank[index + 1 : index + 1 + window]
    )
    for first, second in candidates:
        if not rematches and (
            first.last_opponent == second.number or second.last_opponent == first.number
        ):
            continue
        assigned = _arena_colours(first, second)
        if assigned is None:
            continue
        key = (min(first.number, second.number), max(first.number, second.number))
        colours[key] = assigned
        graph.add_edge(key[0], key[1], weight=arena_cost(first, second, players=count))
    if graph.number_of_edges() == 0:
        return ()
    # The blossom algorithm maximises: every edge's weight is its cost taken from a bound
    # above the largest, so a maximum-cardinality matching of largest weight is one of
    # least cost (networkx's min_weight_matching does the same).
    bound = 1 + max(weight for _, _, weight in graph.edges(data="weight"))
    for _, _, data in graph.edges(data=True):
        data["gain"] = bound - data["weight"]
    matched = nx.max_weight_matching(graph, maxcardinality=True, weight="gain")
    games = sorted(colours[(min(a, b), max(a, b))] for a, b in matched)
    ranks = {player.number: player.rank for player in waiting}
    games.sort(key=lambda game: min(ranks[game[0]], ranks[game[1]]))
    return tuple(
        Pairing(board=board, red=red, black=black)
        for board, (red, black) in enumerate(games, start=1)
    )
