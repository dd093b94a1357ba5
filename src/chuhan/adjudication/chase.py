"""What one xiangqi move threatens: checks and chases under the Asian (AXF) rules.

The repetition referee needs, for every move inside a repeated cycle, two facts: did the
move give check, and which enemy pieces did it newly *chase*. A chase is a new threat to
win a piece: the mover now attacks it and could take it for nothing, where before the move
it could not. "Could take it for nothing" means, following the AXF rulebook:

* the capture is legal for the chaser;
* the target is not the king (that is check) and not a soldier still on its own side of
  the river; the attacker is not a king or a soldier (they may chase freely);
* the target is not the same kind of piece able to hit back legally (that is an exchange
  offer, not a chase; a hobbled horse or a pinned piece cannot hit back);
* and either the target is a stronger piece (a chariot attacked by a horse or cannon, a
  chariot, horse or cannon attacked by an elephant or advisor), which counts whatever its
  protection, or it has no *real root*: no defender could legally recapture. A pinned
  defender, a king that would recapture into check or into facing the other king, and any
  recapture that leaves the king in a discovered check are all fake roots.

"Newly" compares the position after the move with the one before it: a threat counts when
the attacking piece did not attack the target before (a direct or discovered attack), or
attacked it but the target was then defended and now is not: a defender was pinned, a
capture would now uncover check, or the move cut every defender off (a screen left or
closed a cannon's line, a piece blocked a chariot's) -- the last one unless the move was a
defence of its own, a block or an escape that ended an enemy attack, which the rules allow.
A move that gives check is judged as a check, not a chase.

Everything here works on the flat placement list of :class:`chuhan.Board` (90 signed piece
codes) and its move ints ``from << 7 | to``, so that judging a cycle costs a few thousand
list look-ups, not a move generation per question.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from chuhan.movegen import Tables, kernel_for, tables_for
from chuhan.squares import FILES, SQUARE_COUNT
from chuhan.variants import ADVISOR, CANNON, ELEPHANT, HORSE, KING, PAWN, ROOK

__all__ = ["MoveThreats", "PieceThreats", "analyse_move"]

Placement = list[int]

_TABLES: Tables = tables_for("xiangqi")
_ATTACKED: Callable[[Placement, int, bool], bool] = kernel_for("xiangqi").attacked

#: Attacker kinds whose attacks on these target kinds count whatever the protection.
_STRONGER_TARGETS = {
    HORSE: frozenset({ROOK}),
    CANNON: frozenset({ROOK}),
    ELEPHANT: frozenset({ROOK, CANNON, HORSE}),
    ADVISOR: frozenset({ROOK, CANNON, HORSE}),
}
_NOTHING: frozenset[int] = frozenset()


def targets(b: Placement, sq: int) -> list[int]:
    """The occupied squares the piece on ``sq`` attacks, whoever stands there.

    Unlike move generation this keeps squares held by the piece's own side: a piece
    "protects" what it would attack if an enemy stood there, which is what roots need.
    """
    piece = b[sq]
    kind = piece if piece > 0 else -piece
    side = piece > 0
    t = _TABLES
    out: list[int] = []
    if kind == ROOK or kind == CANNON:
        need = 1 if kind == ROOK else 2
        for ray in t.rays[sq]:
            seen = 0
            for to in ray:
                if b[to]:
                    seen += 1
                    if seen == need:
                        out.append(to)
                        break
    elif kind == HORSE:
        out = [to for to, leg in t.horse[sq] if b[to] and not b[leg]]
    elif kind == ELEPHANT:
        out = [to for to, eye, _ in t.elephant[side][sq] if b[to] and not b[eye]]
    elif kind == ADVISOR:
        out = [to for to in t.advisor[side][sq] if b[to]]
    elif kind == KING:
        out = [to for to in t.king[side][sq] if b[to]]
    elif kind == PAWN:
        out = [to for to in t.pawn[side][sq] if b[to]]
    return out


def attackers(b: Placement, target: int, side: bool) -> list[int]:
    """Squares of ``side``'s pieces that attack ``target`` (the king only by a step: a king
    facing another one threatens nothing, it only makes the position illegal)."""
    s = 1 if side else -1
    t = _TABLES
    out: list[int] = []
    for ray in t.rays[target]:
        first = True
        for sq in ray:
            q = b[sq]
            if q:
                if first:
                    if q == ROOK * s:
                        out.append(sq)
                    first = False
                else:
                    if q == CANNON * s:
                        out.append(sq)
                    break
    horse = HORSE * s
    out.extend(o for o, leg in t.horse_attackers[target] if b[o] == horse and not b[leg])
    elephant = ELEPHANT * s
    out.extend(
        o for o, eye, _ in t.elephant_attackers[side][target] if b[o] == elephant and not b[eye]
    )
    advisor = ADVISOR * s
    out.extend(o for o in t.advisor[side][target] if b[o] == advisor)
    king = KING * s
    out.extend(o for o in t.king[side][target] if b[o] == king)
    pawn = PAWN * s
    out.extend(o for o in t.pawn_attackers[side][target] if b[o] == pawn)
    return out


def _is_legal(b: Placement, kings: list[int], fr: int, to: int) -> bool:
    """Whether moving the piece on ``fr`` to ``to`` keeps its own king safe (and the
    kings apart). The move is made on ``b`` and unmade."""
    piece = b[fr]
    side = piece > 0
    captured = b[to]
    b[to] = piece
    b[fr] = 0
    king = to if piece == KING or piece == -KING else kings[side]
    safe = not _ATTACKED(b, king, not side)
    b[fr] = piece
    b[to] = captured
    return safe


@dataclass(frozen=True, slots=True)
class _Defence:
    """How the target of one attack is defended.

    ``pseudo`` are the squares of the defenders that could answer the capture if legality
    were ignored (pieces that recapture, or the target itself when it is the same kind as
    its attacker and hits back first); ``legal`` are those whose answer is legal.
    """

    chaseable: bool
    pseudo: frozenset[int]
    legal: frozenset[int]


def _roots(b: Placement, kings: list[int], attacker: int, target: int) -> tuple[set[int], set[int]]:
    """After the piece on ``attacker`` takes the one on ``target``: the target side's
    pieces that attack the capture square, and those of them that may legally recapture
    (the real roots). Made and unmade on ``b``."""
    piece = b[attacker]
    victim = b[target]
    b[target] = piece
    b[attacker] = 0
    pseudo = set(attackers(b, target, victim > 0))
    legal = {root for root in pseudo if _is_legal(b, kings, root, target)}
    b[attacker] = piece
    b[target] = victim
    return pseudo, legal


def _defence(b: Placement, kings: list[int], attacker: int, target: int) -> _Defence:
    """Whether the attack of ``attacker`` on ``target`` threatens to win the target, as far
    as the defender is concerned, and by which defenders it is (or was) held off.

    The attacker's own legality is checked separately, so that a chaser in check does not
    make its old threats look new once it gets out of check."""
    kind = abs(b[attacker])
    victim_kind = abs(b[target])
    if kind == victim_kind and attacker in targets(b, target):
        # An exchange offer, unless the target cannot legally hit back (it is pinned).
        if _is_legal(b, kings, target, attacker):
            return _Defence(False, frozenset({target}), frozenset({target}))
        pseudo, legal = _roots(b, kings, attacker, target)
        return _Defence(not legal, frozenset(pseudo | {target}), frozenset(legal))
    if victim_kind in _STRONGER_TARGETS.get(kind, _NOTHING):
        return _Defence(True, frozenset(), frozenset())
    pseudo, legal = _roots(b, kings, attacker, target)
    return _Defence(not legal, frozenset(pseudo), frozenset(legal))


def _crossed(sq: int, side: bool) -> bool:
    """Whether a soldier of ``side`` on ``sq`` has crossed the river."""
    rank = sq // FILES
    return rank >= 5 if side else rank <= 4


def _can_be_chased(victim: int, sq: int) -> bool:
    kind = abs(victim)
    if kind == KING:
        return False
    return kind != PAWN or _crossed(sq, victim > 0)


@dataclass(frozen=True, slots=True)
class PieceThreats:
    """One enemy piece a move newly chases, and the squares of the pieces chasing it."""

    square: int
    piece: int
    #: Squares of the chasing pieces, after the move.
    attackers: tuple[int, ...]
    #: Their kinds (``ROOK``, ``HORSE``...), sorted.
    attacker_kinds: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MoveThreats:
    """What a move threatens: whether it gives check, and the pieces it newly chases
    (empty for a checking move: a check is judged as a check)."""

    gives_check: bool
    chased: tuple[PieceThreats, ...]


def _threats_of(b: Placement, side: bool) -> set[tuple[int, int]]:
    """Every attack of ``side``'s chasing pieces (not king, not soldier) on an enemy piece
    that could be chased, keyed ``(attacker, target)``."""
    s = 1 if side else -1
    out: set[tuple[int, int]] = set()
    for sq in range(SQUARE_COUNT):
        q = b[sq] * s
        if q <= 0 or q == KING or q == PAWN:
            continue
        for to in targets(b, sq):
            victim = b[to]
            if victim * s < 0 and _can_be_chased(victim, to):
                out.add((sq, to))
    return out


def _ends_an_attack(
    enemy_before: set[tuple[int, int]], b: Placement, side: bool, fr: int, to: int
) -> bool:
    """Whether the move ``fr``-``to`` (already made on ``b``) ended an attack of the other
    side on one of the mover's pieces: it blocked the line, or the attacked piece left."""
    enemy_after = _threats_of(b, not side)
    for attacker, target in enemy_before:
        if attacker == to:
            return True
        if (attacker, to if target == fr else target) not in enemy_after:
            return True
    return False


def analyse_move(b: Placement, kings: list[int], move: int) -> MoveThreats:
    """Play ``move`` (a move code, ``from << 7 | to``) on the placement ``b`` of a xiangqi
    position, judge what it threatens, and restore ``b`` and ``kings``.

    ``kings`` is ``[black king square, red king square]``:
    ``[board.king(False), board.king(True)]`` of a :class:`chuhan.Board`, whose
    ``placement`` ``b`` may be.
    """
    fr = move >> 7
    to = move & 127
    piece = b[fr]
    side = piece > 0
    captured = b[to]
    before = _threats_of(b, side)
    enemy_before: set[tuple[int, int]] | None = None
    defensive: bool | None = None

    b[to] = piece
    b[fr] = 0
    moved_king = piece == KING or piece == -KING
    if moved_king:
        kings[side] = to
    try:
        if _ATTACKED(b, kings[not side], side):
            return MoveThreats(True, ())
        after = _threats_of(b, side)
        chased: dict[int, list[int]] = {}
        for attacker, target in after:
            defence = _defence(b, kings, attacker, target)
            if not defence.chaseable:
                continue
            if not _is_legal(b, kings, attacker, target):
                continue
            old_square = fr if attacker == to else attacker
            if (old_square, target) in before:
                # It attacked the target before the move. The threat is new only if the
                # defenders that could answer before may no longer answer: pinned now,
                # the capture would uncover check, or cut off by the move.
                b[fr] = piece
                b[to] = captured
                if moved_king:
                    kings[side] = fr
                old = _defence(b, kings, old_square, target)
                cut_off = not old.chaseable and not old.legal & defence.pseudo
                if cut_off and enemy_before is None:
                    enemy_before = _threats_of(b, not side)
                b[to] = piece
                b[fr] = 0
                if moved_king:
                    kings[side] = to
                if old.chaseable:
                    continue
                if cut_off and enemy_before is not None:
                    # Every defender that could answer before is cut off now: the move
                    # itself opened or closed the defender's line. That wins the target
                    # unless the move was a defence of its own (a block or an escape
                    # from an enemy attack), which the rules allow.
                    if defensive is None:
                        defensive = _ends_an_attack(enemy_before, b, side, fr, to)
                    if defensive:
                        continue
            chased.setdefault(target, []).append(attacker)
        return MoveThreats(
            False,
            tuple(
                PieceThreats(
                    target,
                    b[target],
                    tuple(sorted(squares)),
                    tuple(sorted({abs(b[sq]) for sq in squares})),
                )
                for target, squares in sorted(chased.items())
            ),
        )
    finally:
        b[fr] = piece
        b[to] = captured
        if moved_king:
            kings[side] = fr
