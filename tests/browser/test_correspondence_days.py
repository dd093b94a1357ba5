"""Issue 24's scenario in a real browser, over days of a fake clock: two accounts play a
correspondence game of 2 days per move, and each is told it is their move by the tab's
title and a notification while their tab is in the background, and by a push message and
an e-mail digest while they are away; the opponent sees the days left; a move not made in
time loses the game on time, ended by the deadline driver.

The app runs in this process (harness.AppServer) on a FakeClock the test moves by days, and
each page's clock (Playwright's ``page.clock``) is moved with it, so the pages' countdowns
agree with the server. Mail goes to a real SMTP server (aiosmtpd) on a local port; pushes to
the local push endpoint of tests/web/test_notices_push.py, which decrypts each with the
subscription's keys (this chromium reaches no push service, so the subscription is the
endpoint's: the decrypted message is handed to the page's real service worker through the
DevTools protocol, as a push service would, and the notification it shows is read back with
``registration.getNotifications()``). Headless chromium keeps every tab visible: the tab
the player has left reads ``document.hidden`` as the test sets it, and the notifications
the page makes are counted as the browser shows them (their ``show`` event)."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .harness import AppServer, Player, deliver_push, new_player
from .test_accounts import sign_up
from .test_correspondence import correspondence_game

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "web"))
# (Mailbox, Browser and PushService re-exported: test_challenge_answers imports them from
# here, where tests/web is on the path)
from test_notices import Mailbox as Mailbox
from test_notices import free_port
from test_notices_push import Browser as Browser
from test_notices_push import PushService as PushService
from web_helpers import FakeClock

from chuhan.web.notices.texts import text

if TYPE_CHECKING:  # (Browser here is a push subscriber's: test_notices_push.Browser)
    from playwright.sync_api import Browser as Chromium

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

MINUTE = 60.0
DAY = 86400.0
ARGON2_CHEAP = {"argon2_time_cost": 1, "argon2_memory_kib": 8192, "argon2_parallelism": 1}

# The tab the player has left: document.hidden as the test sets it, and each notification
# the page makes, once the browser shows it.
BACKGROUND_TAB = """
Object.defineProperty(Document.prototype, "hidden", {get: () => Boolean(window.__hidden)});
window.__shown = [];
const BrowserNotification = window.Notification;
window.Notification = class extends BrowserNotification {
  constructor(title, options) {
    super(title, options);
    this.addEventListener("show", () => window.__shown.push([title, options.body]));
  }
};
"""


@pytest.fixture
def days_server(tmp_path: Path, mailbox: Mailbox) -> Iterator[tuple[AppServer, FakeClock]]:
    clock = FakeClock()
    mailbox.start()
    server = AppServer(
        tmp_path / "games.db",
        clock,
        **ARGON2_CHEAP,
        smtp_host="127.0.0.1",
        smtp_port=mailbox.port,
        smtp_from="chuhan@example.org",
        push_http_localhost=True,
        notice_away_minutes=15,
        notice_push_away_minutes=2,
        notice_sweep_seconds=86400,  # (the test looks when it wants)
        notice_backoff_seconds=0,
    )
    server.start()
    yield server, clock
    server.stop()


@pytest.fixture
def mailbox() -> Iterator[Mailbox]:
    box = Mailbox(free_port())
    yield box
    box.stop()


@pytest.fixture
def push_service() -> Iterator[PushService]:
    service = PushService()
    yield service
    service.stop()


class Person:
    """A player's browser, with what it is told outside the board: its push endpoint's
    subscription and its service worker's registration (DevTools)."""

    def __init__(self, player: Player, name: str, endpoint: Browser, language: str) -> None:
        self.player = player
        self.name = name
        self.push = endpoint
        self.language = language
        self.registrations: list[dict[str, Any]] = []
        #: The DevTools session that hears the service worker's registrations.
        self.session: Any = None

    @property
    def page(self) -> Any:
        return self.player.page


def api(person: Person, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """A POST from the person's browser (its session cookie, the site's Origin)."""
    url = person.player.server.url
    response = person.page.request.post(url + path, data=body, headers={"Origin": url})
    assert response.ok, response.text()
    found: dict[str, Any] = response.json() if response.text() else {}
    return found


def set_up(person: Person, mailbox: Mailbox) -> None:
    """The digest on for a confirmed address, the push endpoint subscribed, the service
    worker registered (by the account menu), and notifications on in the game's settings."""
    page = person.page
    email = f"{person.name.lower()}@example.org"
    api(
        person,
        "/api/account/notices",
        {"email": email, "digest": True, "language": person.language},
    )
    mail = wait_mail(mailbox, email, text(person.language, "confirm_subject"))
    link = re.search(r"https?://[^/\s]+(/notices/confirm\?t=\S+)", body_of(mail))
    assert link is not None
    confirmed = person.page.request.post(
        person.player.server.url + link.group(1), headers={"Origin": person.player.server.url}
    )
    # (the page in the account's language, which the link carries)
    said = text(person.language, "page_confirmed_body", email=email)
    assert confirmed.ok and said in confirmed.text(), confirmed.text()
    saved = api(
        person, "/api/account/push", {**person.push.subscription(), "language": person.language}
    )
    assert saved["push"] is True and saved["confirmed"] is True
    session = person.player.context.new_cdp_session(page)
    session.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: person.registrations.extend(event["registrations"]),
    )
    session.send("ServiceWorker.enable")
    person.session = session
    page.click("#account summary")
    page.click("#account-notices summary")
    page.evaluate("async () => { await navigator.serviceWorker.ready; }")
    page.click("#account summary")


def body_of(mail: Any) -> str:
    payload = mail.get_payload(decode=True)
    assert isinstance(payload, bytes)
    return payload.decode()


def wait_mail(mailbox: Mailbox, to: str, subject: str) -> Any:
    def found() -> list[Any]:
        return [m for m in mailbox.mails if m["To"] == to and m["Subject"] == subject]

    with mailbox.arrived:
        assert mailbox.arrived.wait_for(found, timeout=60), f"no mail {subject!r} to {to}"
    return found()[-1]


def turn_notifications_on(person: Person) -> None:
    page = person.page
    page.click("#settings summary")
    page.check("#set-notify")
    page.click("#settings summary")


# A game page's socket is open and has heard from the server within its silence limit.
CONNECTED = """() => {
  const view = window.chuhanApp && window.chuhanApp.view;
  if (!view || !view.connection) return true;
  const connection = view.connection;
  return Boolean(connection.socket) && connection.socket.readyState === 1
    && Date.now() - connection.lastFrameAt < 40000;
}"""


def pass_time(server_clock: FakeClock, people: list[Person], seconds: float) -> None:
    """Time passes for the server and for every page alike. A page whose socket heard
    nothing for that long takes it for dead and connects again (as after a laptop's
    sleep): waited for, so that a move is not made on the dying socket."""
    server_clock.advance(seconds)
    for person in people:
        person.page.clock.fast_forward(int(seconds * 1000))
    for person in people:
        person.page.wait_for_function(CONNECTED)


def deliver(person: Person, message: dict[str, Any]) -> list[Any]:
    """Hand a push message to the person's service worker as a push service would; the
    notifications the worker shows then (:func:`~harness.deliver_push`)."""
    origin = person.player.server.url
    shown = deliver_push(person.page, person.session, person.registrations, origin, message)
    return [[title, body, url] for title, body, _tag, url in shown]


def test_two_accounts_play_over_days_and_are_told_by_title_notification_push_and_mail(
    browser: Chromium,
    days_server: tuple[AppServer, FakeClock],
    mailbox: Mailbox,
    push_service: PushService,
    players: list[Player],
) -> None:
    server, clock = days_server
    people = []
    missing: list[str] = []
    for name, locale, language in (("Red", "en-US", "en"), ("Black", "ko-KR", "ko")):
        player = new_player(players, browser, server, locale=locale)
        player.page.clock.install(time=int(clock() * 1000))
        player.context.grant_permissions(["notifications"], origin=server.url)
        player.context.add_init_script(BACKGROUND_TAB)
        people.append(Person(player, name, Browser(push_service.url(f"/push/{name}")), language))
        player.page.on(
            "response",
            lambda response: missing.append(response.url) if response.status == 404 else None,
        )
    red, black = people
    for person in people:
        sign_up(person.player, person.name)
        set_up(person, mailbox)

    game_id = correspondence_game(red.player, black.player, "2")
    for person in people:
        turn_notifications_on(person)

    # Day 0: Red moves; Black's tab (in Korean) is in the background: its title and a
    # notification.
    black.page.evaluate("window.__hidden = true")
    red.player.click_move("h2e2")
    black.player.wait_ply(1)
    black.page.wait_for_function("() => document.title.startsWith('● 내 차례 · ')")
    black.page.wait_for_function("() => window.__shown.length === 1")
    [[_title, said]] = black.page.evaluate("window.__shown")
    assert said.startswith("내 차례: "), said
    # Red sees the days Black has left.
    red_view = red.page.locator("#bar-top .player-clock")
    red.page.wait_for_function(
        "() => document.querySelector('#bar-top .player-clock').textContent.startsWith('1 d 23 h')"
    )

    # A day passes: both pages count it down.
    pass_time(clock, people, DAY)
    red.page.wait_for_function(
        "() => document.querySelector('#bar-top .player-clock').textContent.startsWith('23 h')"
    )
    assert (red_view.get_attribute("title") or "").startswith("23 h ")
    black.page.wait_for_function(
        "() => document.querySelector('#bar-bottom .player-clock').textContent.startsWith('23')"
    )

    # Black moves; now Red's tab is in the background.
    black.page.evaluate("window.__hidden = false")
    red.page.evaluate("window.__hidden = true")
    black.player.click_move("h9g7")
    red.player.wait_ply(2)
    red.page.wait_for_function("() => document.title.startsWith('● Your move')")
    red.page.wait_for_function("() => window.__shown.length === 1")
    assert red.page.evaluate("window.__shown") == [["chuhan 楚漢", "Your move: H8+7"]]
    black.page.wait_for_function("() => !document.title.startsWith('●')")

    # Red goes away (no page of the site with a socket open): a push and a mail.
    red.player.goto("/sw.js")
    pass_time(clock, people, 16 * MINUTE)
    sent = server.call(lambda context: context.notices.sweep())
    assert sent == ["red@example.org"]
    tell_away(
        red,
        push_service,
        mailbox,
        game_id,
        ("Your move", "xiangqi against Black", "chuhan: your move in 1 game", "against Black"),
    )

    # Red comes back on the second day and moves; Black goes away and is told alike.
    pass_time(clock, people, 6 * 60 * MINUTE)
    red.player.goto(f"/g/{game_id}")
    red.player.wait_ply(2)
    red.player.click_move("h0g2")
    black.player.goto("/sw.js")
    pass_time(clock, people, 16 * MINUTE)
    assert server.call(lambda context: context.notices.sweep()) == ["black@example.org"]
    tell_away(
        black,
        push_service,
        mailbox,
        game_id,
        ("당신 차례입니다", "샹치, 상대 Red", "chuhan: 대국 1개에서 당신 차례입니다", "상대 Red"),
    )

    # Black lets the 2 days pass: the deadline driver ends the game, lost on time (the
    # server's day passes first, so that it is not Red's page that claims the flag).
    clock.advance(2 * DAY)
    assert game_id in server.call(lambda context: context.correspondence.sweep())
    for person in people:  # (then the pages' days)
        person.page.clock.fast_forward(int(2 * DAY * 1000))
    red.page.wait_for_function("() => window.chuhanApp.view.state.status !== 'playing'")
    state = red.player.state()
    assert state["result"]["winner"] == "first", state["result"]
    assert state["last_event"]["kind"] == "flag"
    black.player.goto(f"/g/{game_id}")
    black.page.wait_for_function(
        "() => window.chuhanApp.view.state && window.chuhanApp.view.state.status !== 'playing'"
    )
    # (the page away from the game is /sw.js, for which chromium asks for /favicon.ico:
    # a 404 the page's own requests do not see)
    assert {url.removeprefix(server.url) for url in missing} <= {"/favicon.ico"}
    not_found = "Failed to load resource: the server responded with a status of 404 (Not Found)"
    assert [e for e in red.player.errors + black.player.errors if e != not_found] == []


def tell_away(
    person: Person,
    push_service: PushService,
    mailbox: Mailbox,
    game_id: str,
    words: tuple[str, str, str, str],
) -> None:
    """The away person's push (decrypted at the endpoint, then shown by their service
    worker) and digest name the game and the opponent, in their language: ``words`` are
    the push's title and body, the mail's subject and what its line says."""
    title, body, subject, line = words
    deliveries = [d for d in push_service.deliveries if d.path == f"/push/{person.name}"]
    assert len(deliveries) == 1
    message = person.push.decrypt(deliveries[0].body)
    assert (message["title"], message["body"]) == (title, body)
    assert message["game"] == game_id
    assert message["url"].startswith(f"{person.player.server.url}/g/{game_id}")
    shown = deliver(person, message)
    assert [title, body, message["url"]] in shown
    mail = wait_mail(mailbox, f"{person.name.lower()}@example.org", subject)
    said = body_of(mail)
    assert f"/g/{game_id}" in said and line in said
