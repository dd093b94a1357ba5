"""What every REST endpoint shares: JSON errors, the request body read within its limit,
typed fields, and the room of the request's game."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from chuhan.web.context import context_of
from chuhan.web.db.budgets import Rate
from chuhan.web.http.clients import client_address, foreign_origin

__all__ = [
    "HTTPError",
    "api",
    "error_response",
    "field",
    "limit_rate",
    "ply_param",
    "read_body",
    "read_json",
]

log = logging.getLogger("chuhan.web")

T = TypeVar("T")


class HTTPError(Exception):
    """An API error: the HTTP status, a code for programs and a sentence for people."""

    def __init__(
        self, status: int, code: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=status, headers=headers
    )


def api(
    handler: Callable[[Request], Awaitable[Response]],
) -> Callable[[Request], Awaitable[Response]]:
    """An endpoint whose :class:`HTTPError` becomes its JSON error, and whose unexpected
    failure is logged and answered with a sentence, never a traceback. A request that
    changes anything (any method but ``GET`` and ``HEAD``) from another site's page is
    refused (403 ``cross_site``): it would act with the visitor's session cookie."""

    async def wrapped(request: Request) -> Response:
        try:
            if request.method not in ("GET", "HEAD"):
                refusal = foreign_origin(request, context_of(request).settings)
                if refusal is not None:
                    raise HTTPError(403, "cross_site", refusal)
            return await handler(request)
        except HTTPError as error:
            return error_response(error.status, error.code, error.message, error.headers)
        except Exception:
            log.exception("error in %s %s", request.method, request.url.path)
            return error_response(500, "internal", "the server failed; see its log")

    wrapped.__name__ = handler.__name__
    wrapped.__doc__ = handler.__doc__
    return wrapped


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused with 413 as soon as it passes ``limit`` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise HTTPError(413, "too_large", f"request body of {declared} bytes is over {limit}")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise HTTPError(413, "too_large", f"request body is over the {limit}-byte limit")
    return bytes(body)


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object. Only a body sent as ``application/json`` is read: a
    browser sends that type to another site only after asking it first (CORS), which this
    server never allows, so a form or a ``text/plain`` body from another site's page is
    refused (415) before anything is done."""
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind != "application/json":
        shown = kind[:60] or "none"
        raise HTTPError(
            415, "not_json", f"request body must be sent as application/json, not {shown}"
        )
    body = await read_body(request, context_of(request).settings.max_json_bytes)
    try:
        data = json.loads(body or b"{}")
    except (ValueError, RecursionError) as error:
        raise HTTPError(400, "bad_json", f"request body is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise HTTPError(400, "not_object", "request body must be a JSON object")
    return data


def field(data: dict[str, Any], name: str, kind: type[T], default: T) -> T:
    """``data[name]`` if it is a ``kind`` (a bool is not an int), ``default`` if absent or
    null; anything else is a 400 naming the field."""
    value = data.get(name, default)
    if value is None:
        return default
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise HTTPError(400, "bad_field", f"'{name}' must be a {kind.__name__}, got {value!r}")
    return value


def ply_param(text: str | None, last: int) -> int:
    """The ``ply`` query parameter: 0 to ``last``, default ``last``."""
    if text is None:
        return last
    # ASCII digits only ('²' passes isdigit() but not int()), and no more of them than a
    # ply count can have (int() refuses thousands of digits).
    if not (text.isascii() and text.isdigit() and len(text) <= 6) or int(text) > last:
        raise HTTPError(400, "bad_field", f"'ply' must be 0 to {last}, got {text[:20]!r}")
    return int(text)


async def limit_rate(request: Request, budget: str, rate: Rate, what: str) -> None:
    """Count one request against its client address's ``budget`` (a name: ``create``),
    ``rate`` requests (429 when it is spent, naming ``what``). The budget is kept in the
    store (:mod:`chuhan.web.db.budgets`), so it is one whatever process answers."""
    context = context_of(request)
    address = client_address(request, context.settings)
    wait = await context.budgets.take(f"{budget} address {address}", rate)
    if wait > 0:
        seconds = max(1, math.ceil(wait))
        raise HTTPError(
            429,
            "rate_limited",
            f"too many {what} from your address; try again in {seconds} s",
            {"retry-after": str(seconds)},
        )
