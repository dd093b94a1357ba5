"""Web Push (issue 24): the server's VAPID key pair, each browser's subscription, the turns
pushed, and the sending of one message through the browser's push service.

The key pair is made on first need (:func:`vapid_keys`) and kept in ``push_keys``: a
restart, or another process on the same database, signs with the same key, so the
browsers' subscriptions stay valid. A subscription is what a browser's Push API gives the
page (its push service's endpoint and the keys that encrypt for it, RFC 8291), checked
(:func:`check_subscription`) and kept per account, :data:`MAX_DEVICES` at most.

A push is sent per game turn: :func:`claim_pushes` takes, in one transaction, each game
where it is the move of an away account with push on and whose turn (its count of moves)
was not pushed yet, and marks it claimed until a time (so one process sends it; a claim
whose process died lapses and is taken over). :func:`push_done` and :func:`push_failed`
end it; a turn that failed is tried again later, :data:`MAX_ROUNDS` times at most.

:func:`send_push` encrypts and posts one message with pywebpush (the ``notices`` extra);
a 404 or 410 from the push service means the subscription is gone (:class:`PushGone`); a
service that cannot take it now (unreachable, reset, timed out, 429, 5xx) raises
:class:`PushUnavailable`, worth trying again (with the service's ``Retry-After``, read by
:func:`retry_after_seconds`); any other failure (another 4xx, a redirect, an address not
public) is a plain :class:`PushError`, not tried again."""

from __future__ import annotations

import asyncio
import base64
import binascii
import ipaddress
import json
import socket
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

from chuhan.web.db.statements import All, Body, Do, One
from chuhan.web.notices.repository import GAMES_IN_PLAY, WaitingGame, new_token, waiting_game

__all__ = [
    "MAX_DEVICES",
    "MAX_ENDPOINT",
    "MAX_ROUNDS",
    "NEEDS_EXTRA",
    "PushClaim",
    "PushError",
    "PushGone",
    "PushUnavailable",
    "Subscription",
    "VapidKeys",
    "add_subscription",
    "check_subscription",
    "claim_pushes",
    "drop_subscription",
    "make_vapid_keys",
    "push_done",
    "push_failed",
    "remove_subscriptions",
    "retry_after_seconds",
    "send_push",
    "subscriptions_of",
    "vapid_keys",
]

#: Browsers (subscriptions) one account keeps at most.
MAX_DEVICES = 10
#: The longest endpoint taken (the push services' are about 200 characters).
MAX_ENDPOINT = 1024
#: Failed rounds after which a turn's push is given up (logged).
MAX_ROUNDS = 5
#: What a server without the push library says.
NEEDS_EXTRA = "Web Push needs the notices extra on the server (pip install 'chuhan[notices]')"
#: Accounts one look claims pushes for at most.
ACCOUNTS_PER_LOOK = 50


class PushError(Exception):
    """A push could not be sent (the push service unreachable, or it refused): says why."""


class PushGone(PushError):
    """The push service says the subscription no longer exists (404 or 410)."""


class PushUnavailable(PushError):
    """The push service cannot take the message now (it cannot be reached, the connection
    was reset or timed out, or it answered 429 or 5xx): worth trying again.
    ``retry_after`` is its ``Retry-After`` header when it sent one (seconds or an HTTP
    date, as sent: :func:`retry_after_seconds`)."""

    def __init__(self, message: str, retry_after: str | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class _NotPosted(OSError):
    """A request the server refuses to make (an address not public, a redirect): raised
    by the trace hooks, not tried again."""


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """How many seconds from ``now`` a ``Retry-After`` header asks to wait (RFC 9110:
    delay-seconds, or an HTTP date); None when there is none or it cannot be read; 0 for
    a date already past."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # (an HTTP date is GMT)
        return None
    return max(0.0, when.timestamp() - now)


@dataclass(frozen=True, slots=True)
class VapidKeys:
    """The server's VAPID key pair: the private key as PEM, the public key as the page
    hands it to the Push API (the uncompressed P-256 point, base64url without padding)."""

    private_pem: str
    public_key: str


@dataclass(frozen=True, slots=True)
class Subscription:
    endpoint: str
    p256dh: str
    auth: str

    def info(self) -> dict[str, Any]:
        """As pywebpush takes it (and as the browser's ``PushSubscription.toJSON()``)."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


@dataclass(frozen=True, slots=True)
class PushClaim:
    """A turn one process has claimed to push: to whom, in which language, the game."""

    account_id: str
    language: str
    game: WaitingGame
    subscriptions: tuple[Subscription, ...]


def _b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def make_vapid_keys() -> VapidKeys:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    private = ec.generate_private_key(ec.SECP256R1())
    pem = private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    point = private.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return VapidKeys(pem, base64.urlsafe_b64encode(point).decode().rstrip("="))


def vapid_keys(now: float) -> Body[VapidKeys]:
    """The server's key pair, made and stored at the first call (two processes making one
    at once keep the first stored: the row's key is fixed)."""
    found = yield One("SELECT private_key, public_key FROM push_keys WHERE id = 1", ())
    if found is None:
        made = make_vapid_keys()
        yield Do(
            "INSERT INTO push_keys (id, private_key, public_key, created) VALUES (1, ?, ?, ?) "
            "ON CONFLICT (id) DO NOTHING",
            (made.private_pem, made.public_key, now),
        )
        found = yield One("SELECT private_key, public_key FROM push_keys WHERE id = 1", ())
        assert found is not None
    return VapidKeys(str(found["private_key"]), str(found["public_key"]))


def _local(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return True


def _address_allowed(address: str, *, loopback: bool) -> bool:
    """Whether the server may post to ``address`` (an IP address): a public one only, so
    that a subscription cannot make the server post into its own network (its database,
    a cloud's metadata service, 10.x, 192.168.x, link-local, ...); this machine too when
    ``loopback`` (the tests' push service)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global or (loopback and ip.is_loopback)


def check_subscription(
    endpoint: str, p256dh: str, auth: str, *, http_localhost: bool = False
) -> Subscription:
    """The subscription a page sent, checked; ValueError saying what is wrong. The
    endpoint is an https address (http only to this machine, and only when
    ``http_localhost``: the tests' push service), :data:`MAX_ENDPOINT` characters at most;
    ``p256dh`` a P-256 public point and ``auth`` a 16-byte secret, both base64url."""
    if len(endpoint) > MAX_ENDPOINT:
        raise ValueError(f"the push endpoint is {len(endpoint)} characters; at most {MAX_ENDPOINT}")
    try:
        parts = urlsplit(endpoint)
        host = parts.hostname or ""
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError:
        raise ValueError(f"the push endpoint {endpoint[:80]!r} is not an address") from None
    if not host or parts.username is not None or parts.password is not None:
        raise ValueError(f"the push endpoint {endpoint[:80]!r} is not a push service's address")
    if parts.scheme != "https" and not (parts.scheme == "http" and http_localhost and _local(host)):
        raise ValueError(f"the push endpoint {endpoint[:80]!r} is not an https address")
    literal = host.strip("[]")
    if _is_ip(literal) and not _address_allowed(literal, loopback=http_localhost):
        raise ValueError(
            f"the push endpoint {endpoint[:80]!r} is not a push service's address (a private, "
            "loopback or reserved network address)"
        )
    from cryptography.hazmat.primitives.asymmetric import ec

    try:
        point = _b64url_decode(p256dh)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except (ValueError, binascii.Error):
        raise ValueError(
            f"the subscription's key p256dh {p256dh[:40]!r} is not a P-256 public key"
        ) from None
    try:
        secret = _b64url_decode(auth)
    except (ValueError, binascii.Error):
        secret = b""
    if len(secret) != 16:
        raise ValueError(f"the subscription's auth {auth[:40]!r} is not a 16-byte secret")
    return Subscription(endpoint, p256dh, auth)


def _settings_row(account_id: str, now: float) -> Body[None]:
    """Make sure the account has its notice settings' row (locked)."""
    found = yield One(
        "SELECT account_id FROM notice_settings WHERE account_id = ?",
        (account_id,),
        for_update=True,
    )
    if found is None:
        yield Do(
            "INSERT INTO notice_settings (account_id, unsubscribe, seen) VALUES (?, ?, ?)",
            (account_id, new_token(), now),
        )


def add_subscription(
    account_id: str,
    subscription: Subscription,
    language: str | None,
    now: float,
    limit: int = MAX_DEVICES,
) -> Body[int | None]:
    """Keep a browser's subscription for the account and turn its pushes on (the
    language, when given, is the account's from now on); the account's count of
    subscriptions, or None when it has ``limit`` already (a browser already kept is
    replaced, and counts once; one kept for another account moves to this one)."""
    yield from _settings_row(account_id, now)
    known = yield One(
        "SELECT account_id FROM push_subscriptions WHERE endpoint = ?",
        (subscription.endpoint,),
        for_update=True,
    )
    count_row = yield One(
        "SELECT count(*) AS n FROM push_subscriptions WHERE account_id = ?", (account_id,)
    )
    count = 0 if count_row is None else int(count_row["n"])
    mine = known is not None and str(known["account_id"]) == account_id
    if not mine and count >= limit:
        return None
    if known is not None:
        yield Do(
            "UPDATE push_subscriptions SET account_id = ?, p256dh = ?, auth = ?, created = ? "
            "WHERE endpoint = ?",
            (account_id, subscription.p256dh, subscription.auth, now, subscription.endpoint),
        )
    else:
        yield Do(
            "INSERT INTO push_subscriptions (endpoint, account_id, p256dh, auth, created) "
            "VALUES (?, ?, ?, ?, ?)",
            (subscription.endpoint, account_id, subscription.p256dh, subscription.auth, now),
        )
    yield Do(
        "UPDATE notice_settings SET push = 1, language = coalesce(?, language), seen = ? "
        "WHERE account_id = ?",
        (language, now, account_id),
    )
    return count if mine else count + 1


def remove_subscriptions(account_id: str, endpoint: str | None) -> Body[int]:
    """Forget one browser's subscription (``endpoint``) or, for None, all of the
    account's, turning its pushes off when none is left; how many are left."""
    if endpoint is None:
        yield Do("DELETE FROM push_subscriptions WHERE account_id = ?", (account_id,))
    else:
        yield Do(
            "DELETE FROM push_subscriptions WHERE account_id = ? AND endpoint = ?",
            (account_id, endpoint),
        )
    left = yield One(
        "SELECT count(*) AS n FROM push_subscriptions WHERE account_id = ?", (account_id,)
    )
    count = 0 if left is None else int(left["n"])
    if count == 0:
        yield Do("UPDATE notice_settings SET push = 0 WHERE account_id = ?", (account_id,))
    return count


def drop_subscription(endpoint: str) -> Body[None]:
    """The push service said this subscription is gone: forget it."""
    yield Do("DELETE FROM push_subscriptions WHERE endpoint = ?", (endpoint,))


def subscriptions_of(account_id: str) -> Body[tuple[str, tuple[Subscription, ...]] | None]:
    """The account's language and subscriptions when its pushes are on, else None."""
    found = yield One(
        "SELECT language FROM notice_settings WHERE account_id = ? AND push = 1", (account_id,)
    )
    if found is None:
        return None
    rows = yield All(
        "SELECT endpoint, p256dh, auth FROM push_subscriptions WHERE account_id = ? "
        "ORDER BY created",
        (account_id,),
    )
    subscriptions = tuple(
        Subscription(str(row["endpoint"]), str(row["p256dh"]), str(row["auth"])) for row in rows
    )
    return (str(found["language"]), subscriptions) if subscriptions else None


#: The accounts that may have a turn to push: pushes on, a subscription, and away.
AWAY_WITH_PUSH = """
SELECT n.account_id, n.language FROM notice_settings n
WHERE n.push = 1 AND n.seen <= ?
  AND EXISTS (SELECT 1 FROM push_subscriptions s WHERE s.account_id = n.account_id)
ORDER BY n.account_id
LIMIT ?
"""


def claim_pushes(now: float, away_seconds: float, claim_seconds: float) -> Body[list[PushClaim]]:
    """Claim the turns to push now: each game where it is the move of an account with
    pushes on and no socket seen open for ``away_seconds``, whose turn was not pushed,
    is not claimed by a process, and has not failed :data:`MAX_ROUNDS` times."""
    accounts = yield All(AWAY_WITH_PUSH, (now - away_seconds, ACCOUNTS_PER_LOOK))
    claims: list[PushClaim] = []
    for account in accounts:
        account_id = str(account["account_id"])
        rows = yield All(GAMES_IN_PLAY, (account_id, -1.0, now))
        games = [game for game in map(waiting_game, rows) if game is not None]
        yield from _forget_turns(account_id, {game.game_id for game in games})
        if not games:
            continue
        found = yield from subscriptions_of(account_id)
        if found is None:
            continue
        language, subscriptions = found
        for game in games:
            turn = yield One(
                "SELECT plies, done, claimed_until, failures, retry_at FROM push_turns "
                "WHERE account_id = ? AND game_id = ?",
                (account_id, game.game_id),
                for_update=True,
            )
            if turn is None:
                yield Do(
                    "INSERT INTO push_turns (account_id, game_id, plies, claimed_until) "
                    "VALUES (?, ?, ?, ?)",
                    (account_id, game.game_id, game.plies, now + claim_seconds),
                )
            elif int(turn["plies"]) != game.plies:
                yield Do(
                    "UPDATE push_turns SET plies = ?, done = 0, claimed_until = ?, failures = 0, "
                    "retry_at = 0 WHERE account_id = ? AND game_id = ?",
                    (game.plies, now + claim_seconds, account_id, game.game_id),
                )
            elif (
                int(turn["done"])
                or float(turn["claimed_until"]) > now
                or float(turn["retry_at"]) > now
                or int(turn["failures"]) >= MAX_ROUNDS
            ):
                continue
            else:
                yield Do(
                    "UPDATE push_turns SET claimed_until = ? WHERE account_id = ? AND game_id = ?",
                    (now + claim_seconds, account_id, game.game_id),
                )
            claims.append(PushClaim(account_id, language, game, subscriptions))
    return claims


def _forget_turns(account_id: str, waiting: set[str]) -> Body[None]:
    """Delete the turns kept of the account's games that no longer wait for it (over, or
    the opponent's move: its next turn is a new one), so the rows do not pile up."""
    kept = yield All("SELECT game_id FROM push_turns WHERE account_id = ?", (account_id,))
    for row in kept:
        if str(row["game_id"]) not in waiting:
            yield Do(
                "DELETE FROM push_turns WHERE account_id = ? AND game_id = ?",
                (account_id, str(row["game_id"])),
            )


def push_done(account_id: str, game_id: str, plies: int) -> Body[None]:
    """The turn's push went: not pushed again."""
    yield Do(
        "UPDATE push_turns SET done = 1, claimed_until = 0 "
        "WHERE account_id = ? AND game_id = ? AND plies = ?",
        (account_id, game_id, plies),
    )


def push_failed(
    account_id: str, game_id: str, plies: int, now: float, pause_seconds: float
) -> Body[int]:
    """The turn's push reached no browser: tried again after ``pause_seconds``, doubled
    for each failed round before; the rounds failed so far."""
    found = yield One(
        "SELECT failures FROM push_turns WHERE account_id = ? AND game_id = ? AND plies = ?",
        (account_id, game_id, plies),
        for_update=True,
    )
    if found is None:
        return 0
    failures = int(found["failures"]) + 1
    yield Do(
        "UPDATE push_turns SET failures = ?, retry_at = ?, claimed_until = 0 "
        "WHERE account_id = ? AND game_id = ?",
        (failures, now + pause_seconds * 2.0 ** (failures - 1), account_id, game_id),
    )
    return failures


def _public_resolver(*, loopback: bool) -> Any:
    """aiohttp's resolver, keeping only the addresses :func:`_address_allowed` allows (the
    connection is made to the addresses checked: a name that resolves to a private
    address is refused, even one that changes between two lookups). Its ``refused``
    lists the names refused (aiohttp's error for the connection does not say why)."""
    import aiohttp
    from aiohttp.abc import AbstractResolver, ResolveResult

    class PublicResolver(AbstractResolver):
        def __init__(self) -> None:
            self._inner = aiohttp.ThreadedResolver()
            self.refused: list[str] = []

        async def resolve(
            self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
        ) -> list[ResolveResult]:
            found = await self._inner.resolve(host, port, family)
            allowed = [r for r in found if _address_allowed(r["host"], loopback=loopback)]
            if not allowed:
                self.refused.append(host)
                raise OSError(f"{host} resolves to no public address")
            return allowed

        async def close(self) -> None:
            await self._inner.close()

    return PublicResolver()


def _refuse_private_literal(loopback: bool) -> Any:
    """A trace hook refusing a request to an address written as an IP address that
    :func:`_address_allowed` refuses (aiohttp connects to those without its resolver)."""

    async def hook(_session: Any, _context: Any, params: Any) -> None:
        url = getattr(params, "url", None)
        if url is None:
            return
        literal = (url.host or "").strip("[]")
        if _is_ip(literal) and not _address_allowed(literal, loopback=loopback):
            raise _NotPosted(f"{literal} is not a public address")

    return hook


async def _refuse_redirect(_session: Any, _context: Any, params: Any) -> None:
    """A trace hook refusing to follow a redirect (push services answer, they do not send
    the server elsewhere: a redirect could point into the server's own network)."""
    raise _NotPosted(
        f"it answered with a redirect ({params.response.status}), which is not followed"
    )


async def send_push(
    keys: VapidKeys,
    subscription: Subscription,
    message: dict[str, str],
    *,
    contact: str,
    timeout: float,
    ttl: int = 86400,
    loopback: bool = False,
) -> None:
    """Encrypt ``message`` (as JSON) for the subscription and post it to its push service,
    signed with the server's VAPID key; :class:`PushGone` for a 404 or 410,
    :class:`PushUnavailable` when the service cannot take it now (unreachable, reset,
    timed out, 429, 5xx), :class:`PushError` saying why for any other failure (another
    4xx; an address or a redirect refused). Only a public address is posted
    to (:func:`_address_allowed`: a name is resolved and each of its addresses checked
    before the connection, a redirect checked as well); this machine too when
    ``loopback`` (the tests' push service)."""
    try:
        import aiohttp
        from py_vapid import Vapid  # type: ignore[import-untyped]
        from pywebpush import WebPushException, webpush_async  # type: ignore[import-untyped]
    except ImportError:
        raise PushError(NEEDS_EXTRA) from None

    vapid = Vapid.from_pem(keys.private_pem.encode())
    host = urlsplit(subscription.endpoint).hostname
    resolver = _public_resolver(loopback=loopback)
    connector = aiohttp.TCPConnector(resolver=resolver)
    trace = aiohttp.TraceConfig()
    trace.on_request_start.append(_refuse_private_literal(loopback))
    trace.on_request_redirect.append(_refuse_redirect)
    try:
        async with (
            aiohttp.ClientSession(connector=connector, trace_configs=[trace]) as session,
            asyncio.timeout(timeout),
        ):
            await webpush_async(
                subscription.info(),
                data=json.dumps(message, ensure_ascii=False),
                vapid_private_key=vapid,
                vapid_claims={"sub": contact},
                ttl=ttl,
                timeout=timeout,
                aiohttp_session=session,
            )
    except WebPushException as error:
        status = error.status_code
        if status in (404, 410):
            raise PushGone(
                f"the push service {host} says the subscription is gone ({status})"
            ) from None
        if status == 429 or (status is not None and 500 <= status <= 599):
            raise PushUnavailable(
                f"the push service {host} cannot take the message now ({status})",
                error.retry_after,
            ) from None
        raise PushError(f"the push service {host} refused the message ({status})") from None
    except _NotPosted as error:
        raise PushError(f"the push service {host}: {error}; not posted to") from None
    except (aiohttp.ClientError, OSError, TimeoutError) as error:
        if resolver.refused:
            raise PushError(
                f"the push service {host} resolves to no public address: not posted to"
            ) from None
        raise PushUnavailable(
            f"the push service {host} cannot be reached: {error or type(error).__name__}"
        ) from None
