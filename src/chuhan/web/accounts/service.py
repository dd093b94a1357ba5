"""Accounts: the rules of names and passwords, password hashes (Argon2, off the event
loop), the session cookie, sign-in limits, and the seat a signed-in player takes.

**Sessions.** Signing in makes a random session id (256 bits); the cookie carries it with
an HMAC-SHA-256 signature made with a secret kept in the store
(:meth:`AccountRepository.shared_secret`,
so every server process on one database signs and checks alike), and the store keeps the
session under the SHA-256 of the id. A request's account is found by checking the
signature (a tampered cookie is refused before the store is asked) and then reading the
session from the store: signing out deletes it, so a replayed cookie finds nothing on any
process. An account has at most ``sessions_per_account`` sessions: a sign-in beyond it ends
the oldest. A session that ends (signed out, the other sessions of a new password, an
account deleted, the oldest beyond the bound) closes the websockets opened with it, on
every process (:meth:`AccountService.sessions_ended`, :mod:`chuhan.web.sockets.sessions`):
a socket stops acting as its account the moment its session ends. The cookie is
``HttpOnly`` (no script reads it), ``SameSite=Lax`` (a cross-site form cannot post with it;
the account endpoints also refuse a foreign ``Origin``) and ``Secure`` when the page came
over HTTPS.

**Limits.** Sign-ins are counted per name and per address, sign-ups per address and per
name, in the store (:meth:`AccountRepository.take_attempt`), so they hold across processes: a
sign-in that succeeds is forgiven, so only failures and attempts in flight use up the
limit. The owner is not locked out by someone else's guesses: a browser that has held a
session of the account (its signed ``chuhan_known`` cookie) is counted by itself instead
of by the name. The current password asked before a password change or a deletion is
counted like a sign-in (per account and per address).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import logging
import secrets
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from disarm import Script, detect_scripts
from starlette.requests import HTTPConnection

from chuhan.web.accounts.glicko2 import DEFAULT_DEVIATION, DEFAULT_RATING
from chuhan.web.accounts.ratings import is_provisional
from chuhan.web.accounts.repository import (
    Account,
    AccountRepository,
    Settlement,
    name_skeleton,
    network_of,
)
from chuhan.web.bus import Bus
from chuhan.web.db import Store, StoreError
from chuhan.web.http.clients import SESSION_COOKIE
from chuhan.web.settings import Settings
from chuhan.web.sockets.sessions import SESSION_NOTICE, SessionSockets, session_key

if TYPE_CHECKING:
    from argon2 import PasswordHasher

__all__ = [
    "KNOWN_COOKIE",
    "MAX_NAME_CHARS",
    "MAX_PASSWORD_CHARS",
    "MIN_NAME_CHARS",
    "MIN_PASSWORD_CHARS",
    "SESSION_COOKIE",
    "AccountRuleError",
    "AccountService",
    "check_name",
    "check_password",
]

log = logging.getLogger("chuhan.web")

#: The cookie of a browser that has held a session of an account (see
#: :meth:`AccountService.known_browser`): kept for a year, across sign-outs.
KNOWN_COOKIE = "chuhan_known"
#: A name: 3 to 20 letters (any script), digits, ``_`` or ``-``, none of them invisible
#: (a letter whose UTS #39 skeleton is empty, such as U+3164 HANGUL FILLER), and not
#: looking like another account's name (one skeleton: the repository's unique index).
MIN_NAME_CHARS = 3
MAX_NAME_CHARS = 20
#: A password: 8 to 200 characters (a longer one is refused before it is hashed).
MIN_PASSWORD_CHARS = 8
MAX_PASSWORD_CHARS = 200
#: The name of the session secret in the store.
SECRET_NAME = "session_secret"
_LETTERS = {"Lu", "Ll", "Lt", "Lm", "Lo", "Nd"}
#: The scripts a name may mix (UTS #39's "highly restrictive" level): one script alone, or
#: Latin with the scripts of Chinese, Japanese or Korean writing. A name that mixes Latin
#: with Cyrillic or Greek (``Viсtim01`` with a Cyrillic ``с``) is how look-alikes are
#: made, and the skeletons do not list every pair of letters that look alike, so the mix
#: itself is refused (UTS #39, section 5.2).
_SCRIPT_MIXES = (
    frozenset((Script.LATIN, Script.HAN, Script.HIRAGANA, Script.KATAKANA)),
    frozenset((Script.LATIN, Script.HAN, Script.BOPOMOFO)),
    frozenset((Script.LATIN, Script.HAN, Script.HANGUL)),
)


class AccountRuleError(ValueError):
    """A name or a password that breaks the rules; the message says which rule."""


def _described(char: str) -> str:
    """A character a name may not have, in words a person reads: a space as a space, a
    symbol as itself, and what would not show (a control, a right-to-left override, a
    zero-width joiner) by its code point only."""
    category = unicodedata.category(char)
    if category == "Zs":  # (the name is NFKC: a full-width space is a plain one)
        return "a space"
    if category[0] in "CZ":
        return f"a control or formatting character (U+{ord(char):04X}), which does not show"
    return f"'{char}', which is not a letter, a digit, '_' or '-'"


def check_name(name: str) -> str:
    """The name as it is kept (NFKC: full-width letters become plain ones), or
    :class:`AccountRuleError` naming the rule it breaks (a character shown by its code point,
    never as itself: it may be a control, a right-to-left override or an invisible
    filler). Whether it looks like a name already taken is the store's to say."""
    if len(name) > 4 * MAX_NAME_CHARS:
        raise AccountRuleError(f"'name' is {len(name)} characters long; at most {MAX_NAME_CHARS}")
    kept = unicodedata.normalize("NFKC", name)
    for char in kept:
        if unicodedata.category(char) not in _LETTERS and char not in "_-":
            raise AccountRuleError(
                f"'name' has {_described(char)}; use letters, digits, '_' or '-'"
            )
    for char in name:  # (as typed: U+FFA0 and U+3164 are fillers before NFKC and after)
        if not name_skeleton(char):  # a letter that shows nothing: a Hangul filler
            raise AccountRuleError(
                f"'name' has a character that shows nothing (U+{ord(char):04X}); use "
                "letters, digits, '_' or '-' that can be seen"
            )
    scripts = set(detect_scripts(kept))
    if len(scripts) > 1 and not any(scripts <= allowed for allowed in _SCRIPT_MIXES):
        *most, last = sorted(script.name.title() for script in scripts)
        shown = f"{', '.join(most)} and {last}"
        raise AccountRuleError(
            f"'name' mixes the {shown} scripts; write it in one script (Latin may go with "
            "Chinese, Japanese or Korean)"
        )
    if not MIN_NAME_CHARS <= len(kept) <= MAX_NAME_CHARS:
        raise AccountRuleError(
            f"'name' must be {MIN_NAME_CHARS} to {MAX_NAME_CHARS} characters, got {len(kept)}"
        )
    if kept[0] in "_-":
        raise AccountRuleError("'name' must begin with a letter or a digit")
    return kept


def check_password(password: str, what: str = "password") -> None:
    """:class:`AccountRuleError` when the password is too short or too long."""
    if not MIN_PASSWORD_CHARS <= len(password) <= MAX_PASSWORD_CHARS:
        raise AccountRuleError(
            f"'{what}' must be {MIN_PASSWORD_CHARS} to {MAX_PASSWORD_CHARS} characters, "
            f"got {len(password)}"
        )


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass(frozen=True, slots=True)
class GameRating:
    """What a game's page and its record say of its rating: the game it is rated in
    (None: not rated), the accounts holding its seats, the settlement once settled, and
    each seat's rating in a rated game, ``(rating, provisional)``: as it is until the game
    is settled, then as it was before it (provisional as it stands after the game: the
    deviation before it is not kept)."""

    kind: str | None
    holders: dict[str, Account]
    settlement: Settlement | None
    ratings: dict[str, tuple[int, bool]]


@dataclass
class AccountService:
    """One server's accounts: the hasher, the session secret (read from the store at
    start: :meth:`start`) and the store."""

    settings: Settings
    store: Store
    #: The bus that tells the other processes which sessions ended, and this process's
    #: sockets by session (None: nobody to tell).
    bus: Bus | None = None
    sockets: SessionSockets | None = None
    _secret: bytes = b""
    _hasher: PasswordHasher | None = None
    #: Hashes computed at once (each takes ``argon2_memory_kib`` of memory).
    _hashing: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(2))
    _dummy_hash: str = ""
    #: The accounts' transactions (:mod:`chuhan.web.accounts.repository`).
    repository: AccountRepository = field(init=False)

    def __post_init__(self) -> None:
        self.repository = AccountRepository(self.store)

    async def game_rating(self, game_id: str) -> GameRating:
        """Whether the game is rated, by whom its seats are held and their ratings."""
        repository = self.repository
        kind = await repository.rated_kind(game_id)
        holders = await repository.game_accounts(game_id)
        settled = await repository.settlement(game_id) if kind is not None else None
        ratings: dict[str, tuple[int, bool]] = {}
        if settled is not None:
            for seat, change in settled.changes.items():
                ratings[seat] = (round(change.before), is_provisional(change.deviation))
        elif kind is not None:
            for seat, account in holders.items():
                found = (await repository.ratings_of(account.id)).get(kind)
                rating = found.rating if found else DEFAULT_RATING
                deviation = found.deviation if found else DEFAULT_DEVIATION
                ratings[seat] = (round(rating), is_provisional(deviation))
        return GameRating(kind, holders, settled, ratings)

    async def start(self) -> None:
        from argon2 import PasswordHasher

        settings = self.settings
        self._hasher = PasswordHasher(
            time_cost=settings.argon2_time_cost,
            memory_cost=settings.argon2_memory_kib,
            parallelism=settings.argon2_parallelism,
        )
        secret = await self.repository.shared_secret(SECRET_NAME, secrets.token_hex(32))
        self._secret = secret.encode()
        await self.repository.fill_name_skeletons()
        self._dummy_hash = await self.hash_password(secrets.token_hex(16))

    # ------------------------------------------------------------------ passwords

    def _the_hasher(self) -> PasswordHasher:
        if self._hasher is None:
            raise RuntimeError("AccountService.start() was not called")
        return self._hasher

    async def hash_password(self, password: str) -> str:
        hasher = self._the_hasher()
        async with self._hashing:
            return await asyncio.to_thread(hasher.hash, password)

    async def verify_password(self, account: Account | None, password: str) -> bool:
        """Whether ``password`` is the account's; an unknown account (None) takes as long
        as a known one, so the time does not tell which names exist."""
        from argon2.exceptions import Argon2Error, InvalidHashError

        hasher = self._the_hasher()
        stored = account.password_hash if account is not None else self._dummy_hash
        async with self._hashing:
            try:
                await asyncio.to_thread(hasher.verify, stored, password)
            except (Argon2Error, InvalidHashError):
                return False
        return account is not None

    # ------------------------------------------------------------------ sessions

    def _signature(self, session_id: str) -> str:
        return _b64(hmac.new(self._secret, session_id.encode(), hashlib.sha256).digest())

    def session_id(self, cookie: str | None) -> str | None:
        """The session id of a cookie value whose signature is right, else None."""
        if not cookie or len(cookie) > 200 or cookie.count(".") != 1:
            return None
        session_id, signature = cookie.split(".")
        if not hmac.compare_digest(signature, self._signature(session_id)):
            return None
        return session_id

    async def start_session(self, account: Account, now: float) -> str:
        """Store a new session of the account (its oldest ends when it has
        ``sessions_per_account`` with this one); the cookie value that carries it."""
        session_id = secrets.token_urlsafe(32)
        settings = self.settings
        expires = now + settings.session_days * 86400
        ended = await self.repository.create_session(
            session_key(session_id), account.id, now, expires, settings.sessions_per_account
        )
        await self.sessions_ended(ended)
        return f"{session_id}.{self._signature(session_id)}"

    async def sessions_ended(self, keys: list[str]) -> None:
        """Sessions ``keys`` (store keys) ended: the sockets opened with them are closed,
        this process's at once and the other processes' by a ``session`` notice (one that
        cannot be sent is made up by their next sweep: ``session_sweep_seconds``)."""
        if not keys:
            return
        if self.sockets is not None:
            self.sockets.end(keys)
        if self.bus is None:
            return
        for data in SessionSockets.notices(keys):
            try:
                await self.bus.notify("", SESSION_NOTICE, data)
            except StoreError as error:
                log.warning("cannot tell the other servers that sessions ended: %s", error)
                return

    async def account_of(self, connection: HTTPConnection, now: float) -> Account | None:
        """The account signed in on the request or websocket, or None."""
        return await self.account_of_cookie(connection.cookies.get(SESSION_COOKIE), now)

    async def account_of_cookie(self, cookie: str | None, now: float) -> Account | None:
        """The account a session cookie's value signs in, or None."""
        session_id = self.session_id(cookie)
        if session_id is None:
            return None
        return await self.repository.session_account(session_key(session_id), now)

    def session_of(self, connection: HTTPConnection) -> str | None:
        """The store key of the request's session (signature checked), or None."""
        session_id = self.session_id(connection.cookies.get(SESSION_COOKIE))
        return None if session_id is None else session_key(session_id)

    # ------------------------------------------------------------------ known browsers

    def known_browser(self, account: Account) -> str:
        """The value of the cookie a browser keeps once it has held a session of
        ``account`` (``KNOWN_COOKIE``): the account's id, a random tag and their
        signature. The sign-in limit per name does not lock that browser out."""
        tag = secrets.token_urlsafe(12)
        return f"{account.id}~{tag}.{self._signature(f'known:{account.id}~{tag}')}"

    def known_tag(self, connection: HTTPConnection, account: Account | None) -> str | None:
        """The browser's tag when it has held a session of ``account`` (its known-browser
        cookie is signed and names that account), else None."""
        cookie = connection.cookies.get(KNOWN_COOKIE)
        if account is None or not cookie or len(cookie) > 200 or cookie.count(".") != 1:
            return None
        body, signature = cookie.split(".")
        if not hmac.compare_digest(signature, self._signature(f"known:{body}")):
            return None
        owner, _, tag = body.partition("~")
        return tag if owner == account.id and tag else None

    def cookie_options(self, connection: HTTPConnection) -> dict[str, Any]:
        secure = connection.url.scheme in ("https", "wss")
        if self.settings.trust_proxy:
            secure = secure or connection.headers.get("x-forwarded-proto", "") == "https"
        return {
            "httponly": True,
            "samesite": "lax",
            "secure": secure,
            "path": "/",
        }

    # ------------------------------------------------------------------ seats

    async def claim_seat(
        self, cookie: str | None, game_id: str, seat: str, now: float, address: str = ""
    ) -> tuple[str | None, str | None, bool]:
        """A player with a seat's token joins (``cookie``: the session cookie the
        websocket came with; ``address``: the client's address): a signed-in player takes
        the seat for the account if no account holds it (and the account does not hold the
        other seat). Returns why the player may not sit (a rated game's empty seat needs an
        account other than the opponent's, and its seats once taken need their accounts) or
        None; the name the seat shows: the account's name when it took the seat now, and
        in a rated game always the account's (its holder's), whatever name the player
        gave; and whether the game is rated (then that name is the only one the seat
        shows). A rated seat's network is kept for the rating rules."""
        holders = await self.repository.game_accounts(game_id)
        holder = holders.get(seat)
        network = network_of(address)
        if holder is not None:
            if not await self.repository.is_rated(game_id):
                return None, None, False  # (the token opens the seat, as it always did)
            # A rated game's seat is its account's: a seat link that leaked (or a shared
            # computer's history) must not let someone else play, or lose, its rating.
            account = await self.account_of_cookie(cookie, now)
            if account is not None and account.id == holder.id:
                if network is not None:
                    await self.repository.played_from(game_id, seat, network)
                return None, holder.name, True
            return (
                f"this seat of a rated game belongs to {holder.name}: sign in as "
                f"{holder.name} to play it",
                None,
                True,
            )
        account = await self.account_of_cookie(cookie, now)
        other = holders.get("second" if seat == "first" else "first")
        allowed = account is not None and (other is None or other.id != account.id)
        rated = await self.repository.is_rated(game_id)
        if allowed and account is not None:
            taker = await self.repository.attach_account(game_id, seat, account.id, network)
            return None, account.name if taker == account.id else None, rated
        if not rated:
            return None, None, False
        if account is None:
            return "this is a rated game: sign in to take your seat", None, True
        return (
            "this is a rated game and your account holds the other seat: sign in as "
            "another player to take this one",
            None,
            True,
        )
