"""Fit the evaluation weights to self-play outcomes (the Texel method), in pure Python.

Run from the repository root::

    .venv/bin/python bench/selfplay.py --games 1000 --jobs 2 --depth 1 --record data.jsonl
    .venv/bin/python tools/tune.py data.jsonl --out fitted.json

The data are the positions ``bench/selfplay.py --record`` samples, each with the game's
result from the side to move's view. Only quiet positions are used: the side to move is
not in check, and neither the move played from the position nor the one that led to it
took a piece (so a capture-only quiescence search would not change the score much).

The evaluation is linear in its weights: ``evaluate.features`` times
``evaluate.weight_vector`` (the tests of the evaluation check it). For each game
(xiangqi, janggi) the script

1. turns every position into its features (first mover's view) and the result into the
   first mover's score ``y`` (1, 0.5, 0);
2. fits the scale ``K`` of ``p = 1 / (1 + exp(-K * eval))`` with the current weights
   (minimising the mean squared error of ``p`` against ``y``);
3. with ``K`` fixed, fits the weights by damped Gauss-Newton steps on the same squared
   error plus a ridge penalty pulling each weight towards its current value (``--ridge``,
   in units of the weight's scale), keeping them sane after each step (material ordering:
   chariot above horse and cannon, those above advisors and elephants, those at least a
   soldier; positive mobility; bounded positional scale);
4. rounds to integers and reports the error before and after, on the fitted positions and
   on a held-out part (``--holdout``, whole positions chosen by a seeded hash).

It prints the current and fitted weights side by side, and with ``--out`` writes them as
JSON that ``bench/selfplay.py --weights2`` reads.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from pathlib import Path

from chuhan.board import Board
from chuhan.search.evaluate import (
    FEATURE_NAMES,
    JANGGI_WEIGHTS,
    XIANGQI_WEIGHTS,
    EvalWeights,
    evaluator_for,
    features,
    weight_vector,
)

CURRENT = {"xiangqi": XIANGQI_WEIGHTS, "janggi": JANGGI_WEIGHTS}

#: The scale of each weight (the ridge penalty and the step damping use it).
SCALE = {
    "advisor": 40.0,
    "elephant": 40.0,
    "horse": 60.0,
    "rook": 100.0,
    "cannon": 60.0,
    "pawn": 30.0,
    "pawn_crossed": 30.0,
    "placement": 30.0,
    "rook_mobility": 2.0,
    "horse_leg": 4.0,
    "elephant_eye": 4.0,
    "attack_horse": 6.0,
    "attack_rook": 6.0,
    "attack_cannon": 6.0,
    "attack_pawn": 6.0,
    "tempo": 10.0,
    "second_player_bonus": 40.0,
}

#: Weights not fitted, per game: xiangqi has no second-player bonus, and a janggi soldier
#: never "crosses the river". The positional scale stays at 100%: the evaluator rounds
#: ``table * placement // 100`` piece by piece, so any other scale makes the evaluation
#: drift from the dot product of features and weights (which the tests hold within 2).
FROZEN = {
    "xiangqi": {"second_player_bonus", "placement"},
    "janggi": {"pawn_crossed", "placement"},
}

Sample = tuple[list[float], float]


def load(paths: Sequence[str]) -> dict[str, list[tuple[Board, float]]]:
    """Quiet positions per game, with the first mover's score."""
    data: dict[str, list[tuple[Board, float]]] = {"xiangqi": [], "janggi": []}
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    if row["check"] or row["capture"]:
                        continue
                    board = Board(row["fen"], variant=row["variant"])
                    result = float(row["result"])
                except (KeyError, ValueError, TypeError) as error:
                    raise SystemExit(
                        f"tools/tune.py: {path}:{number}: bad record: {error}"
                    ) from None
                y = result if board.turn else 1.0 - result
                data[board.variant.game].append((board, y))
    return data


def to_samples(game: str, boards: list[tuple[Board, float]]) -> list[Sample]:
    ev = evaluator_for(game, CURRENT[game])
    return [(features(ev, b.placement, b.turn), y) for b, y in boards]


def _sigmoid(x: float) -> float:
    if x < -500:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


def mse(samples: Sequence[Sample], w: Sequence[float], k: float) -> float:
    total = 0.0
    for f, y in samples:
        e = sum(map(float.__mul__, f, w))
        d = y - _sigmoid(k * e)
        total += d * d
    return total / max(1, len(samples))


def golden_k(error: Callable[[float], float], lo: float, hi: float, steps: int) -> float:
    """The K between ``lo`` and ``hi`` minimising ``error(log K)`` (a golden-section search
    on log K, ``steps`` narrowings; the error is taken to have one minimum there). Also
    ``tools/texel.py``'s."""
    lo, hi = math.log(lo), math.log(hi)
    ratio = (math.sqrt(5) - 1) / 2
    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fa, fb = error(a), error(b)
    for _ in range(steps):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - ratio * (hi - lo)
            fa = error(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + ratio * (hi - lo)
            fb = error(b)
    return math.exp((lo + hi) / 2)


def fit_k(samples: Sequence[Sample], w: Sequence[float]) -> float:
    """The K minimising the error with weights ``w`` (:func:`golden_k`)."""
    evals = [(sum(map(float.__mul__, f, w)), y) for f, y in samples]

    def err(log_k: float) -> float:
        k = math.exp(log_k)
        return sum((y - _sigmoid(k * e)) ** 2 for e, y in evals) / max(1, len(evals))

    return golden_k(err, 1e-6, 0.05, 40)


def sane(game: str, w: list[float], w0: Sequence[float]) -> list[float]:
    """Clamp ``w`` (FEATURE_NAMES order) to sane values: material ordering, positive
    mobility, a bounded positional scale; frozen weights keep their current value."""
    i = {name: n for n, name in enumerate(FEATURE_NAMES)}
    w = list(w)
    for name in FROZEN[game]:
        w[i[name]] = w0[i[name]]
    w[i["pawn"]] = max(w[i["pawn"]], 50.0)
    for name in ("advisor", "elephant"):
        w[i[name]] = max(w[i[name]], w[i["pawn"]])
    minor = max(w[i["advisor"]], w[i["elephant"]]) + 50
    for name in ("horse", "cannon"):
        w[i[name]] = max(w[i[name]], minor)
    w[i["rook"]] = max(w[i["rook"]], max(w[i["horse"]], w[i["cannon"]]) + 150)
    w[i["placement"]] = min(max(w[i["placement"]], 25.0), 200.0)
    w[i["rook_mobility"]] = min(max(w[i["rook_mobility"]], 1.0), 8.0)
    w[i["horse_leg"]] = min(max(w[i["horse_leg"]], 1.0), 16.0)
    for name in ("elephant_eye", "pawn_crossed", "tempo", "second_player_bonus"):
        w[i[name]] = max(w[i[name]], 0.0)
    for name in ("attack_horse", "attack_rook", "attack_cannon", "attack_pawn"):
        w[i[name]] = min(max(w[i[name]], 0.0), 40.0)
    return w


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Solve ``a x = b`` (small, symmetric positive definite) by Gaussian elimination."""
    n = len(b)
    m = [[*row, b[r]] for r, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        if abs(m[c][c]) < 1e-300:
            continue
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            if f:
                for j in range(c, n + 1):
                    m[r][j] -= f * m[c][j]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        if abs(m[r][r]) < 1e-300:
            continue
        x[r] = (m[r][n] - sum(m[r][j] * x[j] for j in range(r + 1, n))) / m[r][r]
    return x


def fit_weights(
    game: str,
    samples: Sequence[Sample],
    w0: Sequence[float],
    k: float,
    *,
    ridge: float,
    iterations: int = 12,
    log: bool = True,
) -> list[float]:
    """Damped Gauss-Newton on mean((y - sigmoid(K w.f))^2) + ridge * sum(((w - w0)/s)^2)."""
    free = [
        n
        for n, name in enumerate(FEATURE_NAMES)
        if name not in FROZEN[game] and any(f[n] for f, _ in samples)
    ]
    scale = [SCALE[FEATURE_NAMES[n]] for n in free]
    count = max(1, len(samples))
    w = list(w0)
    damping = 1e-3
    best_loss = math.inf

    def loss(weights: Sequence[float]) -> float:
        prior = sum(((weights[n] - w0[n]) / s) ** 2 for n, s in zip(free, scale, strict=True))
        return mse(samples, weights, k) + ridge * prior

    best_loss = loss(w)
    for step in range(iterations):
        size = len(free)
        jtj = [[0.0] * size for _ in range(size)]
        jtr = [0.0] * size
        for f, y in samples:
            e = sum(map(float.__mul__, f, w))
            p = _sigmoid(k * e)
            g = k * p * (1 - p)
            # Work in scaled coordinates: d p / d theta_j = g * f_j * s_j.
            row = [g * f[n] * s for n, s in zip(free, scale, strict=True)]
            r = y - p
            for a_index, ra in enumerate(row):
                if ra:
                    jtr[a_index] += ra * r
                    line = jtj[a_index]
                    for b_index in range(a_index, size):
                        line[b_index] += ra * row[b_index]
        for a_index in range(size):
            for b_index in range(a_index):
                jtj[a_index][b_index] = jtj[b_index][a_index]
        # Mean over samples, plus the ridge prior (in scaled units its Hessian is 2*ridge,
        # halved like the data term's Gauss-Newton matrix).
        for a_index in range(size):
            n = free[a_index]
            jtr[a_index] = jtr[a_index] / count - ridge * (w[n] - w0[n]) / scale[a_index]
            for b_index in range(size):
                jtj[a_index][b_index] /= count
            jtj[a_index][a_index] += ridge
        while True:
            matrix = [row[:] for row in jtj]
            for a_index in range(size):
                matrix[a_index][a_index] *= 1 + damping
            delta = _solve(matrix, jtr)
            trial = list(w)
            for a_index, n in enumerate(free):
                trial[n] += delta[a_index] * scale[a_index]
            trial = sane(game, trial, w0)
            trial_loss = loss(trial)
            if trial_loss < best_loss or damping > 1e6:
                break
            damping *= 10
        if trial_loss >= best_loss:
            break
        improvement = best_loss - trial_loss
        w, best_loss = trial, trial_loss
        damping = max(damping / 10, 1e-6)
        if log:
            print(f"  {game} step {step + 1}: loss {best_loss:.6f}", file=sys.stderr)
        if improvement < 1e-7:
            break
    return w


def to_weights(game: str, w: Sequence[float]) -> EvalWeights:
    v = [round(x) for x in w]
    current = CURRENT[game]
    material = (current.material[0], current.material[1], *v[0:6])
    attack = (*current.attack[:4], *v[11:15])
    return replace(
        current,
        material=tuple(material),
        pawn_crossed=v[6],
        placement=v[7],
        rook_mobility=v[8],
        horse_leg=v[9],
        elephant_eye=v[10],
        attack=tuple(attack),
        tempo=v[15],
        second_player_bonus=v[16],
    )


def split(samples: list[Sample], holdout: float, seed: int) -> tuple[list[Sample], list[Sample]]:
    rng = random.Random(seed)
    train: list[Sample] = []
    test: list[Sample] = []
    for sample in samples:
        (test if rng.random() < holdout else train).append(sample)
    return train, test


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Texel tuning of chuhan's evaluation weights.")
    p.add_argument("data", nargs="+", help="JSON lines from bench/selfplay.py --record")
    p.add_argument("--holdout", type=float, default=0.2, help="share held out (default 0.2)")
    p.add_argument(
        "--ridge",
        type=float,
        default=1e-4,
        help="pull towards the current weights, per squared scale unit",
    )
    p.add_argument("--iterations", type=int, default=12)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--freeze",
        action="append",
        default=[],
        metavar="GAME:WEIGHT",
        help="keep a weight at its current value, e.g. janggi:second_player_bonus (repeatable)",
    )
    p.add_argument("--out", help="write the fitted weights (JSON) here")
    args = p.parse_args(argv)
    if not 0 <= args.holdout < 1:
        p.error(f"--holdout must be in [0, 1), got {args.holdout}")
    for path in args.data:
        if not Path(path).is_file():
            p.error(f"no such data file: {path}")
    for item in args.freeze:
        game, _, name = item.partition(":")
        if game not in FROZEN or name not in FEATURE_NAMES:
            p.error(f"--freeze {item!r}: expected GAME:WEIGHT, e.g. janggi:tempo")
        FROZEN[game].add(name)

    data = load(args.data)
    fitted: dict[str, EvalWeights] = {}
    report: dict[str, dict[str, float | int]] = {}
    for game in ("xiangqi", "janggi"):
        if len(data[game]) < 100:
            print(f"{game}: only {len(data[game])} quiet positions, not fitted", file=sys.stderr)
            continue
        samples = to_samples(game, data[game])
        train, test = split(samples, args.holdout, args.seed)
        w0 = weight_vector(CURRENT[game])
        k = fit_k(train, w0)
        print(
            f"{game}: {len(train)} positions to fit, {len(test)} held out; K = {k:.6f}",
            file=sys.stderr,
        )
        w = fit_weights(game, train, w0, k, ridge=args.ridge, iterations=args.iterations)
        new = to_weights(game, w)
        w1 = weight_vector(new)
        fitted[game] = new
        report[game] = {
            "positions": len(train),
            "held_out": len(test),
            "K": k,
            "mse_before": mse(train, w0, k),
            "mse_after": mse(train, w1, k),
            "holdout_before": mse(test, w0, k),
            "holdout_after": mse(test, w1, k),
        }
        print(f"\n{game}: K = {k:.6f} ({len(train)} positions fitted, {len(test)} held out)")
        print(f"  {'weight':22} {'current':>8} {'fitted':>8}")
        for name, a, b in zip(FEATURE_NAMES, w0, w1, strict=True):
            mark = "" if name not in FROZEN[game] else "  (frozen)"
            print(f"  {name:22} {a:8.0f} {b:8.0f}{mark}")
        r = report[game]
        print(
            f"  mean squared error, fitted positions: {r['mse_before']:.6f} -> {r['mse_after']:.6f}"
        )
        print(
            f"  mean squared error, held out:         {r['holdout_before']:.6f} -> "
            f"{r['holdout_after']:.6f}"
        )
        print(f"  {game.upper()}_WEIGHTS = {new!r}")
    if args.out:
        Path(args.out).write_text(
            json.dumps({g: asdict(w) for g, w in fitted.items()} | {"fit": report}, indent=1)
            + "\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
