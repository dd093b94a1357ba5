"""The notice endpoints: the signed-in account's settings (``GET`` and ``POST
/api/account/notices``), its browsers' push subscriptions (``POST`` and ``DELETE
/api/account/push``), the server's VAPID public key (``GET /api/push/key``), the service
worker at the site's root (``/sw.js``, so its scope is the whole site) and the
unsubscribe page a digest links to, which works without signing in (``GET
/notices/unsubscribe?t=...`` shows a button, its ``POST`` turns the digest off: a mail
scanner that opens the link changes nothing)."""

from __future__ import annotations

import html
import re
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response

from chuhan.web.context import context_of
from chuhan.web.db import StoreError
from chuhan.web.http.common import HTTPError, field, read_json
from chuhan.web.notices.push import (
    MAX_DEVICES,
    NEEDS_EXTRA,
    add_subscription,
    check_subscription,
    remove_subscriptions,
)
from chuhan.web.notices.repository import (
    NoticeSettings,
    confirm_address,
    save_settings,
    settings_of,
    unsubscribe,
)
from chuhan.web.notices.texts import check_language, language_of_request, text

__all__ = [
    "add_push",
    "check_email",
    "confirm_page",
    "notice_settings",
    "push_key",
    "remove_push",
    "save_notice_settings",
    "service_worker",
    "unsubscribe_page",
]

#: The longest address a mail server takes (RFC 5321's path limit less its brackets).
MAX_EMAIL = 254
_EMAIL = re.compile(r"[^@\s]+@[^@\s.]+(\.[^@\s.]+)+")
#: What a token in an unsubscribe link looks like (secrets.token_urlsafe).
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")


def check_email(text: str) -> str:
    """The address, trimmed; ValueError saying what is wrong with it."""
    address = text.strip()
    if len(address) > MAX_EMAIL:
        raise ValueError(f"the e-mail address is {len(address)} characters; at most {MAX_EMAIL}")
    if not _EMAIL.fullmatch(address):
        raise ValueError(f"{address[:80]!r} is not an e-mail address (name@example.org)")
    return address


def _json(settings: NoticeSettings) -> dict[str, object]:
    return {
        "email": settings.email,
        "confirmed": settings.confirmed,
        "digest": settings.digest,
        "push": settings.push,
        "devices": settings.devices,
        "language": settings.language,
    }


def _language(data: dict[str, object]) -> str | None:
    """The optional ``language`` field, checked (400 naming it)."""
    language = field(data, "language", str, "")
    if not language:
        return None
    try:
        return check_language(language)
    except ValueError as error:
        raise HTTPError(400, "bad_language", str(error)) from None


async def _account(request: Request) -> tuple[str, str]:
    """The signed-in account's id and name."""
    context = context_of(request)
    account = await context.accounts.account_of(request, context.now())
    if account is None:
        raise HTTPError(401, "not_signed_in", "sign in to change your notices")
    return account.id, account.name


async def notice_settings(request: Request) -> Response:
    """``GET /api/account/notices``: ``{"email", "confirmed", "digest"}``."""
    account_id, _name = await _account(request)
    try:
        found = await context_of(request).store.read(settings_of(account_id), "notices")
    except StoreError as error:
        raise HTTPError(503, "store_unavailable", f"your notices: {error}") from None
    return JSONResponse(_json(found))


async def save_notice_settings(request: Request) -> Response:
    """``POST /api/account/notices`` ``{"email": "..." | null, "digest": bool, "language":
    "ko"}`` (the language optional: the page's, for the mails); a new address is sent a
    mail with the link that confirms it (no digest goes to an address not confirmed)."""
    account_id, name = await _account(request)
    data = await read_json(request)
    digest = field(data, "digest", bool, False)
    language = _language(data)
    email: str | None = field(data, "email", str, "") or None
    if email is not None:
        try:
            email = check_email(email)
        except ValueError as error:
            raise HTTPError(400, "bad_email", str(error)) from None
    if digest and email is None:
        raise HTTPError(400, "no_email", "give an e-mail address to be mailed a digest")
    context = context_of(request)
    try:
        confirm = await context.store.write(
            save_settings(account_id, email, digest, context.now(), language), "saving notices"
        )
        found = await context.store.read(settings_of(account_id), "notices")
    except StoreError as error:
        raise HTTPError(503, "store_unavailable", f"your notices: {error}") from None
    if confirm is not None and email is not None:
        context.notices.mail_confirmation(name, email, confirm, found.language)
    return JSONResponse(_json(found))


async def push_key(request: Request) -> Response:
    """``GET /api/push/key``: ``{"key"}``, the server's VAPID public key (base64url), which
    the page hands to the Push API; made on first need and kept."""
    try:
        keys = await context_of(request).notices.vapid_keys()
    except StoreError as error:
        raise HTTPError(503, "store_unavailable", f"the push key: {error}") from None
    except ImportError:  # (cryptography comes with the notices extra)
        raise HTTPError(503, "push_unavailable", NEEDS_EXTRA) from None
    return JSONResponse({"key": keys.public_key})


async def add_push(request: Request) -> Response:
    """``POST /api/account/push`` ``{"endpoint", "keys": {"p256dh", "auth"}, "language"}``
    (a ``PushSubscription.toJSON()`` and the page's language): keep this browser's
    subscription and turn the account's pushes on; the notice settings."""
    account_id, _name = await _account(request)
    data = await read_json(request)
    endpoint = field(data, "endpoint", str, "")
    keys = field(data, "keys", dict, {})
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    if not endpoint:
        raise HTTPError(400, "bad_subscription", "the subscription has no 'endpoint'")
    if not isinstance(p256dh, str) or not isinstance(auth, str):
        raise HTTPError(
            400, "bad_subscription", "the subscription's 'keys' must hold 'p256dh' and 'auth'"
        )
    language = _language(data)
    context = context_of(request)
    try:
        subscription = check_subscription(
            endpoint, p256dh, auth, http_localhost=context.settings.push_http_localhost
        )
    except ValueError as error:
        raise HTTPError(400, "bad_subscription", str(error)) from None
    except ImportError:
        raise HTTPError(503, "push_unavailable", NEEDS_EXTRA) from None
    try:
        count = await context.store.write(
            add_subscription(account_id, subscription, language, context.now()), "saving push"
        )
        found = await context.store.read(settings_of(account_id), "notices")
    except StoreError as error:
        raise HTTPError(503, "store_unavailable", f"your notices: {error}") from None
    if count is None:
        raise HTTPError(
            409,
            "too_many_devices",
            f"an account is pushed to {MAX_DEVICES} browsers at most; turn pushes off in "
            "one you no longer use first",
        )
    return JSONResponse(_json(found))


async def remove_push(request: Request) -> Response:
    """``DELETE /api/account/push`` ``{"endpoint"}``: forget this browser's subscription
    (without an endpoint: every browser's); the pushes are off when none is left."""
    account_id, _name = await _account(request)
    data = await read_json(request)
    endpoint: str | None = field(data, "endpoint", str, "") or None
    context = context_of(request)
    try:
        await context.store.write(remove_subscriptions(account_id, endpoint), "removing push")
        found = await context.store.read(settings_of(account_id), "notices")
    except StoreError as error:
        raise HTTPError(503, "store_unavailable", f"your notices: {error}") from None
    return JSONResponse(_json(found))


async def service_worker(request: Request) -> Response:
    """``GET /sw.js``: the service worker, served from the root so that its scope is the
    whole site (it shows a push's notification and opens its game on a click)."""
    path = Path(request.app.state.static_dir) / "sw.js"
    return FileResponse(path, media_type="text/javascript", headers={"Cache-Control": "no-cache"})


def _page_language(request: Request) -> str:
    """The page's language: the link's (``l``, the account's when the mail was written),
    else the browser's."""
    return language_of_request(
        request.query_params.get("l"), request.headers.get("accept-language", "")
    )


def _page(language: str, status: int, title_key: str, body: str) -> HTMLResponse:
    title = html.escape(text(language, title_key))
    lang = {"zh-Hans": "zh-CN", "zh-Hant": "zh-TW"}.get(language, language)
    return HTMLResponse(
        f"<!doctype html><html lang={lang}><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>{title}</title><h1>{title}</h1>{body}"
        '<p><a href="/">chuhan</a></p></html>',
        status_code=status,
    )


def _said(language: str, key: str, **params: object) -> str:
    return f"<p>{html.escape(text(language, key, **params))}</p>"


def _button(language: str, path: str, token: str, key: str) -> str:
    action = html.escape(f"{path}?t={token}&l={language}")
    label = html.escape(text(language, key))
    return f'<form method=post action="{action}"><button type=submit>{label}</button></form>'


async def confirm_page(request: Request) -> Response:
    """``GET``: a page with the button that confirms the address; ``POST``: confirm it
    (in the link's language, else the browser's)."""
    language = _page_language(request)
    token = request.query_params.get("t", "")
    if not _TOKEN.fullmatch(token):
        return _page(language, 400, "page_invalid_title", _said(language, "page_bad_confirm"))
    if request.method == "GET":
        button = _button(language, "/notices/confirm", token, "page_confirm_button")
        return _page(language, 200, "page_confirm_title", button)
    try:
        email = await context_of(request).store.write(confirm_address(token), "confirming")
    except StoreError:
        return _page(language, 503, "page_later_title", _said(language, "page_later_body"))
    if email is None:
        return _page(language, 400, "page_invalid_title", _said(language, "page_bad_confirm"))
    body = _said(language, "page_confirmed_body", email=email)
    return _page(language, 200, "page_confirmed_title", body)


async def unsubscribe_page(request: Request) -> Response:
    """``GET``: a page with the button that turns the digest off; ``POST``: turn it off
    (in the link's language, else the browser's)."""
    language = _page_language(request)
    token = request.query_params.get("t", "")
    if not _TOKEN.fullmatch(token):
        return _page(language, 400, "page_invalid_title", _said(language, "page_bad_unsubscribe"))
    if request.method == "GET":
        body = _said(language, "page_stop_body") + _button(
            language, "/notices/unsubscribe", token, "page_stop_button"
        )
        return _page(language, 200, "page_stop_title", body)
    try:
        name = await context_of(request).store.write(unsubscribe(token), "unsubscribing")
    except StoreError:
        return _page(language, 503, "page_later_title", _said(language, "page_later_body"))
    if name is None:
        return _page(language, 400, "page_invalid_title", _said(language, "page_bad_unsubscribe"))
    return _page(
        language, 200, "page_stopped_title", _said(language, "page_stopped_body", name=name)
    )
