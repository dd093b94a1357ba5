"""Engine matches: two UCI/UCCI engines play colour-swapped pairs of games under a time
control, refereed by :class:`chuhan.game.Game`, written to PGN and summed up as a score
and an Elo difference. ``chuhan match`` is the command-line front.

Each opening (the start, a line from ``--openings``, or ``--random-plies`` random plies)
is played twice, the engines swapping colours. The referee decides every ending the
rules know (mate, repetition, perpetual check and chase, move limits, janggi passes,
bikjang and points); the match adds only what an engine can do wrong: an illegal or
unreadable move, a crash or silence loses, and so does running out of time on
:class:`chuhan.clock.Clock` (through :meth:`Game.flag`, which keeps xiangqi's "cannot win,
so a draw" rule). Rule sets without a move limit (janggi ``classic``) get a ply limit.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import shlex
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from chuhan.clock import Clock, TimeControl
from chuhan.engine import (
    EngineError,
    EngineMoveError,
    EngineProtocol,
    EngineTimeoutError,
    Limit,
    SimpleEngine,
)
from chuhan.errors import ChuhanError
from chuhan.game import Game
from chuhan.records import GameRecord, read_pgn, write_pgn
from chuhan.squares import Move
from chuhan.variants import JANGGI_ARRANGEMENTS, Variant, get_variant

__all__ = [
    "EngineSpec",
    "GameResult",
    "MatchConfig",
    "MatchError",
    "MatchResult",
    "MatchTimeControl",
    "Opening",
    "Sprt",
    "elo_difference",
    "load_openings",
    "pentanomial",
    "pentanomial_llr",
    "random_opening",
    "run_match",
    "score_from_elo",
]

#: Plies after which a game under a rule set with no move limit is adjudicated a draw.
DEFAULT_MAX_PLIES = 400


#: Random opening plies when neither openings nor a number of plies is given.
DEFAULT_RANDOM_PLIES = 4

#: The most games an SPRT match plays when ``--games`` is not given.
DEFAULT_SPRT_GAMES = 20_000


class MatchError(ChuhanError):
    """A match that cannot be set up: a bad time control, opening file or engine option."""


# ---------------------------------------------------------------------- time control


@dataclass(frozen=True)
class MatchTimeControl:
    """``movetime:S`` (seconds a move), ``depth:N``, ``nodes:N``, or a clock: ``[M/]BASE
    [+INC][|PxS]`` with BASE in seconds (``s``) or minutes (``m``), an increment in
    seconds, ``M`` moves per session, and byo-yomi as ``P`` periods of ``S`` seconds
    (the order :meth:`chuhan.clock.TimeControl.parse` reads)."""

    kind: Literal["movetime", "depth", "nodes", "clock"]
    value: float = 0.0
    clock: TimeControl | None = None
    #: Moves per session (``40/...``): the base time is added again after each session.
    moves: int = 0

    _FIXED = re.compile(r"^\s*(movetime|depth|nodes)\s*[:=]\s*(\S+)\s*$", re.IGNORECASE)
    _SESSION = re.compile(r"^\s*(\d+)\s*/\s*(.+)$")
    _BARE_BASE = re.compile(r"^\s*(\d+(?:\.\d+)?)(?![\d.ms])")

    @classmethod
    def parse(cls, text: str) -> MatchTimeControl:
        fixed = cls._FIXED.match(text)
        if fixed is not None:
            kind = fixed[1].lower()
            try:
                value = float(fixed[2])
            except ValueError:
                value = math.nan
            whole = kind != "movetime"
            if not math.isfinite(value) or value <= 0 or (whole and not value.is_integer()):
                wanted = "seconds > 0" if kind == "movetime" else "a whole number > 0"
                raise MatchError(f"invalid time control {text!r}: {kind} needs {wanted}")
            return cls(kind, value)  # type: ignore[arg-type]
        moves = 0
        rest = text
        session = cls._SESSION.match(text)
        if session is not None:
            moves = int(session[1])
            rest = session[2]
            if moves < 1:
                raise MatchError(f"invalid time control {text!r}: moves per session must be > 0")
        # A bare base is seconds here (engine-match custom); TimeControl.parse reads minutes.
        rest = cls._BARE_BASE.sub(lambda m: f"{m[1]}s", rest, count=1).replace("|", " ")
        try:
            control = TimeControl.parse(rest)
        except ChuhanError as error:
            # The clock parser's own wording is about its form (minutes, spaces); say what
            # is wrong in this form instead, and add its reason when it is not the syntax.
            detail = str(error).split(": ", 1)[-1] if "expected forms" not in str(error) else ""
            raise MatchError(
                f"invalid time control {text!r}"
                + (f": {detail}" if detail else "")
                + ": expected movetime:S, depth:N, nodes:N or a clock like 60+0.5 (seconds + "
                "increment), 40/60+0.5, 5m+2 or 60|3x10 (3 byo-yomi periods of 10 s)"
            ) from None
        if moves and not control.base:
            raise MatchError(f"invalid time control {text!r}: a session needs a base time")
        return cls("clock", 0.0, control, moves)

    def describe(self) -> str:
        if self.kind == "movetime":
            return f"{self.value:g} s a move"
        if self.kind in ("depth", "nodes"):
            return f"{self.kind} {self.value:g}"
        assert self.clock is not None
        text = self.clock.describe()
        return f"{self.moves} moves in {text}" if self.moves else text

    def pgn(self) -> str:
        """The PGN ``TimeControl`` header value."""
        if self.kind == "movetime":
            return f"{self.value:g}/move"
        if self.kind != "clock":
            return "-"
        assert self.clock is not None
        text = f"{self.clock.base:g}"
        if self.moves:
            text = f"{self.moves}/{text}"
        if self.clock.increment:
            text += f"+{self.clock.increment:g}"
        if self.clock.periods:
            text += f"|{self.clock.periods}x{self.clock.period_seconds:g}"
        return text


# ---------------------------------------------------------------------- openings


@dataclass(frozen=True)
class Opening:
    """A start for a pair of games: a FEN (None: the variant's start, or for janggi the
    setup phase with ``setup``), moves played from it, and a label for the PGN."""

    fen: str | None = None
    moves: tuple[Move, ...] = ()
    setup: tuple[tuple[str, str], ...] = ()
    label: str = ""

    def new_game(self, variant: Variant) -> Game:
        """A game at the end of the opening (raises ChuhanError if it is not playable)."""
        game = Game.new(variant, fen=self.fen, setup=dict(self.setup) or None)
        for move in self.moves:
            game.push(move)
        return game


def _janggi_setup(
    variant: Variant, fen: str | None, arrangement: tuple[str, str]
) -> dict[str, str]:
    if not variant.is_janggi or fen is not None:
        return {}
    return {"han": arrangement[1], "cho": arrangement[0]}


def load_openings(
    path: str | Path, variant: Variant, arrangement: tuple[str, str] = ("마상상마", "마상상마")
) -> list[Opening]:
    """Openings from a file: PGN (``.pgn``: each game's start and main line), or text with
    one opening a line: a FEN, optionally followed by ``moves m1 m2 ...``, or ICCS moves
    from the start (janggi: from the ``arrangement`` setup, Cho's then Han's). Blank lines
    and ``#`` comments are skipped. Every opening is checked by playing it."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise MatchError(f"cannot read the openings file {str(file)!r}: {error}") from None
    openings: list[Opening] = []
    if file.suffix.lower() == ".pgn":
        for index, record in enumerate(read_pgn(text)):
            where = f"{file}: {record.describe(index)}"
            if record.errors:
                raise MatchError(f"{where}: {record.errors[0]}")
            if record.variant.game != variant.game:
                raise MatchError(f"{where} is {record.variant.game}, not {variant.game}")
            openings.append(
                _checked(
                    Opening(
                        record.fen,
                        tuple(record.main_line_moves()),
                        label=f"{file.name} {index + 1}",
                    ),
                    variant,
                    where,
                )
            )
    else:
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            where = f"{file}:{number}"
            fen: str | None = None
            words = line.split()
            if "/" in words[0]:
                at = words.index("moves") if "moves" in words else len(words)
                fen, words = " ".join(words[:at]), words[at + 1 :]
            try:
                moves = tuple(Move.from_iccs(word) for word in words)
            except ChuhanError as error:
                raise MatchError(f"{where}: {error}") from None
            setup = tuple(_janggi_setup(variant, fen, arrangement).items())
            openings.append(
                _checked(Opening(fen, moves, setup, f"{file.name}:{number}"), variant, where)
            )
    if not openings:
        raise MatchError(f"the openings file {str(file)!r} holds no opening")
    return openings


def _checked(opening: Opening, variant: Variant, where: str) -> Opening:
    try:
        game = opening.new_game(variant)
    except ChuhanError as error:
        raise MatchError(f"{where}: {error}") from None
    if game.outcome() is not None:
        raise MatchError(f"{where}: the opening ends the game ({game.outcome()})")
    return opening


def random_opening(
    variant: Variant, plies: int, rng: random.Random, arrangement: tuple[str, str]
) -> Opening:
    """``plies`` random legal moves (no passes) from the start, ending in a game that goes
    on; janggi starts from the ``(cho, han)`` arrangement."""
    setup = tuple(_janggi_setup(variant, None, arrangement).items())
    for _ in range(100):
        game = Opening(setup=setup).new_game(variant)
        moves: list[Move] = []
        while len(moves) < plies and game.outcome() is None:
            choices = [m for m in game.board.legal_moves if not m.is_pass()]
            if not choices:
                break
            move = rng.choice(choices)
            game.push(move)
            moves.append(move)
        if len(moves) == plies and game.outcome() is None:
            return Opening(None, tuple(moves), setup, f"random {plies} plies")
    raise MatchError(f"found no {plies}-ply random opening that leaves the game going")


# ---------------------------------------------------------------------- config, results


@dataclass(frozen=True)
class EngineSpec:
    """How to start one engine: its command line, protocol, options and coordinates."""

    command: str | Sequence[str]
    protocol: EngineProtocol = "uci"
    options: tuple[tuple[str, str], ...] = ()
    coordinates: str | None = None

    def start(self) -> SimpleEngine:
        popen = SimpleEngine.popen_ucci if self.protocol == "ucci" else SimpleEngine.popen_uci
        return popen(self.command, coordinates=self.coordinates, options=dict(self.options))

    def label(self) -> str:
        return self.command if isinstance(self.command, str) else shlex.join(self.command)


def parse_option(text: str) -> tuple[str, str]:
    """``"Skill Level=3"`` -> ``("Skill Level", "3")``."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise MatchError(f"invalid engine option {text!r}: expected Name=Value")
    return name.strip(), value.strip()


@dataclass(frozen=True)
class MatchConfig:
    engines: tuple[EngineSpec, EngineSpec]
    variant: Variant
    time_control: MatchTimeControl
    games: int = 2
    openings: tuple[Opening, ...] = ()
    random_plies: int = 0
    #: Janggi without a FEN: ``"default"`` (마상상마 both) or ``"random"`` (one per pair).
    janggi_setup: Literal["default", "random"] = "default"
    pgn: str | None = None
    concurrency: int = 1
    seed: int | None = None
    max_plies: int = DEFAULT_MAX_PLIES
    #: movetime matches: seconds over the movetime after which a move loses on time.
    time_margin: float = 1.0
    #: The second engine's own limit (a handicap match, e.g. nodes against nodes); None:
    #: both play under ``time_control``. Only fixed limits (movetime, depth, nodes) differ.
    time_control2: MatchTimeControl | None = None
    #: Stop as soon as this test accepts a hypothesis (``games`` is then the most played).
    sprt: Sprt | None = None

    def control_of(self, engine: int) -> MatchTimeControl:
        """The time control engine ``engine`` (0 or 1) plays under."""
        if engine == 1 and self.time_control2 is not None:
            return self.time_control2
        return self.time_control

    def describe_control(self) -> str:
        if self.time_control2 is None or self.time_control2 == self.time_control:
            return self.time_control.describe()
        return f"{self.time_control.describe()} against {self.time_control2.describe()}"


@dataclass(frozen=True)
class GameResult:
    """One finished game. ``first_engine`` is the index (0 or 1) of the engine that had the
    first move (xiangqi red, janggi Cho)."""

    number: int
    pair: int
    first_engine: int
    result: str
    termination: str
    reason: str
    plies: int
    record: GameRecord

    def score(self, engine: int = 0) -> float:
        """Points (1, 0.5, 0) of ``engine`` in this game."""
        if self.result == "1/2-1/2":
            return 0.5
        first_won = self.result == "1-0"
        return 1.0 if first_won == (self.first_engine == engine) else 0.0


def elo_from_score(score: float) -> float:
    """The logistic Elo difference behind an expected score (inf at 0 or 1)."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def elo_difference(results: Sequence[GameResult]) -> tuple[float, float, str]:
    """Engine 1's Elo difference, the half-width of its 95% interval, and the model used:
    the pentanomial model over colour-swapped pairs when there are two or more complete
    pairs (the pair scores' variance, which accounts for the opening shared by a pair),
    else the per-game (trinomial) variance."""
    if not results:
        return 0.0, math.inf, "no games"
    by_pair: dict[int, list[float]] = {}
    for game in results:
        by_pair.setdefault(game.pair, []).append(game.score())
    pairs = [sum(scores) / 2 for scores in by_pair.values() if len(scores) == 2]
    if len(pairs) >= 2:
        samples, model = pairs, f"pentanomial model over {len(pairs)} game pairs"
    else:
        samples, model = (
            [g.score() for g in results],
            f"per-game variance over {len(results)} games",
        )
    n = len(samples)
    mean = sum(game.score() for game in results) / len(results)
    variance = sum((x - sum(samples) / n) ** 2 for x in samples) / n
    margin = 1.959964 * math.sqrt(variance / n)
    low, high = elo_from_score(mean - margin), elo_from_score(mean + margin)
    half = (high - low) / 2 if math.isfinite(low) and math.isfinite(high) else math.inf
    return elo_from_score(mean), half, model


# ---------------------------------------------------------------------- SPRT

#: The score of a colour-swapped pair (its two games' points over 2): the pentanomial
#: model's five outcomes, 0-0, 0-1/2, 1/2-1/2 or 1-0, 1-1/2, 1-1.
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)

#: The count put in place of an outcome not seen yet, so that the likelihood of a score
#: outside the outcomes seen (every pair won, say) stays finite.
UNSEEN_PAIRS = 1e-3


def score_from_elo(elo: float) -> float:
    """The expected score of a logistic Elo difference."""
    return 1 / (1 + 10 ** (-elo / 400))


def pentanomial(results: Sequence[GameResult]) -> tuple[int, int, int, int, int]:
    """How many complete colour-swapped pairs engine 1 scored 0, 1/4, 1/2, 3/4 and 1 in
    (a pair's two games' points over 2); a pair with one game played is not counted."""
    by_pair: dict[int, list[float]] = {}
    for game in results:
        by_pair.setdefault(game.pair, []).append(game.score())
    counts = [0] * 5
    for scores in by_pair.values():
        if len(scores) == 2:
            counts[round(2 * sum(scores))] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


def pentanomial_llr(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """The generalized SPRT's log-likelihood ratio of H1 (engine 1 is ``elo1`` stronger)
    against H0 (``elo0`` stronger) after pairs scored as ``counts`` (see :func:`pentanomial`).

    Under a hypothesis "the expected pair score is s" the likelihood is maximised over
    every distribution of the five pair scores x_i with mean s. With f_i the observed
    frequencies, the maximum is at p_i = f_i / (1 + lam (x_i - s)), lam the root of
    sum f_i (x_i - s) / (1 + lam (x_i - s)) = 0 (a Lagrange multiplier; the sum falls
    as lam grows, so the root is found by bisection). The ratio of the two maxima over
    N pairs is N sum f_i log((1 + lam0 (x_i - s0)) / (1 + lam1 (x_i - s1))). For many
    pairs it tends to the normal approximation N (s1 - s0)(2 m - s0 - s1) / (2 var), m and
    var the pair scores' mean and variance."""
    if len(counts) != 5 or any(count < 0 for count in counts):
        raise ValueError(f"invalid pentanomial counts {list(counts)}: expected 5 counts >= 0")
    pairs = sum(counts)
    if pairs == 0:
        return 0.0
    seen = [count if count > 0 else UNSEEN_PAIRS for count in counts]
    total = sum(seen)
    frequencies = [count / total for count in seen]

    def log_denominator(score: float) -> float:
        # sum f_i log(1 + lam (x_i - s)): minus the maximal log-likelihood, up to the
        # entropy of f, which both hypotheses share.
        shifts = [x - score for x in PAIR_SCORES]
        low, high = -1 / shifts[-1], -1 / shifts[0]  # where 1 + lam * shift stays > 0
        for _ in range(200):
            lam = (low + high) / 2
            slope = sum(f * d / (1 + lam * d) for f, d in zip(frequencies, shifts, strict=True))
            if slope > 0:
                low = lam
            else:
                high = lam
            if high - low <= 1e-15 * max(1.0, abs(lam)):
                break
        lam = (low + high) / 2
        return sum(f * math.log(1 + lam * d) for f, d in zip(frequencies, shifts, strict=True))

    return pairs * (log_denominator(score_from_elo(elo0)) - log_denominator(score_from_elo(elo1)))


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of H0 "engine 1 is ``elo0`` Elo stronger"
    against H1 "it is ``elo1`` stronger" (logistic Elo), with false-positive rate
    ``alpha`` and false-negative rate ``beta``, on the pentanomial model."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1)):
            raise MatchError(f"invalid --sprt {self.elo0:g} {self.elo1:g}: expected numbers")
        if not self.elo0 < self.elo1:
            raise MatchError(f"invalid --sprt {self.elo0:g} {self.elo1:g}: ELO0 must be below ELO1")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < value < 0.5:
                raise MatchError(f"invalid --{name} {value:g}: expected a rate between 0 and 0.5")

    @property
    def lower(self) -> float:
        """H0 is accepted at or below this log-likelihood ratio."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """H1 is accepted at or above this log-likelihood ratio."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, results: Sequence[GameResult]) -> float:
        return pentanomial_llr(pentanomial(results), self.elo0, self.elo1)

    def decision(self, llr: float) -> Literal["H0", "H1"] | None:
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None

    def describe(self) -> str:
        return (
            f"SPRT elo0 {self.elo0:g} elo1 {self.elo1:g} "
            f"(alpha {self.alpha:g}, beta {self.beta:g}; "
            f"bounds {self.lower:.2f}, {self.upper:.2f})"
        )


@dataclass
class MatchResult:
    names: tuple[str, str]
    games: list[GameResult] = field(default_factory=list)
    sprt: Sprt | None = None
    #: The SPRT's log-likelihood ratio: when it decided, else after the last pair.
    llr: float = 0.0
    #: The hypothesis the SPRT accepted (None: the games ran out first).
    decision: Literal["H0", "H1"] | None = None
    #: Complete pairs when the SPRT decided or the games ran out.
    decided_after_pairs: int = 0

    def wins_draws_losses(self) -> tuple[int, int, int]:
        scores = [g.score() for g in self.games]
        return scores.count(1.0), scores.count(0.5), scores.count(0.0)

    def score(self) -> float:
        return sum(g.score() for g in self.games) / len(self.games) if self.games else 0.0

    def endings(self) -> Counter[str]:
        return Counter(g.termination for g in self.games)

    def summary(self) -> str:
        wins, draws, losses = self.wins_draws_losses()
        n = len(self.games)
        elo, error, model = elo_difference(self.games)
        endings = ", ".join(f"{name} {count}" for name, count in self.endings().most_common())
        return (
            f"Score of {self.names[0]} vs {self.names[1]}: {wins} - {draws} - {losses} "
            f"[W-D-L] {100 * self.score():.1f}% of {n} game{'s' if n != 1 else ''}\n"
            f"Elo difference: {_signed(elo)} +/- {_plain(error)} (95%, {model})\n"
            f"Endings: {endings or 'none'}" + self._sprt_line()
        )

    def _sprt_line(self) -> str:
        if self.sprt is None:
            return ""
        pairs = self.decided_after_pairs
        when = f"after {pairs} game pair{'s' if pairs != 1 else ''}"
        verdict = (
            f"{self.decision} accepted {when}"
            if self.decision is not None
            else f"no decision {when} (the games ran out)"
        )
        return f"\n{self.sprt.describe()}: {verdict}, LLR {self.llr:.2f}"


def _signed(value: float) -> str:
    if not math.isfinite(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value + 0.0:+.1f}" if abs(value) >= 0.05 else "+0.0"


def _plain(value: float) -> str:
    return f"{value:.1f}" if math.isfinite(value) else "inf"


# ---------------------------------------------------------------------- playing


@dataclass(frozen=True)
class _Job:
    number: int
    pair: int
    first_engine: int
    opening: Opening


class _Fault(Exception):
    """An engine broke the game: it loses (``termination`` and ``reason`` say how)."""

    def __init__(self, side: bool, termination: str, reason: str) -> None:
        super().__init__(reason)
        self.side = side
        self.termination = termination
        self.reason = reason


class _Referee:
    """Plays one game between two started engines."""

    def __init__(self, config: MatchConfig, names: tuple[str, str]) -> None:
        self.config = config
        self.names = names

    def play(self, job: _Job, engines: list[SimpleEngine]) -> tuple[GameResult, set[int]]:
        """Play ``job``; return the result and the engines (indexes) that broke down and
        should be restarted."""
        config = self.config
        variant = config.variant
        control = config.time_control
        game = job.opening.new_game(variant)
        players = {True: job.first_engine, False: 1 - job.first_engine}
        fault: _Fault | None = None
        broken: set[int] = set()
        for index, engine in enumerate(engines):
            try:
                engine.new_game()
            except EngineError as error:
                broken.add(index)
                side = players[True] == index
                reason = f"{variant.side_name(side).capitalize()} ({self.names[index]}) loses"
                fault = _Fault(side, "engine_error", f"{reason}: {error}")
        clock = Clock(control.clock) if control.clock is not None else None
        moved = {True: 0, False: 0}
        safety = 0 if variant.move_limit_plies else config.max_plies
        played = 0
        adjudication: str | None = None
        if clock is not None:
            clock.start(game.board.turn, Clock.now())
        while fault is None and game.outcome() is None:
            if safety and played >= safety:
                adjudication = (
                    f"Draw: adjudicated after {safety} plies (the rule set has no move limit)."
                )
                break
            side = game.board.turn
            index = players[side]
            who = f"{variant.side_name(side).capitalize()} ({self.names[index]})"
            started = Clock.now()
            limit, timeout = self._limit(config.control_of(index), clock, side, moved, started)
            try:
                result = engines[index].play(game.board, limit, timeout=timeout)
            except EngineTimeoutError as error:
                broken.add(index)
                if clock is not None or config.control_of(index).kind == "movetime":
                    game.flag(side)
                else:
                    fault = _Fault(side, "engine_timeout", f"{who} loses: {error}")
                break
            except EngineMoveError as error:
                fault = _Fault(side, "illegal_move", f"{who} loses: {error}")
                break
            except EngineError as error:
                broken.add(index)
                fault = _Fault(side, "engine_error", f"{who} loses: {error}")
                break
            finished = Clock.now()
            if clock is not None:
                if clock.flagged(finished) == side:
                    game.flag(side)
                    break
                clock.press(finished)
                if control.moves and (moved[side] + 1) % control.moves == 0:
                    clock = _new_session(clock, control, side, finished)
            elif (
                config.control_of(index).kind == "movetime"
                and finished - started > config.control_of(index).value + config.time_margin
            ):
                game.flag(side)
                break
            assert result.move is not None  # the engine driver raises on a missing move
            game.push(result.move)
            played += 1
            moved[side] += 1
        return self._finish(job, game, fault, adjudication), broken

    def _limit(
        self,
        control: MatchTimeControl,
        clock: Clock | None,
        side: bool,
        moved: dict[bool, int],
        now: float,
    ) -> tuple[Limit, float | None]:
        """The search limit for ``side`` (playing under ``control``) and how long to wait
        for its move."""
        if control.kind == "movetime":
            return Limit(time=control.value), control.value + self.config.time_margin
        if control.kind == "depth":
            return Limit(depth=int(control.value)), None
        if control.kind == "nodes":
            return Limit(nodes=int(control.value)), None
        tc = control.clock
        assert clock is not None and tc is not None
        movestogo = control.moves - moved[side] % control.moves if control.moves else None
        limit = Limit(
            wtime=clock.remaining(True, now),
            btime=clock.remaining(False, now),
            winc=tc.increment or None,
            binc=tc.increment or None,
            movestogo=movestogo,
            byoyomi=tc.period_seconds if tc.periods else None,
        )
        # Past the flag the move no longer counts: wait a second more, then flag.
        return limit, clock.time_to_flag(side, now) + 1.0

    def _finish(
        self, job: _Job, game: Game, fault: _Fault | None, adjudication: str | None
    ) -> GameResult:
        variant = game.variant
        first, second = self.names[job.first_engine], self.names[1 - job.first_engine]
        keys = ("White", "Black") if variant.is_janggi else ("Red", "Black")
        headers = {
            "Event": f"chuhan match: {self.names[0]} vs {self.names[1]}",
            "Site": "chuhan match",
            "Date": datetime.now(UTC).strftime("%Y.%m.%d"),
            "Round": f"{job.pair}.{job.number - 2 * (job.pair - 1)}",
            keys[0]: first,
            keys[1]: second,
            "TimeControl": self.config.time_control.pgn(),
        }
        if job.opening.label:
            headers["Opening"] = job.opening.label
        record = GameRecord.from_game(game, headers)
        outcome = game.outcome()
        if fault is not None:
            record.result = "0-1" if fault.side else "1-0"
            record.termination = fault.termination
            record.end().comment = fault.reason
            result, termination, reason = record.result, fault.termination, fault.reason
        elif adjudication is not None:
            record.result = "1/2-1/2"
            record.termination = "adjudication"
            record.end().comment = adjudication
            result, termination, reason = "1/2-1/2", "adjudication", adjudication
        else:
            assert outcome is not None
            result, termination, reason = (
                outcome.result(),
                outcome.termination.value,
                outcome.reason,
            )
        return GameResult(
            job.number,
            job.pair,
            job.first_engine,
            result,
            termination,
            reason,
            game.board.ply - len(job.opening.moves),
            record,
        )


def _new_session(clock: Clock, control: MatchTimeControl, side: bool, now: float) -> Clock:
    """A session of ``control.moves`` moves is over: ``side`` gets the base time again.
    The clock has no notion of sessions, so the time is added to a snapshot of it."""
    assert control.clock is not None
    snapshot = clock.to_dict(now)
    snapshot["first" if side else "second"]["main"] += control.clock.base
    return Clock.from_dict(snapshot, now)


def _build_jobs(config: MatchConfig, rng: random.Random) -> Iterator[_Job]:
    """The games in order, each pair's opening made when its first game is asked for (an
    SPRT match may stop long before its last game)."""
    pairs = (config.games + 1) // 2
    for pair in range(1, pairs + 1):
        arrangement = ("마상상마", "마상상마")
        if config.variant.is_janggi and config.janggi_setup == "random":
            arrangement = (rng.choice(JANGGI_ARRANGEMENTS), rng.choice(JANGGI_ARRANGEMENTS))
        if config.openings:
            opening = config.openings[(pair - 1) % len(config.openings)]
            if config.janggi_setup == "random" and opening.setup:
                setup = tuple(_janggi_setup(config.variant, None, arrangement).items())
                opening = Opening(opening.fen, opening.moves, setup, opening.label)
        elif config.random_plies:
            opening = random_opening(config.variant, config.random_plies, rng, arrangement)
        else:
            setup = tuple(_janggi_setup(config.variant, None, arrangement).items())
            opening = Opening(setup=setup)
        for first in (0, 1):
            number = 2 * (pair - 1) + first + 1
            if number <= config.games:
                yield _Job(number, pair, first, opening)


def run_match(config: MatchConfig, *, out: Callable[[str], None] = print) -> MatchResult:
    """Play the match and return its games. ``out`` receives the progress lines. Raises
    :class:`MatchError` (or an :class:`EngineError`) if the engines cannot be started or
    configured; a problem during a game only loses that game."""
    if config.games < 1:
        raise MatchError(f"invalid number of games {config.games}: expected at least 1")
    if config.concurrency < 1:
        raise MatchError(f"invalid concurrency {config.concurrency}: expected at least 1")
    seed = config.seed if config.seed is not None else random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    jobs = _build_jobs(config, rng)
    # Start one pair first: it checks the commands and options, and names the engines.
    first_pair: list[SimpleEngine] = []
    try:
        for spec in config.engines:
            first_pair.append(spec.start())
    except BaseException:
        for engine in first_pair:
            engine.close()
        raise
    names = _unique_names(first_pair[0].name, first_pair[1].name)
    result = MatchResult(names)
    out(
        f"Match {names[0]} vs {names[1]}: {'up to ' if config.sprt else ''}"
        f"{config.games} game{'s' if config.games != 1 else ''} "
        f"of {config.variant.name}, {config.describe_control()}, "
        f"concurrency {config.concurrency}, seed {seed}"
        + (f"; {config.sprt.describe()}" if config.sprt else "")
    )
    # Stopped early (an SPRT decision): the games under way are finished, no more started.
    stopped = False
    result.sprt = config.sprt
    pairs_done: set[int] = set()
    lock = threading.Lock()
    failure: list[BaseException] = []
    pgn_path = Path(config.pgn) if config.pgn else None
    if pgn_path is not None:
        try:
            pgn_path.write_text("", encoding="utf-8")
        except OSError as error:
            for engine in first_pair:
                engine.close()
            raise MatchError(f"cannot write the PGN file {str(pgn_path)!r}: {error}") from None
    referee = _Referee(config, names)

    def report(game: GameResult) -> None:
        nonlocal stopped
        result.games.append(game)
        wins, draws, losses = result.wins_draws_losses()
        first = names[game.first_engine]
        second = names[1 - game.first_engine]
        line = (
            f"Game {game.number}/{config.games} ({first} vs {second}): {game.result} "
            f"{game.termination} - {game.reason} | {names[0]} +{wins} ={draws} -{losses} "
            f"({100 * result.score():.1f}%)"
        )
        sprt = config.sprt
        if sprt is not None and sum(g.pair == game.pair for g in result.games) == 2:
            pairs_done.add(game.pair)
            if result.decision is None:
                result.llr = sprt.llr(result.games)
                result.decided_after_pairs = len(pairs_done)
                result.decision = sprt.decision(result.llr)
                line += f" | LLR {result.llr:.2f} ({sprt.lower:.2f}, {sprt.upper:.2f})"
                if result.decision is not None:
                    line += f": {result.decision} accepted"
                    stopped = True
        out(line)
        if pgn_path is not None:
            with pgn_path.open("a", encoding="utf-8") as handle:
                handle.write(write_pgn(game.record) + "\n")

    def worker(engines: list[SimpleEngine] | None) -> None:
        try:
            while True:
                with lock:
                    job = next(jobs, None) if not (stopped or failure) else None
                    if job is None:
                        return
                if engines is None:
                    engines = [spec.start() for spec in config.engines]
                game, broken = referee.play(job, engines)
                with lock:
                    report(game)
                for index in broken:  # a crashed or hung engine is started afresh
                    engines[index].close()
                    engines[index] = config.engines[index].start()
        except BaseException as error:
            with lock:
                failure.append(error)
        finally:
            for engine in engines or []:
                engine.quit(timeout=2.0)

    threads = [
        threading.Thread(target=worker, args=(first_pair if index == 0 else None,), daemon=True)
        for index in range(min(config.concurrency, config.games))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        while thread.is_alive():
            thread.join(0.2)
    if failure:
        raise failure[0]
    result.games.sort(key=lambda game: game.number)
    out(result.summary())
    if pgn_path is not None:
        out(f"PGN: {pgn_path} ({len(result.games)} games)")
    return result


def _unique_names(first: str, second: str) -> tuple[str, str]:
    if first == second:
        return f"{first} (1)", f"{second} (2)"
    return first, second


def match_from_arguments(args: argparse.Namespace) -> int:
    """``chuhan match``: build the configuration from the parsed arguments and play."""
    variant = get_variant(args.variant, args.rules)
    control = MatchTimeControl.parse(args.tc)
    control2 = MatchTimeControl.parse(args.tc2) if args.tc2 is not None else None
    if control2 is not None and "clock" in (control.kind, control2.kind):
        raise MatchError(
            f"invalid --tc2 {args.tc2!r}: the engines can play under different limits only "
            "when both are fixed (movetime, depth or nodes), not a clock"
        )
    if args.random_plies is None:
        args.random_plies = 0 if args.openings else DEFAULT_RANDOM_PLIES
    if args.random_plies < 0:
        raise MatchError(f"invalid --random-plies {args.random_plies}: expected >= 0")
    if not args.time_margin >= 0:
        raise MatchError(f"invalid --time-margin {args.time_margin}: expected >= 0")
    if args.max_plies < 1:
        raise MatchError(f"invalid --max-plies {args.max_plies}: expected >= 1")
    engines = tuple(
        EngineSpec(
            getattr(args, f"engine{n}"),
            getattr(args, f"protocol{n}"),
            tuple(parse_option(text) for text in getattr(args, f"option{n}")),
            getattr(args, f"coordinates{n}"),
        )
        for n in (1, 2)
    )
    sprt = None
    if args.sprt is not None:
        sprt = Sprt(args.sprt[0], args.sprt[1], args.alpha, args.beta)
    if args.games is None:
        args.games = DEFAULT_SPRT_GAMES if sprt is not None else 2
    openings: tuple[Opening, ...] = ()
    if args.openings:
        openings = tuple(load_openings(args.openings, variant))
    config = MatchConfig(
        engines=(engines[0], engines[1]),
        variant=variant,
        time_control=control,
        games=args.games,
        openings=openings,
        random_plies=args.random_plies,
        janggi_setup=args.janggi_setup,
        pgn=args.pgn,
        concurrency=args.concurrency,
        seed=args.seed,
        max_plies=args.max_plies,
        time_margin=args.time_margin,
        time_control2=control2,
        sprt=sprt,
    )
    try:
        run_match(config, out=lambda line: print(line, flush=True))
    except KeyboardInterrupt:
        print("chuhan match: interrupted", file=sys.stderr)
        return 130
    return 0
