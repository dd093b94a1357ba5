"""The game websocket (``/ws/{game_id}``): one reader that checks every frame
(:mod:`chuhan.web.protocol`) and hands it to the game's room, and one writer that sends the
connection's queued frames, so a slow client never holds up anyone else."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from chuhan.web.connection import Connection
from chuhan.web.context import ServerContext, context_of
from chuhan.web.protocol import (
    ACTIONS,
    ClientMessage,
    ProtocolError,
    TokenBucket,
    parse_client_message,
)
from chuhan.web.round.manager import RoomUnavailable
from chuhan.web.round.room import Room

__all__ = ["game_socket"]

log = logging.getLogger("chuhan.web")


def error_message(code: str, message: str, seq: int | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if seq is not None:
        error["seq"] = seq
    return error


async def game_socket(websocket: WebSocket) -> None:
    context = context_of(websocket)
    settings = context.settings
    await websocket.accept()
    conn = Connection(
        TokenBucket(settings.rate_burst, settings.rate_per_second),
        TokenBucket(settings.max_dropped, settings.drops_forgiven_per_second),
    )
    writer = asyncio.get_running_loop().create_task(_write(websocket, conn))
    game_id = websocket.path_params["game_id"]
    manager = context.manager
    try:
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
    except WebSocketDisconnect:
        pass
    except Exception:
        log.exception("websocket error in game %s", game_id)
        conn.send(error_message("internal", "the server failed; reconnect to continue"))
        conn.close(1011)
    finally:
        conn.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, timeout=2)
        if not writer.done():
            writer.cancel()


async def _read(context: ServerContext, websocket: WebSocket, conn: Connection, room: Room) -> None:
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        if conn.overflowed:
            return
        if not conn.bucket.take():
            conn.send(error_message("rate_limited", "too many messages; slow down"))
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
            conn.send(error_message(error.code, error.message, error.seq))
            continue
        if not await _dispatch(context, conn, room, msg):
            return


async def _dispatch(
    context: ServerContext, conn: Connection, room: Room, msg: ClientMessage
) -> bool:
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


async def _hello(context: ServerContext, conn: Connection, room: Room, msg: ClientMessage) -> bool:
    if conn.role is not None:
        raise ProtocolError("not_allowed", "this connection already said hello", msg.seq)
    token = msg.get("token")
    role = "watcher"
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
    await room.join(conn, role, msg.get("name"))
    return True


async def _write(websocket: WebSocket, conn: Connection) -> None:
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
