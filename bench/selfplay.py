"""Self-play of chuhan's engine against itself, refereed move by move by :class:`Game`.

Run from the repository root::

    .venv/bin/python bench/selfplay.py --games 1000 --jobs 2 --depth 1 --random-plies 6 \
        --record data.jsonl --sample-every 3          # self-play check + tuning data
    .venv/bin/python bench/selfplay.py --games 60 --nodes 300 --variants janggi
    .venv/bin/python bench/selfplay.py --games 20 --movetime 1000 --movetime2 250 \
        --variants xiangqi:asian,janggi:official       # does the search scale with time?

Two players, A and B, each a :class:`~chuhan.search.search.Searcher` with its own level,
limits and (optionally) evaluation weights (``--weights2 FILE``: JSON from
``tools/tune.py``). Games come in colour-swapped pairs: both games of a pair use the same
rule set, the same janggi arrangements (chosen at random for each side) and the same
opening (``--random-plies`` random legal moves, no passes, seeded). The rule sets cycle
through ``--variants`` (all six by default: xiangqi asian and chinese; janggi official,
traditional, modern and classic).

Every move goes through :meth:`Game.push`; before it, the move is checked against the
board's legal moves. An error is any exception, a search returning no move while the
referee says the game goes on, an illegal move, or a game still running after
``--max-plies`` (default 3,000: the referee's move limits end games long before that, but
janggi's 1995 rules have no move limit, only repetition, and a side far ahead that cannot
mate at depth 1 may avoid repeating for over a thousand plies). Errors are listed with the
position and the moves.

The report gives the errors, the results per rule set (first mover's wins, draws, second
mover's wins), the terminations, the average plies, the time, and player A's score
against B with the Elo difference and its 95% error. ``--json`` prints it as JSON.

``--record FILE`` writes positions for tuning (JSON lines): ``fen``, ``variant``,
``ply``, ``result`` (1, 0.5 or 0 from the side to move's view), ``check`` (the side to
move is in check) and ``capture`` (the move played from it, or the one before it, took a
piece). One position in ``--sample-every`` after the opening is kept.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
import traceback
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import chuhan.search.tree as tree_module
from chuhan.game import Game
from chuhan.search.evaluate import EvalWeights, evaluator_for
from chuhan.search.limits import SearchLimits
from chuhan.search.search import Searcher
from chuhan.variants import HAN, JANGGI_ARRANGEMENTS, VARIANTS, Variant, get_variant

ALL_VARIANTS = tuple(VARIANTS)


@dataclass(frozen=True)
class Player:
    """One side of the self-play: level, limits, and weights per game (None: the
    library's current constants)."""

    level: int = 8
    depth: int | None = None
    nodes: int | None = None
    movetime: int | None = None
    weights: dict[str, EvalWeights] | None = None

    def limits(self) -> SearchLimits:
        return SearchLimits(depth=self.depth, nodes=self.nodes, movetime=self.movetime)


@dataclass(frozen=True)
class GameSpec:
    """One game to play: ``a_first`` says whether player A moves first."""

    index: int
    variant: str
    a_first: bool
    seed: int
    random_plies: int = 0
    fen: str | None = None
    max_plies: int = 3000
    sample_every: int = 0


@dataclass
class GameReport:
    index: int
    variant: str
    a_first: bool
    #: "1-0", "0-1", "1/2-1/2" (first mover's view), or "" when the game did not end.
    result: str = ""
    termination: str = ""
    reason: str = ""
    plies: int = 0
    seconds: float = 0.0
    error: str | None = None
    start_fen: str = ""
    moves: list[str] = field(default_factory=list)
    samples: list[dict[str, Any]] = field(default_factory=list)

    def score_a(self) -> float | None:
        """Player A's score (1, 0.5, 0), None for an unfinished game."""
        if self.result == "1/2-1/2":
            return 0.5
        if self.result in ("1-0", "0-1"):
            return 1.0 if (self.result == "1-0") == self.a_first else 0.0
        return None


@contextmanager
def _weights(weights: EvalWeights | None) -> Iterator[None]:
    """Make the search use ``weights`` (the search takes its evaluator from
    ``evaluator_for(game)``; self-play runs one search at a time per process)."""
    if weights is None:
        yield
        return
    original = getattr(tree_module, "evaluator_for")  # noqa: B009

    def patched(game: str, _unused: EvalWeights | None = None) -> Any:
        return evaluator_for(game, weights)

    setattr(tree_module, "evaluator_for", patched)  # noqa: B010
    try:
        yield
    finally:
        setattr(tree_module, "evaluator_for", original)  # noqa: B010


def new_game(variant: Variant, rng: random.Random, fen: str | None = None) -> Game:
    """A game of ``variant``; janggi from the start gets random arrangements (Han first)."""
    if fen is not None:
        return Game.new(variant, fen=fen)
    game = Game.new(variant)
    if variant.is_janggi:
        game.choose_setup(HAN, rng.choice(JANGGI_ARRANGEMENTS))
        game.choose_setup(not HAN, rng.choice(JANGGI_ARRANGEMENTS))
    return game


def opening(variant: Variant, spec: GameSpec) -> Game:
    """The game after ``spec.random_plies`` random legal moves (no passes), seeded: both
    games of a pair get the same. An opening that ends the game is drawn again."""
    rng = random.Random(spec.seed)
    while True:
        game = new_game(variant, rng, spec.fen)
        for _ in range(spec.random_plies):
            moves = [m for m in game.board.legal_moves if not m.is_pass()]
            if not moves or game.outcome() is not None:
                break
            game.push(rng.choice(moves))
        if game.outcome() is None:
            return game


def play_game(spec: GameSpec, a: Player, b: Player) -> GameReport:
    """Play one game to the referee's verdict; never raises (errors are reported)."""
    variant = get_variant(spec.variant)
    report = GameReport(spec.index, variant.name, spec.a_first)
    started = time.perf_counter()
    game: Game | None = None
    try:
        game = opening(variant, spec)
        report.start_fen = game.board.fen()
        searchers = {
            spec.a_first: (Searcher(seed=spec.seed * 2 + 1), a),
            not spec.a_first: (Searcher(seed=spec.seed * 2 + 2), b),
        }
        rng = random.Random(spec.seed ^ 0x5EED)
        plies = 0
        last_capture = False
        samples: list[tuple[dict[str, Any], bool]] = []
        while (outcome := game.outcome()) is None:
            if plies >= spec.max_plies:
                report.error = f"no verdict after {plies} plies: the game did not end"
                break
            board = game.board
            searcher, player = searchers[board.turn]
            weights = None if player.weights is None else player.weights.get(variant.game)
            with _weights(weights):
                result = searcher.search(board, player.limits(), level=player.level)
            move = result.best
            if move is None:
                report.error = "the search returned no move, but the referee says the game goes on"
                break
            if move not in board.legal_moves:
                report.error = f"the search returned the illegal move {move.iccs()}"
                break
            capture = board.is_capture(move)
            if spec.sample_every and rng.randrange(spec.sample_every) == 0:
                sample = {
                    "fen": board.fen(),
                    "variant": variant.name,
                    "ply": board.ply,
                    "check": board.is_check(),
                    "capture": capture or last_capture,
                }
                samples.append((sample, board.turn))
            game.push(move)
            last_capture = capture
            report.moves.append(move.iccs())
            plies += 1
        else:
            report.result = outcome.result()
            report.termination = outcome.termination.value
            report.reason = outcome.reason
            for sample, turn in samples:
                if outcome.winner is None:
                    sample["result"] = 0.5
                else:
                    sample["result"] = 1.0 if outcome.winner == turn else 0.0
                report.samples.append(sample)
        report.plies = plies
    except Exception:
        report.error = traceback.format_exc()
    if game is not None and report.error and not report.start_fen:
        report.start_fen = game.board.fen()
    report.seconds = time.perf_counter() - started
    return report


def _play(job: tuple[GameSpec, Player, Player]) -> GameReport:
    return play_game(*job)


def schedule(
    games: int,
    variants: Sequence[str],
    *,
    seed: int,
    random_plies: int,
    max_plies: int = 3000,
    sample_every: int = 0,
    fen: str | None = None,
    paired: bool = True,
) -> list[GameSpec]:
    """Colour-swapped pairs over the rule sets in turn (an odd count ends with a single).
    Unpaired (for two equal players, whose paired games would repeat each other), every
    game has its own opening and the colours still alternate."""
    specs = []
    for i in range(games):
        pair = i // 2 if paired else i
        specs.append(
            GameSpec(
                index=i,
                variant=variants[(i // 2) % len(variants)],
                a_first=i % 2 == 0,
                seed=seed * 1_000_003 + pair,
                random_plies=random_plies,
                fen=fen,
                max_plies=max_plies,
                sample_every=sample_every,
            )
        )
    return specs


def run(
    specs: Sequence[GameSpec],
    a: Player,
    b: Player,
    *,
    jobs: int = 1,
    on_game: Any = None,
) -> list[GameReport]:
    """Play ``specs`` on ``jobs`` processes; ``on_game(report)`` as each ends."""
    reports: list[GameReport] = []
    work = [(spec, a, b) for spec in specs]
    if jobs <= 1:
        for job in work:
            report = _play(job)
            reports.append(report)
            if on_game:
                on_game(report)
    else:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for report in pool.imap_unordered(_play, work):
                reports.append(report)
                if on_game:
                    on_game(report)
    reports.sort(key=lambda r: r.index)
    return reports


def elo(score: float) -> float:
    """The Elo difference of a score fraction (clamped away from 0 and 1)."""
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


def elo_with_error(scores: Sequence[float]) -> tuple[float, float, float]:
    """(score fraction, Elo, 95% half-width of the Elo) from per-game scores (the normal
    approximation of the mean score; infinite when its interval reaches 0 or 1)."""
    n = len(scores)
    if n == 0:
        return 0.0, 0.0, math.inf
    mean = sum(scores) / n
    var = sum((s - mean) ** 2 for s in scores) / max(1, n - 1)
    half = 1.96 * math.sqrt(var / n)
    if mean - half <= 0 or mean + half >= 1:
        return mean, elo(mean), math.inf
    return mean, elo(mean), (elo(mean + half) - elo(mean - half)) / 2


def elo_interval(scores: Sequence[float]) -> tuple[float, float]:
    """The 95% Wilson interval of the score as Elo (finite even for a clean sweep;
    draws count as half a win)."""
    n = len(scores)
    if n == 0:
        return -math.inf, math.inf
    p, z = sum(scores) / n, 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return elo(centre - half), elo(centre + half)


def summary(reports: Sequence[GameReport], seconds: float) -> dict[str, Any]:
    errors = [r for r in reports if r.error]
    finished = [r for r in reports if not r.error]
    per_variant: dict[str, Counter[str]] = {}
    for r in finished:
        per_variant.setdefault(r.variant, Counter())[r.result] += 1
    scores = [s for r in finished if (s := r.score_a()) is not None]
    wins = sum(1 for s in scores if s == 1.0)
    draws = sum(1 for s in scores if s == 0.5)
    score, diff, error = elo_with_error(scores)
    low, high = elo_interval(scores)
    return {
        "games": len(reports),
        "errors": len(errors),
        "error_games": [
            {
                "index": r.index,
                "variant": r.variant,
                "error": r.error,
                "start_fen": r.start_fen,
                "moves": " ".join(r.moves),
            }
            for r in errors
        ],
        "results": {
            v: {"first": c["1-0"], "draw": c["1/2-1/2"], "second": c["0-1"]}
            for v, c in sorted(per_variant.items())
        },
        "terminations": dict(Counter(r.termination for r in finished).most_common()),
        "average_plies": (sum(r.plies for r in finished) / len(finished)) if finished else 0.0,
        "max_plies": max((r.plies for r in finished), default=0),
        "seconds": round(seconds, 1),
        "a_vs_b": {
            "wins": wins,
            "draws": draws,
            "losses": len(scores) - wins - draws,
            "score": round(score, 4),
            "elo": round(diff, 1),
            "elo_error95": round(error, 1),
            "elo_wilson95": [round(low, 1), round(high, 1)],
        },
    }


def format_summary(s: dict[str, Any]) -> str:
    lines = [f"games: {s['games']}   errors: {s['errors']}   time: {s['seconds']} s"]
    for e in s["error_games"]:
        lines.append(f"  ERROR game {e['index']} ({e['variant']}): {e['error'].strip()}")
        lines.append(f"    start: {e['start_fen']}")
        lines.append(f"    moves: {e['moves']}")
    lines.append("results (first mover wins / draws / second mover wins):")
    for v, c in s["results"].items():
        lines.append(f"  {v:20} {c['first']:5} {c['draw']:5} {c['second']:5}")
    lines.append("terminations: " + ", ".join(f"{k} {n}" for k, n in s["terminations"].items()))
    lines.append(f"average plies: {s['average_plies']:.1f} (longest {s['max_plies']})")
    ab = s["a_vs_b"]
    error = "inf" if math.isinf(ab["elo_error95"]) else f"{ab['elo_error95']:.1f}"
    lines.append(
        f"A vs B: +{ab['wins']} ={ab['draws']} -{ab['losses']}  score {100 * ab['score']:.1f}%"
        f"  Elo {ab['elo']:+.1f} +/- {error} (95%; Wilson interval "
        f"{ab['elo_wilson95'][0]:+.0f} to {ab['elo_wilson95'][1]:+.0f})"
    )
    return "\n".join(lines)


def load_weights(path: str) -> dict[str, EvalWeights]:
    """Weights per game from a JSON file: ``{"xiangqi": {"material": [...], ...}, ...}``
    (the fields of :class:`EvalWeights`; missing fields keep their defaults)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        result = {}
        for game, fields in data.items():
            if game == "fit":  # tools/tune.py's report
                continue
            if game not in ("xiangqi", "janggi"):
                raise ValueError(f"unknown game {game!r}")
            fields = {k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()}
            result[game] = EvalWeights(**fields)
        return result
    except (OSError, ValueError, TypeError) as error:
        raise SystemExit(f"bench/selfplay.py: cannot read weights {path!r}: {error}") from None


def weights_json(weights: dict[str, EvalWeights]) -> str:
    return json.dumps({g: asdict(w) for g, w in weights.items()}, indent=1)


def _variants(text: str) -> list[str]:
    names: list[str] = []
    for part in text.split(","):
        part = part.strip().lower()
        if part == "all":
            names += ALL_VARIANTS
        elif part in ("xiangqi", "janggi"):
            names += [v for v in ALL_VARIANTS if v.startswith(part + ":")]
        else:
            try:
                names.append(get_variant(part).name)
            except ValueError as error:
                raise argparse.ArgumentTypeError(str(error)) from None
    return names


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description="Self-play of chuhan's engine, refereed by chuhan.game.Game."
    )
    p.add_argument("--games", type=_positive, default=12)
    p.add_argument("--jobs", type=_positive, default=1, help="worker processes")
    p.add_argument(
        "--variants",
        type=_variants,
        default=list(ALL_VARIANTS),
        help="comma list: all, xiangqi, janggi, or game:rules (default all)",
    )
    p.add_argument("--random-plies", type=int, default=4, help="random opening plies")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--fen", help="start every game from this position")
    p.add_argument(
        "--max-plies",
        type=_positive,
        default=3000,
        help="a game longer than this is reported as an error (default 3000)",
    )
    for suffix, who in (("", "player A (and B unless overridden)"), ("2", "player B")):
        p.add_argument(f"--level{suffix}", type=int, choices=range(1, 9), help=f"{who} level")
        p.add_argument(f"--depth{suffix}", type=_positive, help=f"{who} depth")
        p.add_argument(f"--nodes{suffix}", type=_positive, help=f"{who} nodes")
        p.add_argument(f"--movetime{suffix}", type=_positive, help=f"{who} ms per move")
        p.add_argument(f"--weights{suffix}", help=f"{who} weights (JSON from tools/tune.py)")
    p.add_argument("--record", help="write sampled positions (JSON lines) to this file")
    p.add_argument(
        "--sample-every",
        type=_positive,
        default=4,
        help="with --record: keep one position in N (default 4)",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no line per game")
    args = p.parse_args(argv)
    if args.depth is None and args.nodes is None and args.movetime is None:
        p.error("give a limit: --depth, --nodes or --movetime")

    a = Player(
        level=args.level or 8,
        depth=args.depth,
        nodes=args.nodes,
        movetime=args.movetime,
        weights=load_weights(args.weights) if args.weights else None,
    )
    b_limits = (args.depth2, args.nodes2, args.movetime2)
    b = Player(
        level=args.level2 or a.level,
        depth=args.depth2 if any(v is not None for v in b_limits) else a.depth,
        nodes=args.nodes2 if any(v is not None for v in b_limits) else a.nodes,
        movetime=args.movetime2 if any(v is not None for v in b_limits) else a.movetime,
        weights=load_weights(args.weights2) if args.weights2 else a.weights,
    )
    specs = schedule(
        args.games,
        args.variants,
        seed=args.seed,
        random_plies=args.random_plies,
        max_plies=args.max_plies,
        sample_every=args.sample_every if args.record else 0,
        fen=args.fen,
        paired=a != b,
    )
    record = open(args.record, "w", encoding="utf-8") if args.record else None  # noqa: SIM115
    done = 0

    def on_game(r: GameReport) -> None:
        nonlocal done
        done += 1
        if record is not None:
            for sample in r.samples:
                record.write(json.dumps(sample) + "\n")
        if not args.quiet:
            what = f"ERROR {r.error.strip().splitlines()[-1]}" if r.error else r.reason
            print(
                f"[{done}/{len(specs)}] game {r.index} {r.variant} "
                f"A={'first' if r.a_first else 'second'} {r.result or '-'} "
                f"{r.plies} plies {r.seconds:.1f}s: {what}",
                file=sys.stderr,
                flush=True,
            )

    started = time.perf_counter()
    try:
        reports = run(specs, a, b, jobs=args.jobs, on_game=on_game)
    finally:
        if record is not None:
            record.close()
    s = summary(reports, time.perf_counter() - started)
    print(json.dumps(s, indent=1) if args.json else format_summary(s))
    return 1 if s["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
