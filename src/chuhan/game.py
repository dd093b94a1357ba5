"""A game: the start (and, in janggi, the setup choice), the moves, the events beyond moves
(resignation, draw offers, takebacks, flag fall) and the result with its reason.

:meth:`Game.outcome` is the referee. It applies the rule set of the board's variant
through the rulings of :mod:`chuhan.adjudication` (:mod:`~chuhan.adjudication.referee`):
mate and stalemate, repetition (xiangqi: the AXF perpetual check and chase rules;
janggi: per rule set), the move limits, insufficient material, and janggi's endings by
passing, bikjang and point counting.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chuhan.adjudication.counting import janggi_points
from chuhan.adjudication.mate import has_attacker
from chuhan.adjudication.move_limit import COUNTED_CHECKS, MoveLimitCount
from chuhan.adjudication.outcome import Outcome, Termination, side_title
from chuhan.adjudication.referee import janggi_outcome, xiangqi_outcome
from chuhan.board import Board
from chuhan.errors import ChuhanError
from chuhan.notation import parse_move
from chuhan.squares import Move
from chuhan.variants import (
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
                f"{side_title(self.variant, pending)} chooses the arrangement now, not "
                f"{side_title(self.variant, side)}"
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

    def _require_not_over(self, judged: list[Any] | None = None) -> None:
        if (self.outcome() if judged is None else self._verdict(judged)) is not None:
            self._draw_offer = self._takeback_request = None
            raise GameError("the game is over")

    def _require_playable(self, judged: list[Any] | None = None) -> None:
        self._require_not_over(judged)
        if self.setup_pending is not None:
            raise GameError(
                f"the setup is not finished: {side_title(self.variant, self.setup_pending)} "
                "must choose an arrangement first"
            )

    def push(self, move: Move) -> None:
        """Play a legal move. Raises :class:`GameError` if the game is over or still in its
        setup, :class:`IllegalMoveError` if the move is illegal."""
        judged = self._judgment()
        self._require_playable(judged)
        self._push_playable(move, judged)

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` may be played now: the game goes on and the move is legal (from
        the legal moves worked out once per position, see :meth:`legal_move_codes`)."""
        judged = self._judgment()
        if self._verdict(judged) is not None or self.setup_pending is not None:
            return False
        return move.from_square << 7 | move.to_square in _legal_codes(self.board, judged)

    def _push_playable(self, move: Move, judged: list[Any] | None = None) -> None:
        """Play ``move`` (``judged``: the position's :meth:`_judgment`, when the caller has
        it)."""
        board = self.board
        code = move.from_square << 7 | move.to_square
        if code not in _legal_codes(board, self._judgment() if judged is None else judged):
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
            f"{side_title(self.variant, winner)} wins: {side_title(self.variant, side)} resigned.",
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
            raise GameError(f"{side_title(self.variant, side)} has no {what}")
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
            raise GameError(f"{side_title(self.variant, side)} has no move to take back")
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
        loser_name = side_title(self.variant, side)
        if not self.variant.is_janggi and not has_attacker(self.board, winner):
            self._event_outcome = Outcome(
                None,
                Termination.TIME,
                f"Draw: {loser_name} ran out of time, but "
                f"{side_title(self.variant, winner)} has no piece that can cross the river.",
            )
            return
        self._event_outcome = Outcome(
            winner,
            Termination.TIME,
            f"{side_title(self.variant, winner)} wins: {loser_name} ran out of time.",
        )

    def abandon(self, side: bool, *, draw: bool = False) -> None:
        """``side`` left the game and its opponent claims the win (or, with ``draw``, a
        draw). Whether the player has been gone long enough is for the server to judge."""
        self._require_not_over()
        stayer = not side
        self._draw_offer = self._takeback_request = None
        leaver_name = side_title(self.variant, side)
        if draw:
            self._event_outcome = Outcome(
                None,
                Termination.ABANDONMENT,
                f"Draw: {leaver_name} left the game and "
                f"{side_title(self.variant, stayer)} called it a draw.",
            )
            return
        self._event_outcome = Outcome(
            stayer,
            Termination.ABANDONMENT,
            f"{side_title(self.variant, stayer)} wins: {leaver_name} left the game.",
        )

    def abort(self, side: bool, *, no_start: bool = False) -> None:
        """Call the game off before it started: ``side`` aborted it, or (``no_start``)
        ``side`` did not make its first move in time and the opponent called it off. No
        one wins (the result is ``*``). When a game may be aborted is for the server to
        judge."""
        self._require_not_over()
        self._draw_offer = self._takeback_request = None
        name = side_title(self.variant, side)
        reason = (
            f"Game aborted: {name} did not make a first move in time."
            if no_start
            else f"Game aborted by {name}."
        )
        self._event_outcome = Outcome(None, Termination.ABORTED, reason)

    # ------------------------------------------------------------------ referee

    def is_over(self) -> bool:
        return self.outcome() is not None

    def outcome(self) -> Outcome | None:
        """The result, or None while the game goes on."""
        if self._event_outcome is not None:
            return self._event_outcome
        return self._verdict(self._judgment())

    def _verdict(self, judged: list[Any]) -> Outcome | None:
        """:meth:`outcome`, from the position's :meth:`_judgment`."""
        if self._event_outcome is not None:
            return self._event_outcome
        if judged[1] is _UNJUDGED:
            judged[1] = self._referee_outcome(judged)
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
                return janggi_outcome(board, repetitions=self.repetitions), None
            answer = board.king(board.turn)
            if not board.is_legal(Move(answer, answer)):
                return None, None
            board.push_code(answer << 7 | answer)
            try:
                return None, janggi_outcome(board, repetitions=self.repetitions)
            finally:
                board.pop_code()
        finally:
            board.pop_code()
            self._judged = judged

    def _referee_outcome(self, judged: list[Any]) -> Outcome | None:
        """The referee's ruling on the board as it stands (:mod:`chuhan.adjudication`),
        with the legal moves worked out once for the position."""
        board = self.board

        def legal_move_codes() -> list[int]:
            return _legal_codes(board, judged)

        if not self.variant.is_janggi:
            return xiangqi_outcome(
                board, repetitions=self.repetitions, legal_move_codes=legal_move_codes
            )
        if self.setup_pending is not None:
            return None
        return janggi_outcome(
            board, repetitions=self.repetitions, legal_move_codes=legal_move_codes
        )

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
