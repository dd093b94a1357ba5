"""Accounts in a real browser: two people sign up in two browser contexts, play a rated game
through the invite link, one resigns, and both see their ratings change by Glicko-2's
amounts; the account menu's other actions."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

import pytest

from chuhan.web.accounts.glicko2 import Glicko, rate

from .harness import Player, Server, new_player, open_custom_game

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

PASSWORD = "correct horse battery"


def play_opening(red: Player, black: Player) -> None:
    """Four plies, both players moving twice, each seeing the other's move first."""
    for ply, move in enumerate(("h2e2", "h9g7", "h0g2", "i9h9")):
        mover, other = (red, black) if ply % 2 == 0 else (black, red)
        mover.click_move(move)
        other.wait_ply(ply + 1)


def sign_up(player: Player, name: str) -> None:
    page = player.page
    player.goto("/")
    page.click("#account summary")
    page.fill("#account-name", name)
    page.fill("#account-password", PASSWORD)
    page.click("#account-signup")
    page.wait_for_selector("#account summary.signed-in")
    assert page.text_content("#account summary") == name


def rated_friend_game(
    browser: Browser, server: Server, players: list[Player], addresses: tuple[str, str]
) -> tuple[Player, Player, str]:
    """Two new accounts (Red, Black: two addresses, since accounts of one address are not
    rated against each other) in a rated friend game that Red made, Red moving first and
    Black come in by the invite link; the players and the names' suffix."""
    suffix = secrets.token_hex(3)
    red = new_player(players, browser, server, address=addresses[0])
    black = new_player(players, browser, server, address=addresses[1])
    sign_up(red, f"Red{suffix}")
    sign_up(black, f"Black{suffix}")
    page = red.page
    page.click("body")  # (closes the account menu)
    open_custom_game(page)
    page.check('input[name="kind"][value="friend"]')
    page.wait_for_selector("#rated-row:not([hidden])")
    page.check("#rated")
    page.select_option("#colour", "first")
    page.click("#create")
    page.wait_for_url("**/g/**")
    page.wait_for_selector("#invite:not([hidden])")
    black.page.goto(page.input_value("#invite-url"))
    black.page.wait_for_selector("svg.board .piece")
    return red, black, suffix


def test_a_rated_game_between_two_accounts(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    red, black, suffix = rated_friend_game(
        browser, server, players, ("198.51.100.21", "198.51.100.22")
    )
    red.page.wait_for_selector("#rating-card:not([hidden])")
    # The bars show both ratings (new accounts: 1500, provisional).
    red.page.wait_for_function(
        "() => document.querySelector('#bar-top .player-name').textContent.endsWith('(1500?)')"
    )
    assert (red.page.text_content("#bar-bottom .player-name") or "").endswith("(1500?)")
    play_opening(red, black)  # (a rated game counts once both players moved twice)
    black.page.on("dialog", lambda dialog: dialog.accept())
    black.page.click("#btn-resign")

    won = rate(Glicko(), [(Glicko(), 1.0)])
    lost = rate(Glicko(), [(Glicko(), 0.0)])
    for player in (red, black):
        line = player.page.locator('#rating-card .rating-change[data-seat="first"]')
        line.wait_for()
        assert line.get_attribute("data-change") == str(round(won.rating) - 1500)
        assert f"Red{suffix}: 1500 → {round(won.rating)}? (+" in (line.text_content() or "")
        other = player.page.locator('#rating-card .rating-change[data-seat="second"]')
        assert other.get_attribute("data-change") == str(round(lost.rating) - 1500)
    assert f"Black{suffix}" in (red.page.text_content("#bar-top .player-name") or "")
    red.screenshot("rated-game-over")
    game_pages = {red: red.page.url, black: black.page.url}
    # "My games" names the opponent and how the game ended for each.
    for player in (red, black):
        player.goto("/")
        player.page.wait_for_selector("#games-over li")
    assert f"vs Black{suffix}" in (red.page.text_content("#games-over li") or "")
    assert (red.page.text_content("#games-over li") or "").endswith("· Won")
    assert f"vs Red{suffix}" in (black.page.text_content("#games-over li") or "")
    assert (black.page.text_content("#games-over li") or "").endswith("· Lost")
    # Both ratings are provisional: the leaderboard lists them apart, marked "?".
    newcomers = red.page.locator('#leaderboard .newcomers[data-game="xiangqi"] li')
    newcomers.first.wait_for()
    assert all(line.endswith("?") for line in newcomers.all_text_contents())
    board = red.page.evaluate("fetch('/api/leaderboard/xiangqi').then((r) => r.json())")
    assert {f"Red{suffix}", f"Black{suffix}"} <= {p["name"] for p in board["newcomers"]}

    # The winner's page shows the rating, provisional, and the game.
    red.goto(f"/p/Red{suffix}")
    rating = red.page.locator('.player-rating[data-game="xiangqi"]')
    rating.wait_for()
    assert f"{round(won.rating)}? (provisional)" in (rating.text_content() or "")
    assert red.page.locator("#player .game-list a").count() == 1

    # A rematch of the rated game is offered as rated, and is (issue 24, 5).
    for player in (red, black):
        player.page.goto(game_pages[player])
        player.page.wait_for_selector("#btn-rematch:not([hidden])")
    first_game = black.page.url
    red.page.click("#btn-rematch")
    black.page.wait_for_selector("#offer:not([hidden])")
    assert black.page.text_content("#offer-text") == "Rated rematch?"
    black.page.click("#offer-accept")
    for player in (red, black):
        player.page.wait_for_function(f"() => location.href !== {first_game!r}")
        player.page.wait_for_selector("#rating-card:not([hidden])")
    assert black.page.evaluate("window.chuhanApp.view.role") == "first"  # colours swapped
    assert red.errors == [] and black.errors == []


def test_signing_out_in_again_and_a_wrong_password(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    name = f"Ada{secrets.token_hex(3)}"
    player = new_player(players, browser, server, locale="ko-KR")
    sign_up(player, name)
    page = player.page
    page.click("#account summary")
    assert page.text_content("#account-signout") == "로그아웃"
    page.click("#account-signout")
    page.wait_for_selector("#account summary:not(.signed-in)")
    page.click("#account summary")
    page.fill("#account-name", name.lower())
    page.fill("#account-password", "not the password")
    page.click("#account-signin")
    page.wait_for_selector("#account-error:not([hidden])")
    assert "the name or the password is wrong" in (page.text_content("#account-error") or "")
    page.fill("#account-password", PASSWORD)
    page.click("#account-signin")
    page.wait_for_selector("#account summary.signed-in")
    # The cookie is out of the page's reach.
    assert "chuhan_session" not in page.evaluate("document.cookie")


def test_every_tab_follows_a_sign_out_and_a_session_ended_elsewhere(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    """Issue 24, 4: the tabs of one browser share its session, so a sign-out in one signs
    out the others (their account menus and their lobbies, which then post as a visitor);
    a session ended from another browser (a new password) does the same."""
    name = f"Tabs{secrets.token_hex(3)}"
    player = new_player(players, browser, server)
    sign_up(player, name)
    first = player.page
    first.wait_for_selector(f'#lobby[data-player="{name}"]:not(.offline)')
    second = player.context.new_page()  # a second tab: the same cookies
    second.set_default_timeout(60000)
    second.goto(server.url + "/")
    second.wait_for_selector(f'#lobby[data-player="{name}"]:not(.offline)')
    assert second.is_visible("#lobby-rated-row")

    first.click("#account summary")
    first.click("#account-signout")
    first.wait_for_selector("#account summary:not(.signed-in)")
    # The other tab follows: its menu offers to sign in, its lobby knows a visitor and
    # offers no rated seek.
    second.wait_for_selector("#account summary:not(.signed-in)")
    second.wait_for_selector('#lobby[data-player=""]:not(.offline)')
    assert not second.is_visible("#lobby-rated-row")

    # Signed in again in the second tab: the first follows.
    second.click("#account summary")
    second.fill("#account-name", name)
    second.fill("#account-password", PASSWORD)
    second.click("#account-signin")
    first.wait_for_selector("#account summary.signed-in")
    first.wait_for_selector(f'#lobby[data-player="{name}"]:not(.offline)')

    # A new password set in another browser ends this browser's session on the server:
    # both tabs see it, told by their lobby's socket (no tab of theirs signed out).
    other = new_player(players, browser, server)
    other.goto("/")
    other.page.click("#account summary")
    other.page.fill("#account-name", name)
    other.page.fill("#account-password", PASSWORD)
    other.page.click("#account-signin")
    other.page.wait_for_selector("#account summary.signed-in")
    other.page.click("#account summary")
    other.page.click(".account-more summary >> nth=0")
    other.page.fill("#password-current", PASSWORD)
    other.page.fill("#password-new", PASSWORD + "-new")
    other.page.click("#password-change")
    for page in (first, second):
        page.wait_for_selector("#account summary:not(.signed-in)")
        page.wait_for_selector('#lobby[data-player=""]:not(.offline)')
    assert not player.errors


def test_the_rated_card_outlives_a_server_restart(
    browser: Browser, own_server: Server, players: list[Player]
) -> None:
    """Issue 24, 3: a question of the rating card that fails while the server restarts
    leaves the card as it was and asks again; the settlement shows when the game ends."""
    red, black, _ = rated_friend_game(
        browser, own_server, players, ("198.51.100.41", "198.51.100.42")
    )
    page = red.page
    play_opening(red, black)
    page.wait_for_selector("#rating-card:not([hidden])")

    # The server goes away until one of the card's questions has failed.
    own_server.kill()
    with page.expect_event(
        "requestfailed", predicate=lambda request: request.url.endswith("/rating")
    ):
        pass
    own_server.start()
    for player in (red, black):
        player.page.wait_for_function(
            "() => document.getElementById('connection').hidden"
            " && window.chuhanApp.view.state.ply === 4"
        )
    assert page.is_visible("#rating-card")

    black.page.on("dialog", lambda dialog: dialog.accept())
    black.page.click("#btn-resign")
    for player in (red, black):
        player.page.locator('#rating-card .rating-change[data-seat="first"]').wait_for()
