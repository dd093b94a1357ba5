"""Helpers shared by the differential and property tests.

- which Fairy-Stockfish (pyffish) variant plays by each of our rule sets;
- seeded random playouts, optionally biased towards passes, bikjang, captures and checks
  so that the rare janggi endings actually occur;
- a comparison of a recorded playout with Fairy-Stockfish.

pyffish is slow to call (every call rebuilds the variant's piece tables, about 3-4 ms,
plus the replay of the move list), so :func:`compare_with_fsf` spends its calls carefully:

- one ``get_san_moves`` call over the whole game: Fairy-Stockfish replays every move we
  played (an illegal one raises), and the ``+``/``#`` marks of its SAN give its check
  status (and mate) after every ply;
- at sampled plies (all plies if asked; otherwise the interesting ones first: passes,
  bikjang, checks, game end, then random ones) ``legal_moves`` and ``get_fen`` from our
  FEN two plies earlier plus the two moves since, which carries the history janggi needs
  (two passes in a row, a pass answering bikjang);
- the final position from the start FEN and the whole move list (legal moves, FEN).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chuhan
from chuhan.squares import FILES, Move, mirror_square
from chuhan.variants import JANGGI_ARRANGEMENTS, Variant

DATA = Path(__file__).parent / "data"

#: Our rule sets and the Fairy-Stockfish variant with the same move legality. Checked by
#: experiment: FSF ``janggi`` and ``janggitraditional`` both apply bikjang (perft 3 from the
#: start is 33,000, as ours under official and traditional), ``janggimodern`` does not
#: (33,316); xiangqi's rule sets differ only in repetition verdicts. Our ``classic`` rule
#: set (pass only when stuck) has no counterpart and is covered by property tests.
FSF_VARIANTS: dict[str, str] = {
    "xiangqi:asian": "xiangqi",
    "xiangqi:chinese": "xiangqi",
    "janggi:official": "janggi",
    "janggi:traditional": "janggitraditional",
    "janggi:modern": "janggimodern",
}

ARRANGEMENTS: tuple[str, ...] = JANGGI_ARRANGEMENTS


def fsf_variant(variant: Variant) -> str:
    """The pyffish variant name for one of our variants (``KeyError`` for ``classic``)."""
    return FSF_VARIANTS[variant.name]


def to_fsf(moves: Iterable[Move]) -> list[str]:
    """Moves in Fairy-Stockfish UCI coordinates (ranks 1-10)."""
    return [m.fsf() for m in moves]


def load_perft_positions() -> list[dict[str, Any]]:
    """The positions of ``tests/data/perft.json``."""
    with open(DATA / "perft.json", encoding="utf-8") as handle:
        positions: list[dict[str, Any]] = json.load(handle)["positions"]
    return positions


def mirror_fen(fen: str) -> str:
    """The FEN of the position reflected left-right (each rank read backwards)."""
    placement, _, rest = fen.partition(" ")
    rows = []
    for row in placement.split("/"):
        cells: list[str] = []
        for ch in row:
            cells.extend("." * int(ch) if ch.isdigit() else ch)
        text = ""
        empty = 0
        for cell in reversed(cells):
            if cell == ".":
                empty += 1
                continue
            if empty:
                text += str(empty)
                empty = 0
            text += cell
        rows.append(text + (str(empty) if empty else ""))
    return "/".join(rows) + (" " + rest if rest else "")


def fen_from_pieces(pieces: dict[int, str], *, turn: bool) -> str:
    """A FEN from ``{square: letter}`` (upper case for the first mover)."""
    rows = []
    for rank in range(9, -1, -1):
        text = ""
        empty = 0
        for file_index in range(FILES):
            letter = pieces.get(rank * FILES + file_index)
            if letter is None:
                empty += 1
                continue
            if empty:
                text += str(empty)
                empty = 0
            text += letter
        rows.append(text + (str(empty) if empty else ""))
    return f"{'/'.join(rows)} {'w' if turn else 'b'} - - 0 1"


def mirror_move(move: Move) -> Move:
    return Move(mirror_square(move.from_square), mirror_square(move.to_square))


# ---------------------------------------------------------------------- playouts


@dataclass(frozen=True)
class Bias:
    """How often a playout prefers a kind of move over a uniform choice (each tried in
    turn with its probability; if no move of that kind exists the choice is uniform)."""

    name: str = "uniform"
    passes: float = 0.0
    bikjang: float = 0.0
    captures: float = 0.0
    checks: float = 0.0


UNIFORM = Bias()
#: Profiles used by the differential tests, chosen per playout from its seed.
JANGGI_BIASES: tuple[Bias, ...] = (
    UNIFORM,
    Bias("passes", passes=0.12),
    Bias("bikjang", passes=0.04, bikjang=0.5, captures=0.3),
    Bias("sharp", passes=0.02, captures=0.5, checks=0.3),
)
XIANGQI_BIASES: tuple[Bias, ...] = (
    UNIFORM,
    Bias("sharp", captures=0.5, checks=0.3),
    Bias("checks", checks=0.6),
)


def legal_moves_in_order(board: chuhan.Board) -> list[Move]:
    """The legal moves sorted by squares, so that a seeded playout does not depend on the
    order in which the board generates them."""
    return sorted(board.legal_moves, key=lambda m: (m.from_square, m.to_square))


def makes_bikjang(board: chuhan.Board, move: Move) -> bool:
    board.push(move)
    try:
        return board.is_bikjang()
    finally:
        board.pop()


def choose_move(
    board: chuhan.Board, moves: Sequence[Move], rng: random.Random, bias: Bias = UNIFORM
) -> Move:
    """A random move among ``moves`` (the legal moves of ``board``), following ``bias``."""
    candidates: list[Move] = []
    if bias.passes and rng.random() < bias.passes:
        candidates = [m for m in moves if m.is_pass()]
    if not candidates and bias.bikjang and rng.random() < bias.bikjang:
        candidates = [m for m in moves if not m.is_pass() and makes_bikjang(board, m)]
    if not candidates and bias.captures and rng.random() < bias.captures:
        candidates = [m for m in moves if board.is_capture(m)]
    if not candidates and bias.checks and rng.random() < bias.checks:
        candidates = [m for m in moves if not m.is_pass() and board.gives_check(m)]
    return rng.choice(candidates or list(moves))


def random_board(
    variant: str | Variant,
    seed: int,
    plies: int,
    *,
    rules: str | None = None,
    fen: str | None = None,
    bias: Bias = UNIFORM,
) -> chuhan.Board:
    """A board after up to ``plies`` random moves from ``fen`` (the start by default),
    with its move stack; stops early when no move is legal."""
    board = chuhan.Board(fen, variant=variant, rules=rules)
    rng = random.Random(seed)
    for _ in range(plies):
        moves = legal_moves_in_order(board)
        if not moves:
            break
        board.push(choose_move(board, moves, rng, bias))
    return board


@dataclass
class Playout:
    """A random game recorded ply by ply (index ``i`` = the position after ``i`` moves)."""

    variant: Variant
    start_fen: str
    bias: Bias
    moves: list[Move] = field(default_factory=list)
    fens: list[str] = field(default_factory=list)
    checks: list[bool] = field(default_factory=list)
    legal: list[frozenset[str]] = field(default_factory=list)
    bikjang: list[bool] = field(default_factory=list)
    #: "double pass", "bikjang pass", "checkmate", "stalemate", or "" (ply limit reached).
    ended_by: str = ""

    @property
    def plies(self) -> int:
        return len(self.moves)

    def is_pass(self, ply: int) -> bool:
        """Whether the move leading to position ``ply`` was a pass."""
        return ply > 0 and self.moves[ply - 1].is_pass()

    def describe(self) -> str:
        return (
            f"{self.variant.name} from {self.start_fen!r} ({self.bias.name} playout), "
            f"FSF moves {' '.join(to_fsf(self.moves))}"
        )


def play(
    variant: Variant,
    seed: int,
    max_plies: int,
    *,
    start_fen: str | None = None,
    bias: Bias = UNIFORM,
) -> Playout:
    """Play a seeded random game and record, at every ply, our FEN, check status, legal
    moves (in FSF coordinates) and bikjang status."""
    board = chuhan.Board(start_fen, variant=variant)
    rng = random.Random(seed)
    record = Playout(variant, board.fen(), bias)
    while True:
        moves = legal_moves_in_order(board)
        record.fens.append(board.fen())
        record.checks.append(board.is_check())
        record.legal.append(frozenset(m.fsf() for m in moves))
        record.bikjang.append(board.is_bikjang())
        if not moves:
            if board.is_game_over_by_passing():
                bikjang_before = variant.bikjang_pass and record.bikjang[-2]
                record.ended_by = "bikjang pass" if bikjang_before else "double pass"
            else:
                record.ended_by = "checkmate" if board.is_checkmate() else "stalemate"
            break
        if record.plies >= max_plies:
            break
        move = choose_move(board, moves, rng, bias)
        board.push(move)
        record.moves.append(move)
    return record


# ---------------------------------------------------------------------- comparison


@dataclass
class Disagreement:
    playout: Playout
    ply: int
    what: str

    def __str__(self) -> str:
        fen = self.playout.fens[self.ply] if self.ply < len(self.playout.fens) else "?"
        before = " ".join(to_fsf(self.playout.moves[: self.ply]))
        return (
            f"{self.what}\n  at ply {self.ply}, FEN {fen!r} ({self.playout.variant.name})\n"
            f"  reached from {self.playout.start_fen!r} by FSF moves [{before}]"
        )


@dataclass
class Tally:
    """What a batch of comparisons covered."""

    playouts: int = 0
    plies: int = 0
    #: Positions whose legal-move set and FEN were compared.
    positions: int = 0
    #: Positions whose check status was compared.
    checks_compared: int = 0
    fsf_calls: int = 0
    in_check: int = 0
    passes: int = 0
    bikjang_positions: int = 0
    endings: dict[str, int] = field(default_factory=dict)
    disagreements: list[Disagreement] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.playouts += other.playouts
        self.plies += other.plies
        self.positions += other.positions
        self.checks_compared += other.checks_compared
        self.fsf_calls += other.fsf_calls
        self.in_check += other.in_check
        self.passes += other.passes
        self.bikjang_positions += other.bikjang_positions
        for key, count in other.endings.items():
            self.endings[key] = self.endings.get(key, 0) + count
        self.disagreements.extend(other.disagreements)

    def report(self, limit: int = 3) -> str:
        shown = "\n".join(str(d) for d in self.disagreements[:limit])
        return f"{len(self.disagreements)} disagreement(s) with Fairy-Stockfish:\n{shown}"


def sample_plies(record: Playout, rng: random.Random, count: int | None) -> list[int]:
    """Plies to compare in full: all of them if ``count`` is None; otherwise the last
    position, then passes, bikjang and checks, then random plies, ``count`` in all."""
    last = len(record.fens) - 1
    if count is None or count > last:
        return list(range(last + 1))
    special = [
        i
        for i in range(last)
        if record.is_pass(i) or record.bikjang[i] or record.checks[i] or record.is_pass(i + 1)
    ]
    rng.shuffle(special)
    chosen = {last, *special[: max(0, count * 2 // 3)]}
    others = [i for i in range(last) if i not in chosen]
    rng.shuffle(others)
    chosen.update(others[: max(0, count - len(chosen))])
    return sorted(chosen)


def _fsf_check_marks(sans: Sequence[str]) -> list[tuple[bool, bool]]:
    return [(san.endswith(("+", "#")), san.endswith("#")) for san in sans]


def compare_with_fsf(record: Playout, rng: random.Random, sample: int | None = None) -> Tally:
    """Compare a playout with Fairy-Stockfish (see the module docstring)."""
    import pyffish

    fv = fsf_variant(record.variant)
    tally = Tally(playouts=1, plies=record.plies)
    tally.in_check = sum(record.checks)
    tally.passes = sum(m.is_pass() for m in record.moves)
    tally.bikjang_positions = sum(record.bikjang) if record.variant.bikjang else 0
    tally.endings[record.ended_by or "ply limit"] = 1
    problems = tally.disagreements
    moves = to_fsf(record.moves)
    start = record.start_fen

    # Every move replayed by FSF; check (and mate) status after each from its SAN.
    tally.fsf_calls += 2
    if pyffish.gives_check(fv, start, []) != record.checks[0]:
        problems.append(Disagreement(record, 0, f"check status: FSF {not record.checks[0]}"))
    try:
        sans = pyffish.get_san_moves(fv, start, moves, False, pyffish.NOTATION_SAN)
    except ValueError as error:
        ply = _first_rejected_ply(fv, start, moves)
        base = max(0, ply - 2)
        fsf_legal = set(pyffish.legal_moves(fv, record.fens[base], moves[base:ply]))
        problems.append(
            Disagreement(
                record,
                ply,
                f"FSF rejects {moves[ply]}, which we played ({error}); legal moves: only ours "
                f"{sorted(record.legal[ply] - fsf_legal)}, only FSF "
                f"{sorted(fsf_legal - record.legal[ply])}",
            )
        )
        return tally
    tally.checks_compared += 1
    for ply, (check, mate) in enumerate(_fsf_check_marks(sans), start=1):
        tally.checks_compared += 1
        ours_mate = record.checks[ply] and not record.legal[ply]
        if check != record.checks[ply] or mate != ours_mate:
            problems.append(
                Disagreement(
                    record,
                    ply,
                    f"after {moves[ply - 1]} (SAN {sans[ply - 1]}): FSF check={check} "
                    f"mate={mate}, ours check={record.checks[ply]} mate={ours_mate}",
                )
            )

    # The end of the game from the whole history.
    last = record.plies
    tally.fsf_calls += 2
    _compare_position(
        record,
        last,
        set(pyffish.legal_moves(fv, start, moves)),
        pyffish.get_fen(fv, start, moves),
        problems,
    )
    tally.positions += 1

    for ply in sample_plies(record, rng, sample):
        if ply == last:
            continue
        base = max(0, ply - 2)
        fen, window = record.fens[base], moves[base:ply]
        tally.fsf_calls += 2
        _compare_position(
            record,
            ply,
            set(pyffish.legal_moves(fv, fen, window)),
            pyffish.get_fen(fv, fen, window),
            problems,
        )
        tally.positions += 1
    return tally


def _first_rejected_ply(fsf: str, start: str, moves: list[str]) -> int:
    """The index of the first move Fairy-Stockfish rejects (bisection on replays)."""
    import pyffish

    low, high = 0, len(moves)  # moves[:low] replay; moves[:high] does not
    while high - low > 1:
        middle = (low + high) // 2
        try:
            pyffish.get_san_moves(fsf, start, moves[:middle])
        except ValueError:
            high = middle
        else:
            low = middle
    return high - 1


def _compare_position(
    record: Playout, ply: int, fsf_legal: set[str], fsf_fen: str, problems: list[Disagreement]
) -> None:
    ours = record.legal[ply]
    if ours != fsf_legal:
        problems.append(
            Disagreement(
                record,
                ply,
                f"legal moves: only ours {sorted(ours - fsf_legal)}, "
                f"only FSF {sorted(fsf_legal - ours)}",
            )
        )
    if record.fens[ply] != fsf_fen:
        problems.append(
            Disagreement(record, ply, f"FEN: ours {record.fens[ply]!r}, FSF {fsf_fen!r}")
        )
