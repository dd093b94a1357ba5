"""The lobby in a real browser: two people sign up in two browser contexts, one posts a
rated seek, the other sees it appear and accepts, both land in the game, one resigns and
both ratings change by Glicko-2's amounts; an anonymous third context sees the list change
and plays a casual seek; a seek goes when its owner closes the page."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

import pytest

from chuhan.web.accounts.glicko2 import Glicko, rate

from .harness import Player, Server, new_player
from .test_accounts import PASSWORD, play_opening, sign_up

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def in_lobby(player: Player, name: str = "") -> None:
    """Open the home page and wait until its lobby connection knows the player."""
    player.goto("/")
    player.page.wait_for_selector(f'#lobby[data-player="{name}"]:not(.offline)')


def seek_line(player: Player, text: str) -> Any:
    line = player.page.locator("#lobby-seeks li.seek", has_text=text)
    line.wait_for()
    return line


def test_players_find_each_other_in_the_lobby(
    browser: Browser, own_server: Server, players: list[Player]
) -> None:
    suffix = secrets.token_hex(3)
    red_name, black_name = f"Red{suffix}", f"Black{suffix}"
    red = new_player(players, browser, own_server, address="198.51.100.31")
    black = new_player(players, browser, own_server, address="198.51.100.32")
    onlooker = new_player(players, browser, own_server, locale="zh-CN")
    sign_up(red, red_name)
    sign_up(black, black_name)
    in_lobby(red, red_name)
    in_lobby(black, black_name)
    in_lobby(onlooker)
    assert onlooker.page.text_content("#lobby h2") == "大厅"

    # Red posts a rated seek; Black and the anonymous onlooker see it come.
    red.page.check("#lobby-rated")
    red.page.select_option("#lobby-colour", "first")
    red.page.select_option("#lobby-tc", "10+5")
    red.page.click("#lobby-post")
    line = seek_line(black, red_name)
    assert "1500?" in (line.text_content() or "") and "Rated" in (line.text_content() or "")
    seek_line(onlooker, red_name)
    assert red.page.locator('#lobby-seeks li.seek[data-mine="true"]').count() == 1

    # Black accepts: both pages go to the game, each on its own seat.
    line.locator(".seek-accept").click()
    for player in (red, black):
        player.page.wait_for_url("**/g/**")
        player.page.wait_for_selector("svg.board .piece")
    assert red.state()["you"]["role"] == "first" and black.state()["you"]["role"] == "second"
    # (each keeps its seat in the browser: the addresses are the game's, without a key)
    assert red.page.url == black.page.url and "t=" not in red.page.url
    onlooker.page.wait_for_selector("#lobby-empty:not([hidden])")
    # The onlooker's home page lists the game to watch (asked every few seconds).
    game_id = red.page.url.rstrip("/").split("/")[-1]
    watch = onlooker.page.locator(f'#watch .watch-list a[href="/w/{game_id}"]')
    watch.wait_for()
    text = watch.text_content() or ""
    assert f"{red_name} – {black_name}" in text and "10+5" in text, text
    assert (onlooker.page.text_content("#watch-online") or "").startswith("大厅里有")

    play_opening(red, black)  # (a rated game counts once both players moved twice)
    black.page.on("dialog", lambda dialog: dialog.accept())
    black.page.click("#btn-resign")
    won = rate(Glicko(), [(Glicko(), 1.0)])
    lost = rate(Glicko(), [(Glicko(), 0.0)])
    for player in (red, black):
        first = player.page.locator('#rating-card .rating-change[data-seat="first"]')
        first.wait_for()
        assert first.get_attribute("data-change") == str(round(won.rating) - 1500)
        second = player.page.locator('#rating-card .rating-change[data-seat="second"]')
        assert second.get_attribute("data-change") == str(round(lost.rating) - 1500)
    red.screenshot("lobby-rated-game-over")

    # The anonymous onlooker posts a casual seek and plays it against Red.
    in_lobby(red, red_name)
    onlooker.page.click("#lobby-post")
    line = seek_line(red, "Anonymous")
    assert "Casual" in (line.text_content() or "")
    line.locator(".seek-accept").click()
    for player in (red, onlooker):
        player.page.wait_for_url("**/g/**")
        player.page.wait_for_selector("svg.board .piece")
    roles = {red.state()["you"]["role"], onlooker.state()["you"]["role"]}
    assert roles == {"first", "second"}
    mover = red if red.state()["you"]["role"] == "first" else onlooker
    mover.click_move("h2e2")
    (onlooker if mover is red else red).wait_ply(1)

    # A seek goes when the page of its owner closes.
    leaver = new_player(players, browser, own_server)
    in_lobby(leaver)
    in_lobby(black, black_name)
    leaver.page.click("#lobby-post")
    seek_line(black, "Anonymous")
    leaver.page.close()
    black.page.wait_for_selector("#lobby-empty:not([hidden])")
    assert red.errors == [] and black.errors == [] and onlooker.errors == []


def test_a_challenge_waits_for_a_player_who_is_away_and_is_played_when_they_come(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    suffix = secrets.token_hex(3)
    ada_name, bob_name = f"Ada{suffix}", f"Bob{suffix}"
    bob = new_player(players, browser, server, address="198.51.100.41")
    sign_up(bob, bob_name)
    bob.page.click("#account summary")
    bob.page.click("#account-signout")
    bob.page.wait_for_selector("#account summary:not(.signed-in)")
    bob.page.goto("about:blank")  # (Bob is away: no page of the site open)

    # Ada challenges Bob from his profile page: the home page's form has his name.
    ada = new_player(players, browser, server, address="198.51.100.42")
    sign_up(ada, ada_name)
    ada.goto(f"/p/{bob_name}")
    ada.page.click("#player-challenge")
    ada.page.wait_for_selector(f'#lobby[data-player="{ada_name}"]:not(.offline)')
    assert ada.page.input_value("#lobby-challenge-name") == bob_name
    ada.page.select_option("#lobby-colour", "first")
    ada.page.select_option("#lobby-tc", "10+5")
    ada.page.click("#lobby-challenge")
    mine = seek_line(ada, f"Your challenge to {bob_name}")
    assert "waits until" in (mine.text_content() or "")

    # Bob signs in later: his home page lists the challenge; he accepts and both play.
    bob.goto("/")
    bob.page.click("#account summary")
    bob.page.fill("#account-name", bob_name)
    bob.page.fill("#account-password", PASSWORD)
    bob.page.click("#account-signin")
    bob.page.wait_for_selector(f'#lobby[data-player="{bob_name}"]:not(.offline)')
    line = seek_line(bob, f"{ada_name} challenges you")
    assert line.locator(".seek-decline").count() == 1
    line.locator(".seek-accept").click()
    for player in (ada, bob):
        player.page.wait_for_url("**/g/**")
        player.page.wait_for_selector("svg.board .piece")
    assert ada.state()["you"]["role"] == "first" and bob.state()["you"]["role"] == "second"
    play_opening(ada, bob)
    assert ada.errors == [] and bob.errors == []
