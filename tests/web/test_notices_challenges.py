"""A kept challenge told to its target who is not in the lobby (issue 24, "challenges to
anyone"), and its answer told to its sender who is not (accepted: the push opens the game;
declined; expired, once with two processes sweeping one database), on both stores with a
fake clock and no mock in between: a push message at a real local push endpoint that
decrypts it with the subscription's keys, and a line in the e-mail digest a real local
SMTP server receives. Its sender is answered at once whatever the push service and the
mail server do: both may hang or be gone."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_accounts import CHEAP, Seat, sign_up
from test_lobby import LobbyClient
from test_notices import Mailbox, body_of, confirm, free_port, look, save
from test_notices import mailbox as mailbox  # (the fixtures)
from test_notices_push import Browser, PushService, SilentService, subscribe
from test_notices_push import push_service as push_service
from web_helpers import QUIET_LOBBY, FakeClock, FakeEngine, MakeClient

MINUTE = 60.0


def notice_client(make_client: MakeClient, smtp_port: int, **extra: Any) -> TestClient:
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


def challenge(member: LobbyClient, to: str, time_control: str, **fields: Any) -> str:
    """Send a challenge and take its answer; the challenge's id."""
    seq = member.send("challenge", to=to, variant="xiangqi", time_control=time_control, **fields)
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
    make_client: MakeClient,
    mailbox: Mailbox,
    name: str,
    browser: Browser,
    language: str,
    **extra: Any,
) -> str:
    """An account with its digest on and confirmed and a browser subscribed (the
    confirmation mail goes to ``mailbox``); its cookie."""
    client = notice_client(make_client, mailbox.port, **extra)
    cookie = sign_up(client, name)
    assert save(client, cookie, email=f"{name.lower()}@example.org", digest=True).status_code == 200
    confirm(client, mailbox)
    assert subscribe(client, cookie, browser, language).status_code == 200
    return cookie


def test_a_kept_challenge_is_pushed_to_its_absent_target_and_listed_in_the_digest(
    make_client: MakeClient,
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
    make_client: MakeClient,
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
    make_client: MakeClient,
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


# ---------------------------------------------------------------------- the sender is told

# The lobby's own sweep is quiet (QUIET_LOBBY): the tests sweep when they want (an expiry is
# then told by the sweep the test runs, and its push is among the notices' tasks when it ends).
DAY = 86400.0


def context_of(client: TestClient) -> Any:
    return client.app.state.context  # type: ignore[attr-defined]


def sweep_lobby(client: TestClient) -> None:
    context = context_of(client)
    client.portal.call(context.lobby.sweep)  # type: ignore[union-attr]


def answer(member: LobbyClient, kind: str, seek_id: str) -> dict[str, Any]:
    """Accept or decline a challenge and wait for its ``ack`` (the lobby's work done: a
    notice it hands on is started); the ``paired`` message, or the ``ack``."""
    seq = member.send(kind, seek=seek_id)
    paired = member.expect("paired") if kind == "accept" else {}
    ack = member.expect("ack")
    assert ack["seq"] == seq
    return paired or ack


def test_an_accepted_challenge_is_told_to_its_absent_sender_and_the_push_opens_the_game(
    make_client: MakeClient,
    clock: FakeClock,
    mailbox: Mailbox,
    push_service: PushService,
    lobbies: list[LobbyClient],
) -> None:
    mailbox.start()
    ada_browser = Browser(push_service.url("/push/ada"))
    ada_cookie = signed_up_with_notices(
        make_client, mailbox, "Ada", ada_browser, "zh-Hans", **QUIET_LOBBY
    )
    client = notice_client(make_client, mailbox.port, **QUIET_LOBBY)
    bob_cookie = sign_up(client, "Bob")
    ada = in_lobby(lobbies, client, ada_cookie)
    seek_id = challenge(ada, "Bob", "3d", color="second")
    assert pushed(client) in ([], [0])  # (to Bob, whose pushes are off)
    ada.close()
    sweep_lobby(client)
    bob = in_lobby(lobbies, client, bob_cookie)
    bob.wait_seeks(lambda seeks: seek_id in [seek["id"] for seek in seeks])
    game_id = answer(bob, "accept", seek_id)["game_id"]
    assert pushed(client) in ([], [1])
    [delivery] = push_service.deliveries
    assert delivery.path == "/push/ada"
    message = ada_browser.decrypt(delivery.body)
    assert message["title"] == "挑战已被接受"
    assert message["body"] == "Bob 接受了你的象棋（每步 3 天）挑战"
    context = client.app.state.context  # type: ignore[attr-defined]
    seats = client.portal.call(context.store.seats_of, game_id)  # type: ignore[union-attr]
    assert message["url"] == f"https://xq.example/g/{game_id}?t={seats['second']}"  # (Ada's)
    opened = Seat(client, game_id, seats["second"], ada_cookie)  # (what the link opens)
    assert opened.hello()["role"] == "second"
    opened.close()

    # Ada stays away: her digest tells it once, with the same link (Bob is to move: no
    # game of hers waits).
    clock.advance(16 * MINUTE)
    assert look(client) == ["ada@example.org"]
    [mail] = [m for m in mailbox.mails if m["To"] == "ada@example.org" and "挑战" in m["Subject"]]
    assert mail["Subject"] == "chuhan：你的挑战有了结果"
    text = body_of(mail).replace("\r\n", "\n")
    assert "你发起的挑战有了结果：" in text
    assert f"- Bob 接受了你的象棋（每步 3 天）挑战: {message['url']}\n" in text
    clock.advance(2 * 60 * MINUTE)
    assert look(client) == []


def test_a_declined_and_an_expired_challenge_are_told_to_their_absent_sender(
    make_client: MakeClient,
    clock: FakeClock,
    mailbox: Mailbox,
    push_service: PushService,
    lobbies: list[LobbyClient],
) -> None:
    mailbox.start()
    ada_browser = Browser(push_service.url("/push/ada"))
    ada_cookie = signed_up_with_notices(
        make_client, mailbox, "Ada", ada_browser, "en", **QUIET_LOBBY
    )
    client = notice_client(make_client, mailbox.port, **QUIET_LOBBY)
    bob_cookie, dan_cookie = sign_up(client, "Bob"), sign_up(client, "Dan")
    sign_up(client, "Cat")
    ada = in_lobby(lobbies, client, ada_cookie)
    to_bob = challenge(ada, "Bob", "2d")
    challenge(ada, "Cat", "10+5")
    to_dan = challenge(ada, "Dan", "5d")
    pushed(client)
    # Dan declines while Ada is in the lobby: she is told there, and not pushed.
    dan = in_lobby(lobbies, client, dan_cookie)
    answer(dan, "decline", to_dan)
    assert ada.expect("declined") == {"type": "declined", "seek": to_dan, "by": "Dan"}
    assert pushed(client) == [] and push_service.deliveries == []
    ada.close()
    sweep_lobby(client)
    # Away, she is pushed Bob's decline (the push opens the lobby) and Cat's silence.
    bob = in_lobby(lobbies, client, bob_cookie)
    answer(bob, "decline", to_bob)
    assert pushed(client) in ([], [1])
    declined = ada_browser.decrypt(push_service.deliveries[0].body)
    assert (declined["title"], declined["body"], declined["url"]) == (
        "Challenge declined",
        "Bob declined your challenge (xiangqi, 2 days per move)",
        "https://xq.example/",
    )
    clock.advance(DAY)
    sweep_lobby(client)
    assert pushed(client) in ([], [1])
    expired = ada_browser.decrypt(push_service.deliveries[1].body)
    assert (expired["title"], expired["body"], expired["url"]) == (
        "Challenge expired",
        "Your challenge to Cat (xiangqi) expired unanswered",
        "https://xq.example/",
    )
    assert declined["tag"] != expired["tag"]  # (one notification each)
    assert len(push_service.deliveries) == 2
    # One digest tells both, once (not Dan's: she saw it in the lobby).
    assert look(client) == ["ada@example.org"]
    [mail] = [m for m in mailbox.mails if "news" in m["Subject"]]
    assert mail["Subject"] == "chuhan: news of 2 of your challenges"
    text = body_of(mail).replace("\r\n", "\n")
    assert "What became of your challenges:\n\n" in text
    assert "- Bob declined your challenge (xiangqi, 2 days per move): https://xq.example/\n" in text
    assert "- Your challenge to Cat (xiangqi) expired unanswered: https://xq.example/\n" in text
    assert "Dan" not in text
    clock.advance(2 * 60 * MINUTE)
    assert look(client) == []


def test_an_answer_is_told_as_the_senders_settings_say(
    make_client: MakeClient,
    clock: FakeClock,
    mailbox: Mailbox,
    push_service: PushService,
    lobbies: list[LobbyClient],
) -> None:
    """No push with pushes off, no digest line with the digest off: the answer is kept
    for a digest only when one would tell it."""
    mailbox.start()
    client = notice_client(make_client, mailbox.port, **QUIET_LOBBY)
    ada_cookie, bob_cookie = sign_up(client, "Ada"), sign_up(client, "Bob")
    ada = in_lobby(lobbies, client, ada_cookie)
    seek_id = challenge(ada, "Bob", "3d")
    ada.close()
    sweep_lobby(client)
    bob = in_lobby(lobbies, client, bob_cookie)
    answer(bob, "decline", seek_id)
    assert set(pushed(client)) <= {0} and push_service.deliveries == []
    assert save(client, ada_cookie, email="ada@example.org", digest=True).status_code == 200
    confirm(client, mailbox)
    clock.advance(16 * MINUTE)
    assert look(client) == []  # (nothing kept while her digest was off)


def test_an_expired_challenge_is_told_once_by_two_processes_on_one_database(
    postgres_url: str,
    clock: FakeClock,
    engine: FakeEngine,
    static_dir: Path,
    mailbox: Mailbox,
    push_service: PushService,
) -> None:
    """Two apps on one PostgreSQL database sweep the lobby at the same moment once the
    challenge has expired: each process's copy of the seeks has it, each tries to delete
    it, the one whose ``DELETE`` finds it tells it: one push, one digest line."""
    from chuhan.web.app import create_app
    from chuhan.web.settings import Settings

    mailbox.start()
    settings = Settings(
        **CHEAP,
        smtp_host="127.0.0.1",
        smtp_port=mailbox.port,
        smtp_from="chuhan@example.org",
        push_http_localhost=True,
        public_url="https://xq.example",
        notice_away_minutes=15,
        notice_digest_minutes=60,
        notice_sweep_seconds=86400,
        notice_attempts=2,
        notice_backoff_seconds=0,
        **QUIET_LOBBY,
    )
    apps = [
        TestClient(
            create_app(
                postgres_url, now=clock, compute=engine, static_dir=static_dir, settings=settings
            )
        )
        for _ in range(2)
    ]
    lobbies: list[LobbyClient] = []
    try:
        for app in apps:
            app.__enter__()
        one, two = apps
        ada_browser = Browser(push_service.url("/push/ada"))
        ada_cookie = sign_up(one, "Ada")
        assert save(one, ada_cookie, email="ada@example.org", digest=True).status_code == 200
        confirm(one, mailbox)
        assert subscribe(one, ada_cookie, ada_browser).status_code == 200
        sign_up(two, "Bob")
        ada = in_lobby(lobbies, one, ada_cookie)
        seek_id = challenge(ada, "Bob", "10+5")
        ada.close()
        for app in apps:
            sweep_lobby(app)  # (each reads the seeks: both copies hold the challenge)
        for app in apps:
            seeks = app.app.state.context.lobby.seeks  # type: ignore[attr-defined]
            assert seek_id in seeks
        clock.advance(DAY)
        sweeps = [
            app.portal.start_task_soon(context_of(app).lobby.sweep)  # type: ignore[union-attr]
            for app in apps
        ]
        for done in sweeps:
            done.result(timeout=60)
        for app in apps:
            pushed(app)
        assert [d.path for d in push_service.deliveries] == ["/push/ada"]
        assert ada_browser.decrypt(push_service.deliveries[0].body)["title"] == "Challenge expired"
        clock.advance(16 * MINUTE)
        looks = [
            app.portal.start_task_soon(context_of(app).notices.sweep)  # type: ignore[union-attr]
            for app in apps
        ]
        sent = [address for found in looks for address in found.result(timeout=60)]
        assert sent == ["ada@example.org"]
        [mail] = [
            m for m in mailbox.mails if m["To"] == "ada@example.org" and "news" in m["Subject"]
        ]
        assert body_of(mail).count("expired unanswered") == 1
    finally:
        for member in lobbies:
            member.close()
        for app in reversed(apps):
            app.__exit__(None, None, None)


@pytest.mark.parametrize(
    ("language", "subject", "lines"),
    [
        (
            "en",
            "chuhan: news of 3 of your challenges",
            (
                "- Bob accepted your challenge (xiangqi, 3 days per move): https://xq.example/g/g1?t=k\n",
                "- Cy declined your challenge (janggi): https://xq.example/\n",
                "- Your challenge to Di (xiangqi) expired unanswered: https://xq.example/\n",
            ),
        ),
        (
            "zh-Hans",
            "chuhan：你的 3 个挑战有了结果",
            (
                "- Bob 接受了你的象棋（每步 3 天）挑战: https://xq.example/g/g1?t=k\n",
                "- Cy 拒绝了你的韩国象棋挑战: https://xq.example/\n",
                "- 你向 Di 发起的象棋挑战已过期，未获回应: https://xq.example/\n",
            ),
        ),
        (
            "zh-Hant",
            "chuhan：你的 3 個挑戰有了結果",
            (
                "- Bob 接受了你的象棋（每步 3 天）挑戰: https://xq.example/g/g1?t=k\n",
                "- Cy 拒絕了你的韓國象棋挑戰: https://xq.example/\n",
                "- 你向 Di 發起的象棋挑戰已過期，未獲回應: https://xq.example/\n",
            ),
        ),
        (
            "ko",
            "chuhan: 보낸 도전 3개에 소식이 있습니다",
            (
                "- Bob 님이 도전을 수락했습니다(샹치, 한 수에 3일): https://xq.example/g/g1?t=k\n",
                "- Cy 님이 도전을 거절했습니다(장기): https://xq.example/\n",
                "- Di 님에게 보낸 도전이 답 없이 만료되었습니다(샹치): https://xq.example/\n",
            ),
        ),
    ],
)
def test_a_digest_of_answers_only_is_written_in_the_accounts_language(
    language: str, subject: str, lines: tuple[str, ...]
) -> None:
    from chuhan.web.notices.mail import digest_message
    from chuhan.web.notices.repository import ChallengeAnswer, Claim

    answers = (
        ChallengeAnswer("s1", "accepted", "Bob", "xiangqi", 3, "/g/g1?t=k", 1.0),
        ChallengeAnswer("s2", "declined", "Cy", "janggi", None, "/", 2.0),
        ChallengeAnswer("s3", "expired", "Di", "xiangqi", None, "/", 3.0),
    )
    claim = Claim("a1", "Ada", "ada@example.org", "token", (), language, (), answers)
    mail = digest_message(claim, "chuhan@example.org", "https://xq.example")
    assert mail["Subject"] == subject
    text = mail.get_content()
    for line in lines:
        assert line in text
