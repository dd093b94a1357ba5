"""The server's computer pool: the computer players' moves and analyses, searched in
worker processes (:class:`~chuhan.web.workers.WorkerPool`).

A search is CPU-bound and blocking, so it never runs on the server's event loop: a worker
gets the start FEN and the ICCS moves (plain strings, never Board objects) and rebuilds
the position, history included. Each worker keeps one
:class:`~chuhan.search.search.Searcher`.

What one computer may take of the server is bounded, whatever its clock says: each move's
thinking time is capped by level (``Settings.computer_move_ms``), a worker that has not
answered by that cap plus ``Settings.worker_grace_seconds`` is killed and replaced (the
game gets an ``engine_failed`` error), and the deep levels' searches hold all move workers
but one, so a quick level never waits behind them (see :class:`ProcessPool`).
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from chuhan.board import Board
from chuhan.errors import ChuhanError
from chuhan.search.limits import SearchLimits
from chuhan.web.settings import Settings
from chuhan.web.workers import PoolBusy, PoolError, WorkerPool

if TYPE_CHECKING:
    from collections.abc import Callable

    from chuhan.search.search import Searcher

__all__ = [
    "AnalysisRequest",
    "MoveRequest",
    "Pool",
    "PoolBusy",
    "PoolError",
    "ProcessPool",
    "analyse_position",
    "choose_move",
    "engine_available",
    "limits_for",
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


@dataclass(frozen=True, slots=True)
class AnalysisRequest:
    """An analysis: the position, its limits (a movetime) and the number of lines."""

    variant: str
    fen: str
    moves: tuple[str, ...]
    limits: SearchLimits
    multipv: int


class Pool(Protocol):
    """What the server needs from a computer pool; tests give their own."""

    def available(self) -> bool: ...

    async def best_move(self, request: MoveRequest) -> str | None: ...

    async def analyse(self, request: AnalysisRequest) -> list[dict[str, Any]]: ...

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
    result = _searcher().search(board, limits, level=request.level)
    return None if result.best is None else result.best.iccs()


def _choose_asked_move(asked: tuple[MoveRequest, float]) -> str | None:
    """:func:`choose_move` for a request asked at wall-clock time ``asked[1]``."""
    request, asked_at = asked
    return choose_move(request, waited_ms=round(max(0.0, time.time() - asked_at) * 1000))


def analyse_position(request: AnalysisRequest) -> list[dict[str, Any]]:
    """Analyse the position (in a worker): each line's depth, score and best line in every
    notation."""
    from chuhan.notation import to_chinese, to_korean, to_wxf

    board = _board(request.variant, request.fen, request.moves)
    result = _searcher().search(board, request.limits, multipv=request.multipv)
    janggi = board.variant.is_janggi
    lines: list[dict[str, Any]] = []
    for info in result.lines:
        pv: dict[str, list[str] | None] = {"iccs": [], "wxf": [], "chinese": [], "korean": []}
        replay = board.copy()
        for move in info.pv:
            if not replay.is_legal(move):
                break
            for name, writer in (("wxf", to_wxf), ("chinese", to_chinese)):
                pv[name].append(writer(replay, move))  # type: ignore[union-attr]
            if janggi:
                pv["korean"].append(to_korean(replay, move))  # type: ignore[union-attr]
            pv["iccs"].append(move.iccs())  # type: ignore[union-attr]
            replay.push(move)
        if not janggi:
            pv["korean"] = None
        lines.append(
            {
                "multipv": info.multipv,
                "depth": info.depth,
                "score_cp": info.score_cp,
                "mate": info.mate,
                "pv": pv,
            }
        )
    return lines


class ProcessPool:
    """The engine in worker processes, started on first use: one pool for the computer
    players' moves and a separate one for analysis, so that analyses (which anyone may
    ask for) never make a computer player wait; and at most :attr:`MAX_ANALYSES` analyses
    waiting or running at once.

    The move pool has ``workers`` processes for deep searches (the levels from
    ``Settings.computer_deep_level`` up; by default one per CPU, at most two) and one more
    that only the quicker levels may take: however many deep searches run or wait, a
    level-1 move starts at once, and waits at most behind other quick moves (each capped
    at a second or so). Waiting moves are served earliest deadline first, and at most
    ``Settings.computer_max_waiting`` moves of each kind wait: one more is refused
    (:class:`PoolBusy`) rather than queued behind minutes of searching.
    """

    #: Analyses accepted at once (running or waiting); more get :class:`PoolBusy`.
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
        self._moves = WorkerPool(
            deep + 1,
            "computer move",
            lanes={"deep": deep},
            max_waiting=settings.computer_max_waiting,
            initializer=_warm_up,
        )
        self._analysis = WorkerPool(analysis_workers, "analysis", initializer=_warm_up)
        self._available: bool | None = None
        self._analyses = 0

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
        workers: WorkerPool,
        function: Callable[[Any], T],
        argument: object,
        *,
        timeout: float,
        lane: str | None = None,
    ) -> T:
        if not self.available():
            raise PoolError("the engine (chuhan.search) is not available in this install")
        try:
            return await workers.run(function, argument, timeout=timeout, lane=lane)
        except PoolError:
            raise
        except ChuhanError as error:
            raise PoolError(f"the engine rejected the position: {error}") from None
        except Exception as error:  # a bug in the worker
            raise PoolError(f"the engine failed: {type(error).__name__}: {error}") from None

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

    async def analyse(self, request: AnalysisRequest) -> list[dict[str, Any]]:
        if self._analyses >= self.MAX_ANALYSES:
            raise PoolBusy(
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
            )
        finally:
            self._analyses -= 1

    def close(self) -> None:
        self._moves.close()
        self._analysis.close()
