"""The edges between games in a real browser (issue 24): aborting before the first moves,
the claim when the opponent does not make a first move in time, and the seat kept out of
the address bar."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from .harness import Player, Server, create_from_home, new_player

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

#: The time the servers give a player for a first move (the default is 30 s): the claim
#: test waits for a short one to pass; the others must see the countdown before it ends,
#: however loaded the machine, so theirs is long.
LATE_SECONDS = 3
PATIENT_SECONDS = 3600


def first_move_server(folder: Any, seconds: int) -> Server:
    return Server(
        folder / "games.db", folder / "server.log", ("--first-move-seconds", str(seconds))
    )


@pytest.fixture(scope="module")
def edges_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = first_move_server(tmp_path_factory.mktemp("edges-server"), PATIENT_SECONDS)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def late_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = first_move_server(tmp_path_factory.mktemp("late-server"), LATE_SECONDS)
    server.start()
    yield server
    server.stop()


def friend_game(browser: Browser, server: Server, players: list[Player]) -> tuple[Player, Player]:
    """Red creates a friend game from the home page and Black opens the invite."""
    red = new_player(players, browser, server)
    red.goto("/")
    create_from_home(red, variant="xiangqi", kind="friend", reload=False, colour="first")
    red.page.wait_for_selector("#invite:not([hidden])")
    invite = red.page.input_value("#invite-url")
    black = new_player(players, browser, server)
    black.page.goto(invite)
    black.page.wait_for_selector("svg.board .piece")
    red.page.wait_for_selector("#invite", state="hidden")
    return red, black


def test_a_player_aborts_the_game_before_the_first_move(
    browser: Browser, edges_server: Server, players: list[Player]
) -> None:
    red, black = friend_game(browser, edges_server, players)
    for player in (red, black):  # neither has moved: abort, not resign
        player.page.wait_for_selector("#btn-abort:not([hidden])")
        assert player.page.is_hidden("#btn-resign")
    red.page.click("#btn-abort")
    for player in (red, black):
        player.page.wait_for_selector("#banner:not([hidden])")
        assert "Game aborted by Red" in (player.page.text_content("#banner-reason") or "")
    assert red.errors == [] and black.errors == []


def test_the_side_to_make_a_first_move_sees_its_time_and_may_still_abort(
    browser: Browser, edges_server: Server, players: list[Player]
) -> None:
    red, black = friend_game(browser, edges_server, players)
    red.click_move("h2e2")
    black.wait_ply(1)
    # Red has moved: Red resigns now, Black may still abort; both see Black's time.
    red.page.wait_for_selector("#btn-resign:not([hidden])")
    assert red.page.is_hidden("#btn-abort")
    assert black.page.is_visible("#btn-abort")
    for player in (red, black):
        player.page.wait_for_selector("#first-move:not([hidden])")
        said = player.page.text_content("#first-move-text") or ""
        assert said.startswith("Black has ") and said.endswith(" s to make a first move."), said
    assert red.page.is_hidden("#claim-abort") and black.page.is_hidden("#claim-abort")
    black.page.click("#btn-abort")
    for player in (red, black):
        player.page.wait_for_selector("#banner:not([hidden])")
        assert "Game aborted by Black" in (player.page.text_content("#banner-reason") or "")
    assert red.errors == [] and black.errors == []


def test_a_player_may_abort_once_the_opponent_lets_the_first_move_time_pass(
    browser: Browser, late_server: Server, players: list[Player]
) -> None:
    red, black = friend_game(browser, late_server, players)
    red.click_move("h2e2")
    black.wait_ply(1)
    red.page.wait_for_selector("#btn-resign:not([hidden])")
    assert black.page.is_visible("#btn-abort")
    red.page.wait_for_selector("#claim-abort:not([hidden])")
    assert "did not make a first move in time" in (red.page.text_content("#first-move-text") or "")
    assert black.page.is_hidden("#claim-abort")
    red.screenshot("first-move-late")
    red.page.click("#claim-abort")
    for player in (red, black):
        player.page.wait_for_selector("#banner:not([hidden])")
        reason = player.page.text_content("#banner-reason") or ""
        assert "Black did not make a first move in time" in reason
    assert red.errors == [] and black.errors == []


def test_the_address_a_player_copies_is_a_spectators(
    browser: Browser, edges_server: Server, players: list[Player]
) -> None:
    red, black = friend_game(browser, edges_server, players)
    for player in (red, black):
        assert "t=" not in player.page.url
    copied = red.page.url
    # Someone else opening the copied address watches; the move is not theirs to make.
    visitor = new_player(players, browser, edges_server)
    visitor.page.goto(copied)
    visitor.page.wait_for_selector("svg.board .piece")
    visitor.page.wait_for_selector("#btn-resign", state="hidden")
    assert visitor.page.is_hidden("#btn-abort")
    # Red's own page keeps its seat across a reload, from the address without the key.
    red.page.reload()
    red.page.wait_for_selector("svg.board .piece")
    red.click_move("h2e2")
    black.wait_ply(1)
    assert visitor.errors == [] and red.errors == []


def test_the_simplified_chinese_page_writes_moves_in_simplified_characters(
    browser: Browser, edges_server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, edges_server, locale="zh-CN")
    create_from_home(player, variant="xiangqi", kind="local")
    player.click_move("h0g2")
    player.wait_ply(1)
    assert player.page.text_content("#moves .move.current") == "马二进三"
    assert player.errors == []


def test_the_janggi_setup_card_counts_no_time_before_the_chooser_arrives(
    browser: Browser, edges_server: Server, players: list[Player]
) -> None:
    cho = new_player(players, browser, edges_server)
    cho.goto("/")
    create_from_home(cho, variant="janggi", kind="friend", reload=False, colour="first")
    cho.page.wait_for_selector("#setup:not([hidden])")
    cho.page.wait_for_function(
        "() => document.getElementById('setup-status').textContent.length > 0"
    )
    # Han chooses first and is not here yet: the card waits, with no "0 s left".
    status = cho.page.text_content("#setup-status") or ""
    assert status == "Han chooses first…", status
    invite = cho.page.input_value("#invite-url")
    han = new_player(players, browser, edges_server)
    han.page.goto(invite)
    han.page.wait_for_selector("#setup:not([hidden])")
    cho.page.locator("#setup-status", has_text="s left").wait_for()
    assert cho.errors == [] and han.errors == []
