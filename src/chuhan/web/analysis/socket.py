"""The analysis websocket (``/ws/analysis``): the analysis board's rules, its engine lines
as they deepen, and game reviews (``docs/web-protocol.md``, "The analysis socket").

- ``position`` (a game, start FEN and ICCS moves) is answered at once with what the board
  needs (:func:`~chuhan.web.analysis.rules.describe_position`); with ``engine: true`` the engine
  then thinks about it and ``lines`` messages follow, one per depth, until the position's
  budget (``Settings.analysis_seconds``) is spent, the engine is sure (a mate), or the
  analyst moves on (a new ``position`` or ``stop``: the search stops at once, its worker
  stays warm).
- Fairness. The analysis workers are shared by every analyst: each analysis holds a
  worker for at most ``Settings.analysis_slice_seconds`` while others wait (a shorter
  first turn), then waits for its next turn, queued fairly by address, and resumes where
  it was (the lines shown never go back to a shallower depth). One connection has one
  analysis at a time; one address a few connections, and a few analyses at once. The
  computer players have workers of their own, and the analysis workers a lower CPU
  priority (:mod:`chuhan.web.compute.service`).
- ``game`` opens a finished game (or an imported record) on the board; a game still in
  play is refused: analysis is not offered to its players while it runs.
- ``review`` evaluates every position of a finished game at a fixed node budget, in turn
  with the analyses, streaming ``review`` progress, then the marks
  (:func:`~chuhan.web.analysis.rules.judge_review`). A review is made once per game and kept;
  connections asking for the same game share it.
"""

from __future__ import annotations

import logging

from starlette.websockets import WebSocket

from chuhan.web.analysis.rules import AnalysisInputError, describe_position, read_line
from chuhan.web.analysis.service import (
    MAX_MULTIPV,
    MAX_SEARCH_DEPTH,
    AnalysisMember,
    AnalysisService,
    lines_message,
)
from chuhan.web.context import ServerContext, context_of
from chuhan.web.sockets.protocol import Check, ClientMessage, ProtocolError, parse_client_message
from chuhan.web.sockets.serve import (
    accept_socket,
    error_message,
    frames,
    new_connection,
    serve_socket,
    take_seq,
)

__all__ = ["ANALYSIS_MESSAGES", "analysis_socket"]

log = logging.getLogger("chuhan.web")

#: The largest analysis message: a line of 600 moves is about 4,300 bytes.
MAX_ANALYSIS_BYTES = 16 * 1024
#: "Think longer" at most this many times over: a position's engine time is
#: ``Settings.analysis_seconds`` times one more than ``longer``.
MAX_LONGER = 9
#: The deepest depth "Think longer" may be asked to pass (the search's deepest iteration).
MAX_DEPTH = MAX_SEARCH_DEPTH


def _text(most: int) -> Check:
    def check(value: object) -> str:
        if not isinstance(value, str) or len(value) > most:
            raise ValueError(f"must be a string of at most {most} characters")
        return value

    return check


def _moves(value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(m, str) and len(m) <= 8 for m in value):
        raise ValueError("must be a list of ICCS moves like 'h2e2'")
    return list(value)


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def _multipv(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_MULTIPV:
        raise ValueError(f"must be a whole number from 1 to {MAX_MULTIPV}")
    return value


def _ply(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError("must be a whole number >= 0")
    return value


def _longer(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_LONGER:
        raise ValueError(f"must be a whole number from 0 to {MAX_LONGER}")
    return value


def _depth(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_DEPTH:
        raise ValueError(f"must be a depth from 0 to {MAX_DEPTH}")
    return value


_POSITION: dict[str, tuple[Check, bool]] = {
    "variant": (_text(20), True),
    "rules": (_text(20), False),
    "fen": (_text(200), False),
    "moves": (_moves, False),
    "all_moves": (_flag, False),
    "engine": (_flag, False),
    "multipv": (_multipv, False),
    "longer": (_longer, False),
    "deeper_than": (_depth, False),
}

#: The analysis socket's client messages: ``{type: {field: (check, required)}}``.
ANALYSIS_MESSAGES: dict[str, dict[str, tuple[Check, bool]]] = {
    "hello": {},
    "ping": {},
    "position": _POSITION,
    "stop": {},
    "game": {"game": (_text(40), True), "ply": (_ply, False)},
    "review": {"game": (_text(40), True)},
}


# ---------------------------------------------------------------------- the socket


async def analysis_socket(websocket: WebSocket) -> None:
    context = context_of(websocket)
    if not await accept_socket(context, websocket):
        return
    settings = context.settings
    service = context.analysis
    member = new_connection(
        context, websocket, AnalysisMember, settings.rate_burst, settings.rate_per_second
    )
    key = f"analysis address {member.address}"

    async def body() -> None:
        count = await context.holdings.hold(key, settings.analysis_sockets_per_address)
        if count is not None:
            member.send(
                error_message(
                    "too_many_analyses",
                    f"your address already has {count} analysis boards open; close one "
                    "and try again",
                )
            )
            member.close(4429)
            return
        try:
            await _read(context, service, websocket, member)
        finally:
            service.leave(member)
            context.holdings.release(key)

    await serve_socket(
        context,
        websocket,
        member,
        write=_write,
        greeted=lambda member: member.greeted,
        body=body,
        failure="analysis websocket error",
    )


async def _read(
    context: ServerContext, service: AnalysisService, websocket: WebSocket, member: AnalysisMember
) -> None:
    async for text in frames(websocket, member):
        try:
            msg = parse_client_message(text, ANALYSIS_MESSAGES, max_bytes=MAX_ANALYSIS_BYTES)
            take_seq(member, msg)
            await _dispatch(context, service, member, msg)
        except ProtocolError as error:
            member.send(error_message(error.code, error.message, error.seq))


async def _dispatch(
    context: ServerContext, service: AnalysisService, member: AnalysisMember, msg: ClientMessage
) -> None:
    try:
        if msg.type == "hello":
            member.greeted = True
            member.send(
                {
                    "type": "welcome",
                    "seq": msg.seq,
                    "engine": service.engine_name(),
                    "max_plies": context.settings.analysis_max_plies,
                    "max_multipv": MAX_MULTIPV,
                    "seconds": context.settings.analysis_seconds,
                }
            )
            return
        if not member.greeted:
            raise ProtocolError("hello_first", "send 'hello' first")
        if msg.type == "ping":
            member.send({"type": "pong", "seq": msg.seq})
        elif msg.type == "position":
            try:
                line = read_line(
                    msg.fields["variant"],
                    msg.get("rules"),
                    msg.get("fen"),
                    msg.get("moves") or [],
                    max_plies=context.settings.analysis_max_plies,
                )
            except AnalysisInputError as error:
                raise ProtocolError(error.code, error.message) from None
            answer = describe_position(line, all_moves=bool(msg.get("all_moves")))
            member.send({"type": "position", "seq": msg.seq, **answer})
            if msg.get("engine"):
                if answer["over"] is not None or (not answer["dests"] and not answer["can_pass"]):
                    service.stop(member)
                    member.position_seq = msg.seq
                    ended = lines_message(msg.seq, {"depth": 0, "lines": []}, done=True)
                    if msg.get("deeper_than") is not None:
                        ended["not_deeper"] = "over"
                    member.send(ended)
                else:
                    seconds = context.settings.analysis_seconds * (1 + (msg.get("longer") or 0))
                    service.think(
                        member,
                        line,
                        msg.get("multipv") or 1,
                        msg.seq,
                        seconds,
                        deeper_than=msg.get("deeper_than"),
                    )
            else:
                service.stop(member)
        elif msg.type == "stop":
            service.stop(member)
            member.send({"type": "stopped", "seq": msg.seq})
        elif msg.type == "game":
            await service.open_game(member, msg.fields["game"], msg.seq)
        elif msg.type == "review":
            await service.review(member, msg.fields["game"], msg.seq)
    except ProtocolError as error:
        raise ProtocolError(error.code, error.message, msg.seq) from None


async def _write(context: ServerContext, websocket: WebSocket, member: AnalysisMember) -> None:
    try:
        async for text in member.frames(lambda marker: None):
            await websocket.send_text(text)
        await websocket.close(code=member.close_code)
    except Exception:  # the client went away; the reader notices and cleans up
        return
