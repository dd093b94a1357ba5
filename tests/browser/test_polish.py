"""Issue 14's bugs in a real browser: a finished position says why there is nothing to
analyse, an imported record shows its players and an unknown result, import errors name
their game once, a byo-yomi loss on time reads 0, the computer is named in the page's
language, a janggi pass that ends the game is asked first, and the setup choices are
pictures of the back rank."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from chuhan.records import GameRecord, write_pgn
from chuhan.squares import Move

from .harness import Player, Server, create_from_home, new_player

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

MATE_FEN = "3k5/R8/3R5/9/9/9/9/9/9/4K4 w"


def start_local_game(player: Player, **fields: str) -> None:
    """A game for both sides on this screen, made through the API (for fields the home
    page's form has no input for: a FEN, a time control), then opened."""
    player.goto("/")
    body = {"kind": "local", "variant": "xiangqi", **fields}
    created = player.page.evaluate(
        """async (body) => (await fetch("/api/games", {
            method: "POST", headers: {"Content-Type": "application/json"},
            body: JSON.stringify(body),
        })).json()""",
        body,
    )
    player.goto(created["seat_url"])
    player.page.wait_for_selector("svg.board .piece")


def import_file(player: Player, path: Path) -> None:
    player.goto("/")
    player.page.set_input_files("#import-file", str(path))


def test_a_checkmated_position_says_why_there_is_nothing_to_analyse(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    start_local_game(player, fen=MATE_FEN)
    player.click_move("a8d8")
    page = player.page
    page.wait_for_selector("#banner:not([hidden])")
    page.click("#btn-analyse")
    page.wait_for_selector("#analysis-none:not([hidden])")
    said = page.text_content("#analysis-none") or ""
    assert said == "Nothing to analyse: Red wins: Black is checkmated by the chariot on d8."
    assert page.is_hidden("#analysis-eval")  # no "Thinking…" left behind
    assert player.errors == []


def test_the_analysis_of_a_mate_is_named_in_the_page_language(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server, locale="zh-CN")
    start_local_game(player, fen=MATE_FEN)
    player.click_move("a8d8")
    player.page.wait_for_selector("#banner:not([hidden])")
    player.page.click("#btn-analyse")
    player.page.wait_for_selector("#analysis-none:not([hidden])")
    assert player.page.text_content("#analysis-none") == "无可分析：将死"
    assert "checkmated" in (player.page.get_attribute("#analysis-none", "title") or "")


def open_record(
    browser: Browser, server: Server, players: list[Player], tmp_path: Path, result: str
) -> Player:
    """A two-move record of Alice (Red) against Bob (Black), opened from the home page."""
    record = GameRecord.from_moves(
        [Move.from_iccs(m) for m in ("h2e2", "h9g7")], headers={"Red": "Alice", "Black": "Bob"}
    )
    record.result = result
    path = tmp_path / "record.pgn"
    path.write_text(write_pgn(record), encoding="utf-8")
    assert f'[Result "{result}"]' in path.read_text(encoding="utf-8")
    player = new_player(players, browser, server)
    import_file(player, path)
    player.page.wait_for_url("**/w/**")
    player.page.wait_for_selector("#banner:not([hidden])")
    return player


def test_an_imported_record_shows_its_players(
    browser: Browser, server: Server, players: list[Player], tmp_path: Path
) -> None:
    player = open_record(browser, server, players, tmp_path, "0-1")
    assert player.page.text_content("#bar-bottom .player-name") == "Red · Alice"
    assert player.page.text_content("#bar-top .player-name") == "Black · Bob"
    assert player.errors == []


def test_a_record_without_a_result_is_not_called_a_draw(
    browser: Browser, server: Server, players: list[Player], tmp_path: Path
) -> None:
    player = open_record(browser, server, players, tmp_path, "*")
    assert player.page.text_content("#banner-title") == "No result"
    assert player.errors == []


def test_import_errors_name_their_game_once(
    browser: Browser, server: Server, players: list[Player], tmp_path: Path
) -> None:
    good = GameRecord.from_moves([Move.from_iccs("h2e2")], headers={"Event": "Fine"})
    pgn = write_pgn(good, format="wxf")
    broken = pgn.replace("Fine", "Broken").split("\n\n")[0] + "\n\n1. C2.5 C2.5 2. R9+9 *\n"
    path = tmp_path / "two.pgn"
    path.write_text(pgn + "\n" + broken, encoding="utf-8")
    player = new_player(players, browser, server)
    import_file(player, path)
    player.page.wait_for_selector("#import-error:not([hidden])")
    said = player.page.text_content("#import-error") or ""
    assert said.startswith("game 2 (Broken): ") and said.count("(Broken)") == 1, said


def test_a_byo_yomi_loss_on_time_reads_zero(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    start_local_game(player, time_control="0 1x3")  # one period of 3 s, nothing else
    player.click_move("h2e2")  # Red's first move is free; Black's period starts
    page = player.page
    page.wait_for_selector("#banner:not([hidden])", timeout=60000)
    assert player.state()["result"]["termination"] == "time"
    # Black, who lost, reads zero (after the page's clock has ticked: waited for, not timed).
    page.wait_for_function(
        "() => document.querySelector('#bar-top .player-clock').textContent === '0.0'"
    )


@pytest.mark.parametrize(
    ("locale", "name"), [("ko-KR", "컴퓨터 (2단계)"), ("zh-CN", "电脑（2 级）")]
)
def test_the_computer_is_named_in_the_page_language(
    browser: Browser, server: Server, players: list[Player], locale: str, name: str
) -> None:
    player = new_player(players, browser, server, locale=locale)
    create_from_home(player, variant="xiangqi", kind="computer", level="2", colour="first")
    label = player.page.text_content("#bar-top .player-name") or ""
    assert label.endswith(f" · {name}"), label


def janggi_on_one_screen(player: Player) -> None:
    create_from_home(player, variant="janggi", kind="local")
    player.page.wait_for_selector("#setup:not([hidden])")


def test_a_pass_that_would_end_the_game_or_let_the_opponent_end_it_is_asked_first(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    janggi_on_one_screen(player)
    page = player.page
    asked: list[str] = []
    answer = {"accept": False}

    def on_dialog(dialog: Any) -> None:
        asked.append(dialog.message)
        if answer["accept"]:
            dialog.accept()
        else:
            dialog.dismiss()

    def pass_and_decline_then_accept() -> None:
        answer["accept"] = False
        page.click("#btn-pass")
        page.wait_for_timeout(500)
        assert player.state()["status"] == "playing"
        answer["accept"] = True
        page.click("#btn-pass")

    page.on("dialog", on_dialog)
    page.click('.setup-choice[data-arrangement="마상상마"]:not([disabled])')
    page.wait_for_function("() => window.chuhanApp.view.state.setup.chooser === 'first'")
    page.click('.setup-choice[data-arrangement="마상상마"]:not([disabled])')
    page.wait_for_function("() => window.chuhanApp.view.state.status === 'playing'")

    # Cho is behind on points: Han could pass back and win at once.
    pass_and_decline_then_accept()
    player.wait_ply(1)
    back = (
        "If you pass now, your opponent can end the game by passing back (two passes in a "
        "row): Han wins, Cho 72 – Han 73.5. Pass?"
    )
    assert asked == [back, back]
    # Han's pass would end it on points.
    asked.clear()
    pass_and_decline_then_accept()
    page.wait_for_selector("#banner:not([hidden])")
    ends = "If you pass now, the game ends (two passes in a row): Han wins, Cho 72 – Han 73.5."
    assert asked == [f"{ends} Pass?", f"{ends} Pass?"]
    assert player.state()["result"]["termination"] == "double_pass"
    assert player.errors == []


def test_the_setup_choices_are_pictures_of_the_choosers_back_rank(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    janggi_on_one_screen(player)
    page = player.page
    choice = '.setup-choice[data-arrangement="상마상마"]'

    def pictured(selector: str) -> tuple[list[str], set[str]]:
        labels: list[str] = page.locator(f"{selector} .rank-piece .piece-label").all_text_contents()
        sides = set(
            page.eval_on_selector_all(
                f"{selector} .rank-piece",
                "nodes => nodes.map(n => n.classList.contains('piece-han') ? 'han' : 'cho')",
            )
        )
        return labels, sides

    # Han chooses first: Han's back rank from Han's left, in Han's colour.
    assert pictured(choice) == (["車", "象", "馬", "士", "士", "象", "馬", "車"], {"han"})
    assert page.locator(".setup-choice svg.rank-picture").count() == 4
    for text in page.locator(".setup-choice").all_text_contents():
        assert "마" not in text and "상" not in text and "H E" not in text, text
    assert page.get_attribute(choice, "title") == "elephant, horse, elephant, horse"
    player.screenshot("janggi-setup-pictures")
    page.click(f"{choice}:not([disabled])")
    page.wait_for_function("() => window.chuhanApp.view.state.setup.chooser === 'first'")
    assert pictured('.setup-choice[data-arrangement="마상상마"]') == (
        ["車", "馬", "象", "士", "士", "象", "馬", "車"],
        {"cho"},
    )
    assert player.errors == []


@pytest.mark.parametrize("width", [840, 900, 960, 1280])
def test_the_side_column_never_covers_the_board(
    browser: Browser, server: Server, players: list[Player], width: int
) -> None:
    """Between the phone layout (820 px) and about 980 px, the side column was drawn over
    the board's right files: the board kept its width and the grid let it overflow."""
    player = new_player(players, browser, server, viewport={"width": width, "height": 860})
    start_local_game(player)
    board = player.page.locator("#game svg.board").bounding_box()
    side = player.page.locator("#game .side-column").bounding_box()
    assert board is not None and side is not None
    assert board["x"] + board["width"] <= side["x"], (board, side)
    assert side["x"] + side["width"] <= width
    assert side["width"] >= 16 * 16 - 1  # the side column keeps its narrowest (16rem)
