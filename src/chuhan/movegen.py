"""Precomputed move tables for the two games.

Everything the generators in :mod:`chuhan.board` need about the geometry is computed once
per game here: the rays of chariots and cannons (janggi adds the palace diagonals), horse
targets paired with their leg point, elephant targets with their blocking points, palace
steps and soldier steps for each side, and the same tables turned round ("which squares
attack this one") for check detection from the king outward.

Side index: tables indexed by side use ``True`` (1) for the first mover (xiangqi red,
janggi Cho, the bottom side) and ``False`` (0) for the other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Final

from chuhan.squares import FILES, RANKS, SQUARE_COUNT

Ray = tuple[int, ...]
SideTable = tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]

ORTHOGONAL: Final[tuple[tuple[int, int], ...]] = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAGONAL: Final[tuple[tuple[int, int], ...]] = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def _on_board(f: int, r: int) -> bool:
    return 0 <= f < FILES and 0 <= r < RANKS


def _sq(f: int, r: int) -> int:
    return r * FILES + f


def _palace_ranks(side: bool) -> range:
    return range(0, 3) if side else range(7, 10)


def in_palace(f: int, r: int, side: bool | None = None) -> bool:
    """Whether file ``f``, rank ``r`` is in a palace (``side``'s, or either when None)."""
    if not 3 <= f <= 5:
        return False
    if side is None:
        return r <= 2 or r >= 7
    return r in _palace_ranks(side)


def _palace_diagonal_neighbours(f: int, r: int) -> list[tuple[int, int]]:
    """Points joined to (f, r) by a palace diagonal line (janggi): corners <-> centre."""
    result: list[tuple[int, int]] = []
    for centre_rank in (1, 8):
        if (f, r) == (4, centre_rank):
            result += [(4 + df, centre_rank + dr) for df, dr in DIAGONAL]
        elif f in (3, 5) and r in (centre_rank - 1, centre_rank + 1):
            result.append((4, centre_rank))
    return result


@dataclass(frozen=True)
class Tables:
    """The move and attack tables of one game (see the module docstring)."""

    game: str
    #: Rays from each square: orthogonal, then (janggi) palace diagonals.
    rays: tuple[tuple[Ray, ...], ...]
    #: For each square, which of its rays lie on the same file (for kings facing).
    file_rays: tuple[tuple[Ray, ...], ...]
    #: (target, leg) pairs for a horse on each square.
    horse: tuple[tuple[tuple[int, int], ...], ...]
    #: (horse square, leg) pairs from which a horse attacks each square.
    horse_attackers: tuple[tuple[tuple[int, int], ...], ...]
    #: (target, block, block) triples for an elephant of each side on each square.
    elephant: tuple[tuple[tuple[tuple[int, int, int], ...], ...], ...]
    #: (elephant square, block, block) triples from which an elephant of the given
    #: side attacks each square.
    elephant_attackers: tuple[tuple[tuple[tuple[int, int, int], ...], ...], ...]
    king: SideTable
    advisor: SideTable
    pawn: SideTable
    #: Squares from which a soldier of the given side attacks each square.
    pawn_attackers: SideTable


def _build_rays(janggi: bool) -> tuple[tuple[tuple[Ray, ...], ...], tuple[tuple[Ray, ...], ...]]:
    rays: list[tuple[Ray, ...]] = []
    file_rays: list[tuple[Ray, ...]] = []
    for sq in range(SQUARE_COUNT):
        f, r = sq % FILES, sq // FILES
        here: list[Ray] = []
        vertical: list[Ray] = []
        for df, dr in ORTHOGONAL:
            ray = []
            nf, nr = f + df, r + dr
            while _on_board(nf, nr):
                ray.append(_sq(nf, nr))
                nf, nr = nf + df, nr + dr
            if ray:
                here.append(tuple(ray))
                if df == 0:
                    vertical.append(tuple(ray))
        if janggi and in_palace(f, r):
            for df, dr in DIAGONAL:
                ray = []
                nf, nr = f + df, r + dr
                cur = (f, r)
                while (nf, nr) in _palace_diagonal_neighbours(*cur):
                    ray.append(_sq(nf, nr))
                    cur = (nf, nr)
                    nf, nr = nf + df, nr + dr
                if ray:
                    here.append(tuple(ray))
        rays.append(tuple(here))
        file_rays.append(tuple(vertical))
    return tuple(rays), tuple(file_rays)


def _build_horse() -> tuple[tuple[tuple[int, int], ...], ...]:
    table = []
    for sq in range(SQUARE_COUNT):
        f, r = sq % FILES, sq // FILES
        moves = []
        for df, dr in ORTHOGONAL:
            leg = (f + df, r + dr)
            if not _on_board(*leg):
                continue
            for pf, pr in ((dr, df), (-dr, -df)):  # the two perpendicular units
                tf, tr = f + 2 * df + pf, r + 2 * dr + pr
                if _on_board(tf, tr):
                    moves.append((_sq(tf, tr), _sq(*leg)))
        table.append(tuple(moves))
    return tuple(table)


def _build_elephant(janggi: bool, side: bool) -> tuple[tuple[tuple[int, int, int], ...], ...]:
    table = []
    for sq in range(SQUARE_COUNT):
        f, r = sq % FILES, sq // FILES
        moves = []
        if janggi:
            # One step orthogonally, then two diagonally outward; both points passed must
            # be empty.
            for df, dr in ORTHOGONAL:
                for pf, pr in ((dr, df), (-dr, -df)):
                    b1 = (f + df, r + dr)
                    b2 = (b1[0] + df + pf, b1[1] + dr + pr)
                    target = (b2[0] + df + pf, b2[1] + dr + pr)
                    if _on_board(*target):
                        moves.append((_sq(*target), _sq(*b1), _sq(*b2)))
        else:
            own_half = range(0, 5) if side else range(5, 10)
            for df, dr in DIAGONAL:
                target = (f + 2 * df, r + 2 * dr)
                if _on_board(*target) and target[1] in own_half:
                    eye = _sq(f + df, r + dr)
                    moves.append((_sq(*target), eye, eye))
        table.append(tuple(moves))
    return tuple(table)


def _build_palace_steps(janggi: bool, side: bool, kind: str) -> tuple[tuple[int, ...], ...]:
    table = []
    for sq in range(SQUARE_COUNT):
        f, r = sq % FILES, sq // FILES
        targets: list[tuple[int, int]] = []
        if in_palace(f, r, side):
            if janggi or kind == "king":
                targets += [(f + df, r + dr) for df, dr in ORTHOGONAL]
            if janggi or kind == "advisor":
                targets += (
                    _palace_diagonal_neighbours(f, r)
                    if janggi
                    else [(f + df, r + dr) for df, dr in DIAGONAL]
                )
        table.append(tuple(_sq(*t) for t in targets if _on_board(*t) and in_palace(*t, side)))
    return tuple(table)


def _build_pawn(janggi: bool, side: bool) -> tuple[tuple[int, ...], ...]:
    forward = 1 if side else -1
    table = []
    for sq in range(SQUARE_COUNT):
        f, r = sq % FILES, sq // FILES
        targets = [(f, r + forward)]
        crossed = r >= 5 if side else r <= 4
        if janggi or crossed:
            targets += [(f - 1, r), (f + 1, r)]
        if janggi and in_palace(f, r, not side):
            for nf, nr in _palace_diagonal_neighbours(f, r):
                if nr == r + forward:
                    targets.append((nf, nr))
        table.append(tuple(_sq(*t) for t in targets if _on_board(*t)))
    return tuple(table)


def _invert(table: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
    inverse: list[list[int]] = [[] for _ in range(SQUARE_COUNT)]
    for origin, targets in enumerate(table):
        for target in targets:
            inverse[target].append(origin)
    return tuple(tuple(x) for x in inverse)


@cache
def tables_for(game: str) -> Tables:
    """The tables of ``"xiangqi"`` or ``"janggi"`` (built once, then cached)."""
    janggi = game == "janggi"
    rays, file_rays = _build_rays(janggi)
    horse = _build_horse()
    horse_attackers: list[list[tuple[int, int]]] = [[] for _ in range(SQUARE_COUNT)]
    for origin, moves in enumerate(horse):
        for target, leg in moves:
            horse_attackers[target].append((origin, leg))
    elephant = (_build_elephant(janggi, False), _build_elephant(janggi, True))
    elephant_attackers = []
    for side_table in elephant:
        inverse: list[list[tuple[int, int, int]]] = [[] for _ in range(SQUARE_COUNT)]
        for origin, emoves in enumerate(side_table):
            for target, b1, b2 in emoves:
                inverse[target].append((origin, b1, b2))
        elephant_attackers.append(tuple(tuple(x) for x in inverse))
    pawn = (_build_pawn(janggi, False), _build_pawn(janggi, True))
    return Tables(
        game=game,
        rays=rays,
        file_rays=file_rays,
        horse=horse,
        horse_attackers=tuple(tuple(x) for x in horse_attackers),
        elephant=elephant,
        elephant_attackers=tuple(elephant_attackers),
        king=(
            _build_palace_steps(janggi, False, "king"),
            _build_palace_steps(janggi, True, "king"),
        ),
        advisor=(
            _build_palace_steps(janggi, False, "advisor"),
            _build_palace_steps(janggi, True, "advisor"),
        ),
        pawn=pawn,
        pawn_attackers=(_invert(pawn[0]), _invert(pawn[1])),
    )


# ---------------------------------------------------------------------------- kernels
#
# The hot functions of move generation, built once per game as closures over that game's
# tables, so the inner loops read only locals. They work on a placement list ``b`` of 90
# signed piece codes and move ints ``from << 7 | to``.

Placement = list[int]
Origins = tuple[int, ...]
#: Every square, as the origins of a whole generation: a tuple, which the compiled loops
#: walk by index (a range object there is Python's iterator protocol, an int at a time).
ALL_SQUARES: Final[tuple[int, ...]] = tuple(range(SQUARE_COUNT))

# Piece types, repeated here as plain constants so the kernels need no import from
# chuhan.variants (which imports nothing from here either).
# Final: mypyc, compiling this module, puts their values in the code, not a dict lookup.
_KING: Final = 1
_ADVISOR: Final = 2
_ELEPHANT: Final = 3
_HORSE: Final = 4
_ROOK: Final = 5
_CANNON: Final = 6
_PAWN: Final = 7


AttackedFn = Callable[[Placement, int, bool], bool]
GenerateFn = Callable[[Placement, bool, Origins, set[int], list[int] | None], list[int]]
ShieldsFn = Callable[[Placement, int, bool], tuple[bool, set[int], set[int]]]
ThreatFn = Callable[[Placement, bool, list[int] | None], bool]
CapturesFn = Callable[[Placement, bool], list[int]]


@dataclass(frozen=True)
class Kernel:
    """The generator, attack test and shield analysis of one game."""

    #: ``attacked(b, target, by_first)``: whether ``by_first``'s side attacks ``target``
    #: (xiangqi: a king on the same open file counts, which forbids facing kings).
    attacked: AttackedFn
    #: ``generate(b, side, origins, exclude, threats)``: pseudo-legal moves of ``side``'s
    #: pieces on ``origins``, skipping the squares in ``exclude``. Janggi: when
    #: ``threats`` is a list, the squares on ``origins`` of enemy pieces that could reach
    #: ``side``'s palace are appended to it (the scan visits them anyway).
    generate: GenerateFn
    #: ``shields(b, king, side) -> (in_check, shields, screens)``; see Board.
    shields: ShieldsFn
    #: ``palace_threatened(b, side, candidates)``: whether an enemy piece (among the
    #: squares ``candidates``, or anywhere when None) could attack a point of ``side``'s
    #: palace after one move of ``side``. When none can, no move can expose the king.
    #: Always True in xiangqi, where the other king on the palace files is a threat.
    palace_threatened: ThreatFn
    #: ``captures(b, side)``: the pseudo-legal captures of ``side`` (same moves as
    #: ``generate`` keeps that land on an enemy piece).
    captures: CapturesFn


def _make_attacked(t: Tables, janggi: bool) -> AttackedFn:
    rays = t.rays
    horse_attackers = t.horse_attackers
    pawn_attackers = t.pawn_attackers
    elephant_attackers = t.elephant_attackers

    if not janggi:

        def attacked_xiangqi(b: Placement, target: int, by_first: bool) -> bool:
            rook = _ROOK if by_first else -_ROOK
            cannon = _CANNON if by_first else -_CANNON
            king = _KING if by_first else -_KING
            for ray in rays[target]:
                screen = False
                for sq in ray:
                    q = b[sq]
                    if q:
                        if screen:
                            if q == cannon:
                                return True
                            break
                        if q == rook or q == king:
                            return True
                        screen = True
            horse = _HORSE if by_first else -_HORSE
            for origin, leg in horse_attackers[target]:
                if b[origin] == horse and not b[leg]:
                    return True
            pawn = _PAWN if by_first else -_PAWN
            for origin in pawn_attackers[by_first][target]:
                if b[origin] == pawn:
                    return True
            return False

        return attacked_xiangqi

    def attacked_janggi(b: Placement, target: int, by_first: bool) -> bool:
        rook = _ROOK if by_first else -_ROOK
        cannon = _CANNON if by_first else -_CANNON
        for ray in rays[target]:
            screen = False
            for sq in ray:
                q = b[sq]
                if q:
                    if screen:
                        if q == cannon:
                            return True
                        break
                    if q == rook:
                        return True
                    if q == _CANNON or q == -_CANNON:
                        break  # a cannon is never a screen in janggi
                    screen = True
        horse = _HORSE if by_first else -_HORSE
        for origin, leg in horse_attackers[target]:
            if b[origin] == horse and not b[leg]:
                return True
        pawn = _PAWN if by_first else -_PAWN
        for origin in pawn_attackers[by_first][target]:
            if b[origin] == pawn:
                return True
        elephant = _ELEPHANT if by_first else -_ELEPHANT
        for origin, b1, b2 in elephant_attackers[by_first][target]:
            if b[origin] == elephant and not b[b1] and not b[b2]:
                return True
        return False

    return attacked_janggi


def _make_generate(t: Tables, janggi: bool) -> GenerateFn:
    rays = t.rays
    horse = t.horse
    elephant_by_side = t.elephant
    advisor_by_side = t.advisor
    king_by_side = t.king
    pawn_by_side = t.pawn
    # Typed as a tuple of any length: as tuple[int, int, ... (90 times)], mypyc would unbox
    # all 90 ints wherever it is used (15,000 lines of C, most of the compile's time).
    no_watch: tuple[int, ...] = (0,) * SQUARE_COUNT
    watch_by_side = _palace_watch(t) if janggi else (no_watch, no_watch)

    def generate(
        b: Placement, side: bool, origins: Origins, exclude: set[int], threats: list[int] | None
    ) -> list[int]:
        out: list[int] = []
        watch = watch_by_side[side]
        app = out.append
        elephant = elephant_by_side[side]
        advisor = advisor_by_side[side]
        king = king_by_side[side]
        pawn = pawn_by_side[side]
        # The side's own pieces are the codes from own_low to own_high (signs compared,
        # not multiplied: mypyc multiplies a negative int on Python's slow path).
        own_low, own_high = (1, 7) if side else (-7, -1)
        for fr in origins:
            piece = b[fr]
            kind = piece if side else -piece
            if kind <= 0:
                if kind and threats is not None and watch[fr] >> -kind & 1:
                    threats.append(fr)
                continue
            if fr in exclude:
                continue
            base = fr << 7
            if kind == _PAWN:
                for to in pawn[fr]:
                    if not own_low <= b[to] <= own_high:
                        app(base | to)
            elif kind == _ROOK:
                for ray in rays[fr]:
                    for to in ray:
                        q = b[to]
                        if not q:
                            app(base | to)
                        else:
                            if not own_low <= q <= own_high:
                                app(base | to)
                            break
            elif kind == _HORSE:
                for to, leg in horse[fr]:
                    if not b[leg] and not own_low <= b[to] <= own_high:
                        app(base | to)
            elif kind == _CANNON:
                if janggi:
                    for ray in rays[fr]:
                        screen = False
                        for to in ray:
                            q = b[to]
                            if not screen:
                                if q:
                                    if q == _CANNON or q == -_CANNON:
                                        break
                                    screen = True
                            elif not q:
                                app(base | to)
                            else:
                                if q != _CANNON and q != -_CANNON and not own_low <= q <= own_high:
                                    app(base | to)
                                break
                else:
                    for ray in rays[fr]:
                        screen = False
                        for to in ray:
                            q = b[to]
                            if not screen:
                                if not q:
                                    app(base | to)
                                else:
                                    screen = True
                            elif q:
                                if not own_low <= q <= own_high:
                                    app(base | to)
                                break
            elif kind == _ELEPHANT:
                for to, b1, b2 in elephant[fr]:
                    if not b[b1] and not b[b2] and not own_low <= b[to] <= own_high:
                        app(base | to)
            elif kind == _ADVISOR:
                for to in advisor[fr]:
                    if not own_low <= b[to] <= own_high:
                        app(base | to)
            else:
                for to in king[fr]:
                    if not own_low <= b[to] <= own_high:
                        app(base | to)
        return out

    return generate


def _make_captures(t: Tables, janggi: bool) -> CapturesFn:
    """The capture-only twin of ``generate`` (the quiescence search's generator): the
    same tables, only moves onto an enemy piece."""
    rays = t.rays
    horse = t.horse
    elephant_by_side = t.elephant
    advisor_by_side = t.advisor
    king_by_side = t.king
    pawn_by_side = t.pawn

    def captures(b: Placement, side: bool) -> list[int]:
        out: list[int] = []
        app = out.append
        elephant = elephant_by_side[side]
        advisor = advisor_by_side[side]
        king = king_by_side[side]
        pawn = pawn_by_side[side]
        # The opponent's pieces are the codes from enemy_low to enemy_high (see generate).
        enemy_low, enemy_high = (-7, -1) if side else (1, 7)
        for fr in range(SQUARE_COUNT):
            piece = b[fr]
            kind = piece if side else -piece
            if kind <= 0:
                continue
            base = fr << 7
            if kind == _PAWN:
                for to in pawn[fr]:
                    if enemy_low <= b[to] <= enemy_high:
                        app(base | to)
            elif kind == _ROOK:
                for ray in rays[fr]:
                    for to in ray:
                        q = b[to]
                        if q:
                            if enemy_low <= q <= enemy_high:
                                app(base | to)
                            break
            elif kind == _HORSE:
                for to, leg in horse[fr]:
                    if not b[leg] and enemy_low <= b[to] <= enemy_high:
                        app(base | to)
            elif kind == _CANNON:
                for ray in rays[fr]:
                    screen = False
                    for to in ray:
                        q = b[to]
                        if not q:
                            continue
                        if not screen:
                            if janggi and (q == _CANNON or q == -_CANNON):
                                break
                            screen = True
                        else:
                            if enemy_low <= q <= enemy_high and not (
                                janggi and (q == _CANNON or q == -_CANNON)
                            ):
                                app(base | to)
                            break
            elif kind == _ELEPHANT:
                for to, b1, b2 in elephant[fr]:
                    if not b[b1] and not b[b2] and enemy_low <= b[to] <= enemy_high:
                        app(base | to)
            elif kind == _ADVISOR:
                for to in advisor[fr]:
                    if enemy_low <= b[to] <= enemy_high:
                        app(base | to)
            else:
                for to in king[fr]:
                    if enemy_low <= b[to] <= enemy_high:
                        app(base | to)
        return out

    return captures


def _make_shields(t: Tables, janggi: bool) -> ShieldsFn:
    rays = t.rays
    horse_attackers = t.horse_attackers
    pawn_attackers = t.pawn_attackers
    elephant_attackers = t.elephant_attackers

    def shields(b: Placement, k: int, side: bool) -> tuple[bool, set[int], set[int]]:
        """From ``side``'s king on ``k`` outward: whether it is in check, the squares of
        its own pieces whose moving away might expose it (the king's own square
        included), and the empty squares where a piece of its own would become an enemy
        cannon's screen. A superset is safe: those moves are tested by playing them."""
        # The enemy pieces' codes, and the side's own pieces: the codes from own_low to
        # own_high (signs compared, not multiplied: see generate).
        rook = -_ROOK if side else _ROOK
        cannon = -_CANNON if side else _CANNON
        flying_king = 99 if janggi else -_KING if side else _KING
        own_low, own_high = (1, 7) if side else (-7, -1)
        check = False
        found: set[int] = {k}
        screens: set[int] = set()
        for ray in rays[k]:
            first = second = -1
            between: list[int] = []
            for sq in ray:
                q = b[sq]
                if not q:
                    if first < 0:
                        between.append(sq)
                    continue
                if first < 0:
                    first = sq
                    if q == rook or q == flying_king:
                        check = True
                        break
                    if q == cannon:
                        screens.update(between)
                        if janggi:
                            # Capturing this cannon puts a piece where a cannon stood,
                            # and a piece can screen a cannon behind it where a cannon
                            # could not.
                            screens.add(sq)
                            break
                        continue  # a xiangqi cannon may screen another cannon behind it
                    if janggi and (q == _CANNON or q == -_CANNON):
                        # Not a screen; what lies beyond matters only if it leaves.
                        if own_low <= q <= own_high:
                            found.add(sq)
                        continue
                elif second < 0:
                    second = sq
                    if q == cannon and not (janggi and b[first] in (_CANNON, -_CANNON)):
                        check = True
                        break
                    if q == rook or q == flying_king:
                        if own_low <= b[first] <= own_high:
                            found.add(first)
                        break
                else:
                    if q == cannon:
                        if own_low <= b[first] <= own_high:
                            found.add(first)
                        if own_low <= b[second] <= own_high:
                            found.add(second)
                    break
        horse = -_HORSE if side else _HORSE
        for origin, leg in horse_attackers[k]:
            if b[origin] == horse:
                if not b[leg]:
                    check = True
                elif own_low <= b[leg] <= own_high:
                    found.add(leg)
        pawn = -_PAWN if side else _PAWN
        for origin in pawn_attackers[not side][k]:
            if b[origin] == pawn:
                check = True
        if janggi:
            elephant = -_ELEPHANT if side else _ELEPHANT
            for origin, b1, b2 in elephant_attackers[not side][k]:
                if b[origin] == elephant:
                    q1 = b[b1]
                    q2 = b[b2]
                    if not q1 and not q2:
                        check = True
                    else:
                        if own_low <= q1 <= own_high:
                            found.add(b1)
                        if own_low <= q2 <= own_high:
                            found.add(b2)
        return check, found, screens

    return shields


def _palace_watch(t: Tables) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """For each side, a bitmask per square: bit ``kind`` is set when an enemy piece of
    that kind standing there could attack some point of that side's palace (janggi)."""
    watch: list[tuple[int, ...]] = []
    for side in (False, True):
        enemy = not side
        masks = [0] * SQUARE_COUNT
        palace_ranks = set(_palace_ranks(side))
        for sq in range(SQUARE_COUNT):
            if 3 <= sq % FILES <= 5 or sq // FILES in palace_ranks:
                masks[sq] |= 1 << _ROOK | 1 << _CANNON
        for target in (_sq(f, r) for f in (3, 4, 5) for r in _palace_ranks(side)):
            for origin, _leg in t.horse_attackers[target]:
                masks[origin] |= 1 << _HORSE
            for origin, _b1, _b2 in t.elephant_attackers[enemy][target]:
                masks[origin] |= 1 << _ELEPHANT
            for origin in t.pawn_attackers[enemy][target]:
                masks[origin] |= 1 << _PAWN
        watch.append(tuple(masks))
    return watch[0], watch[1]


def _lines_to_palace(side: bool) -> tuple[tuple[int, ...] | None, ...]:
    """For each square, the squares strictly between it and ``side``'s palace along the
    file (files d-f) or the rank (the palace ranks); None inside the palace or off both."""
    ranks = _palace_ranks(side)
    result: list[tuple[int, ...] | None] = []
    for sq in range(SQUARE_COUNT):
        f, r = sq % FILES, sq // FILES
        if 3 <= f <= 5 and r in ranks:
            result.append(None)
        elif 3 <= f <= 5:
            edge = ranks[-1] if r > ranks[-1] else ranks[0]
            step = 1 if edge > r else -1
            result.append(tuple(_sq(f, x) for x in range(r + step, edge, step)))
        elif r in ranks:
            edge = 3 if f < 3 else 5
            step = 1 if edge > f else -1
            result.append(tuple(_sq(x, r) for x in range(f + step, edge, step)))
        else:
            result.append(None)
    return tuple(result)


def _make_palace_threatened(t: Tables, janggi: bool) -> ThreatFn:
    if not janggi:

        def always(b: Placement, side: bool, candidates: list[int] | None) -> bool:
            return True

        return always

    watch = _palace_watch(t)
    watched = tuple(tuple(sq for sq, mask in enumerate(masks) if mask) for masks in watch)
    lines = (_lines_to_palace(False), _lines_to_palace(True))

    def palace_threatened(b: Placement, side: bool, candidates: list[int] | None) -> bool:
        """Whether an enemy piece could attack a point of ``side``'s palace after any one
        move of ``side``: horses, elephants and soldiers within reach always could; a
        chariot or cannon outside the palace only if so few pieces stand between it and
        the palace that removing one could open its line (a chariot: at most one; a
        cannon, which needs exactly one screen: at most two)."""
        masks = watch[side]
        between_table = lines[side]
        for sq in watched[side] if candidates is None else candidates:
            piece = b[sq]
            kind = -piece if side else piece  # (an enemy piece's kind, positive)
            if kind <= 0 or not masks[sq] >> kind & 1:
                continue
            if kind != _ROOK and kind != _CANNON:
                return True
            between = between_table[sq]
            if between is None:
                return True
            blockers = 0
            for point in between:
                if b[point]:
                    blockers += 1
            if blockers <= (1 if kind == _ROOK else 2):
                return True
        return False

    return palace_threatened


@cache
def evasion_points(janggi: bool, king: int) -> bytes:
    """Where a move other than the king's must start or land to end a check of the king on
    ``king`` (1 in the returned bytes, by square): on the king's file or rank (taking or
    blocking a chariot, cannon or soldier, or a cannon's screen moving away), on the two
    diagonal points nearest it in each direction (a horse's leg, a janggi elephant's
    path, a palace diagonal), or a horse's leap from it (taking the horse), in janggi an
    elephant's leap too. A superset of the evasions: each is still tested."""
    kf, kr = king % FILES, king // FILES
    points = []
    for sq in range(SQUARE_COUNT):
        df, dr = abs(sq % FILES - kf), abs(sq // FILES - kr)
        points.append(
            df == 0 or dr == 0 or df == dr <= 2 or df * dr == 2 or (janggi and df * dr == 6)
        )
    return bytes(points)


@cache
def kernel_for(game: str) -> Kernel:
    """The kernels of ``"xiangqi"`` or ``"janggi"`` (built once, then cached)."""
    t = tables_for(game)
    janggi = game == "janggi"
    return Kernel(
        attacked=_make_attacked(t, janggi),
        generate=_make_generate(t, janggi),
        shields=_make_shields(t, janggi),
        palace_threatened=_make_palace_threatened(t, janggi),
        captures=_make_captures(t, janggi),
    )
