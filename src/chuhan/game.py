"""A game: the start (and, in janggi, the setup choice), the moves, the events beyond moves
(resignation, draw offers, takebacks, flag fall) and the result with its reason.

:meth:`Game.outcome` is the referee. It applies the rule set of the board's variant:
mate and stalemate, repetition (xiangqi: the AXF perpetual check and chase rules of
:mod:`chuhan.adjudication`; janggi: per rule set), the move limits, insufficient material,
and janggi's endings by passing, bikjang and point counting.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chuhan.adjudication import Outcome, Termination, judge_repetition
from chuhan.board import Board
from chuhan.errors import ChuhanError
from chuhan.notation import parse_move
from chuhan.squares import SQUARE_NAMES, Move
from chuhan.variants import (
    CANNON,
    HORSE,
    PAWN,
    ROOK,
    Variant,
    get_variant,
    janggi_start_fen,
    normalize_arrangement,
)

__all__ = [
    "COUNTED_CHECKS",
    "Game",
    "GameError",
    "MoveLimitCount",
    "Outcome",
    "Termination",
    "janggi_points",
]


class GameError(ChuhanError):
    """An action the game's state does not allow (moving after the end, a setup choice
    out of turn, accepting a draw nobody offered...)."""


def janggi_points(board: Board) -> dict[str, float]:
    """Material points of both janggi sides, Han's bonus (1.5 points) included."""
    values = board.variant.piece_points
    cho = han = 0.0
    for piece in board.pieces().values():
        if piece > 0:
            cho += values[piece]
        else:
            han += values[-piece]
    return {"cho": cho, "han": han + board.variant.second_player_bonus}


def _title(variant: Variant, side: bool) -> str:
    return variant.side_name(side).capitalize()


@dataclass
class Game:
    """A game from its start to its result. Create it with :meth:`new`."""

    variant: Variant
    board: Board
    #: Janggi arrangements chosen (``{"han": "마상상마", "cho": ...}``), in choice order.
    setup: dict[str, str] = field(default_factory=dict)
    #: Occurrences of a position that trigger the repetition verdict (xiangqi: 3).
    repetitions: int = 3
    _setup_phase: bool = False
    _event_outcome: Outcome | None = None
    #: The side whose draw offer stands, and the side asking for a takeback, if any.
    _draw_offer: bool | None = None
    _takeback_request: bool | None = None
    #: What :meth:`_judgment` worked out last, and the board state it was worked out on.
    _judged: list[Any] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def new(
        cls,
        variant: str | Variant = "xiangqi",
        rules: str | None = None,
        *,
        fen: str | None = None,
        setup: dict[str, str] | None = None,
        repetitions: int = 3,
    ) -> Game:
        """Start a game. Janggi without a FEN begins with the setup phase (Han chooses an
        arrangement, then Cho) unless ``setup`` gives both choices."""
        spec = get_variant(variant, rules)
        if repetitions < 2:
            raise GameError(f"repetitions must be at least 2, got {repetitions}")
        game = cls(spec, Board(fen, variant=spec), repetitions=repetitions)
        if spec.is_janggi and fen is None:
            game._setup_phase = True
            if setup:
                for side_name in ("han", "cho"):
                    if side_name not in setup:
                        raise GameError(f"janggi setup {setup!r} lacks the {side_name} choice")
                    game.choose_setup(side_name == "cho", setup[side_name])
        elif setup:
            raise GameError("a setup choice applies only to a janggi game from the start")
        return game

    # ------------------------------------------------------------------ setup

    @property
    def setup_pending(self) -> bool | None:
        """Janggi: the side whose arrangement is awaited (Han first, then Cho), else None."""
        if not self._setup_phase:
            return None
        if "han" not in self.setup:
            return False
        if "cho" not in self.setup:
            return True
        return None

    def choose_setup(self, side: bool, arrangement: str) -> None:
        """Record ``side``'s janggi arrangement (Hangul ``마상마상``, or letters ``HEHE``)."""
        pending = self.setup_pending
        if pending is None:
            raise GameError("there is no setup choice to make in this game")
        if side != pending:
            raise GameError(
                f"{_title(self.variant, pending)} chooses the arrangement now, not "
                f"{_title(self.variant, side)}"
            )
        try:
            self.setup[self.variant.side_name(side)] = normalize_arrangement(arrangement)
        except ChuhanError as error:
            raise GameError(str(error)) from None
        cho = self.setup.get("cho", "마상상마")
        han = self.setup["han"]
        self.board.set_fen(janggi_start_fen(cho=cho, han=han))
        if "cho" in self.setup:
            self._setup_phase = False

    # ------------------------------------------------------------------ moves

    def _require_not_over(self) -> None:
        if self.outcome() is not None:
            self._draw_offer = self._takeback_request = None
            raise GameError("the game is over")

    def _require_playable(self) -> None:
        self._require_not_over()
        if self.setup_pending is not None:
            raise GameError(
                f"the setup is not finished: {_title(self.variant, self.setup_pending)} "
                "must choose an arrangement first"
            )

    def push(self, move: Move) -> None:
        """Play a legal move. Raises :class:`GameError` if the game is over or still in its
        setup, :class:`IllegalMoveError` if the move is illegal."""
        self._require_playable()
        self._push_playable(move)

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` may be played now: the game goes on and the move is legal (from
        the legal moves worked out once per position, see :meth:`legal_move_codes`)."""
        if self.outcome() is not None or self.setup_pending is not None:
            return False
        return move.from_square << 7 | move.to_square in _legal_codes(self.board, self._judgment())

    def _push_playable(self, move: Move) -> None:
        board = self.board
        code = move.from_square << 7 | move.to_square
        if code not in _legal_codes(board, self._judgment()):
            board.push(move)  # (raises the board's error, naming why)
            raise AssertionError(f"the referee and the board disagree on {move.iccs()}")
        board.push_code(code)
        mover = not self.board.turn
        # An offer lapses when the opponent moves instead of answering it; the offerer
        # may offer and then move.
        if self._draw_offer is not None and self._draw_offer != mover:
            self._draw_offer = None
        self._takeback_request = None
        if self.outcome() is not None:
            self._draw_offer = None

    def play(self, text: str) -> Move:
        """Play a move given in any notation (ICCS, WXF, Chinese, Korean)."""
        self._require_playable()
        move = parse_move(self.board, text)
        self._push_playable(move)
        return move

    # ------------------------------------------------------------------ events

    def resign(self, side: bool) -> None:
        self._require_not_over()
        winner = not side
        self._draw_offer = self._takeback_request = None
        self._event_outcome = Outcome(
            winner,
            Termination.RESIGNATION,
            f"{_title(self.variant, winner)} wins: {_title(self.variant, side)} resigned.",
        )

    @property
    def draw_offer(self) -> bool | None:
        """The side whose draw offer stands, or None."""
        return self._draw_offer

    def offer_draw(self, side: bool) -> None:
        """Offer a draw; it stands until the opponent answers or moves."""
        self._require_not_over()
        if self._draw_offer is not None and self._draw_offer != side:
            self.accept_draw(side)  # offers crossing each other are an agreement
            return
        self._draw_offer = side

    def _answer(self, pending: bool | None, side: bool, what: str) -> bool:
        """Check that ``side`` may answer the opponent's pending ``what`` (a draw offer or a
        takeback request) and return the side that made it."""
        self._require_not_over()
        if pending is None or pending == side:
            raise GameError(f"{_title(self.variant, side)} has no {what}")
        return pending

    def accept_draw(self, side: bool) -> None:
        self._answer(self._draw_offer, side, "draw offer to accept")
        self._draw_offer = None
        self._event_outcome = Outcome(None, Termination.AGREEMENT, "Draw by agreement.")

    def decline_draw(self, side: bool) -> None:
        self._answer(self._draw_offer, side, "draw offer to decline")
        self._draw_offer = None

    @property
    def takeback_request(self) -> bool | None:
        """The side asking to take back its last move, or None."""
        return self._takeback_request

    def request_takeback(self, side: bool) -> None:
        """Ask to take back ``side``'s last move (and the opponent's reply, if made)."""
        self._require_not_over()
        if self._plies_to_take_back(side) == 0:
            raise GameError(f"{_title(self.variant, side)} has no move to take back")
        self._takeback_request = side

    def _plies_to_take_back(self, side: bool) -> int:
        ply = self.board.ply
        if ply == 0:
            return 0
        last_mover = not self.board.turn
        if last_mover == side:
            return 1
        return 2 if ply >= 2 else 0

    def accept_takeback(self, side: bool) -> list[Move]:
        """The opponent agrees: the requester's last move (and any reply) is taken back."""
        requester = self._answer(self._takeback_request, side, "takeback request to accept")
        self._takeback_request = None
        return [self.board.pop() for _ in range(self._plies_to_take_back(requester))]

    def decline_takeback(self, side: bool) -> None:
        self._answer(self._takeback_request, side, "takeback request to decline")
        self._takeback_request = None

    def flag(self, side: bool) -> None:
        """``side`` ran out of time. In xiangqi it is a draw if the opponent has no piece
        that can cross the river (it could never win); otherwise a loss."""
        self._require_not_over()
        winner = not side
        self._draw_offer = self._takeback_request = None
        loser_name = _title(self.variant, side)
        if not self.variant.is_janggi and not _has_attacker(self.board, winner):
            self._event_outcome = Outcome(
                None,
                Termination.TIME,
                f"Draw: {loser_name} ran out of time, but "
                f"{_title(self.variant, winner)} has no piece that can cross the river.",
            )
            return
        self._event_outcome = Outcome(
            winner,
            Termination.TIME,
            f"{_title(self.variant, winner)} wins: {loser_name} ran out of time.",
        )

    def abandon(self, side: bool, *, draw: bool = False) -> None:
        """``side`` left the game and its opponent claims the win (or, with ``draw``, a
        draw). Whether the player has been gone long enough is for the server to judge."""
        self._require_not_over()
        stayer = not side
        self._draw_offer = self._takeback_request = None
        leaver_name = _title(self.variant, side)
        if draw:
            self._event_outcome = Outcome(
                None,
                Termination.ABANDONMENT,
                f"Draw: {leaver_name} left the game and "
                f"{_title(self.variant, stayer)} called it a draw.",
            )
            return
        self._event_outcome = Outcome(
            stayer,
            Termination.ABANDONMENT,
            f"{_title(self.variant, stayer)} wins: {leaver_name} left the game.",
        )

    # ------------------------------------------------------------------ referee

    def is_over(self) -> bool:
        return self.outcome() is not None

    def outcome(self) -> Outcome | None:
        """The result, or None while the game goes on."""
        if self._event_outcome is not None:
            return self._event_outcome
        judged = self._judgment()
        if judged[1] is _UNJUDGED:
            if self.variant.is_janggi:
                judged[1] = _janggi_outcome(self, judged)
            else:
                judged[1] = _xiangqi_outcome(self, judged)
        outcome: Outcome | None = judged[1]
        return outcome

    def outcome_if_passed(self) -> Outcome | None:
        """Janggi: the result a pass by the side to move would bring at once (the second
        pass in a row, or a pass answering bikjang), or None if the game would go on after
        it, or passing is not legal now."""
        return self.pass_outcomes()[0]

    def outcome_if_passed_back(self) -> Outcome | None:
        """Janggi: the result if the side to move passed and the opponent passed back at
        once (two passes in a row end the game), or None when the first pass would end the
        game by itself (:meth:`outcome_if_passed`) or either pass is not legal."""
        return self.pass_outcomes()[1]

    def pass_outcomes(self) -> tuple[Outcome | None, Outcome | None]:
        """(Janggi) :meth:`outcome_if_passed` and :meth:`outcome_if_passed_back` together,
        from one pass played and taken back."""
        if not self.variant.is_janggi or self.outcome() is not None:
            return None, None
        board = self.board
        king = board.king(board.turn)
        code = king << 7 | king
        if code not in _legal_codes(board, self._judgment()):
            return None, None
        judged = self._judged
        board.push_code(code)
        try:
            if board.is_game_over_by_passing():
                return _janggi_outcome(self, [None, _UNJUDGED, None]), None
            answer = board.king(board.turn)
            if not board.is_legal(Move(answer, answer)):
                return None, None
            board.push_code(answer << 7 | answer)
            try:
                return None, _janggi_outcome(self, [None, _UNJUDGED, None])
            finally:
                board.pop_code()
        finally:
            board.pop_code()
            self._judged = judged

    def legal_move_codes(self) -> list[int]:
        """The board's :meth:`~chuhan.board.Board.legal_move_codes`, generated once per
        position (the referee's verdict needs them too)."""
        return list(_legal_codes(self.board, self._judgment()))

    def _judgment(self) -> list[Any]:
        """What is worked out of the board as it stands (``[state, verdict or _UNJUDGED,
        legal move codes or None]``), kept with the position and history it was worked out
        on: a move is judged once, not again by the next push's check that the game goes
        on and by a caller asking for the result."""
        state = (self.repetitions, self.setup_pending, self.board.history_state())
        judged = self._judged
        if judged is None or judged[0] != state:
            judged = self._judged = [state, _UNJUDGED, None]
        return judged


#: :meth:`Game._judgment`'s verdict before it is worked out.
_UNJUDGED = object()


def _legal_codes(board: Board, judged: list[Any]) -> list[int]:
    """The board's legal move codes, from ``judged`` (:meth:`Game._judgment`) once known."""
    codes: list[int] | None = judged[2]
    if codes is None:
        codes = judged[2] = board.legal_move_codes()
    return codes


# ---------------------------------------------------------------------- xiangqi


def _has_attacker(board: Board, side: bool) -> bool:
    """Whether ``side`` has a piece that can cross the river (chariot, horse, cannon,
    soldier)."""
    attackers = _ATTACKERS[side]
    return any(p in attackers for p in board.placement)


#: The piece codes of each side's pieces that can cross the river.
_ATTACKERS = {
    side: frozenset(kind if side else -kind for kind in (ROOK, HORSE, CANNON, PAWN))
    for side in (True, False)
}


def _move_number(board: Board, ply: int) -> int:
    """The game move number of the ply at index ``ply`` of the stack."""
    return board.move_number_at(ply)


def _no_moves_outcome(board: Board) -> Outcome:
    variant = board.variant
    loser = board.turn
    winner = not loser
    if board.is_check():
        checkers = board.checkers()
        piece = board.piece_at(checkers[0]) if checkers else 0
        detail = (
            f" by the {variant.piece_name(abs(piece))} on {SQUARE_NAMES[checkers[0]]}"
            if piece
            else ""
        )
        return Outcome(
            winner,
            Termination.CHECKMATE,
            f"{_title(variant, winner)} wins: {_title(variant, loser)} is checkmated{detail}.",
        )
    return Outcome(
        winner,
        Termination.STALEMATE,
        f"{_title(variant, winner)} wins: {_title(variant, loser)} has no legal move "
        "(stalemate loses in xiangqi).",
    )


def _xiangqi_outcome(game: Game, judged: list[Any]) -> Outcome | None:
    board = game.board
    variant = board.variant
    if not _legal_codes(board, judged):
        return _no_moves_outcome(board)
    verdict = judge_repetition(board, repetitions=game.repetitions)
    if verdict is not None:
        return Outcome(verdict.winner, verdict.termination, verdict.reason)
    limit = variant.move_limit_plies
    if limit and board.halfmove_clock >= limit:
        counted = MoveLimitCount.of(board).counted
        if counted >= limit:
            return Outcome(
                None,
                Termination.MOVE_LIMIT,
                f"Draw: {limit // 2} moves by each side without a capture (checks beyond a "
                "side's first ten in that span do not count).",
            )
    if not _has_attacker(board, True) and not _has_attacker(board, False):
        return Outcome(
            None,
            Termination.INSUFFICIENT_MATERIAL,
            "Draw: neither side has a piece that can cross the river.",
        )
    return None


#: Under the Asian rules' natural move limit, a side's checks beyond this many in the span
#: without a capture do not count towards the limit.
COUNTED_CHECKS = 10


@dataclass
class MoveLimitCount:
    """The xiangqi natural move limit's count: plies since the last capture that count
    towards the limit, and each side's checks in that span (a side's checks beyond its
    first :data:`COUNTED_CHECKS` do not count). The referee counts a game with it; the
    engine carries the count of its root along the lines it searches."""

    counted: int
    checks: dict[bool, int]

    @classmethod
    def of(cls, board: Board) -> MoveLimitCount:
        """The count of ``board``'s game so far (plies before its recorded history, as
        the FEN's halfmove clock gives them, all count)."""
        replay = board.copy()
        span = min(board.halfmove_clock, board.ply)
        moves = [replay.pop() for _ in range(span)][::-1]
        count = cls(board.halfmove_clock - span, {True: 0, False: 0})
        for move in moves:
            mover = replay.turn
            replay.push(move)
            count.add(mover, replay.is_check())
        return count

    def add(self, mover: bool, gives_check: bool) -> None:
        """Count one more ply without a capture, by ``mover``."""
        if gives_check:
            self.checks[mover] += 1
            if self.checks[mover] > COUNTED_CHECKS:
                return
        self.counted += 1


# ---------------------------------------------------------------------- janggi


def _points_outcome(board: Board, termination: Termination, why: str) -> Outcome:
    points = janggi_points(board)
    winner = points["cho"] > points["han"]
    name = "Cho" if winner else "Han"
    return Outcome(
        winner,
        termination,
        f"{name} wins on points, {points['cho']:g} to {points['han']:g} (Cho–Han, Han's 1.5 "
        f"included): {why}.",
        points,
    )


def _settle(board: Board, termination: Termination, why: str) -> Outcome:
    if board.variant.settlement == "points":
        return _points_outcome(board, termination, why)
    return Outcome(None, termination, f"Draw: {why}.", janggi_points(board))


def _bikjang_makers(board: Board) -> set[bool]:
    """The sides that made the kings face each other at some point of the game."""
    replay = board.root()
    was_facing = replay.is_bikjang()
    makers: set[bool] = set()
    for move in board.move_stack:
        mover = replay.turn
        replay.push(move)
        facing = replay.is_bikjang()
        if facing and not was_facing and not move.is_pass():
            makers.add(mover)
        was_facing = facing
    return makers


def _only_escapes_face_the_kings(board: Board) -> bool:
    """In check, and every legal answer is the king taking a checking piece and so leaving
    the kings facing: that piece is defended only by the other king (Gollon's rule, 1995
    sheet)."""
    if not board.is_check():
        return False
    moves = list(board.legal_moves)
    if not moves:
        return False
    king = board.king(board.turn)
    checkers = set(board.checkers())
    for move in moves:
        if move.from_square != king or move.to_square not in checkers:
            return False
        board.push(move)
        facing = board.is_bikjang()
        board.pop()
        if not facing:
            return False
    return True


def _janggi_outcome(game: Game, judged: list[Any]) -> Outcome | None:
    board = game.board
    variant = board.variant
    if game.setup_pending is not None:
        return None
    if board.is_game_over_by_passing():
        last = board.copy()
        last.pop()
        if variant.bikjang_pass and last.is_bikjang():
            return _settle(board, Termination.BIKJANG, "bikjang was accepted by a pass")
        return _settle(board, Termination.DOUBLE_PASS, "both sides passed in a row")
    if variant.king_defended_mate_draws and _only_escapes_face_the_kings(board):
        return Outcome(
            None,
            Termination.CHECKMATE,
            f"Draw: {_title(variant, board.turn)} is mated by a piece defended only by the "
            "other king (taking it would leave the kings facing): Gollon's rule, 1995 sheet.",
        )
    if not _legal_codes(board, judged):
        outcome = _no_moves_outcome(board)
        if outcome.termination is Termination.STALEMATE and not variant.stalemate_loses:
            return Outcome(
                None,
                Termination.STALEMATE,
                f"Draw: {_title(variant, board.turn)} has no legal move and may not pass "
                "(the 1995 rules call this a stalemate).",
            )
        if variant.facing_forfeits_win and outcome.winner in _bikjang_makers(board):
            winner = bool(outcome.winner)
            return Outcome(
                None,
                Termination.CHECKMATE,
                f"Draw: {_title(variant, winner)} mated, but had made the kings face each "
                "other earlier and so gave up the right to win (1995 rules).",
            )
        return outcome
    repeated = _janggi_repetition(game)
    if repeated is not None:
        return repeated
    limit = variant.move_limit_plies
    if limit and board.halfmove_clock >= limit:
        return _settle(
            board,
            Termination.MOVE_LIMIT,
            f"{limit // 2} moves by each side without a capture",
        )
    return None


def _janggi_repetition(game: Game) -> Outcome | None:
    board = game.board
    variant = board.variant
    key = board.zobrist_hash()
    earlier = [ply for ply, earlier_key in enumerate(board.position_keys()) if earlier_key == key]
    occurrences = len(earlier) + 1
    if variant.repetition == "modern":
        # Modern rules: the move that brings a position back a fourth time loses.
        if occurrences < 4:
            return None
        loser = not board.turn
        winner = not loser
        return Outcome(
            winner,
            Termination.REPETITION,
            f"{_title(variant, winner)} wins: {_title(variant, loser)} repeated the same "
            "position a fourth time (modern rules).",
        )
    if occurrences < game.repetitions:
        return None
    start = earlier[-(game.repetitions - 1)]
    checking = _perpetual_checkers(board, start)
    if len(checking) == 1:
        offender = checking[0]
        winner = not offender
        first = _move_number(board, start)
        last = _move_number(board, board.ply - 1)
        return Outcome(
            winner,
            Termination.PERPETUAL_CHECK,
            f"{_title(variant, winner)} wins: {_title(variant, offender)} gave check on every "
            f"move from move {first} to move {last} (perpetual check).",
        )
    return _settle(board, Termination.REPETITION, "the same position occurred three times")


def _perpetual_checkers(board: Board, start: int) -> list[bool]:
    """The sides that gave check with every one of their moves since ply ``start``."""
    replay = board.copy()
    span = board.ply - start
    moves = [replay.pop() for _ in range(span)][::-1]
    always = {True: True, False: True}
    moved = {True: False, False: False}
    for move in moves:
        mover = replay.turn
        replay.push(move)
        moved[mover] = True
        if not replay.is_check():
            always[mover] = False
    return [side for side in (True, False) if moved[side] and always[side]]
