"""E-mail digests through a real SMTP server (aiosmtpd on a free local port), on both
stores, with a fake clock: a player away while it is their move gets one mail listing the
game, no second within the interval, an unsubscribe link that works without signing in,
and a mail server that is down costs no player anything: the digest goes once it is back."""

from __future__ import annotations

import email
import email.policy
import re
import socket
import threading
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_accounts import CHEAP, as_, sign_in, sign_up
from test_correspondence import correspondence_game
from web_helpers import FakeClock, MakeClient

from chuhan.web.notices.repository import seat_to_move
from chuhan.web.notices.routes import check_email
from chuhan.web.settings import Settings

MINUTE = 60.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Mailbox:
    """A real SMTP server on a local port, keeping what it is sent (aiosmtpd calls the
    handler's handle_DATA)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.mails: list[Message] = []
        self.controller: Any = None
        self.arrived = threading.Condition()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.arrived:
            self.mails.append(
                email.message_from_bytes(envelope.content, policy=email.policy.default)
            )
            self.arrived.notify_all()
        return "250 OK"

    def wait_for(self, subject: str) -> Message:
        """The last mail with this subject, waited for (it is sent in a task of its own)."""

        def found() -> list[Message]:
            return [m for m in self.mails if m["Subject"] == subject]

        with self.arrived:
            assert self.arrived.wait_for(found, timeout=60), f"no mail {subject!r} in 60 s"
        return found()[-1]

    def start(self) -> None:
        from aiosmtpd.controller import Controller

        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None


@pytest.fixture
def mailbox() -> Any:
    box = Mailbox(free_port())
    yield box
    box.stop()


def mail_client(make_client: MakeClient, port: int) -> TestClient:
    client: TestClient = make_client(
        **CHEAP,
        smtp_host="127.0.0.1",
        smtp_port=port,
        smtp_from="chuhan@example.org",
        public_url="https://xq.example",
        notice_away_minutes=15,
        notice_digest_minutes=60,
        notice_sweep_seconds=86400,  # (the test looks when it wants)
        notice_attempts=2,
        notice_backoff_seconds=0,
        notice_retry_minutes=10,
    )
    return client


def look(client: TestClient) -> list[str]:
    """One look for digests to send (what the process does every notice_sweep_seconds)."""
    context = client.app.state.context  # type: ignore[attr-defined]
    sent: list[str] = client.portal.call(context.notices.sweep)  # type: ignore[union-attr]
    return sent


def sockets_open(client: TestClient) -> int:
    count: int = client.app.state.context.sessions.count()  # type: ignore[attr-defined]
    return count


def save(client: TestClient, cookie: str, **fields: Any) -> Any:
    return client.post("/api/account/notices", json=fields, headers=as_(cookie))


def digests(mailbox: Mailbox) -> list[Message]:
    return [m for m in mailbox.mails if str(m["Subject"]).startswith("chuhan: your move")]


def confirm(client: TestClient, mailbox: Mailbox) -> None:
    """Open the link of the confirmation mail (sent in a task of its own: waited for)."""
    mail = mailbox.wait_for("chuhan: confirm your e-mail address")
    found = re.search(r"https?://[^/\s]+(/notices/confirm\?t=\S+)", body_of(mail))
    assert found is not None
    assert "Confirm this address" in client.get(found.group(1)).text
    done = client.post(found.group(1))
    assert done.status_code == 200 and "is confirmed" in done.text, done.text
    again = client.post(found.group(1))
    assert again.status_code == 400 and "does not confirm an address" in again.text


def body_of(mail: Message) -> str:
    payload = mail.get_payload(decode=True)
    assert isinstance(payload, bytes)
    return payload.decode()


def test_an_away_player_gets_one_digest_and_can_unsubscribe_without_signing_in(
    make_client: MakeClient, clock: FakeClock, mailbox: Mailbox
) -> None:
    mailbox.start()
    client = mail_client(make_client, mailbox.port)
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    saved = save(client, bob, email=" bob@example.org ", digest=True)
    assert saved.status_code == 200, saved.text
    assert saved.json() == {
        **{"email": "bob@example.org", "confirmed": False, "digest": True},
        **{"push": False, "devices": 0, "language": "en"},
    }
    game, red, black = correspondence_game(client, ada, bob, rated=False)
    red.move("h2e2")
    black.wait_state(lambda s: s["ply"] == 1)
    clock.advance(16 * MINUTE)
    assert look(client) == []  # Bob's socket is open: he is here
    black.close()
    assert sockets_open(client) == 1  # (Ada's)
    clock.advance(10 * MINUTE)
    assert look(client) == []  # gone 10 minutes only
    clock.advance(6 * MINUTE)
    assert look(client) == []  # (the address is not confirmed)
    confirm(client, mailbox)
    assert client.get("/api/account/notices", headers=as_(bob)).json()["confirmed"] is True
    assert look(client) == ["bob@example.org"]
    assert len(digests(mailbox)) == 1
    mail = digests(mailbox)[0]
    assert mail["To"] == "bob@example.org" and mail["From"] == "chuhan@example.org"
    assert mail["Subject"] == "chuhan: your move in 1 game"
    text = body_of(mail)
    assert f"https://xq.example/g/{game['game_id']}?t=" in text and "against Ada" in text
    # A second game waits within the hour: no new mail until the hour has passed.
    second, red2, black2 = correspondence_game(client, ada, bob, rated=False)
    black2.close()
    red2.move("h2e2")
    clock.advance(16 * MINUTE)
    assert look(client) == [] and len(digests(mailbox)) == 1
    clock.advance(43 * MINUTE)
    assert look(client) == []  # (59 minutes since the first digest)
    clock.advance(2 * MINUTE)
    assert look(client) == ["bob@example.org"]
    later = body_of(digests(mailbox)[1])
    assert f"/g/{second['game_id']}?t=" in later and game["game_id"] not in later
    # The link in the mail turns the digest off, with no session.
    found = re.search(r"https://xq\.example(/notices/unsubscribe\?t=\S+)", later)
    assert found is not None, later
    link = found.group(1)
    page = client.get(link)
    assert page.status_code == 200 and "Turn the digest off" in page.text
    assert client.get("/api/account/notices", headers=as_(bob)).json()["digest"] is True
    done = client.post(link)
    assert done.status_code == 200 and "Bob will get no more digests" in done.text
    assert client.get("/api/account/notices", headers=as_(bob)).json()["digest"] is False
    again = client.post(link)  # (used once: replaced)
    assert again.status_code == 400 and "not valid" in again.text
    red2.close()
    clock.advance(2 * 60 * MINUTE)
    assert look(client) == [] and len(digests(mailbox)) == 2


def test_a_chinese_account_is_mailed_in_chinese(
    make_client: MakeClient, clock: FakeClock, mailbox: Mailbox
) -> None:
    mailbox.start()
    client = mail_client(make_client, mailbox.port)
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    saved = save(client, bob, email="bob@example.org", digest=True, language="zh-Hans")
    assert saved.status_code == 200 and saved.json()["language"] == "zh-Hans", saved.text
    mail = mailbox.wait_for("chuhan：请确认你的电子邮件地址")
    text = body_of(mail)
    assert text.startswith("Bob，你好：") and "请打开以下链接确认这个地址" in text
    link = re.search(r"https?://[^/\s]+(/notices/confirm\?t=\S+)", text)
    assert link is not None and client.post(link.group(1)).status_code == 200
    game, red, black = correspondence_game(client, ada, bob, rated=False)
    black.close()
    red.move("h2e2")
    clock.advance(16 * MINUTE)
    assert look(client) == ["bob@example.org"]
    digest = mailbox.wait_for("chuhan：有 1 盘棋轮到你走")
    text = body_of(digest)
    assert "以下 1 盘棋轮到你走：" in text
    assert f"- 象棋，对手 Ada: https://xq.example/g/{game['game_id']}?t=" in text
    assert "不想再收到这些邮件，请打开这个链接（无需登录）：" in text
    found = re.search(r"https://xq\.example(/notices/unsubscribe\?t=\S+)", text)
    assert found is not None and found.group(1).endswith("&l=zh-Hans"), text
    page = client.get(found.group(1))
    assert "<h1>停止摘要邮件</h1>" in page.text and "关闭摘要邮件" in page.text
    done = client.post(found.group(1))
    assert done.status_code == 200 and "Bob 将不再收到摘要邮件" in done.text
    red.close()


def test_a_language_that_is_not_one_of_the_four_is_named(make_client: MakeClient) -> None:
    client = make_client(**CHEAP)
    bob = sign_up(client, "Bob")
    response = save(client, bob, email="bob@example.org", language="fr")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "bad_language" and "'fr' is not a language here" in error["message"]


@pytest.mark.parametrize("link", ["/notices/unsubscribe", "/notices/unsubscribe?t=<b>x</b>"])
def test_a_bad_unsubscribe_link_gets_a_clear_page(make_client: MakeClient, link: str) -> None:
    client = make_client(**CHEAP)
    for response in (client.get(link), client.post(link)):
        assert response.status_code == 400
        assert "This unsubscribe link is not valid" in response.text
        assert "<b>" not in response.text


def test_a_mail_server_that_is_down_costs_no_player_anything_and_the_digest_goes_later(
    make_client: MakeClient, clock: FakeClock, mailbox: Mailbox, caplog: pytest.LogCaptureFixture
) -> None:
    mailbox.start()
    client = mail_client(make_client, mailbox.port)
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    assert save(client, bob, email="bob@example.org", digest=True).status_code == 200
    confirm(client, mailbox)
    later = Mailbox(free_port())  # (nothing listens there yet)
    try:
        client = mail_client(make_client, later.port)  # (a restart, on that server)
        game, red, black = correspondence_game(client, ada, bob, rated=False)
        black.close()
        state = red.move("h2e2")
        assert state["ply"] == 1
        clock.advance(16 * MINUTE)
        assert look(client) == []
        assert "cannot send a mail with a digest" in caplog.text and "tried 2 times" in caplog.text
        assert "tried again in 600 s" in caplog.text
        later.start()
        assert look(client) == []  # (tried again in 10 minutes)
        clock.advance(11 * MINUTE)
        assert look(client) == ["bob@example.org"]
        assert len(later.mails) == 1 and game["game_id"] in body_of(later.mails[0])
        clock.advance(90 * MINUTE)
        assert look(client) == [] and len(later.mails) == 1
    finally:
        later.stop()


@pytest.mark.parametrize(
    ("fields", "code", "said"),
    [
        ({"email": "bob", "digest": False}, "bad_email", "'bob' is not an e-mail address"),
        ({"digest": True}, "no_email", "give an e-mail address"),
        ({"email": "a@b.c", "digest": "yes"}, "bad_field", "'digest' must be a bool"),
    ],
)
def test_bad_notice_settings_are_named(
    make_client: MakeClient, fields: dict[str, Any], code: str, said: str
) -> None:
    client = make_client(**CHEAP)
    bob = sign_up(client, "Bob")
    response = save(client, bob, **fields)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == code and said in error["message"], error
    anonymous = client.post("/api/account/notices", json={"digest": False})
    assert anonymous.status_code == 401


def test_addresses_and_turns() -> None:
    assert check_email("  x.y@mail.example.org ") == "x.y@mail.example.org"
    for bad in ("x@y", "x y@z.org", "@z.org", "x@@z.org", "x@" + "a" * 260 + ".org"):
        with pytest.raises(ValueError, match="e-mail address"):
            check_email(bad)
    assert seat_to_move(None, 0) == "first" and seat_to_move(None, 1) == "second"
    assert seat_to_move("9/9/9/9/9/9/9/9/9/9 b - - 0 1", 0) == "second"


def test_chuhan_serve_takes_the_mail_server_from_flags_and_its_password_from_the_env() -> None:
    from chuhan.cli import build_parser, mail_settings
    from chuhan.web.settings import Settings

    args = build_parser().parse_args(
        [
            *("serve", "--smtp-host", "mail.example", "--smtp-port", "587", "--smtp-starttls"),
            *("--smtp-user", "xq", "--public-url", "https://xq.example"),
            *("--notice-away-minutes", "30", "--notice-digest-minutes", "120"),
        ]
    )
    found = mail_settings(args, {"CHUHAN_SMTP_PASSWORD": "s3cret"})
    settings = Settings(**found)
    assert (settings.smtp_host, settings.smtp_port, settings.smtp_starttls) == (
        "mail.example",
        587,
        True,
    )
    assert (settings.smtp_user, settings.smtp_password) == ("xq", "s3cret")
    assert (settings.notice_away_minutes, settings.notice_digest_minutes) == (30, 120)
    assert settings.public_url == "https://xq.example"
    assert mail_settings(build_parser().parse_args(["serve"]), {}) == {}


def test_chuhan_serve_refuses_a_mail_server_without_the_mail_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An operator who names a mail server on an install without the ``notices`` extra is
    told at the start, not by a digest that fails later."""
    import importlib.util

    from chuhan.cli import build_parser, mail_settings
    from chuhan.web.server import ServeError

    found = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *rest: None if name == "aiosmtplib" else found(name, *rest),
    )
    args = build_parser().parse_args(["serve", "--smtp-host", "mail.example"])
    with pytest.raises(ServeError, match=r"--smtp-host mail.example: .*chuhan\[notices\]"):
        mail_settings(args, {})
    assert mail_settings(build_parser().parse_args(["serve"]), {}) == {}


def test_a_deleted_account_leaves_no_address_behind(make_client: MakeClient) -> None:
    from test_accounts import PASSWORD

    from chuhan.web.notices.repository import settings_of

    client = make_client(**CHEAP)
    bob = sign_up(client, "Bob")
    assert save(client, bob, email="bob@example.org", digest=True).status_code == 200
    context = client.app.state.context  # type: ignore[attr-defined]
    portal: Any = client.portal
    account_id = portal.call(context.accounts.repository.account_by_name, "Bob").id

    def stored_email() -> str | None:
        found = portal.call(context.store.read, settings_of(account_id), "test")
        return found.email  # type: ignore[no-any-return]

    assert stored_email() == "bob@example.org"
    deleted = client.post("/api/account/delete", json={"password": PASSWORD}, headers=as_(bob))
    assert deleted.status_code == 200, deleted.text
    assert stored_email() is None


def test_chuhan_db_copy_takes_the_notice_settings_along(
    make_client: MakeClient, db_path: Path, postgres_url: str, clock: FakeClock
) -> None:
    from chuhan.cli import main
    from chuhan.web.app import create_app

    client = make_client(**CHEAP)
    bob = sign_up(client, "Bob")
    assert save(client, bob, email="bob@example.org", digest=True).status_code == 200
    key = client.get("/api/push/key").json()["key"]
    from test_notices_push import Browser

    browser = Browser("https://push.example/bob")
    pushed = client.post("/api/account/push", json=browser.subscription(), headers=as_(bob))
    assert pushed.status_code == 200, pushed.text
    client.__exit__(None, None, None)
    assert main(["db", "copy", str(db_path), postgres_url]) == 0
    app = create_app(postgres_url, now=clock, settings=Settings(**CHEAP))
    with TestClient(app) as again:
        signed_in = sign_in(again, "Bob")  # (the sessions are not copied)
        assert signed_in.status_code == 200, signed_in.text
        bob = signed_in.cookies["chuhan_session"]
        found = again.get("/api/account/notices", headers=as_(bob))
        assert found.status_code == 200, found.text
        assert found.json() == {
            **{"email": "bob@example.org", "confirmed": False, "digest": True},
            **{"push": True, "devices": 1, "language": "en"},
        }
        assert again.get("/api/push/key").json()["key"] == key  # (the browsers' key)


@pytest.mark.parametrize(
    ("link", "header", "lang", "title"),
    [
        ("/notices/unsubscribe?t=x&l=ko", "", "ko", "링크가 올바르지 않습니다"),
        ("/notices/confirm?t=x&l=zh-Hant", "", "zh-TW", "連結無效"),
        ("/notices/confirm?t=x", "zh-CN,zh;q=0.9", "zh-CN", "链接无效"),
        ("/notices/unsubscribe?t=x&l=fr", "zh-HK", "zh-TW", "連結無效"),
        ("/notices/unsubscribe?t=x", "fr, de", "en", "Link not valid"),
    ],
)
def test_the_pages_of_the_mails_links_speak_the_links_or_the_browsers_language(
    make_client: MakeClient, link: str, header: str, lang: str, title: str
) -> None:
    """A link in a mail carries the account's language (``l``); without one, or with one
    not of the four, the browser's Accept-Language decides, else English."""
    client = make_client(**CHEAP)
    page = client.get(link, headers={"accept-language": header} if header else {})
    assert page.status_code == 400
    assert f"<html lang={lang}>" in page.text and f"<h1>{title}</h1>" in page.text
