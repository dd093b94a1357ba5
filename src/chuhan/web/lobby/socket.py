"""The lobby websocket (``/ws/lobby``): one reader that checks every frame (the lobby's
messages, with :mod:`chuhan.web.sockets.protocol`'s parser, rate limit and text rules) and hands it
to the :class:`~chuhan.web.lobby.service.Lobby`, and one writer that sends the connection's queued
frames, the seek list rendered when the writer reaches it (so a slow reader gets the newest
list, never a backlog)."""

from __future__ import annotations

import re

from starlette.websockets import WebSocket

from chuhan.web.accounts.ratings import is_provisional
from chuhan.web.context import ServerContext, context_of
from chuhan.web.http.common import HTTPError
from chuhan.web.lobby.service import RATING_BOUNDS, LobbyMember, check_visitor_name, owner_of
from chuhan.web.round.routes import parse_time_control
from chuhan.web.sockets.protocol import (
    Check,
    ClientMessage,
    ProtocolError,
)
from chuhan.web.sockets.serve import (
    accept_socket,
    new_connection,
    read_messages,
    serve_socket,
)

__all__ = ["LOBBY_MESSAGES", "lobby_socket"]


_VISITOR = re.compile(r"^[A-Za-z0-9_-]{16,100}$")
_SEEK_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


def _visitor(value: object) -> str:
    if not isinstance(value, str) or not _VISITOR.match(value):
        raise ValueError("must be 16 to 100 letters, digits, '_' or '-' (the browser's secret)")
    return value


def _visitor_name(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError("must be a string")
    return check_visitor_name(value)


def _short_text(most: int) -> Check:
    def check(value: object) -> str:
        if not isinstance(value, str) or not 1 <= len(value) <= most:
            raise ValueError(f"must be a string of 1 to {most} characters")
        return value

    return check


def _boolean(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def _color(value: object) -> str:
    if value not in ("first", "second", "random"):
        raise ValueError("must be 'first', 'second' or 'random'")
    return str(value)


def _rating(value: object) -> int:
    low, high = RATING_BOUNDS
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(f"must be a whole number from {low} to {high}")
    return value


def _seek_id(value: object) -> str:
    if not isinstance(value, str) or not _SEEK_ID.match(value):
        raise ValueError("must be a seek id")
    return value


_GAME_FIELDS: dict[str, tuple[Check, bool]] = {
    "variant": (_short_text(20), True),
    "rules": (_short_text(20), False),
    "time_control": (_short_text(40), False),
    "rated": (_boolean, False),
    "rating_min": (_rating, False),
    "rating_max": (_rating, False),
}

#: The lobby's client messages: ``{type: {field: (check, required)}}``.
LOBBY_MESSAGES: dict[str, dict[str, tuple[Check, bool]]] = {
    "hello": {"visitor": (_visitor, False), "name": (_visitor_name, False)},
    "ping": {},
    "seek": {**_GAME_FIELDS, "color": (_color, False)},
    "quick": _GAME_FIELDS,
    "challenge": {**_GAME_FIELDS, "color": (_color, False), "to": (_short_text(80), True)},
    "cancel": {"seek": (_seek_id, True)},
    "accept": {"seek": (_seek_id, True)},
    "decline": {"seek": (_seek_id, True)},
}


async def lobby_socket(websocket: WebSocket) -> None:
    context = context_of(websocket)
    if not await accept_socket(context, websocket):
        return
    settings = context.settings
    member = new_connection(
        context,
        websocket,
        LobbyMember,
        settings.lobby_rate_burst,
        settings.lobby_rate_per_second,
    )

    async def body() -> None:
        try:
            await read_messages(
                websocket,
                member,
                LOBBY_MESSAGES,
                lambda msg: _dispatch(context, member, msg),
                "a lobby",
            )
        finally:
            context.lobby.leave(member)

    await serve_socket(
        context,
        websocket,
        member,
        write=_write,
        greeted=lambda member: member.owner is not None,
        body=body,
        failure="lobby websocket error",
    )


async def _dispatch(context: ServerContext, member: LobbyMember, msg: ClientMessage) -> None:
    lobby = context.lobby
    try:
        if msg.type == "hello":
            await _hello(context, member, msg)
            return
        if member.owner is None:
            raise ProtocolError("hello_first", "send 'hello' first")
        seek_id: str | None = None
        fields = dict(msg.fields)
        if "time_control" in fields:
            try:
                fields["time_control"] = parse_time_control(
                    fields["time_control"] or "none", context.settings
                )
            except HTTPError as error:
                raise ProtocolError("bad_field", error.message) from None
        if msg.type == "ping":
            member.send(
                {"type": "pong", "seq": msg.seq, "server_time_ms": round(context.now() * 1000)}
            )
            return
        if msg.type == "seek":
            seek_id = (await lobby.post(member, fields)).id
        elif msg.type == "quick":
            waiting = await lobby.quick(member, fields)
            seek_id = None if waiting is None else waiting.id
        elif msg.type == "challenge":
            seek_id = (await lobby.challenge(member, fields)).id
        elif msg.type == "cancel":
            await lobby.cancel(member, msg.fields["seek"])
        elif msg.type == "accept":
            await lobby.accept(member, msg.fields["seek"])
        elif msg.type == "decline":
            await lobby.decline(member, msg.fields["seek"])
        member.send({"type": "ack", "seq": msg.seq, "seek": seek_id})
    except ProtocolError as error:
        raise ProtocolError(error.code, error.message, msg.seq) from None


async def _hello(context: ServerContext, member: LobbyMember, msg: ClientMessage) -> None:
    if member.owner is not None:
        raise ProtocolError("not_allowed", "this connection already said hello")
    account = await context.accounts.account_of_cookie(member.session_cookie, context.now())
    visitor = msg.get("visitor")
    if account is None and visitor is None:
        raise ProtocolError(
            "bad_field",
            "'hello' needs the field 'visitor' (the browser's secret) when not signed in",
        )
    if account is not None:
        member.account = account
        member.display_name = account.name
        ratings = await context.accounts.repository.ratings_of(account.id)
        member.ratings = {game: (r.rating, r.deviation) for game, r in ratings.items()}
    else:
        member.display_name = msg.get("name") or "Anonymous"
    member.owner = owner_of(account, visitor)
    member.send(
        {
            "type": "welcome",
            "seq": msg.seq,
            "you": {
                "name": member.display_name,
                "signed_in": account is not None,
                "ratings": {
                    game: {"rating": round(rating), "provisional": is_provisional(deviation)}
                    for game, (rating, deviation) in member.ratings.items()
                },
            },
            "server_time_ms": round(context.now() * 1000),
        }
    )
    await context.lobby.join(member)


async def _write(context: ServerContext, websocket: WebSocket, member: LobbyMember) -> None:
    """Send the connection's frames in order, the seek list rendered when reached."""

    def render(marker: str) -> str | None:
        return context.lobby.render(member) if member.owner is not None else None

    try:
        async for text in member.frames(render):
            await websocket.send_text(text)
        await websocket.close(code=member.close_code)
    except Exception:  # the client went away; the reader notices and cleans up
        return
