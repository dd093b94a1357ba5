"""Texel tuning of the evaluation: xiangqi's on the master games of CCPD, janggi's on games
of the engine against itself (``--game janggi``; there are no janggi master records here).

The xiangqi data: the Chinese Chess Practical Dataset by Yu-Han Tseng (CC BY 4.0), the
archive chuhan ships (``chuhan.explorer.masters.MASTERS_ARCHIVE``). Its master games are
read as the opening explorer reads them (each text once; a game counted once by its moves
and result, and for a game shorter than 40 plies by its players too); a game without a
result is left out. The games are taken in an order shuffled by ``--seed`` until
``--positions`` positions are found, so a capped run is a fair sample of the whole archive.

The janggi data: the games of ``--records`` files (any collection chuhan reads, such as the
PGN ``chuhan match`` writes of two other engines' games), each game once, and ``--games``
games of the compiled engine against itself at ``--nodes`` nodes a move, each from its own
random arrangements and ``--random-plies`` random moves, played to the end under ``--rules``
(official: a game the move limit ends is won on points), with the starting weights
(``tools/selfplay_games.py``, seeded by ``--seed``; the games are kept in the cache, one
record a game, so a rerun plays none of them again).

The positions: from each game, up to ``--per-game`` positions after the first ``--skip``
plies, drawn at random (seeded by the game), each one *quiet*: the side to move is not in
check, and a capture-only quiescence search with the starting weights returns the static
score (nothing hangs). Each is labelled with the game's result from the first mover's view
(Red, Cho: 1, 1/2, 0). A game is in the validation split when a hash of it says so
(``--validation``, 10 %), so no game gives positions to both splits. The positions are kept
in a cache (``--cache``, by default the user's cache folder), named by everything that
chose them.

The fit: the evaluation (``chuhan.search.evaluate``) is linear in its weights. The model
here has one value per piece type and square (material and placement together, the two
halves of the board tied: a square and its mirror across the centre file share a value),
the chariot and horse mobility, the elephant's blocked eyes, the four attack weights near
the enemy palace and the tempo; the defenders' factor and the trapped horse's penalty keep
their form, and janggi's bonus for Han (1.5 points) is a rule, added as it is. First ``K``
of ``sigmoid(K * score)`` is fitted to the starting weights (golden-section search), then,
with ``K`` fixed, the weights by full-batch Adam on the mean squared error, with a ridge
pull (``--ridge``) towards the starting weights (a square no position of the data has a
piece on keeps its value). The starting weights (``--start``) are by default those before
any fit to game results (:data:`RULES_OF_THUMB`, :data:`JANGGI_RULES_OF_THUMB`), so that a
rerun with the same choices writes the weights the engine plays with; ``--start engine``
fits on from the engine's own.

It prints the data source, the number of positions, ``K``, the mean squared error on the
training and validation positions before and after, and the fitted weights, and writes them
(``--out``) as the module ``evaluate.py`` reads (``src/chuhan/search/texel_xiangqi.py``,
``texel_janggi.py``): constants, turned into the evaluator's table of values once, so the
search runs as fast.

    python tools/texel.py --positions 100000 --jobs 2 --out /tmp/texel_xiangqi.py
    python tools/texel.py --game janggi --games 200 --jobs 1 --out /tmp/texel_janggi.py
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import math
import os
import random
import sys
import textwrap
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from operator import mul
from pathlib import Path

import selfplay_games
from selfplay_games import SelfPlayGame, weights_digest
from tune import golden_k

from chuhan.board import Board
from chuhan.explorer.files import iter_collection, kind_of
from chuhan.explorer.index import UNIQUE_PLIES, _read_files
from chuhan.explorer.masters import CREDIT, MASTERS_ARCHIVE, MASTERS_ENCODING, masters_digest
from chuhan.explorer.text import normalize_result, normalize_tag, search_key
from chuhan.search.evaluate import (
    JANGGI_WEIGHTS,
    XIANGQI_WEIGHTS,
    Evaluator,
    EvalWeights,
    evaluate_with,
    evaluator_for,
    features,
    placement_table,
)
from chuhan.squares import FILES, SQUARE_COUNT, Move

#: Piece types (as evaluate.py numbers them) and their names.
PIECES = ("king", "advisor", "elephant", "horse", "chariot", "cannon", "soldier")
PAWN = 7
#: The model's values per piece type: 10 ranks of 5 squares (a file and its mirror).
HALF = 50
#: The dense features, by their place in ``evaluate.features`` and their names.
DENSE = (
    (8, "rook_mobility"),
    (9, "horse_leg"),
    (10, "elephant_eye"),
    (11, "attack_horse"),
    (12, "attack_rook"),
    (13, "attack_cannon"),
    (14, "attack_pawn"),
    (15, "tempo"),
)
#: Han's bonus in ``evaluate.features``: a rule (janggi's 1.5 points), not fitted.
SECOND_PLAYER_BONUS = 16
#: Bounds on the dense weights (the search's lazy evaluation assumes the positional terms
#: stay within a few hundred of the placement score).
BOUNDS = {
    "rook_mobility": (0.0, 10.0),
    "horse_leg": (1.0, 16.0),
    "elephant_eye": (0.0, 20.0),
    "attack_horse": (0.0, 40.0),
    "attack_rook": (0.0, 40.0),
    "attack_cannon": (0.0, 40.0),
    "attack_pawn": (0.0, 40.0),
    "tempo": (0.0, 40.0),
}
#: The scale of each kind of weight for the ridge pull (centipawns).
SQUARE_SCALE = 30.0
DENSE_SCALE = {"rook_mobility": 2.0, "horse_leg": 4.0, "elephant_eye": 4.0, "tempo": 10.0}
ATTACK_SCALE = 6.0
#: What a trapped horse counts, in free legs (``-horse_trapped // horse_leg`` today): kept.
TRAPPED_LEGS = 4
#: The xiangqi weights before any fit to the masters (main at 8c4c72d): tables from the
#: rules of thumb in ``evaluate.py``, weights fitted to self-play by ``tools/tune.py``. The
#: fit starts from them by default, so that a rerun gives the weights the engine has.
RULES_OF_THUMB = EvalWeights(
    material=(0, 0, 193, 176, 452, 898, 415, 115),
    pawn_crossed=103,
    attack=(0, 0, 0, 0, 10, 16, 10, 9),
    tempo=11,
)
#: The janggi weights before any fit to self-play's results (main at f8cb3d9): tables from
#: the rules of thumb in ``evaluate.py``, weights fitted to self-play's outcomes by
#: ``tools/tune.py``. Its games are played with them, and the fit starts from them.
JANGGI_RULES_OF_THUMB = EvalWeights(
    material=(0, 0, 242, 271, 344, 902, 457, 145),
    elephant_eye=0,
    attack=(0, 0, 0, 0, 10, 18, 11, 9),
    tempo=13,
    second_player_bonus=28,
)
#: The weights a fit may start from (``--start``), by game.
STARTS = {
    "xiangqi": {"thumb": RULES_OF_THUMB, "engine": XIANGQI_WEIGHTS},
    "janggi": {"thumb": JANGGI_RULES_OF_THUMB, "engine": JANGGI_WEIGHTS},
}


# ------------------------------------------------------------------ the data


@dataclass(frozen=True, slots=True)
class MasterGame:
    """One distinct master game: its identity (as the explorer computes it, in hex), its
    moves (ICCS, space-separated) and result (``1-0``, ``0-1``, ``1/2-1/2``)."""

    identity: str
    moves: str
    result: str

    @property
    def start_fen(self) -> str | None:
        """The position the moves start from (None: xiangqi's start)."""
        return None


@dataclass(frozen=True, slots=True)
class RecordGame:
    """A game read from a file of records (``--records``: PGN or any format chuhan reads,
    such as the games ``chuhan match`` writes): its identity (a hash of its start, moves and
    result, so that a game filed twice counts once), moves (ICCS; a janggi pass is the
    king's point twice), result and start."""

    identity: str
    moves: str
    result: str
    start_fen: str


#: A game positions are taken from: a master game (xiangqi), a game of the engine against
#: itself (janggi, ``tools/selfplay_games.py``) or a game from a file (``--records``). Each
#: has an ``identity`` (hex), ``moves`` (ICCS), a ``result`` from the first mover's view and
#: a ``start_fen`` (None: xiangqi's start; any other is read as a janggi position when the
#: game is janggi's).
ScoredGame = MasterGame | SelfPlayGame | RecordGame


def record_games(
    paths: Sequence[Path], game: str
) -> tuple[list[RecordGame], dict[str, int], dict[str, int]]:
    """The ``game`` games with a result in the files ``paths`` (each game once), how many
    records were left out, by reason, and how many games each event (``Event`` tag) has."""
    found: dict[str, RecordGame] = {}
    refused: dict[str, int] = {}
    events: dict[str, int] = {}
    for path in paths:
        for file in iter_collection(path):
            if file.error:
                refused[file.error] = refused.get(file.error, 0) + 1
                continue
            for read in _read_files([(file.name, file.data)], game, None):
                if read.refusal:
                    refused[read.refusal] = refused.get(read.refusal, 0) + 1
                for record in read.records:
                    result = normalize_result(dict(record.headers).get("Result", ""))
                    reason = record.refusal or ("no result" if result == "*" else "")
                    if reason:
                        refused[reason] = refused.get(reason, 0) + 1
                        continue
                    text = f"{record.fen}\n{record.iccs}\n{result}"
                    identity = hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
                    if identity not in found:
                        event = dict(record.headers).get("Event", "") or "no event"
                        events[event] = events.get(event, 0) + 1
                    found[identity] = RecordGame(identity, record.iccs, result, record.fen)
    return list(found.values()), refused, events


def records_digest(paths: Sequence[Path]) -> str:
    """A digest of the files ``paths`` (for the cache's name)."""
    digest = hashlib.blake2b(digest_size=16)
    for path in sorted(paths):
        for file in iter_collection(path):
            digest.update(file.name.encode() + b"\0" + file.data)
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class Position:
    """A labelled quiet position: its FEN, the score from the first mover's view (Red,
    Cho: 1, 0.5, 0) and whether its game is in the validation split."""

    fen: str
    score: float
    validation: bool


def _identity(fen: str, moves: str, result: str, plies: int, red: str, black: str) -> str:
    """The explorer's identity of a game (``_Importer.add_record``)."""
    parts = [" ".join(fen.split()[:2]), moves, result]
    if plies < UNIQUE_PLIES:
        parts += [search_key(red).replace(" ", ""), search_key(black).replace(" ", "")]
    return hashlib.blake2b("\n".join(parts).encode(), digest_size=16).hexdigest()


def _games_of(batch: list[tuple[str, bytes]]) -> list[MasterGame]:
    """The master games from the start position with a result in a batch of files."""
    found = []
    for read in _read_files(batch, "xiangqi", MASTERS_ENCODING):
        for record in read.records:
            if record.refusal or record.kind != "game":
                continue
            headers = dict(record.headers)
            result = normalize_result(headers.get("Result", ""))
            if result == "*":
                continue
            red, black = normalize_tag(headers["Red"]), normalize_tag(headers["Black"])
            identity = _identity(record.fen, record.iccs, result, record.plies, red, black)
            found.append(MasterGame(identity, record.iccs, result))
    return found


def master_texts(archive: Path, seed: int) -> list[tuple[str, bytes]]:
    """The archive's master-game files, each text once, in an order shuffled by ``seed``."""
    seen: set[bytes] = set()
    texts = []
    for file in iter_collection(archive):
        if file.error or kind_of(file.name)[0] != "game":
            continue
        digest = hashlib.blake2b(file.data, digest_size=16).digest()
        if digest not in seen:
            seen.add(digest)
            texts.append((file.name, file.data))
    random.Random(seed).shuffle(texts)
    return texts


def is_quiet(board: Board, weights: EvalWeights = XIANGQI_WEIGHTS) -> bool:
    """Whether ``board`` is quiet: the side to move is not in check, and a capture-only
    quiescence search returns the static score (``weights`` are the board's game's)."""
    if board.is_check():
        return False
    ev = evaluator_for(board.variant.game, weights)
    static = evaluate_with(ev, board.placement, board.turn)
    return quiesce(board, ev, -100_000, 100_000, 8) == static


def quiesce(board: Board, ev: Evaluator, alpha: int, beta: int, depth: int) -> int:
    """A fail-hard capture-only search (most valuable victim first) of ``board``."""
    squares = board.placement
    stand = evaluate_with(ev, squares, board.turn)
    if stand >= beta:
        return beta
    if depth == 0:
        return max(alpha, stand)
    alpha = max(alpha, stand)
    material = ev.weights.material
    captures = sorted(board.legal_capture_codes(), key=lambda m: -material[abs(squares[m & 127])])
    for m in captures:
        board.push_code(m)
        score = -quiesce(board, ev, -beta, -alpha, depth - 1)
        board.pop_code()
        if score >= beta:
            return beta
        alpha = max(alpha, score)
    return alpha


def positions_of(
    game: ScoredGame,
    *,
    per_game: int,
    skip: int,
    seed: int,
    validation: float,
    weights: EvalWeights = XIANGQI_WEIGHTS,
    variant: str | None = None,
) -> list[Position]:
    """Up to ``per_game`` positions of ``game`` after ply ``skip`` quiet by ``weights``,
    drawn at random (by ``seed`` and the game), labelled with its result from the first
    mover's view."""
    score = {"1-0": 1.0, "0-1": 0.0}.get(game.result, 0.5)
    held_out = int(game.identity[:8], 16) / 2**32 < validation
    if variant is None:
        variant = "xiangqi" if game.start_fen is None else "janggi"
    board = Board(game.start_fen, variant=variant)
    fens = []
    for ply, text in enumerate(game.moves.split()):
        if ply >= skip:
            fens.append(board.fen())
        move = Move.from_iccs(text)
        board.push_code(move.from_square << 7 | move.to_square)
    rng = random.Random(f"{seed}:{game.identity}")
    rng.shuffle(fens)
    chosen: list[Position] = []
    for fen in fens:
        if len(chosen) >= per_game:
            break
        if is_quiet(Board(fen, variant=variant), weights):
            chosen.append(Position(fen, score, held_out))
    return chosen


def _positions_of_batch(
    batch: list[tuple[str, bytes]],
    per_game: int,
    skip: int,
    seed: int,
    validation: float,
    start: str,
) -> list[tuple[MasterGame, list[Position]]]:
    # The weights go to the worker by name: the compiled EvalWeights does not unpickle.
    weights = STARTS["xiangqi"][start]
    return [
        (
            game,
            positions_of(
                game,
                per_game=per_game,
                skip=skip,
                seed=seed,
                validation=validation,
                weights=weights,
            ),
        )
        for game in _games_of(batch)
    ]


def _batches(items: Sequence[tuple[str, bytes]], size: int) -> Iterator[list[tuple[str, bytes]]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


def extract(
    archive: Path,
    *,
    positions: int,
    per_game: int,
    skip: int,
    seed: int,
    validation: float,
    jobs: int,
    start: str = "engine",
    log: bool = True,
) -> tuple[list[Position], int]:
    """Positions from the archive's distinct master games (see the module), at most
    ``positions`` of them, quiet by the weights ``STARTS["xiangqi"][start]``, and the number
    of games they came from."""
    texts = master_texts(archive, seed)
    seen: set[str] = set()
    found: list[Position] = []
    games = 0
    started = time.monotonic()
    batches = _batches(texts, 100)
    args = (per_game, skip, seed, validation, start)
    with ProcessPoolExecutor(max(1, jobs)) as pool:
        pending = [
            pool.submit(_positions_of_batch, batch, *args) for batch in _take(batches, 4 * jobs)
        ]
        while pending and len(found) < positions:
            for game, chosen in pending.pop(0).result():
                if game.identity in seen or len(found) >= positions:
                    continue
                seen.add(game.identity)
                games += 1
                found.extend(chosen[: positions - len(found)])
            pending += [
                pool.submit(_positions_of_batch, batch, *args) for batch in _take(batches, 1)
            ]
            if log:
                print(
                    f"\r  {games:,} games, {len(found):,} positions, "
                    f"{time.monotonic() - started:.0f} s",
                    end="",
                    file=sys.stderr,
                )
        for future in pending:
            future.cancel()
    if log:
        print(file=sys.stderr)
    return found, games


def _take(items: Iterator[list[tuple[str, bytes]]], count: int) -> list[list[tuple[str, bytes]]]:
    taken = []
    for item in items:
        taken.append(item)
        if len(taken) >= count:
            break
    return taken


def default_cache() -> Path:
    """The user's cache folder for chuhan's tools (``$XDG_CACHE_HOME/chuhan``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "chuhan"


def cache_name(digest: str, **choices: object) -> str:
    """The cache file's name: the archive's digest and every choice that picks positions."""
    text = digest + "".join(f";{k}={v}" for k, v in sorted(choices.items()))
    return f"texel-{hashlib.blake2b(text.encode(), digest_size=8).hexdigest()}.tsv.gz"


def save_positions(path: Path, positions: Iterable[Position], games: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    with gzip.open(partial, "wt", encoding="utf-8") as handle:
        handle.write(f"#games\t{games}\t0\n")
        for p in positions:
            handle.write(f"{p.fen}\t{p.score}\t{int(p.validation)}\n")
    partial.replace(path)


def load_positions(path: Path) -> tuple[list[Position], int]:
    positions = []
    games = 0
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            fen, score, held = line.rstrip("\n").split("\t")
            if fen == "#games":
                games = int(score)
            else:
                positions.append(Position(fen, float(score), held == "1"))
    return positions, games


# ------------------------------------------------------------------ the model


def square_index(piece: int, sq: int) -> int:
    """The model's value of a first-mover piece type on ``sq`` (its own side's view)."""
    rank, file = divmod(sq, FILES)
    return (piece - 1) * HALF + rank * 5 + min(file, FILES - 1 - file)


@dataclass(frozen=True, slots=True)
class Sample:
    """A position as the model reads it: the square values the first mover's pieces add
    and those the second mover's subtract, the dense features (first mover's view), the
    score from the first mover's view, and what the terms not fitted add (janggi: Han's
    bonus, a rule)."""

    plus: tuple[int, ...]
    minus: tuple[int, ...]
    dense: tuple[float, ...]
    score: float
    fixed: float = 0.0


def sample_of(board: Board, score: float, weights: EvalWeights = XIANGQI_WEIGHTS) -> Sample:
    """``board`` as the model reads it (``weights`` are its game's: the horse's trapped
    penalty and the defenders' factor are read from them)."""
    squares = board.placement
    plus = []
    minus = []
    for sq in range(SQUARE_COUNT):
        p = squares[sq]
        if p > 0:
            plus.append(square_index(p, sq))
        elif p < 0:
            minus.append(square_index(-p, SQUARE_COUNT - 1 - sq))
    f = features(evaluator_for(board.variant.game, weights), squares, board.turn)
    fixed = f[SECOND_PLAYER_BONUS] * weights.second_player_bonus
    return Sample(tuple(plus), tuple(minus), tuple(f[i] for i, _ in DENSE), score, fixed)


@dataclass(frozen=True)
class Vector:
    """The model's weights: ``squares`` (7 x 50 values, material included) and ``dense``
    (in the order of :data:`DENSE`)."""

    squares: tuple[float, ...]
    dense: tuple[float, ...]

    @classmethod
    def of(cls, weights: EvalWeights, game: str = "xiangqi") -> Vector:
        """The values of ``game``'s evaluation with ``weights``."""
        values = [0.0] * (7 * HALF)
        for piece in range(1, 8):
            table = placement_table(game, piece, weights)
            for sq in range(SQUARE_COUNT):
                v = weights.material[piece] + table[sq] * weights.placement // 100
                if piece == PAWN and game != "janggi" and sq // FILES >= 5:
                    v += weights.pawn_crossed
                values[square_index(piece, sq)] = float(v)
        dense = (
            weights.rook_mobility,
            weights.horse_leg,
            weights.elephant_eye,
            *(weights.attack[k] for k in (4, 5, 6, 7)),
            weights.tempo,
        )
        return cls(tuple(values), tuple(map(float, dense)))

    def weights(self, counts: Sequence[int], base: EvalWeights = XIANGQI_WEIGHTS) -> EvalWeights:
        """These values as :class:`EvalWeights`: each piece's material the mean of its
        values weighted by ``counts`` (how often a piece stands on each value's squares
        in the data), and the rest its table; the soldier's crossing bonus is in its table."""
        material = [0, 0]
        tables: list[tuple[int, ...]] = [()]
        for piece in range(1, 8):
            row = [round(self.squares[square_index(piece, sq)]) for sq in range(SQUARE_COUNT)]
            seen = [(piece - 1) * HALF + i for i in range(HALF)]
            total = sum(counts[i] for i in seen)
            mean = sum(self.squares[i] * counts[i] for i in seen) / total if total else 0.0
            m = 0 if piece == 1 else round(mean)
            if piece > 1:
                material.append(m)
            tables.append(tuple(v - m for v in row))
        d = [round(x) for x in self.dense]
        legs = max(1, d[1])
        return replace(
            base,
            material=tuple(material),
            pawn_crossed=0,
            placement=100,
            rook_mobility=d[0],
            horse_leg=legs,
            horse_trapped=TRAPPED_LEGS * legs,
            elephant_eye=d[2],
            attack=(*base.attack[:4], d[3], d[4], d[5], d[6]),
            tempo=d[7],
            tables=tuple(tables),
        )


def scores(samples: Sequence[Sample], w: Vector) -> list[float]:
    """The model's score of each sample, the first mover's view."""
    get = w.squares.__getitem__
    dense = w.dense
    return [
        sum(map(get, s.plus)) - sum(map(get, s.minus)) + sum(map(mul, s.dense, dense)) + s.fixed
        for s in samples
    ]


def sigmoid(x: float) -> float:
    if x < -500:
        return 0.0
    if x > 500:
        return 1.0
    return 1.0 / (1.0 + math.exp(-x))


def mean_squared_error(samples: Sequence[Sample], w: Vector, k: float) -> float:
    evals = scores(samples, w)
    total = sum((s.score - sigmoid(k * e)) ** 2 for s, e in zip(samples, evals, strict=True))
    return total / max(1, len(samples))


def fit_k(samples: Sequence[Sample], w: Vector) -> float:
    """The K minimising the error with weights ``w`` (``tools/tune.py``'s golden-section
    search on log K)."""
    evals = scores(samples, w)
    results = [s.score for s in samples]

    def error(log_k: float) -> float:
        k = math.exp(log_k)
        total = sum((y - sigmoid(k * e)) ** 2 for e, y in zip(evals, results, strict=True))
        return total / max(1, len(evals))

    return golden_k(error, 1e-5, 0.1, 48)


def square_counts(samples: Iterable[Sample]) -> list[int]:
    """How often each square value is read (for Red and for Black) in ``samples``."""
    counts = [0] * (7 * HALF)
    for s in samples:
        for i in s.plus:
            counts[i] += 1
        for i in s.minus:
            counts[i] += 1
    return counts


def fit(
    samples: Sequence[Sample],
    start: Vector,
    k: float,
    *,
    iterations: int = 300,
    rate: float = 1.0,
    ridge: float = 1e-6,
    log: bool = True,
) -> Vector:
    """Adam on mean((y - sigmoid(K * score))^2) + ridge * sum(((w - start) / scale)^2),
    full batch, the dense weights kept within :data:`BOUNDS`. A square value no sample
    reads keeps its value."""
    n = len(samples)
    size = 7 * HALF
    columns_plus: list[list[int]] = [[] for _ in range(size)]
    columns_minus: list[list[int]] = [[] for _ in range(size)]
    for row, s in enumerate(samples):
        for i in s.plus:
            columns_plus[i].append(row)
        for i in s.minus:
            columns_minus[i].append(row)
    dense_columns = [[s.dense[j] for s in samples] for j in range(len(DENSE))]
    names = [name for _, name in DENSE]
    dense_scale = [DENSE_SCALE.get(name, ATTACK_SCALE) for name in names]
    results = [s.score for s in samples]
    free = [i for i in range(size) if columns_plus[i] or columns_minus[i]]
    params = list(start.squares) + list(start.dense)
    origin = list(params)
    scale = [SQUARE_SCALE] * size + dense_scale
    moment = [0.0] * len(params)
    second = [0.0] * len(params)
    beta1, beta2, epsilon = 0.9, 0.999, 1e-12
    for step in range(1, iterations + 1):
        w = Vector(tuple(params[:size]), tuple(params[size:]))
        evals = scores(samples, w)
        probs = [sigmoid(k * e) for e in evals]
        # d error / d score, per sample, without the common factor 2K/n.
        slope = [(p - y) * p * (1 - p) for p, y in zip(probs, results, strict=True)]
        factor = 2 * k / n
        grad = [0.0] * len(params)
        get = slope.__getitem__
        for i in free:
            grad[i] = factor * (sum(map(get, columns_plus[i])) - sum(map(get, columns_minus[i])))
        for j, column in enumerate(dense_columns):
            grad[size + j] = factor * sum(map(mul, column, slope))
        for i in (*free, *range(size, len(params))):
            grad[i] += 2 * ridge * (params[i] - origin[i]) / scale[i] ** 2
            moment[i] = beta1 * moment[i] + (1 - beta1) * grad[i]
            second[i] = beta2 * second[i] + (1 - beta2) * grad[i] ** 2
            m_hat = moment[i] / (1 - beta1**step)
            v_hat = second[i] / (1 - beta2**step)
            # The dense weights move in steps their size (a tenth of a square value's).
            step_rate = rate if i < size else rate * scale[i] / SQUARE_SCALE
            params[i] -= step_rate * m_hat / (math.sqrt(v_hat) + epsilon)
        for j, name in enumerate(names):
            low, high = BOUNDS[name]
            params[size + j] = min(max(params[size + j], low), high)
        if log and (step % 25 == 0 or step == iterations):
            error = sum((y - p) ** 2 for p, y in zip(probs, results, strict=True)) / n
            print(f"  step {step}: training error {error:.6f}", file=sys.stderr)
    return Vector(tuple(params[:size]), tuple(params[size:]))


# ------------------------------------------------------------------ the output


def module_text(weights: EvalWeights, summary: Sequence[str], game: str = "xiangqi") -> str:
    """The module ``evaluate.py`` reads the fitted weights of ``game`` from
    (``texel_xiangqi.py``, ``texel_janggi.py``)."""
    janggi = game == "janggi"
    names = ("king", "guard", *PIECES[2:]) if janggi else PIECES
    side = "Cho" if janggi else "Red"
    lines = [
        f'"""The {game} evaluation\'s weights fitted by ``tools/texel.py`` (generated: rerun',
        "the tool rather than edit it).",
        "",
        *(
            wrapped
            for line in summary
            for wrapped in textwrap.wrap(line, 92, break_on_hyphens=False) or [""]
        ),
        '"""',
        "",
        f"MATERIAL: tuple[int, ...] = {weights.material!r}",
        f"PAWN_CROSSED = {weights.pawn_crossed!r}",
        f"ROOK_MOBILITY = {weights.rook_mobility!r}",
        f"HORSE_LEG = {weights.horse_leg!r}",
        f"HORSE_TRAPPED = {weights.horse_trapped!r}",
        f"ELEPHANT_EYE = {weights.elephant_eye!r}",
        f"ATTACK: tuple[int, ...] = {weights.attack!r}",
        f"DEFENDER_MISSING = {weights.defender_missing!r}",
        f"TEMPO = {weights.tempo!r}",
        *([f"SECOND_PLAYER_BONUS = {weights.second_player_bonus!r}"] if janggi else []),
        f"#: By piece type (1-7: {', '.join(names)}), by",
        f"#: square from {side}'s side (rank 0 {side}'s back rank, 9 squares a rank). "
        "Typed as tuples",
        "#: of any length: the compiled evaluation holds them as objects, not C structs.",
        "# fmt: off",
        "TABLES: tuple[tuple[int, ...], ...] = (",
        "    (),",
    ]
    for piece in range(1, 8):
        table = weights.tables[piece]
        lines.append(f"    # {names[piece - 1]}")
        lines.append("    (")
        for rank in range(10):
            row = ", ".join(f"{v}" for v in table[rank * FILES : (rank + 1) * FILES])
            lines.append(f"        {row},")
        lines.append("    ),")
    lines.append(")")
    lines.append("# fmt: on")
    return "\n".join(lines) + "\n"


def _show(old: Vector, new: Vector) -> list[str]:
    lines = [f"  {'weight':16} {'before':>7} {'after':>7}"]
    for (_, name), a, b in zip(DENSE, old.dense, new.dense, strict=True):
        lines.append(f"  {name:16} {a:7.1f} {b:7.1f}")
    for piece in range(1, 8):
        lines.append(
            f"  {PIECES[piece - 1]} by rank (file a/i, b/h, c/g, d/f, e), before -> after:"
        )
        for rank in range(10):
            cells = []
            for half in range(5):
                i = (piece - 1) * HALF + rank * 5 + half
                cells.append(f"{old.squares[i]:5.0f}>{new.squares[i]:<5.0f}")
            lines.append(f"    {rank}: " + " ".join(cells))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Texel tuning of the evaluation: xiangqi's on CCPD's master games, "
        "janggi's on games of the engine against itself.",
    )
    parser.add_argument("--positions", type=int, default=100_000, help="at most this many")
    parser.add_argument("--per-game", type=int, default=8, help="positions from one game")
    parser.add_argument("--skip", type=int, default=10, help="plies left out at a game's start")
    parser.add_argument("--validation", type=float, default=0.1, help="share of games held out")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--game",
        choices=("xiangqi", "janggi"),
        default="xiangqi",
        help="xiangqi: CCPD's master games; janggi: games of the engine against itself",
    )
    parser.add_argument(
        "--start",
        choices=("thumb", "engine"),
        default="thumb",
        help="the weights the fit starts from and the quiet test uses (janggi: and the "
        "self-play plays with): thumb (before any fit to game results; a rerun gives the "
        "engine's weights) or engine (the engine's own)",
    )
    parser.add_argument(
        "--games", type=int, default=1000, help="janggi: self-play games (0: --records only)"
    )
    parser.add_argument(
        "--records",
        type=Path,
        nargs="+",
        default=[],
        help="janggi: files (or folders, archives) of games to take positions from too, "
        "such as the PGN that chuhan match writes",
    )
    parser.add_argument("--nodes", type=int, default=4000, help="janggi: nodes a move")
    parser.add_argument(
        "--random-plies", type=int, default=6, help="janggi: random plies a game starts with"
    )
    parser.add_argument("--rules", default="official", help="janggi: the rule set played")
    parser.add_argument(
        "--jobs", type=int, default=2, help="processes reading (janggi: playing) the games"
    )
    parser.add_argument("--iterations", type=int, default=300, help="Adam steps")
    parser.add_argument("--rate", type=float, default=1.0, help="Adam's step (centipawns)")
    parser.add_argument("--ridge", type=float, default=1e-6, help="pull to the starting weights")
    parser.add_argument("--archive", type=Path, default=MASTERS_ARCHIVE)
    parser.add_argument("--cache", type=Path, default=default_cache(), help="positions kept here")
    parser.add_argument("--out", type=Path, help="write the fitted weights' module here")
    options = parser.parse_args(argv)
    if options.positions < 1 or options.per_game < 1:
        parser.error("--positions and --per-game must be at least 1")
    if not 0 < options.validation < 1:
        parser.error(f"--validation must be between 0 and 1, not {options.validation}")
    if options.games < 0 or options.nodes < 1:
        parser.error("--games must be at least 0 and --nodes at least 1")
    if options.game == "janggi" and options.games == 0 and not options.records:
        parser.error("--games 0 needs --records: there would be no game to fit to")
    if options.records and options.game != "janggi":
        parser.error("--records is read for janggi (xiangqi's data is the master games)")

    game = options.game
    start = STARTS[game][options.start]
    choices = {
        "positions": options.positions,
        "per_game": options.per_game,
        "skip": options.skip,
        "validation": options.validation,
        "seed": options.seed,
        "weights": weights_digest(start),
    }
    started = time.monotonic()
    if game == "xiangqi":
        digest = masters_digest(options.archive)
        print(f"data: {options.archive} (sha256 {digest[:16]}…)")
        print(f"  {CREDIT}")
        source = f"{options.archive.name} (sha256 {digest[:16]})"
        kind = "distinct master games"
        cached = options.cache / cache_name(digest, **choices)
    else:
        games_file = selfplay_games.run_path(options)
        sources = []
        kind = "self-play games"
        if options.games:
            print(
                f"data: janggi:{options.rules} games of chuhan's engine against itself, "
                f"{options.nodes:,} nodes a move, from {options.random_plies} random plies "
                f"and random arrangements (seed {options.seed}), in {games_file}"
            )
            sources.append(
                f"{options.games:,} games of chuhan's engine against itself "
                f"(janggi:{options.rules}, {options.nodes:,} nodes a move)"
            )
        choices["games"] = options.games
        records: list[RecordGame] = []
        if options.records:
            records, refused, events = record_games(options.records, "janggi")
            names = " ".join(path.name for path in options.records)
            left_out = ", ".join(f"{n:,} {why}" for why, n in sorted(refused.items()))
            print(f"data: {len(records):,} janggi games in {names} (left out: {left_out or 0})")
            # What the games are, by their events (the largest three).
            largest = sorted(events.items(), key=lambda item: -item[1])[:3]
            by_event = "; ".join(f"{event}: {n:,}" for event, n in largest)
            sources.append(f"{len(records):,} games of {names} ({by_event})")
            kind = "games" if options.games else "recorded games"
            choices["records"] = records_digest(options.records)
        source = " and ".join(sources)
        cached = options.cache / cache_name(games_file.name, **choices)
    if cached.exists():
        positions, games = load_positions(cached)
        print(f"positions: {cached} (cached)")
    elif game == "xiangqi":
        positions, games = extract(
            options.archive,
            positions=options.positions,
            per_game=options.per_game,
            skip=options.skip,
            seed=options.seed,
            validation=options.validation,
            jobs=options.jobs,
            start=options.start,
        )
        save_positions(cached, positions, games)
        print(f"positions: extracted in {time.monotonic() - started:.0f} s, kept in {cached}")
    else:
        played: list[SelfPlayGame] = []
        if options.games:
            played, seconds = selfplay_games.play_run(options)
            print(f"games: {len(played):,}, {seconds:.0f} s playing the ones not kept")
        picked = time.monotonic()
        positions = []
        everything: list[ScoredGame] = [*played, *records]
        for one in everything:
            chosen = positions_of(
                one,
                per_game=options.per_game,
                skip=options.skip,
                seed=options.seed,
                validation=options.validation,
                weights=start,
                variant="janggi",
            )
            positions.extend(chosen[: options.positions - len(positions)])
        games = len(everything)
        save_positions(cached, positions, games)
        print(f"positions: picked in {time.monotonic() - picked:.0f} s, kept in {cached}")
    samples = [
        (sample_of(Board(p.fen, variant=game), p.score, start), p.validation) for p in positions
    ]
    train = [s for s, held in samples if not held]
    held_out = [s for s, held in samples if held]
    draws = sum(1 for s, _ in samples if s.score == 0.5)
    first = sum(1 for s, _ in samples if s.score == 1.0)
    sides = ("Cho", "Han") if game == "janggi" else ("Red", "Black")
    print(
        f"{len(samples):,} quiet positions from {games:,} {kind} "
        f"({sides[0]} won {first:,}, drawn {draws:,}, {sides[1]} won "
        f"{len(samples) - first - draws:,}): "
        f"{len(train):,} to fit, {len(held_out):,} held out (validation)"
    )
    before = Vector.of(start, game)
    k = fit_k(train, before)
    print(f"K = {k:.6f} (fitted to the weights it starts from, --start {options.start})")
    train_before = mean_squared_error(train, before, k)
    valid_before = mean_squared_error(held_out, before, k)
    print(f"mean squared error before: training {train_before:.6f}, validation {valid_before:.6f}")
    fitted = fit(
        train,
        before,
        k,
        iterations=options.iterations,
        rate=options.rate,
        ridge=options.ridge,
    )
    weights = fitted.weights(square_counts(train), start)
    after = Vector.of(weights, game)  # as rounded
    train_after = mean_squared_error(train, after, k)
    valid_after = mean_squared_error(held_out, after, k)
    print(f"mean squared error after:  training {train_after:.6f}, validation {valid_after:.6f}")
    print("\n".join(_show(before, after)))
    print(f"material: {weights.material[2:]} (advisor .. soldier), pawn_crossed in the table")
    if options.out is not None:
        if game == "xiangqi":
            command = f"--positions {options.positions}"
        else:
            command = (
                f"--game janggi --games {options.games} --nodes {options.nodes} "
                f"--random-plies {options.random_plies} --rules {options.rules} "
                f"--positions {options.positions}"
            )
            if options.records:
                command += " --records " + " ".join(path.name for path in options.records)
        summary = [
            f"Data: {source}, {len(samples):,} quiet positions from {games:,} {kind}",
            f"(python tools/texel.py {command} --per-game "
            f"{options.per_game} --skip {options.skip} --seed {options.seed} --start "
            f"{options.start} --iterations "
            f"{options.iterations} --rate {options.rate} --ridge {options.ridge}).",
            f"K = {k:.6f}; mean squared error, training {train_before:.6f} -> {train_after:.6f},",
            f"validation {valid_before:.6f} -> {valid_after:.6f}.",
            *(["", CREDIT] if game == "xiangqi" else []),
        ]
        options.out.write_text(module_text(weights, summary, game), encoding="utf-8")
        print(f"written: {options.out}")
    print(f"{time.monotonic() - started:.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
