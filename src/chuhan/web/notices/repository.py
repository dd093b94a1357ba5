"""The rows of e-mail notices (table ``notice_settings``): an account's address and digest
setting, when a socket of it was last seen, and the digests claimed, sent and failed; and
the answers to an account's kept challenges its next digest tells (``challenge_answers``:
:func:`record_answer`, deleted once a digest listing them went).

Several server processes may look for digests at once: :func:`claim_digests` takes the
accounts due in one transaction (rows locked on PostgreSQL; SQLite's one writer runs the
body alone) and marks them claimed until a time, so one process sends each digest; a
process that dies with a claim leaves it to lapse, and the next look takes it over."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass

from chuhan.web.db.statements import All, Body, Do, One, Row

__all__ = [
    "GAMES_IN_PLAY",
    "ChallengeAnswer",
    "Claim",
    "NoticeSettings",
    "WaitingChallenge",
    "WaitingGame",
    "claim_digests",
    "confirm_address",
    "digest_failed",
    "digest_sent",
    "mark_seen",
    "record_answer",
    "save_settings",
    "settings_of",
    "unsubscribe",
    "waiting_game",
]

#: Accounts one look claims at most.
CLAIMS_PER_LOOK = 50
#: How long an answer waits for a digest at most (the digest turned off meanwhile, or
#: never sent): older ones are deleted when the account's next answer is kept.
ANSWER_KEPT_SECONDS = 30 * 86400.0


@dataclass(frozen=True, slots=True)
class NoticeSettings:
    email: str | None
    confirmed: bool
    digest: bool
    #: Push messages on (the account has subscribed a browser), and to how many browsers.
    push: bool = False
    devices: int = 0
    #: The language of its mails and push messages (a key of texts.LANGUAGES).
    language: str = "en"


@dataclass(frozen=True, slots=True)
class WaitingGame:
    """A game in play where it is the account's move since ``since``."""

    game_id: str
    token: str | None
    opponent: str | None
    variant: str
    since: float
    #: The moves made (the turn: one push a turn).
    plies: int = 0


@dataclass(frozen=True, slots=True)
class WaitingChallenge:
    """A kept challenge to the account, waiting for its answer until ``expires``."""

    seek_id: str
    sender: str
    variant: str
    #: Days per move for a correspondence game, else None.
    days: int | None
    expires: float


@dataclass(frozen=True, slots=True)
class ChallengeAnswer:
    """What became of a kept challenge the account sent: ``outcome`` is ``"accepted"``,
    ``"declined"`` or ``"expired"``, ``name`` the challenged player's, the game asked for
    (``days`` per move for a correspondence game, else None), ``url`` the page that shows
    it (a path: the sender's seat in the game an acceptance made, else the lobby), ``at``
    when."""

    seek_id: str
    outcome: str
    name: str
    variant: str
    days: int | None
    url: str
    at: float


@dataclass(frozen=True, slots=True)
class Claim:
    """A digest one process has claimed: to whom, the unsubscribe token, the games (and
    the challenges sent to the account since its last digest, and the answers to its own
    challenges that no digest told yet)."""

    account_id: str
    name: str
    email: str
    unsubscribe: str
    games: tuple[WaitingGame, ...]
    language: str = "en"
    challenges: tuple[WaitingChallenge, ...] = ()
    answers: tuple[ChallengeAnswer, ...] = ()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def settings_of(account_id: str) -> Body[NoticeSettings]:
    found = yield One(
        "SELECT email, confirmed, digest, push, language, "
        "(SELECT count(*) FROM push_subscriptions s WHERE s.account_id = n.account_id) "
        "AS devices FROM notice_settings n WHERE account_id = ?",
        (account_id,),
    )
    if found is None:
        return NoticeSettings(None, False, False)
    return NoticeSettings(
        found["email"],
        bool(found["confirmed"]),
        bool(found["digest"]),
        bool(found["push"]),
        int(found["devices"]),
        str(found["language"]),
    )


def save_settings(
    account_id: str, email: str | None, digest: bool, now: float, language: str | None = None
) -> Body[str | None]:
    """Store the address and the digest setting (and the language, when given); the
    account is seen now (it is here to save them). A new address is not confirmed: the
    token of the link that confirms it is returned (to be mailed to it), else None."""
    found = yield One(
        "SELECT email FROM notice_settings WHERE account_id = ?", (account_id,), for_update=True
    )
    confirm = None if email is None else new_token()
    if found is None:
        yield Do(
            "INSERT INTO notice_settings (account_id, email, confirm, digest, unsubscribe, seen, "
            "language) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (account_id, email, confirm, int(digest), new_token(), now, language or "en"),
        )
        return confirm
    if language is not None:
        yield Do(
            "UPDATE notice_settings SET language = ? WHERE account_id = ?", (language, account_id)
        )
    if found["email"] == email:
        yield Do(
            "UPDATE notice_settings SET digest = ?, seen = ? WHERE account_id = ?",
            (int(digest), now, account_id),
        )
        return None
    yield Do(
        "UPDATE notice_settings SET email = ?, confirmed = 0, confirm = ?, digest = ?, "
        "seen = ? WHERE account_id = ?",
        (email, confirm, int(digest), now, account_id),
    )
    return confirm


def confirm_address(token: str) -> Body[str | None]:
    """Confirm the address whose confirming link carries ``token``; the address, or None
    for no such token (used already, or the address changed since)."""
    found = yield One(
        "SELECT account_id, email FROM notice_settings WHERE confirm = ?", (token,), for_update=True
    )
    if found is None:
        return None
    yield Do(
        "UPDATE notice_settings SET confirmed = 1, confirm = NULL WHERE account_id = ?",
        (str(found["account_id"]),),
    )
    return str(found["email"])


def mark_seen(session_keys: list[str], now: float) -> Body[int]:
    """The accounts of these sessions (sockets open now) are seen now."""
    if not session_keys:
        return 0
    marks = ", ".join("?" for _ in session_keys)
    changed = yield Do(
        "UPDATE notice_settings SET seen = ? WHERE account_id IN "
        f"(SELECT account_id FROM sessions WHERE key IN ({marks}))",
        (now, *session_keys),
    )
    return int(changed)


#: The accounts whose digest may be due: on, with a confirmed address, away, past their interval
#: and their next try, and claimed by no one.
DUE = """
SELECT n.account_id, n.email, n.unsubscribe, n.sent, n.language, a.name
FROM notice_settings n JOIN accounts a ON a.id = n.account_id
WHERE n.digest = 1 AND n.confirmed = 1 AND n.email IS NOT NULL AND n.seen <= ? AND n.sent <= ?
  AND n.retry_at <= ? AND n.claimed_until <= ?
ORDER BY n.sent
LIMIT ?
"""
#: An account's games in play, with what tells whose move it is.
GAMES_IN_PLAY = """
SELECT ga.seat, g.id, g.variant, g.start_fen, g.moves, g.updated,
       (SELECT s.token FROM seats s WHERE s.game_id = g.id AND s.seat = ga.seat) AS token,
       (SELECT a.name FROM game_accounts o JOIN accounts a ON a.id = o.account_id
        WHERE o.game_id = g.id AND o.seat <> ga.seat) AS opponent
FROM game_accounts ga JOIN games g ON g.id = ga.game_id
WHERE ga.account_id = ? AND g.status = 'playing' AND g.updated > ? AND g.updated <= ?
ORDER BY g.updated
"""


#: The kept challenges to an account (a signed-in sender's, :attr:`Seek.kept` in the
#: lobby's repository) sent in a span of time; the rest of a seek is its ``data``'s JSON.
CHALLENGES_TO = """
SELECT id, data FROM seeks
WHERE target = ? AND account_id IS NOT NULL AND created > ? AND created <= ?
ORDER BY created, id
"""


#: The answers to an account's challenges kept for its digest, up to a time.
ANSWERS_OF = """
SELECT seek_id, outcome, name, variant, days, url, at FROM challenge_answers
WHERE account_id = ? AND at <= ?
ORDER BY at, seek_id
"""


def record_answer(account_id: str, answer: ChallengeAnswer) -> Body[bool]:
    """Keep the answer to a challenge the account sent for its next digest, when its
    digest is on and its address confirmed (else nothing is kept: no digest would tell
    it); whether it was kept. The same challenge's answer is kept once."""
    found = yield One(
        "SELECT account_id FROM notice_settings WHERE account_id = ? AND digest = 1 "
        "AND confirmed = 1 AND email IS NOT NULL",
        (account_id,),
    )
    if found is None:
        return False
    yield Do(
        "DELETE FROM challenge_answers WHERE account_id = ? AND at < ?",
        (account_id, answer.at - ANSWER_KEPT_SECONDS),
    )
    kept = yield Do(
        "INSERT INTO challenge_answers (account_id, seek_id, outcome, name, variant, days, "
        "url, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (account_id, seek_id) DO NOTHING",
        (
            account_id,
            answer.seek_id,
            answer.outcome,
            answer.name,
            answer.variant,
            answer.days,
            answer.url,
            answer.at,
        ),
    )
    return bool(kept)


def answers_of(rows: list[Row]) -> tuple[ChallengeAnswer, ...]:
    return tuple(
        ChallengeAnswer(
            seek_id=str(row["seek_id"]),
            outcome=str(row["outcome"]),
            name=str(row["name"]),
            variant=str(row["variant"]),
            days=None if row["days"] is None else int(row["days"]),
            url=str(row["url"]),
            at=float(row["at"]),
        )
        for row in rows
    )


def waiting_challenges(rows: list[Row], now: float) -> tuple[WaitingChallenge, ...]:
    """The challenges of these ``seeks`` rows that have not expired by ``now``."""
    found = []
    for row in rows:
        data = json.loads(str(row["data"]))
        expires = data.get("expires")
        if expires is None or float(expires) <= now:
            continue
        control = data.get("time_control") or {}
        days = control.get("days")
        found.append(
            WaitingChallenge(
                seek_id=str(row["id"]),
                sender=str(data.get("name") or ""),
                variant=str(data.get("game") or "xiangqi"),
                days=None if not days else int(days),
                expires=float(expires),
            )
        )
    return tuple(found)


def seat_to_move(start_fen: str | None, plies: int) -> str:
    """The seat to move after ``plies`` moves from a start position (red, the first
    seat, moves first unless the FEN says black)."""
    fields = (start_fen or "").split()
    red_first = fields[1] != "b" if len(fields) > 1 else True
    return "first" if red_first == (plies % 2 == 0) else "second"


def waiting_game(row: Row) -> WaitingGame | None:
    plies = len(str(row["moves"] or "").split())
    if seat_to_move(row["start_fen"], plies) != row["seat"]:
        return None
    return WaitingGame(
        game_id=str(row["id"]),
        token=None if row["token"] is None else str(row["token"]),
        opponent=None if row["opponent"] is None else str(row["opponent"]),
        variant=str(row["variant"]),
        since=float(row["updated"]),
        plies=plies,
    )


def claim_digests(
    now: float, away_seconds: float, every_seconds: float, claim_seconds: float
) -> Body[list[Claim]]:
    """Claim the digests due now: each account with the digest on, away for
    ``away_seconds``, sent none for ``every_seconds``, with games where it has been its
    move for ``away_seconds`` and that its last digest did not list, challenges sent
    to it since its last digest that are still waiting, or answers to its own
    challenges that no digest told."""
    due = yield All(
        DUE,
        (now - away_seconds, now - every_seconds, now, now, CLAIMS_PER_LOOK),
    )
    claims = []
    for row in due:
        account_id = str(row["account_id"])
        locked = yield One(
            "SELECT claimed_until FROM notice_settings WHERE account_id = ?",
            (account_id,),
            for_update=True,
        )
        if locked is None or float(locked["claimed_until"]) > now:
            continue  # (another process claimed it meanwhile)
        # (the last digest listed every game waiting then since away_seconds before it)
        listed_before = float(row["sent"]) - away_seconds
        rows = yield All(GAMES_IN_PLAY, (account_id, listed_before, now - away_seconds))
        games = tuple(game for game in map(waiting_game, rows) if game is not None)
        sent = yield All(CHALLENGES_TO, (account_id, float(row["sent"]), now))
        challenges = waiting_challenges(sent, now)
        answers = answers_of((yield All(ANSWERS_OF, (account_id, now))))
        if not games and not challenges and not answers:
            continue
        yield Do(
            "UPDATE notice_settings SET claimed_until = ? WHERE account_id = ?",
            (now + claim_seconds, account_id),
        )
        claims.append(
            Claim(
                account_id,
                str(row["name"]),
                str(row["email"]),
                str(row["unsubscribe"]),
                games,
                str(row["language"]),
                challenges,
                answers,
            )
        )
    return claims


def digest_sent(account_id: str, at: float) -> Body[None]:
    """The digest claimed at ``at`` went: the next lists games moved after it, and the
    answers it told are forgotten."""
    yield Do(
        "UPDATE notice_settings SET sent = ?, failures = 0, retry_at = 0, claimed_until = 0 "
        "WHERE account_id = ?",
        (at, account_id),
    )
    yield Do("DELETE FROM challenge_answers WHERE account_id = ? AND at <= ?", (account_id, at))


def digest_failed(
    account_id: str, now: float, pause_seconds: float, max_pause_seconds: float
) -> Body[float]:
    """The digest could not be sent: tried again after ``pause_seconds``, doubled for each
    failed round before it in a row (``max_pause_seconds`` at most); the pause. Nothing is
    lost: its games are still newer than the last digest that went."""
    found = yield One(
        "SELECT failures FROM notice_settings WHERE account_id = ?", (account_id,), for_update=True
    )
    failures = 0 if found is None else int(found["failures"])
    pause = float(min(pause_seconds * 2.0**failures, max_pause_seconds))
    yield Do(
        "UPDATE notice_settings SET failures = ?, retry_at = ?, claimed_until = 0 "
        "WHERE account_id = ?",
        (failures + 1, now + pause, account_id),
    )
    return pause


def unsubscribe(token: str) -> Body[str | None]:
    """Turn the digest off for the account whose unsubscribe token this is (the token is
    replaced: a link used once no longer works); its name, or None for no such token."""
    found = yield One(
        "SELECT n.account_id, a.name FROM notice_settings n "
        "JOIN accounts a ON a.id = n.account_id WHERE n.unsubscribe = ?",
        (token,),
        for_update=True,
    )
    if found is None:
        return None
    yield Do(
        "UPDATE notice_settings SET digest = 0, unsubscribe = ? WHERE account_id = ?",
        (new_token(), str(found["account_id"])),
    )
    return str(found["name"])
