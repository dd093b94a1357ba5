"""The web app: pages, the REST API and the game websocket (``docs/web-protocol.md``).

:func:`create_app` builds the Starlette application. Everything a client sends is checked
(:mod:`chuhan.web.protocol`) before a game room (:mod:`chuhan.web.rooms`) acts on it, and
no exception ever reaches a client as a traceback: it gets ``{"type": "error", ...}`` (or an
HTTP error with a JSON body) with a sentence saying what was wrong.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from chuhan.board import Board
from chuhan.clock import TimeControl, TimeControlError
from chuhan.errors import ChuhanError
from chuhan.records import GameRecord, RecordError, read_pgn, read_xqf, write_pgn
from chuhan.variants import DEFAULT_RULES, GAMES, JANGGI_ARRANGEMENTS, VARIANTS, get_variant
from chuhan.web.engine import AnalysisRequest, Engine, EngineBusy, EngineError, ProcessEngine
from chuhan.web.protocol import (
    ACTIONS,
    MAX_NAME_CHARS,
    ClientMessage,
    ProtocolError,
    TokenBucket,
    clean_text,
    parse_client_message,
)
from chuhan.web.rooms import Connection, GameManager, Room, seat_of
from chuhan.web.storage import Storage

__all__ = ["STATIC_DIR", "create_app"]

log = logging.getLogger("chuhan.web")

STATIC_DIR = Path(__file__).parent / "static"
MAX_JSON_BYTES = 16 * 1024
MAX_IMPORT_BYTES = 256 * 1024
MAX_IMPORT_GAMES = 50
#: A connection is closed once it has had more than this many messages dropped by the
#: rate limit, forgiven at :data:`DROPS_FORGIVEN_PER_SECOND` (so a client that keeps
#: sending faster than the limit is closed, however it paces its messages).
MAX_DROPPED = 20
DROPS_FORGIVEN_PER_SECOND = 1.0
TIME_CONTROL_EXAMPLES = ["none", "5+3", "10+5", "15+10", "20 3x30", "10 5x20"]

CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
_SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class _SecurityHeaders:
    """Adds the CSP and friends to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    h for h in message.get("headers", []) if h[0] not in dict(_SECURITY_HEADERS)
                ]
                message["headers"] = headers + _SECURITY_HEADERS
            await send(message)

        await self.app(scope, receive, send_with_headers)


class HTTPError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def _error_response(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


async def _not_routed(request: Request, error: Exception) -> Response:
    """An address or method nothing answers: the API's JSON error under ``/api/``, plain
    text elsewhere (a missing static file)."""
    status = getattr(error, "status_code", 404)
    headers = getattr(error, "headers", None)  # a 405 says which methods are allowed
    if not request.url.path.startswith("/api/"):
        text = "Not Found" if status == 404 else "Method Not Allowed"
        return PlainTextResponse(text, status, headers=headers)
    if status == 405:
        response = _error_response(
            405, "bad_method", f"{request.method} is not allowed on {request.url.path[:80]}"
        )
        response.headers.update(headers or {})
        return response
    return _error_response(404, "not_found", f"there is no API endpoint {request.url.path[:80]}")


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise HTTPError(413, "too_large", f"request body of {declared} bytes is over {limit}")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise HTTPError(413, "too_large", f"request body is over the {limit}-byte limit")
    return bytes(body)


async def _read_json(request: Request) -> dict[str, Any]:
    body = await _read_body(request, MAX_JSON_BYTES)
    try:
        data = json.loads(body or b"{}")
    except (ValueError, RecursionError) as error:
        raise HTTPError(400, "bad_json", f"request body is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise HTTPError(400, "not_object", "request body must be a JSON object")
    return data


def _field(data: dict[str, Any], name: str, kind: type, default: Any) -> Any:
    value = data.get(name, default)
    if value is None:
        return default
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise HTTPError(400, "bad_field", f"'{name}' must be a {kind.__name__}, got {value!r}")
    return value


def create_app(
    db_path: str | Path,
    *,
    now: Callable[[], float] = time.time,
    engine: Engine | None = None,
    static_dir: Path | None = None,
    setup_seconds: float = 60.0,
    rate_limit: tuple[float, float] = (40, 20),
    share_origin: str | None = None,
    local_only: bool = False,
) -> Starlette:
    """The web app on the game database at ``db_path``.

    ``now`` is the wall clock in seconds (tests pass a fake one), ``engine`` the computer
    player (default: chuhan's engine in worker processes), ``rate_limit`` each
    connection's message budget (burst, refill per second). ``share_origin`` is the
    address other machines reach the server at (``http://192.168.1.20:8000``), for invite
    links made on a page opened on loopback; ``local_only`` says the server listens on
    loopback only, so the page can say a friend elsewhere cannot join.
    """
    static = static_dir or STATIC_DIR
    the_engine: Engine = engine or ProcessEngine()
    holder: dict[str, GameManager] = {}

    def manager() -> GameManager:
        return holder["manager"]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        storage = Storage(db_path)
        games = GameManager(storage, the_engine, now, setup_seconds=setup_seconds)
        holder["manager"] = games
        app.state.manager = games
        await games.resume()
        try:
            yield
        finally:
            games.close()
            the_engine.close()
            storage.close()

    # ------------------------------------------------------------------ pages

    async def page(request: Request) -> Response:
        index = static / "index.html"
        if not index.is_file():
            return PlainTextResponse(
                f"The web app's files are missing ({index}); reinstall chuhan.", status_code=500
            )
        return FileResponse(index, media_type="text/html; charset=utf-8")

    # ------------------------------------------------------------------ REST

    def api(
        handler: Callable[[Request], Any],
    ) -> Callable[[Request], Any]:
        async def wrapped(request: Request) -> Response:
            try:
                result: Response = await handler(request)
                return result
            except HTTPError as error:
                return _error_response(error.status, error.code, error.message)
            except Exception:
                log.exception("error in %s %s", request.method, request.url.path)
                return _error_response(500, "internal", "the server failed; see its log")

        return wrapped

    def room_or_404(game_id: str) -> Room:
        try:
            room = manager().room(game_id)
        except (ChuhanError, ValueError, KeyError) as error:
            log.error("cannot rebuild game %s: %s", game_id, error)
            raise HTTPError(500, "internal", "this game cannot be loaded") from None
        if room is None:
            raise HTTPError(404, "no_game", f"there is no game {game_id[:40]!r}")
        return room

    async def options(request: Request) -> Response:
        return JSONResponse(
            {
                "variants": {
                    game: [v.rules for v in VARIANTS.values() if v.game == game] for game in GAMES
                },
                "default_rules": dict(DEFAULT_RULES),
                "levels": list(range(1, 9)),
                "time_controls": TIME_CONTROL_EXAMPLES,
                "janggi_arrangements": list(JANGGI_ARRANGEMENTS),
                "engine_available": the_engine.available(),
                "custom_fen": True,
                "share_origin": share_origin,
                "local_only": local_only,
            }
        )

    async def create_game(request: Request) -> Response:
        data = await _read_json(request)
        kind = _field(data, "kind", str, "computer")
        if kind not in ("computer", "friend", "local"):
            raise HTTPError(400, "bad_field", f"'kind' must be computer, friend or local: {kind!r}")
        game = _field(data, "variant", str, "xiangqi")
        rules = _field(data, "rules", str, None)
        try:
            variant = get_variant(game, rules)
        except ChuhanError as error:
            raise HTTPError(400, "bad_field", str(error)) from None
        control_text = _field(data, "time_control", str, "none")
        control = None
        if control_text.strip().lower() not in ("", "none"):
            try:
                control = TimeControl.parse(control_text)
            except TimeControlError as error:
                raise HTTPError(400, "bad_field", str(error)) from None
        level = _field(data, "level", int, 3)
        if not 1 <= level <= 8:
            raise HTTPError(400, "bad_field", f"'level' must be 1 to 8, got {level}")
        color = _field(data, "color", str, "first")
        if color not in ("first", "second", "random"):
            raise HTTPError(400, "bad_field", f"'color' must be first, second or random: {color!r}")
        if color == "random":
            color = secrets.choice(("first", "second"))
        name = clean_text(_field(data, "name", str, ""))
        if len(name) > MAX_NAME_CHARS:
            raise HTTPError(400, "bad_field", f"'name' is longer than {MAX_NAME_CHARS} characters")
        fen = _field(data, "fen", str, "").strip() or None
        if fen is not None:
            if len(fen) > 120:
                raise HTTPError(400, "bad_field", "'fen' is longer than 120 characters")
            try:
                fen = Board(fen, variant=variant).fen()
            except ChuhanError as error:
                raise HTTPError(400, "bad_field", str(error)) from None
        if kind == "computer" and not the_engine.available():
            raise HTTPError(503, "engine_unavailable", "the engine is not available")
        row, seats = manager().create(
            kind=kind,
            variant=variant,
            time_control=control,
            level=level,
            human_seat=color,
            name=name or None,
            fen=fen,
        )
        seat = "both" if kind == "local" else color
        token = seats[seat]
        body: dict[str, Any] = {
            "game_id": row.id,
            "seat": seat,
            "token": token,
            "seat_url": f"/g/{row.id}?t={token}",
            "watch_url": f"/w/{row.id}",
            "ws_url": f"/ws/{row.id}",
        }
        if kind == "friend":
            other = "second" if color == "first" else "first"
            body["invite_url"] = f"/g/{row.id}?t={seats[other]}"
        return JSONResponse(body, status_code=201)

    async def my_games(request: Request) -> Response:
        data = await _read_json(request)
        tokens = data.get("tokens")
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
            raise HTTPError(400, "bad_field", "'tokens' must be a list of strings")
        if len(tokens) > 200:
            raise HTTPError(400, "bad_field", "at most 200 tokens")
        tokens = [t for t in tokens if 0 < len(t) <= 100]
        games = []
        for token, seat, row in manager().storage.games_for_tokens(tokens):
            live = manager().rooms.get(row.id)
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

    @contextlib.asynccontextmanager
    async def request_room(request: Request) -> AsyncIterator[Room]:
        """The room of the request's game, held for the request and let go after it if
        nobody else needs it in memory (rooms a request loads are not kept for ever)."""
        room = room_or_404(request.path_params["game_id"])
        with manager().hold(room):
            yield room

    async def game_state(request: Request) -> Response:
        async with request_room(request) as room, room.lock:
            return JSONResponse(room.public_state(now()))

    async def export_pgn(request: Request) -> Response:
        notation = request.query_params.get("format", "iccs")
        async with request_room(request) as room:
            if notation == "korean" and not room.variant.is_janggi:
                raise HTTPError(400, "bad_field", "the Korean notation is for janggi games")
            async with room.lock:
                record = _record_of(room)
                try:
                    text = write_pgn(record, format=notation)
                except RecordError as error:
                    raise HTTPError(400, "bad_field", str(error)) from None
        return PlainTextResponse(
            text,
            media_type="text/plain; charset=utf-8",
            headers={"content-disposition": f'attachment; filename="chuhan-{room.row.id}.pgn"'},
        )

    async def export_fen(request: Request) -> Response:
        async with request_room(request) as room, room.lock:
            board = room.game.board
            ply = _ply_param(request.query_params.get("ply"), board.ply)
            return JSONResponse({"fen": _fen_at(room, ply), "ply": ply})

    async def analysis(request: Request) -> Response:
        data = await _read_json(request)
        movetime = _field(data, "movetime_ms", int, 1000)
        multipv = _field(data, "multipv", int, 1)
        if not 100 <= movetime <= 5000:
            raise HTTPError(400, "bad_field", f"'movetime_ms' must be 100 to 5000, got {movetime}")
        if not 1 <= multipv <= 5:
            raise HTTPError(400, "bad_field", f"'multipv' must be 1 to 5, got {multipv}")
        async with request_room(request) as room:
            if room.status != "over":
                raise HTTPError(403, "game_in_progress", "analysis is for finished games")
            if not the_engine.available():
                raise HTTPError(503, "engine_unavailable", "the engine is not available")
            async with room.lock:
                board = room.game.board
                ply = _field(data, "ply", int, board.ply)
                if not 0 <= ply <= board.ply:
                    raise HTTPError(400, "bad_field", f"'ply' must be 0 to {board.ply}, got {ply}")
                moves = tuple(m.iccs() for m in board.move_stack[:ply])
                job = AnalysisRequest(
                    room.variant.name, board.root().fen(), moves, movetime, multipv
                )
                fen = _fen_at(room, ply)
                turn = seat_of(fen.split()[1] != "b")
        try:
            lines = await the_engine.analyse(job)
        except EngineBusy as error:
            raise HTTPError(503, "engine_busy", str(error)) from None
        except EngineError as error:
            raise HTTPError(503, "engine_unavailable", str(error)) from None
        return JSONResponse({"ply": ply, "fen": fen, "turn": turn, "lines": lines})

    async def import_record(request: Request) -> Response:
        body = await _read_body(request, MAX_IMPORT_BYTES)
        if not body:
            raise HTTPError(400, "empty", "the uploaded file is empty")
        fmt = request.query_params.get("format") or ("xqf" if body[:2] == b"XQ" else "pgn")
        if fmt not in ("pgn", "xqf"):
            raise HTTPError(400, "bad_field", f"'format' must be pgn or xqf, got {fmt[:20]!r}")
        try:
            records = [read_xqf(body)] if fmt == "xqf" else read_pgn(body)
        except RecordError as error:
            raise HTTPError(400, "bad_record", str(error)) from None
        if not records:
            raise HTTPError(400, "bad_record", "no game found in the file (is it a PGN file?)")
        imported: list[dict[str, Any]] = []
        errors: list[str] = []
        for index, record in enumerate(records):
            label = record.describe(index)
            errors.extend(f"{label}: {error}" for error in record.errors)
            if index >= MAX_IMPORT_GAMES:
                errors.append(f"{label}: not imported (at most {MAX_IMPORT_GAMES} games a file)")
                continue
            moves = [m.iccs() for m in record.main_line_moves()]
            if not moves and record.errors:
                continue
            row = manager().store_imported(
                record.variant,
                record.fen,
                moves,
                _imported_result(record),
                {k: clean_text(v)[:200] for k, v in list(record.headers.items())[:40]},
            )
            imported.append(
                {
                    "game_id": row.id,
                    "watch_url": f"/w/{row.id}",
                    "variant": record.variant.game,
                    "event": record.headers.get("Event", ""),
                    "red": record.headers.get("Red", record.headers.get("White", "")),
                    "black": record.headers.get("Black", ""),
                    "result": record.result,
                    "plies": len(moves),
                }
            )
        if not imported:
            raise HTTPError(400, "bad_record", "no game could be read: " + "; ".join(errors[:5]))
        return JSONResponse({"games": imported, "errors": errors}, status_code=201)

    # ------------------------------------------------------------------ websocket

    async def game_socket(websocket: WebSocket) -> None:
        await websocket.accept()
        conn = Connection(
            TokenBucket(*rate_limit), TokenBucket(MAX_DROPPED, DROPS_FORGIVEN_PER_SECOND)
        )
        writer = asyncio.get_running_loop().create_task(_writer(websocket, conn))
        game_id = websocket.path_params["game_id"]
        try:
            try:
                room = manager().room(game_id)
            except (ChuhanError, ValueError, KeyError) as error:
                log.error("cannot rebuild game %s: %s", game_id, error)
                conn.send(_error("internal", "this game cannot be loaded"))
                conn.close(1011)
                return
            if room is None:
                conn.send(_error("no_game", f"there is no game {game_id[:40]!r}"))
                conn.close(4404)
                return
            with manager().hold(room):  # kept in memory while this socket is open
                try:
                    await _serve(websocket, conn, room)
                finally:
                    with contextlib.suppress(Exception):
                        await room.leave(conn)
        except WebSocketDisconnect:
            pass
        except Exception:
            log.exception("websocket error in game %s", game_id)
            conn.send(_error("internal", "the server failed; reconnect to continue"))
            conn.close(1011)
        finally:
            conn.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, timeout=2)
            if not writer.done():
                writer.cancel()

    async def _serve(websocket: WebSocket, conn: Connection, room: Room) -> None:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            if conn.overflowed:
                return
            if not conn.bucket.take():
                conn.send(_error("rate_limited", "too many messages; slow down"))
                if not conn.patience.take():
                    conn.close(1008)
                    return
                continue
            text = message.get("text")
            if text is None:
                text = message.get("bytes") or b""
            try:
                msg = parse_client_message(text)
            except ProtocolError as error:
                conn.send(_error(error.code, error.message, error.seq))
                continue
            if not await _dispatch(conn, room, msg):
                return

    async def _dispatch(conn: Connection, room: Room, msg: ClientMessage) -> bool:
        """Handle one checked message; False when the connection must close."""
        try:
            if msg.seq <= conn.last_seq:
                raise ProtocolError(
                    "replayed_seq",
                    f"seq {msg.seq} is not after the last one ({conn.last_seq}); "
                    "here is the current state",
                    msg.seq,
                )
            conn.last_seq = msg.seq
            if msg.type == "hello":
                return await _hello(conn, room, msg)
            if conn.role is None:
                raise ProtocolError("hello_first", "send 'hello' first", msg.seq)
            if msg.type == "ping":
                conn.send({"type": "pong", "seq": msg.seq, "server_time_ms": round(now() * 1000)})
            elif msg.type == "resync":
                await room.resync(conn)
            else:
                await room.act(conn, msg)
        except ProtocolError as error:
            conn.send(_error(error.code, error.message, msg.seq))
            if conn.role is not None and (
                msg.type in ACTIONS - {"chat"} or error.code == "replayed_seq"
            ):
                async with room.lock:
                    room.send_state(conn)
            if error.code == "internal":
                conn.close(1011)
                return False
        return True

    async def _hello(conn: Connection, room: Room, msg: ClientMessage) -> bool:
        if conn.role is not None:
            raise ProtocolError("not_allowed", "this connection already said hello", msg.seq)
        token = msg.get("token")
        role = "watcher"
        if token:
            found = manager().storage.seat(token)
            if found is None or found[0] != room.row.id:
                conn.send(_error("bad_token", "this seat link is not valid for this game", msg.seq))
                conn.close(4401)
                return False
            role = found[1]
            conn.token = token
        await room.join(conn, role, msg.get("name"))
        return True

    routes = [
        Route("/", page),
        Route("/g/{game_id}", page),
        Route("/w/{game_id}", page),
        Route("/api/options", api(options)),
        Route("/api/games", api(create_game), methods=["POST"]),
        Route("/api/games/mine", api(my_games), methods=["POST"]),
        Route("/api/games/{game_id}", api(game_state)),
        Route("/api/games/{game_id}/pgn", api(export_pgn)),
        Route("/api/games/{game_id}/fen", api(export_fen)),
        Route("/api/games/{game_id}/analysis", api(analysis), methods=["POST"]),
        Route("/api/import", api(import_record), methods=["POST"]),
        WebSocketRoute("/ws/{game_id}", game_socket),
        Mount("/static", StaticFiles(directory=static, check_dir=False), name="static"),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={404: _not_routed, 405: _not_routed},
    )
    app.add_middleware(_SecurityHeaders)
    return app


def _error(code: str, message: str, seq: int | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if seq is not None:
        error["seq"] = seq
    return error


async def _writer(websocket: WebSocket, conn: Connection) -> None:
    """Send the connection's queued frames in order; close on the ``None`` sentinel."""
    try:
        while True:
            text = await conn.queue.get()
            if text is None:
                await websocket.close(code=conn.close_code)
                return
            await websocket.send_text(text)
    except Exception:  # the client went away; the reader notices and cleans up
        return


def _ply_param(text: str | None, last: int) -> int:
    if text is None:
        return last
    # ASCII digits only ('²' passes isdigit() but not int()), and no more of them than a
    # ply count can have (int() refuses thousands of digits).
    if not (text.isascii() and text.isdigit() and len(text) <= 6) or int(text) > last:
        raise HTTPError(400, "bad_field", f"'ply' must be 0 to {last}, got {text[:20]!r}")
    return int(text)


def _fen_at(room: Room, ply: int) -> str:
    board = room.game.board
    if ply == board.ply:
        return board.fen()
    replay = board.root()
    for move in board.move_stack[:ply]:
        replay.push(move)
    return replay.fen()


def _record_of(room: Room) -> GameRecord:
    row = room.row
    headers = {"Event": "chuhan web game", "Site": "chuhan"}
    headers.update(row.headers)
    names = {
        seat: row.names.get(seat) or room.snapshot().public["players"][seat]["name"]
        for seat in ("first", "second")
    }
    if not row.headers:
        first, second = ("Cho", "Han") if room.variant.is_janggi else ("Red", "Black")
        headers[first] = names["first"]
        headers[second] = names["second"]
        headers["Date"] = time.strftime("%Y.%m.%d", time.gmtime(row.created))
    if row.time_control is not None:
        headers["TimeControl"] = TimeControl(**row.time_control).describe()
    record = GameRecord.from_game(room.game, headers)
    if room.outcome is None and row.result is not None:
        record.result = row.result["result"]
    return record


def _imported_result(record: GameRecord) -> dict[str, Any]:
    result = record.result
    variant = record.variant
    winner = {"1-0": "first", "0-1": "second"}.get(result)
    if winner is not None:
        name = variant.side_name(winner == "first")
        reason = f"{name.capitalize()} won (the record's result {result})."
    elif result == "1/2-1/2":
        reason = "Draw (the record's result)."
    else:
        reason = "The record gives no result."
    return {
        "winner": winner,
        "winner_name": None if winner is None else variant.side_name(winner == "first"),
        "termination": "imported",
        "reason": reason,
        "points": None,
        "result": result,
    }
