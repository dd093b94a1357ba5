"""The analysis board's rules and the game review's judgments, without I/O.

- :func:`read_line` checks what an analyst sends (a game, a start FEN, ICCS moves) and
  replays it under the rules; :func:`describe_position` answers with what the board
  needs: the legal destinations, the check, the ending if the rules ended the game, and
  every move in every notation (the browser has no rules code).
- :func:`judge_review` turns the engine's evaluation of every position of a game into
  the marks of its moves: inaccuracy, mistake and blunder, by how much each move lowered
  its player's chance of winning (:func:`win_chance`), with the better move.

The thresholds. A score ``cp`` (centipawns, from the mover's view; a pawn is worth about
115, a horse 450, a chariot 900 to chuhan's engine) is a chance of winning
``1 / (1 + 10 ** (-cp / 400))`` (the Elo curve: +400 is a 91 % chance); a mate for the
mover is 1, against it 0. A move that lowers its player's chance by at least
:data:`INACCURACY` (0.10) is an inaccuracy, :data:`MISTAKE` (0.20) a mistake,
:data:`BLUNDER` (0.30) a blunder; the engine's own choice is never marked. From an equal
position, giving away a soldier (-115) is an inaccuracy (50 % -> 34 %), an advisor (-190)
a mistake (-> 25 %), a horse (-450) a blunder (-> 7 %).

A move after which its player is mated by force (the engine's line of the position after
it is a mate for the opponent: the review's mate search proves mates of up to four moves)
is a blunder whatever the chances say, unless that player was already being mated or
lost by more than :data:`LOST_CP` (700 centipawns, a chance under 2 %): from a position
scored -200, a chance of 24 %, the drop to 0 would make it only a mistake. Its entry
says the mate (``mated_in``: the opponent mates in that many moves).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from chuhan.board import Board
from chuhan.errors import ChuhanError
from chuhan.game import Game
from chuhan.squares import SQUARE_NAMES, Move
from chuhan.variants import Variant, get_variant
from chuhan.web.round.seats import seat_of
from chuhan.web.round.view import _legal_destinations, move_entry, result_dict

__all__ = [
    "BLUNDER",
    "INACCURACY",
    "LOST_CP",
    "MISTAKE",
    "AnalysisInputError",
    "Line",
    "describe_position",
    "judge_review",
    "read_line",
    "win_chance",
]

INACCURACY = 0.10
MISTAKE = 0.20
BLUNDER = 0.30
#: Below this score (centipawns, the mover's view) a move into a forced mate is judged by
#: the drop of its chance alone: the game was lost already.
LOST_CP = 700

#: The longest FEN read.
MAX_FEN_CHARS = 120
_ICCS = re.compile(r"^[a-i][0-9][a-i][0-9]$")


class AnalysisInputError(ChuhanError):
    """What an analyst sent cannot be analysed: ``code`` for programs, the message names
    the input and what is wrong with it."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(slots=True)
class Line:
    """A checked line: the rule set, the start (as a FEN), and the game replayed along
    the moves (its board's move stack holds them)."""

    variant: Variant
    fen: str
    game: Game

    @property
    def moves(self) -> tuple[str, ...]:
        return tuple(move.iccs() for move in self.game.board.move_stack)


def read_line(
    game: str, rules: str | None, fen: str | None, moves: list[str], *, max_plies: int
) -> Line:
    """Check an analyst's position: ``game`` (xiangqi, janggi) and ``rules``, the start
    ``fen`` (None: the game's start) and the ICCS ``moves`` from it, each legal in turn.
    Raises :class:`AnalysisInputError` naming what is wrong."""
    try:
        variant = get_variant(game, rules or None)
    except ChuhanError as error:
        raise AnalysisInputError("bad_variant", str(error)) from None
    if fen is not None and len(fen) > MAX_FEN_CHARS:
        raise AnalysisInputError(
            "bad_fen", f"the FEN is longer than {MAX_FEN_CHARS} characters ({len(fen)})"
        )
    try:
        start = Board(fen.strip() if fen else None, variant=variant)
    except ChuhanError as error:
        raise AnalysisInputError("bad_fen", f"the FEN {fen!r} is not a position: {error}") from None
    if len(moves) > max_plies:
        raise AnalysisInputError(
            "too_many_moves",
            f"the line has {len(moves)} moves; the analysis board takes at most {max_plies}",
        )
    start_fen = start.fen()
    played = Game(variant, start)
    for number, text in enumerate(moves, 1):
        if not isinstance(text, str) or not _ICCS.match(text):
            raise AnalysisInputError(
                "bad_move",
                f"move {number} {str(text)[:10]!r} is not an ICCS move like 'h2e2'",
            )
        over = played.outcome()
        if over is not None:
            raise AnalysisInputError(
                "illegal_move",
                f"move {number} {text!r} comes after the game ended: {over.reason}",
            )
        move = Move.from_iccs(text)
        if not played.is_legal(move):
            raise AnalysisInputError(
                "illegal_move",
                f"move {number} {text!r} is not legal in {played.board.fen()}",
            )
        played.push(move)
    return Line(variant, start_fen, played)


def describe_position(line: Line, *, all_moves: bool) -> dict[str, Any]:
    """The position at the end of ``line`` as the analysis board shows it: its FEN, the
    side to move, the legal destinations (``dests``, from-square to squares), whether a
    janggi pass is legal, the checked king's square, the ending if the rules ended the
    game (``over``, as a game's result), and the moves in every notation with the FEN
    after each (all of them with ``all_moves``, else the last one only)."""
    game = line.game
    board = game.board
    over = game.outcome()
    dests: dict[str, list[str]] = {}
    can_pass = False
    if over is None:
        dests_text, can_pass = _legal_destinations(game)
        dests = json.loads(dests_text)
    stack = board.move_stack
    first = 0 if all_moves else max(0, len(stack) - 1)
    replay = board.root()
    entries: list[dict[str, Any]] = []
    for index, move in enumerate(stack):
        if index >= first:
            entry = json.loads(move_entry(replay, move))  # (with its "check")
            replay.push(move)
            entry["fen"] = replay.fen()
            entries.append(entry)
        else:
            replay.push(move)
    return {
        "variant": line.variant.game,
        "rules": line.variant.rules,
        "start_fen": line.fen,
        "fen": board.fen(),
        "ply": board.ply,
        "turn": seat_of(board.turn),
        "dests": dests,
        "can_pass": can_pass,
        "pass_move": None if not can_pass else _pass_text(board),
        "check": _check_square(board),
        "over": None if over is None else result_dict(over, line.variant),
        "moves_from": first,
        "moves": entries,
    }


def _pass_text(board: Board) -> str:
    square = SQUARE_NAMES[board.king(board.turn)]
    return square + square


def _check_square(board: Board) -> str | None:
    return SQUARE_NAMES[board.king(board.turn)] if board.is_check() else None


# ---------------------------------------------------------------------- the review


def win_chance(cp: int | None, mate: int | None) -> float:
    """The chance of winning of the side a score is from (see the module docstring)."""
    if mate is not None:
        return 1.0 if mate > 0 else 0.0
    if cp is None:
        return 0.5
    return 1 / (1 + 10 ** (-max(-4000, min(4000, cp)) / 400))


def position_chance(evaluation: dict[str, Any]) -> float:
    """The first mover's chance in an evaluated position of a review: from its engine
    line (``first_cp``, ``first_mate``), or from the rules' ending (``over``)."""
    over = evaluation.get("over")
    if over is not None:
        winner = over.get("winner")
        return 0.5 if winner is None else (1.0 if winner == "first" else 0.0)
    line = evaluation.get("line")
    if line is None:
        return 0.5
    return win_chance(line.get("first_cp"), line.get("first_mate"))


def _mover_cp(evaluation: dict[str, Any], first: bool) -> int:
    """A position's score in centipawns from one side's view, mates and endings as
    +-1000 (for the average loss)."""
    over = evaluation.get("over")
    if over is not None:
        winner = over.get("winner")
        score = 0 if winner is None else (1000 if winner == "first" else -1000)
    else:
        line = evaluation.get("line") or {}
        mate = line.get("first_mate")
        if mate is not None:
            score = 1000 if mate > 0 else -1000
        else:
            score = max(-1000, min(1000, line.get("first_cp") or 0))
    return score if first else -score


def _line_mate(evaluation: dict[str, Any]) -> int:
    """The mate of an evaluated position's line, in moves, from its side to move's view
    (0: none, or the rules ended the game)."""
    line = evaluation.get("line")
    if evaluation.get("over") is not None or not line:
        return 0
    mate: int = line.get("mate") or 0
    return mate


def _mated_in(evaluations: list[dict[str, Any]], moves: list[str], ply: int) -> int | None:
    """The moves in which the player of move ``ply`` is mated by force after it, when it
    was not being mated before it (else None). It was being mated when its own line
    said so, or when the opponent's line before the opponent's last move was a mate that
    began with that move (a proof: every reply is mated)."""
    mate = _line_mate(evaluations[ply])
    if mate <= 0 or _line_mate(evaluations[ply - 1]) < 0:
        return None
    if ply >= 2 and _line_mate(evaluations[ply - 2]) > 0:
        line = evaluations[ply - 2]["line"]
        if line["pv"]["iccs"][:1] == [moves[ply - 2]]:
            return None  # the mate under way: the move only shortened or lengthened it
    return mate


def judge_review(evaluations: list[dict[str, Any]], moves: list[str]) -> dict[str, Any]:
    """The marks of a reviewed game's moves. ``evaluations[k]`` is the position after
    ``k`` plies (``turn``, and ``line`` from the engine or ``over`` from the rules),
    ``moves`` the ICCS moves. Each move gets ``{"ply", "side", "drop", "mark", "best",
    "mated_in"}`` (``mark``: None, "inaccuracy", "mistake" or "blunder"; ``best``: the
    engine's move in every notation when the move is marked; ``mated_in``: the moves of
    the forced mate the move walked into, else None) and each side a summary (the count of
    each mark, and the average centipawn loss)."""
    judged: list[dict[str, Any]] = []
    summary = {
        side: {"inaccuracy": 0, "mistake": 0, "blunder": 0, "acpl": 0, "moves": 0}
        for side in ("first", "second")
    }
    losses: dict[str, int] = {"first": 0, "second": 0}
    for ply, played in enumerate(moves, 1):
        before, after = evaluations[ply - 1], evaluations[ply]
        side = before["turn"]
        first = side == "first"
        chance_before = position_chance(before)
        chance_after = position_chance(after)
        if not first:
            chance_before, chance_after = 1 - chance_before, 1 - chance_after
        drop = max(0.0, chance_before - chance_after)
        line = before.get("line")
        best_iccs = line["pv"]["iccs"][0] if line and line["pv"]["iccs"] else None
        mark = None
        mated_in = _mated_in(evaluations, moves, ply)
        into_mate = mated_in is not None and _mover_cp(before, first) > -LOST_CP
        if best_iccs != played:
            if drop >= BLUNDER or into_mate:
                mark = "blunder"
            elif drop >= MISTAKE:
                mark = "mistake"
            elif drop >= INACCURACY:
                mark = "inaccuracy"
        best = None
        if mark is not None and line is not None and best_iccs is not None:
            best = {name: (line["pv"][name] or [None])[0] for name in line["pv"]}
        judged.append(
            {
                "ply": ply,
                "side": side,
                "drop": round(drop, 3),
                "mark": mark,
                "best": best,
                "mated_in": mated_in,
            }
        )
        if mark is not None:
            summary[side][mark] += 1
        loss = max(0, _mover_cp(before, first) - _mover_cp(after, first))
        losses[side] += loss
        summary[side]["moves"] += 1
    for side in ("first", "second"):
        count = summary[side]["moves"]
        summary[side]["acpl"] = round(losses[side] / count) if count else 0
    return {"moves": judged, "summary": summary}
