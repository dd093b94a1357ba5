"""The digest of games waiting for an away player, and its sending.

Every ``notice_sweep_seconds`` each process (:meth:`Notices.sweep`) first marks the
accounts of its open sockets as seen, then claims the digests due
(:func:`~chuhan.web.notices.repository.claim_digests`: one process per digest, a claim
that lapses if its process dies) and sends them, each in its own task, beside the games:
no move waits on the mail server. A digest is tried ``notice_attempts`` times in a row
with a doubling pause; when all fail the server is logged as unreachable and the account
is tried again after ``notice_retry_minutes`` (doubling with each failed round, a day at
most). Nothing is lost meanwhile: the games listed are those moved since the last digest
that went, read again at each try.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from email.message import EmailMessage

from chuhan.web.db import Store, StoreError
from chuhan.web.notices.mail import (
    MailError,
    SmtpServer,
    confirm_message,
    digest_message,
    send,
)
from chuhan.web.notices.repository import (
    Claim,
    claim_digests,
    digest_failed,
    digest_sent,
    mark_seen,
)
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
    """The e-mail digests of one server process."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        sessions: SessionSockets,
        now: Callable[[], float],
    ) -> None:
        self.store = store
        self.settings = settings
        self.sessions = sessions
        self.now = now
        self.server = SmtpServer.of(settings)
        self._sweeping: asyncio.Task[None] | None = None
        #: The confirmation mails being sent (kept until they end).
        self._confirming: set[asyncio.Task[bool]] = set()

    def start(self) -> None:
        if self.server is not None:
            self._sweeping = asyncio.get_running_loop().create_task(self._sweep_forever())

    def mail_confirmation(self, name: str, email: str, token: str) -> bool:
        """Send the mail that confirms a new address in a task of its own (the request
        that saved it does not wait); False when no mail server is configured."""
        server = self.server
        if server is None:
            return False
        message = confirm_message(name, email, token, server.sender, self.settings.public_url)
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
                await asyncio.sleep(settings.notice_backoff_seconds * 2.0 ** (attempt - 1))
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

    def close(self) -> None:
        for task in list(self._confirming):
            task.cancel()
        if self._sweeping is not None:
            self._sweeping.cancel()
            self._sweeping = None

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.settings.notice_sweep_seconds)
            try:
                await self.sweep()
            except Exception:  # a look that fails must not stop the next one
                log.exception("a look for e-mail digests to send failed")

    async def sweep(self) -> list[str]:
        """Mark the accounts of this process's sockets as seen, claim the digests due and
        send them; the addresses the digests went to."""
        if self.server is None:
            return []
        settings = self.settings
        now = self.now()
        try:
            keys = self.sessions.keys()
            for start in range(0, len(keys), SEEN_PER_WRITE):
                seen = keys[start : start + SEEN_PER_WRITE]
                await self.store.write(mark_seen(seen, now), "marking players seen")
            claims = await self.store.write(
                claim_digests(
                    now,
                    away_seconds=settings.notice_away_minutes * 60,
                    every_seconds=settings.notice_digest_minutes * 60,
                    claim_seconds=self._claim_seconds(),
                ),
                "claiming e-mail digests",
            )
        except StoreError as error:
            log.warning("cannot look for e-mail digests now: %s", error)
            return []
        sent = await asyncio.gather(*(self._deliver(claim, now) for claim in claims))
        return [claim.email for claim, went in zip(claims, sent, strict=True) if went]

    def _claim_seconds(self) -> float:
        """Long enough for every attempt at a digest to end."""
        settings = self.settings
        pauses = settings.notice_backoff_seconds * 2.0**settings.notice_attempts
        return settings.notice_attempts * settings.smtp_timeout_seconds + pauses + 60

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
