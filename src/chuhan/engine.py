"""Drive external UCI and UCCI engines (Pikafish, Fairy-Stockfish, ElephantEye, chuhan's
own) as subprocesses, in the manner of python-chess's ``chess.engine``.

Synchronous use::

    from chuhan.engine import Limit, SimpleEngine

    with SimpleEngine.popen_uci(["pikafish"]) as engine:
        engine.configure({"Threads": 2})
        result = engine.play(board, Limit(time=0.5))       # PlayResult(move, ponder, info)
        infos = engine.analyse(board, Limit(depth=12), multipv=3)
        infos[0]["score"].first()                          # Score(cp=35) from red/Cho's side

Asynchronous use: ``engine = await chuhan.engine.popen_uci([...])`` returns an
:class:`AsyncEngine` whose methods are coroutines (``await engine.play(board, limit)``,
``await engine.quit()``, ``async with``); it runs on asyncio's own subprocess support.

Both forms share one protocol implementation: each command is a generator that yields
"send this line" and "wait for a line until this instant" requests, and the two drivers
only do the I/O. Every wait has a deadline; an engine that dies, stays silent or answers
with something illegal raises an :class:`EngineError` naming the engine and what it sent.

Positions are always sent as ``position fen <root FEN> moves ...`` from the board's root
position, so the engine sees the history (repetitions). Coordinates: ranks 0-9 (ICCS,
UCCI, Pikafish) or ranks 1-10 (Fairy-Stockfish); see :func:`SimpleEngine.popen_uci`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import math
import os
import queue
import shlex
import subprocess
import threading
import time
from collections.abc import Callable, Coroutine, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypedDict, TypeVar, cast, overload

from chuhan.board import Board
from chuhan.errors import ChuhanError, ServiceError
from chuhan.search.limits import SearchLimits
from chuhan.squares import Move

__all__ = [
    "COORDINATES",
    "AnalysisComplete",
    "AnalysisResult",
    "AsyncEngine",
    "Cp",
    "EngineError",
    "EngineMoveError",
    "EngineProtocol",
    "EngineTerminatedError",
    "EngineTimeoutError",
    "InfoDict",
    "InvalidLimitError",
    "Limit",
    "Mate",
    "Option",
    "PlayResult",
    "PovScore",
    "Score",
    "SimpleAnalysisResult",
    "SimpleEngine",
    "popen_ucci",
    "popen_uci",
]

LOGGER = logging.getLogger("chuhan.engine")

#: How an engine numbers the ranks in its moves: ``"ranks-0-9"`` (ICCS, UCCI, Pikafish) or
#: ``"ranks-1-10"`` (Fairy-Stockfish).
COORDINATES = ("ranks-0-9", "ranks-1-10")
Coordinates = Literal["ranks-0-9", "ranks-1-10"]
#: The protocol an engine speaks: UCI (Pikafish, Fairy-Stockfish) or UCCI (ElephantEye).
#: ``chuhan engine`` speaks both (:mod:`chuhan.search.uci`); :mod:`chuhan.match` names
#: each engine's with it.
EngineProtocol = Literal["uci", "ucci"]

#: Seconds to wait for the handshake and for ``readyok``, unless told otherwise.
DEFAULT_TIMEOUT = 10.0
#: Seconds a search without a time bound (depth, nodes, mate) may take, unless told otherwise.
DEFAULT_SEARCH_TIMEOUT = 300.0
#: Seconds added to a timed search's budget before ``stop`` is sent, and waited after it.
GRACE = 2.0

# Options the driver sets itself: the variant and coordinates from the board, MultiPV
# through analyse(multipv=...), UCCI's millisecond switch.
_MANAGED_OPTIONS = frozenset({"uci_variant", "multipv", "usemillisec", "uci_coordinates"})
# Engines known to number ranks 1-10 or 0-9 whatever the variant, by a word of their name.
_RANKS_1_10_NAMES = ("fairy-stockfish", "fairy stockfish", "fairystockfish")
_RANKS_0_9_NAMES = ("pikafish", "chuhan", "eleeye", "elephanteye", "cyclone")


# ---------------------------------------------------------------------- errors


class EngineError(ServiceError):
    """An engine that cannot be started, or answered wrongly; also an option or a request
    the engine cannot take. A ``RuntimeError``, as python-chess's ``EngineError`` is."""


class EngineTerminatedError(EngineError):
    """The engine process died (or closed its output) while it was needed."""


class EngineTimeoutError(EngineError):
    """The engine did not answer within the deadline."""


class EngineMoveError(EngineError):
    """The engine sent a best move that does not parse or is not legal in the position."""

    def __init__(self, message: str, text: str) -> None:
        super().__init__(message)
        #: What the engine sent.
        self.text = text


class InvalidLimitError(ChuhanError):
    """A :class:`Limit` that says no search (a negative time, a fractional depth, nothing
    at all): bad input, found before any engine is asked."""


# ---------------------------------------------------------------------- values


def _check_number(name: str, value: float | None, *, whole: bool) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidLimitError(f"invalid limit: {name} {value!r} is not a number")
    if whole and not isinstance(value, int):
        raise InvalidLimitError(f"invalid limit: {name} {value!r} is not a whole number")
    if not math.isfinite(value) or value < 0:
        raise InvalidLimitError(f"invalid limit: {name} {value!r} is not a finite number >= 0")


@dataclass(frozen=True)
class Limit:
    """What a search may use, as a Python caller gives it to the driver: times in seconds,
    in the manner of python-chess's ``chess.engine.Limit``.

    ``time`` is a fixed time for the move (``go movetime``); ``depth``, ``nodes`` and
    ``mate`` (moves, not plies) bound the search; ``wtime``/``btime`` are the clocks of
    the first mover (xiangqi red, janggi Cho) and the second, ``winc``/``binc`` their
    increments, ``movestogo`` the moves to the next time control, and ``byoyomi`` the
    length of a byo-yomi period. Any combination; at least one must be given.

    The driver sends it as a ``go`` command, which counts milliseconds: that form is
    :class:`chuhan.search.limits.SearchLimits` (also what ``chuhan engine`` parses and
    chuhan's own search runs under), and :meth:`search_limits` is the one conversion.
    """

    time: float | None = None
    depth: int | None = None
    nodes: int | None = None
    mate: int | None = None
    wtime: float | None = None
    btime: float | None = None
    winc: float | None = None
    binc: float | None = None
    movestogo: int | None = None
    byoyomi: float | None = None

    def __post_init__(self) -> None:
        for name in ("time", "wtime", "btime", "winc", "binc", "byoyomi"):
            _check_number(name, getattr(self, name), whole=False)
        for name in ("depth", "nodes", "mate", "movestogo"):
            _check_number(name, getattr(self, name), whole=True)
        if all(getattr(self, name) is None for name in self.__dataclass_fields__):
            raise InvalidLimitError(
                "invalid limit: give at least one of time, depth, nodes, mate, clock"
            )

    def has_clock(self) -> bool:
        return self.wtime is not None or self.btime is not None

    def budget(self, turn: bool) -> float | None:
        """The most time (seconds) the side ``turn`` may think under this limit, or None
        when nothing bounds the time (depth, nodes or mate alone)."""
        bounds: list[float] = []
        if self.time is not None:
            bounds.append(self.time)
        own = self.wtime if turn else self.btime
        if own is not None:
            bounds.append(own + (self.byoyomi or 0.0))
        return min(bounds) if bounds else None

    def search_limits(self) -> SearchLimits:
        """The same limits as a ``go`` command gives them: times in whole milliseconds
        (rounded to the nearest), ``time`` as ``movetime``."""
        return SearchLimits(
            depth=self.depth,
            nodes=self.nodes,
            movetime=_ms(self.time),
            mate=self.mate,
            wtime=_ms(self.wtime),
            btime=_ms(self.btime),
            winc=_ms(self.winc),
            binc=_ms(self.binc),
            movestogo=self.movestogo,
            byoyomi=_ms(self.byoyomi),
        )


@overload
def _ms(seconds: float) -> int: ...


@overload
def _ms(seconds: None) -> None: ...


def _ms(seconds: float | None) -> int | None:
    return None if seconds is None else max(0, round(seconds * 1000))


class Score:
    """An evaluation: centipawns (``Score(cp=35)``) or moves to mate (``Score(mate=3)``,
    negative when being mated; ``Score(mate=0)`` is a side already mated), with
    python-chess's ``Score`` methods: :meth:`mate`, :meth:`is_mate`, :meth:`score`,
    ordering (a mate in 1 above a mate in 3 above any centipawns, above being mated) and
    ``-``. ``Cp(35)`` and ``Mate(3)`` build them as in python-chess.

    >>> from chuhan.engine import Cp, Mate, Score
    >>> Mate(3).mate(), Mate(3).is_mate(), Cp(35).mate(), Cp(35).score()
    (3, True, None, 35)
    >>> Mate(1) > Mate(3) > Cp(900) > Cp(-900) > Mate(-3) > Mate(-1)
    True
    >>> Mate(2).score(mate_score=100000), -Mate(2), str(Mate(-2))
    (99998, Score(cp=None, mate=-2), '#-2')
    """

    __slots__ = ("_mate", "cp")

    #: Centipawns, None for a mate score.
    cp: int | None
    _mate: int | None

    def __init__(self, cp: int | None = None, mate: int | None = None) -> None:
        object.__setattr__(self, "cp", cp)
        object.__setattr__(self, "_mate", mate)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Score is immutable: cannot set {name!r}")

    def mate(self) -> int | None:
        """The moves to mate (negative: being mated), or None for a centipawn score."""
        return self._mate

    def is_mate(self) -> bool:
        return self._mate is not None

    def score(self, *, mate_score: int | None = None) -> int | None:
        """Centipawns; a mate counts as ``mate_score`` minus the moves to it (None if
        ``mate_score`` is not given)."""
        if self._mate is None:
            return self.cp
        if mate_score is None:
            return None
        if self._mate > 0:
            return mate_score - self._mate
        return -mate_score - self._mate

    def _order(self) -> tuple[int, int]:
        # Mates given rank above every centipawn score, sooner first; mates taken below.
        if self._mate is None:
            return (1, self.cp or 0)
        if self._mate > 0:
            return (2, -self._mate)
        return (0, -self._mate) if self._mate < 0 else (0, 0)

    def __lt__(self, other: Score) -> bool:
        return self._order() < other._order()

    def __le__(self, other: Score) -> bool:
        return self._order() <= other._order()

    def __gt__(self, other: Score) -> bool:
        return self._order() > other._order()

    def __ge__(self, other: Score) -> bool:
        return self._order() >= other._order()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Score):
            return NotImplemented
        return (self.cp, self._mate) == (other.cp, other._mate)

    def __hash__(self) -> int:
        return hash((self.cp, self._mate))

    def __neg__(self) -> Score:
        if self._mate is not None:
            return Score(mate=-self._mate)
        return Score(cp=None if self.cp is None else -self.cp)

    def __pos__(self) -> Score:
        return self

    def __abs__(self) -> Score:
        return -self if self < Score(cp=0) else self

    def __repr__(self) -> str:
        return f"Score(cp={self.cp!r}, mate={self._mate!r})"

    def __str__(self) -> str:
        if self._mate is not None:
            return f"#{self._mate}" if self._mate < 0 else f"#+{self._mate}"
        return f"{self.cp:+d}" if self.cp is not None else "?"

    def __reduce__(self) -> tuple[type[Score], tuple[int | None, int | None]]:
        return (Score, (self.cp, self._mate))


def Cp(cp: int) -> Score:
    """A centipawn score, as python-chess's ``chess.engine.Cp``."""
    return Score(cp=cp)


def Mate(moves: int) -> Score:
    """A mate score (``moves`` to mate, negative when being mated), as ``chess.engine.Mate``."""
    return Score(mate=moves)


@dataclass(frozen=True)
class PovScore:
    """A score from the point of view of ``turn`` (the side to move when it was given).

    python-chess's names keep their meaning with its colours mapped to the sides: ``white()``
    is the first mover's view (xiangqi Red, janggi Cho), ``black()`` the second's (Black,
    Han); :meth:`first` and :meth:`second` say the same.

    >>> from chuhan.engine import Cp, PovScore
    >>> score = PovScore(Cp(40), turn=False)
    >>> score.white(), score.black(), score.pov(False), score.is_mate()
    (Score(cp=-40, mate=None), Score(cp=40, mate=None), Score(cp=40, mate=None), False)
    """

    relative: Score
    turn: bool

    def pov(self, side: bool) -> Score:
        """The score from ``side``'s point of view."""
        return self.relative if side == self.turn else -self.relative

    def first(self) -> Score:
        """From the first mover's point of view: xiangqi red, janggi Cho."""
        return self.pov(True)

    def second(self) -> Score:
        """From the second mover's point of view: xiangqi black, janggi Han."""
        return self.pov(False)

    def white(self) -> Score:
        """python-chess's name for :meth:`first`: the first mover's (Red's, Cho's) view."""
        return self.pov(True)

    def black(self) -> Score:
        """python-chess's name for :meth:`second`: the second mover's (Black's, Han's) view."""
        return self.pov(False)

    def is_mate(self) -> bool:
        return self.relative.is_mate()

    def __str__(self) -> str:
        return f"{self.relative} ({'first' if self.turn else 'second'} to move)"


class AnalysisComplete(Exception):
    """:meth:`SimpleAnalysisResult.get` on an analysis that has ended and whose info has
    all been read (python-chess's ``chess.engine.AnalysisComplete``)."""


def _as_lines(lines: InfoDict | list[InfoDict]) -> list[InfoDict]:
    return lines if isinstance(lines, list) else [lines]


class _AnalysisLines:
    """What the two analysis results share: the MultiPV lines merged as the engine's
    info arrives (each info also queued for the reader by ``_put``), and the stop."""

    def __init__(self, multipv: int | None) -> None:
        self._stop_event = threading.Event()
        self._done = False
        self._lines: list[InfoDict] = [InfoDict() for _ in range(max(multipv or 1, 1))]

    def _put(self, info: InfoDict | None) -> None:
        raise NotImplementedError

    def _nothing_queued(self) -> bool:
        raise NotImplementedError

    def would_block(self) -> bool:
        """Whether ``get`` would wait for the engine."""
        return not self._done and self._nothing_queued()

    def empty(self) -> bool:
        """Whether every info has been read (the analysis may still go on)."""
        return self._done or self._nothing_queued()

    def _conversation(
        self,
        session: _Session,
        board: Board,
        limit: Limit | None,
        multipv: int | None,
        ban_moves: Sequence[Move],
        timeout: float | None,
    ) -> _Conversation[InfoDict | list[InfoDict]]:
        """The engine session's search for this analysis: its infos heard here, stopped
        by :meth:`stop`."""
        return session.analyse(
            board,
            limit,
            multipv=multipv if multipv is not None else 1,
            ban_moves=ban_moves,
            timeout=timeout,
            on_info=self._hear,
            stop=self._stop_event,
        )

    def _hear(self, info: InfoDict) -> None:
        index = info.get("multipv", 1) - 1
        if 0 <= index < len(self._lines):
            merged = InfoDict(**self._lines[index])
            merged.update(info)
            self._lines[index] = merged
        self._put(info)

    @property
    def info(self) -> InfoDict:
        """What the engine has said of the best line so far, merged (the latest score,
        depth and moves)."""
        return self._lines[0]

    @property
    def multipv(self) -> list[InfoDict]:
        """:attr:`info` for each MultiPV line, best first."""
        return list(self._lines)

    def stop(self) -> None:
        """Ask the engine to stop (it answers with the lines so far)."""
        self._stop_event.set()


class SimpleAnalysisResult(_AnalysisLines):
    """A search running in the background (:meth:`SimpleEngine.analysis`): iterate it for
    each info as it comes, or read :attr:`info` and :attr:`multipv`; :meth:`stop` ends
    it, :meth:`wait` waits for its end and returns the final lines."""

    def __init__(self, multipv: int | None) -> None:
        super().__init__(multipv)
        self._queue: queue.Queue[InfoDict | None] = queue.Queue()
        self._final: list[InfoDict] | None = None
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None

    def _start(self, search: Callable[[], list[InfoDict]]) -> None:
        def run() -> None:
            try:
                self._final = search()
            except BaseException as error:  # handed to the caller by wait()
                self._error = error
            finally:
                self._queue.put(None)

        self._thread = threading.Thread(target=run, name="chuhan-analysis", daemon=True)
        self._thread.start()

    def _put(self, info: InfoDict | None) -> None:
        self._queue.put(info)

    def _nothing_queued(self) -> bool:
        return self._queue.empty()

    def wait(self) -> list[InfoDict]:
        """Wait for the search to end and return its final lines, best first; raises
        the engine's error if it failed."""
        if self._thread is not None:
            self._thread.join()
        if self._error is not None:
            raise self._error
        return list(self._final or [])

    def get(self) -> InfoDict:
        """The next info, waiting for it; raises :class:`AnalysisComplete` at the end."""
        if self._done:
            raise AnalysisComplete
        info = self._queue.get()
        if info is None:
            self._done = True
            raise AnalysisComplete
        return info

    def __iter__(self) -> SimpleAnalysisResult:
        return self

    def __next__(self) -> InfoDict:
        try:
            return self.get()
        except AnalysisComplete:
            raise StopIteration from None

    def __enter__(self) -> SimpleAnalysisResult:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self.wait()


class AnalysisResult(_AnalysisLines):
    """An :class:`AsyncEngine` search running in a task (:meth:`AsyncEngine.analysis`),
    as python-chess's ``chess.engine.AnalysisResult``: ``async for info in analysis``,
    ``await analysis.get()``, :attr:`info`, :attr:`multipv`, :meth:`stop` and
    ``await analysis.wait()`` (the final lines); ``with`` stops the search on leaving."""

    def __init__(self, multipv: int | None) -> None:
        super().__init__(multipv)
        self._queue: asyncio.Queue[InfoDict | None] = asyncio.Queue()
        self._task: asyncio.Task[list[InfoDict]] | None = None

    def _start(self, search: Coroutine[Any, Any, list[InfoDict]]) -> None:
        self._task = asyncio.ensure_future(search)
        self._task.add_done_callback(lambda _: self._queue.put_nowait(None))

    def _put(self, info: InfoDict | None) -> None:
        self._queue.put_nowait(info)

    def _nothing_queued(self) -> bool:
        return self._queue.empty()

    async def wait(self) -> list[InfoDict]:
        """Wait for the search to end and return its final lines, best first (raises the
        engine's error if it failed)."""
        assert self._task is not None
        return list(await self._task)

    async def get(self) -> InfoDict:
        """The next info, waiting for it; raises :class:`AnalysisComplete` at the end."""
        if self._done:
            raise AnalysisComplete
        info = await self._queue.get()
        if info is None:
            self._done = True
            raise AnalysisComplete
        return info

    def __aiter__(self) -> AnalysisResult:
        return self

    async def __anext__(self) -> InfoDict:
        try:
            return await self.get()
        except AnalysisComplete:
            raise StopAsyncIteration from None

    def __enter__(self) -> AnalysisResult:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class InfoDict(TypedDict, total=False):
    """What an engine's ``info`` lines said. ``time`` is in seconds; ``score`` is from the
    side to move's point of view (``score.first()`` for red/Cho); ``pv`` holds the legal
    prefix of the principal variation."""

    depth: int
    seldepth: int
    nodes: int
    nps: int
    time: float
    hashfull: int
    tbhits: int
    multipv: int
    score: PovScore
    lowerbound: bool
    upperbound: bool
    pv: list[Move]
    currmove: Move
    currmovenumber: int
    string: str


@dataclass(frozen=True)
class PlayResult:
    """The engine's move (``None`` only when the position has no legal move), the reply it
    expects (``ponder``), its last info, and a UCCI engine's ``draw``/``resign`` flags."""

    move: Move | None
    ponder: Move | None = None
    info: InfoDict = field(default_factory=lambda: InfoDict())
    draw_offered: bool = False
    resigned: bool = False


@dataclass(frozen=True)
class Option:
    """An option the engine declared in its handshake (``option name Hash type spin ...``)."""

    name: str
    type: str
    default: str | None = None
    min: int | None = None
    max: int | None = None
    var: tuple[str, ...] = ()

    def parse(self, value: object) -> str | None:
        """The text to send for ``value``, checked against the type (None for a button).
        Raises :class:`EngineError` naming the option and the value."""
        if isinstance(value, str) and ("\n" in value or "\r" in value):
            raise EngineError(f"option {self.name!r}: value {value!r} contains a line break")
        kind = self.type
        if kind == "check":
            if isinstance(value, bool):
                return "true" if value else "false"
            if isinstance(value, str) and value.strip().lower() in ("true", "false"):
                return value.strip().lower()
            raise EngineError(
                f"option {self.name!r} is a check: expected true or false, got {value!r}"
            )
        if kind == "spin":
            number: int | None = None
            if isinstance(value, int) and not isinstance(value, bool):
                number = value
            elif isinstance(value, str):
                try:
                    number = int(value.strip())
                except ValueError:
                    number = None
            low = "-inf" if self.min is None else str(self.min)
            high = "inf" if self.max is None else str(self.max)
            if number is None:
                raise EngineError(
                    f"option {self.name!r} is a spin: expected a whole number from {low} to "
                    f"{high}, got {value!r}"
                )
            if (self.min is not None and number < self.min) or (
                self.max is not None and number > self.max
            ):
                raise EngineError(
                    f"option {self.name!r}: {number} is outside its range {low} to {high}"
                )
            return str(number)
        if kind == "combo":
            text = str(value).strip() if isinstance(value, str | int) else None
            for choice in self.var:
                if text is not None and choice.lower() == text.lower():
                    return choice
            raise EngineError(
                f"option {self.name!r}: {value!r} is not one of {', '.join(self.var) or '(none)'}"
            )
        if kind == "button":
            if value is None or value is True:
                return None
            raise EngineError(f"option {self.name!r} is a button: give None to press it")
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str | int | float):
            return str(value)
        raise EngineError(f"option {self.name!r}: cannot send a {type(value).__name__} value")


_OPTION_KEYWORDS = ("type", "default", "min", "max", "var")


def parse_option_line(line: str) -> Option | None:
    """Parse a UCI ``option name N type T ...`` or UCCI ``option N type T ...`` line."""
    tokens = line.split()
    if len(tokens) < 4 or tokens[0] != "option" or "type" not in tokens:
        return None
    start = 2 if tokens[1] == "name" else 1
    type_at = tokens.index("type", start)
    name = " ".join(tokens[start:type_at])
    if not name or type_at + 1 >= len(tokens):
        return None
    kind = tokens[type_at + 1].lower()
    fields: dict[str, list[str]] = {}
    var: list[str] = []
    key: str | None = None
    words: list[str] = []

    def flush() -> None:
        if key == "var":
            var.append(" ".join(words))
        elif key is not None:
            fields[key] = words.copy()

    for token in tokens[type_at + 2 :]:
        if token in _OPTION_KEYWORDS[1:]:
            flush()
            key, words = token, []
        else:
            words.append(token)
    flush()
    default = " ".join(fields["default"]) if "default" in fields else None
    if default == "<empty>":
        default = ""

    def whole(name: str) -> int | None:
        try:
            return int(" ".join(fields[name])) if name in fields else None
        except ValueError:
            return None

    return Option(name, kind, default, whole("min"), whole("max"), tuple(var))


# ---------------------------------------------------------------------- the protocol


@dataclass(frozen=True)
class _Send:
    line: str


@dataclass(frozen=True)
class _Receive:
    #: ``time.monotonic()`` instant after which the driver answers None.
    deadline: float
    #: What is awaited, for error messages ("the answer to 'uci' (uciok)").
    awaiting: str


T = TypeVar("T")
_Conversation = Generator[_Send | _Receive, str | None, T]

_INFO_INTS = frozenset(
    {"depth", "seldepth", "nodes", "nps", "hashfull", "tbhits", "multipv", "currmovenumber"}
)
_INFO_KEYWORDS = _INFO_INTS | {
    "time",
    "score",
    "pv",
    "currmove",
    "string",
    "refutation",
    "currline",
    "cpuload",
    "sbhits",
    "lowerbound",
    "upperbound",
}


class _Session:
    """The protocol state of one engine, without I/O: its identity, options and the
    conversations (handshake, configure, play, analyse) as generators."""

    def __init__(
        self,
        protocol: EngineProtocol,
        command: list[str],
        *,
        coordinates: str | None,
        timeout: float,
        search_timeout: float,
    ) -> None:
        if coordinates is not None and coordinates not in COORDINATES:
            raise EngineError(
                f"invalid coordinates {coordinates!r}: expected one of {', '.join(COORDINATES)}"
            )
        _check_number("timeout", timeout, whole=False)
        _check_number("search_timeout", search_timeout, whole=False)
        self.protocol: EngineProtocol = protocol
        self.command = command
        self.name = os.path.basename(command[0])
        self.author = ""
        self.id: dict[str, str] = {}
        self.options: dict[str, Option] = {}
        #: Values set with configure(), by option name as the engine spells it.
        self.config: dict[str, str | None] = {}
        self.coordinates_given = cast("Coordinates | None", coordinates)
        self._coordinates_seen: Coordinates | None = None
        self.timeout = timeout
        self.search_timeout = search_timeout
        self._millisec = protocol == "uci"
        self._variant_sent: str | None = None
        self._multipv_sent: int | None = None
        #: The ``OwnBook`` value sent (None: the engine's default).
        self._book_sent: str | None = None
        self._coordinates_sent: Coordinates | None = None
        self._rules_sent: str | None = None
        #: Set when the engine missed a deadline: quit() then kills it without waiting.
        self.unresponsive = False

    # ---------------------------------------------------------------- helpers

    def describe(self) -> str:
        return f"engine {self.name!r}"

    def option(self, name: str) -> Option | None:
        return self.options.get(name.lower())

    def _setoption(self, option: Option, value: str | None) -> _Send:
        if self.protocol == "ucci":
            return _Send(f"setoption {option.name}" + ("" if value is None else f" {value}"))
        return _Send(f"setoption name {option.name}" + ("" if value is None else f" value {value}"))

    def _receive(self, deadline: float, awaiting: str) -> _Conversation[str]:
        line = yield _Receive(deadline, awaiting)
        if line is None:
            self.unresponsive = True
            raise EngineTimeoutError(f"{self.describe()} did not send {awaiting} in time")
        return line

    def coordinates(self, board: Board) -> Coordinates:
        """The rank numbering used with this engine for ``board``'s game."""
        if self.coordinates_given is not None:
            return self.coordinates_given
        if self._coordinates_seen is not None:
            return self._coordinates_seen
        if self.protocol == "ucci":
            return "ranks-0-9"
        name = self.name.lower()
        if any(word in name for word in _RANKS_1_10_NAMES):
            return "ranks-1-10"
        if any(word in name for word in _RANKS_0_9_NAMES):
            return "ranks-0-9"
        if self.option("UCI_Variant") is not None:
            return "ranks-1-10"  # the option is Fairy-Stockfish's, and so is its numbering
        return "ranks-1-10" if board.variant.is_janggi else "ranks-0-9"

    def encode(self, board: Board, move: Move) -> str:
        return move.fsf() if self.coordinates(board) == "ranks-1-10" else move.iccs()

    def decode(self, board: Board, text: str) -> Move:
        """The legal move ``text`` stands for on ``board``; raises :class:`EngineMoveError`."""
        where = f"in {board.fen()} ({board.variant.name})"
        if text == "0000":
            if board.variant.has_passes:
                king = board.king(board.turn)
                move = Move(king, king)
                if board.is_legal(move):
                    return move
            raise EngineMoveError(
                f"{self.describe()} sent the null move '0000', but passing is not legal {where}",
                text,
            )
        numbering = self.coordinates(board)
        parsers = {"ranks-0-9": Move.from_iccs, "ranks-1-10": Move.from_fsf}
        try:
            move = parsers[numbering](text)
        except ChuhanError:
            other: Coordinates = "ranks-1-10" if numbering == "ranks-0-9" else "ranks-0-9"
            try:
                move = parsers[other](text)
            except ChuhanError:
                raise EngineMoveError(
                    f"{self.describe()} sent {text!r}, which is not a move {where}", text
                ) from None
            if self.coordinates_given is not None:
                raise EngineMoveError(
                    f"{self.describe()} sent {text!r}, which is not a move in {numbering} "
                    f"coordinates {where}",
                    text,
                ) from None
            # Auto-detection: a rank 10 or a rank 0 settles which numbering the engine uses.
            LOGGER.warning("%s uses %s coordinates (it sent %r)", self.describe(), other, text)
            self._coordinates_seen = other
        if not board.is_legal(move):
            try:
                board.copy().push(move)
                reason = f"it is not legal {where}"
            except ChuhanError as error:
                reason = str(error)
            raise EngineMoveError(
                f"{self.describe()} sent the illegal move {text!r}: {reason}", text
            )
        return move

    def _decode_line(self, board: Board, texts: list[str]) -> list[Move]:
        """The legal prefix of a line of moves (a PV)."""
        replay = board.copy()
        moves: list[Move] = []
        for text in texts:
            try:
                move = self.decode(replay, text)
            except EngineMoveError:
                LOGGER.debug("%s: PV move %r not legal, PV cut there", self.describe(), text)
                break
            replay.push(move)
            moves.append(move)
        return moves

    def parse_info(self, board: Board, line: str) -> InfoDict:
        """Parse an ``info`` line about a search of ``board``. Unknown or broken fields are
        skipped: info is advisory."""
        info = InfoDict()
        tokens = line.split()[1:]
        i = 0
        while i < len(tokens):
            key = tokens[i]
            i += 1
            if key in _INFO_INTS and i < len(tokens):
                with contextlib.suppress(ValueError):
                    info[key] = int(tokens[i])  # type: ignore[literal-required]
                i += 1
            elif key == "time" and i < len(tokens):
                with contextlib.suppress(ValueError):
                    info["time"] = int(tokens[i]) / 1000
                i += 1
            elif key == "score" and i < len(tokens):
                kind = tokens[i]
                try:
                    if kind in ("cp", "mate") and i + 1 < len(tokens):
                        value = int(tokens[i + 1])
                        i += 2
                    else:  # UCCI: "score 35"
                        value = int(kind)
                        kind = "cp"
                        i += 1
                except ValueError:
                    i += 1
                    continue
                relative = Score(cp=value) if kind == "cp" else Score(mate=value)
                info["score"] = PovScore(relative, board.turn)
            elif key in ("lowerbound", "upperbound"):
                info[key] = True  # type: ignore[literal-required]
            elif key == "currmove" and i < len(tokens):
                with contextlib.suppress(EngineMoveError):
                    info["currmove"] = self.decode(board, tokens[i])
                i += 1
            elif key == "pv":
                words: list[str] = []
                while i < len(tokens) and tokens[i] not in _INFO_KEYWORDS:
                    words.append(tokens[i])
                    i += 1
                info["pv"] = self._decode_line(board, words)
            elif key == "string":
                info["string"] = " ".join(tokens[i:])
                break
        return info

    # ---------------------------------------------------------------- conversations

    def handshake(self) -> _Conversation[None]:
        hello = "ucci" if self.protocol == "ucci" else "uci"
        yield _Send(hello)
        deadline = time.monotonic() + self.timeout
        awaiting = f"'{hello}ok' (the answer to '{hello}') within {self.timeout:g} s"
        while True:
            line = yield from self._receive(deadline, awaiting)
            tokens = line.split()
            if not tokens:
                continue
            if tokens[0] == f"{hello}ok":
                break
            if tokens[0] == "id" and len(tokens) >= 2:
                self.id[tokens[1]] = " ".join(tokens[2:])
                if tokens[1] == "name" and len(tokens) > 2:
                    self.name = self.id["name"]
                elif tokens[1] == "author":
                    self.author = self.id["author"]
            elif tokens[0] == "option":
                option = parse_option_line(line)
                if option is not None:
                    self.options[option.name.lower()] = option
        millisec = self.option("usemillisec")
        if self.protocol == "ucci" and millisec is not None:
            yield self._setoption(millisec, "true")
            self._millisec = True
        yield from self.ping()

    def ping(self) -> _Conversation[None]:
        """``isready`` and wait for ``readyok``, dropping whatever comes before it (a late
        ``bestmove`` of an earlier search)."""
        yield _Send("isready")
        deadline = time.monotonic() + self.timeout
        awaiting = f"'readyok' (the answer to 'isready') within {self.timeout:g} s"
        while True:
            line = yield from self._receive(deadline, awaiting)
            if line.strip() == "readyok":
                return
            if line.strip():
                LOGGER.debug("%s: dropped %r before readyok", self.describe(), line)

    def configure(self, options: Mapping[str, object]) -> _Conversation[None]:
        commands: list[_Send] = []
        for name, value in options.items():
            option = self.option(name)
            if option is None:
                known = ", ".join(sorted(o.name for o in self.options.values())) or "(none)"
                raise EngineError(f"{self.describe()} has no option {name!r}; it has: {known}")
            if option.name.lower() in _MANAGED_OPTIONS:
                raise EngineError(
                    f"option {option.name!r} is set by chuhan.engine itself (the variant and "
                    "coordinates from the board and popen's coordinates=, MultiPV from "
                    "analyse(multipv=...))"
                )
            text = option.parse(value)
            commands.append(self._setoption(option, text))
            self.config[option.name] = text
        yield from commands
        if commands:
            yield from self.ping()

    def new_game(self) -> _Conversation[None]:
        if self.protocol == "uci":
            yield _Send("ucinewgame")
        yield from self.ping()

    def _prepare(
        self, board: Board, multipv: int, ban_moves: Sequence[Move], analysing: bool = False
    ) -> _Conversation[None]:
        """Variant, MultiPV, the book, position and banned moves, then a readyok sync.
        An analysis turns the engine's own book (``OwnBook``) off unless the operator set
        it: a book move comes without a line or a score; a game's move leaves it as the
        engine has it."""
        book_option = self.option("OwnBook")
        if (
            book_option is not None
            and book_option.type == "check"
            and book_option.name not in self.config
        ):
            wanted = "false" if analysing else None
            if wanted != self._book_sent:
                yield self._setoption(book_option, wanted or book_option.default or "true")
                self._book_sent = wanted
        variant_option = self.option("UCI_Variant")
        game, rules = board.variant.game, board.variant.rules
        if variant_option is not None and self._variant_sent != board.variant.name:
            # Fairy-Stockfish names rule sets "janggimodern", "janggitraditional"...
            offered = {v.lower(): v for v in variant_option.var}
            choice = offered.get(game + rules) or offered.get(game)
            if choice is None and variant_option.type == "combo":
                raise EngineError(
                    f"{self.describe()} does not play {game}: its UCI_Variant offers "
                    f"{', '.join(variant_option.var)}"
                )
            yield self._setoption(variant_option, choice or game)
            self._variant_sent = board.variant.name
        rules_option = self.option("Rules")
        if (
            rules_option is not None
            and rules_option.name not in self.config
            and self._rules_sent != rules
            and rules in rules_option.var
        ):
            # chuhan's own engine takes the rule set by name.
            yield self._setoption(rules_option, rules)
            self._rules_sent = rules
        coordinates_option = self.option("UCI_Coordinates")
        numbering = self.coordinates(board)
        if coordinates_option is not None and self._coordinates_sent != numbering:
            # An engine that lets the GUI choose (chuhan's own) is told what is spoken.
            try:
                value = coordinates_option.parse(numbering)
            except EngineError:
                value = None  # it does not offer this numbering: keep ours and hope
            if value is not None:
                yield self._setoption(coordinates_option, value)
            self._coordinates_sent = numbering
        multipv_option = self.option("MultiPV")
        if multipv > 1 and multipv_option is None:
            raise EngineError(f"{self.describe()} has no MultiPV option: it analyses one line")
        if multipv_option is not None and self._multipv_sent != multipv:
            yield self._setoption(multipv_option, multipv_option.parse(multipv))
            self._multipv_sent = multipv
        root = board.root()
        line = f"position fen {root.fen()}"
        replay = root
        encoded: list[str] = []
        for move in board.move_stack:
            encoded.append(self.encode(replay, move))
            replay.push(move)
        if encoded:
            line += " moves " + " ".join(encoded)
        yield _Send(line)
        if ban_moves and self.protocol == "ucci":
            yield _Send("banmoves " + " ".join(self.encode(board, m) for m in ban_moves))
        yield from self.ping()

    def _go_command(self, board: Board, limit: Limit | None, ban_moves: Sequence[Move]) -> str:
        """The ``go`` command of a search under ``limit``; None is an open-ended search
        (``go infinite``), which the engine ends when it is sent ``stop``."""
        if limit is not None and self.protocol == "ucci":
            return self._ucci_go(board, limit.search_limits())
        parts = ["go"]
        if limit is None:
            # UCCI too. Its specification's words are "go depth infinite", which
            # ElephantEye, the protocol's reference engine, reads as depth 0 (its number
            # parser's default), while it takes a go with no depth, time or nodes (as
            # "go infinite" is) for a search to its deepest depth; chuhan's reads both.
            parts.append("infinite")
        else:
            go = limit.search_limits()
            for name, value in (
                ("wtime", go.wtime),
                ("btime", go.btime),
                ("winc", go.winc),
                ("binc", go.binc),
                ("byoyomi", go.byoyomi),
                ("movestogo", go.movestogo),
                ("depth", go.depth),
                ("nodes", go.nodes),
                ("mate", go.mate),
                ("movetime", go.movetime),
            ):
                if value is not None:
                    parts.append(f"{name} {value}")
        if ban_moves and self.protocol == "uci":
            banned = set(ban_moves)
            allowed = [m for m in board.legal_moves if m not in banned]
            if not allowed:
                raise EngineError("every legal move is banned: nothing to search")
            parts.append("searchmoves " + " ".join(self.encode(board, m) for m in allowed))
        return " ".join(parts)

    def _ucci_time(self, ms: int) -> int:
        # In whole seconds, round down: an engine told it has more time than it has
        # can lose on time.
        return ms if self._millisec else ms // 1000

    def _ucci_go(self, board: Board, go: SearchLimits) -> str:
        """UCCI's go takes one kind of limit: the clock, else a fixed time, depth or nodes."""
        if go.mate is not None and go.depth is None:
            raise EngineError(f"{self.describe()} speaks UCCI, which has no mate search")
        if go.has_clock():
            own, opp = (go.wtime, go.btime) if board.turn else (go.btime, go.wtime)
            own_inc, opp_inc = (go.winc, go.binc) if board.turn else (go.binc, go.winc)
            byoyomi = go.byoyomi or 0
            parts = ["go", "time", str(self._ucci_time((own or 0) + byoyomi))]
            if go.movestogo is not None:
                parts += ["movestogo", str(go.movestogo)]
            elif own_inc:
                parts += ["increment", str(self._ucci_time(own_inc))]
            if opp is not None:
                parts += ["opptime", str(self._ucci_time(opp + byoyomi))]
                if go.movestogo is not None:
                    parts += ["oppmovestogo", str(go.movestogo)]
                elif opp_inc:
                    parts += ["oppincrement", str(self._ucci_time(opp_inc))]
            return " ".join(parts)
        if go.movetime is not None:
            return f"go time {self._ucci_time(go.movetime)} movestogo 1"
        if go.depth is not None:
            return f"go depth {go.depth}"
        if go.nodes is not None:
            return f"go nodes {go.nodes}"
        raise EngineError(f"{self.describe()} speaks UCCI: give a clock, time, depth or nodes")

    def search(
        self,
        board: Board,
        limit: Limit | None,
        *,
        multipv: int,
        ban_moves: Sequence[Move],
        timeout: float | None,
        on_info: Callable[[InfoDict], object] | None = None,
        stop: threading.Event | None = None,
        analysing: bool = False,
    ) -> _Conversation[tuple[PlayResult, dict[int, InfoDict]]]:
        """Send the position and ``go``, collect info, and return the best move and the
        latest info of each PV line. ``on_info`` hears each info line with a score or a
        line as it comes; setting ``stop`` (from another thread) sends ``stop``. With no
        ``limit`` (an open-ended search, ``go infinite``) there must be a ``stop``, and
        only it or ``timeout`` ends the search."""
        if limit is None:
            if stop is None:
                raise EngineError("a search without a limit needs a stop event to end it")
        elif not isinstance(limit, Limit):
            raise EngineError(f"expected a chuhan.engine.Limit, got {limit!r}")
        if isinstance(multipv, bool) or not isinstance(multipv, int) or multipv < 1:
            raise EngineError(f"invalid multipv {multipv!r}: expected a whole number >= 1")
        for move in ban_moves:
            if not isinstance(move, Move):
                raise EngineError(f"ban_moves holds {move!r}, not a chuhan.squares.Move")
        go = self._go_command(board, limit, ban_moves)
        yield from self._prepare(board, multipv, ban_moves, analysing)
        if timeout is not None:
            _check_number("timeout", timeout, whole=False)
        elif limit is None:
            timeout = math.inf  # until stop is set
        else:
            budget = limit.budget(board.turn)
            timeout = self.search_timeout if budget is None else budget + GRACE
        yield _Send(go)
        started = time.monotonic()
        deadline = started + timeout
        stopped = False
        lines: dict[int, InfoDict] = {}
        last = InfoDict()
        while True:
            wait_until = deadline if stop is None else min(deadline, time.monotonic() + 0.05)
            line = yield _Receive(wait_until, "bestmove")
            if line is None and stop is not None and time.monotonic() < deadline:
                if stop.is_set() and not stopped:
                    yield _Send("stop")
                    stopped = True
                    deadline = time.monotonic() + GRACE
                continue
            if line is None:
                if stopped:
                    self.unresponsive = True
                    within = f"within {timeout:g} s, nor " if math.isfinite(timeout) else ""
                    raise EngineTimeoutError(
                        f"{self.describe()} did not answer {go!r} with a bestmove "
                        f"{within}{GRACE:g} s after 'stop'"
                    )
                LOGGER.debug("%s: search over its %g s, sending stop", self.describe(), timeout)
                yield _Send("stop")
                stopped = True
                deadline = time.monotonic() + GRACE
                continue
            tokens = line.split()
            if not tokens:
                continue
            if tokens[0] == "info":
                info = self.parse_info(board, line)
                if "score" in info or "pv" in info:
                    index = info.get("multipv", 1)
                    lines[index] = info
                    if index == 1:
                        last = info
                    if on_info is not None:
                        on_info(info)
                continue
            if tokens[0] == "nobestmove" or (
                tokens[0] == "bestmove" and (len(tokens) < 2 or tokens[1] == "(none)")
            ):
                if board.legal_moves:
                    raise EngineMoveError(
                        f"{self.describe()} sent {line.strip()!r} though there are "
                        f"{len(board.legal_moves)} legal moves in {board.fen()}",
                        line.strip(),
                    )
                return PlayResult(None, info=last), lines
            if tokens[0] != "bestmove":
                continue
            if not board.legal_moves and tokens[1] == "0000":
                return PlayResult(None, info=last), lines
            move = self.decode(board, tokens[1])
            ponder: Move | None = None
            if len(tokens) >= 4 and tokens[2] == "ponder":
                after = board.copy()
                after.push(move)
                try:
                    ponder = self.decode(after, tokens[3])
                except EngineMoveError:
                    ponder = None
            rest = tokens[2:]
            return (
                PlayResult(move, ponder, last, "draw" in rest, "resign" in rest),
                lines,
            )

    def play(
        self, board: Board, limit: Limit, *, ban_moves: Sequence[Move], timeout: float | None
    ) -> _Conversation[PlayResult]:
        result, _ = yield from self.search(
            board, limit, multipv=1, ban_moves=ban_moves, timeout=timeout
        )
        return result

    def analyse(
        self,
        board: Board,
        limit: Limit | None,
        *,
        multipv: int | None,
        ban_moves: Sequence[Move],
        timeout: float | None,
        on_info: Callable[[InfoDict], object] | None = None,
        stop: threading.Event | None = None,
    ) -> _Conversation[InfoDict | list[InfoDict]]:
        """The final info of the search: of its best line, or with ``multipv`` a list of
        up to that many, best first (``limit`` None: see :meth:`search`)."""
        _, lines = yield from self.search(
            board,
            limit,
            multipv=multipv or 1,
            ban_moves=ban_moves,
            timeout=timeout,
            on_info=on_info,
            stop=stop,
            analysing=True,
        )
        if multipv is None:
            return lines.get(1, InfoDict())
        return [lines[index] for index in sorted(lines)]


def _split_command(command: str | Sequence[str]) -> list[str]:
    if isinstance(command, str):
        try:
            args = shlex.split(command)
        except ValueError as error:
            raise EngineError(f"cannot read the engine command {command!r}: {error}") from None
    else:
        args = [str(part) for part in command]
    if not args:
        raise EngineError("empty engine command")
    return args


def _start_failure(args: list[str], error: OSError) -> EngineError:
    reason = error.strerror or str(error)
    return EngineError(f"cannot start engine {shlex.join(args)!r}: {reason}")


def _terminated(session: _Session, awaiting: str, code: int | None, stderr: Sequence[str]) -> str:
    status = "" if code is None else f" (exit code {code})"
    tail = " | ".join(stderr)
    text = f"{session.describe()} terminated{status} while chuhan waited for {awaiting}"
    return text + (f"; its last error output: {tail}" if tail else "")


# ---------------------------------------------------------------------- the drivers


@dataclass(frozen=True)
class _Launch:
    """What ``popen_uci`` / ``popen_ucci`` were asked to start."""

    protocol: EngineProtocol
    command: str | Sequence[str]
    coordinates: str | None
    options: Mapping[str, object] | None
    timeout: float
    search_timeout: float
    cwd: str | None
    env: Mapping[str, str] | None

    def session(self) -> _Session:
        """A new session for the engine (raises :class:`EngineError` for a bad command,
        coordinates or timeout)."""
        return _Session(
            self.protocol,
            _split_command(self.command),
            coordinates=self.coordinates,
            timeout=self.timeout,
            search_timeout=self.search_timeout,
        )


#: What starting an engine gives: the engine (SimpleEngine) or a coroutine that gives it
#: (AsyncEngine).
_Started = TypeVar("_Started")


class _Driver(Generic[_Started]):
    """What the blocking and the asyncio driver share: how an engine is started, and what
    its session knows of it. Each driver adds the I/O (``_spawn``, ``_run``) and the
    commands, each one conversation of the session run to its end."""

    _session: _Session

    @classmethod
    def popen_uci(
        cls,
        command: str | Sequence[str],
        *,
        coordinates: str | None = None,
        options: Mapping[str, object] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        search_timeout: float = DEFAULT_SEARCH_TIMEOUT,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> _Started:
        """Start a UCI engine and complete its handshake (``uci`` ... ``uciok``).

        ``command`` is an argument list, or a string split like a shell would.
        ``coordinates`` is ``"ranks-0-9"`` or ``"ranks-1-10"``; by default it is picked
        from the engine's name (Fairy-Stockfish 1-10; Pikafish, chuhan 0-9), then from
        whether it offers ``UCI_Variant`` (Fairy-Stockfish's option: 1-10), then by game
        (xiangqi 0-9, janggi 1-10), and corrected if the engine sends a rank 10 or 0.
        ``timeout`` bounds the handshake and every ``isready``; ``search_timeout`` bounds
        a search that no time limit bounds. ``options`` are passed to :meth:`configure`.
        """
        return cls._spawn(
            _Launch("uci", command, coordinates, options, timeout, search_timeout, cwd, env)
        )

    @classmethod
    def popen_ucci(
        cls,
        command: str | Sequence[str],
        *,
        coordinates: str | None = None,
        options: Mapping[str, object] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        search_timeout: float = DEFAULT_SEARCH_TIMEOUT,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> _Started:
        """Start a UCCI engine (``ucci`` ... ``ucciok``); ranks 0-9, times in milliseconds
        when it offers ``usemillisec``. Arguments as :meth:`popen_uci`."""
        return cls._spawn(
            _Launch("ucci", command, coordinates, options, timeout, search_timeout, cwd, env)
        )

    @classmethod
    def _spawn(cls, launch: _Launch) -> _Started:
        """Start the engine's process, shake hands and set the options."""
        raise NotImplementedError

    @property
    def name(self) -> str:
        """The engine's ``id name`` (its program name before the handshake)."""
        return self._session.name

    @property
    def author(self) -> str:
        return self._session.author

    @property
    def id(self) -> dict[str, str]:
        """Everything the engine said with ``id``: ``{"name": ..., "author": ...}``."""
        return dict(self._session.id)

    @property
    def protocol(self) -> EngineProtocol:
        return self._session.protocol

    @property
    def options(self) -> Mapping[str, Option]:
        """The options the engine declared, by lower-case name."""
        return dict(self._session.options)

    @property
    def config(self) -> Mapping[str, str | None]:
        """The option values set with ``configure()``."""
        return dict(self._session.config)

    def coordinates(self, board: Board) -> Coordinates:
        """The rank numbering used with this engine for ``board``'s game (see popen_uci)."""
        return self._session.coordinates(board)


class SimpleEngine(_Driver["SimpleEngine"]):
    """A UCI or UCCI engine run as a subprocess, driven by blocking calls (thread-safe:
    one command at a time). Create it with :meth:`popen_uci` or :meth:`popen_ucci`."""

    def __init__(self, session: _Session, process: subprocess.Popen[str]) -> None:
        self._session = session
        self._process = process
        self._lock = threading.Lock()
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=5)
        self._eof = False
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    @classmethod
    def _spawn(cls, launch: _Launch) -> SimpleEngine:
        session = launch.session()
        args = session.command
        try:
            process = subprocess.Popen(
                args,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                cwd=launch.cwd,
                env=None if launch.env is None else dict(launch.env),
            )
        except OSError as error:
            raise _start_failure(args, error) from None
        engine = cls(session, process)
        try:
            engine._run(session.handshake())
            if launch.options:
                engine.configure(launch.options)
        except BaseException:
            engine.close()
            raise
        return engine

    # ---------------------------------------------------------------- I/O

    def _read_stdout(self) -> None:
        stream = self._process.stdout
        assert stream is not None
        try:
            for line in stream:
                LOGGER.debug("%s >> %s", self._session.name, line.rstrip())
                self._lines.put(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        self._lines.put(None)

    def _read_stderr(self) -> None:
        stream = self._process.stderr
        assert stream is not None
        try:
            for line in stream:
                if line.strip():
                    self._stderr.append(line.strip())
        except (OSError, ValueError):
            pass

    def _write(self, line: str, awaiting: str) -> None:
        LOGGER.debug("%s << %s", self._session.name, line)
        stream = self._process.stdin
        try:
            assert stream is not None
            stream.write(line + "\n")
            stream.flush()
        except (OSError, ValueError):
            self._died(f"it to read {line!r}")

    def _died(self, awaiting: str) -> None:
        self._eof = True
        try:
            code: int | None = self._process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        time.sleep(0.05)  # let the stderr reader catch the last words
        raise EngineTerminatedError(_terminated(self._session, awaiting, code, list(self._stderr)))

    def _read(self, request: _Receive) -> str | None:
        if self._eof:
            self._died(request.awaiting)
        try:
            line = self._lines.get(timeout=max(0.0, request.deadline - time.monotonic()))
        except queue.Empty:
            return None
        if line is None:
            self._died(request.awaiting)
        return line

    def _run(self, conversation: _Conversation[T]) -> T:
        with self._lock:
            if self._process.poll() is not None and self._lines.empty():
                self._died("it to take a command")
            try:
                request = next(conversation)
                while True:
                    if isinstance(request, _Send):
                        self._write(request.line, "a command")
                        request = conversation.send(None)
                    else:
                        request = conversation.send(self._read(request))
            except StopIteration as stop:
                result: T = stop.value
                return result

    # ---------------------------------------------------------------- API

    @property
    def returncode(self) -> int | None:
        return self._process.poll()

    def configure(self, options: Mapping[str, object]) -> None:
        """Set options (names case-insensitive), each checked against what the engine
        declared: a check takes a bool, a spin an int in range, a combo one of its values."""
        self._run(self._session.configure(options))

    def ping(self) -> None:
        """``isready``/``readyok``: raises if the engine does not answer in time."""
        self._run(self._session.ping())

    def new_game(self) -> None:
        """Tell the engine a new game starts (UCI ``ucinewgame``)."""
        self._run(self._session.new_game())

    def play(
        self,
        board: Board,
        limit: Limit,
        *,
        ban_moves: Sequence[Move] = (),
        timeout: float | None = None,
    ) -> PlayResult:
        """The engine's move in ``board``'s position (its history is sent too).

        ``ban_moves`` are excluded (UCCI ``banmoves``; UCI ``searchmoves`` with the others).
        ``timeout`` (seconds) bounds the wait for ``bestmove``: by default the limit's time
        budget plus 2 s, or ``search_timeout`` for a limit without one; when it passes
        ``stop`` is sent, and :class:`EngineTimeoutError` raised 2 s later.
        """
        return self._run(self._session.play(board, limit, ban_moves=ban_moves, timeout=timeout))

    @overload
    def analyse(
        self,
        board: Board,
        limit: Limit,
        *,
        multipv: None = None,
        ban_moves: Sequence[Move] = (),
        timeout: float | None = None,
        on_info: Callable[[InfoDict], object] | None = None,
        stop: threading.Event | None = None,
    ) -> InfoDict: ...

    @overload
    def analyse(
        self,
        board: Board,
        limit: Limit,
        *,
        multipv: int,
        ban_moves: Sequence[Move] = (),
        timeout: float | None = None,
        on_info: Callable[[InfoDict], object] | None = None,
        stop: threading.Event | None = None,
    ) -> list[InfoDict]: ...

    def analyse(
        self,
        board: Board,
        limit: Limit,
        *,
        multipv: int | None = None,
        ban_moves: Sequence[Move] = (),
        timeout: float | None = None,
        on_info: Callable[[InfoDict], object] | None = None,
        stop: threading.Event | None = None,
    ) -> InfoDict | list[InfoDict]:
        """Search and return the final info: one :class:`InfoDict`, or with ``multipv=N``
        a list of up to N, best line first. ``on_info`` hears each info line as the engine
        sends it (a line's score and moves as it deepens); setting the event ``stop`` from
        another thread ends the search early (``stop`` is sent; the answer is the lines so
        far)."""
        return self._run(
            self._session.analyse(
                board,
                limit,
                multipv=multipv,
                ban_moves=ban_moves,
                timeout=timeout,
                on_info=on_info,
                stop=stop,
            )
        )

    def analysis(
        self,
        board: Board,
        limit: Limit | None = None,
        *,
        multipv: int | None = None,
        ban_moves: Sequence[Move] = (),
        timeout: float | None = None,
    ) -> SimpleAnalysisResult:
        """Start a search in the background and stream its info, as python-chess's
        ``engine.analysis()``: use the answer as a context manager and iterate it (each
        :class:`InfoDict` as the engine sends it), read :attr:`SimpleAnalysisResult.info`
        (the best line so far) or :attr:`~SimpleAnalysisResult.multipv`, call
        :meth:`~SimpleAnalysisResult.stop` to end the search early. Leaving the ``with``
        stops the search and waits for the engine's answer; the engine takes no other
        command until the analysis is over.

        Without a ``limit`` the search is open-ended, as python-chess's: ``go infinite``,
        and it runs until :meth:`~SimpleAnalysisResult.stop` or the end of the ``with``
        (or ``timeout`` seconds, when given). UCCI engines are sent ``go infinite`` too:
        chuhan's own searches until stopped, while ElephantEye searches to its deepest
        depth and may answer before it is stopped, which ends the analysis as a limit
        would. With a ``limit``, the search ends at it (or at ``stop()``, whichever comes
        first)::

            with engine.analysis(board) as analysis:
                for info in analysis:
                    if info.get("depth", 0) >= 20:
                        break
            print(analysis.info["score"].white())

        >>> import sys
        >>> from chuhan import Board
        >>> from chuhan.engine import SimpleEngine
        >>> with SimpleEngine.popen_uci([sys.executable, "-m", "chuhan", "engine"]) as engine:
        ...     with engine.analysis(Board()) as analysis:
        ...         for info in analysis:
        ...             if info.get("depth", 0) >= 3:
        ...                 break
        ...     analysis.info["depth"] >= 3, len(analysis.info["pv"]) > 0
        (True, True)
        """
        analysis = SimpleAnalysisResult(multipv)

        def search() -> list[InfoDict]:
            conversation = analysis._conversation(
                self._session, board, limit, multipv, ban_moves, timeout
            )
            return _as_lines(self._run(conversation))

        analysis._start(search)
        return analysis

    def quit(self, timeout: float | None = None) -> None:
        """Send ``quit`` and wait for the process to end (killing it after ``timeout``,
        by default the engine's timeout; at once if it has missed a deadline). Safe to
        call twice."""
        wait = self._session.timeout if timeout is None else timeout
        if self._process.poll() is None and not self._session.unresponsive:
            with self._lock, contextlib.suppress(EngineTerminatedError):
                self._write("quit", "quit")
            try:
                self._process.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                LOGGER.warning("%s did not quit in %g s: killed", self._session.describe(), wait)
        self.close()

    def close(self) -> None:
        """Kill the process if it still runs (no ``quit``), and release its pipes."""
        if self._process.poll() is None:
            self._process.kill()
            try:
                self._process.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                LOGGER.warning("%s survived kill", self._session.describe())
        for stream in (self._process.stdin, self._process.stdout, self._process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def __enter__(self) -> SimpleEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.quit()

    def __repr__(self) -> str:
        return f"<SimpleEngine {self.protocol} {self.name!r} pid={self._process.pid}>"


class AsyncEngine(_Driver[Coroutine[Any, Any, "AsyncEngine"]]):
    """The asyncio form of :class:`SimpleEngine`: the same methods, as coroutines. Create
    it with ``await chuhan.engine.popen_uci(...)`` / ``popen_ucci(...)`` (or
    ``await AsyncEngine.popen_uci(...)``)."""

    def __init__(self, session: _Session, process: asyncio.subprocess.Process) -> None:
        self._session = session
        self._process = process
        self._lock = asyncio.Lock()
        self._stderr: collections.deque[str] = collections.deque(maxlen=5)
        self._stderr_task = asyncio.ensure_future(self._read_stderr())

    @classmethod
    async def _spawn(cls, launch: _Launch) -> AsyncEngine:
        session = launch.session()
        args = session.command
        try:
            process = await asyncio.create_subprocess_exec(
                *args,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=launch.cwd,
                env=None if launch.env is None else dict(launch.env),
                limit=1 << 20,
            )
        except OSError as error:
            raise _start_failure(args, error) from None
        engine = cls(session, process)
        try:
            await engine._run(session.handshake())
            if launch.options:
                await engine.configure(launch.options)
        except BaseException:
            await engine.close()
            raise
        return engine

    async def _read_stderr(self) -> None:
        stream = self._process.stderr
        assert stream is not None
        while True:
            try:
                raw = await stream.readline()
            except (OSError, ValueError):
                return
            if not raw:
                return
            text = raw.decode("utf-8", "replace").strip()
            if text:
                self._stderr.append(text)

    async def _died(self, awaiting: str) -> None:
        try:
            code: int | None = await asyncio.wait_for(self._process.wait(), 1.0)
        except TimeoutError:
            code = None
        await asyncio.sleep(0.05)
        raise EngineTerminatedError(_terminated(self._session, awaiting, code, list(self._stderr)))

    async def _write(self, line: str) -> None:
        LOGGER.debug("%s << %s", self._session.name, line)
        stream = self._process.stdin
        assert stream is not None
        try:
            stream.write((line + "\n").encode("utf-8"))
            await stream.drain()
        except (OSError, RuntimeError):
            await self._died(f"it to read {line!r}")

    async def _read(self, request: _Receive) -> str | None:
        stream = self._process.stdout
        assert stream is not None
        remaining = max(0.0, request.deadline - time.monotonic())
        try:
            raw = await asyncio.wait_for(stream.readline(), remaining)
        except TimeoutError:
            return None
        except (OSError, ValueError) as error:
            raise EngineError(f"{self._session.describe()}: unreadable output: {error}") from None
        if not raw:
            await self._died(request.awaiting)
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        LOGGER.debug("%s >> %s", self._session.name, line)
        return line

    async def _run(self, conversation: _Conversation[T]) -> T:
        async with self._lock:
            if self._process.returncode is not None:
                await self._died("it to take a command")
            try:
                request = next(conversation)
                while True:
                    if isinstance(request, _Send):
                        await self._write(request.line)
                        request = conversation.send(None)
                    else:
                        request = conversation.send(await self._read(request))
            except StopIteration as stop:
                result: T = stop.value
                return result

    @property
    def returncode(self) -> int | None:
        return self._process.returncode

    async def configure(self, options: Mapping[str, object]) -> None:
        """As :meth:`SimpleEngine.configure`."""
        await self._run(self._session.configure(options))

    async def ping(self) -> None:
        """As :meth:`SimpleEngine.ping`."""
        await self._run(self._session.ping())

    async def new_game(self) -> None:
        """As :meth:`SimpleEngine.new_game`."""
        await self._run(self._session.new_game())

    async def play(
        self,
        board: Board,
        limit: Limit,
        *,
        ban_moves: Sequence[Move] = (),
        timeout: float | None = None,
    ) -> PlayResult:
        """As :meth:`SimpleEngine.play`."""
        return await self._run(
            self._session.play(board, limit, ban_moves=ban_moves, timeout=timeout)
        )

    @overload
    async def analyse(
        self,
        board: Board,
        limit: Limit,
        *,
        multipv: None = None,
        ban_moves: Sequence[Move] = (),
        timeout: float | None = None,
    ) -> InfoDict: ...

    @overload
    async def analyse(
        self,
        board: Board,
        limit: Limit,
        *,
        multipv: int,
        ban_moves: Sequence[Move] = (),
        timeout: float | None = None,
    ) -> list[InfoDict]: ...

    async def analyse(
        self,
        board: Board,
        limit: Limit,
        *,
        multipv: int | None = None,
        ban_moves: Sequence[Move] = (),
        timeout: float | None = None,
    ) -> InfoDict | list[InfoDict]:
        """As :meth:`SimpleEngine.analyse`."""
        return await self._run(
            self._session.analyse(
                board, limit, multipv=multipv, ban_moves=ban_moves, timeout=timeout
            )
        )

    async def analysis(
        self,
        board: Board,
        limit: Limit | None = None,
        *,
        multipv: int | None = None,
        ban_moves: Sequence[Move] = (),
        timeout: float | None = None,
    ) -> AnalysisResult:
        """As :meth:`SimpleEngine.analysis` (without a ``limit``, an open-ended search
        that runs until it is stopped), the search running in a task::

            with await engine.analysis(board) as analysis:
                async for info in analysis:
                    ...

        The search stops when the ``with`` block ends (``await analysis.wait()`` for its
        final lines).

        >>> import asyncio, sys
        >>> from chuhan import Board
        >>> from chuhan.engine import popen_uci
        >>> async def deepest() -> int:
        ...     async with await popen_uci([sys.executable, "-m", "chuhan", "engine"]) as engine:
        ...         with await engine.analysis(Board()) as analysis:
        ...             async for info in analysis:
        ...                 if info.get("depth", 0) >= 3:
        ...                     break
        ...         await analysis.wait()
        ...         return analysis.info["depth"]
        >>> asyncio.run(deepest()) >= 3
        True
        """
        analysis = AnalysisResult(multipv)

        async def search() -> list[InfoDict]:
            conversation = analysis._conversation(
                self._session, board, limit, multipv, ban_moves, timeout
            )
            return _as_lines(await self._run(conversation))

        analysis._start(search())
        return analysis

    async def quit(self, timeout: float | None = None) -> None:
        """As :meth:`SimpleEngine.quit`."""
        wait = self._session.timeout if timeout is None else timeout
        if self._process.returncode is None and not self._session.unresponsive:
            async with self._lock:
                with contextlib.suppress(EngineTerminatedError):
                    await self._write("quit")
            try:
                await asyncio.wait_for(self._process.wait(), wait)
            except TimeoutError:
                LOGGER.warning("%s did not quit in %g s: killed", self._session.describe(), wait)
        await self.close()

    async def close(self) -> None:
        """As :meth:`SimpleEngine.close`."""
        if self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()
            await self._process.wait()
        await self._stderr_task

    async def __aenter__(self) -> AsyncEngine:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.quit()

    def __repr__(self) -> str:
        return f"<AsyncEngine {self.protocol} {self.name!r} pid={self._process.pid}>"


#: Start a UCI engine under asyncio: ``engine = await popen_uci([...])`` (arguments as
#: :meth:`SimpleEngine.popen_uci`).
popen_uci = AsyncEngine.popen_uci
#: Start a UCCI engine under asyncio (arguments as :meth:`SimpleEngine.popen_ucci`).
popen_ucci = AsyncEngine.popen_ucci
