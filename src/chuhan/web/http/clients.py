"""Who is asking: a client's address (directly, or from a trusted reverse proxy's
``X-Forwarded-For``), whether a browser's request comes from this site's own pages (its
``Origin``), per-address rate limits for the requests that create things, and the count of
websockets each address holds."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection

from chuhan.web.settings import Settings
from chuhan.web.sockets.protocol import TokenBucket

__all__ = [
    "SESSION_COOKIE",
    "AddressLimiter",
    "SocketCounter",
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


class AddressLimiter:
    """A :class:`~chuhan.web.sockets.protocol.TokenBucket` per address: ``burst`` requests at
    once, then one every ``every_seconds``. Remembers at most ``max_addresses`` (the least
    recently seen are forgotten, which only ever gives them a fresh burst)."""

    def __init__(
        self,
        burst: float,
        every_seconds: float,
        *,
        max_addresses: int = 10_000,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.burst = burst
        self.rate = 1.0 / every_seconds if every_seconds > 0 else float("inf")
        self.max_addresses = max_addresses
        self._now = now
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def take(self, address: str) -> float:
        """Take one request for ``address``: 0 if allowed, else the seconds to wait."""
        bucket = self._buckets.pop(address, None) or TokenBucket(self.burst, self.rate, self._now)
        self._buckets[address] = bucket  # the most recently seen last
        while len(self._buckets) > self.max_addresses:
            self._buckets.popitem(last=False)
        return 0.0 if bucket.take() else bucket.wait()


class SocketCounter:
    """Open websockets per address."""

    def __init__(self) -> None:
        self._open: dict[str, int] = {}

    def count(self, address: str) -> int:
        return self._open.get(address, 0)

    def opened(self, address: str) -> None:
        self._open[address] = self._open.get(address, 0) + 1

    def closed(self, address: str) -> None:
        left = self._open.get(address, 0) - 1
        if left > 0:
            self._open[address] = left
        else:
            self._open.pop(address, None)
