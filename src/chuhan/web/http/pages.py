"""The page (one ``index.html`` for every route of the app), the security headers every
response carries, and the answer to addresses and methods nothing serves."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chuhan.web.http.common import error_response

__all__ = ["CSP", "STATIC_DIR", "SecurityHeaders", "not_routed", "page"]

STATIC_DIR = Path(__file__).parent.parent / "static"

CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
_SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class SecurityHeaders:
    """Adds the CSP and friends to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    h for h in message.get("headers", []) if h[0] not in dict(_SECURITY_HEADERS)
                ]
                message["headers"] = headers + _SECURITY_HEADERS
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def page(request: Request) -> Response:
    """The single-page app, for ``/``, ``/g/{id}`` and ``/w/{id}``."""
    index = Path(request.app.state.static_dir) / "index.html"
    if not index.is_file():
        return PlainTextResponse(
            f"The web app's files are missing ({index}); reinstall chuhan.", status_code=500
        )
    return FileResponse(index, media_type="text/html; charset=utf-8")


async def not_routed(request: Request, error: Exception) -> Response:
    """An address or method nothing answers: the API's JSON error under ``/api/``, plain
    text elsewhere (a missing static file)."""
    status = getattr(error, "status_code", 404)
    headers = getattr(error, "headers", None)  # a 405 says which methods are allowed
    if not request.url.path.startswith("/api/"):
        text = "Not Found" if status == 404 else "Method Not Allowed"
        return PlainTextResponse(text, status, headers=headers)
    if status == 405:
        response = error_response(
            405, "bad_method", f"{request.method} is not allowed on {request.url.path[:80]}"
        )
        response.headers.update(headers or {})
        return response
    return error_response(404, "not_found", f"there is no API endpoint {request.url.path[:80]}")
