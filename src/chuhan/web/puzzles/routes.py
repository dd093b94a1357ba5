"""The REST endpoints of puzzles (:mod:`chuhan.web.puzzles.service`): the list, the daily puzzle,
one puzzle, and a move, a hint or the solution for an attempt (the moves played so far)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from chuhan.web.compute.service import WorkerError, WorkersBusy
from chuhan.web.context import context_of
from chuhan.web.db.budgets import Rate
from chuhan.web.http.common import HTTPError, limit_rate, read_json
from chuhan.web.puzzles.service import (
    Puzzle,
    PuzzleInputError,
    hint,
    judge_move,
    load_puzzles,
    replay,
    solution_from,
    today,
    written,
)

__all__ = ["daily_puzzle", "puzzle", "puzzle_hint", "puzzle_list", "puzzle_move", "puzzle_solution"]

#: Requests that may search (moves, hints, solutions) per address: a burst, then one every
#: second. A search takes a few seconds of the analysis worker at most.
SEARCH_BURST = 60
SEARCH_EVERY_SECONDS = 1.0
SEARCH_RATE = Rate(SEARCH_BURST, SEARCH_EVERY_SECONDS)


def _puzzle_of(request: Request) -> Puzzle:
    puzzle_id = request.path_params["puzzle_id"]
    found = load_puzzles().get(puzzle_id)
    if found is None:
        raise HTTPError(404, "no_puzzle", f"there is no puzzle {puzzle_id[:40]!r}")
    return found


async def puzzle_list(request: Request) -> Response:
    puzzles = load_puzzles()
    daily = puzzles.daily(today(context_of(request).now()))
    return JSONResponse({"puzzles": puzzles.listing(), "daily": daily.id})


async def daily_puzzle(request: Request) -> Response:
    day = today(context_of(request).now())
    body = load_puzzles().daily(day).public()
    body["date"] = day.isoformat()
    return JSONResponse(body)


async def puzzle(request: Request) -> Response:
    return JSONResponse(_puzzle_of(request).public())


async def _attempt(request: Request) -> tuple[Puzzle, dict[str, Any]]:
    """The puzzle and the request's body, within the address's budget and with the engine
    there to search."""
    context = context_of(request)
    found = _puzzle_of(request)
    data = await read_json(request)
    await limit_rate(request, "puzzle", SEARCH_RATE, "puzzle moves")
    if not context.compute.available():
        raise HTTPError(503, "engine_unavailable", "the engine is not available")
    return found, data


async def _answer(job: Any) -> Any:
    try:
        return await job
    except PuzzleInputError as error:
        raise HTTPError(400, "bad_field", str(error)) from None
    except WorkersBusy as error:
        raise HTTPError(503, "engine_busy", str(error)) from None
    except WorkerError as error:
        raise HTTPError(503, "engine_unavailable", str(error)) from None


async def puzzle_move(request: Request) -> Response:
    found, data = await _attempt(request)
    compute = context_of(request).compute
    verdict = await _answer(judge_move(compute, found, data.get("moves", []), data.get("move")))
    return JSONResponse(verdict)


async def puzzle_hint(request: Request) -> Response:
    found, data = await _attempt(request)
    move = await _answer(hint(context_of(request).compute, found, data.get("moves", [])))
    return JSONResponse({"move": move})


async def puzzle_solution(request: Request) -> Response:
    found, data = await _attempt(request)
    played = data.get("moves", [])
    try:
        replay(found, played)
    except PuzzleInputError as error:
        raise HTTPError(400, "bad_field", str(error)) from None
    line = await _answer(solution_from(context_of(request).compute, found, played))
    return JSONResponse({"line": line, "notation": written(found, played, line)})
