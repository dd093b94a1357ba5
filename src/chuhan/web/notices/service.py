"""The digest of games waiting for an away player, the push of each turn, and their sending.

Every ``notice_sweep_seconds`` each process (:meth:`Notices.sweep`) first marks the
accounts of its open sockets as seen, then claims the digests due
(:func:`~chuhan.web.notices.repository.claim_digests`: one process per digest, a claim
that lapses if its process dies) and sends them, each in its own task, beside the games:
no move waits on the mail server. A digest is tried ``notice_attempts`` times in a row
with a doubling pause; when all fail the server is logged as unreachable and the account
is tried again after ``notice_retry_minutes`` (doubling with each failed round, a day at
most). Nothing is lost meanwhile: the games listed are those moved since the last digest
that went, read again at each try.

The same look claims the turns to push (:func:`~chuhan.web.notices.push.claim_pushes`:
an account with pushes on and no socket seen for ``notice_push_away_minutes``, one push a
game turn) and pushes each to the account's browsers, each in its own task. A browser
whose push service cannot take the message now (unreachable, reset, timed out, 429, 5xx:
:class:`~chuhan.web.notices.push.PushUnavailable`) is tried ``notice_attempts`` times in
all with the same doubling pause (3 tries, 20 s then 40 s: a minute), or the pause its
``Retry-After`` asks when longer, up to ``push_retry_after_max_seconds`` (a service that
asks for more is not tried again now); one that refuses it (another 4xx) is not tried
again; a 404 or 410 forgets the browser at once. A turn that reached no browser is tried
again at a later look (``notice_retry_minutes``, doubling,
:data:`~chuhan.web.notices.push.MAX_ROUNDS` rounds), and the digest carries it meanwhile.
The pauses are the injected ``sleep`` (``asyncio.sleep``; the tests' drives them without
the wall clock); every send is a task of this object's, cancelled and awaited by
:meth:`Notices.aclose`.
:meth:`Notices.notify` pushes one message now (a challenge: "notify account X of Y");
:meth:`Notices.tell_answer` tells a challenge's sender what became of it (pushed now, and
kept for the next digest).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from email.message import EmailMessage
from typing import Any

from chuhan.web.db import Store, StoreError
from chuhan.web.notices.mail import (
    MailError,
    SmtpServer,
    answer_line,
    confirm_message,
    digest_message,
    game_line,
    game_link,
    send,
)
from chuhan.web.notices.push import (
    PushClaim,
    PushError,
    PushGone,
    PushUnavailable,
    Subscription,
    VapidKeys,
    claim_pushes,
    drop_subscription,
    push_done,
    push_failed,
    retry_after_seconds,
    send_push,
    subscriptions_of,
    vapid_keys,
)
from chuhan.web.notices.repository import (
    ChallengeAnswer,
    Claim,
    claim_digests,
    digest_failed,
    digest_sent,
    mark_seen,
    record_answer,
)
from chuhan.web.notices.texts import text
from chuhan.web.settings import Settings
from chuhan.web.sockets.sessions import SessionSockets

__all__ = ["Notices"]

log = logging.getLogger("chuhan.web")

#: Session keys one statement marks seen at most (well under both databases' limits on
#: the parameters of a statement).
SEEN_PER_WRITE = 500
#: The longest pause before an account's digest is tried again.
MAX_RETRY_SECONDS = 86400.0


class Notices:
    """The e-mail digests and the push messages of one server process."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        sessions: SessionSockets,
        now: Callable[[], float],
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.store = store
        self.settings = settings
        self.sessions = sessions
        self.now = now
        #: The pause between two tries of a mail or a push.
        self.sleep = sleep
        self.server = SmtpServer.of(settings)
        self._sweeping: asyncio.Task[None] | None = None
        #: The confirmation mails and the pushes being sent (kept until they end).
        self._confirming: set[asyncio.Task[bool]] = set()
        self._notifying: set[asyncio.Task[int]] = set()
        #: The server's VAPID key pair, once read (or made).
        self._keys: VapidKeys | None = None
        #: Closed (:meth:`aclose`): no send is started any more.
        self._closed = False

    def start(self) -> None:
        # (pushes need no configuration: the look runs with or without a mail server)
        self._sweeping = asyncio.get_running_loop().create_task(self._sweep_forever())

    async def vapid_keys(self) -> VapidKeys:
        """The server's VAPID key pair, made and stored on first need (StoreError)."""
        if self._keys is None:
            self._keys = await self.store.write(vapid_keys(self.now()), "the push keys")
        return self._keys

    def mail_confirmation(self, name: str, email: str, token: str, language: str = "en") -> bool:
        """Send the mail that confirms a new address in a task of its own (the request
        that saved it does not wait), in the account's language; False when no mail
        server is configured."""
        server = self.server
        if server is None or self._closed:
            return False
        message = confirm_message(
            name, email, token, server.sender, self.settings.public_url, language
        )
        task = asyncio.get_running_loop().create_task(self._send(message, f"to confirm {email}"))
        self._confirming.add(task)
        task.add_done_callback(self._confirming.discard)
        return True

    async def _send(self, message: EmailMessage, what: str) -> bool:
        """Send with ``notice_attempts`` tries and a doubling pause; False (logged) when
        every try failed."""
        server = self.server
        assert server is not None
        settings = self.settings
        failure = ""
        for attempt in range(settings.notice_attempts):
            if attempt:
                await self.sleep(settings.notice_backoff_seconds * 2.0 ** (attempt - 1))
            try:
                await send(server, message)
            except MailError as error:
                failure = str(error)
                continue
            return True
        log.warning(
            "cannot send a mail %s (tried %d times): %s", what, settings.notice_attempts, failure
        )
        return False

    async def aclose(self) -> None:
        """Stop the look and every mail and push under way; return once they have ended
        (cancelled, and awaited: none is left running past the store's closing)."""
        self._closed = True
        tasks: list[asyncio.Task[Any]] = [*self._confirming, *self._notifying]
        if self._sweeping is not None:
            tasks.append(self._sweeping)
            self._sweeping = None
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.settings.notice_sweep_seconds)
            try:
                await self.sweep()
            except Exception:  # a look that fails must not stop the next one
                log.exception("a look for e-mail digests to send failed")

    async def sweep(self) -> list[str]:
        """Mark the accounts of this process's sockets as seen, claim the digests due and
        the turns to push, and send them; the addresses the digests went to."""
        settings = self.settings
        now = self.now()
        try:
            keys = self.sessions.keys()
            for start in range(0, len(keys), SEEN_PER_WRITE):
                seen = keys[start : start + SEEN_PER_WRITE]
                await self.store.write(mark_seen(seen, now), "marking players seen")
            pushes = await self.store.write(
                claim_pushes(
                    now,
                    away_seconds=settings.notice_push_away_minutes * 60,
                    claim_seconds=self._claim_seconds(
                        settings.push_timeout_seconds, settings.push_retry_after_max_seconds
                    ),
                ),
                "claiming pushes",
            )
        except StoreError as error:
            log.warning("cannot look for pushes to send now: %s", error)
            pushes = []
        pushing = asyncio.gather(*(self._push_turn(claim) for claim in pushes))
        try:
            return await self._digests(now)
        finally:
            await pushing

    async def _digests(self, now: float) -> list[str]:
        """Claim the digests due and send them; the addresses they went to."""
        if self.server is None:
            return []
        settings = self.settings
        try:
            claims = await self.store.write(
                claim_digests(
                    now,
                    away_seconds=settings.notice_away_minutes * 60,
                    every_seconds=settings.notice_digest_minutes * 60,
                    claim_seconds=self._claim_seconds(settings.smtp_timeout_seconds),
                ),
                "claiming e-mail digests",
            )
        except StoreError as error:
            log.warning("cannot look for e-mail digests now: %s", error)
            return []
        sent = await asyncio.gather(*(self._deliver(claim, now) for claim in claims))
        return [claim.email for claim, went in zip(claims, sent, strict=True) if went]

    def _claim_seconds(self, timeout: float, longest_asked: float = 0.0) -> float:
        """Long enough for every attempt at a digest or a push to end (each pause the
        doubling one, or the longest a service may ask for, whichever is longer)."""
        settings = self.settings
        pauses = sum(
            max(settings.notice_backoff_seconds * 2.0**attempt, longest_asked)
            for attempt in range(settings.notice_attempts - 1)
        )
        return settings.notice_attempts * timeout + pauses + 60

    async def _deliver(self, claim: Claim, claimed_at: float) -> bool:
        server = self.server
        assert server is not None
        message = digest_message(claim, server.sender, self.settings.public_url)
        if not await self._send(message, f"with a digest to account {claim.account_id}"):
            await self._failed(claim)
            return False
        try:
            await self.store.write(digest_sent(claim.account_id, claimed_at), "digest sent")
        except StoreError as error:  # (its claim lapses: the digest may go twice)
            log.warning("a digest went but cannot be recorded: %s", error)
        return True

    async def _failed(self, claim: Claim) -> None:
        settings = self.settings
        try:
            pause = await self.store.write(
                digest_failed(
                    claim.account_id,
                    self.now(),
                    settings.notice_retry_minutes * 60,
                    MAX_RETRY_SECONDS,
                ),
                "recording a digest that failed",
            )
        except StoreError as error:  # (its claim lapses, and the digest is tried again)
            log.warning("a digest failed and cannot be recorded: %s", error)
            return
        log.warning("the digest to account %s is tried again in %.0f s", claim.account_id, pause)

    # ------------------------------------------------------------------ pushes

    async def _push_turn(self, claim: PushClaim) -> None:
        """Push a claimed turn to the account's browsers; record that it went, or that it
        reached none (tried again at a later look)."""
        game = claim.game
        base = self.settings.public_url.rstrip("/")
        message = {
            "title": text(claim.language, "your_move_title"),
            "body": game_line(claim.language, game.variant, game.opponent),
            "url": game_link(base, game),
            "tag": f"game-{game.game_id}",
            "game": game.game_id,
        }
        went = await self._push_all(claim.subscriptions, message, f"game {game.game_id}")
        try:
            if went:
                await self.store.write(
                    push_done(claim.account_id, game.game_id, game.plies), "push sent"
                )
                return
            rounds = await self.store.write(
                push_failed(
                    claim.account_id,
                    game.game_id,
                    game.plies,
                    self.now(),
                    self.settings.notice_retry_minutes * 60,
                ),
                "recording a push that failed",
            )
        except StoreError as error:  # (its claim lapses: the turn is pushed again)
            log.warning("a push cannot be recorded: %s", error)
            return
        log.warning(
            "the push of game %s to account %s reached no browser (round %d); tried again later",
            game.game_id,
            claim.account_id,
            rounds,
        )

    async def _push_all(
        self, subscriptions: tuple[Subscription, ...], message: dict[str, str], what: str
    ) -> int:
        """Push ``message`` to each browser at once; to how many it went."""
        try:
            keys = await self.vapid_keys()
        except StoreError as error:
            log.warning("cannot push %s: %s", what, error)
            return 0
        results = await asyncio.gather(
            *(self._push_one(keys, subscription, message, what) for subscription in subscriptions)
        )
        return sum(results)

    async def _push_one(
        self, keys: VapidKeys, subscription: Subscription, message: dict[str, str], what: str
    ) -> bool:
        """One browser: tried again while its push service cannot take the message now,
        ``notice_attempts`` tries in all, each pause the doubling one or the service's
        ``Retry-After`` when longer (one longer than ``push_retry_after_max_seconds``
        ends the tries); a refusal is not tried again; a subscription its push service
        says is gone is forgotten at once. Whether it went."""
        settings = self.settings
        contact = settings.push_contact or f"mailto:{settings.smtp_from}"
        failure = ""
        for attempt in range(settings.notice_attempts):
            try:
                await send_push(
                    keys,
                    subscription,
                    message,
                    contact=contact,
                    timeout=settings.push_timeout_seconds,
                    loopback=settings.push_http_localhost,
                )
            except PushGone as error:
                log.info("%s; forgotten", error)
                try:
                    await self.store.write(
                        drop_subscription(subscription.endpoint), "forgetting a subscription"
                    )
                except StoreError as store_error:
                    log.warning("cannot forget a gone subscription: %s", store_error)
                return False
            except PushUnavailable as error:
                failure = str(error)
                if attempt + 1 == settings.notice_attempts:
                    break
                pause = settings.notice_backoff_seconds * 2.0**attempt
                asked = retry_after_seconds(error.retry_after, self.now())
                if asked is not None and asked > settings.push_retry_after_max_seconds:
                    log.warning(
                        "cannot push %s: %s, and it asks to wait %.0f s (more than %.0f): "
                        "not tried again now",
                        what,
                        failure,
                        asked,
                        settings.push_retry_after_max_seconds,
                    )
                    return False
                await self.sleep(max(pause, asked or 0.0))
                continue
            except PushError as error:
                log.warning("cannot push %s: %s; not tried again", what, error)
                return False
            return True
        log.warning("cannot push %s (tried %d times): %s", what, settings.notice_attempts, failure)
        return False

    def notify(self, account_id: str, kind: str, url: str, **params: str) -> None:
        """Push one message to the account's browsers now, in a task of its own (the caller
        does not wait; nothing when its pushes are off). ``kind`` names the words, in the
        account's language: ``"challenge"`` (``name=`` the challenger) or ``"your_move"``
        (``game=`` the line naming the game); ``url`` is the page the notification opens
        (a path on this site)."""
        self._start(self._notify(account_id, kind, url, params))

    def tell_answer(self, account_id: str, answer: ChallengeAnswer) -> None:
        """Tell the account what became of a challenge it sent (it is not in the lobby to
        see it), in a task of its own (the caller does not wait): kept for its next
        digest when its digest is on, and pushed to its browsers now when its pushes are
        on (the push opens ``answer.url``: the game an acceptance made, else the lobby)."""
        self._start(self._tell_answer(account_id, answer))

    def _start(self, work: Coroutine[Any, Any, int]) -> None:
        if self._closed:  # (the server is stopping: what it would send is dropped)
            work.close()
            return
        task = asyncio.get_running_loop().create_task(work)
        self._notifying.add(task)
        task.add_done_callback(self._notifying.discard)

    async def _tell_answer(self, account_id: str, answer: ChallengeAnswer) -> int:
        try:
            await self.store.write(record_answer(account_id, answer), "keeping an answer")
        except StoreError as error:  # (the push still goes)
            log.warning("cannot keep the answer to challenge %s: %s", answer.seek_id, error)
        kind = f"challenge_{answer.outcome}"

        def words(language: str) -> tuple[str, str]:
            return text(language, f"{kind}_title"), answer_line(language, answer)

        tag = f"{kind}-{answer.seek_id}"
        return await self._push_words(account_id, kind, words, answer.url, tag)

    async def _notify(self, account_id: str, kind: str, url: str, params: dict[str, str]) -> int:
        def words(language: str) -> tuple[str, str]:
            if kind == "challenge":
                body = text(language, "challenge_body", name=params.get("name", ""))
                return text(language, "challenge_title"), body
            return text(language, "your_move_title"), params.get("game", "")

        return await self._push_words(account_id, kind, words, url, f"{kind}-{url}")

    async def _push_words(
        self,
        account_id: str,
        kind: str,
        words: Callable[[str], tuple[str, str]],
        url: str,
        tag: str,
    ) -> int:
        """Push to the account's browsers (when its pushes are on) a message of ``kind``:
        the title and body ``words`` gives in its language, opening ``url``, its
        notification ``tag``; to how many browsers it went."""
        try:
            found = await self.store.read(subscriptions_of(account_id), "pushes")
        except StoreError as error:
            log.warning("cannot push to account %s: %s", account_id, error)
            return 0
        if found is None:
            return 0
        language, subscriptions = found
        title, body = words(language)
        message = {
            "title": title,
            "body": body,
            "url": self.settings.public_url.rstrip("/") + "/" + url.lstrip("/"),
            "tag": tag,
        }
        return await self._push_all(subscriptions, message, f"a {kind} to account {account_id}")
