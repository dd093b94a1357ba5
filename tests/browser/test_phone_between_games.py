"""Issue 24's pages between games on a phone (390 x 844, a touch screen, tapped), in Korean
and traditional Chinese: a challenge kept for an account that was away, accepted by a tap;
the correspondence game's days-left countdown; "Your games", whose line opens the game where
it is your move; the vacation form; the account menu's notice settings, changed and saved.
On each, nothing is wider than the screen and the controls a person taps are on it."""

from __future__ import annotations

import re
import secrets
from typing import TYPE_CHECKING, Any

import pytest

from .harness import Player, Server, new_player
from .test_accounts import PASSWORD, sign_up
from .test_lobby import seek_line

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

PHONE = {"width": 390, "height": 844}


def phone(players: list[Player], browser: Browser, server: Server, **kwargs: Any) -> Player:
    return new_player(players, browser, server, viewport=PHONE, touch=True, **kwargs)


def assert_fits(player: Player, *selectors: str) -> None:
    """Nothing scrolls sideways, and each control named lies within the screen's width
    (scrolled into view first: a phone's page is taller than its screen)."""
    page = player.page
    width = page.evaluate("window.innerWidth")
    assert width == PHONE["width"]
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= width, f"{page.url}: the page is {scroll_width} px wide on {width}"
    for selector in selectors:
        control = page.locator(selector).first
        control.scroll_into_view_if_needed()
        assert control.is_visible(), f"{selector} is not visible"
        box = control.bounding_box()
        assert box is not None, selector
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (selector, box)
        assert box["width"] > 0 and box["height"] > 0, (selector, box)
        # The control is what a tap at its middle reaches (nothing laid over it).
        reached = page.evaluate(
            """([selector, x, y]) => {
                const control = document.querySelector(selector);
                const top = document.elementFromPoint(x, y);
                return control === top || control.contains(top) || top.contains(control);
            }""",
            [selector, box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
        )
        assert reached, f"{selector} is covered at its middle"


def assert_on_one_line(player: Player, selector: str) -> None:
    """Each element ``selector`` names keeps its text on one line."""
    broken = player.page.evaluate(
        """selector => [...document.querySelectorAll(selector)].filter(node => {
                const range = document.createRange();
                range.selectNodeContents(node);
                const tops = new Set([...range.getClientRects()]
                    .filter(rect => rect.width > 0).map(rect => Math.round(rect.top)));
                return tops.size > 1;
            }).map(node => node.textContent)""",
        selector,
    )
    assert broken == [], f"broken across lines: {broken}"


def assert_top_bar_fits(player: Player) -> None:
    """The top bar's link and menus keep their one-word Korean and Chinese labels whole
    ("분석판", "설정", "分析棋盤" were broken a character or two a line on a phone)."""
    assert_on_one_line(player, ".topbar .topnav a, .topbar > details > summary")
    assert_fits(player, ".topbar .topnav a", "#settings > summary", "#account > summary")


def test_a_phone_accepts_a_kept_challenge_plays_over_days_and_sets_its_notices(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    suffix = secrets.token_hex(3)
    ada_name, bob_name = f"Ada{suffix}", f"Bob{suffix}"
    bob = phone(players, browser, server, locale="ko-KR", address="198.51.100.61")
    sign_up(bob, bob_name)
    bob.page.locator("#account > summary").tap()
    bob.page.locator("#account-signout").tap()
    bob.page.wait_for_selector("#account summary:not(.signed-in)")
    bob.page.goto("about:blank")  # (Bob is away: no page of the site open)

    # Ada, on her phone in traditional Chinese, challenges Bob to 3 days per move.
    ada = phone(players, browser, server, locale="zh-TW", address="198.51.100.62")
    sign_up(ada, ada_name)
    page = ada.page
    page.locator("#account > summary").tap()  # (closes the account menu)
    page.wait_for_selector(f'#lobby[data-player="{ada_name}"]:not(.offline)')
    page.select_option("#lobby-tc", "3d")
    page.select_option("#lobby-colour", "first")
    page.fill("#lobby-challenge-name", bob_name)
    assert_fits(ada, "#lobby-tc", "#lobby-colour", "#lobby-challenge-name", "#lobby-challenge")
    page.locator("#lobby-challenge").tap()
    page.wait_for_selector('#lobby-seeks li.seek[data-mine="true"]')
    assert_fits(ada, '#lobby-seeks li.seek[data-mine="true"]')
    ada.screenshot("phone-kept-challenge-sent-zh-Hant")

    # Bob comes on his phone, in Korean: the kept challenge's accept and decline are on
    # the screen; a tap accepts it.
    bob.goto("/")
    bob.page.locator("#account > summary").tap()
    bob.page.fill("#account-name", bob_name)
    bob.page.fill("#account-password", PASSWORD)
    bob.page.locator("#account-signin").tap()
    bob.page.wait_for_selector(f'#lobby[data-player="{bob_name}"]:not(.offline)')
    line = seek_line(bob, ada_name)
    assert_fits(bob, "#lobby-seeks li.seek .seek-accept", "#lobby-seeks li.seek .seek-decline")
    bob.screenshot("phone-kept-challenge-ko")
    line.locator(".seek-accept").tap()
    for player in (ada, bob):
        player.page.wait_for_url("**/g/**")
        player.page.wait_for_selector("svg.board .piece")
    game_id = bob.page.url.split("/g/")[1].split("?")[0]

    # Ada moves (by taps on the board); Bob's clock counts his days left down.
    ada.wait_my_turn()
    ada.page.touchscreen.tap(*ada.point("h2"))
    ada.page.wait_for_selector('svg.board .dest[data-square="e2"]', state="attached")
    ada.page.touchscreen.tap(*ada.point("e2"))
    bob.wait_ply(1)
    bob.page.wait_for_function(
        "() => /\\d/.test(document.querySelector('#bar-bottom .player-clock').textContent)"
    )
    ada.page.wait_for_function(
        "() => /\\d/.test(document.querySelector('#bar-top .player-clock').textContent)"
    )
    clock = bob.page.text_content("#bar-bottom .player-clock") or ""
    assert re.match(r"2\D+23\D", clock), clock  # (2 days 23 hours, and the day it is due)
    assert_fits(
        bob, "svg.board", "#bar-top", "#bar-bottom .player-clock", "#btn-abort", "#btn-flip"
    )
    # (the days left and the day they end, on one line: "12月2日" was cut in two)
    for player in (ada, bob):
        assert_on_one_line(player, ".player-clock")
    bob.screenshot("phone-correspondence-clock-ko")
    assert_fits(ada, "svg.board", "#bar-top .player-clock", "#bar-bottom .player-clock")
    ada.screenshot("phone-correspondence-clock-zh-Hant")
    assert_top_bar_fits(ada)

    # Bob leaves for the home page, then opens "Your games" from the account menu by taps:
    # the game where it is his move is first, and its line opens his seat.
    bob.goto("/")
    bob.page.locator("#account > summary").tap()
    assert_fits(bob, "#account-your-games", "#account-notices summary", "#account-signout")
    bob.page.locator("#account-your-games").tap()
    bob.page.wait_for_url("**/games")
    first = bob.page.locator("#your-games li").first
    first.wait_for()
    assert first.get_attribute("data-game-id") == game_id
    assert_top_bar_fits(bob)
    assert_fits(bob, "#your-games li a", "#vacation-days", "#vacation-take")
    bob.screenshot("phone-your-games-ko")

    # The vacation form takes a tap: five days of thirty.
    bob.page.fill("#vacation-days", "5")
    bob.page.locator("#vacation-take").tap()
    bob.page.wait_for_selector("#vacation-until")
    assert "30일 중 25일 남음" in (bob.page.text_content("#vacation-left") or "")
    assert_fits(bob, "#vacation-left", "#vacation-until")

    first.locator("a").tap()
    bob.page.wait_for_url(f"**/g/{game_id}")
    bob.page.wait_for_selector("svg.board .piece")
    assert bob.state()["you"]["role"] == "second"

    # The notice settings in the account menu: the e-mail form, the digest's switch and
    # the pushes' state are on the screen; the digest turned on by a tap is saved and
    # read back after a reload.
    bob.goto("/")
    bob.page.locator("#account > summary").tap()
    bob.page.locator("#account-notices summary").tap()
    bob.page.wait_for_selector("#notice-email")
    assert_fits(bob, "#notice-email", "#notice-digest", "#notice-save", "#notice-push-state")
    bob.screenshot("phone-notices-ko")
    bob.page.fill("#notice-email", "bob@example.org")
    if not bob.page.is_checked("#notice-digest"):
        bob.page.locator("#notice-digest").tap()
    bob.page.locator("#notice-save").tap()
    bob.page.wait_for_selector("text=알림 설정을 저장했습니다.")
    bob.goto("/")
    bob.page.locator("#account > summary").tap()
    bob.page.locator("#account-notices summary").tap()
    bob.page.wait_for_function(
        "document.getElementById('notice-email').value === 'bob@example.org'"
    )
    assert bob.page.is_checked("#notice-digest")
    assert_fits(bob, "#notice-unconfirmed", "#notice-save")
    assert ada.errors == [] and bob.errors == []
