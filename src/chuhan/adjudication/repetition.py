"""The xiangqi repetition referee: perpetual check, perpetual chase, or a draw.

When a position (placement and side to move) occurs for the n-th time, the moves since
its first counted occurrence form the repeated cycle. Each side's own moves in it are
classified (see :mod:`chuhan.adjudication.chase` for what one move threatens):

* **perpetual check**: every move of that side gives check;
* **perpetual chase**: every move of that side newly chases the *same* enemy piece, followed
  as it flees. Chasing different pieces in turn is allowed, and so is alternating check
  and chase under the Asian rules;
* anything else (idle moves, blocks, offers, mate threats) is allowed.

Asian (AXF) rules: one side forbidden and the other not, the forbidden side loses; both
forbidden at the same level, a draw; perpetual check outranks perpetual chase, so a side
that checks perpetually against a perpetual chaser loses; neither forbidden, a draw.
The Chinese association's rules are stricter: a side whose every move newly threatens mate,
or whose every move checks, chases or threatens mate in a mix, is forbidden too, ranked
with perpetual chase (below perpetual check).

Every verdict carries a ``reason`` a player can read: which side, which pieces, which
moves. Moves are numbered as in the game score: a move number counts a red move and the
black reply.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from chuhan.adjudication.chase import MoveThreats, analyse_move
from chuhan.adjudication.outcome import Termination
from chuhan.squares import SQUARE_NAMES, Move
from chuhan.variants import PIECE_NAMES

if TYPE_CHECKING:
    from chuhan.board import Board

__all__ = [
    "ChasedPiece",
    "RepetitionVerdict",
    "SideConduct",
    "SideResult",
    "judge_repetition",
]

#: A side's result as a ruling gives it: ``"win"``, ``"loss"`` or ``"draw"``.
SideResult = Literal["win", "loss", "draw"]

_RULE_SETS = {"asian": "asian", "axf": "asian", "chinese": "chinese"}


def _side_name(side: bool) -> str:
    return "red" if side else "black"


def _kinds_phrase(kinds: tuple[int, ...]) -> str:
    """``"the chariot"`` or ``"the chariot and the horse"``."""
    names = [f"the {PIECE_NAMES[kind]}" for kind in kinds]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


@dataclass(frozen=True, slots=True)
class ChasedPiece:
    """An enemy piece chased on every move of a side in the cycle."""

    #: The signed piece code (positive: red).
    piece: int
    #: The squares it stood on while chased, in order (more than one if it fled).
    squares: tuple[int, ...]
    #: Kinds of the pieces that chased it.
    attacker_kinds: tuple[int, ...]

    def describe(self) -> str:
        """``"the black horse on c7"``, with the points it fled to if it moved."""
        text = f"the {_side_name(self.piece > 0)} {PIECE_NAMES[abs(self.piece)]}"
        text += f" on {SQUARE_NAMES[self.squares[0]]}"
        fled = [SQUARE_NAMES[sq] for sq in dict.fromkeys(self.squares) if sq != self.squares[0]]
        if fled:
            text += f" (fleeing to {', '.join(fled)})"
        return text


@dataclass(frozen=True, slots=True)
class SideConduct:
    """How one side behaved in the repeated cycle."""

    side: bool
    #: The side's own moves in the cycle, oldest first.
    moves: tuple[Move, ...]
    #: Game move numbers of its first and last move in the cycle.
    first_move_number: int
    last_move_number: int
    #: Every move gave check.
    perpetual_check: bool
    #: Kinds of the pieces that gave those checks.
    checking_kinds: tuple[int, ...]
    #: Pieces chased on every move (empty when there is no perpetual chase).
    chased: tuple[ChasedPiece, ...]
    #: Every move threatened mate next move (judged under Chinese rules only).
    perpetual_mate_threat: bool
    #: Every move checked, chased or threatened mate, mixing them (forbidden under
    #: Chinese rules only; the Asian rules allow one check, one chase).
    mixed_check_chase: bool

    @property
    def perpetual_chase(self) -> bool:
        return bool(self.chased)

    def span(self) -> str:
        """``"move 31 to move 37"``."""
        return f"move {self.first_move_number} to move {self.last_move_number}"


@dataclass(frozen=True, slots=True)
class RepetitionVerdict:
    """The ruling on a repeated position."""

    #: How the repetition ends the game: :attr:`~Termination.PERPETUAL_CHECK`,
    #: :attr:`~Termination.PERPETUAL_CHASE` or :attr:`~Termination.REPETITION_DRAW`; under
    #: the Chinese rules also :attr:`~Termination.PERPETUAL_MATE_THREAT` and
    #: :attr:`~Termination.MIXED_PERPETUAL_ATTACK`.
    termination: Termination
    #: The winning side (``True`` red), or ``None`` for a draw.
    winner: bool | None
    #: The sides that broke a repetition rule (one, both, or none).
    violators: tuple[bool, ...]
    #: A sentence for the players: who, with which pieces, on which moves, and why.
    reason: str
    red: SideConduct
    black: SideConduct
    #: How many times the position has occurred.
    occurrences: int
    #: Ply index (into the board's move stack) of the first move of the judged cycle.
    cycle_start_ply: int

    def conduct(self, side: bool) -> SideConduct:
        return self.red if side else self.black

    def result_for(self, side: bool) -> SideResult:
        """``"win"``, ``"loss"`` or ``"draw"`` from ``side``'s point of view."""
        if self.winner is None:
            return "draw"
        return "win" if self.winner == side else "loss"


@dataclass(slots=True)
class _Ply:
    side: bool
    move: int
    move_number: int
    threats: MoveThreats
    checking_kinds: tuple[int, ...]
    threatens_mate: bool


def _can_mate(board: Board) -> bool:
    """Whether the side to move has a move that mates at once."""
    for move in board.legal_move_codes():
        board.push_code(move)
        mate = board.is_checkmate()
        board.pop_code()
        if mate:
            return True
    return False


def _threatens_mate(before: Board, after: Board) -> bool:
    """Whether the move from ``before`` to ``after`` creates a threat of mate: the mover
    could mate next if the other side passed, and could not mate already. A threat that
    stood before the move is no new threat: the move was idle as far as mate goes. An
    answer to check threatens nothing new either: it was forced, and a threat it
    uncovers was only held back by the check."""
    if before.is_check():
        return False
    probe = after.copy(stack=False)
    probe.turn = not probe.turn
    return _can_mate(probe) and not _can_mate(before.copy(stack=False))


def _replay(board: Board, start: int, end: int, rules: str) -> list[_Ply]:
    """Analyse the moves of ``board``'s stack from ply ``start`` up to ``end``, on a copy.
    Mate threats cost a search of every reply, so they are looked for only under the
    Chinese rules, the only ones that forbid them."""
    work = board.copy()
    for _ in range(board.ply - start):
        work.pop_code()
    plies: list[_Ply] = []
    for move in board.move_stack_codes()[start:end]:
        side = work.turn
        number = work.fullmove_number
        before = work.copy(stack=False) if rules == "chinese" else None
        threats = analyse_move(work.placement, [work.king(False), work.king(True)], move)
        work.push_code(move)
        kinds: tuple[int, ...] = ()
        mate_threat = False
        if threats.gives_check:
            kinds = tuple(sorted({abs(work.piece_code_at(sq)) for sq in work.checkers()}))
        elif before is not None:
            mate_threat = _threatens_mate(before, work)
        plies.append(_Ply(side, move, number, threats, kinds, mate_threat))
    return plies


def _conduct(plies: list[_Ply], side: bool) -> SideConduct:
    """Classify ``side``'s moves in the cycle, following chased pieces as they flee."""
    own = [ply for ply in plies if ply.side == side]
    perpetual_check = bool(own) and all(ply.threats.gives_check for ply in own)
    mate_threats = bool(own) and all(ply.threatens_mate for ply in own)
    relentless = bool(own) and all(
        ply.threats.gives_check or ply.threats.chased or ply.threatens_mate for ply in own
    )
    mixed = relentless and any(ply.threats.gives_check or ply.threatens_mate for ply in own)
    # The pieces chased on every move so far, by current square:
    # (piece, squares it stood on, kinds of its chasers).
    running: dict[int, tuple[int, list[int], set[int]]] | None = None
    checking: set[int] = set()
    for ply in plies:
        if ply.side != side:
            if running:
                fr, to = ply.move >> 7, ply.move & 127
                running.pop(to, None)  # a captured chaser's target cannot be there
                entry = running.pop(fr, None)
                if entry is not None:
                    entry[1].append(to)
                    running[to] = entry
            continue
        checking.update(ply.checking_kinds)
        current = {threat.square: threat for threat in ply.threats.chased}
        if running is None:
            running = {sq: (threat.piece, [sq], set()) for sq, threat in current.items()}
        else:
            running = {sq: entry for sq, entry in running.items() if sq in current}
        for sq, entry in running.items():
            entry[2].update(current[sq].attacker_kinds)
        if not running:
            break
    chased: tuple[ChasedPiece, ...] = ()
    if running and not perpetual_check:
        chased = tuple(
            ChasedPiece(piece, tuple(squares), tuple(sorted(kinds)))
            for piece, squares, kinds in running.values()
        )
    return SideConduct(
        side=side,
        moves=tuple(Move(ply.move >> 7, ply.move & 127) for ply in own),
        first_move_number=own[0].move_number if own else 0,
        last_move_number=own[-1].move_number if own else 0,
        perpetual_check=perpetual_check,
        checking_kinds=tuple(sorted(checking)) if perpetual_check else (),
        chased=chased,
        perpetual_mate_threat=mate_threats,
        mixed_check_chase=mixed and not (perpetual_check or chased or mate_threats),
    )


def _level(conduct: SideConduct, rules: str) -> int:
    """How badly a side broke the rules: 2 perpetual check, 1 perpetual chase (and, under
    Chinese rules, perpetual mate threats or a mixed check-and-chase cycle), 0 allowed."""
    if conduct.perpetual_check:
        return 2
    if conduct.perpetual_chase:
        return 1
    if rules == "chinese" and (conduct.perpetual_mate_threat or conduct.mixed_check_chase):
        return 1
    return 0


def _offence(conduct: SideConduct) -> str:
    """What a side did, as a clause: ``"Red chased the black horse on c7 with the chariot
    on every move from move 31 to move 37 (perpetual chase)"``."""
    who = _side_name(conduct.side).capitalize()
    if conduct.perpetual_check:
        pieces = _kinds_phrase(conduct.checking_kinds)
        return (
            f"{who} gave check with {pieces} on every move from {conduct.span()} (perpetual check)"
        )
    if conduct.chased:
        victims = " and ".join(piece.describe() for piece in conduct.chased)
        kinds = tuple(sorted({k for piece in conduct.chased for k in piece.attacker_kinds}))
        return (
            f"{who} chased {victims} with {_kinds_phrase(kinds)} on every move "
            f"from {conduct.span()} (perpetual chase)"
        )
    if conduct.perpetual_mate_threat:
        return (
            f"{who} threatened mate on every move from {conduct.span()} "
            "(perpetual mate threat, forbidden under Chinese rules)"
        )
    return (
        f"{who} checked, chased or threatened mate on every move from {conduct.span()} "
        "(a mixed cycle of checks and threats, forbidden under Chinese rules)"
    )


def _termination(conduct: SideConduct) -> Termination:
    if conduct.perpetual_check:
        return Termination.PERPETUAL_CHECK
    if conduct.perpetual_chase:
        return Termination.PERPETUAL_CHASE
    if conduct.perpetual_mate_threat:
        return Termination.PERPETUAL_MATE_THREAT
    return Termination.MIXED_PERPETUAL_ATTACK


def _verdict(
    red: SideConduct, black: SideConduct, rules: str, occurrences: int, start: int
) -> RepetitionVerdict:
    levels = {True: _level(red, rules), False: _level(black, rules)}
    conducts = {True: red, False: black}
    violators = tuple(side for side in (True, False) if levels[side])
    top = max(levels.values())
    termination: Termination
    if top == 0:
        winner = None
        termination = Termination.REPETITION_DRAW
        reason = (
            f"Draw by repetition: the position occurred {occurrences} times and neither "
            "side checked or chased perpetually."
        )
    elif levels[True] == levels[False]:
        winner = None
        termination = Termination.REPETITION_DRAW
        reason = (
            f"Draw by repetition: both sides broke the same rule: {_offence(red)}, "
            f"and {_offence(black)}."
        )
    else:
        loser = levels[True] > levels[False]
        winner = not loser
        termination = _termination(conducts[loser])
        reason = f"{_side_name(winner).capitalize()} wins: {_offence(conducts[loser])}"
        if levels[winner]:
            reason += f"; this outranks the reply: {_offence(conducts[winner])}"
        reason += "."
    return RepetitionVerdict(
        termination=termination,
        winner=winner,
        violators=violators,
        reason=reason,
        red=red,
        black=black,
        occurrences=occurrences,
        cycle_start_ply=start,
    )


def judge_repetition(
    board: Board, *, repetitions: int = 3, rules: str | None = None
) -> RepetitionVerdict | None:
    """Rule on the current position if it has now occurred ``repetitions`` times.

    Returns ``None`` while the position has occurred fewer times. ``rules`` is
    ``"asian"`` (AXF, the default for xiangqi) or ``"chinese"``; by default it follows
    the board's rule set. The cycle judged runs from the position's first occurrence to
    its ``repetitions``-th, so every move of both sides in between must keep up the
    offence for it to count as perpetual. If the position has occurred more often (the
    game went on past the ruling), the ruling is the one due at the ``repetitions``-th
    occurrence.
    """
    if board.variant.is_janggi:
        raise ValueError(
            f"judge_repetition rules on xiangqi positions; {board.variant.name} repetition "
            "is settled by its own rule set"
        )
    if repetitions < 2:
        raise ValueError(f"repetitions must be at least 2, not {repetitions}")
    chosen = rules if rules is not None else board.variant.rules
    if chosen not in _RULE_SETS:
        raise ValueError(
            f"unknown repetition rules {chosen!r}: expected one of {sorted(_RULE_SETS)}"
        )
    rule_set = _RULE_SETS[chosen]
    key = board.zobrist_hash()
    keys = board.position_keys()
    if keys.count(key) + 1 < repetitions:  # (the referee asks after every move)
        return None
    occurrences = [ply for ply, earlier in enumerate(keys) if earlier == key]
    occurrences.append(len(keys))
    if len(occurrences) < repetitions:
        return None
    # The game ended when the position first reached the count; a board that played on
    # past it is judged on the cycle as it stood then, so that what happened in the
    # first repetitions (say, chasing two pieces in turn) is not forgotten.
    start, end = occurrences[0], occurrences[repetitions - 1]
    plies = _replay(board, start, end, rule_set)
    return _verdict(_conduct(plies, True), _conduct(plies, False), rule_set, repetitions, start)
