"""Static evaluation for xiangqi and janggi.

The score is in centipawn-like units from the first mover's point of view (xiangqi red,
janggi Cho); :func:`evaluate` turns it to the side to move. It adds up:

- material and a piece-square value, folded into one table per piece code (fitted by
  ``tools/texel.py``: xiangqi's to master games, in :mod:`chuhan.search.texel_xiangqi`,
  janggi's to games of the engine against itself and of Fairy-Stockfish against itself,
  in :mod:`chuhan.search.texel_janggi`;
  :func:`_placement_table`'s rules of thumb are where both fits started);
- mobility of chariots (free points along their lines) and horses (free legs: a blocked
  leg is a blocked horse), and the xiangqi elephant's blocked eyes;
- king safety: attackers near the enemy palace, weighted by how many palace defenders
  (advisors/guards, elephants) are gone;
- janggi: Han's 1.5 point bonus (it decides settled games).

The weights were fitted to game results by ``tools/texel.py``: xiangqi's to master games,
janggi's to engine games (Han's bonus is a rule, not fitted).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from chuhan.movegen import tables_for
from chuhan.search import texel_janggi, texel_xiangqi
from chuhan.squares import FILES, SQUARE_COUNT
from chuhan.variants import ADVISOR, CANNON, ELEPHANT, HORSE, KING, PAWN, ROOK

__all__ = [
    "EvalWeights",
    "Evaluator",
    "evaluate",
    "evaluate_with",
    "evaluator_for",
    "features",
    "placement_score",
    "placement_table",
    "positional_score",
    "weight_vector",
]


@dataclass(frozen=True)
class EvalWeights:
    """The tunable numbers of the evaluation (one set per game)."""

    #: Material by piece type (index 1–7: king .. pawn; index 0 unused).
    material: tuple[int, ...]
    #: A soldier that has crossed the river (xiangqi) is worth this much more.
    pawn_crossed: int = 0
    #: Scale of the positional tables, percent.
    placement: int = 100
    #: Per free point along a chariot's lines.
    rook_mobility: int = 3
    #: Per free leg of a horse (unblocked), and a penalty for a horse with none.
    horse_leg: int = 6
    horse_trapped: int = 20
    #: Per blocked eye of a xiangqi elephant.
    elephant_eye: int = 6
    #: King safety: weight of each attacker type near the enemy palace (index like
    #: material), and the extra factor (percent) per missing palace defender.
    attack: tuple[int, ...] = (0, 0, 0, 0, 10, 16, 12, 8)
    defender_missing: int = 35
    #: The side to move's bonus.
    tempo: int = 10
    #: Janggi: Han's points bonus, in eval units.
    second_player_bonus: int = 0
    #: The positional tables by piece type (index 1–7, index 0 empty), each 90 values
    #: by square from the first mover's side (rank 0 its back rank), as fitted by
    #: ``tools/texel.py``; empty: the tables of :func:`_placement_table`'s rules of thumb.
    tables: tuple[tuple[int, ...], ...] = ()


# Fitted by tools/texel.py to the results of CCPD's master games (its module says how;
# bench/strength.md, the match that kept them).
XIANGQI_WEIGHTS = EvalWeights(
    material=texel_xiangqi.MATERIAL,
    pawn_crossed=texel_xiangqi.PAWN_CROSSED,
    rook_mobility=texel_xiangqi.ROOK_MOBILITY,
    horse_leg=texel_xiangqi.HORSE_LEG,
    horse_trapped=texel_xiangqi.HORSE_TRAPPED,
    elephant_eye=texel_xiangqi.ELEPHANT_EYE,
    attack=texel_xiangqi.ATTACK,
    defender_missing=texel_xiangqi.DEFENDER_MISSING,
    tempo=texel_xiangqi.TEMPO,
    tables=texel_xiangqi.TABLES,
)

# Fitted by tools/texel.py to the results of games of the engine against itself and of
# Fairy-Stockfish against itself (its module says how; bench/strength.md, the match that
# kept them). Han's bonus is a rule.
JANGGI_WEIGHTS = EvalWeights(
    material=texel_janggi.MATERIAL,
    rook_mobility=texel_janggi.ROOK_MOBILITY,
    horse_leg=texel_janggi.HORSE_LEG,
    horse_trapped=texel_janggi.HORSE_TRAPPED,
    elephant_eye=texel_janggi.ELEPHANT_EYE,
    attack=texel_janggi.ATTACK,
    defender_missing=texel_janggi.DEFENDER_MISSING,
    tempo=texel_janggi.TEMPO,
    second_player_bonus=texel_janggi.SECOND_PLAYER_BONUS,
    tables=texel_janggi.TABLES,
)


def _placement_table(game: str, piece: int) -> list[int]:
    """Positional values of ``piece`` (a type) for the first mover, by square."""
    janggi = game == "janggi"
    table = []
    for sq in range(SQUARE_COUNT):
        f, r = sq % FILES, sq // FILES
        c = abs(f - 4)  # distance from the centre file
        v = 0
        if piece == PAWN:
            if janggi:
                # Soldiers gain as they advance; the enemy palace files are best.
                v = 6 * max(0, r - 3) + (12 if 3 <= f <= 5 and r >= 6 else 0) - 2 * c
                if r == 9:
                    v -= 15
            elif r >= 5:
                v = 12 * (4 - c) // 2 + (0, 0, 0, 0, 0, 0, 20, 30, 20, -25)[r]
            else:
                v = 10 if (r == 4 and c == 0) else 0
        elif piece == HORSE:
            v = 24 - 6 * c - 5 * abs(r - 6) + (8 if 3 <= r <= 7 else 0)
            if f in (0, 8):
                v -= 15
            if r == 0:
                v -= 10
        elif piece == ROOK:
            v = 8 if r >= 5 else 0
            v += 6 if r in (6, 7) else 0
            v += 6 if f in (3, 4, 5) else 0
        elif piece == CANNON:
            if janggi:
                v = 10 if (3 <= f <= 5 and r <= 2) else 0
                v += 6 if r in (5, 6) else 0
            else:
                v = (14 if c == 0 else 0) + (4 if r <= 2 else 0) - (8 if r >= 7 and r != 9 else 0)
                v += 6 if r == 9 and c <= 1 else 0
        elif piece == ADVISOR:
            v = 10 if (f == 4 and r == 1) else 0
        elif piece == ELEPHANT:
            if janggi:
                v = 4 - 2 * c + (6 if 2 <= r <= 5 else 0)
            else:
                v = 10 if (f == 4 and r == 2) else 0
        elif piece == KING:
            if janggi:
                v = 10 if (f == 4 and r == 1) else (-10 if r == 2 else 0)
            else:
                v = -12 * r - 6 * c
        table.append(v)
    return table


def placement_table(game: str, piece: int, weights: EvalWeights) -> list[int]:
    """The positional values of ``piece`` (a type) for the first mover, by square: the
    weights' own table where they have one, else the rules of thumb."""
    if weights.tables:
        return list(weights.tables[piece])
    return _placement_table(game, piece)


@dataclass(frozen=True)
class Evaluator:
    """The evaluation of one game with one set of weights."""

    game: str
    weights: EvalWeights
    #: ``values[piece][sq]``: material + placement for the signed piece code (index by
    #: the code itself: negative codes read from the second half), from the first
    #: mover's point of view (second-mover pieces negative).
    values: list[list[int]] = field(repr=False)
    #: ``attack_values[piece][sq]``: the attack weight of the signed piece code on the
    #: point if it stands in the zone around the enemy palace, else 0 (indexed as
    #: ``values``; positive for both sides).
    attack_values: list[list[int]] = field(repr=False)

    def __call__(self, b: list[int], turn: bool) -> int:
        return evaluate_with(self, b, turn)


@cache
def evaluator_for(game: str, weights: EvalWeights | None = None) -> Evaluator:
    if weights is None:
        weights = JANGGI_WEIGHTS if game == "janggi" else XIANGQI_WEIGHTS
    values: list[list[int]] = [[0] * SQUARE_COUNT for _ in range(15)]
    for piece in range(1, 8):
        table = placement_table(game, piece, weights)
        for sq in range(SQUARE_COUNT):
            v = weights.material[piece] + table[sq] * weights.placement // 100
            if piece == PAWN and game != "janggi" and sq // FILES >= 5:
                v += weights.pawn_crossed
            values[piece][sq] = v
            # The second mover's piece on the point turned half round.
            values[15 - piece][SQUARE_COUNT - 1 - sq] = -v
    zone_second, zone_first = _geometry(game)[3]
    attack_values: list[list[int]] = [[0] * SQUARE_COUNT for _ in range(15)]
    for piece in range(1, 8):
        for sq in range(SQUARE_COUNT):
            if sq in zone_second:
                attack_values[piece][sq] = weights.attack[piece]
            if sq in zone_first:
                attack_values[15 - piece][sq] = weights.attack[piece]
    return Evaluator(game, weights, values, attack_values)


@cache
def _geometry(
    game: str,
) -> tuple[
    tuple[tuple[tuple[int, ...], ...], ...],
    tuple[tuple[tuple[int, int], ...], ...],
    tuple[tuple[tuple[tuple[int, int, int], ...], ...], ...],
    tuple[frozenset[int], frozenset[int]],
]:
    t = tables_for(game)
    # Orthogonal rays only (not janggi's palace diagonals), for chariot mobility.
    rays = tuple(
        tuple(
            ray
            for ray in sq_rays
            if all(x % FILES == sq % FILES or x // FILES == sq // FILES for x in ray)
        )
        for sq, sq_rays in enumerate(t.rays)
    )
    # The zone around each palace where attackers count: files c-g, the three palace
    # ranks and the one in front.
    zone_second = frozenset(r * FILES + f for r in range(6, 10) for f in range(2, 7))
    zone_first = frozenset(r * FILES + f for r in range(0, 4) for f in range(2, 7))
    # Elephant moves by side (indexed by ``piece > 0``): xiangqi elephants stay home.
    return rays, t.horse, t.elephant, (zone_second, zone_first)


def placement_score(ev: Evaluator, b: list[int]) -> int:
    """Material and piece-square values of placement ``b`` (first mover's view). The
    search keeps this sum up to date move by move and adds :func:`positional_score`."""
    values = ev.values
    score = 0
    for sq in range(SQUARE_COUNT):
        p = b[sq]
        if p:
            score += values[p][sq]
    return score


@cache
def _scan_tables(
    game: str,
) -> tuple[
    tuple[tuple[tuple[int, ...], ...], ...],
    tuple[tuple[tuple[int, int], ...], ...],
    tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]],
]:
    """What :func:`positional_score` reads per piece, in its shortest form: the chariot's
    orthogonal rays; each horse square's legs with the number of targets each serves
    (a leg counts once per target it opens, as in :func:`features`); each elephant
    square's eyes by side (indexed by ``piece > 0``)."""
    rays, horse_table, elephant_table, _ = _geometry(game)
    horse_legs = []
    for moves in horse_table:
        counts: dict[int, int] = {}
        for _, leg in moves:
            counts[leg] = counts.get(leg, 0) + 1
        horse_legs.append(tuple(counts.items()))
    eyes = tuple(
        tuple(tuple(eye for _, eye, _ in moves) for moves in side_table)
        for side_table in elephant_table
    )
    return rays, tuple(horse_legs), (eyes[0], eyes[1])


def positional_score(ev: Evaluator, b: list[int]) -> int:
    """Mobility, blocking and king-safety terms, and janggi's Han bonus (first mover's
    view): everything but material and placement."""
    w = ev.weights
    rays, horse_legs, elephant_eyes = _scan_tables(ev.game)
    attack_values = ev.attack_values
    eye_weight = w.elephant_eye
    rook_free = 0
    legs = 0
    eyes = 0
    # Attack weight of the first mover's pieces near the second mover's palace, and the
    # reverse; advisors + elephants of each side.
    attack_by_first = attack_by_second = 0
    defenders_first = defenders_second = 0
    trapped = -w.horse_trapped // max(1, w.horse_leg)
    for sq, p in enumerate(b):
        if not p:
            continue
        a = attack_values[p][sq]
        if a:
            if p > 0:
                attack_by_first += a
            else:
                attack_by_second += a
        kind = p if p > 0 else -p
        if kind == ROOK:
            n = 0
            for ray in rays[sq]:
                for t in ray:
                    if b[t]:
                        break
                    n += 1
            rook_free += n if p > 0 else -n
        elif kind == HORSE:
            free = 0
            for leg, targets in horse_legs[sq]:
                if not b[leg]:
                    free += targets
            # Each leg serves two targets.
            free = free // 2 or trapped
            legs += free if p > 0 else -free
        elif kind == ADVISOR or kind == ELEPHANT:
            if p > 0:
                defenders_first += 1
            else:
                defenders_second += 1
            if kind == ELEPHANT and eye_weight:
                blocked = 0
                for eye in elephant_eyes[p > 0][sq]:
                    if b[eye]:
                        blocked += 1
                eyes += blocked if p > 0 else -blocked
    score = rook_free * w.rook_mobility + legs * w.horse_leg - eyes * eye_weight
    dm = w.defender_missing
    # Attack on the second mover's palace helps the first mover, and the reverse.
    score += attack_by_first * (100 + dm * (4 - defenders_second)) // 100
    score -= attack_by_second * (100 + dm * (4 - defenders_first)) // 100
    return score - w.second_player_bonus


def evaluate_with(ev: Evaluator, b: list[int], turn: bool) -> int:
    """The score of placement ``b`` for the side to move (``turn`` True: first mover)."""
    score = placement_score(ev, b) + positional_score(ev, b)
    return (score if turn else -score) + ev.weights.tempo


#: The names of :func:`features`, in order.
FEATURE_NAMES = (
    "advisor",
    "elephant",
    "horse",
    "rook",
    "cannon",
    "pawn",
    "pawn_crossed",
    "placement",
    "rook_mobility",
    "horse_leg",
    "elephant_eye",
    "attack_horse",
    "attack_rook",
    "attack_cannon",
    "attack_pawn",
    "tempo",
    "second_player_bonus",
)


def features(ev: Evaluator, b: list[int], turn: bool) -> list[float]:
    """The evaluation as features for fitting the weights: ``evaluate_with`` is (up to
    integer rounding) the dot product of these with :func:`weight_vector` — the tests
    check it. First mover's view, except ``tempo`` (+1 for the side to move's sign)."""
    w = ev.weights
    game = ev.game
    rays, horse_table, elephant_table, zones = _geometry(game)
    zone_second, zone_first = zones
    counts = [0.0] * 8
    crossed = 0.0
    placement = 0.0
    rook_free = legs = eyes = 0.0
    attack = [[0] * 8, [0] * 8]
    defenders = [0, 0]
    tables = {k: placement_table(game, k, w) for k in range(1, 8)}
    trapped = -w.horse_trapped // max(1, w.horse_leg)
    for sq in range(SQUARE_COUNT):
        p = b[sq]
        if not p:
            continue
        kind = abs(p)
        sign = 1 if p > 0 else -1
        own = sq if p > 0 else SQUARE_COUNT - 1 - sq
        counts[kind] += sign
        placement += sign * tables[kind][own]
        if kind == PAWN and game != "janggi" and own // FILES >= 5:
            crossed += sign
        if kind == ROOK:
            n = 0
            for ray in rays[sq]:
                for t in ray:
                    if b[t]:
                        break
                    n += 1
            rook_free += sign * n
        elif kind == HORSE:
            free = sum(1 for _, leg in horse_table[sq] if not b[leg]) // 2 or trapped
            legs += sign * free
        elif kind in (ADVISOR, ELEPHANT):
            defenders[p > 0] += 1
            if kind == ELEPHANT:
                eyes += sign * sum(1 for _, eye, _ in elephant_table[p > 0][sq] if b[eye])
        if p > 0 and sq in zone_second:
            attack[0][kind] += 1
        elif p < 0 and sq in zone_first:
            attack[1][kind] += 1
    dm = w.defender_missing
    scale = [(100 + dm * (4 - defenders[i])) / 100 for i in (0, 1)]
    attacks = [attack[0][k] * scale[0] - attack[1][k] * scale[1] for k in (4, 5, 6, 7)]
    return [
        *counts[2:8],
        crossed,
        placement / 100,
        rook_free,
        legs,
        -eyes,
        *attacks,
        1.0 if turn else -1.0,
        -1.0,
    ]


def weight_vector(w: EvalWeights) -> list[float]:
    """The weights in the order of :data:`FEATURE_NAMES`."""
    return [
        *map(float, w.material[2:8]),
        float(w.pawn_crossed),
        float(w.placement),
        float(w.rook_mobility),
        float(w.horse_leg),
        float(w.elephant_eye),
        *(float(w.attack[k]) for k in (4, 5, 6, 7)),
        float(w.tempo),
        float(w.second_player_bonus),
    ]


def evaluate(board: object) -> int:
    """The static evaluation of a :class:`~chuhan.board.Board` for the side to move."""
    from chuhan.board import Board

    if not isinstance(board, Board):
        raise TypeError(f"evaluate() takes a Board, not {type(board).__name__}")
    ev = evaluator_for(board.variant.game)
    return evaluate_with(ev, board.placement, board.turn)
