"""Puzzles in a real browser: solving by clicking, the engine's defence, a wrong move and its
solution, hints, the streak across a reload, and the daily puzzle on the home page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import chuhan
from chuhan.web.puzzles.service import DATA, defender_lost

from .harness import Player, Server, new_player

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

PUZZLES = {
    row["id"]: row
    for row in (json.loads(line) for line in Path(DATA).read_text("utf-8").splitlines() if line)
}
#: Red mates in 2 (3 plies): g5g9, the engine defends f9f8, h5h9 mates.
XIANGQI = "xq_jianghu_endgames_084"
#: Cho mates in 2 (3 plies): g6g8, the engine defends e7e8, h4h9 mates.
JANGGI = "janggi-m2-03"


def _status(player: Player) -> dict[str, Any]:
    state: dict[str, Any] = player.page.evaluate("window.chuhanApp.view.state")
    return state


def open_puzzle(player: Player, puzzle_id: str) -> None:
    player.goto(f"/puzzles/{puzzle_id}")
    player.page.wait_for_function(
        "() => window.chuhanApp.view && window.chuhanApp.view.state.status === 'playing'"
    )
    player.page.wait_for_selector("svg.board .piece.movable")


def play(player: Player, move: str) -> dict[str, Any]:
    """Click the solver's move; wait for the verdict (and the defence, when it is right)."""
    page = player.page
    before = len(_status(player)["moves"])
    page.mouse.click(*player.point(move[:2]))
    page.wait_for_selector(f'svg.board .dest[data-square="{move[2:]}"]', state="attached")
    page.mouse.click(*player.point(move[2:]))
    page.wait_for_function(
        "() => { const s = window.chuhanApp.view.state;"
        " return s.status === 'solved' || s.status === 'failed'"
        f" || (s.status === 'playing' && s.moves.length > {before}); }}"
    )
    return _status(player)


def streak(player: Player) -> int:
    return int(player.page.text_content("#puzzle-streak") or "-1")


def test_solving_a_xiangqi_and_a_janggi_puzzle_by_clicking(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    page = player.page
    open_puzzle(player, XIANGQI)
    assert page.text_content("#puzzle-task") == "Red to move: mate in 2"
    assert "xiangqibench" in (page.text_content("#puzzle-source") or "")
    line = PUZZLES[XIANGQI]["line"]
    state = play(player, line[0])
    assert state["status"] == "playing" and state["moves"] == line[:2]
    # The engine's defence is on the board: the piece that defended stands on its square.
    assert page.locator(f'svg.board .piece[data-square="{line[1][2:]}"]').count() == 1
    assert play(player, line[2])["status"] == "solved"
    assert "Solved" in (page.text_content("#puzzle-feedback") or "")
    assert streak(player) == 1

    open_puzzle(player, JANGGI)
    assert page.text_content("#puzzle-task") == "Cho to move: mate in 2"
    line = PUZZLES[JANGGI]["line"]
    assert play(player, line[0])["moves"] == line[:2]
    assert play(player, line[2])["status"] == "solved"
    assert streak(player) == 2

    # The streak is kept in the browser: a reload shows it still.
    page.reload()
    page.wait_for_function("() => window.chuhanApp.view.state.status === 'playing'")
    assert streak(player) == 2
    assert "(best 2)" in (page.text_content("#puzzle-best") or "")
    player.screenshot("puzzle-janggi")
    assert player.errors == []


def test_a_mined_puzzle_with_han_to_move_is_solved_from_han_s_side(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    mined = next(
        row
        for row in PUZZLES.values()
        if row["source"].get("mined") and " b " in row["fen"] and row["game"] == "janggi"
    )
    player = new_player(players, browser, server)
    page = player.page
    open_puzzle(player, mined["id"])
    assert player.flipped()  # Han, to move, sits at the bottom
    assert page.text_content("#puzzle-task") == f"Han to move: mate in {(mined['plies'] + 1) // 2}"
    assert "self-play" in (page.text_content("#puzzle-source") or "")
    line = mined["line"]
    for ply in range(0, len(line) - 1, 2):
        assert play(player, line[ply])["moves"] == line[: ply + 2]
    assert play(player, line[-1])["status"] == "solved"
    assert player.errors == []


def test_a_wrong_move_shows_the_solution_and_ends_the_streak(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    page = player.page
    open_puzzle(player, XIANGQI)
    play(player, PUZZLES[XIANGQI]["line"][0])
    play(player, PUZZLES[XIANGQI]["line"][2])
    assert streak(player) == 1

    puzzle = PUZZLES[JANGGI]
    board = chuhan.Board(puzzle["fen"], variant="janggi", rules=puzzle["rules"])
    losing = sorted(
        m.iccs()
        for m in board.legal_moves
        if not m.is_pass() and m.iccs() not in puzzle["winning_first_moves"]
    )
    open_puzzle(player, JANGGI)
    assert play(player, losing[0])["status"] == "failed"
    assert streak(player) == 0
    assert "does not win" in (page.text_content("#puzzle-feedback") or "")
    solution = page.locator("#puzzle-solution")
    assert solution.get_attribute("data-iccs") == " ".join(puzzle["line"])
    # Written in the page's notation (janggi in English: WXF).
    assert (solution.text_content() or "").startswith("Solution: R")
    # The solution plays out on the board, from the position before the wrong move.
    page.wait_for_function("() => window.chuhanApp.view.state.replayed === true")
    final = board.copy()
    for move in puzzle["line"]:
        final.push_iccs(move)
    assert defender_lost(final)
    mate = puzzle["line"][-1]
    assert page.locator(f'svg.board .piece[data-square="{mate[2:]}"]').count() == 1
    assert page.locator(f'svg.board .piece[data-square="{mate[:2]}"]').count() == 0
    player.screenshot("puzzle-wrong-move")

    # Try again: solved now, but a puzzle failed once does not count for the streak.
    page.click("#puzzle-retry")
    page.wait_for_function("() => window.chuhanApp.view.state.status === 'playing'")
    play(player, puzzle["line"][0])
    assert play(player, puzzle["line"][2])["status"] == "solved"
    assert streak(player) == 0
    assert player.errors == []


def test_a_hint_shows_the_piece_then_the_move(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    page = player.page
    open_puzzle(player, JANGGI)
    first = PUZZLES[JANGGI]["line"][0]
    page.click("#puzzle-hint")
    page.wait_for_function("() => document.querySelector('svg.board rect.selected') !== null")
    assert page.text_content("#puzzle-feedback") == "Hint: move this piece."
    # The page's words follow the language, the feedback included.
    page.click("#settings summary")
    page.select_option("#set-language", "zh-Hans")
    assert page.text_content("#puzzle-feedback") == "提示：走这个棋子。"
    assert page.text_content("#puzzle-task") == "楚先走：2 步杀"
    page.select_option("#set-language", "en")
    page.click("#settings summary")
    assert page.text_content("#puzzle-feedback") == "Hint: move this piece."
    # The piece is picked: its destinations are shown, the winning one among them.
    assert page.locator(f'svg.board .dest[data-square="{first[2:]}"]').count() == 1
    assert page.locator("svg.board .hint").count() == 0
    page.click("#puzzle-hint")
    page.wait_for_selector("svg.board .hint")
    assert page.is_disabled("#puzzle-hint")
    play(player, first)
    assert play(player, PUZZLES[JANGGI]["line"][2])["status"] == "solved"
    assert streak(player) == 0  # a hint keeps the streak where it was
    assert "with a hint" in (page.text_content("#puzzle-feedback") or "")
    assert player.errors == []


def test_the_daily_puzzle_on_the_home_page_opens(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    page = player.page
    player.goto("/")
    page.wait_for_selector("#daily-board svg.board .piece")
    daily = page.evaluate("fetch('/api/puzzles/daily').then((r) => r.json())")
    pieces = page.locator("#daily-board svg.board .piece").count()
    placement = chuhan.Board(daily["fen"], variant=daily["game"], rules=daily["rules"])
    assert pieces == len(placement.piece_map())
    assert daily["date"] in (page.text_content("#daily-text") or "")
    player.screenshot("home-daily-puzzle")
    page.click("#daily")
    page.wait_for_url(f"**/puzzles/{daily['id']}")
    page.wait_for_function("() => window.chuhanApp.view.state.status === 'playing'")
    sides = {"xiangqi": ("Red", "Black"), "janggi": ("Cho", "Han")}[daily["game"]]
    side = sides[0] if daily["turn"] == "first" else sides[1]
    assert page.text_content("#puzzle-task") == f"{side} to move: mate in {daily['mate_in']}"
    assert player.errors == []


def test_next_puzzle_picks_an_unsolved_one_of_the_chosen_game(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    page = player.page
    player.goto("/puzzles")
    page.wait_for_url("**/puzzles/*")
    page.wait_for_function("() => window.chuhanApp.view.state.status === 'playing'")
    first = page.url
    page.check('input[name="puzzle-game"][value="janggi"]')
    page.click("#puzzle-next")
    page.wait_for_url(lambda url: url != first and "/puzzles/" in url)
    page.wait_for_function("() => window.chuhanApp.view.state.status === 'playing'")
    assert page.text_content("#puzzle-title") == "Janggi puzzle"
    assert player.errors == []
