"""The web app in a real browser: whole games played by clicking and dragging on the board."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import chuhan
from chuhan.search import Searcher, SearchLimits

from .harness import Player, Server, create_from_home, new_player, open_custom_game

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Dialog

# One worker runs a module's tests, one after another: Playwright's sync API keeps an event
# loop running while the browser is open, which asyncio.run() elsewhere cannot share
# (conftest.py gives each module its own group).
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

# Red mates with doubled cannons on the e-file while Black shuffles a chariot.
MATING_LINE = ["h2e2", "a9a8", "e2e6", "a8a9", "b2b5", "a9a8", "b5e5"]


def test_friend_game_to_checkmate(browser: Browser, server: Server, players: list[Player]) -> None:
    red = new_player(players, browser, server)
    create_from_home(red, variant="xiangqi", kind="friend", colour="first")
    red.page.wait_for_selector("#invite:not([hidden])")
    invite = red.page.input_value("#invite-url")
    watch = red.page.input_value("#watch-url")
    assert "/g/" in invite and "?t=" in invite and watch.endswith("/w/" + invite.split("/")[4][:12])
    # The server listens on 127.0.0.1 only: the page says a friend elsewhere cannot join.
    assert red.page.is_visible("#invite-local")

    black = new_player(players, browser, server)
    black.page.goto(invite)
    black.page.wait_for_selector("svg.board .piece")
    watcher = new_player(players, browser, server)
    watcher.page.goto(watch)
    watcher.page.wait_for_selector("svg.board .piece")
    red.page.wait_for_selector("#invite", state="hidden")

    # Hovering a piece names it; Black sees the board from its side.
    title = red.page.text_content('svg.board .piece[data-square="e9"] title') or ""
    assert "King" in title and "Jiang" in title
    assert black.flipped() and not red.flipped()

    for ply, move in enumerate(MATING_LINE):
        mover, other = (red, black) if ply % 2 == 0 else (black, red)
        if ply == 2:
            mover.drag_move(move)
        else:
            mover.click_move(move)
        other.wait_ply(ply + 1)

    for player in (red, black, watcher):
        player.page.wait_for_selector("#banner:not([hidden])")
        assert "checkmated" in (player.page.text_content("#banner-reason") or "")
    # The move list in WXF (the default for English), and the last move highlighted.
    moves = red.page.locator("#moves .move:not(.empty)").all_text_contents()
    assert moves[0] == "C2.5" and len(moves) == len(MATING_LINE)
    assert red.page.locator("svg.board .last-move").count() == 2
    # The watcher has no game controls and cannot pick pieces.
    assert watcher.page.locator("svg.board .piece.movable").count() == 0
    assert watcher.page.locator("#btn-resign").is_hidden()

    # Stepping back through the game shows an earlier position, then back to the end.
    red.page.click("#nav-first")
    red.page.wait_for_selector("#viewing:not([hidden])")
    assert red.page.locator('svg.board .piece[data-square="h2"]').count() == 1
    red.page.click("#nav-live")
    red.page.wait_for_selector("#viewing", state="hidden")

    red.screenshot("xiangqi-checkmate-red")
    black.screenshot("xiangqi-checkmate-black")

    # The record: download the PGN, then replay it from the home page's import box.
    with red.page.expect_download() as download_info:
        red.page.click("#btn-pgn")
    record = download_info.value.path()
    assert "1-0" in record.read_text(encoding="utf-8")
    red.goto("/")
    # My finished game is listed, with how it ended for me.
    red.page.wait_for_selector("#games-over li")
    assert (red.page.text_content("#games-over li") or "").endswith("· Won")
    red.page.set_input_files("#import-file", str(record))
    red.page.wait_for_url("**/w/**")
    red.page.wait_for_selector("#banner:not([hidden])")
    assert red.page.locator("#moves .move:not(.empty)").count() == len(MATING_LINE)
    assert red.page.locator("svg.board .piece.movable").count() == 0
    for player in (red, black, watcher):
        assert player.errors == []


def test_computer_game_to_the_end(browser: Browser, server: Server, players: list[Player]) -> None:
    player = new_player(players, browser, server)
    create_from_home(player, variant="xiangqi", kind="computer", level="1", colour="first")
    page = player.page

    # Touch-move: once the cannon on h2 is picked, the one on b2 cannot be picked instead.
    page.click("#settings summary")
    page.check("#set-touch-move")
    page.click("#settings summary")
    page.mouse.click(*player.point("h2"))
    page.wait_for_selector('svg.board .dest[data-square="h9"]', state="attached")
    page.mouse.click(*player.point("b2"))
    assert page.locator('svg.board .dest[data-square="b9"]').count() == 0
    assert page.locator('svg.board .dest[data-square="h9"]').count() == 1
    page.mouse.click(*player.point("e2"))
    player.wait_ply(2)  # the computer answered

    # A second move, then a takeback (the computer agrees at once).
    player.click_move("h0g2")
    player.wait_ply(4)
    page.click("#btn-takeback")
    page.wait_for_function("() => window.chuhanApp.view.state.ply === 2")

    # Then the whole game: a depth-3 search plays Red's moves on the board, level 1 answers,
    # until the referee ends the game (a beginner's partner loses to that in 20-40 moves).
    searcher = Searcher(hash_mb=16)
    for _ in range(150):
        state = player.state()
        if state["status"] == "over":
            break
        board = chuhan.Board()
        for entry in state["moves"]:
            board.push_iccs(entry["iccs"])
        assert board.turn  # Red to move: the computer has answered
        ply = state["ply"]
        best = searcher.search(board, SearchLimits(depth=3)).best
        assert best is not None  # (the game is not over: Red has a move)
        player.click_move(best.iccs())
        page.wait_for_function(
            f"() => window.chuhanApp.view.state.ply >= {ply + 2}"
            " || window.chuhanApp.view.state.status === 'over'"
        )
    page.wait_for_selector("#banner:not([hidden])")
    reason = page.text_content("#banner-reason") or ""
    # Level 1 plays at random among its candidates, so the end is a mate or, now and then, a
    # stalemate (which loses in xiangqi): either way, Red's win by the rules.
    termination = player.state()["result"]["termination"]
    assert termination in ("checkmate", "stalemate"), termination
    assert reason.startswith("Red wins"), reason
    assert ("checkmated" in reason) == (termination == "checkmate"), reason
    player.screenshot("xiangqi-computer-end")

    # The engine's evaluation and best line of the position before the last move.
    page.click("#nav-prev")
    page.wait_for_selector("#viewing:not([hidden])")
    page.click("#btn-analyse")
    page.wait_for_function("() => document.getElementById('analysis-line').textContent.length > 0")
    assert page.locator("svg.board .hint").count() == 1  # the best move as an arrow
    assert "mate in 1" in (page.text_content("#analysis-score") or "")  # it sees the win

    # A rematch starts at once, colours swapped: the computer opens as Red; then resign.
    first_url = page.url
    page.click("#btn-rematch")
    page.wait_for_url(lambda url: url != first_url and "/g/" in url)
    player.wait_ply(1)
    assert player.flipped() and player.state()["you"]["role"] == "second"
    # Before its first move the player aborts (resigning is for a game begun).
    assert page.is_hidden("#btn-resign")
    page.click("#btn-abort")
    page.wait_for_selector("#banner:not([hidden])")
    assert "Game aborted by Black" in (page.text_content("#banner-reason") or "")
    assert player.errors == []


def test_janggi_setup_pass_and_bikjang(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    # Korean browser: Korean interface and Korean coordinates in the move list.
    player = new_player(players, browser, server, locale="ko-KR")
    create_from_home(player, variant="janggi", kind="local")
    page = player.page
    assert page.text_content("#btn-pass") == "한수쉼"

    # Han chooses first, then Cho.
    page.wait_for_selector("#setup:not([hidden])")
    page.click('.setup-choice[data-arrangement="상마상마"]:not([disabled])')
    page.wait_for_function("() => window.chuhanApp.view.state.setup.chooser === 'first'")
    page.click('.setup-choice[data-arrangement="마상마상"]:not([disabled])')
    page.wait_for_function("() => window.chuhanApp.view.state.status === 'playing'")
    # Janggi pieces: octagons, the general biggest.
    assert page.locator("svg.board .piece polygon.piece-body").count() == 32

    # Cho passes (asked first: Han could pass back and win on points).
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#btn-pass")
    player.wait_ply(1)
    player.click_move("e6f6")
    page.click("#btn-takeback")  # on one screen a takeback needs no answer
    page.wait_for_function("() => window.chuhanApp.view.state.ply === 1")
    player.click_move("e6f6")
    player.click_move("e3d3")  # the kings now face each other: bikjang
    page.wait_for_selector("svg.board circle.bikjang")
    assert page.locator("svg.board circle.bikjang").count() == 2
    moves = page.locator("#moves .move:not(.empty)").all_text_contents()
    assert len(moves) == 3 and moves[2] == "75졸74"  # GIB: row, file, piece, row, file
    player.screenshot("janggi-bikjang")
    # Letters for newcomers instead of characters.
    page.click("#settings summary")
    page.select_option("#set-pieces", "letters")
    assert page.text_content('svg.board .piece[data-square="e1"] .piece-label') == "K"
    page.select_option("#set-pieces", "chinese")
    assert page.text_content('svg.board .piece[data-square="e1"] .piece-label') == "楚"
    page.click("#settings summary")

    # Han accepts the bikjang by passing: counted on points, asked first.
    asked: list[str] = []

    def answer(dialog: Dialog) -> None:
        asked.append(dialog.message)
        dialog.accept()

    page.once("dialog", answer)
    page.click("#btn-pass")
    page.wait_for_selector("#banner:not([hidden])")
    # The Korean page names the ending in Korean, the referee's sentence on hover.
    reason = page.text_content("#banner-reason") or ""
    assert "빅장" in reason and "73.5" in reason, reason
    assert "bikjang" in (page.get_attribute("#banner-reason", "title") or "")
    assert asked and "빅장" in asked[0] and "73.5" in asked[0], asked
    player.screenshot("janggi-over")
    assert player.errors == []


def test_reload_and_server_restart(
    browser: Browser, own_server: Server, players: list[Player]
) -> None:
    red = new_player(players, browser, own_server)
    create_from_home(red, variant="xiangqi", kind="friend", colour="first")
    invite = red.page.input_value("#invite-url")
    black = new_player(players, browser, own_server)
    black.page.goto(invite)
    black.page.wait_for_selector("svg.board .piece")

    red.click_move("h2e2")
    black.click_move("h9g7")
    red.wait_ply(2)

    # A reload picks the game up where it was. Red has picked a piece meanwhile: the state
    # messages the reload causes (black leaves, black is back) must not drop it.
    red.wait_my_turn()
    red.page.mouse.click(*red.point("h0"))
    red.page.wait_for_selector('svg.board .dest[data-square="g2"]', state="attached")
    red.page.evaluate("window.seenState = window.chuhanApp.view.state")
    black.page.reload()
    black.page.wait_for_selector("svg.board .piece")
    black.wait_ply(2)
    red.page.wait_for_function(
        "() => window.chuhanApp.view.state !== window.seenState"
        " && window.chuhanApp.view.state.players.second.connected"
    )
    assert red.page.locator('svg.board .dest[data-square="g2"]').count() == 1
    version = red.version()
    red.page.mouse.click(*red.point("g2"))
    red.wait_version_after(version)
    black.wait_ply(3)

    # The server dies without warning and comes back on the same database.
    own_server.restart()
    for player in (red, black):
        player.page.wait_for_function(
            "() => document.getElementById('connection').hidden"
            " && window.chuhanApp.view.state.ply === 3",
            timeout=60000,
        )
    black.click_move("i9h9")
    red.wait_ply(4)
    red.click_move("i0h0")
    black.wait_ply(5)
    assert black.state()["moves"][-1]["iccs"] == "i0h0"
    black.screenshot("xiangqi-after-restart-black")

    # Offers: the other player sees them and answers.
    black.page.click("#btn-takeback")
    red.page.wait_for_selector("#offer:not([hidden])")
    assert "take back" in (red.page.text_content("#offer-text") or "")
    red.page.click("#offer-accept")
    black.page.wait_for_function("() => window.chuhanApp.view.state.ply === 3")
    red.page.click("#btn-draw")
    black.page.wait_for_selector("#offer:not([hidden])")
    black.page.click("#offer-decline")
    black.page.wait_for_selector("#offer", state="hidden")
    black.page.click("#btn-draw")
    red.page.wait_for_selector("#offer:not([hidden])")
    red.page.click("#offer-accept")
    for player in (red, black):
        player.page.wait_for_selector("#banner:not([hidden])")
    assert black.state()["result"]["termination"] == "agreement"


def test_clock_counts_down_warns_and_flags(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    """A game on a 12-second clock: the running clock counts down in the page, turns to
    the low-time look, and the referee ends the game on time."""
    player = new_player(players, browser, server)
    player.goto("/")
    created = player.page.evaluate(
        """async () => (await fetch("/api/games", {
            method: "POST", headers: {"Content-Type": "application/json"},
            body: JSON.stringify({kind: "local", variant: "xiangqi", time_control: "12s+0"}),
        })).json()"""
    )
    player.goto(created["seat_url"])
    page = player.page
    page.wait_for_selector("svg.board .piece")
    player.click_move("h2e2")  # Red's move; now Black's clock runs
    clock = "#bar-top .player-clock"  # Black, at the top of Red's view
    first = page.text_content(clock) or ""
    page.wait_for_function(f"() => document.querySelector('{clock}').textContent !== {first!r}")
    page.wait_for_selector("#bar-top.low-time")
    assert page.locator("#bar-bottom.clock-running").count() == 0  # Red's clock is stopped
    page.wait_for_selector("#banner:not([hidden])")
    assert player.state()["result"]["termination"] == "time"
    assert "Red wins" in (page.text_content("#banner-title") or "")
    assert page.locator("#bar-top.low-time").count() == 0  # the game is over
    assert player.errors == []


# Counts the sounds the page makes (each is built from buffer sources and oscillators).
COUNT_SOUNDS = """
window.__sounds = 0;
const RealContext = window.AudioContext;
window.AudioContext = class extends RealContext {
  createBufferSource() { window.__sounds += 1; return super.createBufferSource(); }
  createOscillator() { window.__sounds += 1; return super.createOscillator(); }
};
"""


def open_settings(page: Any) -> None:
    if not page.evaluate("document.getElementById('settings').open"):
        page.click("#settings summary")


def test_settings_records_and_a_phone(
    browser: Browser, server: Server, players: list[Player], tmp_path: Path
) -> None:
    player = new_player(players, browser, server)
    page = player.page
    page.add_init_script(COUNT_SOUNDS)
    create_from_home(player, variant="xiangqi", kind="local")

    # Sounds: a move makes one, none once they are switched off.
    player.click_move("h2e2")
    page.wait_for_function("() => window.__sounds > 0")
    open_settings(page)
    page.uncheck("#set-sound")
    heard = page.evaluate("window.__sounds")
    player.click_move("h9g7")
    page.wait_for_timeout(300)
    assert page.evaluate("window.__sounds") == heard

    # The language switch changes the buttons and, unless chosen, the move list's notation.
    assert page.text_content("#btn-flip") == "Flip board"
    assert page.locator("#moves .move:not(.empty)").first.text_content() == "C2.5"
    open_settings(page)
    page.select_option("#set-language", "zh-Hans")
    page.wait_for_function("() => document.getElementById('btn-flip').textContent === '翻转棋盘'")
    assert page.locator("#moves .move:not(.empty)").first.text_content() == "炮二平五"
    page.select_option("#set-language", "ko")
    assert page.text_content("#btn-flip") == "판 뒤집기"
    # A notation chosen by hand stays, whatever the language.
    page.select_option("#set-notation", "iccs")
    assert page.locator("#moves .move:not(.empty)").first.text_content() == "h2e2"
    page.select_option("#set-language", "en")
    assert page.locator("#moves .move:not(.empty)").first.text_content() == "h2e2"
    page.select_option("#set-pieces", "letters")
    assert page.text_content('svg.board .piece[data-square="e0"] text') == "K"

    # Flip, and back.
    assert not player.flipped()
    page.click("#btn-flip")
    assert player.flipped()
    page.click("#btn-flip")
    assert not player.flipped()

    # The FEN of the final position, downloaded once the game is over.
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("#btn-resign")
    page.wait_for_selector("#banner:not([hidden])")
    with page.expect_download() as download_info:
        page.click("#btn-fen")
    fen = download_info.value.path().read_text(encoding="utf-8").strip()
    board = chuhan.Board(fen)
    assert board.fen() == player.state()["fen"] and board.ply == 0

    # An XQF record (XQStudio's binary format) opens as a replay.
    from chuhan.records import GameRecord, write_xqf

    record = GameRecord.from_moves(
        [chuhan.Move.from_iccs(m) for m in MATING_LINE], headers={"Red": "Ada"}
    )
    record.result = "1-0"
    xqf = tmp_path / "mate.xqf"
    xqf.write_bytes(write_xqf(record))
    player.goto("/")
    page.set_input_files("#import-file", str(xqf))
    page.wait_for_url("**/w/**")
    page.wait_for_selector("#banner:not([hidden])")
    assert page.locator("#moves .move:not(.empty)").count() == len(MATING_LINE)

    # A seat link with a bad token is told so in words.
    game_id = page.url.split("/w/")[1].split("?")[0]
    player.goto(f"/g/{game_id}?t=not-a-real-token")
    page.wait_for_selector("#connection:not([hidden])")
    assert "not valid for this game" in (page.text_content("#connection") or "")
    assert player.errors == []

    # On a phone the board fits the screen's width, with nothing to scroll sideways.
    phone = Player(browser, server, viewport={"width": 390, "height": 844})
    players.append(phone)
    phone.goto(f"/w/{game_id}")
    phone.page.wait_for_selector("svg.board .piece")
    box = phone.page.locator("svg.board").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert phone.page.evaluate("document.documentElement.scrollWidth") <= 390
    # The move list follows the last move without scrolling the board out of sight.
    assert phone.page.evaluate("window.scrollY") == 0
    phone.screenshot("xiangqi-phone")


def test_home_page_before_its_answers_arrive(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    """The home page acts right while its requests are still on their way. A click on Start
    before /api/options answers creates the game (it used to fall through to the browser's
    own form submission: a reload of the home page)."""
    player = new_player(players, browser, server)
    page = player.page
    held: list[Any] = []
    page.route("**/api/options", lambda route: held.append(route))  # answered when let go
    player.goto("/")
    open_custom_game(page)
    page.check('input[name="variant"][value="xiangqi"]')
    page.check('input[name="kind"][value="local"]')
    page.click("#create")
    page.wait_for_timeout(500)
    assert page.url == server.url + "/", page.url  # neither reloaded nor gone on yet
    assert page.is_disabled("#create")
    assert len(held) == 1
    held[0].continue_()
    page.unroute("**/api/options")
    page.wait_for_url("**/g/**")
    page.wait_for_selector("svg.board .piece")
    assert player.state()["variant"] == "xiangqi"

    game_url = page.url

    # The home page lists the game in progress once, even when a language switch asks for the
    # list again while the first answer is on its way.
    asked: list[Any] = []
    page.route("**/api/games/mine", lambda route: asked.append(route))
    player.goto("/")
    open_settings(page)
    page.select_option("#set-language", "ko")
    page.select_option("#set-language", "en")
    for _ in range(600):  # a bound on a hang only
        if len(asked) == 3:
            break
        page.wait_for_timeout(100)
    assert len(asked) == 3
    for route in asked:
        route.continue_()
    page.unroute("**/api/games/mine")
    page.wait_for_selector("#games-playing li a")
    page.wait_for_timeout(300)
    entries = page.locator("#games-playing li a")
    assert entries.count() == 1
    # (the link is the seat's; the game's page left the key out of its address)
    href = entries.get_attribute("href") or ""
    assert href.split("?t=")[0] == game_url.removeprefix(server.url) and "?t=" in href
    assert page.is_hidden("#no-games")

    # A rule set chosen on the form survives a change of language; a change of game does not.
    player.goto("/")
    open_custom_game(page)
    page.check('input[name="variant"][value="janggi"]')
    page.wait_for_function("() => document.getElementById('rules').options.length > 1")
    page.select_option("#rules", "modern")
    open_settings(page)
    page.select_option("#set-language", "ko")
    assert page.input_value("#rules") == "modern"
    page.select_option("#set-language", "en")
    page.check('input[name="variant"][value="xiangqi"]')
    page.check('input[name="variant"][value="janggi"]')
    assert page.input_value("#rules") == "official"
    assert player.errors == []


RECORDS = Path(__file__).parent.parent / "data" / "records"


@pytest.mark.parametrize(
    ("fixture", "variant", "plies"),
    [("janggi_euckr.gib", "janggi", 20), ("xiangqi_dhtmlxq_gbk.ubb", "xiangqi", 16)],
)
def test_the_file_picker_opens_gib_and_dhtmlxq_records(
    browser: Browser, server: Server, players: list[Player], fixture: str, variant: str, plies: int
) -> None:
    player = new_player(players, browser, server)
    page = player.page
    player.goto("/")
    accepted = (page.get_attribute("#import-file", "accept") or "").split(",")
    assert Path(fixture).suffix in accepted
    page.set_input_files("#import-file", str(RECORDS / fixture))
    page.wait_for_url("**/w/**")
    page.wait_for_selector("#moves .move:not(.empty)")
    assert page.locator("#moves .move:not(.empty)").count() == plies
    assert player.state()["variant"] == variant
    assert player.errors == []
