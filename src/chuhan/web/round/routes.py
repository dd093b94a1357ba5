"""The REST endpoints of games: the new-game form's options, creating a game, my games,
a game's state, its PGN and FEN, and the analysis of a finished game's position."""

from __future__ import annotations

import asyncio
import math
import secrets
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from chuhan.board import Board
from chuhan.clock import TimeControl, TimeControlError
from chuhan.errors import ChuhanError
from chuhan.records import PGN_FORMATS, RecordError
from chuhan.search.limits import SearchLimits
from chuhan.variants import (
    DEFAULT_RULES,
    GAMES,
    JANGGI_ARRANGEMENTS,
    VARIANTS,
    Variant,
    get_variant,
)
from chuhan.web.accounts.ratings import rating_category
from chuhan.web.compute.service import AnalysisRequest, WorkerError, WorkersBusy
from chuhan.web.context import context_of
from chuhan.web.db import StoreError
from chuhan.web.db.budgets import Rate
from chuhan.web.http.clients import client_address
from chuhan.web.http.common import (
    HTTPError,
    field,
    limit_rate,
    ply_param,
    read_json,
)
from chuhan.web.round.reads import ReadBusy, ReadUnavailable, Rendered
from chuhan.web.round.room import Room
from chuhan.web.round.seats import other_seat, seat_of
from chuhan.web.round.view import public_state
from chuhan.web.settings import TIME_CONTROL_EXAMPLES, Settings
from chuhan.web.sockets.protocol import MAX_NAME_CHARS, clean_text

__all__ = [
    "NewGame",
    "analysis",
    "create_game",
    "export_fen",
    "export_pgn",
    "game_state",
    "my_games",
    "options",
    "parse_new_game",
    "parse_time_control",
]


async def options(request: Request) -> Response:
    context = context_of(request)
    return JSONResponse(
        {
            "variants": {
                game: [v.rules for v in VARIANTS.values() if v.game == game] for game in GAMES
            },
            "default_rules": dict(DEFAULT_RULES),
            "levels": list(range(1, 9)),
            "time_controls": list(TIME_CONTROL_EXAMPLES),
            "janggi_arrangements": list(JANGGI_ARRANGEMENTS),
            "engine_available": context.compute.available(),
            "custom_fen": True,
            "share_origin": context.settings.share_origin,
            "local_only": context.settings.local_only,
        }
    )


@dataclass(frozen=True, slots=True)
class NewGame:
    """A checked ``POST /api/games`` body."""

    kind: str
    variant: Variant
    time_control: TimeControl | None
    level: int
    color: str
    name: str | None
    fen: str | None
    rated: bool = False


#: The longest time control text read (``"180+120"`` is 7 characters).
MAX_TIME_CONTROL_CHARS = 40


def parse_time_control(text: str, settings: Settings) -> TimeControl | None:
    """The ``time_control`` field: ``None`` for an untimed game, else a control within the
    server's bounds (raises :class:`HTTPError` naming the field and the bound)."""
    if text.strip().lower() in ("", "none"):
        return None
    if len(text) > MAX_TIME_CONTROL_CHARS:
        raise HTTPError(
            400,
            "bad_field",
            f"'time_control' is longer than {MAX_TIME_CONTROL_CHARS} characters",
        )
    try:
        control = TimeControl.parse(text)
    except TimeControlError as error:
        raise HTTPError(400, "bad_field", f"'time_control': {error}") from None
    if control.is_correspondence:  # (its days are checked by TimeControl)
        return control
    if control.base > settings.max_main_minutes * 60:
        bound = f"the main time is at most {settings.max_main_minutes:g} minutes"
    elif control.increment > settings.max_increment_seconds:
        bound = f"the increment is at most {settings.max_increment_seconds:g} seconds"
    elif control.periods > settings.max_periods:
        bound = f"at most {settings.max_periods} byo-yomi periods"
    elif control.period_seconds > settings.max_period_seconds:
        bound = f"a byo-yomi period is at most {settings.max_period_seconds:g} seconds"
    elif not control.periods and control.base < settings.min_main_seconds:
        bound = (
            f"without byo-yomi the main time is at least {settings.min_main_seconds:g} "
            "seconds (else the second player loses on time at its first move; "
            "'0 3x30' is byo-yomi alone)"
        )
    else:
        return control
    raise HTTPError(400, "bad_field", f"'time_control' {text!r}: {bound}")


def parse_new_game(data: dict[str, Any], settings: Settings | None = None) -> NewGame:
    """Check a new-game request body (raises :class:`HTTPError` naming the bad field);
    time controls are bounded by ``settings`` (the defaults if None)."""
    kind = field(data, "kind", str, "computer")
    if kind not in ("computer", "friend", "local"):
        raise HTTPError(400, "bad_field", f"'kind' must be computer, friend or local: {kind!r}")
    game = field(data, "variant", str, "xiangqi")
    rules = field(data, "rules", str, "") or None
    try:
        variant = get_variant(game, rules)
    except ChuhanError as error:
        raise HTTPError(400, "bad_field", str(error)) from None
    control = parse_time_control(field(data, "time_control", str, "none"), settings or Settings())
    level = field(data, "level", int, 3)
    if not 1 <= level <= 8:
        raise HTTPError(400, "bad_field", f"'level' must be 1 to 8, got {level}")
    color = field(data, "color", str, "first")
    if color not in ("first", "second", "random"):
        raise HTTPError(400, "bad_field", f"'color' must be first, second or random: {color!r}")
    if color == "random":
        color = secrets.choice(("first", "second"))
    name = clean_text(field(data, "name", str, ""))
    if len(name) > MAX_NAME_CHARS:
        raise HTTPError(400, "bad_field", f"'name' is longer than {MAX_NAME_CHARS} characters")
    fen = field(data, "fen", str, "").strip() or None
    if fen is not None:
        if len(fen) > 120:
            raise HTTPError(400, "bad_field", "'fen' is longer than 120 characters")
        try:
            fen = Board(fen, variant=variant).fen()
        except ChuhanError as error:
            raise HTTPError(400, "bad_field", str(error)) from None
    rated = field(data, "rated", bool, False)
    if rated and kind != "friend":
        raise HTTPError(
            400, "bad_field", f"'rated' is for games against a friend, not {kind!r} games"
        )
    return NewGame(kind, variant, control, level, color, name or None, fen, rated)


async def create_game(request: Request) -> Response:
    context = context_of(request)
    await limit_rate(request, "create", context.create_rate, "new games")
    new = parse_new_game(await read_json(request), context.settings)
    if new.kind == "computer" and not context.compute.available():
        raise HTTPError(503, "engine_unavailable", "the engine is not available")
    player = await context.accounts.account_of(request, context.now())
    if new.rated and player is None:
        raise HTTPError(403, "account_required", "sign in to start a rated game")
    shown = player.name if player is not None else None
    row, seats = await context.manager.create(
        kind=new.kind,
        variant=new.variant,
        time_control=new.time_control,
        level=new.level,
        human_seat=new.color,
        name=shown if new.rated else new.name or shown,  # (rated: the account's name only)
        fen=new.fen,
    )
    seat = "both" if new.kind == "local" else new.color
    token = seats[seat]
    if player is not None and new.kind != "local":  # the game is the account's too
        rated_in = rating_category(new.variant.game, new.time_control) if new.rated else None
        await context.accounts.repository.seat_game(
            row.id, row.created, rated_in=rated_in, holders={seat: (player.id, None)}
        )
    body: dict[str, Any] = {
        "game_id": row.id,
        "seat": seat,
        "token": token,
        "seat_url": f"/g/{row.id}?t={token}",
        "watch_url": f"/w/{row.id}",
        "ws_url": f"/ws/{row.id}",
    }
    if new.kind == "friend":
        body["invite_url"] = f"/g/{row.id}?t={seats[other_seat(new.color)]}"
    body["rated"] = new.rated
    return JSONResponse(body, status_code=201)


async def my_games(request: Request) -> Response:
    context = context_of(request)
    data = await read_json(request)
    tokens = data.get("tokens")
    if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
        raise HTTPError(400, "bad_field", "'tokens' must be a list of strings")
    if len(tokens) > 200:
        raise HTTPError(400, "bad_field", "at most 200 tokens")
    tokens = [t for t in tokens if 0 < len(t) <= 100]
    games = []
    for token, seat, row in await context.store.games_for_tokens(tokens):
        live = context.manager.rooms.get(row.id)
        if live is not None:
            row = live.row
            board = live.game.board
            turn: str | None = seat_of(board.turn)
            ply = board.ply
            status = live.status
        else:
            ply = len(row.moves)
            status = row.status
            turn = None
            if status == "playing":
                first_moves = (row.start_fen or "w").split()
                first = (first_moves[1] if len(first_moves) > 1 else "w") == "w"
                turn = seat_of(first == (ply % 2 == 0))
        your_turn = status == "playing" and turn is not None and seat in ("both", turn)
        if row.computer_side == turn:
            your_turn = False
        games.append(
            {
                "game_id": row.id,
                "token": token,
                "seat": seat,
                "kind": row.kind,
                "variant": row.variant,
                "rules": row.rules,
                "level": row.level,
                "time_control": None
                if row.time_control is None
                else TimeControl(**row.time_control).describe(),
                "status": status,
                "turn": turn,
                "your_turn": your_turn,
                "ply": ply,
                "names": row.names,
                "result": row.result,
                "created_ms": round(row.created * 1000),
                "updated_ms": round(row.updated * 1000),
                "seat_url": f"/g/{row.id}?t={token}",
            }
        )
    return JSONResponse({"games": games})


async def game_state(request: Request) -> Response:
    context = context_of(request)
    await _count_read(request)
    room = _playing_here(request)
    if room is not None:  # (played here: its room has the state rendered)
        async with room.lock:
            return JSONResponse(public_state(room, context.now()))
    rendered = await _rendered(request)
    room = context.manager.rooms.get(rendered.game_id)
    if room is None:
        text = rendered.state_text(context.now())
    else:  # (a finished game with watchers here: who is connected, as they see it)
        connected = (room.is_connected("first"), room.is_connected("second"))
        text = rendered.state_text(context.now(), connected, room.watcher_count())
    return Response(text, media_type="application/json")


async def _rating_headers(request: Request) -> dict[str, str]:
    """A rated game's ``RedElo`` and ``BlackElo`` (``ChoElo``, ``HanElo``) headers: the
    players' ratings before the game, marked ``?`` while provisional (as lichess does)."""
    game_id = request.path_params["game_id"][:40]
    try:
        found = await context_of(request).accounts.game_rating(game_id)
    except StoreError as error:
        raise HTTPError(503, "store_unavailable", f"the game's ratings: {error}") from None
    if found.kind is None:
        return {}
    names = ("Cho", "Han") if found.kind == "janggi" else ("Red", "Black")
    return {
        f"{name}Elo": f"{found.ratings[seat][0]}{'?' if found.ratings[seat][1] else ''}"
        for name, seat in zip(names, ("first", "second"), strict=True)
        if seat in found.ratings
    }


async def export_pgn(request: Request) -> Response:
    context = context_of(request)
    notation = request.query_params.get("format", "iccs").strip().lower()
    if notation not in PGN_FORMATS:
        raise HTTPError(
            400, "bad_field", f"'format' must be one of {', '.join(PGN_FORMATS)}: {notation[:20]!r}"
        )
    await _count_read(request)
    rendered = await _rendered(request)
    if notation == "korean" and not rendered.janggi:
        raise HTTPError(400, "bad_field", "the Korean notation is for janggi games")
    try:
        text = await context.reads.pgn(rendered, notation, await _rating_headers(request))
    except RecordError as error:
        raise HTTPError(400, "bad_field", str(error)) from None
    except ReadBusy as error:
        raise HTTPError(503, "busy", str(error)) from None
    return PlainTextResponse(
        text,
        media_type="text/plain; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="chuhan-{rendered.game_id}.pgn"'},
    )


async def export_fen(request: Request) -> Response:
    await _count_read(request)
    asked = request.query_params.get("ply")
    room = _playing_here(request)
    if room is not None:
        board = room.game.board
        if asked is None or ply_param(asked, board.ply) == board.ply:
            return JSONResponse({"fen": board.fen(), "ply": board.ply})
    rendered = await _rendered(request)
    ply = ply_param(asked, len(rendered.fens) - 1)
    return JSONResponse({"fen": rendered.fens[ply], "ply": ply})


async def analysis(request: Request) -> Response:
    context = context_of(request)
    data = await read_json(request)
    movetime = field(data, "movetime_ms", int, 1000)
    multipv = field(data, "multipv", int, 1)
    if not 100 <= movetime <= 5000:
        raise HTTPError(400, "bad_field", f"'movetime_ms' must be 100 to 5000, got {movetime}")
    if not 1 <= multipv <= 5:
        raise HTTPError(400, "bad_field", f"'multipv' must be 1 to 5, got {multipv}")
    await _count_read(request)
    if _playing_here(request) is not None:
        raise HTTPError(403, "game_in_progress", "analysis is for finished games")
    rendered = await _rendered(request)
    if rendered.status != "over":
        raise HTTPError(403, "game_in_progress", "analysis is for finished games")
    last = len(rendered.iccs)
    ply = field(data, "ply", int, last)
    if not 0 <= ply <= last:
        raise HTTPError(400, "bad_field", f"'ply' must be 0 to {last}, got {ply}")
    try:
        position = await context.reads.position(rendered, ply)
    except ReadBusy as error:
        raise HTTPError(503, "busy", str(error)) from None
    except ReadUnavailable as error:
        raise HTTPError(500, "internal", str(error)) from None
    answer: dict[str, Any] = {"ply": ply, "fen": position.fen, "turn": position.turn}
    if position.over is not None:  # mate, stalemate, a repetition...: no move to weigh
        return JSONResponse({**answer, "lines": [], "over": position.over})
    if not context.compute.available():
        raise HTTPError(503, "engine_unavailable", "the engine is not available")
    limits = SearchLimits(movetime=movetime)
    job = AnalysisRequest(rendered.variant, rendered.start, rendered.iccs[:ply], limits, multipv)
    try:
        lines = await context.compute.analyse(job)
    except WorkersBusy as error:
        raise HTTPError(503, "engine_busy", str(error)) from None
    except WorkerError as error:
        raise HTTPError(503, "engine_unavailable", str(error)) from None
    return JSONResponse({**answer, "lines": lines})


# ---------------------------------------------------------------------- reading games


def _playing_here(request: Request) -> Room | None:
    """The room of the request's game when it is in memory here and not over (read from
    the room, as its players see it); None otherwise (read as kept: :mod:`.reads`)."""
    room = context_of(request).manager.rooms.get(request.path_params["game_id"])
    return room if room is not None and room.status != "over" else None


async def _count_read(request: Request) -> None:
    """Count one read of a game against the client address's read budget (in the store,
    so one whatever process answers); 429 naming the limit when it is spent."""
    settings = context_of(request).settings
    await _take_budget(
        request,
        "read",
        # (a reader may read many times a second: tokens leased ten at a time, so that a
        # flood of reads does not make the store write once a read)
        Rate(settings.read_burst, settings.read_every_seconds, lease=10),
        "reads of games",
        delay=settings.read_refusal_delay_seconds,
    )


async def _take_budget(
    request: Request, budget: str, rate: Rate, what: str, delay: float = 0.0
) -> None:
    """Take one token of the address's ``budget``, or answer 429 naming the limit (after
    ``delay`` seconds at most, see ``Settings.read_refusal_delay_seconds``)."""
    context = context_of(request)
    address = client_address(request, context.settings)
    wait = await context.budgets.take(f"{budget} address {address}", rate)
    if wait > 0:
        if delay > 0:
            await asyncio.sleep(min(wait, delay))
        seconds = max(1, math.ceil(wait))
        per = (
            f"one every {rate.every_seconds:g} s"
            if rate.every_seconds >= 1
            else f"{1 / rate.every_seconds:g} a second"
        )
        raise HTTPError(
            429,
            "rate_limited",
            f"too many {what} from your address (at most {rate.burst:g} at once, then {per}); "
            f"try again in {seconds} s",
            {"retry-after": str(seconds)},
        )


async def _rendered(request: Request) -> Rendered:
    """The request's game as read (:class:`~chuhan.web.round.reads.GameReads`): kept, or
    built in the read worker, counted against the address's build budget."""
    context = context_of(request)
    game_id = request.path_params["game_id"]
    settings = context.settings

    async def count_build() -> None:
        await _take_budget(
            request,
            "rebuild",
            Rate(settings.rebuild_burst, settings.rebuild_every_seconds),
            "reads of games not read recently",
        )

    try:
        rendered = await context.reads.rendered(game_id, count_build)
    except ReadUnavailable as error:
        raise HTTPError(500, "internal", str(error)) from None
    except ReadBusy as error:
        raise HTTPError(503, "busy", str(error)) from None
    if rendered is None:
        raise HTTPError(404, "no_game", f"there is no game {game_id[:40]!r}")
    return rendered
