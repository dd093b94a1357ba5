"""What every websocket of the server shares, whatever it serves (a game, the lobby, the
analysis board): the handshake a limited number at a time, a connection with its address,
rate limit and session cookie, the life of an accepted socket (its writer, its place in its
address's count, its place under its session so that the session's end closes it, the time
it has to say hello), a reader of rate-limited frames, the sequence numbers of client
messages, and the error frame."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from starlette.websockets import WebSocket, WebSocketDisconnect

from chuhan.web.context import ServerContext
from chuhan.web.db import StoreError
from chuhan.web.http.clients import SESSION_COOKIE, client_address, foreign_origin
from chuhan.web.sockets.connection import Connection
from chuhan.web.sockets.protocol import (
    Check,
    ClientMessage,
    ProtocolError,
    TokenBucket,
    parse_client_message,
)

__all__ = [
    "accept_socket",
    "error_message",
    "frames",
    "new_connection",
    "read_messages",
    "serve_socket",
    "take_seq",
]

log = logging.getLogger("chuhan.web")

C = TypeVar("C", bound=Connection)


def error_message(code: str, message: str, seq: int | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if seq is not None:
        error["seq"] = seq
    return error


async def accept_socket(context: ServerContext, websocket: WebSocket) -> bool:
    """Finish a websocket's handshake, a limited number at a time (``arrivals``); False if
    the client went away while it waited its turn, or if the page that opened it is another
    site's (refused before the handshake: the socket would act with the session cookie)."""
    refusal = foreign_origin(websocket, context.settings)
    if refusal is not None:
        log.info("a websocket refused: %s", refusal)
        with contextlib.suppress(Exception):
            await websocket.close(code=1008)
        return False
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
    greeted: Callable[[C], bool],
    body: Callable[[], Awaitable[None]],
    failure: str,
) -> None:
    """The life of an accepted websocket, whatever it serves (a game, the lobby): its
    writer, its place in its address's count (over every live process:
    :mod:`chuhan.web.db.holdings`), the time it has to say hello; ``body`` reads it. An
    error is logged (``failure``) and the client told; the writer gets two seconds to send
    what is queued. A socket that has not said hello (``greeted``) within the settings'
    ``hello_timeout`` is told so and closed: it holds memory and a place in its address's
    count for nothing."""
    settings = context.settings
    address = conn.address
    loop = asyncio.get_running_loop()
    writer = loop.create_task(write(context, websocket, conn))
    silent = loop.call_later(settings.hello_timeout, _no_hello, conn, greeted)
    key = f"sockets address {address}"
    held = False
    context.sessions.add(conn)  # (before anything reads the session: see sessions.py)
    try:
        most = settings.max_sockets_per_address
        if await context.holdings.hold(key, most) is not None:
            conn.send(
                error_message(
                    "too_many_sockets",
                    f"your address already has {most} connections open to this server; "
                    "close some pages and try again",
                )
            )
            conn.close(4429)
            return
        held = True
        await body()
    except WebSocketDisconnect:
        pass
    except Exception:
        log.exception("%s", failure)
        conn.send(error_message("internal", "the server failed; reconnect to continue"))
        conn.close(1011)
    finally:
        silent.cancel()
        context.sessions.discard(conn)
        conn.close()
        if held:
            context.holdings.release(key)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, timeout=2)
        if not writer.done():
            writer.cancel()


def _no_hello(conn: C, greeted: Callable[[C], bool]) -> None:
    if not greeted(conn) and not conn.closing:
        conn.send(error_message("hello_timeout", "no 'hello' came in time; reconnect"))
        conn.close(4408)


async def frames(websocket: WebSocket, conn: Connection) -> AsyncIterator[str | bytes]:
    """The frames a websocket sends, each let through by its rate limit (``conn.bucket``):
    a frame over the limit is answered ``rate_limited`` and dropped, and a client that
    keeps sending past it (``conn.patience``) is closed (1008). Ends when the client leaves,
    its outbox overflowed or the server closes it (its session ended, say: a frame that
    arrives then is not acted on)."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect" or conn.overflowed or conn.closing:
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


async def read_messages(
    websocket: WebSocket,
    conn: Connection,
    messages: dict[str, dict[str, tuple[Check, bool]]],
    dispatch: Callable[[ClientMessage], Awaitable[None]],
    what: str,
) -> None:
    """Read a socket's frames (:func:`frames`), each parsed as one of ``messages``, its seq
    taken, and handed to ``dispatch``: a refusal (ProtocolError) is the client's error
    frame, a database failure an ``unavailable`` one (logged as ``what``'s action)."""
    async for text in frames(websocket, conn):
        try:
            msg = parse_client_message(text, messages)
        except ProtocolError as error:
            conn.send(error_message(error.code, error.message, error.seq))
            continue
        try:
            take_seq(conn, msg)
            await dispatch(msg)
        except ProtocolError as error:
            conn.send(error_message(error.code, error.message, error.seq))
        except StoreError as error:
            log.warning("%s action failed: %s", what, error)
            conn.send(
                error_message(
                    "unavailable", "the game database failed; try again in a moment", msg.seq
                )
            )
