"""The lobby's endpoint beside its socket: the games in play to watch and who is in the
lobby (``GET /api/lobby/watch``, read at most every few seconds per process:
:meth:`~chuhan.web.lobby.service.Lobby.watch_list`)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from chuhan.web.context import context_of
from chuhan.web.db import StoreError
from chuhan.web.http.common import HTTPError

__all__ = ["watch"]


async def watch(request: Request) -> Response:
    """``GET /api/lobby/watch``: ``{"games": [...], "online": {"count", "names"}}``."""
    try:
        answer = await context_of(request).lobby.watch_list()
    except StoreError as error:
        raise HTTPError(503, "store_unavailable", f"the games in play: {error}") from None
    return JSONResponse(answer)
