"""The board as a lichess player expects it: premoves, arrows and circles drawn with the
right button, moves that slide, and boards and piece sets chosen per game."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import pytest

from .harness import Player, Server, SocketTap, create_from_home, new_player

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

PREMOVE_BOXES = "svg.board rect.premove"


class HoldFrom:
    """A socket rewrite that holds back the server's frames from the first state at `ply`
    on (the computer's answer) until ``release()``: the page waits meanwhile."""

    def __init__(self, ply: int) -> None:
        self.ply = ply
        self.holding = True
        self.held: list[dict[str, Any]] = []
        self.page_end: Any = None

    def __call__(self, page_end: Any, message: dict[str, Any]) -> list[Any]:
        reached = message.get("type") == "state" and message.get("ply", 0) >= self.ply
        if self.holding and (self.held or reached):
            self.page_end = page_end
            self.held.append(message)
            return []
        return [message]

    def release(self) -> None:
        self.holding = False
        held, self.held = self.held, []
        for message in held:
            self.page_end.send(json.dumps(message))


def pick(player: Player, origin: str, target: str) -> None:
    """Click a piece and then a square (a move, or a premove while the opponent moves)."""
    page = player.page
    page.mouse.click(*player.point(origin))
    page.wait_for_selector(f'svg.board [data-square="{target}"].premove-dest', state="attached")
    page.mouse.click(*player.point(target))


def open_settings(page: Any) -> None:
    if not page.evaluate("document.getElementById('settings').open"):
        page.click("#settings summary")


def test_a_premove_is_played_when_the_computer_has_moved(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    hold = HoldFrom(ply=2)
    SocketTap(player.page, hold)
    create_from_home(player, variant="xiangqi", kind="computer", level="1", colour="first")
    page = player.page
    player.click_move("h2e2")
    page.wait_for_function("() => window.chuhanApp.view.state.thinking")

    # While the computer thinks, Red may pick a piece: its premoves are shown in blue.
    pick(player, "h0", "g2")
    assert page.locator(PREMOVE_BOXES).count() == 2
    assert page.locator("svg.board .piece.movable").count() == 0
    # A click elsewhere cancels it, and so does a right click.
    page.mouse.click(*player.point("e5"))
    assert page.locator(PREMOVE_BOXES).count() == 0
    pick(player, "h0", "g2")
    page.mouse.click(*player.point("e5"), button="right")
    assert page.locator(PREMOVE_BOXES).count() == 0
    pick(player, "h0", "g2")
    assert page.locator(PREMOVE_BOXES).count() == 2
    assert player.state()["ply"] == 1

    # The computer's answer arrives: the premove is played at once.
    hold.release()
    player.wait_ply(3)
    assert player.state()["moves"][2]["iccs"] == "h0g2"
    assert page.locator(PREMOVE_BOXES).count() == 0
    assert player.errors == []


def test_a_premove_the_opponent_made_illegal_is_dropped(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    red = new_player(players, browser, server)
    create_from_home(red, variant="xiangqi", kind="friend", colour="first")
    red.page.wait_for_selector("#invite:not([hidden])")
    black = new_player(players, browser, server)
    black.page.goto(red.page.input_value("#invite-url"))
    black.page.wait_for_selector("svg.board .piece")
    red.page.wait_for_selector("#invite", state="hidden")

    # Black's cannon would take the horse on b0 over Red's cannon on b2; Red moves that
    # cannon away, and the premove is no longer legal.
    pick(black, "b7", "b0")
    assert black.page.locator(PREMOVE_BOXES).count() == 2
    red.click_move("b2e2")
    black.wait_ply(1)
    black.page.wait_for_selector("#toast:not([hidden])")
    note = black.page.text_content("#toast") or ""
    assert "b7b0" in note and "not legal" in note
    assert black.page.locator(PREMOVE_BOXES).count() == 0
    black.page.wait_for_timeout(300)
    assert black.state()["ply"] == 1  # nothing was sent
    # Black's turn goes on as usual, and a legal premove is played after Red's next move.
    black.click_move("b7e7")
    red.wait_ply(2)
    pick(black, "h9", "g7")
    red.click_move("h0g2")
    black.wait_ply(4)
    assert black.state()["moves"][3]["iccs"] == "h9g7"
    for player in (red, black):
        assert player.errors == []


def test_a_janggi_premove_in_a_friend_game(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    cho = new_player(players, browser, server)
    create_from_home(cho, variant="janggi", kind="friend", colour="first")
    cho.page.wait_for_selector("#invite:not([hidden])")
    han = new_player(players, browser, server)
    han.page.goto(cho.page.input_value("#invite-url"))
    han.page.wait_for_selector("#setup:not([hidden])")
    han.page.click('.setup-choice[data-arrangement="상마상마"]:not([disabled])')
    cho.page.click('.setup-choice[data-arrangement="마상마상"]:not([disabled])')
    han.page.wait_for_function("() => window.chuhanApp.view.state.status === 'playing'")

    # Cho is to move; Han's soldier premoves sideways and goes as soon as Cho has moved.
    pick(han, "a6", "b6")
    cho.click_move("a3b3")
    han.wait_ply(2)
    assert han.state()["moves"][1]["iccs"] == "a6b6"
    for player in (cho, han):
        assert player.errors == []


def right_drag(player: Player, origin: str, target: str, modifier: str | None = None) -> None:
    page = player.page
    if modifier:
        page.keyboard.down(modifier)
    page.mouse.move(*player.point(origin))
    page.mouse.down(button="right")
    page.mouse.move(*player.point(target), steps=5)
    page.mouse.up(button="right")
    if modifier:
        page.keyboard.up(modifier)


def test_arrows_and_circles_drawn_with_the_right_button(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    create_from_home(player, variant="xiangqi", kind="local")
    page = player.page
    arrow = 'svg.board .shape.user[data-orig="h2"][data-dest="e2"]'
    circle = 'svg.board circle.shape.user[data-orig="e5"]'

    right_drag(player, "h2", "e2")
    assert page.locator(arrow).count() == 1
    assert "brush-green" in (page.get_attribute(arrow, "class") or "")
    page.mouse.click(*player.point("e5"), button="right")
    assert page.locator(circle).count() == 1
    assert page.get_attribute(circle, "data-dest") is None
    # The same arrow again takes it off; with shift it is red.
    right_drag(player, "h2", "e2")
    assert page.locator(arrow).count() == 0
    right_drag(player, "h2", "e2", "Shift")
    assert "brush-red" in (page.get_attribute(arrow, "class") or "")
    right_drag(player, "b0", "c2", "Alt")
    assert page.locator('svg.board .shape.user.brush-blue[data-orig="b0"]').count() == 1
    assert page.locator("svg.board .shape.user").count() == 3

    # The page's own shapes (an engine's arrow) are drawn in the same layer.
    page.evaluate(
        "window.chuhanApp.view.board.setAutoShapes("
        "[{orig: 'b2', dest: 'e2', brush: 'engine'}, {orig: 'e9'}])"
    )
    assert page.locator('svg.board .shape.auto[data-orig="b2"][data-dest="e2"]').count() == 1
    assert page.locator('svg.board circle.shape.auto[data-orig="e9"]').count() == 1
    # The shapes stay while the board is drawn again (a move), and a left click wipes the
    # player's own.
    player.click_move("h0g2")
    assert page.locator("svg.board .shape.user").count() == 0
    right_drag(player, "b9", "c7")
    assert page.locator("svg.board .shape.user").count() == 1
    page.mouse.click(*player.point("e5"))
    assert page.locator("svg.board .shape.user").count() == 0
    assert page.locator("svg.board .shape.auto").count() == 2
    assert player.errors == []


RECORDER = """() => {
  window.__seen = {};
  window.__ghosts = 0;
  const loop = () => {
    for (const node of document.querySelectorAll('svg.board .piece[data-square]')) {
      const square = node.dataset.square;
      window.__seen[square] = window.__seen[square] || new Set();
      window.__seen[square].add(node.getAttribute('transform'));
    }
    window.__ghosts += document.querySelectorAll('svg.board .piece-ghost').length;
    requestAnimationFrame(loop);
  };
  loop();
}"""


def seen(page: Any, square: str) -> list[tuple[float, float]]:
    """Where the piece now on `square` was drawn since the recorder started (board units)."""
    texts = page.evaluate(f"[...(window.__seen['{square}'] || [])]")
    points = []
    for text in texts:
        match = re.fullmatch(r"translate\(([-\d.]+) ([-\d.]+)\)", text)
        assert match, text
        points.append((float(match.group(1)), float(match.group(2))))
    return points


def record(page: Any) -> None:
    page.evaluate("window.__seen = {}; window.__ghosts = 0")


SETTLED = """([square, x, y]) => {
  const node = document.querySelector(`svg.board .piece[data-square="${square}"]`);
  const at = /translate\\(([-\\d.]+) ([-\\d.]+)\\)/.exec(node?.getAttribute('transform') || '');
  return at !== null && Number(at[1]) === x && Number(at[2]) === y
    && !document.querySelector('svg.board .piece-ghost')
    && [...(window.__seen[square] || [])].some((seen) => seen === at[0]);
}"""


def settle(page: Any, square: str, point: tuple[float, float]) -> None:
    """Wait until the piece on ``square`` stands at ``point``, no captured piece is fading,
    and the recorder has seen it there (an event, not a time: a loaded machine draws its
    frames late)."""
    page.wait_for_function(SETTLED, arg=[square, *point])


def test_moves_slide_and_captured_pieces_fade(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    create_from_home(player, variant="xiangqi", kind="local")
    page = player.page
    page.evaluate(RECORDER)

    # The cannon slides from h2 (800, 800) to e2 (500, 800): the piece that stands on e2
    # is drawn on the way there (or at h2 when the first frames are slow), then on e2.
    record(page)
    player.click_move("h2e2")
    settle(page, "e2", (500, 800))
    points = seen(page, "e2")
    assert any(500 < x <= 800 for x, _ in points), points
    assert points[-1] == (500.0, 800.0)
    player.click_move("h9g7")
    # A capture: the pawn on e6 fades while the cannon lands on it.
    settle(page, "g7", (700, 300))
    record(page)
    player.click_move("e2e6")
    settle(page, "e6", (500, 400))
    assert page.evaluate("window.__ghosts") > 0
    assert page.locator("svg.board .piece-ghost").count() == 0
    assert any(400 < y <= 800 for _, y in seen(page, "e6"))
    # Going back to the start jumps three moves: nothing slides.
    record(page)
    page.click("#nav-first")
    page.wait_for_selector("#viewing:not([hidden])")
    settle(page, "h2", (800, 800))
    assert seen(page, "h2") == [(800.0, 800.0)]
    page.click("#nav-live")

    # Turned off in the settings: the piece is drawn on its new square at once.
    open_settings(page)
    page.uncheck("#set-animation")
    page.click("#settings summary")
    record(page)
    player.click_move("b9c7")
    settle(page, "c7", (300, 300))
    assert seen(page, "c7") == [(300.0, 300.0)]
    # And when the system asks for less motion.
    open_settings(page)
    page.check("#set-animation")
    page.click("#settings summary")
    page.emulate_media(reduced_motion="reduce")
    record(page)
    player.click_move("b2b6")
    settle(page, "b6", (200, 400))
    assert seen(page, "b6") == [(200.0, 400.0)]
    assert player.errors == []


def board_class(page: Any) -> str:
    return page.get_attribute("svg.board", "class") or ""


def choose_theme(page: Any, board: str | None = None, pieces: str | None = None) -> None:
    open_settings(page)
    if board:
        page.select_option("#set-board", board)
    if pieces:
        page.select_option("#set-pieces", pieces)
    page.click("#settings summary")


def test_boards_and_piece_sets_are_chosen_and_kept_per_game(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    # Settings saved before the themes: letters for both games.
    player.goto("/")
    player.page.evaluate(
        "localStorage.setItem('chuhan.settings', JSON.stringify({labels: 'letters'}))"
    )
    create_from_home(player, variant="janggi", kind="local")
    janggi_url = player.page.url
    create_from_home(player, variant="xiangqi", kind="local")
    xiangqi_url = player.page.url
    page = player.page
    king = 'svg.board .piece[data-square="e0"]'
    assert page.text_content(f"{king} .piece-label") == "K"

    for board in ("wood", "paper", "dark"):
        choose_theme(page, board=board)
        assert f"theme-{board}" in board_class(page)
    choose_theme(page, pieces="chinese")
    assert page.text_content(f"{king} .piece-label") == "帥"
    choose_theme(page, pieces="letters")
    assert page.text_content(f"{king} .piece-label") == "K"
    # Pictures: a drawing on every piece and not one character.
    choose_theme(page, board="dark", pieces="pictures")
    assert page.locator("svg.board .piece .piece-picture").count() == 32
    assert page.locator("svg.board .piece text").count() == 0
    assert page.get_attribute(f"{king} .piece-picture", "data-kind") == "king"
    player.screenshot("theme-xiangqi-dark-pictures")

    page.reload()
    page.wait_for_selector("svg.board .piece")
    assert "theme-dark" in board_class(page)
    assert page.locator("svg.board .piece text").count() == 0

    # Janggi keeps its own: the old letters, on wood, until it is given paper and pictures.
    page.goto(janggi_url)
    page.wait_for_selector("svg.board .piece")
    assert "theme-wood" in board_class(page) and "board-janggi" in board_class(page)
    assert "pieces-letters" in board_class(page)
    page.wait_for_function("() => document.getElementById('set-theme-game').value === 'janggi'")
    for board in ("wood", "paper", "dark"):
        choose_theme(page, board=board)
        assert f"theme-{board}" in board_class(page)
    for pieces in ("chinese", "letters", "pictures"):
        choose_theme(page, pieces=pieces)
        assert f"pieces-{pieces}" in board_class(page)
    # The setup choices (the game is waiting for Han's) are drawn in the same set.
    assert page.locator("#setup-choices .rank-piece .piece-picture").count() == 4 * 8
    assert page.locator("#setup-choices text").count() == 0
    player.screenshot("theme-janggi-setup-pictures")
    choose_theme(page, board="paper", pieces="chinese")
    page.reload()
    page.wait_for_selector("svg.board .piece")
    assert "theme-paper" in board_class(page)
    assert page.locator("svg.board .piece .piece-label").count() > 0
    player.screenshot("theme-janggi-paper-chinese")
    stored = json.loads(page.evaluate("localStorage.getItem('chuhan.settings')"))
    assert "labels" not in stored
    assert stored["themes"]["janggi"] == {"board": "paper", "pieces": "chinese"}

    page.goto(xiangqi_url)
    page.wait_for_selector("svg.board .piece")
    assert "theme-dark" in board_class(page) and "pieces-pictures" in board_class(page)
    assert player.errors == []
