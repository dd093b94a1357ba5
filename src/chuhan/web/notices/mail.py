"""The digest mail: what it says (:func:`digest_message`, a plain-text mail listing the
games with their links, the challenges waiting for an answer, what became of the
account's own challenges, and the unsubscribe link)
and its sending through SMTP (:func:`send`, aiosmtplib, the ``notices`` extra)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from urllib.parse import quote

from chuhan.web.notices.repository import ChallengeAnswer, Claim, WaitingChallenge, WaitingGame
from chuhan.web.notices.texts import text, variant_name
from chuhan.web.settings import Settings

__all__ = [
    "MailError",
    "SmtpServer",
    "answer_line",
    "challenge_game",
    "challenge_line",
    "confirm_message",
    "digest_message",
    "game_line",
    "game_link",
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


def unsubscribe_url(public_url: str, token: str, language: str = "en") -> str:
    """The digest's unsubscribe link (its page in the account's ``language``)."""
    return f"{public_url.rstrip('/')}/notices/unsubscribe?t={quote(token)}&l={quote(language)}"


def game_line(language: str, variant: str, opponent: str | None) -> str:
    """A game as a mail or a push names it: its variant and the opponent."""
    shown = variant_name(language, variant)
    if opponent is None:
        return shown
    return text(language, "game_against", variant=shown, opponent=opponent)


def challenge_game(language: str, variant: str, days: int | None) -> str:
    """The game a challenge asks for: its variant, and its days per move if any."""
    game = variant_name(language, variant)
    if days is not None:
        game = text(language, "days_per_move", variant=game, days=days)
    return game


def challenge_line(language: str, challenge: WaitingChallenge) -> str:
    """A kept challenge as the digest names it: who, which game, until when (UTC)."""
    game = challenge_game(language, challenge.variant, challenge.days)
    until = datetime.fromtimestamp(challenge.expires, UTC).strftime("%Y-%m-%d %H:%M UTC")
    return text(language, "challenge_line", name=challenge.sender, game=game, until=until)


def answer_line(language: str, answer: ChallengeAnswer) -> str:
    """What became of a challenge the account sent, as the digest and a push say it."""
    game = challenge_game(language, answer.variant, answer.days)
    return text(language, f"challenge_{answer.outcome}", name=answer.name, game=game)


def digest_message(claim: Claim, sender: str, public_url: str) -> EmailMessage:
    """The digest, in the account's language: the games where it is the player's move,
    then the challenges waiting for an answer, then what became of the player's own
    challenges (the subject names the first of these three there is)."""
    base = public_url.rstrip("/")
    language = claim.language
    lines = [text(language, "hello", name=claim.name), ""]
    count = len(claim.games)
    many = "one" if count == 1 else "many"
    if claim.games:
        lines += [text(language, f"digest_intro_{many}", count=count), ""]
        for game in claim.games:
            lines.append(
                f"- {game_line(language, game.variant, game.opponent)}: {game_link(base, game)}"
            )
        subject = text(language, f"digest_subject_{many}", count=count)
    elif claim.challenges:
        asked = len(claim.challenges)
        subject = text(
            language, f"challenges_subject_{'one' if asked == 1 else 'many'}", count=asked
        )
    else:
        told = len(claim.answers)
        subject = text(language, f"answers_subject_{'one' if told == 1 else 'many'}", count=told)
    if claim.challenges:
        if claim.games:
            lines.append("")
        lines += [text(language, "challenges_intro"), ""]
        for challenge in claim.challenges:
            lines.append(f"- {challenge_line(language, challenge)}: {base}/")
    if claim.answers:
        if claim.games or claim.challenges:
            lines.append("")
        lines += [text(language, "answers_intro"), ""]
        for answer in claim.answers:
            lines.append(f"- {answer_line(language, answer)}: {base}/{answer.url.lstrip('/')}")
    lines += [
        "",
        text(language, "unsubscribe"),
        unsubscribe_url(public_url, claim.unsubscribe, language),
    ]
    message = EmailMessage()
    message["From"] = sender
    message["To"] = claim.email
    message["Subject"] = subject
    message.set_content("\n".join(lines) + "\n")
    return message


def game_link(base: str, game: WaitingGame) -> str:
    """The address of a game for its player (with the seat's link when it has one)."""
    return f"{base}/g/{game.game_id}" + (f"?t={quote(game.token)}" if game.token else "")


def confirm_message(
    name: str, email: str, token: str, sender: str, public_url: str, language: str = "en"
) -> EmailMessage:
    """The mail whose link confirms a new address, in the account's language."""
    link = f"{public_url.rstrip('/')}/notices/confirm?t={quote(token)}&l={quote(language)}"
    message = EmailMessage()
    message["From"] = sender
    message["To"] = email
    message["Subject"] = text(language, "confirm_subject")
    message.set_content(
        f"{text(language, 'hello', name=name)}\n\n{text(language, 'confirm_body')}\n{link}"
        f"\n\n{text(language, 'confirm_ignore')}\n"
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
