"""Correspondence games in a real browser: two accounts start games of days per move from the
home page's form; the game page shows the days left and the date the move is due, not a
ticking clock; "Your games" lists the game where it is the player's move first, although
another game moved since."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

import pytest

from .harness import Player, Server, new_player, open_custom_game
from .test_accounts import sign_up

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def correspondence_game(red: Player, black: Player, days: str, *, rated: bool = False) -> str:
    """Red starts a friend game of ``days`` days per move; Black joins by the invite."""
    page = red.page
    red.goto("/")
    open_custom_game(page)
    page.check('input[name="tc"][value="correspondence"]')
    page.wait_for_selector("#tc-correspondence:not([hidden])")
    page.select_option("#corr-days", days)
    page.check('input[name="kind"][value="friend"]')
    if rated:
        page.wait_for_selector("#rated-row:not([hidden])")
        page.check("#rated")
    page.select_option("#colour", "first")
    page.click("#create")
    page.wait_for_url("**/g/**")
    page.wait_for_selector("#invite:not([hidden])")
    invite = page.input_value("#invite-url")
    black.page.goto(invite)
    black.page.wait_for_selector("svg.board .piece")
    return page.url.split("/g/")[1].split("?")[0]


def test_your_games_lists_your_move_first(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    suffix = secrets.token_hex(3)
    red = new_player(players, browser, server, address="198.51.100.31")
    black = new_player(players, browser, server, address="198.51.100.32")
    sign_up(red, f"Red{suffix}")
    sign_up(black, f"Black{suffix}")

    waiting = correspondence_game(red, black, "3", rated=True)
    red.click_move("h2e2")
    black.wait_ply(1)
    # Black's clock shows the days left and the date, Red's the days per move.
    bottom = black.page.locator("#bar-bottom .player-clock")
    bottom.wait_for()
    black.page.wait_for_function(
        "() => document.querySelector('#bar-bottom .player-clock').title.includes('move by')"
    )
    assert (bottom.text_content() or "").startswith("2 d 23 h · ")  # (and the day)
    assert (bottom.get_attribute("title") or "").startswith("2 d 23 h left (move by ")
    assert black.page.text_content("#bar-top .player-clock") == "3 d per move"
    black.screenshot("correspondence-clock")

    # A newer game, where Red is to move: "Your games" still puts Black's move first.
    newer = correspondence_game(red, black, "1")
    black.goto("/")
    black.page.click("#account summary")
    black.page.click("#account-your-games")
    black.page.wait_for_url("**/games")
    lines = black.page.locator("#your-games li")
    lines.nth(1).wait_for()
    assert lines.count() == 2
    assert lines.nth(0).get_attribute("data-game-id") == waiting
    first = lines.nth(0).text_content() or ""
    assert f"vs Red{suffix}" in first and "Correspondence: 3 days per move" in first
    assert "Your move" in first and "left (move by" in first
    assert lines.nth(1).get_attribute("data-game-id") == newer
    assert "Opponent to move" in (lines.nth(1).text_content() or "")
    black.screenshot("your-games")
    # Its link opens Black's seat.
    lines.nth(0).locator("a").click()
    black.page.wait_for_url(f"**/g/{waiting}")
    black.page.wait_for_selector("svg.board .piece")
    assert black.page.evaluate("window.chuhanApp.view.role") == "second"

    # Played to four plies and resigned, the game is rated apart: the home page's
    # leaderboard shows a correspondence board.
    red.goto(f"/g/{waiting}")
    red.page.wait_for_selector("svg.board .piece")
    for ply, move in enumerate(("h9g7", "h0g2", "i9h9"), start=1):
        mover, other = (black, red) if ply % 2 == 1 else (red, black)
        mover.wait_ply(ply)
        mover.click_move(move)
        other.wait_ply(ply + 1)
    red.page.on("dialog", lambda dialog: dialog.accept())
    red.page.click("#btn-resign")
    black.page.wait_for_selector("#rating-card .rating-change")
    black.goto("/")
    names = black.page.locator('#leaderboard .newcomers[data-game="xiangqi-correspondence"] li')
    names.nth(1).wait_for()
    assert f"Black{suffix}" in (names.nth(0).text_content() or "")
    heading = black.page.locator("#leaderboard h3", has_text="Xiangqi (correspondence)")
    assert heading.count() == 1
    assert red.errors == [] and black.errors == []


def test_a_player_takes_a_vacation_from_your_games_and_the_opponent_sees_it(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    suffix = secrets.token_hex(3)
    red = new_player(players, browser, server, address="198.51.100.33")
    black = new_player(players, browser, server, address="198.51.100.34", locale="ko-KR")
    sign_up(red, f"Red{suffix}")
    sign_up(black, f"Black{suffix}")
    game_id = correspondence_game(red, black, "3")
    red.click_move("h2e2")
    black.wait_ply(1)

    # (Red's game page keeps every toast it shows: one lasts a few seconds)
    red.page.evaluate(
        """() => { window.toasts = []; const node = document.getElementById("toast");
        new MutationObserver(() => window.toasts.push(node.textContent)).observe(
            node, {childList: true, characterData: true, subtree: true}); }"""
    )
    black.goto("/games")
    black.page.wait_for_selector("#vacation-take")
    assert "30일 중 30일 남음" in (black.page.text_content("#vacation-left") or "")
    black.page.fill("#vacation-days", "31")  # (more than the year's 30: refused, named)
    black.page.click("#vacation-take")
    black.page.wait_for_selector("#vacation-error:not([hidden])")
    assert "longer than the 30 days you have left" in (
        black.page.text_content("#vacation-error") or ""
    )
    black.page.fill("#vacation-days", "5")
    black.page.click("#vacation-take")
    black.page.wait_for_selector("#vacation-until")
    assert "30일 중 25일 남음" in (black.page.text_content("#vacation-left") or "")

    # Red, on the game's page, is told; then "Your games" says it on the game's line.
    red.page.wait_for_function(
        f"() => window.toasts.some((text) => text.startsWith('Black{suffix} is on vacation until'))"
    )
    red.goto("/games")
    line = red.page.locator(f'#your-games li[data-game-id="{game_id}"] .your-game-vacation')
    line.wait_for()
    assert f"Black{suffix} is on vacation until" in (line.text_content() or "")

    black.page.click("#vacation-end")  # (the days not begun come back)
    black.page.wait_for_selector("#vacation-take")
    assert "30일 중 29일 남음" in (black.page.text_content("#vacation-left") or "")
    # (the refused request's 409 is the browser's only console line)
    assert red.errors == [] and [e for e in black.errors if "409 (Conflict)" not in e] == []
