"""Who is asking: a client's address (directly, or from a trusted reverse proxy's
``X-Forwarded-For``), whether a browser's request comes from this site's own pages (its
``Origin``). (The per-address limits are kept in the database: the rate budgets in
:mod:`chuhan.web.db.budgets`, the websockets open in :mod:`chuhan.web.db.holdings`.)"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import HTTPConnection

from chuhan.web.settings import Settings

__all__ = [
    "SESSION_COOKIE",
    "client_address",
    "foreign_origin",
]


#: The cookie that carries a signed-in browser's session (made and checked by
#: :mod:`chuhan.web.accounts`; every socket reads it when it opens).
SESSION_COOKIE = "chuhan_session"


def client_address(connection: HTTPConnection, settings: Settings) -> str:
    """The client's address: the last ``X-Forwarded-For`` entry (the one the proxy in
    front added) when the server trusts its proxy, else the peer's own address."""
    if settings.trust_proxy:
        forwarded = connection.headers.get("x-forwarded-for", "")
        last = forwarded.rsplit(",", 1)[-1].strip()
        if last:
            return last[:64]
    client = connection.client
    return client.host if client is not None else "unknown"


_DEFAULT_PORTS = {"http": "80", "https": "443"}


def _site(scheme: str, netloc: str) -> str:
    """``scheme://host:port`` in lower case, with the scheme's default port written out."""
    netloc = netloc.lower()
    host, colon, port = netloc.rpartition(":")
    if not colon or "]" in port:  # no port (an IPv6 literal's colons are inside [])
        host, port = netloc, _DEFAULT_PORTS[scheme]
    return f"{scheme}://{host}:{port}"


def foreign_origin(connection: HTTPConnection, settings: Settings) -> str | None:
    """Why a browser's request or websocket may not act here with the session cookie, or
    ``None`` when it may: its ``Origin`` must be this site, the same scheme, host and port
    as the request was sent to. Another port or scheme of the same host, a sibling
    subdomain and an opaque origin (``null``: a sandboxed frame, a file) are all other sites.
    A request without an ``Origin`` is not a browser's cross-site request (browsers send
    one with every websocket and every ``POST``) and passes. Behind a trusted proxy the site
    is the ``Host`` and ``X-Forwarded-Proto`` the proxy sends (``docs/deployment.md``),
    never a header only a client writes, such as ``X-Forwarded-Host``."""
    origin = connection.headers.get("origin")
    if origin is None:
        return None
    shown = origin[:80]
    parts = urlsplit(origin.strip())
    if parts.scheme not in _DEFAULT_PORTS or not parts.netloc:
        return f"a page with no site of its own (Origin {shown!r}) cannot act here"
    scheme = {"ws": "http", "wss": "https"}.get(connection.url.scheme, connection.url.scheme)
    if settings.trust_proxy:
        forwarded = connection.headers.get("x-forwarded-proto", "").strip().lower()
        scheme = forwarded if forwarded in _DEFAULT_PORTS else scheme
    host = connection.headers.get("host", "")
    if (
        not host
        or scheme not in _DEFAULT_PORTS
        or _site(parts.scheme, parts.netloc) != _site(scheme, host)
    ):
        return f"a page of another site (Origin {shown!r}) cannot act here"
    return None
