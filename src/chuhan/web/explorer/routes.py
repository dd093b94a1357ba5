"""The explorer's REST endpoints: ``GET /api/explorer`` (the moves played from a position,
or how far the masters' index is built), ``GET /api/explorer/games/{id}`` (a master
game, read-only: its tags, start, moves and PGN, written by the records' writer) and
``GET /api/explorer/search`` (master games by player, event, year, result, ECCO code and
position)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from chuhan.board import Board
from chuhan.errors import ChuhanError
from chuhan.explorer import MASTERS, SITE, ExplorerError
from chuhan.explorer.masters import CREDIT
from chuhan.variants import get_variant
from chuhan.web.context import context_of
from chuhan.web.db import StoreError
from chuhan.web.db.budgets import Rate
from chuhan.web.explorer.site import BANDS, SPEEDS
from chuhan.web.http.common import HTTPError, limit_rate

__all__ = ["EXPLORER_RATE", "explorer_game", "explorer_lookup", "explorer_search"]

#: Lookups per address: a burst (stepping through a game asks at each move), then five a
#: second. A lookup is a few milliseconds of the explorer's thread.
EXPLORER_RATE = Rate(300, 0.2)
#: The sources the explorer answers from.
SOURCES = (MASTERS, SITE)
#: The longest FEN read.
_MAX_FEN = 120


def _board(request: Request) -> Board:
    params = request.query_params
    variant_name = params.get("variant") or "xiangqi"
    try:
        variant = get_variant(variant_name[:20])
    except ChuhanError as error:
        raise HTTPError(400, "bad_field", f"'variant': {error}") from None
    fen = params.get("fen") or None
    if fen is not None and len(fen) > _MAX_FEN:
        raise HTTPError(400, "bad_field", f"'fen' is longer than {_MAX_FEN} characters")
    try:
        board = Board(fen, variant=variant)
    except ChuhanError as error:
        raise HTTPError(400, "bad_field", f"'fen' {fen!r} does not read: {error}") from None
    moves = [text for text in (params.get("moves") or "").replace(",", " ").split() if text]
    if len(moves) > 600:
        raise HTTPError(400, "bad_field", "'moves' has more than 600 moves")
    for text in moves:
        try:
            board.push_iccs(text)
        except ChuhanError as error:
            raise HTTPError(400, "bad_field", f"'moves': {text[:10]!r}: {error}") from None
    return board


def _choices(request: Request, name: str, known: list[str]) -> list[str] | None:
    """A comma-separated parameter's words, each one of ``known``; ``None`` when absent."""
    text = request.query_params.get(name)
    if not text:
        return None
    words = [word for word in text.split(",") if word]
    for word in words:
        if word not in known:
            raise HTTPError(
                400, "bad_field", f"'{name}' holds {word[:20]!r}: one of {', '.join(known)}"
            )
    return words


async def explorer_lookup(request: Request) -> Response:
    """The moves played from the position ``fen`` (of ``variant``; then ``moves`` in ICCS,
    if given) in ``source`` (``masters``, or ``site``: this server's games, of the
    comma-separated ``speeds`` and rating ``bands`` given): each with its games, Red's
    wins, the draws, Black's wins, the average year and the most recent games;
    ``{"building": ...}`` while the masters' index is being built, ``{"unavailable": why}``
    when it cannot be, and ``{"note": ...}`` for a janggi position of the masters."""
    context = context_of(request)
    source = request.query_params.get("source") or MASTERS
    if source not in SOURCES:
        raise HTTPError(
            400, "bad_field", f"'source' must be one of {', '.join(SOURCES)}, got {source[:20]!r}"
        )
    board = _board(request)
    await limit_rate(request, "explorer", EXPLORER_RATE, "explorer lookups")
    answer: dict[str, Any] = {"source": source, "variant": board.variant.game, "credit": CREDIT}
    if source == MASTERS and board.variant.game != "xiangqi":
        answer["note"] = f"no master games for {board.variant.game}: the masters are xiangqi games"
        return JSONResponse(answer)
    service = context.explorer
    if source == SITE:
        speeds = _choices(request, "speeds", [name for name, _ in SPEEDS] + ["untimed"])
        bands = _choices(request, "bands", [name for name, _ in BANDS] + ["casual"])
        try:
            stats = await context.site_games.lookup(board, speeds=speeds, bands=bands)
        except StoreError as error:
            raise HTTPError(503, "store_unavailable", f"this server's games: {error}") from None
        answer.update(stats.to_json())
        answer.pop("credit")
        return JSONResponse(answer)
    state = await service.state()
    if state.state == "failed":
        # (an answer, not an error: the analysis board asks at every position)
        answer["unavailable"] = state.message
        return JSONResponse(answer)
    if state.state == "building":
        answer["building"] = state.to_json()
        return JSONResponse(answer)
    try:
        stats = await service.lookup(board, source)
    except ExplorerError as error:
        raise HTTPError(400, "wrong_game", str(error)) from None
    except StoreError as error:
        raise HTTPError(503, "store_unavailable", str(error)) from None
    answer.update(stats.to_json())
    return JSONResponse(answer)


async def explorer_game(request: Request) -> Response:
    """A game of the index by its id, read-only: its tags, kind, start FEN, ICCS moves and
    its PGN (Chinese notation)."""
    context = context_of(request)
    text = request.path_params["game_id"]
    if not (text.isascii() and text.isdigit() and len(text) <= 12):
        raise HTTPError(404, "no_game", f"there is no master game {text[:20]!r}")
    await limit_rate(request, "explorer", EXPLORER_RATE, "explorer lookups")
    if (await context.explorer.state()).state != "ready":
        raise HTTPError(503, "explorer_building", "the masters' index is being built")
    try:
        game = await context.explorer.game(int(text))
    except ExplorerError:
        raise HTTPError(404, "no_game", f"there is no master game {text!r}") from None
    except StoreError as error:
        raise HTTPError(503, "store_unavailable", str(error)) from None
    game["credit"] = CREDIT
    return JSONResponse(game)


#: The search's fields, each at most this long.
_MAX_FIELD = 60


async def explorer_search(request: Request) -> Response:
    """The master games matching every field given: ``player`` (either side), ``event``
    (parts of the names, in any script or width), ``year`` (``1985`` or ``1980-1989``),
    ``result`` (``1-0``, ``0-1``, ``1/2-1/2``), ``ecco`` (a code or its start: ``C7``) and a
    position (``fen`` and ``moves`` as ``GET /api/explorer`` takes them) every game
    reached; most recent first, ``limit`` (at most 100) from ``offset``:
    ``{"total": n, "games": [...]}``, each game with the ply where it reached the
    position."""
    context = context_of(request)
    params = request.query_params
    fields: dict[str, str] = {}
    for name in ("player", "event", "year", "result", "ecco"):
        value = (params.get(name) or "").strip()
        if len(value) > _MAX_FIELD:
            raise HTTPError(400, "bad_field", f"'{name}' is longer than {_MAX_FIELD} characters")
        fields[name] = value
    years = None
    if fields["year"]:
        first, _, last = fields["year"].partition("-")
        if not (first.isdigit() and (not last or last.isdigit())):
            raise HTTPError(
                400,
                "bad_field",
                f"'year' must be a year or two (1985, 1980-1989), not {fields['year']!r}",
            )
        years = (int(first), int(last or first))
    numbers = {}
    for name, default, top in (("limit", 20, 100), ("offset", 0, 100_000)):
        text = params.get(name) or str(default)
        if not (text.isascii() and text.isdigit()) or not 0 <= int(text) <= top:
            raise HTTPError(400, "bad_field", f"'{name}' must be a number from 0 to {top}")
        numbers[name] = int(text)
    asked = any(params.get(name) for name in ("fen", "moves", "variant"))
    board = _board(request) if asked else None
    if board is not None and board.variant.game != "xiangqi":
        raise HTTPError(400, "wrong_game", "the masters are xiangqi games")
    await limit_rate(request, "explorer", EXPLORER_RATE, "explorer lookups")
    if (await context.explorer.state()).state != "ready":
        raise HTTPError(503, "explorer_building", "the masters' index is being built")
    try:
        found = await context.explorer.search(
            player=fields["player"],
            event=fields["event"],
            years=years,
            result=fields["result"],
            ecco=fields["ecco"],
            board=board,
            limit=max(1, numbers["limit"]),
            offset=numbers["offset"],
        )
    except ExplorerError as error:
        raise HTTPError(400, "bad_field", str(error)) from None
    except StoreError as error:
        raise HTTPError(503, "store_unavailable", str(error)) from None
    answer = found.to_json()
    answer["credit"] = CREDIT
    return JSONResponse(answer)
