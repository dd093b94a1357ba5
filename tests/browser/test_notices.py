"""The e-mail notice settings in the account menu, in a real browser and in Korean: saved,
read back after a reload, and a bad address named."""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

import pytest

from .harness import POLL_MS, Player, Server, new_player
from .test_accounts import sign_up

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def open_notices(player: Player) -> None:
    page = player.page
    page.click("#account summary")
    page.click("#account-notices summary")


def test_the_notice_settings_are_saved_and_read_back_in_the_account_menu(
    browser: Any, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server, locale="ko-KR")
    sign_up(player, f"Ada{secrets.token_hex(3)}")
    page = player.page
    page.click("#account summary")
    assert page.text_content("#account-notices summary") == "이메일 알림"
    page.click("#account-notices summary")
    assert "요약 메일" in (page.text_content("#account-notices") or "")
    page.fill("#notice-email", "ada at example")
    page.check("#notice-digest")
    page.click("#notice-save")
    page.wait_for_selector("#notice-error:not([hidden])")
    assert "is not an e-mail address" in (page.text_content("#notice-error") or "")
    page.fill("#notice-email", "ada@example.org")
    page.click("#notice-save")
    page.wait_for_selector("#notice-error[hidden]", state="attached")
    page.wait_for_selector("text=알림 설정을 저장했습니다.")
    player.goto("/")
    open_notices(player)
    page.wait_for_function("document.getElementById('notice-email').value === 'ada@example.org'")
    assert page.is_checked("#notice-digest")
    # (no mail server here: the address stays unconfirmed, and the form says so)
    assert page.is_visible("#notice-unconfirmed")
    assert "아직 확인되지 않았습니다" in (page.text_content("#notice-unconfirmed") or "")


def test_the_page_registers_the_service_worker_and_says_when_push_cannot_subscribe(
    browser: Any, server: Server, players: list[Player]
) -> None:
    """Chromium here reaches no push service (offline): subscribing fails, and the page
    says so in the page's language (simplified Chinese) rather than failing silently."""
    player = new_player(players, browser, server, locale="zh-CN")
    player.context.grant_permissions(["notifications"], origin=server.url)
    sign_up(player, f"Bo{secrets.token_hex(3)}")
    open_notices(player)
    page = player.page
    page.wait_for_selector("#notice-push-state")
    assert page.text_content("#notice-push-state") == "推送消息已关闭。"
    assert page.text_content("#notice-push-on") == "向这个浏览器发送推送消息"
    registered = page.evaluate(
        "async () => { const r = await navigator.serviceWorker.ready;"
        " return [r.scope, r.active.scriptURL]; }"
    )
    assert registered == [server.url + "/", server.url + "/sw.js"]
    page.click("#notice-push-on")
    page.wait_for_selector("#notice-push-error:not([hidden])")
    said = page.text_content("#notice-push-error") or ""
    assert "这个浏览器无法订阅推送消息" in said and "电子邮件汇总仍然有效" in said, said
    assert page.text_content("#notice-push-state") == "推送消息已关闭。"


def test_the_service_worker_shows_a_push_as_a_notification_with_its_game(
    browser: Any, server: Server, players: list[Player]
) -> None:
    """A push message handed to the service worker (by the DevTools protocol, as the push
    service would) becomes a notification with the message's title, body and game link."""
    player = new_player(players, browser, server, locale="ko-KR")
    player.context.grant_permissions(["notifications"], origin=server.url)
    sign_up(player, f"Cy{secrets.token_hex(3)}")
    open_notices(player)
    page = player.page
    session = player.context.new_cdp_session(page)
    registrations: list[dict[str, Any]] = []
    session.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: registrations.extend(event["registrations"]),
    )
    session.send("ServiceWorker.enable")
    page.evaluate("async () => { await navigator.serviceWorker.ready; }")

    def found_now() -> list[dict[str, Any]]:
        return [
            r for r in registrations if r["scopeURL"] == server.url + "/" and not r["isDeleted"]
        ]

    # The DevTools events reach the handler while Playwright waits on something, not
    # necessarily before the evaluate above returns (a CI run saw none yet): wait for them.
    bound = time.monotonic() + 60  # a bound on a hang only, as the pages' waits
    while not found_now() and time.monotonic() < bound:
        page.wait_for_timeout(POLL_MS)
    found = found_now()
    assert found, registrations
    message = {
        "title": "당신 차례입니다",
        "body": "샹치, 상대 Ada",
        "url": "/g/abc",
        "tag": "game-abc",
    }
    push = {
        "origin": server.url,
        "registrationId": found[-1]["registrationId"],
        "data": json.dumps(message, ensure_ascii=False),
    }
    session.send("ServiceWorker.deliverPushMessage", push)
    # (wait_for_function takes a Promise for true: the count is asked until it is one.) A
    # delivery may be dropped while the worker starts (a fresh-clone make test on a loaded
    # machine saw none in 60 s): it is delivered again, as a push service would, every
    # 10 s without a notification; the tag keeps it to one notification.
    count = "async () => (await (await navigator.serviceWorker.ready).getNotifications()).length"
    shown_at = time.monotonic() + 120  # a bound on a hang only
    again_at = time.monotonic() + 10
    while (notifications := page.evaluate(count)) != 1 and time.monotonic() < shown_at:
        if time.monotonic() > again_at:
            session.send("ServiceWorker.deliverPushMessage", push)
            again_at = time.monotonic() + 10
        page.wait_for_timeout(POLL_MS)
    assert notifications == 1, f"{notifications} notifications shown"
    shown = page.evaluate(
        "async () => { const r = await navigator.serviceWorker.ready;"
        " const [n] = await r.getNotifications();"
        " return [n.title, n.body, n.tag, n.data.url]; }"
    )
    assert shown == ["당신 차례입니다", "샹치, 상대 Ada", "game-abc", "/g/abc"]
