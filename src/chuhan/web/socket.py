"""The game websocket (``/ws/{game_id}``): one reader that checks every frame
(:mod:`chuhan.web.protocol`) and hands it to the game's room, and one writer that sends the
connection's queued frames, so a slow client never holds up anyone else."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from starlette.websockets import WebSocket, WebSocketDisconnect

from chuhan.web.accounts.service import SESSION_COOKIE
from chuhan.web.clients import client_address
from chuhan.web.connection import STATE, Connection
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
from chuhan.web.round.view import render_state

__all__ = ["game_socket"]

log = logging.getLogger("chuhan.web")

C = TypeVar("C", bound=Connection)


def error_message(code: str, message: str, seq: int | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if seq is not None:
        error["seq"] = seq
    return error


async def accept_socket(context: ServerContext, websocket: WebSocket) -> bool:
    """Finish a websocket's handshake, a limited number at a time (``arrivals``); False if
    the client went away while it waited its turn."""
    try:
        async with context.arrivals:
            await websocket.accept()
    except Exception as error:
        log.debug("a websocket left before its handshake: %s", error)
        return False
    return True


def new_connection(
    context: ServerContext, websocket: WebSocket, kind: type[C], burst: float, per_second: float
) -> C:
    """The connection of an accepted websocket: its address, its rate limit (``burst``
    messages, then ``per_second``) and the session cookie it came with."""
    settings = context.settings
    conn = kind(
        TokenBucket(burst, per_second),
        TokenBucket(settings.max_dropped, settings.drops_forgiven_per_second),
        client_address(websocket, settings),
    )
    conn.session_cookie = websocket.cookies.get(SESSION_COOKIE)
    return conn


async def serve_socket(
    context: ServerContext,
    websocket: WebSocket,
    conn: C,
    *,
    write: Callable[[ServerContext, WebSocket, C], Coroutine[Any, Any, None]],
    no_hello: Callable[[C], None],
    body: Callable[[], Awaitable[None]],
    failure: str,
) -> None:
    """The life of an accepted websocket, whatever it serves (a game, the lobby): its
    writer, its place in its address's count, the time it has to say hello; ``body`` reads
    it. An error is logged (``failure``) and the client told; the writer gets two seconds
    to send what is queued."""
    settings = context.settings
    address = conn.address
    loop = asyncio.get_running_loop()
    writer = loop.create_task(write(context, websocket, conn))
    context.sockets.opened(address)
    silent = loop.call_later(settings.hello_timeout, no_hello, conn)
    try:
        if context.sockets.count(address) > settings.max_sockets_per_address:
            most = settings.max_sockets_per_address
            conn.send(
                error_message(
                    "too_many_sockets",
                    f"your address already has {most} connections open to this server; "
                    "close some pages and try again",
                )
            )
            conn.close(4429)
            return
        await body()
    except WebSocketDisconnect:
        pass
    except Exception:
        log.exception("%s", failure)
        conn.send(error_message("internal", "the server failed; reconnect to continue"))
        conn.close(1011)
    finally:
        silent.cancel()
        context.sockets.closed(address)
        conn.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, timeout=2)
        if not writer.done():
            writer.cancel()


async def frames(websocket: WebSocket, conn: Connection) -> AsyncIterator[str | bytes]:
    """The frames a websocket sends, each let through by its rate limit (``conn.bucket``):
    a frame over the limit is answered ``rate_limited`` and dropped, and a client that
    keeps sending past it (``conn.patience``) is closed (1008). Ends when the client leaves
    or its outbox overflowed."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect" or conn.overflowed:
            return
        if not conn.bucket.take():
            conn.send(error_message("rate_limited", "too many messages; slow down"))
            if not conn.patience.take():
                conn.close(1008)
                return
            continue
        text = message.get("text")
        yield text if text is not None else (message.get("bytes") or b"")


def take_seq(conn: Connection, msg: ClientMessage, note: str = "") -> None:
    """Accept ``msg``'s seq as the connection's last, or raise ``replayed_seq`` (with
    ``note`` after the reason) if it is not after the last one."""
    if msg.seq <= conn.last_seq:
        raise ProtocolError(
            "replayed_seq",
            f"seq {msg.seq} is not after the last one ({conn.last_seq}){note}",
            msg.seq,
        )
    conn.last_seq = msg.seq


async def game_socket(websocket: WebSocket) -> None:
    context = context_of(websocket)
    if not await accept_socket(context, websocket):
        return
    settings = context.settings
    conn = new_connection(
        context, websocket, Connection, settings.rate_burst, settings.rate_per_second
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
        no_hello=_no_hello,
        body=body,
        failure=f"websocket error in game {game_id}",
    )


def _no_hello(conn: Connection) -> None:
    """A socket that has not said hello in time is closed: it holds memory and a place
    in its address's count for nothing."""
    if conn.role is None and not conn.closing:
        conn.send(error_message("hello_timeout", "no 'hello' came in time; reconnect"))
        conn.close(4408)


async def _read(context: ServerContext, websocket: WebSocket, conn: Connection, room: Room) -> None:
    async for text in frames(websocket, conn):
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


async def _hello(context: ServerContext, conn: Connection, room: Room, msg: ClientMessage) -> bool:
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
            refusal, account_name = await context.accounts.claim_seat(
                conn.session_cookie, room.row.id, role, context.now()
            )
            if refusal is not None:
                conn.send(error_message("account_required", refusal, msg.seq))
                conn.close(4401)
                return False
            name = name or account_name
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


async def _write(context: ServerContext, websocket: WebSocket, conn: Connection) -> None:
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
