"""The signed-in player's games in progress (``GET /api/account/games``:
:meth:`~chuhan.web.correspondence.service.Correspondence.your_games`) and their vacation
(``GET``/``POST``/``DELETE /api/account/vacation``)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from chuhan.web.accounts.repository import Account
from chuhan.web.context import context_of
from chuhan.web.correspondence.service import VacationRefused
from chuhan.web.db import StoreError
from chuhan.web.http.common import HTTPError, field, read_json

__all__ = ["end_vacation", "take_vacation", "vacation", "your_games"]


async def _signed_in(request: Request, what: str) -> Account:
    context = context_of(request)
    account = await context.accounts.account_of(request, context.now())
    if account is None:
        raise HTTPError(401, "not_signed_in", f"sign in to see {what}")
    return account


async def your_games(request: Request) -> Response:
    """``GET /api/account/games``: ``{"games": [...]}``, the account's move first; 401
    when no one is signed in."""
    account = await _signed_in(request, "your games")
    try:
        games = await context_of(request).correspondence.your_games(account.id)
    except StoreError as error:
        raise HTTPError(503, "store_unavailable", f"your games: {error}") from None
    return JSONResponse({"games": games})


async def vacation(request: Request) -> Response:
    """``GET /api/account/vacation``: ``{"year", "allowance", "used", "left",
    "until_ms"}`` (``until_ms`` null: not on vacation)."""
    account = await _signed_in(request, "your vacation")
    try:
        found = await context_of(request).correspondence.vacation(account.id)
    except StoreError as error:
        raise HTTPError(503, "store_unavailable", f"your vacation: {error}") from None
    return JSONResponse(found.to_json())


async def take_vacation(request: Request) -> Response:
    """``POST /api/account/vacation`` ``{"days": N}``: start a vacation of N whole days
    (409 ``vacation_refused`` with the reason: longer than the days left this year, or
    one running); the vacation as ``GET`` answers it."""
    account = await _signed_in(request, "your vacation")
    data = await read_json(request)
    days = field(data, "days", int, 0)
    try:
        taken = await context_of(request).correspondence.take_vacation(account.id, days)
    except VacationRefused as error:
        raise HTTPError(409, "vacation_refused", str(error)) from None
    except StoreError as error:
        raise HTTPError(503, "store_unavailable", f"your vacation: {error}") from None
    return JSONResponse(taken.to_json())


async def end_vacation(request: Request) -> Response:
    """``DELETE /api/account/vacation``: end the vacation now (the days not begun given
    back; 409 when none runs)."""
    account = await _signed_in(request, "your vacation")
    try:
        ended = await context_of(request).correspondence.end_vacation(account.id)
    except VacationRefused as error:
        raise HTTPError(409, "vacation_refused", str(error)) from None
    except StoreError as error:
        raise HTTPError(503, "store_unavailable", f"your vacation: {error}") from None
    return JSONResponse(ended.to_json())
