"""The game websocket (``/ws/{game_id}``): one reader that checks every frame
(:mod:`chuhan.web.sockets.protocol`) and hands it to the game's room, and one writer that sends the
connection's queued frames, so a slow client never holds up anyone else."""

from __future__ import annotations

import contextlib
import logging

from starlette.websockets import WebSocket

from chuhan.web.context import ServerContext, context_of
from chuhan.web.round.connection import GameConnection
from chuhan.web.round.manager import RoomUnavailable
from chuhan.web.round.room import Room
from chuhan.web.round.view import render_state
from chuhan.web.sockets.connection import STATE
from chuhan.web.sockets.protocol import (
    ACTIONS,
    ClientMessage,
    ProtocolError,
    parse_client_message,
)
from chuhan.web.sockets.serve import (
    accept_socket,
    error_message,
    frames,
    new_connection,
    serve_socket,
    take_seq,
)

__all__ = ["game_socket"]

log = logging.getLogger("chuhan.web")


async def game_socket(websocket: WebSocket) -> None:
    context = context_of(websocket)
    if not await accept_socket(context, websocket):
        return
    settings = context.settings
    conn = new_connection(
        context, websocket, GameConnection, settings.rate_burst, settings.rate_per_second
    )
    game_id = websocket.path_params["game_id"]
    manager = context.manager

    async def body() -> None:
        try:
            room = await manager.room(game_id)
        except RoomUnavailable as error:
            conn.send(error_message("internal", str(error)))
            conn.close(1011)
            return
        if room is None:
            conn.send(error_message("no_game", f"there is no game {game_id[:40]!r}"))
            conn.close(4404)
            return
        with manager.hold(room):  # kept in memory while this socket is open
            try:
                await _read(context, websocket, conn, room)
            finally:
                with contextlib.suppress(Exception):
                    await room.leave(conn)

    await serve_socket(
        context,
        websocket,
        conn,
        write=_write,
        greeted=lambda conn: conn.role is not None,
        body=body,
        failure=f"websocket error in game {game_id}",
    )


async def _read(
    context: ServerContext, websocket: WebSocket, conn: GameConnection, room: Room
) -> None:
    async for text in frames(websocket, conn):
        try:
            msg = parse_client_message(text)
        except ProtocolError as error:
            conn.send(error_message(error.code, error.message, error.seq))
            continue
        if not await _dispatch(context, conn, room, msg):
            return


async def _dispatch(
    context: ServerContext, conn: GameConnection, room: Room, msg: ClientMessage
) -> bool:
    """Handle one checked message; False when the connection must close."""
    try:
        take_seq(conn, msg, "; here is the current state")
        if msg.type == "hello":
            return await _hello(context, conn, room, msg)
        if conn.role is None:
            raise ProtocolError("hello_first", "send 'hello' first", msg.seq)
        if msg.type == "ping":
            conn.send(
                {"type": "pong", "seq": msg.seq, "server_time_ms": round(context.now() * 1000)}
            )
        elif msg.type == "resync":
            await room.resync(conn)
        else:
            await room.act(conn, msg)
    except ProtocolError as error:
        conn.send(error_message(error.code, error.message, msg.seq))
        if conn.role is not None and (
            msg.type in ACTIONS - {"chat"} or error.code == "replayed_seq"
        ):
            async with room.lock:
                room.send_state(conn)
        if error.code == "internal":
            conn.close(1011)
            return False
    return True


async def _hello(
    context: ServerContext, conn: GameConnection, room: Room, msg: ClientMessage
) -> bool:
    if conn.role is not None:
        raise ProtocolError("not_allowed", "this connection already said hello", msg.seq)
    token = msg.get("token")
    role = "watcher"
    name = msg.get("name")
    if token:
        found = await context.store.seat(token)
        if found is None or found[0] != room.row.id:
            conn.send(
                error_message("bad_token", "this seat link is not valid for this game", msg.seq)
            )
            conn.close(4401)
            return False
        role = found[1]
        conn.token = token
        if role in ("first", "second"):  # a signed-in player's seat is the account's
            refusal, account_name, rated = await context.accounts.claim_seat(
                conn.session_cookie, room.row.id, role, context.now(), conn.address
            )
            if refusal is not None:
                conn.send(error_message("account_required", refusal, msg.seq))
                conn.close(4401)
                return False
            name = account_name if rated else name or account_name  # (rated: the account's)
    conn.deltas = (msg.get("protocol") or 1) >= 2
    most = context.settings.max_watchers_per_game
    async with context.arrivals:
        if not room.admit(conn, role, max_watchers=most):
            conn.send(
                error_message(
                    "too_many_watchers",
                    f"this game already has {most} watchers, the most it admits; try again later",
                    msg.seq,
                )
            )
            conn.close(4429)
            return False
        await room.join(conn, name)
    return True


async def _write(context: ServerContext, websocket: WebSocket, conn: GameConnection) -> None:
    """Send the connection's frames in order, rendering the newest state or presence when
    it gets to one; close when the connection is closed."""

    def render(marker: str) -> str | None:
        room = conn.room
        if room is None:
            return None
        if marker == STATE:
            return render_state(room, conn, context.now())
        return room.presence_text()

    try:
        async for text in conn.frames(render):
            await websocket.send_text(text)
        await websocket.close(code=conn.close_code)
    except Exception:  # the client went away; the reader notices and cleans up
        return
