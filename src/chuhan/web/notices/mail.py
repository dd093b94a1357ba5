"""The digest mail: what it says (:func:`digest_message`, a plain-text mail listing the
games with their links and the unsubscribe link) and its sending through SMTP
(:func:`send`, aiosmtplib, the ``notices`` extra)."""

from __future__ import annotations

from dataclasses import dataclass
from email.message import EmailMessage
from urllib.parse import quote

from chuhan.web.notices.repository import Claim
from chuhan.web.settings import Settings

__all__ = [
    "MailError",
    "SmtpServer",
    "confirm_message",
    "digest_message",
    "send",
    "unsubscribe_url",
]


class MailError(Exception):
    """A mail could not be sent (the server unreachable, or it refused): says why."""


@dataclass(frozen=True, slots=True)
class SmtpServer:
    host: str
    port: int
    sender: str
    starttls: bool
    user: str | None
    password: str | None
    timeout: float

    @classmethod
    def of(cls, settings: Settings) -> SmtpServer | None:
        """The server the settings name, or None when they name none."""
        if not settings.smtp_host:
            return None
        return cls(
            settings.smtp_host,
            settings.smtp_port,
            settings.smtp_from,
            settings.smtp_starttls,
            settings.smtp_user,
            settings.smtp_password,
            settings.smtp_timeout_seconds,
        )


def unsubscribe_url(public_url: str, token: str) -> str:
    return f"{public_url.rstrip('/')}/notices/unsubscribe?t={quote(token)}"


def digest_message(claim: Claim, sender: str, public_url: str) -> EmailMessage:
    base = public_url.rstrip("/")
    count = len(claim.games)
    lines = [
        f"Hello {claim.name},",
        "",
        f"It is your move in {count} game{'s' if count != 1 else ''}:",
        "",
    ]
    for game in claim.games:
        link = f"{base}/g/{game.game_id}" + (f"?t={quote(game.token)}" if game.token else "")
        opponent = f" against {game.opponent}" if game.opponent else ""
        lines.append(f"- {game.variant}{opponent}: {link}")
    lines += [
        "",
        "To stop these mails, open this link (no need to sign in):",
        unsubscribe_url(public_url, claim.unsubscribe),
    ]
    message = EmailMessage()
    message["From"] = sender
    message["To"] = claim.email
    message["Subject"] = f"chuhan: your move in {count} game{'s' if count != 1 else ''}"
    message.set_content("\n".join(lines) + "\n")
    return message


def confirm_message(
    name: str, email: str, token: str, sender: str, public_url: str
) -> EmailMessage:
    link = f"{public_url.rstrip('/')}/notices/confirm?t={quote(token)}"
    message = EmailMessage()
    message["From"] = sender
    message["To"] = email
    message["Subject"] = "chuhan: confirm your e-mail address"
    message.set_content(
        f"Hello {name},\n\nTo be mailed when it is your move, confirm this address by "
        f"opening this link:\n{link}\n\nIf you did not ask for it, ignore this mail: "
        "nothing is sent to an address that is not confirmed.\n"
    )
    return message


async def send(server: SmtpServer, message: EmailMessage) -> None:
    """Send one mail; :class:`MailError` saying why it could not."""
    import aiosmtplib

    try:
        await aiosmtplib.send(
            message,
            hostname=server.host,
            port=server.port,
            start_tls=server.starttls,
            username=server.user,
            password=server.password,
            timeout=server.timeout,
        )
    except (aiosmtplib.SMTPException, OSError) as error:
        raise MailError(f"the mail server {server.host}:{server.port}: {error}") from None
