"""The server's computer pool: the computer players' moves and analyses, searched in
worker processes.

A search is CPU-bound and blocking, so it never runs on the server's event loop: a small
:class:`concurrent.futures.ProcessPoolExecutor` (``spawn`` start method) gets the start FEN
and the ICCS moves (plain strings, never Board objects) and rebuilds the position, history
included, in the worker. Each worker keeps one :class:`~chuhan.search.search.Searcher`.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Protocol

from chuhan.board import Board
from chuhan.errors import ChuhanError

if TYPE_CHECKING:
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
]


class PoolError(ChuhanError):
    """The computer could not search (the engine is not installed, a worker crashed)."""


@dataclass(frozen=True, slots=True)
class MoveRequest:
    """A computer move: the position (variant name ``game:rules``, start FEN, ICCS moves)
    and the limits. Times in milliseconds; ``wtime``/``btime`` are the first and second
    movers' clocks."""

    variant: str
    fen: str
    moves: tuple[str, ...]
    level: int
    movetime: int | None = None
    wtime: int | None = None
    btime: int | None = None
    winc: int | None = None
    binc: int | None = None
    byoyomi: int | None = None
    wperiods: int | None = None
    bperiods: int | None = None


@dataclass(frozen=True, slots=True)
class AnalysisRequest:
    variant: str
    fen: str
    moves: tuple[str, ...]
    movetime: int
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


def choose_move(request: MoveRequest) -> str | None:
    """Search the position (in a worker) and return the chosen move in ICCS, or None."""
    from chuhan.search.limits import Limits

    board = _board(request.variant, request.fen, request.moves)
    fields = asdict(request)
    limits = Limits(
        **{
            key: fields[key]
            for key in (
                "movetime",
                "wtime",
                "btime",
                "winc",
                "binc",
                "byoyomi",
                "wperiods",
                "bperiods",
            )
        }
    )
    result = _searcher().search(board, limits, level=request.level)
    return None if result.best is None else result.best.iccs()


def analyse_position(request: AnalysisRequest) -> list[dict[str, Any]]:
    """Analyse the position (in a worker): each line's depth, score and best line in every
    notation."""
    from chuhan.notation import to_chinese, to_korean, to_wxf
    from chuhan.search.limits import Limits

    board = _board(request.variant, request.fen, request.moves)
    result = _searcher().search(board, Limits(movetime=request.movetime), multipv=request.multipv)
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


class PoolBusy(PoolError):
    """Too many analyses are waiting: the request is refused, nothing is queued."""


class ProcessPool:
    """The engine in worker processes, started on first use: one pool for the computer
    players' moves and a separate one for analysis, so that analyses (which anyone may
    ask for) never make a computer player wait; and at most :attr:`MAX_ANALYSES` analyses
    waiting or running at once."""

    #: Analyses accepted at once (running or waiting); more get :class:`PoolBusy`.
    MAX_ANALYSES = 4

    def __init__(self, workers: int | None = None, analysis_workers: int = 1) -> None:
        self._sizes = {
            "move": workers or max(1, min(2, (os.cpu_count() or 1))),
            "analysis": analysis_workers,
        }
        self._pools: dict[str, ProcessPoolExecutor] = {}
        self._available: bool | None = None
        self._analyses = 0

    def available(self) -> bool:
        if self._available is None:
            self._available = engine_available()
        return self._available

    def _executor(self, kind: str) -> ProcessPoolExecutor:
        if not self.available():
            raise PoolError("the engine (chuhan.search) is not available in this install")
        pool = self._pools.get(kind)
        if pool is None:
            pool = self._pools[kind] = ProcessPoolExecutor(
                max_workers=self._sizes[kind], mp_context=multiprocessing.get_context("spawn")
            )
        return pool

    async def _run(self, kind: str, function: Any, request: Any) -> Any:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor(kind), function, request)
        except PoolError:
            raise
        except ChuhanError as error:
            raise PoolError(f"the engine rejected the position: {error}") from None
        except Exception as error:  # a crashed worker (BrokenProcessPool) or a bug in it
            self._pools.pop(kind, None)
            raise PoolError(f"the engine failed: {type(error).__name__}: {error}") from None

    async def best_move(self, request: MoveRequest) -> str | None:
        move: str | None = await self._run("move", choose_move, request)
        return move

    async def analyse(self, request: AnalysisRequest) -> list[dict[str, Any]]:
        if self._analyses >= self.MAX_ANALYSES:
            raise PoolBusy(
                f"the engine is busy with {self._analyses} other analyses; "
                "try again in a few seconds"
            )
        self._analyses += 1
        try:
            lines: list[dict[str, Any]] = await self._run("analysis", analyse_position, request)
        finally:
            self._analyses -= 1
        return lines

    def close(self) -> None:
        for pool in self._pools.values():
            pool.shutdown(wait=False, cancel_futures=True)
        self._pools.clear()
