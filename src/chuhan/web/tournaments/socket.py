"""The tournament page's websocket (``/ws/t/{tournament_id}``): ``hello``, then the
tournament whenever it changes and its chat (:mod:`.live`); ``chat`` sends a line (signed
in), ``ping`` is answered. Every frame is checked by :mod:`chuhan.web.sockets.protocol`'s
parser, rate limit and text rules, as the game's and the lobby's are."""

from __future__ import annotations

from starlette.websockets import WebSocket

from chuhan.web.context import ServerContext, context_of
from chuhan.web.sockets.protocol import (
    Check,
    ClientMessage,
    ProtocolError,
    chat_text,
)
from chuhan.web.sockets.serve import (
    accept_socket,
    error_message,
    new_connection,
    read_messages,
    serve_socket,
)
from chuhan.web.tournaments.live import TournamentMember

__all__ = ["TOURNAMENT_MESSAGES", "tournament_socket"]


#: The tournament page's client messages: ``{type: {field: (check, required)}}``.
TOURNAMENT_MESSAGES: dict[str, dict[str, tuple[Check, bool]]] = {
    "hello": {},
    "ping": {},
    "chat": {"text": (chat_text, True)},
}


async def tournament_socket(websocket: WebSocket) -> None:
    context = context_of(websocket)
    if not await accept_socket(context, websocket):
        return
    settings = context.settings
    member = new_connection(
        context,
        websocket,
        TournamentMember,
        settings.lobby_rate_burst,
        settings.lobby_rate_per_second,
    )
    tournament_id = str(websocket.path_params["tournament_id"])
    live = context.tournaments.live

    async def body() -> None:
        try:
            await read_messages(
                websocket,
                member,
                TOURNAMENT_MESSAGES,
                lambda msg: _dispatch(context, member, msg, tournament_id),
                "a tournament page's",
            )
        finally:
            live.leave(member)

    await serve_socket(
        context,
        websocket,
        member,
        write=_write,
        greeted=lambda member: member.tournament_id is not None,
        body=body,
        failure="tournament websocket error",
    )


async def _dispatch(
    context: ServerContext, member: TournamentMember, msg: ClientMessage, tournament_id: str
) -> None:
    try:
        if msg.type == "hello":
            await _hello(context, member, msg, tournament_id)
            return
        if member.tournament_id is None:
            raise ProtocolError("hello_first", "send 'hello' first")
        if msg.type == "ping":
            member.send(
                {"type": "pong", "seq": msg.seq, "server_time_ms": round(context.now() * 1000)}
            )
            return
        if msg.type == "chat":
            await context.tournaments.live.chat(member, msg.fields["text"])
        member.send({"type": "ack", "seq": msg.seq})
    except ProtocolError as error:
        raise ProtocolError(error.code, error.message, msg.seq) from None


async def _hello(
    context: ServerContext, member: TournamentMember, msg: ClientMessage, tournament_id: str
) -> None:
    if member.tournament_id is not None:
        raise ProtocolError("not_allowed", "this connection already said hello")
    found = await context.tournaments.repository.tournament(tournament_id)
    if found is None:
        member.send(
            error_message("no_such_tournament", f"there is no tournament {tournament_id!r}")
        )
        member.close(4404)
        return
    member.account = await context.accounts.account_of_cookie(member.session_cookie, context.now())
    member.send(
        {
            "type": "welcome",
            "seq": msg.seq,
            "you": {"name": None if member.account is None else member.account.name},
            "server_time_ms": round(context.now() * 1000),
        }
    )
    await context.tournaments.live.join(member, found)


async def _write(context: ServerContext, websocket: WebSocket, member: TournamentMember) -> None:
    """Send the connection's frames in order, the tournament rendered when reached."""
    live = context.tournaments.live
    try:
        async for text in member.frames(lambda marker: live.render(member)):
            await websocket.send_text(text)
        await websocket.close(code=member.close_code)
    except Exception:  # the client went away; the reader notices and cleans up
        return
