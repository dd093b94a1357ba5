"""The e-mail notice settings in the account menu, in a real browser and in Korean: saved,
read back after a reload, and a bad address named."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

import pytest

from .harness import Player, Server, deliver_push, new_player
from .test_accounts import sign_up

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def open_notices(player: Player) -> None:
    page = player.page
    page.click("#account summary")
    page.click("#account-notices summary")


def test_the_notice_settings_are_saved_and_read_back_in_the_account_menu(
    browser: Browser, server: Server, players: list[Player]
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
    browser: Browser, server: Server, players: list[Player]
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
    browser: Browser, server: Server, players: list[Player]
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
    message = {
        "title": "당신 차례입니다",
        "body": "샹치, 상대 Ada",
        "url": "/g/abc",
        "tag": "game-abc",
    }
    shown = deliver_push(page, session, registrations, server.url, message)
    assert shown == [["당신 차례입니다", "샹치, 상대 Ada", "game-abc", "/g/abc"]]
