"""Tournaments in a real browser (issue 23): two accounts, a round robin created on the home
page (its refusal shown beside the form first), entered from its page, round 1 paired by the
director, each player's page taking them to their game, the game played to a resignation,
and the standings showing the points."""

from __future__ import annotations

import re
import secrets
import shutil
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .harness import Player, Server, new_player
from .test_accounts import play_opening, sign_up

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def test_a_round_robin_is_created_joined_paired_played_and_scored(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    suffix = secrets.token_hex(3)
    director = new_player(players, browser, server, address="198.51.100.41")
    entrant = new_player(players, browser, server, address="198.51.100.42")
    sign_up(director, f"Dir{suffix}")
    sign_up(entrant, f"Ent{suffix}")

    page = director.page
    page.click("body")  # (closes the account menu)
    page.wait_for_selector("#tournaments:not([hidden])")
    page.click("#tournament-create summary")
    page.wait_for_selector("#tournament-form:not([hidden])")
    page.select_option("#tf-format", "round_robin")
    assert page.is_visible("#tf-cycles-row") and not page.is_visible("#tf-minutes-row")
    # Without a name the server refuses, and its sentence is shown beside the form.
    page.click("#tf-create")
    page.wait_for_selector("#tf-error:not([hidden])")
    assert "name" in (page.text_content("#tf-error") or "")
    director.screenshot("tournament-form")
    name = f"Club night {suffix}"
    page.fill("#tf-name", name)
    page.select_option("#tf-tiebreaks", "wxf")
    page.click("#tf-create")
    page.wait_for_url("**/t/**")
    address = page.url.removeprefix(server.url)
    page.wait_for_selector("#tp-join:not([hidden])")
    assert "Single round robin" in (page.text_content("#tp-settings") or "")
    assert page.is_visible("#tp-pair") and page.text_content("#tp-pair") == "Pair the next round"
    page.click("#tp-join")
    page.wait_for_selector("#tp-withdraw:not([hidden])")

    entrant.goto("/")
    entrant.page.wait_for_selector(f'#tournaments-created a[href="{address}"]')
    entrant.page.locator("#tournaments").scroll_into_view_if_needed()
    entrant.screenshot("tournaments-card")
    entrant.page.click(f'#tournaments-created a[href="{address}"]')
    entrant.page.wait_for_selector("#tp-join:not([hidden])")
    assert not entrant.page.is_visible("#tp-pair")  # (the director's only)
    entrant.page.click("#tp-join")
    entrant.page.wait_for_selector("#tp-withdraw:not([hidden])")

    # The director's page hears of the second entrant, then pairs round 1: both pages
    # take their players to the game by themselves.
    page.wait_for_function("() => document.querySelectorAll('#tp-entrants li').length === 2")
    page.click("#tp-pair")
    for player in (director, entrant):
        player.page.wait_for_url("**/g/**")
        player.page.wait_for_selector("svg.board .piece")
    red, black = (
        (director, entrant)
        if director.page.evaluate("window.chuhanApp.view.role") == "first"
        else (entrant, director)
    )
    assert black.page.evaluate("window.chuhanApp.view.role") == "second"
    play_opening(red, black)
    black.page.on("dialog", lambda dialog: dialog.accept())
    black.page.click("#btn-resign")
    red.page.wait_for_selector("#banner:not([hidden])")

    # Back on the tournament's page (the finished game does not open again): the result,
    # the points, the tie-break columns in the WXF order, the TRF link.
    for player in (red, black):
        player.goto(address)
    red_name = f"Dir{suffix}" if red is director else f"Ent{suffix}"
    black_name = f"Ent{suffix}" if red is director else f"Dir{suffix}"
    points = page.locator(f'#tp-standings tr[data-name="{red_name}"] .tp-points')
    page.wait_for_function(
        "(name) => { const cell = document.querySelector("
        '`#tp-standings tr[data-name="${name}"] .tp-points`); '
        "return cell && cell.textContent === '1'; }",
        arg=red_name,
    )
    assert points.text_content() == "1"
    assert page.text_content(f'#tp-standings tr[data-name="{black_name}"] .tp-points') == "0"
    assert page.text_content("#tp-pairings .tp-result") == "1-0"
    assert page.locator("#tp-pairings a.tp-watch").count() == 1
    headers = page.locator("#tp-standings th").all_text_contents()
    assert headers[:4] == ["#", "Name", "Points", "Sonneborn-Berger"]
    assert page.is_visible("#tp-trf")
    # The games' download: the page's link, fetched as the browser would, holds the game.
    assert page.is_visible("#tp-pgn")
    pgn = page.evaluate("async () => (await fetch(document.querySelector('#tp-pgn').href)).text()")
    assert '[Round "1.1"]' in pgn and '[Result "1-0"]' in pgn
    director.screenshot("tournament-page")
    for player in (red, black):
        assert "/t/" in player.page.url  # (stayed on the tournament's page)
    # (the one error logged: the refused creation's answer, a 409)
    assert director.errors == [
        "Failed to load resource: the server responded with a status of 409 (Conflict)"
    ]
    assert entrant.errors == []


def test_an_arena_player_meets_a_computer_and_berserks_from_the_game_page(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    suffix = secrets.token_hex(3)
    director = new_player(players, browser, server, address="198.51.100.43")
    sign_up(director, f"Arena{suffix}")
    page = director.page
    # An arena starting in a few seconds (the form's start is to the minute), made through
    # the API the form calls; its page is then used as a director would.
    created = page.evaluate(
        """async (name) => {
            const response = await fetch("/api/tournaments", {method: "POST",
                headers: {"Content-Type": "application/json"},
                body: JSON.stringify({name, format: "arena", minutes: 30, time_control: "3+2",
                                      starts: Date.now() / 1000 + 3})});
            return response.json();
        }""",
        f"Arena {suffix}",
    )
    director.goto(f"/t/{created['tournament']['id']}")
    page.wait_for_selector("#tp-computer:not([hidden])")
    page.select_option("#tp-computer-level", "1")
    page.click("#tp-computer")
    page.wait_for_selector("#tp-entrants li:has-text('Computer 1 (level 1)')")
    page.click("#tp-join")
    # The driver starts the arena and pairs the two; the page opens the game by itself.
    page.wait_for_url("**/g/**", timeout=60_000)
    page.wait_for_selector("svg.board .piece")
    seat = page.evaluate("window.chuhanApp.view.role")
    page.wait_for_selector("#btn-berserk:not([hidden])")
    assert page.text_content("#btn-berserk") == "Berserk"
    page.click("#btn-berserk")
    page.wait_for_function(
        "(seat) => { const state = window.chuhanApp.view.state; "
        "return state && state.clock[seat].remaining_ms <= 90000; }",
        arg=seat,
    )
    page.wait_for_selector("#btn-berserk", state="hidden")
    assert 60_000 < director.state()["clock"][seat]["remaining_ms"] <= 90_000
    director.screenshot("arena-berserk")
    assert director.errors == []


def test_a_player_pauses_and_comes_back_under_the_countdown_to_the_start(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    suffix = secrets.token_hex(3)
    player = new_player(players, browser, server, address="198.51.100.44")
    sign_up(player, f"Pauser{suffix}")
    page = player.page
    created = page.evaluate(
        """async (name) => {
            const response = await fetch("/api/tournaments", {method: "POST",
                headers: {"Content-Type": "application/json"},
                body: JSON.stringify({name, format: "swiss", rounds: 3,
                                      starts: Date.now() / 1000 + 2 * 3600})});
            return response.json();
        }""",
        f"Swiss {suffix}",
    )
    player.goto(f"/t/{created['tournament']['id']}")
    # Two hours to the start, counted down each second (2:00:00, 1:59:59, ...).
    page.wait_for_selector("#tp-countdown:not([hidden])")
    assert re.fullmatch(r"Starts in (2:00:00|1:59:\d\d)", page.text_content("#tp-countdown") or "")
    first = page.text_content("#tp-countdown")
    page.wait_for_function(
        "(first) => document.querySelector('#tp-countdown').textContent !== first", arg=first
    )
    page.click("#tp-join")
    page.wait_for_selector("#tp-pause:not([hidden])")
    page.click("#tp-pause")
    page.wait_for_selector("#tp-entrants li:has-text('paused')")
    assert page.is_visible("#tp-resume") and not page.is_visible("#tp-pause")
    player.screenshot("tournament-paused")
    page.click("#tp-resume")
    page.wait_for_selector("#tp-pause:not([hidden])")
    assert "paused" not in (page.text_content("#tp-entrants") or "")
    # A half-point bye asked for round 1, then called off (the button says which round);
    # two computers entered first, so that round 1 keeps two players to pair without her.
    for _ in range(2):
        page.evaluate(
            """async (id) => {
                await fetch(`/api/tournaments/${id}/computer`, {method: "POST",
                    headers: {"Content-Type": "application/json"}, body: '{"level": 1}'});
            }""",
            created["tournament"]["id"],
        )
    page.wait_for_function("() => document.querySelectorAll('#tp-entrants li').length === 3")
    page.click("#tp-bye")
    page.wait_for_selector("#tp-entrants li:has-text('½-point bye in round 1')")
    assert page.text_content("#tp-bye-cancel") == "Cancel my ½-point bye (round 1)"
    assert not page.is_visible("#tp-bye")
    page.click("#tp-bye-cancel")
    page.wait_for_selector("#tp-bye:not([hidden])")
    assert "½-point bye" not in (page.text_content("#tp-entrants") or "")
    assert player.errors == []


def test_the_tournament_page_is_live_and_has_a_chat_with_mutes(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    """A page is sent each change without reloading (a join made elsewhere); signed-in
    players chat, in Korean too; a visitor reads and is told to sign in; a mute hides a
    sender's lines in this browser, and is undone."""
    suffix = secrets.token_hex(3)
    director = new_player(players, browser, server, address="198.51.100.45")
    talker = new_player(players, browser, server, address="198.51.100.46", locale="ko-KR")
    visitor = new_player(players, browser, server, address="198.51.100.47")
    sign_up(director, f"Host{suffix}")
    sign_up(talker, f"Talk{suffix}")
    created = call(
        director.page,
        "POST",
        "/api/tournaments",
        {"name": f"Live {suffix}", "format": "swiss", "rounds": 3, "starts": time.time() + 7200},
    )
    address = f"/t/{created['tournament']['id']}"
    for player in (director, talker, visitor):
        player.goto(address)
        player.page.wait_for_selector("#tp-chat-lines li")
    assert director.page.text_content("#tp-chat-lines") == "No one has said anything yet."
    assert visitor.page.is_visible("#tp-chat-sign-in") and visitor.page.is_hidden("#tp-chat-form")
    # A join from another page reaches the others by themselves.
    talker.page.click("#tp-join")
    for player in (director, visitor):
        player.page.wait_for_selector(f"#tp-entrants li:has-text('Talk{suffix}')")
    talker.page.fill("#tp-chat-input", "잘 부탁드립니다")
    talker.page.click("#tp-chat-send")
    director.page.fill("#tp-chat-input", "Welcome, everyone")
    director.page.press("#tp-chat-input", "Enter")
    for player in (director, talker, visitor):
        player.page.wait_for_function(
            "() => document.querySelectorAll('#tp-chat-lines .chat-line').length === 2"
        )
        names = player.page.eval_on_selector_all(
            "#tp-chat-lines .chat-name", "nodes => nodes.map(n => n.textContent)"
        )
        assert names == [f"Talk{suffix}", f"Host{suffix}"]
    assert talker.page.text_content("#tp-chat-lines .chat-line .chat-text") == "잘 부탁드립니다"
    # A line over the limit is refused, said in the page's language, and given back.
    talker.page.fill("#tp-chat-input", "가" * 301)
    talker.page.click("#tp-chat-send")
    talker.page.wait_for_selector("#tp-chat-error:not([hidden])")
    assert talker.page.text_content("#tp-chat-error") == "메시지는 300자까지 보낼 수 있습니다."
    assert talker.page.input_value("#tp-chat-input") == "가" * 301
    # The visitor mutes the director, and the mute outlives a reload.
    visitor.page.click(f"#tp-chat-lines .chat-line:has-text('Host{suffix}') .chat-mute")
    visitor.page.wait_for_selector("#tp-chat-muted:not([hidden])")
    assert visitor.page.locator("#tp-chat-lines .chat-line").count() == 1
    visitor.page.reload()
    visitor.page.wait_for_selector("#tp-chat-muted:not([hidden])")
    visitor.page.wait_for_selector("#tp-chat-lines .chat-line")
    assert visitor.page.locator("#tp-chat-lines .chat-line").count() == 1
    visitor.page.click("#tp-chat-muted .chat-unmute")
    visitor.page.wait_for_function(
        "() => document.querySelectorAll('#tp-chat-lines .chat-line').length === 2"
    )
    talker.screenshot("tournament-chat")
    for player in (director, talker, visitor):
        assert player.errors == []


#: A club's players over the board: names and clubs in four scripts, one club name long
#: enough to wrap in its column.
CLUB_PLAYERS = (
    ("Lü Qin", "Guangdong", 2550),
    ("许银川", "广东", 2500),
    ("김민준", "서울 장기 클럽", 2100),
    ("Anna Weber", "Schachklub Kreuzberg von 1921 e.V., Abteilung Xiangqi", 1800),
    ("Nguyễn Thành Bảo", "Hà Nội", 1750),
)
#: The printed margins (print.css's @page), in PDF points.
MARGIN_X = 12 * 72 / 25.4
MARGIN_Y = 14 * 72 / 25.4
PRINTS = Path(__file__).resolve().parents[2] / "test-output" / "print"


def call(page: Any, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    """The API from the page itself (its session, its origin)."""
    answer = page.evaluate(
        """async ([method, path, body]) => {
            const response = await fetch(path, {
                method, headers: {"content-type": "application/json"},
                body: body === null ? undefined : JSON.stringify(body),
            });
            return {status: response.status, body: await response.json()};
        }""",
        [method, path, body],
    )
    assert answer["status"] in (200, 201), answer
    return answer["body"]


def printed(page: Any, url: str, paper: str, name: str) -> tuple[int, list[str], str]:
    """The page at ``url`` printed to PDF on ``paper``: its page count, each page's text
    (pdftotext), and every word's box checked inside the printed margins (no column cut
    off); page 1 rendered to a PNG beside the PDF (pdftoppm)."""
    page.goto(url)
    page.wait_for_selector("body[data-ready]")
    PRINTS.mkdir(parents=True, exist_ok=True)
    pdf = PRINTS / f"{name}-{paper}.pdf"
    page.pdf(path=str(pdf), format=paper)
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    pages = int(re.search(r"^Pages:\s+(\d+)", info.stdout, re.M).group(1))  # type: ignore[union-attr]
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    boxes = subprocess.run(
        ["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    for size in re.finditer(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', boxes, re.S):
        width, height = float(size.group(1)), float(size.group(2))
        for word in re.finditer(
            r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<',
            size.group(3),
        ):
            x_min, y_min, x_max, y_max = (float(word.group(n)) for n in range(1, 5))
            assert x_min >= MARGIN_X - 1 and x_max <= width - MARGIN_X + 1, (
                name,
                paper,
                word.group(5),
            )
            # (a CJK font's boxes are taller than its glyphs: the line's middle, for y)
            middle = (y_min + y_max) / 2
            assert MARGIN_Y < middle < height - MARGIN_Y, (
                name,
                paper,
                word.group(5),
            )
    subprocess.run(
        [
            "pdftoppm",
            "-png",
            "-r",
            "60",
            "-f",
            "1",
            "-l",
            "1",
            "-singlefile",
            str(pdf),
            str(pdf.with_suffix("")),
        ],
        check=True,
    )
    return pages, text.split("\f")[:pages], text


def test_a_directors_printed_pages_fit_a4_and_letter_in_the_four_languages(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    if shutil.which("pdftotext") is None:
        pytest.fail("poppler-utils is missing: run make chromium")
    suffix = secrets.token_hex(3)
    director = new_player(players, browser, server, address="198.51.100.61")
    sign_up(director, f"Td{suffix}")
    page = director.page
    event = f"Club championship {suffix}"
    created = call(
        page,
        "POST",
        "/api/tournaments",
        {
            "name": event,
            "format": "swiss",
            "rounds": 3,
            "starts": time.time() + 3600,
            "over_the_board": True,
            "tiebreaks": "wxf",
        },
    )
    tournament_id = created["tournament"]["id"]
    base = f"/api/tournaments/{tournament_id}"
    for name, club, rating in CLUB_PLAYERS:
        call(page, "POST", f"{base}/players", {"name": name, "club": club, "rating": rating})
    boards = call(page, "POST", f"{base}/pair", {})["tournament"]["paired"][0]
    assert [board["black"] is None for board in boards] == [False, False, True]
    call(page, "POST", f"{base}/result", {"round": 1, "board": 1, "result": "1-0"})
    call(page, "POST", f"{base}/result", {"round": 1, "board": 2, "result": "1/2-1/2"})
    url = f"{server.url}/t/{tournament_id}/print"
    for paper in ("A4", "Letter"):
        # The pairing sheet, in English and in traditional Chinese: one page.
        pages, texts, text = printed(page, f"{url}/pairings?round=1&lang=en", paper, "pairings-en")
        assert pages == 1
        for expected in (
            "Pairings",
            "Round 1",
            "Result",
            "Bye",
            "Lü Qin",
            "许银川",
            "Abteilung",
            "½-½",
        ):
            assert expected in text, (paper, expected)
        pages, texts, text = printed(
            page, f"{url}/pairings?round=1&lang=zh-Hant", paper, "pairings-zh-Hant"
        )
        assert pages == 1 and "對陣表" in text and "輪空" in text and "紅方" in text
        # One score sheet a board (the bye has none), in simplified Chinese.
        pages, texts, text = printed(
            page, f"{url}/scoresheets?round=1&lang=zh-Hans", paper, "sheets-zh-Hans"
        )
        assert pages == 2
        for number, sheet in enumerate(texts, start=1):
            assert "记录纸" in sheet and event in sheet and "签名" in sheet, (paper, number)
            assert re.search(rf"\b{number}\s*·\s*第\s*1\s*轮", sheet), (paper, sheet)
            assert re.search(r"\b60\b", sheet), (paper, "the grid's last move")
        assert [name for name, _, _ in CLUB_PLAYERS if name in texts[0]] == ["Lü Qin", "김민준"]
        # The standings with the WXF tie-break columns, in Korean.
        pages, texts, text = printed(page, f"{url}/standings?lang=ko", paper, "standings-ko")
        assert pages == 1
        for expected in ("1라운드 후 순위", "순위", "소속", "소네본", "승자승", "Nguyễn", "2550"):
            assert expected in text, (paper, expected)
    assert not director.errors, director.errors


def test_a_director_runs_an_over_the_board_round_from_the_tournament_page(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    suffix = secrets.token_hex(3)
    director = new_player(players, browser, server, address="198.51.100.62")
    sign_up(director, f"Tp{suffix}")
    page = director.page
    page.click("body")  # (closes the account menu)
    page.click("#tournament-create summary")
    page.fill("#tf-name", f"Saturday club {suffix}")
    page.select_option("#tf-format", "swiss")
    page.check("#tf-otb")
    page.click("#tf-create")
    page.wait_for_url("**/t/**")
    page.wait_for_selector("#tp-player-form:not([hidden])")
    # An empty name is refused with the server's sentence.
    page.click("#tp-add-player")
    page.wait_for_selector("#tp-error:not([hidden])")
    assert "the player's name is empty" in (page.text_content("#tp-error") or "")
    for name, club, rating in CLUB_PLAYERS:
        page.fill("#tp-player-name", name)
        page.fill("#tp-player-club", club)
        page.fill("#tp-player-rating", str(rating))
        page.click("#tp-add-player")
        page.wait_for_selector(f"#tp-entrants li:has-text('{name}')")
    # One did not come: removed before the pairing.
    page.click("#tp-entrants li:has-text('Nguyễn') .tp-remove")
    page.wait_for_function("() => document.querySelectorAll('#tp-entrants li').length === 4")
    # One is late: marked absent, then present again (the button says which it does).
    page.click("#tp-entrants li:has-text('Anna Weber') .tp-absent")
    page.wait_for_selector(
        "#tp-entrants li:has-text('Anna Weber') .tp-absent:has-text('Present again')"
    )
    assert "paused" in (page.text_content("#tp-entrants li:has-text('Anna Weber')") or "")
    page.click("#tp-entrants li:has-text('Anna Weber') .tp-absent")
    page.wait_for_selector("#tp-entrants li:has-text('Anna Weber') .tp-absent:has-text('Absent')")
    page.click("#tp-pair")
    page.wait_for_selector("#tp-pairings tr[data-board='2'] .tp-enter-result")
    assert not page.is_visible("#tp-player-form") and page.is_visible("#tp-print")
    assert not page.is_visible("#tp-join") and not page.is_visible("#tp-computer")
    # A wrong move is named; the right ones are kept as ICCS.
    board = "#tp-pairings tr[data-board='1']"
    page.fill(f"{board} .tp-moves", "h2e2 h9g7 h2h9")
    page.click(f"{board} .tp-save-moves")
    page.wait_for_selector("#tp-error:not([hidden])")
    assert "move 3 ('h2h9') is refused" in (page.text_content("#tp-error") or "")
    page.fill(f"{board} .tp-moves", "炮二平五 马8进7")
    page.click(f"{board} .tp-save-moves")
    page.wait_for_function(
        "() => document.querySelector(\"#tp-pairings tr[data-board='1'] .tp-moves\")"
        ".value === 'h2e2 h9g7'"
    )
    for number, result in ((1, "1-0"), (2, "1/2-1/2")):
        row = f"#tp-pairings tr[data-board='{number}']"
        page.select_option(f"{row} .tp-result-select", result)
        page.click(f"{row} .tp-enter-result")
        page.wait_for_function(
            f"() => document.querySelector(\"{row} .tp-enter-result\").textContent === 'Correct'"
        )
    # Board 2 corrected: Black won it.
    row = "#tp-pairings tr[data-board='2']"
    page.select_option(f"{row} .tp-result-select", "0-1")
    page.click(f"{row} .tp-enter-result")
    page.wait_for_function(
        f"() => document.querySelector(\"{row} .tp-result\").textContent === '0-1'"
    )
    points = page.eval_on_selector_all(
        "#tp-standings .tp-points", "cells => cells.map(c => c.textContent)"
    )
    assert sorted(points) == ["0", "0", "1", "1"]
    # Anna Weber asks for a half-point bye in round 2: the director gives it, round 2 is
    # paired without her, and the standings count her half point.
    anna = "#tp-standings tr[data-name='Anna Weber'] .tp-points"
    before = page.text_content(anna)
    page.click("#tp-entrants li:has-text('Anna Weber') .tp-half-bye-button")
    page.wait_for_selector(
        "#tp-entrants li:has-text('Anna Weber') .tp-half-bye-button"
        ":has-text('Cancel the ½-point bye (round 2)')"
    )
    assert "½-point bye in round 2" in (page.text_content("#tp-entrants") or "")
    page.click("#tp-pair")
    page.wait_for_selector("#tp-pairings tr.tp-half-bye:has-text('Anna Weber')")
    assert "½-point bye" in (page.text_content("#tp-pairings tr.tp-half-bye") or "")
    assert page.text_content("#tp-pairings-title") == "Round 2"
    paired = page.eval_on_selector_all(
        "#tp-pairings tr[data-board] .tp-red, #tp-pairings tr[data-board] .tp-black",
        "cells => cells.map(c => c.textContent)",
    )
    assert "Anna Weber" not in paired and len(paired) == 4  # (one game and the bye)
    after = {"0": "½", "1": "1½"}[before or ""]
    page.wait_for_function(f"() => document.querySelector(\"{anna}\").textContent === '{after}'")
    assert not page.is_visible("#tp-entrants li:has-text('Anna Weber') .tp-half-bye-button")
    director.screenshot("tournament-over-the-board")
    # (the two refusals above are the browser's only console lines: their 409s)
    unexpected = [line for line in director.errors if "409 (Conflict)" not in line]
    assert len(director.errors) == 2 and not unexpected, director.errors


def move_once_and_resign(player: Player) -> None:
    """On the game the tournament's page opened: one move each (the computer answers or
    opens), then the player resigns."""
    page = player.page
    page.wait_for_selector("svg.board .piece")
    if page.evaluate("window.chuhanApp.view.role") == "first":
        player.click_move("h2e2")
    else:
        player.wait_ply(1)
        player.click_move("a9a8")  # (legal after any first move of Red's)
    player.wait_ply(2)
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#btn-resign")
    page.wait_for_selector("#banner:not([hidden])")


def test_a_swiss_of_two_accounts_and_two_computers_is_played_to_its_final_standings(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    suffix = secrets.token_hex(3)
    director = new_player(players, browser, server, address="198.51.100.63")
    entrant = new_player(players, browser, server, address="198.51.100.64")
    sign_up(director, f"Sd{suffix}")
    sign_up(entrant, f"Se{suffix}")
    body = {"name": f"Four {suffix}", "format": "swiss", "rounds": 2, "starts": time.time() + 3600}
    tournament_id = call(director.page, "POST", "/api/tournaments", body)["tournament"]["id"]
    address = f"/t/{tournament_id}"
    for player in (director, entrant):
        player.goto(address)
        player.page.click("#tp-join")
        player.page.wait_for_selector("#tp-withdraw:not([hidden])")
    page = director.page
    page.select_option("#tp-computer-level", "1")
    for count in (3, 4):
        page.click("#tp-computer")
        page.wait_for_function(
            f"() => document.querySelectorAll('#tp-entrants li').length === {count}"
        )
    for _round in (1, 2):
        # The director pairs the round once the last has its results (each human meets a
        # computer: computers are kept apart); each page opens its player's game by itself.
        page.wait_for_function(
            "() => [...document.querySelectorAll('#tp-pairings .tp-result')]"
            ".every(cell => cell.textContent !== '–')"
        )
        page.click("#tp-pair")
        for player in (director, entrant):
            player.page.wait_for_url("**/g/**")
        for player in (director, entrant):
            move_once_and_resign(player)
        for player in (director, entrant):
            player.goto(address)
    page.wait_for_function("() => document.querySelector('#tp-when').textContent === 'Finished'")
    points = {
        row.get_attribute("data-name"): row.locator(".tp-points").text_content()
        for row in page.locator("#tp-standings tbody tr").all()
    }
    assert points == {
        "Computer 1 (level 1)": "2",
        "Computer 2 (level 1)": "2",
        f"Sd{suffix}": "0",
        f"Se{suffix}": "0",
    }
    director.screenshot("tournament-swiss-computers-final")


def games_of(page: Any, tournament_id: str) -> dict[str, list[str]]:
    """Each game in play of the arena by its id: the names of its players."""
    shown = call(page, "GET", f"/api/tournaments/{tournament_id}")["tournament"]
    return {
        game["game"]: [game["red"], game["black"]]
        for game in shown.get("games", [])
        if game["result"] is None and game["game"]
    }


def every_game(page: Any, tournament_id: str) -> list[dict[str, Any]]:
    """Every game of the arena, read a page at a time, newest first."""
    games: list[dict[str, Any]] = []
    path: str | None = f"/api/tournaments/{tournament_id}/games"
    while path is not None:
        answer = call(page, "GET", path)
        games += answer["games"]
        after = answer["next"]
        path = None if after is None else f"/api/tournaments/{tournament_id}/games?before={after}"
    return games


def play_out(players: dict[str, Player], names: list[str]) -> None:
    """The game the tournament's page opened for the players named (one or both of its
    two): one move each, then Red resigns."""
    humans = [players[name] for name in names if name in players]
    for player in humans:
        player.page.wait_for_url("**/g/**")
        player.page.wait_for_selector("svg.board .piece")
    if len(humans) == 1:
        move_once_and_resign(humans[0])
        return
    red, black = sorted(humans, key=lambda p: p.page.evaluate("window.chuhanApp.view.role"))
    red.click_move("h2e2")
    black.wait_ply(1)
    black.click_move("a9a8")
    red.wait_ply(2)
    red.page.once("dialog", lambda dialog: dialog.accept())
    red.page.click("#btn-resign")
    for player in (red, black):
        player.page.wait_for_selector("#banner:not([hidden])")


@pytest.mark.slow  # (a minute's arena, played out in real time: make test-slow)
def test_a_short_arena_of_two_accounts_and_a_computer_is_played_to_its_final_standings(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    """A one-minute arena: two accounts and a level-1 computer, each account's page opening
    its games by itself; every game played out (one move each, then Red resigns) until the
    arena ends; the final standings are the arena's scoring of the games played (a win 2,
    double after two wins in a row)."""
    suffix = secrets.token_hex(3)
    first = new_player(players, browser, server, address="198.51.100.71")
    second = new_player(players, browser, server, address="198.51.100.72")
    sign_up(first, f"Ra{suffix}")
    sign_up(second, f"Rb{suffix}")
    body = {
        "name": f"Minute {suffix}",
        "format": "arena",
        "minutes": 1,
        "time_control": "1+0",
        "starts": time.time() + 8,
    }
    tournament_id = call(first.page, "POST", "/api/tournaments", body)["tournament"]["id"]
    address = f"/t/{tournament_id}"
    # (a visitor's page asks the API: the players' pages go to their games by themselves)
    watcher = new_player(players, browser, server, address="198.51.100.73")
    watcher.goto(address)
    for player in (first, second):
        player.goto(address)
        player.page.click("#tp-join")
        player.page.wait_for_selector("#tp-withdraw:not([hidden])")
    first.page.select_option("#tp-computer-level", "1")
    first.page.click("#tp-computer")
    first.page.wait_for_function("() => document.querySelectorAll('#tp-entrants li').length === 3")
    by_name = {f"Ra{suffix}": first, f"Rb{suffix}": second}
    played: set[str] = set()
    deadline = time.monotonic() + 600  # a bound on a hang only: the arena ends by its clock
    while time.monotonic() < deadline:
        shown = call(watcher.page, "GET", f"/api/tournaments/{tournament_id}")["tournament"]
        if shown["status"] == "finished":
            break
        for game_id, names in games_of(watcher.page, tournament_id).items():
            if game_id in played or not set(names) & set(by_name):
                continue
            play_out(by_name, names)
            played.add(game_id)
            for name in names:
                if name in by_name:
                    by_name[name].goto(address)
        watcher.page.wait_for_timeout(200)  # (a poll of the tournament, not an ordering)
    final = call(watcher.page, "GET", f"/api/tournaments/{tournament_id}")["tournament"]
    assert final["status"] == "finished", final
    games = every_game(watcher.page, tournament_id)  # (the page has the newest 30 only)
    assert len(games) == final["games_count"]
    assert len(games) >= 2 and all(game["result"] in ("1-0", "0-1") for game in games)
    computer = "Computer 1 (level 1)"
    wins = 0
    for game in games:
        winner = game["red"] if game["result"] == "1-0" else game["black"]
        wins += winner == computer
    expected = 2 * min(wins, 2) + 4 * max(wins - 2, 0)  # (the computer never loses here)
    points = {line["name"]: line["points"] for line in final["standings"]}
    assert points[computer] == expected, (games, points)
    page = watcher.page
    page.wait_for_function("() => document.querySelector('#tp-when').textContent === 'Finished'")
    shown_points = {
        row.get_attribute("data-name"): float(row.locator(".tp-points").text_content() or "nan")
        for row in page.locator("#tp-standings tbody tr").all()
    }
    assert shown_points == points
    watcher.screenshot("arena-final-standings")
