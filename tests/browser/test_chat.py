"""The game page's chat and presence in a real browser: players' and spectators' rooms, the
hide switch, the server's limits shown under the box, muting, an opponent who closes the
page (then the claim after the grace period), and a declined offer shown to its maker."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from .harness import Player, Server, create_from_home, new_player, open_custom_game

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

#: The grace period the test server gives an opponent who left (the default is 30 s).
GRACE_SECONDS = 3
#: Seconds before a chat sender past the burst of 5 may send again: longer than any test
#: here (the default 2 s could refill the budget between two lines on a loaded machine).
CHAT_EVERY_SECONDS = 3600


@pytest.fixture(scope="module")
def chat_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("chat-server")
    server = Server(
        folder / "games.db",
        folder / "server.log",
        (
            "--abandon-seconds",
            str(GRACE_SECONDS),
            "--chat-every-seconds",
            str(CHAT_EVERY_SECONDS),
        ),
    )
    server.start()
    yield server
    server.stop()


def friend_game(
    browser: Browser, server: Server, players: list[Player], *, timed: bool = False
) -> tuple[Player, Player, str]:
    """Red creates a friend game from the home page, Black opens the invite; the watch link."""
    red = new_player(players, browser, server)
    red.goto("/")
    if timed:
        open_custom_game(red.page)
        red.page.check('input[name="tc"][value="fischer"]')  # 10 min + 5 s
    create_from_home(red, variant="xiangqi", kind="friend", reload=False, colour="first")
    red.page.wait_for_selector("#invite:not([hidden])")
    invite = red.page.input_value("#invite-url")
    watch = red.page.input_value("#watch-url")
    black = new_player(players, browser, server)
    black.page.goto(invite)
    black.page.wait_for_selector("svg.board .piece")
    red.page.wait_for_selector("#invite", state="hidden")
    return red, black, watch


def say(player: Player, text: str) -> None:
    player.page.fill("#chat-input", text)
    player.page.press("#chat-input", "Enter")


def wait_line(player: Player, text: str) -> None:
    player.page.locator("#chat-lines .chat-text", has_text=text).wait_for()


def lines(player: Player) -> list[str]:
    texts: list[str] = player.page.locator("#chat-lines .chat-text").all_text_contents()
    return texts


def test_players_chat_and_spectators_talk_apart(
    browser: Browser, chat_server: Server, players: list[Player]
) -> None:
    red, black, watch = friend_game(browser, chat_server, players)
    assert red.page.text_content("#chat-title") == "Chat"
    say(red, "good luck")
    wait_line(black, "good luck")
    say(black, "you too")
    wait_line(red, "you too")

    lin = new_player(players, browser, chat_server)
    lin.page.goto(watch)
    kim = new_player(players, browser, chat_server)
    kim.page.goto(watch)
    for spectator in (lin, kim):
        spectator.page.wait_for_selector("#chat:not([hidden])")
        assert spectator.page.text_content("#chat-title") == "Spectators' room"
    say(lin, "what a game")
    wait_line(kim, "what a game")
    assert lines(kim) == ["what a game"]  # the players' room is theirs alone
    say(red, "thanks")
    wait_line(black, "thanks")
    assert "what a game" not in lines(black) and "what a game" not in lines(red)

    # Kim hides the spectators' chat; the choice outlives the page.
    kim.page.check("#chat-hide")
    kim.page.wait_for_selector("#chat-lines", state="hidden")
    assert kim.page.is_hidden("#chat-form")
    kim.page.reload()
    kim.page.wait_for_selector("#chat:not([hidden])")
    assert kim.page.is_checked("#chat-hide") and kim.page.is_hidden("#chat-lines")
    red.screenshot("chat-players")
    lin.screenshot("chat-spectators")
    for player in (red, black, lin, kim):
        assert player.errors == []


def test_the_server_limits_are_shown_under_the_chat_box(
    browser: Browser, chat_server: Server, players: list[Player]
) -> None:
    red, _black, _watch = friend_game(browser, chat_server, players)
    say(red, "y" * 301)
    red.page.wait_for_selector("#chat-error:not([hidden])")
    assert "at most 300 characters" in (red.page.text_content("#chat-error") or "")
    assert red.page.input_value("#chat-input") == "y" * 301  # given back to shorten
    for n in range(6):
        say(red, f"spam {n}")
    red.page.locator("#chat-error", has_text="too fast").wait_for()
    wait_line(red, "spam 4")
    assert "spam 5" not in lines(red)


def test_a_muted_player_is_not_shown_even_after_a_reload(
    browser: Browser, chat_server: Server, players: list[Player]
) -> None:
    red, black, _watch = friend_game(browser, chat_server, players)
    say(red, "first words")
    wait_line(black, "first words")
    black.page.click("#chat-lines .chat-mute")
    black.page.wait_for_selector("#chat-muted:not([hidden])")
    assert lines(black) == []
    say(red, "are you there?")
    wait_line(red, "are you there?")
    black.page.reload()
    black.page.wait_for_selector("#chat-muted:not([hidden])")
    say(red, "hello??")
    wait_line(red, "hello??")
    say(black, "quiet here")
    wait_line(black, "quiet here")
    assert lines(black) == ["quiet here"]
    black.page.click("#chat-muted .chat-unmute")
    wait_line(black, "hello??")


def test_an_opponent_who_closes_the_page_can_be_claimed_against_after_the_grace_period(
    browser: Browser, chat_server: Server, players: list[Player]
) -> None:
    red, black, _watch = friend_game(browser, chat_server, players, timed=True)
    red.click_move("h2e2")
    black.wait_ply(1)
    black.click_move("h9g7")
    red.wait_ply(2)
    invite = black.page.url
    assert red.page.is_hidden("#absent")
    black.close()
    # Red is told at once (before the grace period is over: no claim offered yet), with a
    # countdown.
    red.page.wait_for_selector("#absent:not([hidden])")
    assert red.page.text_content("#absent-text") == "Your opponent left the game."
    assert "You can claim the game in" in (red.page.text_content("#absent-countdown") or "")
    assert red.page.is_hidden("#absent-claims")
    red.page.wait_for_selector("#absent-claims:not([hidden])")
    red.screenshot("opponent-left")
    red.page.click("#claim-win")
    red.page.wait_for_selector("#banner:not([hidden])")
    assert "Black left the game" in (red.page.text_content("#banner-reason") or "")
    assert red.page.is_hidden("#absent")
    # Black comes back to the game and sees how it ended.
    back = new_player(players, browser, chat_server)
    back.page.goto(invite)
    back.page.wait_for_selector("#banner:not([hidden])")
    assert "Black left the game" in (back.page.text_content("#banner-reason") or "")
    assert red.errors == []


def test_the_notice_goes_when_the_opponent_comes_back(
    browser: Browser, chat_server: Server, players: list[Player]
) -> None:
    red, black, _watch = friend_game(browser, chat_server, players, timed=True)
    red.click_move("h2e2")
    black.wait_ply(1)
    invite = red.page.input_value("#invite-url")  # (Black's seat link: not in Black's address bar)
    black.close()
    red.page.wait_for_selector("#absent-claims:not([hidden])")
    again = new_player(players, browser, chat_server)
    again.page.goto(invite)
    red.page.wait_for_selector("#absent", state="hidden")


def test_a_declined_draw_offer_is_shown_to_the_one_who_offered(
    browser: Browser, chat_server: Server, players: list[Player]
) -> None:
    red, black, _watch = friend_game(browser, chat_server, players)
    red.click_move("h2e2")
    black.wait_ply(1)
    red.page.click("#btn-draw")
    black.page.wait_for_selector("#offer:not([hidden])")
    black.page.click("#offer-decline")
    red.page.locator("#toast", has_text="Your draw offer was declined.").wait_for()
    assert black.page.is_hidden("#toast") or "declined" not in (
        black.page.text_content("#toast") or ""
    )


TOAST_PROBE = """async () => {
  const dom = await import("/static/js/dom.js");
  dom.toast("probe");  // (measured at once: its timer cannot hide it in between)
  const box = (id) => document.getElementById(id).getBoundingClientRect();
  const toast = box("toast"), bar = box("bar-bottom");
  return {
    overlaps: toast.left < bar.right && bar.left < toast.right
      && toast.top < bar.bottom && bar.top < toast.bottom,
    shown: toast.height > 0 && bar.height > 0,
  };
}"""


def test_a_toast_never_covers_the_players_own_clock(
    browser: Browser, chat_server: Server, players: list[Player]
) -> None:
    """Issue 24, 7: the toast sat at the foot of the window, over the bar with the player's
    own clock on a laptop's screen; it goes to the head of the window where it would."""
    red, _black, _watch = friend_game(browser, chat_server, players, timed=True)
    red.page.wait_for_selector("#bar-bottom .player-clock:not(:empty)")
    for width, height in ((1366, 660), (1200, 900), (390, 844), (900, 600)):
        red.page.set_viewport_size({"width": width, "height": height})
        for scroll in (0, 10_000):  # the top of the page, and scrolled to its end
            red.page.evaluate(f"window.scrollTo(0, {scroll})")
            found = red.page.evaluate(TOAST_PROBE)
            assert found["shown"], (width, height)
            assert not found["overlaps"], (width, height, scroll)


# A tab the player has left: the page reads document.hidden as the test sets it, and the
# notifications it makes are counted (headless chromium shows none).
HIDDEN_TAB = """
Object.defineProperty(Document.prototype, "hidden", {get: () => Boolean(window.__hidden)});
window.__notes = [];
const RealNotification = window.Notification;
window.Notification = class extends RealNotification {
  constructor(title, options) { super(title, options); window.__notes.push([title, options.body]); }
};
"""


def test_the_title_the_icon_and_a_notification_say_it_is_your_move(
    browser: Browser, chat_server: Server, players: list[Player]
) -> None:
    """Issue 24: nothing said it was your move outside the board. Now the tab's title and
    icon do, and a move that comes while the tab is hidden makes a notification for a
    player who allowed them."""
    red, black, _watch = friend_game(browser, chat_server, players)
    black.context.grant_permissions(["notifications"])
    black.context.add_init_script(HIDDEN_TAB)
    black.page.reload()
    black.page.wait_for_selector("svg.board .piece")
    black.page.click("#settings summary")
    black.page.check("#set-notify")
    black.page.click("#settings summary")
    assert red.page.title().startswith("● Your move · ")
    assert black.page.title() == "chuhan 楚漢"
    icon = 'link[rel="icon"]'
    red.page.wait_for_function(
        f"() => document.querySelector('{icon}').href.startsWith('data:image/svg+xml')"
    )
    black.page.evaluate("window.__hidden = true")
    red.click_move("h2e2")
    black.wait_ply(1)
    black.page.wait_for_function("() => document.title.startsWith('● Your move')")
    black.page.wait_for_function(
        f"() => document.querySelector('{icon}').href.startsWith('data:image/svg+xml')"
    )
    assert black.page.evaluate("window.__notes") == [["chuhan 楚漢", "Your move: C2.5"]]
    red.page.wait_for_function("() => !document.title.startsWith('●')")
    assert red.page.get_attribute(icon, "href") == "/static/img/favicon.svg"
    # A move seen in a shown tab makes no notification.
    black.page.evaluate("window.__hidden = false")
    black.click_move("h9g7")
    red.wait_ply(2)
    black.page.wait_for_function("() => !document.title.startsWith('●')")
    assert black.page.evaluate("window.__notes") == [["chuhan 楚漢", "Your move: C2.5"]]
    assert red.errors == [] and black.errors == []
