"""The signed-in player's games in progress: ``GET /api/account/games``
(:meth:`~chuhan.web.correspondence.service.Correspondence.your_games`)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from chuhan.web.context import context_of
from chuhan.web.db import StoreError
from chuhan.web.http.common import HTTPError

__all__ = ["your_games"]


async def your_games(request: Request) -> Response:
    """``GET /api/account/games``: ``{"games": [...]}``, the account's move first; 401
    when no one is signed in."""
    context = context_of(request)
    account = await context.accounts.account_of(request, context.now())
    if account is None:
        raise HTTPError(401, "not_signed_in", "sign in to see your games")
    try:
        games = await context.correspondence.your_games(account.id)
    except StoreError as error:
        raise HTTPError(503, "store_unavailable", f"your games: {error}") from None
    return JSONResponse({"games": games})
