"""A kept challenge told to its target who is not in the lobby (issue 24, "challenges to
anyone"), on both stores with a fake clock and no mock in between: a push message at a real
local push endpoint that decrypts it with the subscription's keys, and a line in the e-mail
digest a real local SMTP server receives. Its sender is answered at once whatever the push
service and the mail server do: both may hang or be gone."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_accounts import CHEAP, sign_up
from test_lobby import LobbyClient
from test_notices import Mailbox, body_of, confirm, free_port, look, save
from test_notices import mailbox as mailbox  # (the fixtures)
from test_notices_push import Browser, PushService, SilentService, subscribe
from test_notices_push import push_service as push_service
from web_helpers import FakeClock

MINUTE = 60.0


def notice_client(make_client: Any, smtp_port: int, **extra: Any) -> TestClient:
    """The app with a mail server and pushes to this machine; the test looks when it
    wants (the notices' own look is a day apart)."""
    client: TestClient = make_client(
        **CHEAP,
        smtp_host="127.0.0.1",
        smtp_port=smtp_port,
        smtp_from="chuhan@example.org",
        push_http_localhost=True,
        public_url="https://xq.example",
        notice_away_minutes=15,
        notice_digest_minutes=60,
        notice_push_away_minutes=2,
        notice_sweep_seconds=86400,
        notice_attempts=2,
        notice_backoff_seconds=0,
        notice_retry_minutes=10,
        **extra,
    )
    return client


@pytest.fixture
def lobbies() -> Iterator[list[LobbyClient]]:
    """The lobby connections a test opens, closed after it (even when it fails: an open
    one keeps the app from stopping)."""
    opened: list[LobbyClient] = []
    yield opened
    for member in opened:
        member.close()


def in_lobby(opened: list[LobbyClient], client: TestClient, cookie: str) -> LobbyClient:
    member = LobbyClient(client, cookie)
    opened.append(member)
    member.hello()
    return member


def challenge(member: LobbyClient, to: str, time_control: str) -> str:
    """Send a challenge and take its answer; the challenge's id."""
    seq = member.send("challenge", to=to, variant="xiangqi", time_control=time_control)
    ack = member.expect("ack")
    assert ack["seq"] == seq
    return str(ack["seek"])


def pushes_being_sent(client: TestClient) -> int:
    context = client.app.state.context  # type: ignore[attr-defined]
    return len(context.notices._notifying)


def pushed(client: TestClient, tasks: list[Any] | None = None) -> list[int]:
    """Wait for the pushes the notices have started (each in a task of its own, which
    leaves the notices' set as it ends: a push may be over already, and is then not
    among them; ``tasks`` taken while they ran are all waited for): to how many browsers
    each of the pushes still under way went. What a push did is seen at its service
    and in the log."""
    context = client.app.state.context  # type: ignore[attr-defined]
    waited = list(context.notices._notifying) if tasks is None else tasks

    async def ended() -> list[int]:
        return list(await asyncio.gather(*waited))

    went: list[int] = client.portal.call(ended)  # type: ignore[union-attr]
    return went


def signed_up_with_notices(
    make_client: Any, mailbox: Mailbox, name: str, browser: Browser, language: str
) -> str:
    """An account with its digest on and confirmed and a browser subscribed (the
    confirmation mail goes to ``mailbox``); its cookie."""
    client = notice_client(make_client, mailbox.port)
    cookie = sign_up(client, name)
    assert save(client, cookie, email=f"{name.lower()}@example.org", digest=True).status_code == 200
    confirm(client, mailbox)
    assert subscribe(client, cookie, browser, language).status_code == 200
    return cookie


def test_a_kept_challenge_is_pushed_to_its_absent_target_and_listed_in_the_digest(
    make_client: Any,
    clock: FakeClock,
    mailbox: Mailbox,
    push_service: PushService,
    lobbies: list[LobbyClient],
) -> None:
    mailbox.start()
    bob_browser = Browser(push_service.url("/push/bob"))
    signed_up_with_notices(make_client, mailbox, "Bob", bob_browser, "ko")
    client = notice_client(make_client, mailbox.port)
    cat = sign_up(client, "Cat")
    assert subscribe(client, cat, Browser(push_service.url("/push/cat"))).status_code == 200
    ada = in_lobby(lobbies, client, sign_up(client, "Ada"))
    cat_lobby = in_lobby(lobbies, client, cat)
    challenge(ada, "Cat", "10+5")  # (Cat is in the lobby: the list shows it, no push)
    assert pushes_being_sent(client) == 0
    seek_id = challenge(ada, "Bob", "3d")
    assert pushed(client) in ([], [1])  # (over, or over now)
    assert [d.path for d in push_service.deliveries] == ["/push/bob"]
    message = bob_browser.decrypt(push_service.deliveries[0].body)
    assert message["title"] == "도전이 왔습니다" and message["body"] == "Ada 님이 도전했습니다"
    assert message["url"] == "https://xq.example/"

    # Bob stays away: the digest lists the challenge, once.
    clock.advance(16 * MINUTE)
    assert look(client) == ["bob@example.org"]
    [mail] = [m for m in mailbox.mails if m["To"] == "bob@example.org" and "도전" in m["Subject"]]
    assert mail["Subject"] == "chuhan: 답을 기다리는 도전이 1개 있습니다"
    text = body_of(mail)
    assert "답을 기다리는 도전" in text
    assert "- Ada 님의 샹치, 한 수에 3일 도전, " in text and ": https://xq.example/\n" in text
    clock.advance(2 * 60 * MINUTE)
    assert look(client) == []  # (listed already)
    # A challenge answered before the digest's time is not listed.
    cat_lobby.close()
    ada.send("cancel", seek=seek_id)
    ada.expect("ack")
    withdrawn = challenge(ada, "Bob", "1d")
    assert pushed(client) in ([], [1]) and len(push_service.deliveries) == 2
    ada.send("cancel", seek=withdrawn)
    ada.expect("ack")
    clock.advance(2 * 60 * MINUTE)
    assert look(client) == []


def test_a_challenge_is_answered_at_once_while_the_push_service_and_the_mail_server_hang(
    make_client: Any,
    clock: FakeClock,
    mailbox: Mailbox,
    caplog: pytest.LogCaptureFixture,
    lobbies: list[LobbyClient],
) -> None:
    caplog.set_level(logging.INFO, "chuhan.web")
    mailbox.start()
    silent_push, silent_mail = SilentService(), SilentService()
    try:
        browser = Browser(f"http://127.0.0.1:{silent_push.port}/push/bob")
        signed_up_with_notices(make_client, mailbox, "Bob", browser, "en")
        # (a restart on a mail server and a push service that take the connection and
        # never answer; an hour's timeout, so only closing them ends the sends)
        client = notice_client(
            make_client,
            silent_mail.port,
            push_timeout_seconds=3600,
            smtp_timeout_seconds=3600,
        )
        sign_up(client, "Cat")
        sign_up(client, "Dan")
        ada = in_lobby(lobbies, client, sign_up(client, "Ada"))
        challenge(ada, "Bob", "3d")
        assert silent_push.connected.wait(60), "the push never reached its service"
        assert pushes_being_sent(client) == 1  # (still waiting on the push service)
        challenge(ada, "Cat", "2d")  # (and Ada is answered meanwhile)
        clock.advance(16 * MINUTE)
        context = client.app.state.context  # type: ignore[attr-defined]
        digest = client.portal.start_task_soon(context.notices.sweep)  # type: ignore[union-attr]
        assert silent_mail.connected.wait(60), "the digest never reached its mail server"
        # While the mail and the push wait, Ada withdraws a challenge and sends another.
        ada.send("cancel", seek=challenge(ada, "Dan", "10+5"))
        ada.expect("ack")
        assert not digest.done() and pushes_being_sent(client) == 1
        sending = list(context.notices._notifying)  # (it may end as soon as the service goes)
        silent_push.close()  # (the connection closed, then no one listening: both tries fail)
        silent_mail.close()
        assert pushed(client, sending) == [0]
        assert digest.result(timeout=60) == []
        assert "cannot push a challenge to account" in caplog.text
        assert "cannot send a mail with a digest" in caplog.text
        assert "is tried again in 600 s" in caplog.text
    finally:
        silent_push.close()
        silent_mail.close()


def test_a_challenge_to_a_target_with_no_push_service_left_is_still_answered(
    make_client: Any,
    mailbox: Mailbox,
    lobbies: list[LobbyClient],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A push service that is gone (nothing listens at its port) refuses at once: the
    challenge is kept and answered, the push logged as not sent."""
    mailbox.start()
    gone = Browser(f"http://127.0.0.1:{free_port()}/push/bob")
    signed_up_with_notices(make_client, mailbox, "Bob", gone, "en")
    client = notice_client(make_client, free_port())  # (no mail server there either)
    ada = in_lobby(lobbies, client, sign_up(client, "Ada"))
    caplog.set_level(logging.INFO, "chuhan.web")
    seek_id = challenge(ada, "Bob", "5d")
    assert pushed(client) in ([], [0])  # (over, or over now)
    assert "cannot push a challenge to account" in caplog.text
    assert seek_id in [seek["id"] for seek in ada.wait_seeks(lambda seeks: bool(seeks))]


def test_every_text_of_the_mails_and_pushes_is_in_the_four_languages() -> None:
    from chuhan.web.notices.texts import _TEXTS, LANGUAGES

    english = set(_TEXTS["en"])
    for language in LANGUAGES:
        assert set(_TEXTS[language]) == english, language


@pytest.mark.parametrize(
    ("language", "subject", "line"),
    [
        (
            "en",
            "chuhan: 2 challenges wait for your answer",
            "- Ada challenges you to xiangqi, 3 days per move, until ",
        ),
        ("zh-Hans", "chuhan：有 2 个挑战等你回应", "- Ada 向你发起象棋（每步 3 天）挑战，有效至 "),
        ("zh-Hant", "chuhan：有 2 個挑戰等你回應", "- Ada 向你發起象棋（每步 3 天）挑戰，有效至 "),
        ("ko", "chuhan: 답을 기다리는 도전이 2개 있습니다", "- Ada 님의 샹치, 한 수에 3일 도전, "),
    ],
)
def test_a_digest_of_challenges_only_is_written_in_the_accounts_language(
    language: str, subject: str, line: str
) -> None:
    from chuhan.web.notices.mail import digest_message
    from chuhan.web.notices.repository import Claim, WaitingChallenge

    challenges = (
        WaitingChallenge("s1", "Ada", "xiangqi", 3, 1_800_000_000.0),
        WaitingChallenge("s2", "Cy", "janggi", None, 1_800_086_400.0),
    )
    claim = Claim("a1", "Bob", "bob@example.org", "token", (), language, challenges)
    mail = digest_message(claim, "chuhan@example.org", "https://xq.example")
    assert mail["Subject"] == subject
    text = mail.get_content()
    assert line + "2027-01-15 08:00 UTC" in text and text.count(": https://xq.example/\n") == 2
    assert "2027-01-16 08:00 UTC" in text  # (Cy's, a game on a clock: no days)
