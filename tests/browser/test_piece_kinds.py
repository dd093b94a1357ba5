"""One name for each piece, the server's: the board's pieces carry the kind the state
message gives them (``chariot``, ``soldier``, a janggi ``guard``), on the live board and on
a position read from a FEN, with no table of other names in between."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from .harness import Player, Server, create_from_home, new_player

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

#: Each board piece's square and kind, from its class (``piece piece-red piece-chariot``).
BOARD_KINDS = """() => Object.fromEntries([...document.querySelectorAll("svg.board .piece")].map(
  (node) => [node.dataset.square, [...node.classList].find(
    (name) => name.startsWith("piece-") && !/^piece-(red|black|cho|han)$/.test(name)).slice(6)]))"""


def board_kinds(player: Player) -> dict[str, str]:
    kinds: dict[str, str] = player.page.evaluate(BOARD_KINDS)
    return kinds


@pytest.mark.parametrize("variant", ["xiangqi", "janggi"])
def test_the_board_names_each_piece_as_the_server_does(
    browser: Browser, server: Server, players: list[Player], variant: str
) -> None:
    player = new_player(players, browser, server)
    page = player.page
    create_from_home(player, variant=variant, kind="local")
    if variant == "janggi":  # Han chooses a setup, then Cho
        page.wait_for_selector("#setup:not([hidden])")
        page.click('.setup-choice[data-arrangement="상마상마"]:not([disabled])')
        page.wait_for_function("() => window.chuhanApp.view.state.setup.chooser === 'first'")
        page.click('.setup-choice[data-arrangement="마상마상"]:not([disabled])')
        page.wait_for_function("() => window.chuhanApp.view.state.status === 'playing'")
    served = {piece["square"]: piece["kind"] for piece in player.state()["pieces"]}
    assert board_kinds(player) == served
    expected = {"chariot", "soldier", "guard" if variant == "janggi" else "advisor"}
    assert expected <= set(served.values())

    # A position read from the server's FEN (stepping back through the moves) names its
    # pieces the same way.
    player.click_move("a0a1")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector('svg.board .piece[data-square="a0"]')
    assert board_kinds(player) == served
