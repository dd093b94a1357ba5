"""The REST endpoints of accounts and ratings: sign up, sign in and out, the signed-in
account, a new password, deleting the account; a player's profile, the leaderboards and
a rated game's settlement (``docs/web-protocol.md``). Nothing here ever answers with a
password hash or a seat token."""

from __future__ import annotations

import math
import secrets
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from chuhan.web.accounts.ratings import (
    PROVISIONAL_DEVIATION,
    RATING_CATEGORIES,
    rating_json,
    settlement_json,
)
from chuhan.web.accounts.repository import (
    Account,
    NameConfusable,
    NameTaken,
    name_key,
    network_of,
)
from chuhan.web.accounts.service import (
    KNOWN_COOKIE,
    SESSION_COOKIE,
    AccountRuleError,
    AccountService,
    check_name,
    check_password,
)
from chuhan.web.context import context_of
from chuhan.web.http.clients import client_address
from chuhan.web.http.common import HTTPError, field, read_json

__all__ = [
    "account",
    "change_password",
    "delete_account",
    "game_rating",
    "leaderboard",
    "player",
    "service_of",
    "sign_in",
    "sign_out",
    "sign_up",
]

#: How many recent games a profile lists, and players a leaderboard.
PROFILE_GAMES = 20
LEADERBOARD_SIZE = 50
HISTORY_POINTS = 200


def service_of(request: Request) -> AccountService:
    return context_of(request).accounts


def _text(data: dict[str, Any], name: str) -> str:
    value = field(data, name, str, "")
    if not value:
        raise HTTPError(400, "bad_field", f"'{name}' is missing")
    return value


def _public(account: Account) -> dict[str, Any]:
    """What the account's owner is shown of it (never its hash)."""
    return {"name": account.name, "created_ms": round(account.created * 1000)}


async def _take_attempt(request: Request, limits: dict[str, int], what: str) -> str:
    """Count an attempt against its limits; 429 with a sentence when one is spent."""
    context = context_of(request)
    attempt = secrets.token_hex(12)
    wait = await context.accounts.repository.take_attempt(
        attempt, limits, context.settings.attempt_window_seconds, context.now()
    )
    if wait > 0:
        seconds = max(1, math.ceil(wait))
        minutes = math.ceil(seconds / 60)
        raise HTTPError(
            429,
            "rate_limited",
            f"too many {what} for this name or from your address; try again in "
            f"{minutes} minute{'s' if minutes > 1 else ''}",
            {"retry-after": str(seconds)},
        )
    return attempt


async def _check_current_password(request: Request, account: Account, password: str) -> None:
    """The current password, asked before a change or a deletion: counted like a sign-in
    (per account and per address, forgiven when right), so a session left open somewhere
    cannot be used to guess it."""
    context = context_of(request)
    settings = context.settings
    address = client_address(request, settings)
    attempt = await _take_attempt(
        request,
        {
            f"signin address {address}": settings.signin_per_address,
            f"password account {account.id}": settings.signin_per_name,
        },
        "wrong passwords",
    )
    if not await service_of(request).verify_password(account, password):
        raise HTTPError(401, "wrong_password", "'password' is not your current password")
    await context.accounts.repository.forgive_attempt(attempt)


def _signed_in(request: Request, account: Account, cookie: str, status: int = 200) -> Response:
    response = JSONResponse({"account": _public(account)}, status_code=status)
    service = service_of(request)
    options = service.cookie_options(request)
    response.set_cookie(
        SESSION_COOKIE, cookie, max_age=round(service.settings.session_days * 86400), **options
    )
    if service.known_tag(request, account) is None:
        response.set_cookie(
            KNOWN_COOKIE, service.known_browser(account), max_age=365 * 86400, **options
        )
    return response


def _signed_out(body: dict[str, Any]) -> Response:
    response = JSONResponse(body)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")
    return response


async def _current(request: Request) -> Account:
    account = await service_of(request).account_of(request, context_of(request).now())
    if account is None:
        raise HTTPError(401, "not_signed_in", "you are not signed in")
    return account


async def sign_up(request: Request) -> Response:
    """``POST /api/account/signup`` ``{name, password}``."""
    context = context_of(request)
    service = service_of(request)
    data = await read_json(request)
    try:
        name = check_name(_text(data, "name"))
        password = _text(data, "password")
        check_password(password)
    except AccountRuleError as error:
        raise HTTPError(400, "bad_field", str(error)) from None
    settings = context.settings
    address = client_address(request, settings)
    await _take_attempt(
        request,
        {
            f"signup address {address}": settings.signup_per_address,
            f"signup name {name_key(name)}": settings.signup_per_name,
        },
        "sign-ups",
    )
    now = context.now()
    account = Account(secrets.token_urlsafe(12), name, now, await service.hash_password(password))
    try:
        await context.accounts.repository.create_account(account, network_of(address))
    except NameTaken:
        raise HTTPError(409, "name_taken", f"the name {name!r} is taken; choose another") from None
    except NameConfusable as error:
        raise HTTPError(
            409,
            "name_confusable",
            f"'name' {name!r} looks like the name of the player {error.existing!r} (a "
            "letter of another script, or one that looks like another); choose another",
        ) from None
    cookie = await service.start_session(account, now)
    return _signed_in(request, account, cookie, 201)


async def sign_in(request: Request) -> Response:
    """``POST /api/account/signin`` ``{name, password}``."""
    context = context_of(request)
    service = service_of(request)
    data = await read_json(request)
    name = _text(data, "name")
    password = _text(data, "password")
    if len(name) > 200 or len(password) > 1000:
        raise HTTPError(401, "wrong_password", "the name or the password is wrong")
    settings = context.settings
    address = client_address(request, settings)
    account = await context.accounts.repository.account_by_name(name)
    # A browser that has held a session of this account is counted by itself, so the
    # guesses of others at the name never lock its owner out.
    known = service.known_tag(request, account)
    who = f"signin browser {known}" if known else f"signin name {name_key(name)}"
    attempt = await _take_attempt(
        request,
        {f"signin address {address}": settings.signin_per_address, who: settings.signin_per_name},
        "failed sign-ins",
    )
    if not await service.verify_password(account, password) or account is None:
        raise HTTPError(401, "wrong_password", "the name or the password is wrong")
    await context.accounts.repository.forgive_attempt(attempt)
    cookie = await service.start_session(account, context.now())
    return _signed_in(request, account, cookie)


async def sign_out(request: Request) -> Response:
    """``POST /api/account/signout``: the session ends (on every server process), and the
    sockets opened with it are closed."""
    service = service_of(request)
    key = service.session_of(request)
    if key is not None:
        await service.sessions_ended(await service.repository.end_session(key))
    return _signed_out({"account": None})


async def account(request: Request) -> Response:
    """``GET /api/account``: the signed-in account and its ratings, or null."""
    found = await service_of(request).account_of(request, context_of(request).now())
    if found is None:
        return JSONResponse({"account": None})
    ratings = await context_of(request).accounts.repository.ratings_of(found.id)
    body = _public(found) | {"ratings": {g: rating_json(r) for g, r in ratings.items()}}
    return JSONResponse({"account": body})


async def change_password(request: Request) -> Response:
    """``POST /api/account/password`` ``{password, new_password}``: every other session
    of the account ends (and the sockets opened with them are closed)."""
    context = context_of(request)
    service = service_of(request)
    found = await _current(request)
    data = await read_json(request)
    password = _text(data, "password")
    new_password = _text(data, "new_password")
    try:
        check_password(new_password, "new_password")
    except AccountRuleError as error:
        raise HTTPError(400, "bad_field", str(error)) from None
    await _check_current_password(request, found, password)
    key = service.session_of(request) or ""
    ended = await context.accounts.repository.set_password(
        found.id, await service.hash_password(new_password), key
    )
    await service.sessions_ended(ended)
    return JSONResponse({"account": _public(found)})


async def delete_account(request: Request) -> Response:
    """``POST /api/account/delete`` ``{password}``: the account, its sessions (and the
    sockets opened with them) and ratings go; its games stay, anonymous."""
    context = context_of(request)
    found = await _current(request)
    data = await read_json(request)
    await _check_current_password(request, found, _text(data, "password"))
    await context.accounts.sessions_ended(
        await context.accounts.repository.delete_account(found.id)
    )
    return _signed_out({"account": None, "deleted": found.name})


async def player(request: Request) -> Response:
    """``GET /api/players/{name}``: ratings per game, results, rating history and recent
    games (with watch links only)."""
    store = context_of(request).accounts.repository
    name = request.path_params["name"]
    found = await store.account_by_name(name[:100])
    if found is None:
        raise HTTPError(404, "no_player", f"there is no player {name[:40]!r}")
    ratings = await store.ratings_of(found.id)
    history = {
        game: [
            {"at_ms": round(at * 1000), "rating": round(rating), "deviation": round(rd, 1)}
            for at, rating, rd in await store.rating_history(found.id, game, HISTORY_POINTS)
        ]
        for game in ratings
    }
    games = [
        {
            "game_id": g.game_id,
            "watch_url": f"/w/{g.game_id}",
            "seat": g.seat,
            "variant": g.variant,
            "rules": g.rules,
            "kind": g.kind,
            "rated": g.rated,
            "status": g.status,
            "result": g.result,
            "opponent": g.opponent,
            "names": g.names,
            "updated_ms": round(g.updated * 1000),
        }
        for g in await store.account_games(found.id, PROFILE_GAMES)
    ]
    return JSONResponse(
        {
            "name": found.name,
            "created_ms": round(found.created * 1000),
            "ratings": {game: rating_json(r) for game, r in ratings.items()},
            "record": await store.account_record(found.id),
            "history": history,
            "games": games,
            "provisional_above": PROVISIONAL_DEVIATION,
        }
    )


async def leaderboard(request: Request) -> Response:
    """``GET /api/leaderboard/{game}``: the best established ratings of the game
    (``players``, ranked), and the best provisional ones beside them (``newcomers``, not
    ranked: a new server's players are all provisional for their first games)."""
    game = request.path_params["game"]
    if game not in RATING_CATEGORIES:
        raise HTTPError(
            404,
            "no_game_kind",
            f"there is no game {game[:30]!r}: {', '.join(RATING_CATEGORIES)}",
        )
    repository = context_of(request).accounts.repository
    best = await repository.leaderboard(game, PROVISIONAL_DEVIATION, LEADERBOARD_SIZE)
    newcomers = await repository.newcomers(game, PROVISIONAL_DEVIATION, LEADERBOARD_SIZE)
    return JSONResponse(
        {
            "game": game,
            "players": [
                {"rank": rank, "name": name, **rating_json(rating)}
                for rank, (name, rating) in enumerate(best, start=1)
            ],
            "newcomers": [{"name": name, **rating_json(rating)} for name, rating in newcomers],
        }
    )


async def game_rating(request: Request) -> Response:
    """``GET /api/games/{game_id}/rating``: whether the game is rated, its players'
    accounts, each player's rating in a rated game (as it was before the game once the
    game is settled, as it is now until then), and once it is settled the rating
    changes."""
    game_id = request.path_params["game_id"][:40]
    found = await context_of(request).accounts.game_rating(game_id)
    kind, holders, settled = found.kind, found.holders, found.settlement
    ratings = {
        seat: {"rating": rating, "provisional": provisional}
        for seat, (rating, provisional) in found.ratings.items()
    }
    return JSONResponse(
        {
            "game_id": game_id,
            "rated": kind is not None,
            "players": {seat: account.name for seat, account in holders.items()},
            "ratings": ratings,
            "settlement": None if settled is None else settlement_json(settled),
        }
    )
