"""Puzzles: "the side to move mates within N plies", checked move by move on the server.

The set is package data, ``data/puzzles.jsonl`` (made by ``tools/make_puzzles.py`` from the
composed xiangqi mates of xiangqibench and the proved janggi mates, grown by
``tools/mine_puzzles.py`` from the engine's own games). Each puzzle carries its source and
a solution line played out by the engine: its mating moves and its best defences.

A player's attempt is the list of moves played so far, which the browser sends with each
move (the server keeps nothing between requests). A move is judged by :func:`judge_move`:

- a move that mates is solved, whatever the line says;
- the line's own move is right, answered by the line's defence;
- any other move is right if a search of the position after it (the engine in the
  analysis compute, to the remaining depth) finds the defender mated within the plies left;
  the engine's best defence, the longest resistance, is then the reply. Otherwise it is
  wrong, and the solution from before it is shown.

Hints and solutions come from the line while the attempt follows it, and from a search of
the position once it has left it.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from chuhan.board import Board
from chuhan.errors import ChuhanError
from chuhan.search.limits import SearchLimits
from chuhan.squares import SQUARE_NAMES, Move
from chuhan.variants import Variant, get_variant
from chuhan.web.compute.service import AnalysisRequest, Compute

__all__ = [
    "CHECK_MOVE_MS",
    "DATA",
    "Puzzle",
    "PuzzleInputError",
    "PuzzleSet",
    "defender_lost",
    "destinations",
    "hint",
    "judge_move",
    "load_puzzles",
    "replay",
    "solution_from",
    "today",
    "written",
]

DATA = Path(__file__).parent / "data" / "puzzles.jsonl"

#: The longest a search that judges a move off the solution line may take (ms).
CHECK_MOVE_MS = 4000
#: The longest a search for a hint or a solution off the line may take (ms).
SOLVE_MS = 4000


class PuzzleInputError(ChuhanError):
    """A request's moves are not an attempt at the puzzle (the sentence names the field)."""


@dataclass(frozen=True, slots=True)
class Puzzle:
    """One puzzle: the position, the plies within which the side to move mates, the
    solution line, the known winning first moves, and where it comes from."""

    id: str
    variant: Variant
    fen: str
    plies: int
    line: tuple[str, ...]
    winning_first_moves: frozenset[str]
    source: dict[str, Any]

    @property
    def mate_in(self) -> int:
        """The moves of the side to move (not plies)."""
        return (self.plies + 1) // 2

    def board(self) -> Board:
        return Board(self.fen, variant=self.variant)

    def public(self) -> dict[str, Any]:
        """What the page is told (the line and the known winners are not)."""
        board = self.board()
        return {
            "id": self.id,
            "game": self.variant.game,
            "rules": self.variant.rules,
            "fen": self.fen,
            "plies": self.plies,
            "mate_in": self.mate_in,
            "turn": "first" if board.turn else "second",
            "legal": destinations(board),
            "source": self.source,
        }


class PuzzleSet:
    """The puzzles by id, in the file's order."""

    def __init__(self, puzzles: Iterable[Puzzle]) -> None:
        self.by_id: dict[str, Puzzle] = {p.id: p for p in puzzles}

    def __len__(self) -> int:
        return len(self.by_id)

    def get(self, puzzle_id: str) -> Puzzle | None:
        return self.by_id.get(puzzle_id)

    def daily(self, day: datetime.date) -> Puzzle:
        """The puzzle of ``day`` (UTC): the same for everyone, from a hash of the date."""
        ids = sorted(self.by_id)
        digest = hashlib.sha256(f"chuhan daily puzzle {day.isoformat()}".encode()).digest()
        return self.by_id[ids[int.from_bytes(digest[:8], "big") % len(ids)]]

    def listing(self) -> list[dict[str, Any]]:
        return [{"id": p.id, "game": p.variant.game, "plies": p.plies} for p in self.by_id.values()]


def _puzzle(row: dict[str, Any]) -> Puzzle:
    return Puzzle(
        row["id"],
        get_variant(row["game"], row["rules"]),
        row["fen"],
        int(row["plies"]),
        tuple(row["line"]),
        frozenset(row.get("winning_first_moves", ())),
        dict(row["source"]),
    )


@cache
def load_puzzles(path: Path = DATA) -> PuzzleSet:
    """The puzzle set in ``path`` (read once)."""
    with open(path, encoding="utf-8") as handle:
        return PuzzleSet(_puzzle(json.loads(line)) for line in handle if line.strip())


def destinations(board: Board) -> dict[str, list[str]]:
    """The side to move's legal moves by origin (passes left out: a pass never mates)."""
    legal: dict[str, list[str]] = {}
    for code in board.legal_move_codes():
        origin, target = code >> 7, code & 127
        if origin != target:
            legal.setdefault(SQUARE_NAMES[origin], []).append(SQUARE_NAMES[target])
    return legal


def defender_lost(board: Board) -> bool:
    """The side to move has no legal move, and that loses (mate; stalemate in xiangqi)."""
    if board.is_game_over_by_passing() or board.legal_move_codes():
        return False
    return board.is_check() or not board.variant.is_janggi


def _parse_move(board: Board, text: object, name: str) -> Move:
    if not isinstance(text, str) or len(text) > 8:
        raise PuzzleInputError(f"'{name}' must be a move such as 'h2e2', got {str(text)[:20]!r}")
    try:
        move = Move.from_iccs(text)
    except ChuhanError:
        raise PuzzleInputError(f"'{name}' is not a move in ICCS: {text!r}") from None
    if not board.is_legal(move):
        raise PuzzleInputError(f"'{name}' {text} is not legal in {board.fen()}")
    return move


def replay(puzzle: Puzzle, played: object) -> Board:
    """The puzzle's position after the ``played`` moves (a list of ICCS strings), with the
    solver to move and the puzzle not over. Raises :class:`PuzzleInputError`."""
    if not isinstance(played, list):
        raise PuzzleInputError("'moves' must be a list of moves such as ['h2e2']")
    if len(played) % 2 or len(played) >= puzzle.plies:
        raise PuzzleInputError(
            f"'moves' must hold an even number of moves below {puzzle.plies}, got {len(played)}"
        )
    board = puzzle.board()
    for index, text in enumerate(played):
        board.push(_parse_move(board, text, f"moves[{index}]"))
        if defender_lost(board) or board.is_game_over_by_passing():
            raise PuzzleInputError(f"'moves' end the puzzle at moves[{index}]")
    return board


def _on_line(puzzle: Puzzle, played: list[str]) -> bool:
    return tuple(played) == puzzle.line[: len(played)]


async def _search(
    compute: Compute, puzzle: Puzzle, moves: list[str], depth: int, movetime: int
) -> dict[str, Any] | None:
    """The engine's first line for the position after ``moves``, or None if it has none."""
    request = AnalysisRequest(
        puzzle.variant.name,
        puzzle.fen,
        tuple(moves),
        SearchLimits(depth=depth, movetime=movetime),
        1,
    )
    lines = await compute.analyse(request, first=True)  # a solver waits for it
    return lines[0] if lines else None


def _pv(line: dict[str, Any] | None) -> list[str]:
    if line is None:
        return []
    iccs = line.get("pv", {}).get("iccs") or []
    return [str(m) for m in iccs]


async def solution_from(compute: Compute, puzzle: Puzzle, played: list[str]) -> list[str]:
    """The winning line from the position after ``played`` (the solver to move): the rest
    of the solution line if the attempt has followed it, else the engine's mating line."""
    if _on_line(puzzle, played):
        return list(puzzle.line[len(played) :])
    left = puzzle.plies - len(played)
    found = await _search(compute, puzzle, played, left + 1, SOLVE_MS)
    if found is None or found.get("mate") is None or not 0 < found["mate"] <= (left + 1) // 2:
        return _pv(found)[:1]  # the engine's best try, though it found no mate in time
    return _pv(found)[:left]


async def judge_move(
    compute: Compute, puzzle: Puzzle, played: list[str], text: object
) -> dict[str, Any]:
    """The verdict on the solver's move ``text`` after ``played`` (checked by
    :func:`replay`): ``solved``, ``right`` (with the defender's ``reply``) or ``wrong``
    (with the ``solution`` from before the move)."""
    board = replay(puzzle, played)
    move = _parse_move(board, text, "move")
    iccs = move.iccs()
    if move.is_pass():
        return await _wrong(compute, puzzle, played, iccs, "a pass never mates")
    board.push(move)
    after = [*played, iccs]
    if defender_lost(board):
        return {"result": "solved", "move": iccs, "moves": after}
    left = puzzle.plies - len(after)  # plies after this move, the defender's first
    if left <= 0:
        return await _wrong(compute, puzzle, played, iccs, "it does not mate")
    if _on_line(puzzle, after) and len(puzzle.line) > len(after):
        reply = puzzle.line[len(after)]
    else:
        found = await _search(compute, puzzle, after, left + 1, CHECK_MOVE_MS)
        mate = None if found is None else found.get("mate")
        known = not played and iccs in puzzle.winning_first_moves
        if not known and (mate is None or mate >= 0 or -2 * mate > left):
            return await _wrong(
                compute, puzzle, played, iccs, f"it does not mate within {left + 1} plies"
            )
        defences = _pv(found)
        if not defences:
            return await _wrong(compute, puzzle, played, iccs, "the engine found no defence")
        reply = defences[0]
    board.push_iccs(reply)
    return {
        "result": "right",
        "move": iccs,
        "reply": reply,
        "moves": [*after, reply],
        "legal": destinations(board),
    }


async def _wrong(
    compute: Compute, puzzle: Puzzle, played: list[str], iccs: str, why: str
) -> dict[str, Any]:
    solution = await solution_from(compute, puzzle, played)
    return {
        "result": "wrong",
        "move": iccs,
        "why": why,
        "solution": solution,
        "notation": written(puzzle, played, solution),
        "moves": list(played),
    }


def written(puzzle: Puzzle, played: list[str], line: list[str]) -> dict[str, list[str]]:
    """``line`` (from the position after ``played``) in each notation the page offers:
    ``iccs``, ``wxf``, ``chinese`` and, for janggi, ``korean``."""
    from chuhan.notation import to_chinese, to_korean, to_wxf

    board = puzzle.board()
    for text in played:
        board.push_iccs(text)
    notations: dict[str, list[str]] = {"iccs": [], "wxf": [], "chinese": []}
    if puzzle.variant.is_janggi:
        notations["korean"] = []
    for entry in line:
        move = board.parse_iccs(entry)
        notations["iccs"].append(entry)
        notations["wxf"].append(to_wxf(board, move))
        notations["chinese"].append(to_chinese(board, move))
        if "korean" in notations:
            notations["korean"].append(to_korean(board, move))
        board.push(move)
    return notations


async def hint(compute: Compute, puzzle: Puzzle, played: object) -> str | None:
    """The solver's next winning move after ``played`` (checked by :func:`replay`)."""
    replay(puzzle, played)
    assert isinstance(played, list)
    solution = await solution_from(compute, puzzle, played)
    return solution[0] if solution else None


def today(now: float) -> datetime.date:
    """The UTC date at ``now`` (seconds since the epoch)."""
    return datetime.datetime.fromtimestamp(now, datetime.UTC).date()
