"""A kept challenge's answer told to its sender who is away (issue 24), in a real browser
and in traditional Chinese: Ada challenges Bob (who is away) from the lobby and leaves the
site; Bob comes and accepts; Ada's push (decrypted at the tests' local push endpoint and
handed to her page's real service worker, as in test_correspondence_days.py) shows
"challenge accepted" with the link to her seat, which opens the game on her side, and her
next digest (a local aiosmtpd server) tells it too."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import pytest

from .harness import POLL_MS, AppServer, Player, new_player
from .test_accounts import sign_up
from .test_correspondence_days import (
    Browser,
    Mailbox,
    Person,
    PushService,
    body_of,
    deliver,
    set_up,
    wait_mail,
)
from .test_correspondence_days import days_server as days_server  # (the fixtures)
from .test_correspondence_days import mailbox as mailbox
from .test_correspondence_days import push_service as push_service
from .test_lobby import seek_line

if TYPE_CHECKING:  # (Browser here is a push subscriber's: test_notices_push.Browser)
    from playwright.sync_api import Browser as Chromium

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

MINUTE = 60.0


def out_of_the_lobby(server: AppServer, name: str) -> None:
    """Wait until the server has seen the account's last lobby socket close, then sweep
    the lobby (which forgets it there at once, as its own sweep would a moment later)."""

    async def still_there(context: Any) -> bool:
        account = await context.accounts.repository.account_by_name(name)
        return f"a:{account.id}" in context.lobby.members

    bound = time.monotonic() + 60  # a bound on a hang only
    while server.call(still_there):
        assert time.monotonic() < bound, f"{name}'s lobby socket never closed"
        time.sleep(POLL_MS / 1000)
    server.call(lambda context: context.lobby.sweep())


def test_an_away_sender_is_pushed_the_acceptance_and_its_link_opens_the_game(
    browser: Chromium,
    days_server: tuple[AppServer, Any],
    mailbox: Mailbox,
    push_service: PushService,
    players: list[Player],
) -> None:
    server, clock = days_server
    ada_player = new_player(players, browser, server, locale="zh-TW")
    ada_player.context.grant_permissions(["notifications"], origin=server.url)
    ada = Person(ada_player, "Ada", Browser(push_service.url("/push/Ada")), "zh-Hant")
    bob = new_player(players, browser, server)
    sign_up(bob, "Bob")
    bob.page.goto("about:blank")  # (Bob is away)
    sign_up(ada_player, "Ada")
    set_up(ada, mailbox)

    # Ada challenges Bob to a game of 3 days per move, playing Black, and leaves the site.
    ada_player.goto("/")
    page = ada_player.page
    page.wait_for_selector('#lobby[data-player="Ada"]:not(.offline)')
    page.select_option("#lobby-tc", "3d")
    page.select_option("#lobby-colour", "second")
    page.fill("#lobby-challenge-name", "Bob")
    page.click("#lobby-challenge")
    page.wait_for_selector('#lobby-seeks li.seek[data-mine="true"]')
    ada_player.goto("/sw.js")  # (no page of the site with a socket open)
    out_of_the_lobby(server, "Ada")

    # Bob comes and accepts: he is taken to the game.
    bob.goto("/")
    bob.page.wait_for_selector('#lobby[data-player="Bob"]:not(.offline)')
    seek_line(bob, "Ada").locator(".seek-accept").click()
    bob.page.wait_for_url("**/g/**")
    game_id = bob.page.url.split("/g/")[1].split("?")[0]

    # Ada's browser is pushed, in her language; the notification opens her seat.
    bound = time.monotonic() + 60  # a bound on a hang only
    while not [d for d in push_service.deliveries if d.path == "/push/Ada"]:
        assert time.monotonic() < bound, "no push reached Ada's push service"
        time.sleep(POLL_MS / 1000)
    [delivery] = [d for d in push_service.deliveries if d.path == "/push/Ada"]
    message = ada.push.decrypt(delivery.body)
    title, body = "挑戰已被接受", "Bob 接受了你的象棋（每步 3 天）挑戰"
    assert (message["title"], message["body"]) == (title, body)
    assert message["url"].startswith(f"{server.url}/g/{game_id}?t=")
    ada_player.goto("/")  # (a page of the site, where her service worker shows it)
    assert [title, body, message["url"]] in deliver(ada, message)
    page.goto(message["url"])
    page.wait_for_selector("svg.board .piece")
    assert ada_player.state()["you"]["role"] == "second"

    # Away a quarter of an hour, her digest tells it too (Bob is to move: no game waits).
    ada_player.goto("/sw.js")
    clock.advance(16 * MINUTE)
    assert server.call(lambda context: context.notices.sweep()) == ["ada@example.org"]
    mail = wait_mail(mailbox, "ada@example.org", "chuhan：你的挑戰有了結果")
    said = body_of(mail).replace("\r\n", "\n")
    assert f"- {body}: {message['url']}\n" in said, said
    # (the page away from the game is /sw.js, for which chromium asks for /favicon.ico)
    not_found = "Failed to load resource: the server responded with a status of 404 (Not Found)"
    assert [e for e in ada_player.errors if e != not_found] == [] and bob.errors == []
