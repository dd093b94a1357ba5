"""The server's compute service: the computer players' moves and analyses, searched in
worker processes (:class:`~chuhan.web.compute.workers.Workers`).

A search is CPU-bound and blocking, so it never runs on the server's event loop: a worker
gets the start FEN and the ICCS moves (plain strings, never Board objects) and rebuilds
the position, history included. Each worker keeps one
:class:`~chuhan.search.search.Searcher` (an analysis worker one per rule set, so that
analysts of xiangqi and janggi taking turns do not empty each other's hash table).

Analyses stream: :meth:`ProcessCompute.analysis_stream` runs :func:`stream_analysis` as a
streaming job of the analysis workers (:meth:`~chuhan.web.compute.workers.Workers.stream`),
which reports the lines of each completed depth and stops within milliseconds when asked.
The analysis workers run at a lower CPU priority than the computer players' (``nice``),
so an analysis never slows a computer's move. The server's operator may name an external
UCI/UCCI engine for analyses (``chuhan serve --analysis-engine CMD``): the analysis worker
then drives it with :class:`chuhan.engine.SimpleEngine` instead of chuhan's own search.

What one computer may take of the server is bounded, whatever its clock says: each move's
thinking time is capped by level (``Settings.computer_move_ms``), a worker that has not
answered by that cap plus ``Settings.worker_grace_seconds`` is killed and replaced (the
game gets an ``engine_failed`` error), and the deep levels' searches hold all move workers
but one, so a quick level never waits behind them (see :class:`ProcessCompute`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from chuhan.board import Board
from chuhan.errors import ChuhanError, ServiceError
from chuhan.search.limits import SearchControl, SearchInfo, SearchLimits
from chuhan.squares import Move
from chuhan.web.compute.workers import JobChannel, Stream, WorkerError, Workers, WorkersBusy
from chuhan.web.settings import Settings

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from chuhan.engine import InfoDict, SimpleEngine
    from chuhan.search.search import Searcher

__all__ = [
    "ANALYSIS_NICE",
    "AnalysisRequest",
    "Compute",
    "ExternalEngine",
    "MoveRequest",
    "ProcessCompute",
    "WorkerError",
    "WorkersBusy",
    "analyse_position",
    "choose_move",
    "engine_available",
    "evaluate_position",
    "limits_for",
    "stream_analysis",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class MoveRequest:
    """A computer move: the position (variant name ``game:rules``, start FEN, ICCS moves),
    the level, and the search's limits (the clocks, or a movetime)."""

    variant: str
    fen: str
    moves: tuple[str, ...]
    level: int
    limits: SearchLimits


#: How much lower the analysis workers' CPU priority is than the server's (``nice``).
ANALYSIS_NICE = 10


@dataclass(frozen=True, slots=True)
class ExternalEngine:
    """An external engine for analyses: its command line and protocol (``uci``/``ucci``)."""

    command: str
    protocol: str = "uci"
    #: How long it may take to start and to answer each handshake (seconds).
    start_seconds: float = 30.0


@dataclass(frozen=True, slots=True)
class AnalysisRequest:
    """An analysis: the position, its limits (a movetime, or nodes) and the number of
    lines; ``engine`` an external engine to ask instead of chuhan's own."""

    variant: str
    fen: str
    moves: tuple[str, ...]
    limits: SearchLimits
    multipv: int
    engine: ExternalEngine | None = None
    #: A review's mate search after the search (chuhan's engine only, see
    #: :func:`evaluate_position`): the longest mate looked for, in moves, and its nodes.
    mate_moves: int = 0
    mate_nodes: int = 0


class Compute(Protocol):
    """What the server needs from a compute service; tests give their own."""

    def available(self) -> bool: ...

    async def best_move(self, request: MoveRequest) -> str | None: ...

    async def analyse(
        self, request: AnalysisRequest, *, first: bool = False
    ) -> list[dict[str, Any]]: ...

    def close(self) -> None: ...


def engine_available() -> bool:
    """Whether chuhan's engine (``chuhan.search.search``) can be imported."""
    try:
        import chuhan.search.search  # noqa: F401
    except ImportError:
        return False
    return True


_SEARCHER: Searcher | None = None


def _searcher() -> Searcher:
    global _SEARCHER
    if _SEARCHER is None:
        from chuhan.search.search import Searcher

        _SEARCHER = Searcher(hash_mb=16)
    return _SEARCHER


#: An analysis worker's searchers, by rule set (the newest last; a few are kept).
_ANALYSIS_SEARCHERS: dict[str, Searcher] = {}
_KEPT_SEARCHERS = 3
#: An analysis worker's external engine, started on first use and kept.
_EXTERNAL: dict[ExternalEngine, SimpleEngine] = {}


def _analysis_searcher(variant: str) -> Searcher:
    searcher = _ANALYSIS_SEARCHERS.pop(variant, None)
    if searcher is None:
        from chuhan.search.search import Searcher

        if len(_ANALYSIS_SEARCHERS) >= _KEPT_SEARCHERS:
            del _ANALYSIS_SEARCHERS[next(iter(_ANALYSIS_SEARCHERS))]
        searcher = Searcher(hash_mb=16)
    _ANALYSIS_SEARCHERS[variant] = searcher
    return searcher


def _external(engine: ExternalEngine) -> SimpleEngine:
    from chuhan.engine import SimpleEngine

    running = _EXTERNAL.get(engine)
    if running is not None and running.returncode is None:
        return running
    if running is not None:
        running.close()
    if engine.protocol == "ucci":
        started = SimpleEngine.popen_ucci(engine.command, timeout=engine.start_seconds)
    else:
        started = SimpleEngine.popen_uci(engine.command, timeout=engine.start_seconds)
    _EXTERNAL[engine] = started
    return started


def _board(variant: str, fen: str, moves: tuple[str, ...]) -> Board:
    game, _, rules = variant.partition(":")
    board = Board(fen, variant=game, rules=rules or None)
    for text in moves:
        board.push_iccs(text)
    return board


def _warm_up() -> None:
    """A worker's start: import the engine and make its searcher."""
    if engine_available():
        _searcher()


def _warm_up_analysis() -> None:
    """An analysis worker's start: a lower CPU priority than the computer players', and
    the engine imported."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(ANALYSIS_NICE)
    if engine_available():
        import chuhan.search.search  # noqa: F401


def limits_for(request: MoveRequest, *, turn: bool, waited_ms: int = 0) -> SearchLimits:
    """The search limits of a computer move: the request's, with the ``waited_ms`` it
    spent waiting for a worker taken off the clock of the side to move (``turn``: True
    for the first mover), whose time ran meanwhile."""
    limits = request.limits
    if waited_ms > 0:
        if turn and limits.wtime is not None:
            return dataclasses.replace(limits, wtime=max(0, limits.wtime - waited_ms))
        if not turn and limits.btime is not None:
            return dataclasses.replace(limits, btime=max(0, limits.btime - waited_ms))
    return limits


def choose_move(request: MoveRequest, *, waited_ms: int = 0) -> str | None:
    """Search the position (in a worker) and return the chosen move in ICCS, or None.
    ``waited_ms``: how long the request waited for a worker (see :func:`limits_for`)."""
    board = _board(request.variant, request.fen, request.moves)
    limits = limits_for(request, turn=board.turn, waited_ms=waited_ms)
    result = _searcher().search(board, limits, level=request.level, book=True)
    return None if result.best is None else result.best.iccs()


def _choose_asked_move(asked: tuple[MoveRequest, float]) -> str | None:
    """:func:`choose_move` for a request asked at wall-clock time ``asked[1]``."""
    request, asked_at = asked
    return choose_move(request, waited_ms=round(max(0.0, time.time() - asked_at) * 1000))


def line_dict(
    board: Board,
    *,
    multipv: int,
    depth: int,
    score_cp: int | None,
    mate: int | None,
    pv: Sequence[Move],
) -> dict[str, Any]:
    """One analysis line: its depth, its score from the side to move's view (``score_cp``,
    ``mate``) and from the first mover's (``first_cp``, ``first_mate``: xiangqi Red,
    janggi Cho, as the analysis board shows it), and its moves in every notation."""
    from chuhan.notation import to_chinese, to_korean, to_wxf

    janggi = board.variant.is_janggi
    notations: dict[str, list[str] | None] = {"iccs": [], "wxf": [], "chinese": [], "korean": []}
    replay = board.copy()
    for move in pv:
        if not replay.is_legal(move):
            break
        for name, writer in (("wxf", to_wxf), ("chinese", to_chinese)):
            notations[name].append(writer(replay, move))  # type: ignore[union-attr]
        if janggi:
            notations["korean"].append(to_korean(replay, move))  # type: ignore[union-attr]
        notations["iccs"].append(move.iccs())  # type: ignore[union-attr]
        replay.push(move)
    if not janggi:
        notations["korean"] = None
    sign = 1 if board.turn else -1
    return {
        "multipv": multipv,
        "depth": depth,
        "score_cp": score_cp,
        "mate": mate,
        "first_cp": None if score_cp is None else sign * score_cp,
        "first_mate": None if mate is None else sign * mate,
        "pv": notations,
    }


def _info_line(board: Board, info: SearchInfo) -> dict[str, Any]:
    return line_dict(
        board,
        multipv=info.multipv,
        depth=info.depth,
        score_cp=info.score_cp,
        mate=info.mate,
        pv=info.pv,
    )


def _external_line(board: Board, info: InfoDict) -> dict[str, Any]:
    score = info.get("score")
    relative = None if score is None else score.pov(board.turn)
    return line_dict(
        board,
        multipv=info.get("multipv", 1),
        depth=info.get("depth", 0),
        score_cp=None if relative is None else relative.cp,
        mate=None if relative is None else relative.mate(),
        pv=info.get("pv", []),
    )


def analyse_position(request: AnalysisRequest) -> list[dict[str, Any]]:
    """Analyse the position (in a worker): each line's depth, score and best line in every
    notation."""
    board = _board(request.variant, request.fen, request.moves)
    searcher = _analysis_searcher(request.variant)
    result = searcher.search(board, request.limits, multipv=request.multipv)
    return [_info_line(board, info) for info in result.lines]


def stream_analysis(request: AnalysisRequest, channel: JobChannel) -> dict[str, Any]:
    """Analyse the position as a streaming job (in an analysis worker): after each depth
    completes, report ``{"depth", "nodes", "time_ms", "lines"}`` (``lines``: the
    ``multipv`` best lines, best first, as :func:`line_dict` gives them); stop when the
    channel says so or the limits are reached, and answer with the last report (None when
    the side to move has no move)."""
    board = _board(request.variant, request.fen, request.moves)
    if not board.legal_moves:
        return {"depth": 0, "nodes": 0, "time_ms": 0, "lines": []}
    if request.engine is not None:
        return _stream_external(board, request, channel)
    expected = min(request.multipv, len(board.legal_moves))
    control = SearchControl()
    channel.on_stop(control.stop)
    last: dict[str, Any] = {"depth": 0, "nodes": 0, "time_ms": 0, "lines": []}
    group: list[SearchInfo] = []

    def on_info(info: SearchInfo) -> None:
        if info.multipv == 1:
            group.clear()
        group.append(info)
        if len(group) == expected or (info.multipv == 1 and info.mate is not None):
            last.update(
                depth=info.depth,
                nodes=info.nodes,
                time_ms=info.time_ms,
                hashfull=info.hashfull,
                lines=[_info_line(board, line) for line in group],
            )
            channel.report(dict(last))

    searcher = _analysis_searcher(request.variant)
    searcher.search(
        board, request.limits, control=control, multipv=request.multipv, on_info=on_info
    )
    return last


def _stream_external(board: Board, request: AnalysisRequest, channel: JobChannel) -> dict[str, Any]:
    """:func:`stream_analysis` by the operator's external engine, through the driver."""
    import threading

    from chuhan.engine import Limit

    assert request.engine is not None
    engine = _external(request.engine)
    stop = threading.Event()
    channel.on_stop(stop.set)
    expected = min(request.multipv, len(board.legal_moves))
    latest: dict[int, InfoDict] = {}
    last: dict[str, Any] = {"depth": 0, "nodes": 0, "time_ms": 0, "lines": []}

    def on_info(info: InfoDict) -> None:
        if "pv" not in info or "score" not in info:
            return
        index = info.get("multipv", 1)
        if index == 1:
            latest.clear()
        latest[index] = info
        if len(latest) == expected:
            last.update(
                depth=info.get("depth", 0),
                nodes=info.get("nodes", 0),
                time_ms=round(info.get("time", 0.0) * 1000),
                lines=[_external_line(board, latest[i]) for i in sorted(latest)],
            )
            channel.report(dict(last))

    limits = request.limits
    limit = Limit(
        time=None if limits.movetime is None else limits.movetime / 1000,
        nodes=limits.nodes,
        depth=limits.depth,
    )
    engine.analyse(board, limit, multipv=request.multipv, on_info=on_info, stop=stop)
    return last


def evaluate_position(request: AnalysisRequest) -> dict[str, Any]:
    """One position of a game review (in an analysis worker): the best line at the
    request's limits (a node budget), ``{"line": line_dict or None}``; with chuhan's
    engine, a proved mate of the side to move in up to ``request.mate_moves`` moves
    instead when the search saw none and a mate search within ``request.mate_nodes``
    nodes finds one."""
    board = _board(request.variant, request.fen, request.moves)
    if not board.legal_moves:
        return {"line": None}
    if request.engine is not None:
        from chuhan.engine import Limit

        limits = request.limits
        info = _external(request.engine).analyse(
            board,
            Limit(
                nodes=limits.nodes,
                time=None if limits.movetime is None else limits.movetime / 1000,
            ),
        )
        return {"line": _external_line(board, info) if "score" in info else None}
    searcher = _analysis_searcher(request.variant)
    result = searcher.search(board, request.limits)
    best = result.lines[0] if result.lines else None
    if request.mate_moves and request.mate_nodes and (best is None or best.mate is None):
        # The search of a few plies misses most mates of three or four moves, above all
        # those that start with a quiet move: a move into one is a review's blunder.
        mate = searcher.find_mate(board, moves=request.mate_moves, nodes=request.mate_nodes)
        if mate is not None:
            best = mate
    return {"line": _info_line(board, best) if best is not None else None}


class ProcessCompute:
    """The engine in worker processes, started on first use: one set of workers for the
    computer players' moves and a separate one for analysis, so that analyses (which anyone may
    ask for) never make a computer player wait; and at most :attr:`MAX_ANALYSES` analyses
    waiting or running at once.

    The move workers are ``workers`` processes for deep searches (the levels from
    ``Settings.computer_deep_level`` up; by default one per CPU, at most two) and one more
    that only the quicker levels may take: however many deep searches run or wait, a
    level-1 move starts at once, and waits at most behind other quick moves (each capped
    at a second or so). Waiting moves are served earliest deadline first, and at most
    ``Settings.computer_max_waiting`` moves of each kind wait: one more is refused
    (:class:`WorkersBusy`) rather than queued behind minutes of searching.
    """

    #: Analyses accepted at once (running or waiting); more get :class:`WorkersBusy`.
    MAX_ANALYSES = 4

    def __init__(
        self,
        workers: int | None = None,
        analysis_workers: int = 1,
        *,
        settings: Settings | None = None,
    ) -> None:
        settings = settings or Settings()
        deep = workers or settings.computer_workers or max(1, min(2, os.cpu_count() or 1))
        self._move_ms = settings.computer_move_ms
        self._deep_level = settings.computer_deep_level
        self._grace = settings.worker_grace_seconds
        self._moves = Workers(
            deep + 1,
            "computer move",
            lanes={"deep": deep},
            max_waiting=settings.computer_max_waiting,
            initializer=_warm_up,
        )
        # The bound on waiting analyses is checked as each job takes its place, however
        # many arrive at once; the reviews' positions are bounded by the analysis service.
        self._analysis = Workers(
            settings.analysis_workers or analysis_workers,
            "analysis",
            max_waiting=settings.analysis_max_waiting,
            initializer=_warm_up_analysis,
        )
        self._available: bool | None = None
        self._analyses = 0
        #: The external engine analyses are asked of (None: chuhan's own).
        self.analysis_engine = (
            None
            if settings.analysis_engine is None
            else ExternalEngine(
                settings.analysis_engine,
                settings.analysis_engine_protocol,
                settings.analysis_engine_start_seconds,
            )
        )

    def available(self) -> bool:
        if self._available is None:
            self._available = engine_available()
        return self._available

    def move_time_cap(self, level: int) -> int:
        """The longest a computer of ``level`` thinks about one move (ms)."""
        caps = self._move_ms
        return caps[min(max(level, 1), len(caps)) - 1]

    async def _run(
        self,
        workers: Workers,
        function: Callable[[Any], T],
        argument: object,
        *,
        timeout: float,
        lane: str | None = None,
        order: float | None = None,
    ) -> T:
        if not self.available():
            raise WorkerError("the engine (chuhan.search) is not available in this install")
        try:
            return await workers.run(function, argument, timeout=timeout, lane=lane, order=order)
        except WorkerError:
            raise
        except (ChuhanError, ServiceError) as error:  # an EngineError is a ServiceError
            raise WorkerError(f"the engine rejected the position: {error}") from None
        except Exception as error:  # a bug in the worker
            raise WorkerError(f"the engine failed: {type(error).__name__}: {error}") from None

    async def best_move(self, request: MoveRequest) -> str | None:
        cap = self.move_time_cap(request.level)
        asked = request.limits.movetime
        movetime = cap if asked is None else min(asked, cap)
        capped = dataclasses.replace(
            request, limits=dataclasses.replace(request.limits, movetime=movetime)
        )
        return await self._run(
            self._moves,
            _choose_asked_move,
            (capped, time.time()),
            timeout=movetime / 1000 + self._grace,
            lane="deep" if request.level >= self._deep_level else None,
        )

    async def analyse(
        self, request: AnalysisRequest, *, first: bool = False
    ) -> list[dict[str, Any]]:
        """The engine's lines for one position, on the analysis workers. ``first``: ahead
        of every analysis board and review waiting (a puzzle's reply, which its solver
        waits for: at most :attr:`MAX_ANALYSES` of these run or wait at once, so they keep
        their share of the workers without taking all of it)."""
        if self._analyses >= self.MAX_ANALYSES:
            raise WorkersBusy(
                f"the engine is busy with {self._analyses} other analyses; "
                "try again in a few seconds"
            )
        self._analyses += 1
        try:
            return await self._run(
                self._analysis,
                analyse_position,
                request,
                timeout=(request.limits.movetime or 0) / 1000 + self._grace,
                order=-math.inf if first else None,
            )
        finally:
            self._analyses -= 1

    def analysis_stream(
        self,
        request: AnalysisRequest,
        on_report: Callable[[Any], None],
        *,
        order: float,
        bounded: bool = True,
    ) -> Stream:
        """Start a streaming analysis (:func:`stream_analysis`) on the analysis workers;
        ``order`` is its place in their queue (the time it asked: first come, first
        served). Its limits must bound its time (a movetime). Raises :class:`WorkersBusy`
        when ``Settings.analysis_max_waiting`` jobs wait (``bounded`` False: an analysis
        coming back after giving its worker up for another's turn)."""
        if not self.available():
            raise WorkerError("the engine (chuhan.search) is not available in this install")
        request = dataclasses.replace(request, engine=self.analysis_engine)
        seconds = (request.limits.movetime or 0) / 1000
        return self._analysis.stream(
            stream_analysis,
            request,
            on_report=on_report,
            timeout=seconds
            + self._grace
            + (0 if request.engine is None else request.engine.start_seconds),
            order=order,
            bounded=bounded,
        )

    def analysis_waiting(self) -> int:
        """How many analysis jobs wait for an analysis worker."""
        return self._analysis.waiting()

    async def evaluate(self, request: AnalysisRequest, *, order: float) -> dict[str, Any]:
        """One position of a game review (:func:`evaluate_position`) on the analysis
        workers, in turn with the analyses (``order`` as in :meth:`analysis_stream`). Not
        refused for a full queue: a review waits with one position at a time, and the
        analysis service bounds the reviews under way (``Settings.reviews_at_once``)."""
        if not self.available():
            raise WorkerError("the engine (chuhan.search) is not available in this install")
        request = dataclasses.replace(request, engine=self.analysis_engine)
        try:
            result: dict[str, Any] = await self._analysis.run(
                evaluate_position,
                request,
                timeout=30
                + self._grace
                + (0 if request.engine is None else request.engine.start_seconds),
                order=order,
                bounded=False,
            )
        except WorkerError:
            raise
        except (ChuhanError, ServiceError) as error:  # an EngineError is a ServiceError
            raise WorkerError(f"the engine rejected the position: {error}") from None
        return result

    def close(self) -> None:
        self._moves.close()
        self._analysis.close()
