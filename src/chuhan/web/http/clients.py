"""Who is asking: a client's address (directly, or from a trusted reverse proxy's
``X-Forwarded-For``), per-address rate limits for the requests that create things, and
the count of websockets each address holds."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

from starlette.requests import HTTPConnection

from chuhan.web.settings import Settings
from chuhan.web.sockets.protocol import TokenBucket

__all__ = ["SESSION_COOKIE", "AddressLimiter", "SocketCounter", "client_address"]


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
