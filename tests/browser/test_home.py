"""The home page's one-click starts: the computer at a level, a friend, both sides here, in
the game the toggle picks; the full form stays behind "Custom game"."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from .harness import Player, Server, new_player

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def test_one_click_plays_the_computer_at_the_level_clicked(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    page = player.page
    player.goto("/")
    # The form is not the first thing: it waits, closed, behind "Custom game".
    assert page.is_hidden("#new-game")
    page.click('#quick-levels button[data-level="3"]')
    page.wait_for_url("**/g/**")
    page.wait_for_selector("svg.board .piece")
    page.wait_for_function("() => window.chuhanApp.view && window.chuhanApp.view.state")
    state = player.state()
    assert state["variant"] == "xiangqi"
    assert state["kind"] == "computer" and state["level"] == 3
    assert state["time_control"] is None
    assert player.errors == []


def test_one_click_starts_janggi_games_and_remembers_the_game(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    page = player.page
    player.goto("/")
    page.check('input[name="quick-game"][value="janggi"]')
    page.click('#quick-levels button[data-level="1"]')
    page.wait_for_url("**/g/**")
    page.wait_for_function("() => window.chuhanApp.view && window.chuhanApp.view.state")
    assert player.state()["variant"] == "janggi" and player.state()["level"] == 1

    # The toggle stays on janggi: "Both sides here" starts a janggi game on this screen.
    player.goto("/")
    assert page.is_checked('input[name="quick-game"][value="janggi"]')
    page.click("#quick-local")
    page.wait_for_url("**/g/**")
    page.wait_for_function("() => window.chuhanApp.view && window.chuhanApp.view.state")
    assert player.state()["variant"] == "janggi" and player.state()["kind"] == "local"
    assert player.errors == []


def test_one_click_invites_a_friend(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    host = new_player(players, browser, server)
    page = host.page
    host.goto("/")
    page.check('input[name="quick-game"][value="xiangqi"]')
    page.click("#quick-friend")
    page.wait_for_url("**/g/**")
    page.wait_for_selector("#invite:not([hidden])")
    invite = page.input_value("#invite-url")
    assert "/g/" in invite and "?t=" in invite
    friend = new_player(players, browser, server)
    friend.page.goto(invite)
    friend.page.wait_for_selector("svg.board .piece")
    host.click_move("h2e2")
    friend.wait_ply(1)
    assert friend.state()["kind"] == "friend"
    assert host.errors == [] and friend.errors == []


def test_a_wait_on_an_expression_polls_past_its_first_check_under_the_pages_csp(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    """The pages forbid eval (script-src 'self'); Playwright evaluated an expression's text
    with eval at every poll, so a wait still false at its first check failed in CI. Both
    an expression and a function's text are polled until they hold."""
    player = new_player(players, browser, server)
    page = player.page
    player.goto("/")
    csp = page.evaluate("() => fetch('/').then(r => r.headers.get('content-security-policy'))")
    assert "script-src 'self'" in csp and "unsafe-eval" not in csp
    page.evaluate("() => { window.polls = 0; }")
    page.wait_for_function("++window.polls >= 5")
    page.wait_for_function("(n) => ++window.polls >= n", arg=10)
    assert page.evaluate("() => window.polls") == 10
    assert player.errors == []
